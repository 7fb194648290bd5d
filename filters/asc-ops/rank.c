/*
 * asc-ops: the rankings (duration, total cost, root cause, within each
 * view), the wait anchors and AI CPU classes, and the "op" records.
 */
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "opkey.h"
#include "rec.h"
#include "strv.h"
#include "util.h"

#include "ops.h"

const char *const viewname[NVIEW] = { "name", "op_type", "name_shape" };

/* "pmu" of an op record. */
static void
putpmu(const struct op *o)
{
	struct pmu_who w = { o->key, o->nnames > 0 ? o->names[0] : NULL, o->tt };

	pmu_put(&ob, &o->pmu, &w, o->cls == TT_COMPUTE || o->cls == TT_UNKNOWN, S.pmustatus,
	    &S.metrics);
}

/* By view, then by vx and vy (a cost or a duration) largest first, then
 * by key. */
static int
viewcmp(const struct op *x, const struct op *y, int64_t vx, int64_t vy)
{
	if (x->view != y->view)
		return x->view - y->view;
	if (vx != vy)
		return vx > vy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
costcmp(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	return viewcmp(x, y, x->dur + x->wait, y->dur + y->wait);
}

int
durcmp(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	return viewcmp(x, y, x->dur, y->dur);
}

int
rootcmp(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	if (x->view != y->view)
		return x->view - y->view;
	if (x->anchor != y->anchor)
		return x->anchor - y->anchor;
	return x->rcost - y->rcost;
}

static int
isanchor(const struct op *o)
{
	int64_t cost = o->dur + o->wait;

	return cost > 0 && (double)o->wait > anchorratio * (double)cost &&
	    o->dur < anchordur * o->calls && o->rcost <= anchorrank;
}

const char *
aicpuclass(const struct op *o)
{
	if ((double)o->masked >= maskedr * (double)o->dur)
		return "AICPU_MASKED_BUT_UNDESIRABLE";
	if ((double)o->masked >= exposedr * (double)o->dur)
		return "AICPU_PARTIALLY_EXPOSED";
	return "AICPU_EXPOSED_NOT_ALLOWED";
}

void
key_out(struct buf *b, const struct op *o)
{
	out_esc(b, o->key, strlen(o->key));
}

/* The key of a name_shape op is "key\nin\nout": written as key only. */
static void
shortkey(const struct op *o)
{
	const char *nl = memchr(o->key, '\n', o->keylen);

	out_str(&ob, "key", o->key, nl ? (size_t)(nl - o->key) : o->keylen);
}

static void
oprec(struct op *o, int64_t viewdur)
{
	int64_t cost = o->dur + o->wait;

	out_begin(&ob, "op");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_cstr(&ob, "view", viewname[o->view]);
	shortkey(o);
	out_cstr(&ob, "op_type", o->optype);
	out_cstr(&ob, "task_type", o->ttmixed ? "mixed" : o->tt);
	out_cstr(&ob, "task_class", tt_classname(o->cls));
	out_i64(&ob, "rank_total_cost", o->rcost);
	out_i64(&ob, "rank_duration", o->rdur);
	out_i64(&ob, "rank_root_cause", o->rroot);
	out_i64(&ob, "calls", o->calls);
	out_nsms(&ob, "dur_total", o->dur);
	out_i64(&ob, "dur_avg_ns", avg(o->dur, o->calls));
	out_dec(&ob, "dur_avg_us", avg(o->dur, o->calls), 3);
	out_nsms(&ob, "wait_total", o->wait);
	out_i64(&ob, "wait_avg_ns", avg(o->wait, o->calls));
	out_dec(&ob, "wait_avg_us", avg(o->wait, o->calls), 3);
	out_nsms(&ob, "total_cost", cost);
	out_i64(&ob, "total_cost_avg_ns", avg(cost, o->calls));
	out_dec(&ob, "total_cost_avg_us", avg(cost, o->calls), 3);
	out_ratio(&ob, "wait_ratio", o->wait, cost);
	out_ratio(&ob, "share_of_kernel_sum", o->dur, viewdur);
	out_i64(&ob, "small_calls", o->small);
	out_strv(&ob, "raw_names", (const char *const *)o->names, o->nnames);
	out_bool(&ob, "raw_names_more", o->namesmore);
	out_raw(&ob, "in_shapes", o->inshp, strlen(o->inshp));
	out_raw(&ob, "out_shapes", o->outshp, strlen(o->outshp));
	if (S.shapes_seen)
		out_i64(&ob, "shape_variants", o->nshp);
	else
		out_null(&ob, "shape_variants");
	out_bool(&ob, "shape_variants_more", o->shpmore);
	{
		int nt = 0;
		const char *t[4];

		if (o->anchor)
			t[nt++] = "WAIT_ANCHOR_FALSE_HOTSPOT";
		if (o->polcalls)
			t[nt++] = "WAIT_POLLUTION_RISK";
		if (o->cls == TT_AICPU && o->dur > 0) {
			t[nt++] = aicpuclass(o);
			if ((double)o->masked < exposedr * (double)o->dur)
				t[nt++] = "AICPU_EXPOSED_RISK";
		}
		out_strv(&ob, "tags", t, nt);
	}
	out_bool(&ob, "wait_anchor", o->anchor);
	out_bool(&ob, "demoted", o->anchor);
	out_key(&ob, "wait_pollution");
	if (o->polcalls) {
		buf_adds(&ob, "{\"calls\":");
		out_int(&ob, o->polcalls);
		out_nsms(&ob, "wait", o->polwait);
		out_ratio(&ob, "share_of_wait", o->polwait, o->wait);
		out_raw(&ob, "largest_src", o->polsrc, strlen(o->polsrc));
		buf_addc(&ob, '}');
	} else
		buf_adds(&ob, "null");
	out_key(&ob, "aicpu");
	if (o->cls == TT_AICPU) {
		const char *c = o->dur > 0 ? aicpuclass(o) : NULL;

		buf_adds(&ob, "{\"masked_ratio\":");
		if (o->dur > 0) {
			char t[40];
			int n = dec_ratio(t, o->masked, o->dur);

			buf_add(&ob, t, (size_t)n);
		} else
			buf_adds(&ob, "null");
		out_nsms(&ob, "masked", o->masked);
		out_cstr(&ob, "class", c);
		out_i64(&ob, "exposed_calls", o->exposedcalls);
		out_i64(&ob, "bubble_adjacent_exposed_calls", o->bubblecalls);
		out_bool(&ob, "escalated", o->bubblecalls > 0);
		buf_addc(&ob, '}');
	} else
		buf_adds(&ob, "null");
	putpmu(o);
	rec_put(&ob, stdout);
}

void
keylist(const char *k, struct op **v, size_t n, int (*want)(const struct op *))
{
	int c = 0;

	out_key(&ob, k);
	buf_addc(&ob, '[');
	for (size_t i = 0; i < n && c < topn; i++) {
		if (want && !want(v[i]))
			continue;
		if (c++)
			buf_addc(&ob, ',');
		key_out(&ob, v[i]);
	}
	buf_addc(&ob, ']');
}

int
wantpol(const struct op *o)
{
	return o->polcalls > 0;
}

int
wantcpu(const struct op *o)
{
	return o->cls == TT_AICPU;
}

int
wantvar(const struct op *o)
{
	return o->nshp > 1;
}

static void
setdur(struct op *o, int r)
{
	o->rdur = r;
}

static void
setcost(struct op *o, int r)
{
	o->rcost = r;
	o->anchor = isanchor(o);
}

static void
setroot(struct op *o, int r)
{
	o->rroot = r;
}

/* Sorts by cmp and hands each op its 1-based place within its view. */
static void
rankby(struct op **v, size_t n, int (*cmp)(const void *, const void *),
    const size_t *nv, const size_t *off, void (*set)(struct op *, int))
{
	qsort(v, n, sizeof *v, cmp);
	for (int w = 0; w < NVIEW; w++)
		for (size_t i = 0; i < nv[w]; i++)
			set(v[off[w] + i], (int)i + 1);
}

/* Each op's ranks (by duration, cost, root cause, within its view), then
 * the op records in cost order. */
void
rank_ops(struct op **v, size_t n, const size_t *nv, const size_t *off)
{
	rankby(v, n, durcmp, nv, off, setdur);
	rankby(v, n, costcmp, nv, off, setcost);
	rankby(v, n, rootcmp, nv, off, setroot);
	qsort(v, n, sizeof *v, costcmp);
	for (size_t i = 0; i < n; i++)
		oprec(v[i], S.dur);
}
