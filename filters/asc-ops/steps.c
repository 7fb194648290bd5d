/*
 * asc-ops: the per-step checks when a step's kernels are complete: busy
 * unions, AI CPU masking and risk, small ops exposed and their runs, the
 * variable-shape groups, and the "op_step" record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "cmp.h"
#include "intern.h"
#include "opkey.h"
#include "rec.h"
#include "util.h"

#include "ops.h"

static size_t
merge(struct iv *v, size_t n)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		if (v[i].e <= v[i].s)
			continue;
		if (m > 0 && v[i].s <= v[m - 1].e) {
			if (v[i].e > v[m - 1].e)
				v[m - 1].e = v[i].e;
		} else
			v[m++] = v[i];
	}
	return m;
}

static struct group *
group_get(const char *id, size_t n)
{
	for (size_t i = 0; i < S.ng; i++)
		if (sr_is(id, n, S.g[i].id))
			return &S.g[i];
	S.g = xgrow(S.g, S.ng, &S.capg, 8, sizeof *S.g);
	S.g[S.ng] = (struct group){ .id = xstrndup(id, n) };
	return &S.g[S.ng++];
}

static CMP_FN(kcmp, struct iv, CMP_2(s, e))

/*
 * One step being flushed: its record's fields (detect), what is measured
 * over its kernels, read by the writer (emit).  The busy unions of the
 * step's compute, small and other kernels are kept across steps (U).
 */
struct opstep {
	const struct rfield *sid, *gid, *dev;	/* spans of the step line */
	int64_t		 ws, we;
	int		 haswin, risk, varshape, main_stream;
	size_t		 n;			/* kernels of the step */
	int64_t		 ksum, ssum, exposed, nsmall;
	int64_t		 runs, lbruns;		/* small runs, launch-bound ones */
	int64_t		 bestn, bestspan, bestgap, bestdur;	/* the largest run */
	size_t		 bestfirst, bestlast;
	const char	*verdict;
};

static struct {
	struct iv	*cu, *nu, *su;		/* compute, not small, small */
	size_t		 ncu, nnu, nsu, cap;
} U;

/* The busy unions of the step's kernels (clipped to its window), and the
 * kernel and small-kernel sums. */
static void
ops_unions(struct opstep *x)
{
	if (x->n + 1 > U.cap) {
		U.cap = x->n + 1;
		U.cu = xreallocarray(U.cu, U.cap, sizeof *U.cu);
		U.nu = xreallocarray(U.nu, U.cap, sizeof *U.nu);
		U.su = xreallocarray(U.su, U.cap, sizeof *U.su);
	}
	U.ncu = U.nnu = U.nsu = 0;
	for (size_t i = 0; i < x->n; i++) {
		struct iv v = { S.k[i].s, S.k[i].e };

		if (x->haswin) {
			if (v.s < x->ws)
				v.s = x->ws;
			if (v.e > x->we)
				v.e = x->we;
		}
		x->ksum += S.k[i].dur;
		if (S.k[i].cls == TT_COMPUTE)
			U.cu[U.ncu++] = v;
		if (S.k[i].small) {
			U.su[U.nsu++] = v;
			x->ssum += S.k[i].dur;
		} else
			U.nu[U.nnu++] = v;
	}
	/* Kernels are in start order, but a clipped start may tie: sort anyway. */
	qsort(U.cu, U.ncu, sizeof *U.cu, kcmp);
	qsort(U.su, U.nsu, sizeof *U.su, kcmp);
	qsort(U.nu, U.nnu, sizeof *U.nu, kcmp);
	U.ncu = merge(U.cu, U.ncu);
	U.nsu = merge(U.su, U.nsu);
	U.nnu = merge(U.nu, U.nnu);
}

/* AI CPU: overlap with concurrent AI Core / vector work. */
static void
ops_aicpu_masked(const struct opstep *x)
{
	for (size_t i = 0; i < x->n; i++) {
		struct kv *k = &S.k[i];

		if (k->cls != TT_AICPU)
			continue;
		k->masked = iv_covered(U.cu, U.ncu, k->s, k->e);
		for (int v = 0; v < NVIEW; v++)
			if (k->op[v]) {
				k->op[v]->masked += k->masked;
				if ((double)k->masked < exposedr * (double)k->dur)
					k->op[v]->exposedcalls++;
			}
	}
}

/* Significant gaps of the step's device-busy union next to an exposed AI
 * CPU kernel: x->risk, and the op's bubble calls. */
static void
ops_aicpu_risk(struct opstep *x)
{
	int64_t ue = 0;
	size_t last = 0;
	int have = 0;

	for (size_t i = 0; i < x->n; i++) {
		struct kv *k = &S.k[i];

		if (k->e <= k->s)
			continue;
		if (have && k->s > ue && k->s - ue >= minbubble) {
			struct kv *side[2] = { &S.k[last], k };

			for (int j = 0; j < 2; j++) {
				struct kv *a = side[j];

				if (a->cls == TT_AICPU &&
				    (double)a->masked < exposedr * (double)a->dur) {
					x->risk = 1;
					for (int v = 0; v < NVIEW; v++)
						if (a->op[v])
							a->op[v]->bubblecalls++;
				}
			}
		}
		if (!have || k->e > ue) {
			ue = k->e;
			last = i;
		}
		have = 1;
	}
}

/* Small ops not overlapped by other kernels. */
static void
ops_small_exposed(struct opstep *x)
{
	size_t j = 0;

	for (size_t i = 0; i < U.nsu; i++) {
		int64_t len = U.su[i].e - U.su[i].s;

		while (j < U.nnu && U.nu[j].e <= U.su[i].s)
			j++;
		for (size_t m = j; m < U.nnu && U.nu[m].s < U.su[i].e; m++) {
			int64_t s = U.nu[m].s > U.su[i].s ? U.nu[m].s : U.su[i].s;
			int64_t e = U.nu[m].e < U.su[i].e ? U.nu[m].e : U.su[i].e;

			if (e > s)
				len -= e - s;
		}
		x->exposed += len;
	}
}

/* Runs of small kernels on the main stream (largest compute duration),
 * and the small-op verdict of the step. */
static void
ops_small_runs(struct opstep *x)
{
	int64_t *sd = xcalloc((size_t)S.nstreams + 1, sizeof *sd);
	int64_t best = -1;
	size_t i = 0, n = x->n;

	x->main_stream = -1;
	for (i = 0; i < n; i++)
		if (S.k[i].cls == TT_COMPUTE || S.k[i].cls == TT_UNKNOWN)
			sd[S.k[i].stream] += S.k[i].dur;
	for (int s = 0; s < S.nstreams; s++)
		if (sd[s] > best) {
			best = sd[s];
			x->main_stream = s;
		}
	free(sd);
	i = 0;
	while (i < n) {
		size_t first, lastk;
		int64_t cnt = 0, d = 0, gap = 0, pe = 0;

		if (S.k[i].stream != x->main_stream || !S.k[i].small) {
			i++;
			continue;
		}
		first = lastk = i;
		for (; i < n; i++) {
			if (S.k[i].stream != x->main_stream)
				continue;
			if (!S.k[i].small)
				break;
			if (cnt > 0 && S.k[i].s > pe)
				gap += S.k[i].s - pe;
			pe = S.k[i].e;
			d += S.k[i].dur;
			cnt++;
			lastk = i;
		}
		if (cnt < runmin)
			continue;
		x->runs++;
		if ((double)gap >= rungap * (double)d)
			x->lbruns++;
		if (cnt > x->bestn) {
			x->bestn = cnt;
			x->bestfirst = first;
			x->bestlast = lastk;
			x->bestspan = S.k[lastk].e - S.k[first].s;
			x->bestgap = gap;
			x->bestdur = d;
		}
	}
	x->verdict = U.nsu == 0 && x->ssum == 0 ? "none" : x->runs == 0 ? "noise" :
	    x->lbruns > 0 ? "probable_launch_bound" : "dense";
	for (i = 0; i < n; i++)
		x->nsmall += S.k[i].small;
	if (x->nsmall == 0)
		x->verdict = "none";
}

/* Same name sequence, different shapes, inside one group. */
static void
ops_varshape(struct opstep *x)
{
	struct group *g;

	if (!(x->gid && !rf_isnull(x->gid) && rf_str(x->gid, &tmp) == 0 && S.shapes_seen))
		return;
	g = group_get(tmp.p, tmp.len);
	if (g->names == 0 && g->shapes == 0) {
		g->names = S.hnames;
		g->shapes = S.hshapes;
	} else if (g->names == S.hnames && g->shapes != S.hshapes) {
		g->variable = 1;
		x->varshape = 1;
	}
}

/* The profile's step counts, and the "op_step" record. */
static void
emit_op_step(const struct opstep *x)
{
	S.steps++;
	if (strcmp(x->verdict, "probable_launch_bound") == 0)
		S.lbsteps++;
	else if (strcmp(x->verdict, "dense") == 0)
		S.densesteps++;
	else if (strcmp(x->verdict, "noise") == 0)
		S.noisesteps++;
	if (x->nsmall)
		S.smallsteps++;
	if (x->risk) {
		if (S.riskn < 100) {
			if (S.risksteps.len)
				buf_addc(&S.risksteps, ',');
			sr_raw(&S.risksteps, x->sid);
		}
		S.riskn++;
	}
	out_begin(&ob, "op_step");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_key(&ob, "device");
	sr_raw(&ob, x->dev);
	out_key(&ob, "step_id");
	sr_raw(&ob, x->sid);
	out_key(&ob, "group_id");
	sr_raw(&ob, x->gid);
	out_i64(&ob, "kernels", (int64_t)x->n);
	out_nsms(&ob, "kernel_sum", x->ksum);
	out_dec(&ob, "small_op_us", smallns, 3);
	out_i64(&ob, "small_kernels", x->nsmall);
	out_nsms(&ob, "small_sum", x->ssum);
	out_ratio(&ob, "small_share_of_kernel_sum", x->ssum, x->ksum);
	out_nsms(&ob, "small_exposed", x->exposed);
	if (x->haswin)
		out_ratio(&ob, "small_exposed_share_of_wall", x->exposed, x->we - x->ws);
	else
		out_null(&ob, "small_exposed_share_of_wall");
	out_key(&ob, "main_stream");
	if (x->main_stream >= 0) {
		const char *p = S.streams.p;

		for (int i = 0; i < x->main_stream; i++)
			p = strchr(p, '\n') + 1;
		buf_add(&ob, p, (size_t)(strchr(p, '\n') - p));
	} else
		buf_adds(&ob, "null");
	out_i64(&ob, "small_runs", x->runs);
	out_i64(&ob, "launch_bound_runs", x->lbruns);
	out_key(&ob, "largest_run");
	if (x->bestn > 0) {
		struct buf *b = &ob;

		buf_adds(b, "{\"kernels\":");
		out_int(b, x->bestn);
		out_i64(b, "span_ns", x->bestspan);
		out_i64(b, "dur_sum_ns", x->bestdur);
		out_i64(b, "gap_sum_ns", x->bestgap);
		out_raw(b, "first_src", S.arena.p + S.k[x->bestfirst].src,
		    strlen(S.arena.p + S.k[x->bestfirst].src));
		out_raw(b, "last_src", S.arena.p + S.k[x->bestlast].src,
		    strlen(S.arena.p + S.k[x->bestlast].src));
		buf_addc(b, '}');
	} else
		buf_adds(&ob, "null");
	out_cstr(&ob, "small_op_verdict", x->verdict);
	out_key(&ob, "tags");
	buf_addc(&ob, '[');
	if (x->risk)
		buf_adds(&ob, "\"AICPU_EXPOSED_RISK\"");
	buf_addc(&ob, ']');
	out_bool(&ob, "variable_shape", x->varshape);
	rec_put(&ob, stdout);
}

/*
 * The buffered kernels of one step are complete: AI CPU masking, exposed
 * AI CPU kernels next to significant bubbles, the small-op judgement.
 * With r (a step record) an "op_step" record is written.
 */
void
step_flush(const struct rin *r, int emit)
{
	struct opstep x;

	memset(&x, 0, sizeof x);
	x.n = S.nk;
	if (r) {
		x.sid = rin_get(r, "step_id");
		x.gid = rin_get(r, "group_id");
		x.dev = rin_get(r, "device");
		x.haswin = rin_i64(r, "start_ns", &x.ws) == 0 &&
		    rin_i64(r, "end_ns", &x.we) == 0 && x.we >= x.ws;
	}
	ops_unions(&x);
	ops_aicpu_masked(&x);
	ops_aicpu_risk(&x);
	ops_small_exposed(&x);
	ops_small_runs(&x);
	if (r)
		ops_varshape(&x);
	if (emit && r)
		emit_op_step(&x);
	/* Communication kernels that ended before this step are dropped. */
	if (x.n > 0) {
		size_t m = 0;

		for (size_t i = 0; i < S.nck; i++)
			if (S.ck[i].e > S.k[0].s)
				S.ck[m++] = S.ck[i];
		S.nck = m;
	}
	S.nk = 0;
	S.arena.len = 0;
	S.streams.len = 0;
	S.nstreams = 0;
	S.hnames = S.hshapes = FNV_INIT;
	S.stepid.len = 0;
}

int
steprec(struct rin *r)
{
	const struct rfield *sid;

	if (sr_sect_need(&S.sect, r, "step") != 0)
		return -1;
	if (rin_scan(r) != 0)
		return -1;
	sid = rin_get(r, "step_id");
	if (sid == NULL || rf_str(sid, &tmp) != 0) {
		rin_error(r, "step has no string \"step_id\"");
		return -1;
	}
	if (S.nk > 0 && (sid->vlen != S.stepid.len || memcmp(sid->v, S.stepid.p, sid->vlen) != 0)) {
		rin_error(r, "step \"%.40s\" closes kernels of another step", tmp.p);
		step_flush(NULL, 0);
		return -1;
	}
	sr_pass(r);
	step_flush(r, 1);
	return 0;
}
