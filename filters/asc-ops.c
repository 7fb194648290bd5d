/*
 * asc-ops: the op level of a profile.  Per op (kernel name without its
 * instance suffix; also per "op_type" and per name + shapes) the call
 * count, duration, wait and total cost, the two rankings, wait anchors,
 * wait pollution by communication, AI CPU masking, the PMU bound class;
 * per step the small-op judgement ("op_step"); per profile the "op"
 * records and one "op_summary".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "asc-ops/pmu.h"

enum { V_NAME, V_TYPE, V_SHAPE, NVIEW };
static const char *const viewname[NVIEW] = { "name", "op_type", "name_shape" };
_Static_assert(NVIEW == PMU_VIEWS, "an op of each view has PMU sums");

#define MAXNAMES	3
#define MAXSHP		16

struct op {
	char		*key;
	size_t		 keylen;
	uint64_t	 h;
	int		 view;
	char		*optype;		/* unescaped, or NULL */
	char		*tt;			/* task type of the first call */
	int		 ttmixed, cls;
	int64_t		 calls, dur, wait, small;
	char		*names[MAXNAMES];
	int		 nnames, namesmore;
	char		*inshp, *outshp;	/* raw JSON of the first call */
	uint64_t	 shp[MAXSHP];
	int		 nshp, shpmore;
	struct pmu_sum	 pmu;
	int64_t		 polcalls, polwait, polmax;
	char		*polsrc;
	int64_t		 masked, exposedcalls, bubblecalls;
	int		 rcost, rdur, rroot, anchor;
};

struct optab {
	struct op	**v;
	size_t		 cap, n;
};

/* A kernel of the current step, for the per-step overlap checks. */
struct kv {
	int64_t		 s, e, dur, masked;
	struct op	*op[NVIEW];
	int		 stream;
	unsigned char	 cls, small;
	size_t		 src;			/* raw src JSON in S.arena */
};

struct iv {
	int64_t		 s, e;
};

struct group {
	char		*id;
	uint64_t	 names, shapes;
	int		 variable;
};

static struct {
	struct sr_sect	 sect;
	int		 emitted;
	struct buf	 prof;
	struct optab	 ops;
	/* availability */
	int		 pmustatus;		/* 0 unavailable, 1 available, 2 other metrics */
	struct buf	 metrics;		/* raw JSON of config.aic_metrics */
	int		 shapes_seen;
	/* profile totals */
	int64_t		 kernels, dur, wait, small, smalldur, steps;
	int64_t		 polcalls, lbsteps, noisesteps, densesteps, smallsteps;
	int64_t		 riskn;
	struct buf	 risksteps;		/* JSON strings, comma-separated */
	/* communication windows */
	struct iv	*cw;			/* comm records */
	size_t		 ncw, capcw;
	int64_t		*cwmax;			/* max end of cw[0..i], once sorted */
	int		 cwsorted;
	struct iv	*ck;			/* comm kernels of the device pass */
	size_t		 nck, capck;
	/* the current step's kernels */
	struct kv	*k;
	size_t		 nk, capk;
	struct buf	 stepid;		/* raw step_id of the buffered kernels */
	int		 havestep;
	struct buf	 streams;		/* raw stream values, \n-separated */
	int		 nstreams;
	struct buf	 arena;
	uint64_t	 hnames, hshapes;
	/* groups, for VARIABLE_SHAPE_SAME_TEMPLATE */
	struct group	*g;
	size_t		 ng, capg;
} S;

static int64_t minbubble, smallns, anchordur;
static double anchorratio, polshare, maskedr, exposedr;
static int anchorrank, runmin, topn = 10;
static double rungap;
static struct buf ob, tmp, key, tmp2;

/* -M: the PMU values come from a file of their own (asc-ops/pmu.h). */
static const char *mpath;
static struct pmu_join mjoin;
static int kflag, mrc = EX_OK;
static size_t mmaxline;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-M pmufile] [-m maxline] [-n top] [-r rules] [file ...]\n",
	    progname);
	exit(EX_SYS);
}

/* Rounded average in ns. */
static int64_t
avg(int64_t sum, int64_t n)
{
	if (n <= 0)
		return 0;
	return sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
}

/* ---------------------------------------------------------------- op table */

static struct op *
op_get(int view, const char *k, size_t n)
{
	uint64_t h = hash64((uint64_t)view, k, n);
	struct optab *t = &S.ops;
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 256;
		struct op **nv = xcalloc(ncap, sizeof *nv);

		for (size_t j = 0; j < t->cap; j++)
			if (t->v[j]) {
				for (i = t->v[j]->h & (ncap - 1); nv[i]; i = (i + 1) & (ncap - 1))
					;
				nv[i] = t->v[j];
			}
		free(t->v);
		t->v = nv;
		t->cap = ncap;
	}
	for (i = h & (t->cap - 1); t->v[i]; i = (i + 1) & (t->cap - 1))
		if (t->v[i]->h == h && t->v[i]->view == view && t->v[i]->keylen == n &&
		    memcmp(t->v[i]->key, k, n) == 0)
			return t->v[i];
	struct op *o = xcalloc(1, sizeof *o);

	o->key = xstrndup(k, n);
	o->keylen = n;
	o->h = h;
	o->view = view;
	t->v[i] = o;
	t->n++;
	return o;
}

static void
op_free(struct op *o)
{
	free(o->key);
	free(o->optype);
	free(o->tt);
	for (int i = 0; i < o->nnames; i++)
		free(o->names[i]);
	free(o->inshp);
	free(o->outshp);
	free(o->polsrc);
	free(o);
}

static void
ops_clear(void)
{
	for (size_t i = 0; i < S.ops.cap; i++)
		if (S.ops.v[i]) {
			op_free(S.ops.v[i]);
			S.ops.v[i] = NULL;
		}
	S.ops.n = 0;
}

/* "pmu" of an op record. */
static void
putpmu(const struct op *o)
{
	struct pmu_who w = { o->key, o->nnames > 0 ? o->names[0] : NULL, o->tt };

	pmu_put(&ob, &o->pmu, &w, o->cls == TT_COMPUTE || o->cls == TT_UNKNOWN, S.pmustatus,
	    &S.metrics);
}

/* ---------------------------------------------------------------- kernels */

static int
streamid(const struct rfield *f)
{
	const char *v = f ? f->v : "null";
	size_t n = f ? f->vlen : 4;
	/* No stream yet: no buffer, and NULL + 0 is undefined. */
	const char *p = S.streams.p, *e = p ? p + S.streams.len : p;
	int i = 0;

	while (p && p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if ((size_t)(q - p) == n && memcmp(p, v, n) == 0)
			return i;
		p = q + 1;
		i++;
	}
	buf_add(&S.streams, v, n);
	buf_addc(&S.streams, '\n');
	return S.nstreams++;
}

static void
addname(struct op *o, const char *n, size_t len)
{
	for (int i = 0; i < o->nnames; i++)
		if (strlen(o->names[i]) == len && memcmp(o->names[i], n, len) == 0)
			return;
	if (o->nnames < MAXNAMES)
		o->names[o->nnames++] = xstrndup(n, len);
	else
		o->namesmore = 1;
}

static void
addshape(struct op *o, uint64_t h)
{
	for (int i = 0; i < o->nshp; i++)
		if (o->shp[i] == h)
			return;
	if (o->nshp < MAXSHP)
		o->shp[o->nshp++] = h;
	else
		o->shpmore = 1;
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
			if (n == cap) {
				cap = cap ? 2 * cap : 16;
				v = xreallocarray(v, cap, sizeof *v);
			}
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

static void step_flush(const struct rin *r, int emit);

static void step_flush(const struct rin *r, int emit);

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	const struct rfield *f, *ot, *ins, *outs;
	struct op *o[NVIEW] = { NULL, NULL, NULL };
	int o1, cls, hasshp = 0;
	size_t namelen;
	double pval[NPMU];
	int phas[NPMU];

	if (sr_sect_need(&S.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0 ||
	    (o1 = sr_sect_kernel(&S.sect, r, &k)) < 0)
		return -1;
	if (k.name == NULL || rf_str(k.name, &tmp) != 0) {
		snprintf(r->err, sizeof r->err, "kernel has no string \"name\"");
		return -1;
	}
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
	int pmu = 0;

	if (mpath) {
		if (rin_get(r, "pmu") != NULL) {
			snprintf(r->err, sizeof r->err, "kernel has \"pmu\": with -M the values come from the -M file only");
			return -1;
		}
		struct pmu_sum *sum[PMU_VIEWS];

		for (int v = 0; v < NVIEW; v++)
			sum[v] = o[v] ? &o[v]->pmu : NULL;
		pmu_join_kernel(&mjoin, sum, k.dur, k.src, cls == TT_COMPUTE || cls == TT_UNKNOWN);
	} else if ((cls == TT_COMPUTE || cls == TT_UNKNOWN) && (f = rin_get(r, "pmu")) != NULL &&
	    !rf_isnull(f)) {
		pmu_scan(f->v, f->v + f->vlen, pval, phas);
		for (int i = 0; i < NPMU; i++)
			pmu |= phas[i];
	}
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
	if (k.haswait && k.wait > 0) {
		int64_t ov = commoverlap(k.start - k.wait, k.start);

		if ((double)ov >= polshare * (double)k.wait) {
			S.polcalls++;
			for (int v = 0; v < NVIEW; v++) {
				struct op *p = o[v];

				if (p == NULL)
					continue;
				p->polcalls++;
				p->polwait += k.wait;
				if (k.wait > p->polmax || p->polsrc == NULL) {
					p->polmax = k.wait;
					free(p->polsrc);
					p->polsrc = xstrndup(k.src ? k.src->v : "null", k.src ? k.src->vlen : 4);
				}
			}
		}
	}
	if (cls == TT_COMM && k.end > k.start) {
		if (S.nck == S.capck) {
			S.capck = S.capck ? 2 * S.capck : 64;
			S.ck = xreallocarray(S.ck, S.capck, sizeof *S.ck);
		}
		S.ck[S.nck].s = k.start;
		S.ck[S.nck++].e = k.end;
	}

	/* Buffer for the per-step checks. */
	if (S.nk == S.capk) {
		S.capk = S.capk ? 2 * S.capk : 1024;
		S.k = xreallocarray(S.k, S.capk, sizeof *S.k);
	}
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

/* ---------------------------------------------------------------- steps */

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

/* Overlap of [a, b) with merged u[0..n). */
static int64_t
overlap(const struct iv *u, size_t n, int64_t a, int64_t b)
{
	size_t lo = 0, hi = n;
	int64_t sum = 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (u[mid].e <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < n && u[i].s < b; i++) {
		int64_t s = u[i].s > a ? u[i].s : a, e = u[i].e < b ? u[i].e : b;

		if (e > s)
			sum += e - s;
	}
	return sum;
}

static struct group *
group_get(const char *id, size_t n)
{
	for (size_t i = 0; i < S.ng; i++)
		if (strlen(S.g[i].id) == n && memcmp(S.g[i].id, id, n) == 0)
			return &S.g[i];
	if (S.ng == S.capg) {
		S.capg = S.capg ? 2 * S.capg : 8;
		S.g = xreallocarray(S.g, S.capg, sizeof *S.g);
	}
	memset(&S.g[S.ng], 0, sizeof S.g[S.ng]);
	S.g[S.ng].id = xstrndup(id, n);
	return &S.g[S.ng++];
}

static int
kcmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return x->e < y->e ? -1 : x->e > y->e;
}

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
		k->masked = overlap(U.cu, U.ncu, k->s, k->e);
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
static void
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

static int
steprec(struct rin *r)
{
	const struct rfield *sid;

	if (sr_sect_need(&S.sect, r, "step") != 0)
		return -1;
	if (rin_scan(r) != 0)
		return -1;
	sid = rin_get(r, "step_id");
	if (sid == NULL || rf_str(sid, &tmp) != 0) {
		snprintf(r->err, sizeof r->err, "step has no string \"step_id\"");
		return -1;
	}
	if (S.nk > 0 && (sid->vlen != S.stepid.len || memcmp(sid->v, S.stepid.p, sid->vlen) != 0)) {
		snprintf(r->err, sizeof r->err, "step \"%.40s\" closes kernels of another step", tmp.p);
		step_flush(NULL, 0);
		return -1;
	}
	sr_pass(r);
	step_flush(r, 1);
	return 0;
}

/* ---------------------------------------------------------------- output */

static int
costcmp(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;
	int64_t cx = x->dur + x->wait, cy = y->dur + y->wait;

	if (x->view != y->view)
		return x->view - y->view;
	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
durcmp(const void *a, const void *b)
{
	const struct op *x = *(struct op *const *)a, *y = *(struct op *const *)b;

	if (x->view != y->view)
		return x->view - y->view;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return strcmp(x->key, y->key);
}

static int
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

static const char *
aicpuclass(const struct op *o)
{
	if ((double)o->masked >= maskedr * (double)o->dur)
		return "AICPU_MASKED_BUT_UNDESIRABLE";
	if ((double)o->masked >= exposedr * (double)o->dur)
		return "AICPU_PARTIALLY_EXPOSED";
	return "AICPU_EXPOSED_NOT_ALLOWED";
}

static void
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
	out_key(&ob, "raw_names");
	buf_addc(&ob, '[');
	for (int i = 0; i < o->nnames; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, o->names[i], strlen(o->names[i]));
	}
	buf_addc(&ob, ']');
	out_bool(&ob, "raw_names_more", o->namesmore);
	out_raw(&ob, "in_shapes", o->inshp, strlen(o->inshp));
	out_raw(&ob, "out_shapes", o->outshp, strlen(o->outshp));
	if (S.shapes_seen)
		out_i64(&ob, "shape_variants", o->nshp);
	else
		out_null(&ob, "shape_variants");
	out_bool(&ob, "shape_variants_more", o->shpmore);
	out_key(&ob, "tags");
	buf_addc(&ob, '[');
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
		for (int i = 0; i < nt; i++) {
			if (i)
				buf_addc(&ob, ',');
			out_esc(&ob, t[i], strlen(t[i]));
		}
	}
	buf_addc(&ob, ']');
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

static void
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

static int
wantpol(const struct op *o)
{
	return o->polcalls > 0;
}

static int
wantcpu(const struct op *o)
{
	return o->cls == TT_AICPU;
}

static int
wantvar(const struct op *o)
{
	return o->nshp > 1;
}

/* Each op's ranks (by duration, cost, root cause, within its view), then
 * the op records in cost order. */
static void
rank_ops(struct op **v, size_t n, const size_t *nv, const size_t *off)
{
	qsort(v, n, sizeof *v, durcmp);
	for (int w = 0; w < NVIEW; w++)
		for (size_t i = 0; i < nv[w]; i++)
			v[off[w] + i]->rdur = (int)i + 1;
	qsort(v, n, sizeof *v, costcmp);
	for (int w = 0; w < NVIEW; w++)
		for (size_t i = 0; i < nv[w]; i++) {
			v[off[w] + i]->rcost = (int)i + 1;
			v[off[w] + i]->anchor = isanchor(v[off[w] + i]);
		}
	qsort(v, n, sizeof *v, rootcmp);
	for (int w = 0; w < NVIEW; w++)
		for (size_t i = 0; i < nv[w]; i++)
			v[off[w] + i]->rroot = (int)i + 1;
	qsort(v, n, sizeof *v, costcmp);
	for (size_t i = 0; i < n; i++)
		oprec(v[i], S.dur);
}

/* The op_summary's "rankings": the top ops by total cost and by duration. */
static void
sum_rankings(struct op **nm, size_t nn, struct op **bydur)
{
	out_key(&ob, "rankings");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < nn && (int)i < topn; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"rank\":");
		out_int(&ob, (int64_t)i + 1);
		out_key(&ob, "by_total_cost");
		key_out(&ob, nm[i]);
		out_dec(&ob, "total_cost_ms", nm[i]->dur + nm[i]->wait, 6);
		out_bool(&ob, "wait_anchor", nm[i]->anchor);
		out_key(&ob, "by_duration");
		key_out(&ob, bydur[i]);
		out_dec(&ob, "dur_ms", bydur[i]->dur, 6);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
sum_anchors(struct op **nm, size_t nn)
{
	out_key(&ob, "wait_anchors");
	buf_addc(&ob, '[');
	for (size_t i = 0, c = 0; i < nn; i++) {
		struct op *o = nm[i];
		int64_t cost = o->dur + o->wait;

		if (!o->anchor)
			continue;
		if (c++)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"key\":");
		key_out(&ob, o);
		out_i64(&ob, "calls", o->calls);
		out_dec(&ob, "dur_avg_us", avg(o->dur, o->calls), 3);
		out_dec(&ob, "wait_avg_us", avg(o->wait, o->calls), 3);
		out_ratio(&ob, "wait_ratio", o->wait, cost);
		out_i64(&ob, "rank_total_cost", o->rcost);
		out_i64(&ob, "rank_root_cause", o->rroot);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
sum_aicpu(struct op **nm, size_t nn)
{
	out_key(&ob, "aicpu");
	buf_addc(&ob, '[');
	for (size_t i = 0, c = 0; i < nn; i++) {
		struct op *o = nm[i];
		char t[40];

		if (!wantcpu(o) || o->dur <= 0)
			continue;
		if (c++)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"key\":");
		key_out(&ob, o);
		dec_ratio(t, o->masked, o->dur);
		out_raw(&ob, "masked_ratio", t, strlen(t));
		out_cstr(&ob, "class", aicpuclass(o));
		out_bool(&ob, "escalated", o->bubblecalls > 0);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* Tags and their op counts. */
static void
sum_tags(struct op **nm, size_t nn)
{
	int64_t na = 0, np = 0, nc[3] = { 0, 0, 0 }, nr = 0;

	for (size_t i = 0; i < nn; i++) {
		struct op *o = nm[i];

		na += o->anchor;
		np += o->polcalls > 0;
		if (o->cls == TT_AICPU && o->dur > 0) {
			const char *c = aicpuclass(o);

			nc[c[6] == 'M' ? 0 : c[6] == 'P' ? 1 : 2]++;
			nr += (double)o->masked < exposedr * (double)o->dur;
		}
	}
	out_key(&ob, "tags");
	buf_addc(&ob, '{');
	int first = 1;
#define TAG(name, cnt) do { if (cnt) { if (!first) buf_addc(&ob, ','); first = 0; \
	out_esc(&ob, name, strlen(name)); buf_addc(&ob, ':'); out_int(&ob, cnt); } } while (0)
	TAG("WAIT_ANCHOR_FALSE_HOTSPOT", na);
	TAG("WAIT_POLLUTION_RISK", np);
	TAG("AICPU_MASKED_BUT_UNDESIRABLE", nc[0]);
	TAG("AICPU_PARTIALLY_EXPOSED", nc[1]);
	TAG("AICPU_EXPOSED_NOT_ALLOWED", nc[2]);
	TAG("AICPU_EXPOSED_RISK", nr);
	buf_addc(&ob, '}');
}

/* The PMU status and the ops' bound classes (asc-ops/pmu.c judges). */
static void
sum_pmu(struct op **nm, size_t nn)
{
	int64_t bounds[8] = { 0 };
	static const char *const bn[8] = { "cube_bound", "vector_bound", "mte2_bound",
	    "mte3_bound", "fixpipe_bound", "scalar_bound", "balanced", "unknown" };

	out_key(&ob, "pmu");
	tmp.len = 0;
	pmu_status(&tmp, S.pmustatus, &S.metrics);
	buf_adds(&ob, "{\"status\":");
	out_esc(&ob, tmp.p, tmp.len);
	out_key(&ob, "aic_metrics");
	if (S.metrics.len)
		buf_add(&ob, S.metrics.p, S.metrics.len);
	else
		buf_adds(&ob, "null");
	if (S.pmustatus == 1) {
		int64_t judged = 0;

		for (size_t i = 0; i < nn; i++) {
			struct pmu_judge j;
			struct pmu_who w = { nm[i]->key, nm[i]->nnames > 0 ? nm[i]->names[0] : NULL,
			    nm[i]->tt };

			if ((nm[i]->cls != TT_COMPUTE && nm[i]->cls != TT_UNKNOWN) || nm[i]->pmu.pk == 0)
				continue;
			pmu_judge(&nm[i]->pmu, &w, &j);
			judged++;
			for (int b = 0; b < 8; b++)
				if (strcmp(j.bound, bn[b]) == 0)
					bounds[b]++;
		}
		out_i64(&ob, "ops_judged", judged);
		out_key(&ob, "bound_classes");
		buf_addc(&ob, '{');
		for (int b = 0, first = 1; b < 8; b++) {
			if (!bounds[b])
				continue;
			if (!first)
				buf_addc(&ob, ',');
			first = 0;
			out_esc(&ob, bn[b], strlen(bn[b]));
			buf_addc(&ob, ':');
			out_int(&ob, bounds[b]);
		}
		buf_addc(&ob, '}');
	} else {
		out_i64(&ob, "ops_judged", 0);
		out_null(&ob, "bound_classes");
	}
	buf_addc(&ob, '}');
}

static void
sum_small(void)
{
	out_key(&ob, "small_ops");
	buf_adds(&ob, "{\"small_op_us\":");
	{
		char t[32];
		int tn = dec_fmt(t, smallns, 3);

		buf_add(&ob, t, (size_t)tn);
	}
	out_i64(&ob, "kernels", S.small);
	out_nsms(&ob, "dur_sum", S.smalldur);
	out_ratio(&ob, "share_of_kernel_sum", S.smalldur, S.dur);
	out_ratio(&ob, "share_of_kernels", S.small, S.kernels);
	out_i64(&ob, "steps", S.steps);
	out_i64(&ob, "steps_with_small_ops", S.smallsteps);
	out_i64(&ob, "steps_probable_launch_bound", S.lbsteps);
	out_i64(&ob, "steps_dense", S.densesteps);
	out_i64(&ob, "steps_noise", S.noisesteps);
	buf_addc(&ob, '}');
}

static void
sum_shapes(struct op **nm, size_t nn)
{
	out_key(&ob, "variable_shape");
	buf_adds(&ob, "{\"status\":");
	if (!S.shapes_seen) {
		out_esc(&ob, "skipped", 7);
		out_cstr(&ob, "reason", "no_shapes");
		out_null(&ob, "groups");
		out_null(&ob, "ops_with_shape_variants");
	} else {
		out_esc(&ob, "checked", 7);
		out_null(&ob, "reason");
		out_key(&ob, "groups");
		buf_addc(&ob, '[');
		for (size_t i = 0, c = 0; i < S.ng; i++)
			if (S.g[i].variable) {
				if (c++)
					buf_addc(&ob, ',');
				out_esc(&ob, S.g[i].id, strlen(S.g[i].id));
			}
		buf_addc(&ob, ']');
		keylist("ops_with_shape_variants", nm, nn, wantvar);
	}
	buf_addc(&ob, '}');
	out_key(&ob, "tags_group");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < S.ng; i++)
		if (S.g[i].variable) {
			buf_adds(&ob, "\"VARIABLE_SHAPE_SAME_TEMPLATE\"");
			break;
		}
	buf_addc(&ob, ']');
}

static void
profile_out(void)
{
	struct op **v;
	size_t n = 0, nv[NVIEW] = { 0 }, off[NVIEW];

	if (!S.sect.active || S.emitted)
		return;
	step_flush(NULL, 0);
	if (mpath && pmu_join_file(&mjoin, mpath, mmaxline, S.prof.p, S.prof.len, kflag) != EX_OK)
		mrc = EX_DATA;
	S.emitted = 1;
	v = xcalloc(S.ops.n + 1, sizeof *v);
	for (size_t i = 0; i < S.ops.cap; i++)
		if (S.ops.v[i]) {
			v[n++] = S.ops.v[i];
			nv[S.ops.v[i]->view]++;
		}
	off[0] = 0;
	for (int i = 1; i < NVIEW; i++)
		off[i] = off[i - 1] + nv[i - 1];
	rank_ops(v, n, nv, off);

	/* The summary, from the name view. */
	struct op **nm = v + off[V_NAME];
	size_t nn = nv[V_NAME];
	struct op **bydur = xcalloc(nn + 1, sizeof *bydur), **byroot = xcalloc(nn + 1, sizeof *byroot);

	memcpy(bydur, nm, nn * sizeof *bydur);
	memcpy(byroot, nm, nn * sizeof *byroot);
	qsort(bydur, nn, sizeof *bydur, durcmp);
	qsort(byroot, nn, sizeof *byroot, rootcmp);
	out_begin(&ob, "op_summary");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_i64(&ob, "kernels", S.kernels);
	out_i64(&ob, "ops", (int64_t)nv[V_NAME]);
	out_i64(&ob, "op_types", (int64_t)nv[V_TYPE]);
	out_i64(&ob, "name_shapes", (int64_t)nv[V_SHAPE]);
	out_nsms(&ob, "kernel_sum", S.dur);
	out_nsms(&ob, "wait_sum", S.wait);
	out_nsms(&ob, "total_cost", S.dur + S.wait);
	sum_rankings(nm, nn, bydur);
	keylist("root_cause_ranking", byroot, nn, NULL);
	sum_anchors(nm, nn);
	keylist("wait_pollution_ops", nm, nn, wantpol);
	out_i64(&ob, "wait_polluted_calls", S.polcalls);
	sum_aicpu(nm, nn);
	out_i64(&ob, "aicpu_exposed_risk_step_count", S.riskn);
	out_key(&ob, "aicpu_exposed_risk_steps");
	buf_addc(&ob, '[');
	buf_add(&ob, S.risksteps.p ? S.risksteps.p : "", S.risksteps.len);
	buf_addc(&ob, ']');
	sum_tags(nm, nn);
	sum_pmu(nm, nn);
	sum_small();
	sum_shapes(nm, nn);
	rec_put(&ob, stdout);
	free(bydur);
	free(byroot);
	free(v);
}

static void
profile_reset(void)
{
	ops_clear();
	S.emitted = 0;
	S.pmustatus = 0;
	S.metrics.len = 0;
	S.shapes_seen = 0;
	S.kernels = S.dur = S.wait = S.small = S.smalldur = S.steps = 0;
	S.polcalls = S.lbsteps = S.noisesteps = S.densesteps = S.smallsteps = 0;
	S.riskn = 0;
	S.risksteps.len = 0;
	S.ncw = S.nck = S.nk = 0;
	S.arena.len = S.streams.len = 0;
	S.nstreams = 0;
	S.hnames = S.hshapes = FNV_INIT;
	S.stepid.len = 0;
	for (size_t i = 0; i < S.ng; i++)
		free(S.g[i].id);
	S.ng = 0;
}

static int
profilerec(struct rin *r)
{
	jv p, cfg, m, pmu;
	const struct rfield *f;

	if (rin_scan(r) != 0)
		return -1;
	profile_out();
	sr_sect_end(&S.sect, SR_CHECK_KERNEL, stdout);
	profile_reset();
	sr_sect_profile(&S.sect, r);
	S.prof.len = 0;
	if ((f = rin_get(r, "profile")) != NULL)
		buf_add(&S.prof, f->v, f->vlen);
	else
		buf_adds(&S.prof, "null");
	p = jv_parse_sized(r->line, (int)r->len);
	if (!jv_is_valid(p)) {
		jv_free(p);
		sr_pass(r);
		return 0;
	}
	cfg = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(jv_copy(p), jv_string("config")) :
	    jv_null();
	m = jv_get_kind(cfg) == JV_KIND_OBJECT ? jv_object_get(jv_copy(cfg), jv_string("aic_metrics")) :
	    jv_null();
	pmu = jv_get_kind(p) == JV_KIND_OBJECT ? jv_object_get(jv_copy(p), jv_string("kernel_table")) :
	    jv_null();
	int leftout = 0;

	if (jv_get_kind(pmu) == JV_KIND_OBJECT) {
		jv lo = jv_object_get(jv_copy(pmu), jv_string("pmu_left_out"));
		jv as = jv_object_get(jv_copy(pmu), jv_string("pmu_aside"));

		/* asc-ingest -M without asc-ops -M: the values are not here either. */
		leftout = jv_get_kind(lo) == JV_KIND_TRUE || (jv_get_kind(as) == JV_KIND_TRUE && !mpath);
		jv_free(lo);
		jv_free(as);
	}
	pmu = jv_get_kind(pmu) == JV_KIND_OBJECT ? jv_object_get(pmu, jv_string("pmu")) :
	    (jv_free(pmu), jv_null());
	int ratios = 0;

	if (jv_get_kind(pmu) == JV_KIND_ARRAY)
		jv_array_foreach(pmu, i, c) {
			if (jv_get_kind(c) == JV_KIND_STRING && strstr(jv_string_value(c), "_ratio"))
				ratios = 1;
			jv_free(c);
			(void)i;
		}
	if (jv_get_kind(m) == JV_KIND_STRING) {
		jv d = jv_dump_string(jv_copy(m), 0);
		const char *s = jv_string_value(m);

		buf_adds(&S.metrics, jv_string_value(d));
		jv_free(d);
		int pipe = strstr(s, "PIPE_UTILIZATION") || strstr(s, "PipeUtilization");
		int none = s[0] == '\0' || strstr(s, "NONE") != NULL;

		S.pmustatus = !pipe && !none ? 2 : ratios ? 1 : 0;
	} else
		S.pmustatus = ratios ? 1 : 0;
	if (S.pmustatus == 1 && leftout)
		S.pmustatus = 3;	/* asc-ingest -P or -M: collected, not read */
	jv_free(m);
	jv_free(cfg);
	jv_free(pmu);
	jv_free(p);
	sr_pass(r);
	return 0;
}

static int
commrec(struct rin *r)
{
	int64_t s, e;
	const struct rfield *f;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) == 0 && (f = rin_get(r, "elapse_ms")) != NULL &&
	    !rf_isnull(f) && dec_parse(f->v, f->vlen, 6, &e) == 0 && e > 0) {
		if (S.ncw == S.capcw) {
			S.capcw = S.capcw ? 2 * S.capcw : 64;
			S.cw = xreallocarray(S.cw, S.capcw, sizeof *S.cw);
		}
		S.cw[S.ncw].s = s;
		S.cw[S.ncw++].e = s + e;
		S.cwsorted = 0;
	}
	sr_pass(r);
	return 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	if (sr_is(t, n, "kernel"))
		return kernelrec(r);
	if (sr_is(t, n, "step"))
		return steprec(r);
	if (sr_is(t, n, "profile"))
		return profilerec(r);
	if (sr_is(t, n, "comm") && S.sect.active)
		return commrec(r);
	if (sr_is(t, n, "host") && sr_sect_host(&S.sect))
		profile_out();	/* kernels are complete: ops before the host events */
	sr_pass(r);
	return 0;
}

static void
onend(void *arg)
{
	profile_out();
	sr_sect_end(&S.sect, SR_CHECK_KERNEL, stdout);
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "op", "op_summary", "op_step", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rfile = NULL;
	int c, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "kM:m:n:r:")) != -1)
		switch (c) {
		case 'k':
			kflag = 1;
			break;
		case 'M':
			mpath = optarg;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'n':
			topn = (int)xnum(optarg, 1, 1000000, "top");
			break;
		case 'r':
			rfile = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rfile);
	opkey_init();
	pmu_init();
	minbubble = rules_ns("bubbles.min_bubble_us", 1e3);
	smallns = (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5);
	anchordur = (int64_t)(rules_num("ops.wait_anchor_max_dur_us") * 1000 + 0.5);
	anchorratio = rules_num("ops.wait_anchor_wait_ratio");
	anchorrank = (int)rules_num("ops.wait_anchor_max_rank");
	polshare = rules_num("ops.wait_pollution_overlap");
	maskedr = rules_num("ops.aicpu_masked");
	exposedr = rules_num("ops.aicpu_exposed");
	runmin = (int)rules_num("ops.small_run_min_kernels");
	rungap = rules_num("ops.small_run_gap_ratio");
	S.hnames = S.hshapes = FNV_INIT;
	mmaxline = maxline;
	rc = sr_run(argc, argv, maxline, kflag, &f);
	if (rc == EX_OK)
		rc = mrc;
	xclose_stdout();
	return rc;
}
