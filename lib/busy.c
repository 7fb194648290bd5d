/* The device-busy union of one step (see busy.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "cmp.h"
#include "rules.h"
#include "util.h"

/* Is k a communication task?  Task types are few: the last answer is kept. */
static int
iscomm(const struct sr_kern *k)
{
	static struct buf last, tmp;
	static int ans, have;

	if (k->task_type == NULL || rf_isnull(k->task_type) || rf_str(k->task_type, &tmp) != 0)
		return 0;
	if (!have || tmp.len != last.len || memcmp(tmp.p, last.p, tmp.len) != 0) {
		last.len = 0;
		buf_add(&last, tmp.p, tmp.len);
		ans = rules_match("ops.comm_task_types", tmp.p);
		have = 1;
	}
	return ans;
}

void
busy_add(struct busy *b, const struct sr_kern *k)
{
	struct busy_iv *v;

	b->v = xgrow(b->v, b->n, &b->cap, 1024, sizeof *b->v);
	v = &b->v[b->n];
	v->s = k->start;
	v->e = k->end;
	v->seq = b->n++;
	v->comm = iscomm(k);
	v->ctx = b->ctx.len;
	sr_ctx(&b->ctx, k);
	v->ctxlen = b->ctx.len - v->ctx;
}

int
busy_kernel(struct busy *b, struct rin *r, const struct sr_kern *k)
{
	static struct buf id;

	if (k->step_id == NULL) {
		rin_error(r, "kernel has no \"step_id\" (run asc-steps first)");
		return -1;
	}
	if (rf_isnull(k->step_id))
		return 0;
	if (rf_str(k->step_id, &id) != 0) {
		rin_error(r, "kernel \"step_id\" is not a string");
		return -1;
	}
	if (b->have && (id.len != b->step.len || memcmp(id.p, b->step.p, id.len) != 0)) {
		rin_error(r, "kernel of step \"%.40s\" before the "
		    "\"step\" record of step \"%.40s\"", id.p, b->step.p);
		return -1;
	}
	if (!b->have) {
		b->have = 1;
		b->step.len = 0;
		buf_add(&b->step, id.p, id.len);
	}
	busy_add(b, k);
	return 1;
}

int
busy_step(struct busy *b, struct rin *r, const struct rfield *sid, struct buf *id)
{
	if (sid == NULL || rf_str(sid, id) != 0) {
		rin_error(r, "step has no string \"step_id\"");
		return -1;
	}
	if (b->have && (id->len != b->step.len || memcmp(id->p, b->step.p, id->len) != 0)) {
		rin_error(r, "step \"%.40s\" closes kernels of step \"%.40s\"",
		    id->p, b->step.p);
		busy_clear(b);
		return -1;
	}
	return 0;
}

void
busy_clear(struct busy *b)
{
	b->n = 0;
	b->ctx.len = 0;
	b->have = 0;
}

static CMP_FN(icmp, struct busy_iv, CMP_3(s, e, seq))

void
busy_merge(struct busy *b, int64_t ws, int64_t we,
    void (*fn)(const struct busy *, const struct busy_seg *, void *), void *arg)
{
	struct busy_iv *v = b->v;
	size_t m = 0;

	for (size_t i = 0; i < b->n; i++) {
		struct busy_iv x = v[i];

		if (x.s < ws)
			x.s = ws;
		if (x.e > we)
			x.e = we;
		if (x.e <= x.s)
			continue;	/* zero length after clipping: never splits a gap */
		v[m++] = x;
	}
	if (m > 1)
		qsort(v, m, sizeof *v, icmp);

	struct busy_seg g = { 0 };
	size_t first = 0, last = 0;
	long k = 0;
	int64_t cs = 0, ce = 0;
	/*
	 * Inside a segment, the union of its compute kernels and that of its
	 * communication kernels, each merged on its own as the sorted
	 * intervals go by: a subset of intervals sorted by start is sorted.
	 */
	struct { int64_t s, e, tot; int have; } u[2];

	memset(u, 0, sizeof u);
	for (size_t i = 0; i <= m; i++) {
		if (i < m && k > 0 && v[i].s <= ce) {
			if (v[i].e >= ce) {
				ce = v[i].e;
				last = i;
			}
			k++;
		} else {
			if (k > 0) {
				for (int j = 0; j < 2; j++)
					if (u[j].have)
						u[j].tot += u[j].e - u[j].s;
				g.s = cs;
				g.e = ce;
				g.kernels = k;
				g.compute = u[0].tot;
				g.comm = u[1].tot;
				g.first = &v[first];
				g.last = &v[last];
				fn(b, &g, arg);
				g.index++;
				memset(u, 0, sizeof u);
			}
			if (i == m)
				break;
			cs = v[i].s;
			ce = v[i].e;
			first = last = i;
			k = 1;
		}
		int j = v[i].comm;

		if (u[j].have && v[i].s <= u[j].e) {
			if (v[i].e > u[j].e)
				u[j].e = v[i].e;
		} else {
			if (u[j].have)
				u[j].tot += u[j].e - u[j].s;
			u[j].s = v[i].s;
			u[j].e = v[i].e;
			u[j].have = 1;
		}
	}
	busy_clear(b);
}

void
busy_seg_rec(struct buf *ob, const struct busy *b, const struct busy_seg *g,
    const struct rfield *prof, const struct rfield *dev, const struct rfield *sid)
{
	out_begin(ob, "segment");
	out_key(ob, "profile");
	sr_raw(ob, prof);
	out_key(ob, "device");
	sr_raw(ob, dev);
	out_key(ob, "step_id");
	sr_raw(ob, sid);
	out_i64(ob, "segment", g->index);
	out_i64(ob, "start_ns", g->s);
	out_i64(ob, "end_ns", g->e);
	out_i64(ob, "dur_ns", g->e - g->s);
	out_i64(ob, "kernels", g->kernels);
	out_i64(ob, "compute_ns", g->compute);
	out_i64(ob, "comm_ns", g->comm);
	out_raw(ob, "first", b->ctx.p + g->first->ctx, g->first->ctxlen);
	out_raw(ob, "last", b->ctx.p + g->last->ctx, g->last->ctxlen);
}

int64_t
iv_covered(const struct iv *u, size_t n, int64_t a, int64_t b)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	while (lo < hi) {	/* the first interval ending after a */
		size_t m = (lo + hi) / 2;

		if (u[m].e <= a)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i < n && u[i].s < b; i++) {
		int64_t s = u[i].s > a ? u[i].s : a;
		int64_t e = u[i].e < b ? u[i].e : b;

		if (e > s)
			sum += e - s;
	}
	return sum;
}
