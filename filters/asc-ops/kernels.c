/*
 * asc-ops: reading kernels: each kernel added to its ops (calls,
 * duration, wait, names, shapes, PMU values), its wait checked against the
 * communication windows, and kept for its step's checks (steps.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "opkey.h"
#include "rec.h"
#include "util.h"

#include "ops.h"

static struct buf key, tmp2;

static int
streamid(const struct rfield *f)
{
	return intern_line(&S.streams, &S.nstreams, f ? f->v : "null", f ? f->vlen : 4);
}

static int
ivcmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* Overlap of [a, b) with the union of the communication windows. */
static int64_t
commoverlap(int64_t a, int64_t b)
{
	static struct iv *v;
	static size_t cap;
	size_t n = 0;
	int64_t sum = 0, cs = 0, ce = 0;
	int have = 0;

	/*
	 * The comm records (tens of thousands in a long capture) are sorted
	 * once by start with a running maximum of their ends, so a query only
	 * visits the records that can reach [a, b).
	 */
	if (!S.cwsorted) {
		if (S.ncw)	/* qsort's base may not be NULL, even for 0 */
			qsort(S.cw, S.ncw, sizeof *S.cw, ivcmp);
		S.cwmax = xreallocarray(S.cwmax, S.ncw + 1, sizeof *S.cwmax);
		for (size_t i = 0; i < S.ncw; i++)
			S.cwmax[i] = i && S.cwmax[i - 1] > S.cw[i].e ? S.cwmax[i - 1] : S.cw[i].e;
		S.cwsorted = 1;
	}
	for (int pass = 0; pass < 2; pass++) {
		const struct iv *l = pass ? S.ck : S.cw;
		size_t m = pass ? S.nck : S.ncw, lo = 0;

		if (!pass) {
			/* Records starting before b; stop where none reaches a. */
			size_t hi = S.ncw, l0 = 0;

			while (l0 < hi) {
				size_t mid = l0 + (hi - l0) / 2;

				if (S.cw[mid].s < b)
					l0 = mid + 1;
				else
					hi = mid;
			}
			m = l0;
			/* cwmax only grows: the first index whose max end passes a. */
			for (lo = 0, hi = m; lo < hi;) {
				size_t mid = lo + (hi - lo) / 2;

				if (S.cwmax[mid] > a)
					hi = mid;
				else
					lo = mid + 1;
			}
		}
		for (size_t i = lo; i < m; i++) {
			int64_t s = l[i].s > a ? l[i].s : a, e = l[i].e < b ? l[i].e : b;

			if (e <= s)
				continue;
			v = xgrow(v, n, &cap, 16, sizeof *v);
			v[n].s = s;
			v[n++].e = e;
		}
	}
	if (n)
		qsort(v, n, sizeof *v, ivcmp);
	for (size_t i = 0; i < n; i++) {
		if (have && v[i].s <= ce) {
			if (v[i].e > ce)
				ce = v[i].e;
			continue;
		}
		if (have)
			sum += ce - cs;
		cs = v[i].s;
		ce = v[i].e;
		have = 1;
	}
	if (have)
		sum += ce - cs;
	return sum;
}

/* A kernel's wait polluted by communication: counted for its ops. */
static void
pollution(struct op *const o[NVIEW], const struct sr_kern *k)
{
	int64_t ov = commoverlap(k->start - k->wait, k->start);

	if ((double)ov >= polshare * (double)k->wait) {
		S.polcalls++;
		for (int v = 0; v < NVIEW; v++) {
			struct op *p = o[v];

			if (p == NULL)
				continue;
			p->polcalls++;
			p->polwait += k->wait;
			if (k->wait > p->polmax || p->polsrc == NULL) {
				p->polmax = k->wait;
				free(p->polsrc);
				p->polsrc = xstrndup(k->src ? k->src->v : "null", k->src ? k->src->vlen : 4);
			}
		}
	}
}

int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	const struct rfield *f, *ot, *ins, *outs;
	struct op *o[NVIEW] = { NULL, NULL, NULL };
	int o1, cls, hasshp = 0;
	size_t namelen;
	double pval[NPMU];
	int phas[NPMU];

	if ((o1 = sr_sect_kernel_rec(&S.sect, r, &k)) < 0 || sr_kernel_name(r, &k, &tmp) != 0)
		return -1;
	f = k.step_id;
	if (o1 == 1 || (S.nk > 0 && (f == NULL || f->vlen != S.stepid.len ||
	    memcmp(f->v, S.stepid.p, f->vlen) != 0)))
		step_flush(NULL, 0);
	if (o1 == 1)
		S.nck = 0;
	if (S.nk == 0) {
		S.stepid.len = 0;
		sr_raw(&S.stepid, f);
		if (f == NULL)
			S.stepid.len = 0;
	}
	namelen = tmp.len;
	key.len = 0;
	opkey(tmp.p, tmp.len, &key);
	tmp2.len = 0;
	if (k.task_type)
		rf_str(k.task_type, &tmp2);
	cls = tt_class(k.task_type ? tmp2.p : NULL);
	o[V_NAME] = op_get(V_NAME, key.p, key.len);
	S.hnames = fnv(S.hnames, key.p, key.len + 1);

	/* The Type view: only a real type. */
	ot = rin_get(r, "op_type");
	if (ot && !rf_isnull(ot)) {
		struct buf tb = { 0 };

		if (rf_str(ot, &tb) == 0 && tb.len > 0 && strcmp(tb.p, "N/A") != 0) {
			o[V_TYPE] = op_get(V_TYPE, tb.p, tb.len);
			if (o[V_NAME]->optype == NULL)
				o[V_NAME]->optype = xstrndup(tb.p, tb.len);
			if (o[V_TYPE]->optype == NULL)
				o[V_TYPE]->optype = xstrndup(tb.p, tb.len);
		}
		buf_free(&tb);
	}
	/* Shapes: the name + shapes view. */
	ins = rin_get(r, "in_shapes");
	outs = rin_get(r, "out_shapes");
	if (ins && !rf_isnull(ins) && !(ins->vlen == 5 && memcmp(ins->v, "\"N/A\"", 5) == 0)) {
		size_t kl = key.len;

		hasshp = 1;
		S.shapes_seen = 1;
		buf_addc(&key, '\n');
		buf_add(&key, ins->v, ins->vlen);
		buf_addc(&key, '\n');
		sr_raw(&key, outs);
		o[V_SHAPE] = op_get(V_SHAPE, key.p, key.len);
		S.hshapes = fnv(S.hshapes, key.p + kl, key.len - kl + 1);
		key.len = kl;
	}

	int small = k.dur < smallns;
	struct pmu_sum *sum[PMU_VIEWS];
	int pmu;

	for (int v = 0; v < NVIEW; v++)
		sum[v] = o[v] ? &o[v]->pmu : NULL;
	if ((pmu = pmu_kernel(r, mpath ? &mjoin : NULL, sum, k.dur, k.src,
	    cls == TT_COMPUTE || cls == TT_UNKNOWN, pval, phas)) < 0)
		return -1;
	for (int v = 0; v < NVIEW; v++) {
		struct op *p = o[v];

		if (p == NULL)
			continue;
		if (p->calls == 0) {
			p->cls = cls;
			if (k.task_type && tmp2.len)
				p->tt = xstrndup(tmp2.p, tmp2.len);
			p->inshp = xstrndup(ins ? ins->v : "null", ins ? ins->vlen : 4);
			p->outshp = xstrndup(outs ? outs->v : "null", outs ? outs->vlen : 4);
		} else if (!p->ttmixed && (p->tt ? (tmp2.len == 0 || strcmp(p->tt, tmp2.p) != 0) :
		    tmp2.len != 0))
			p->ttmixed = 1;
		p->calls++;
		p->dur += k.dur;
		p->wait += k.haswait ? k.wait : 0;
		p->small += small;
		addname(p, tmp.p, namelen);
		if (hasshp)
			addshape(p, hash64(hash64(0, ins->v, ins->vlen), outs ? outs->v : "",
			    outs ? outs->vlen : 0));
		if (pmu)
			pmu_add(&p->pmu, pval, phas, k.dur);
	}
	S.kernels++;
	S.dur += k.dur;
	S.wait += k.haswait ? k.wait : 0;
	S.small += small;
	if (small)
		S.smalldur += k.dur;

	/* Wait pollution: the wait interval against communication windows. */
	if (k.haswait && k.wait > 0)
		pollution(o, &k);
	if (cls == TT_COMM && k.end > k.start) {
		S.ck = xgrow(S.ck, S.nck, &S.capck, 64, sizeof *S.ck);
		S.ck[S.nck].s = k.start;
		S.ck[S.nck++].e = k.end;
	}

	/* Buffer for the per-step checks. */
	S.k = xgrow(S.k, S.nk, &S.capk, 1024, sizeof *S.k);
	struct kv *kv = &S.k[S.nk++];

	kv->s = k.start;
	kv->e = k.end;
	kv->dur = k.dur;
	kv->masked = 0;
	memcpy(kv->op, o, sizeof o);
	kv->stream = streamid(k.stream);
	kv->cls = (unsigned char)cls;
	kv->small = (unsigned char)small;
	kv->src = S.arena.len;
	sr_raw(&S.arena, k.src);
	buf_addc(&S.arena, '\0');
	sr_pass(r);
	return 0;
}
