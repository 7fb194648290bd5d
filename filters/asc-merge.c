/*
 * asc-merge: per step, merge the kernels' intervals, clipped to the step
 * window, into device-busy "segment" records (all streams and task types
 * together), written just before the step's "step" record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dec.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

struct ival {
	int64_t		 s, e;
	size_t		 ctx, ctxlen;	/* context object in S.ctx */
	size_t		 seq;
	int		 comm;		/* a communication task (ops.comm_task_types) */
};

static struct {
	struct sr_sect	 sect;
	struct buf	 step;		/* step_id (unescaped) of the buffered kernels */
	int		 have;		/* kernels are buffered */
	struct ival	*v;
	size_t		 n, cap;
	struct buf	 ctx;
	int		 bad;
} S;

static struct buf ob, tmp;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-m maxline] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

static int
icmp(const void *a, const void *b)
{
	const struct ival *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	if (x->e != y->e)
		return x->e < y->e ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
clear(void)
{
	S.n = 0;
	S.have = 0;
	S.ctx.len = 0;
	S.step.len = 0;
}

static void
putseg(const struct rfield *prof, const struct rfield *dev,
    const struct rfield *sid, long nseg, int64_t s, int64_t e, long k,
    const struct ival *first, const struct ival *last, int64_t compute, int64_t comm)
{
	out_begin(&ob, "segment");
	out_key(&ob, "profile");
	sr_raw(&ob, prof);
	out_key(&ob, "device");
	sr_raw(&ob, dev);
	out_key(&ob, "step_id");
	sr_raw(&ob, sid);
	out_i64(&ob, "segment", nseg);
	out_i64(&ob, "start_ns", s);
	out_i64(&ob, "end_ns", e);
	out_i64(&ob, "dur_ns", e - s);
	out_i64(&ob, "kernels", k);
	out_i64(&ob, "compute_ns", compute);
	out_i64(&ob, "comm_ns", comm);
	out_raw(&ob, "first", S.ctx.p + first->ctx, first->ctxlen);
	out_raw(&ob, "last", S.ctx.p + last->ctx, last->ctxlen);
	rec_put(&ob, stdout);
}

/* The step record closes the buffered kernels: clip, sort, merge, write. */
static int
steprec(struct rin *r)
{
	const struct rfield *sid;
	int64_t ws, we;
	size_t m = 0;

	if (rin_scan(r) != 0)
		return -1;
	sid = rin_get(r, "step_id");
	if (rin_i64(r, "start_ns", &ws) != 0 || rin_i64(r, "end_ns", &we) != 0) {
		snprintf(r->err, sizeof r->err, "step has no integer \"start_ns\" and \"end_ns\"");
		return -1;
	}
	if (sid == NULL || rf_str(sid, &tmp) != 0) {
		snprintf(r->err, sizeof r->err, "step has no string \"step_id\"");
		return -1;
	}
	if (S.have && (tmp.len != S.step.len || memcmp(tmp.p, S.step.p, tmp.len) != 0)) {
		snprintf(r->err, sizeof r->err, "step \"%.40s\" closes kernels of step \"%.40s\"",
		    tmp.p, S.step.p);
		clear();
		return -1;
	}
	for (size_t i = 0; i < S.n; i++) {
		struct ival v = S.v[i];

		if (v.s < ws)
			v.s = ws;
		if (v.e > we)
			v.e = we;
		if (v.e <= v.s)
			continue;	/* zero length after clipping: never splits a gap */
		S.v[m++] = v;
	}
	if (m > 1)
		qsort(S.v, m, sizeof *S.v, icmp);
	long nseg = 0, k = 0;
	size_t first = 0, last = 0;
	int64_t cs = 0, ce = 0;
	/*
	 * Inside a segment, the union of its compute kernels and that of its
	 * communication kernels, each merged on its own as the sorted
	 * intervals go by: a subset of intervals sorted by start is sorted.
	 */
	struct { int64_t s, e, tot; int have; } u[2];

	memset(u, 0, sizeof u);
	for (size_t i = 0; i <= m; i++) {
		if (i < m && k > 0 && S.v[i].s <= ce) {
			if (S.v[i].e >= ce) {
				ce = S.v[i].e;
				last = i;
			}
			k++;
		} else {
			if (k > 0) {
				for (int j = 0; j < 2; j++)
					if (u[j].have)
						u[j].tot += u[j].e - u[j].s;
				putseg(rin_get(r, "profile"), rin_get(r, "device"), sid, nseg++,
				    cs, ce, k, &S.v[first], &S.v[last], u[0].tot, u[1].tot);
				memset(u, 0, sizeof u);
			}
			if (i == m)
				break;
			cs = S.v[i].s;
			ce = S.v[i].e;
			first = last = i;
			k = 1;
		}
		int j = S.v[i].comm;

		if (u[j].have && S.v[i].s <= u[j].e) {
			if (S.v[i].e > u[j].e)
				u[j].e = S.v[i].e;
		} else {
			if (u[j].have)
				u[j].tot += u[j].e - u[j].s;
			u[j].s = S.v[i].s;
			u[j].e = S.v[i].e;
			u[j].have = 1;
		}
	}
	clear();
	sr_pass(r);
	return 0;
}

/* Is k a communication task?  Task types are few: the last answer is kept. */
static int
iscomm(const struct sr_kern *k)
{
	static struct buf last;
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

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;

	if (sr_sect_need(&S.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0 ||
	    sr_sect_kernel(&S.sect, r, &k) < 0)
		return -1;
	if (k.step_id == NULL) {
		snprintf(r->err, sizeof r->err, "kernel has no \"step_id\" (run asc-steps first)");
		return -1;
	}
	if (!rf_isnull(k.step_id)) {
		if (rf_str(k.step_id, &tmp) != 0) {
			snprintf(r->err, sizeof r->err, "kernel \"step_id\" is not a string");
			return -1;
		}
		if (S.have && (tmp.len != S.step.len || memcmp(tmp.p, S.step.p, tmp.len) != 0)) {
			snprintf(r->err, sizeof r->err, "kernel of step \"%.40s\" before the "
			    "\"step\" record of step \"%.40s\"", tmp.p, S.step.p);
			return -1;
		}
		if (!S.have) {
			S.have = 1;
			S.step.len = 0;
			buf_add(&S.step, tmp.p, tmp.len);
		}
		if (S.n == S.cap) {
			S.cap = S.cap ? 2 * S.cap : 1024;
			S.v = xreallocarray(S.v, S.cap, sizeof *S.v);
		}
		struct ival *v = &S.v[S.n];

		v->s = k.start;
		v->e = k.end;
		v->seq = S.n++;
		v->comm = iscomm(&k);
		v->ctx = S.ctx.len;
		sr_ctx(&S.ctx, &k);
		v->ctxlen = S.ctx.len - v->ctx;
	}
	sr_pass(r);
	return 0;
}

/* Reported, but the record that reveals it is still processed. */
static void
leftover(struct rin *r)
{
	if (!S.have)
		return;
	warnmsg("%s:%lu: kernels of step \"%.40s\" have no \"step\" record",
	    r->name, r->lineno, S.step.p);
	S.bad = 1;
	clear();
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	if (sr_is(t, n, "kernel"))
		return kernelrec(r);
	if (sr_is(t, n, "step"))
		return steprec(r);
	if (sr_is(t, n, "profile")) {
		leftover(r);
		sr_sect_profile(&S.sect);
	} else if (sr_is(t, n, "host"))
		sr_sect_host(&S.sect);
	sr_pass(r);
	return 0;
}

static void
onend(void *arg)
{
	if (S.have)
		warnmsg("end of input: kernels of step \"%.40s\" have no \"step\" record",
		    S.step.p);
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "segment", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	int c, kflag = 0, rc;

	setprogname_(argv[0]);
	const char *rules = NULL;

	while ((c = getopt(argc, argv, "km:r:")) != -1)
		switch (c) {
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			rules = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rules);
	rc = sr_run(argc, argv, maxline, kflag, &f);
	if (S.have || S.bad)
		rc = EX_DATA;
	xclose_stdout();
	return rc;
}
