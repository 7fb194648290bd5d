/*
 * asc-segment: where the time of a step goes.  Each step's kernels are
 * cut into structures (annotated boundaries, else the repeating period of
 * the main stream's kernel-name sequence, else large device-idle gaps),
 * each structure into block (the main compute chain) and side, with the
 * four clocks; "structure" and "step_structure" records after each step
 * record, a "structure_drilldown" for the dominant step per profile.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dec.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#define MAXDEPTH	16

/* A kernel of the step being read. */
struct sk {
	int64_t		 s, e, cs, ce, dur, wait;	/* cs, ce: clipped to the window */
	int		 stream, tt, id, st;		/* st: structure index */
	unsigned char	 cls, block, empty;
	size_t		 name, key, src;		/* offsets in S.arena */
	size_t		 namelen, keylen;
};

/* A structure: kernels [first, next structure's first) of the step. */
struct st {
	size_t		 first, n;		/* buffer indices */
	int		 kind;			/* K_* */
	int		 period, rep, region;	/* repeated: kernels per block, index, region */
	int		 mainfirst;		/* first main-stream kernel index, -1 */
	int		 type;
	uint64_t	 hash;
	int64_t		 gapbefore, inside, nin, largest;
};

enum { K_REPEAT, K_IRREGULAR, K_ANNOTATED, K_GAP, K_STEP };
static const char *const kindname[] = { "repeat", "irregular", "annotation", "large_gap", "whole_step" };

struct range {
	int		 lo, hi, period, rep, region;
};

struct grp {
	char		*id;
	int64_t		 service;		/* total, for the dominant group */
	int64_t		 best, bestsvc;		/* candidate step: bubbles, service */
	char		*line;			/* its step_structure record */
};

static struct {
	struct sr_sect	 sect;
	int		 drilled;
	struct buf	 prof;
	/* the step being read */
	struct sk	*k;
	size_t		 nk, capk;
	struct buf	 arena, stepid, streams, tts;
	int		 nstreams, ntts, haveid;
	/* name ids of the step: open addressing over S.k indices */
	int		*ht;
	size_t		 htcap;
	int		 nids;
	/* structure types of the profile */
	uint64_t	*types;
	size_t		 ntypes, captypes;
	/* groups */
	struct grp	*g;
	size_t		 ng, capg;
	struct buf	 domgroup;		/* from step_groups */
} S;

static const char *annot;
static int minperiod, minrepeat, ncand, topk;
static int64_t largegap, smallns, minbubble;
static struct buf ob, tmp, line;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-a pattern] [-m maxline] [-r rules] [file ...]\n",
	    progname);
	exit(EX_SYS);
}

/* The n-th line of a \n-separated list. */
static void
nth(struct buf *b, const struct buf *l, int n)
{
	const char *p = l->p;

	for (int i = 0; i < n; i++)
		p = strchr(p, '\n') + 1;
	buf_add(b, p, (size_t)(strchr(p, '\n') - p));
}

static int
intern(struct buf *l, int *n, const char *v, size_t len)
{
	/* An empty list has no buffer: NULL + 0 is undefined. */
	const char *p = l->p, *e = p ? p + l->len : p;
	int i = 0;

	while (p && p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if ((size_t)(q - p) == len && memcmp(p, v, len) == 0)
			return i;
		p = q + 1;
		i++;
	}
	buf_add(l, v, len);
	buf_addc(l, '\n');
	return (*n)++;
}

static const char *
ap(size_t off)
{
	return S.arena.p + off;
}

/* Per-step id of a kernel's op key, for the period search. */
static int
nameid(size_t idx)
{
	const struct sk *k = &S.k[idx];
	uint64_t h = hash64(0, ap(k->key), k->keylen);
	size_t i;

	if (2 * (size_t)(S.nids + 1) > S.htcap) {
		size_t ncap = S.htcap ? 2 * S.htcap : 1024;
		int *nt = xreallocarray(NULL, ncap, sizeof *nt);

		for (size_t j = 0; j < ncap; j++)
			nt[j] = -1;
		for (size_t j = 0; j < S.htcap; j++)
			if (S.ht[j] >= 0) {
				const struct sk *o = &S.k[S.ht[j]];
				uint64_t oh = hash64(0, ap(o->key), o->keylen);

				for (i = oh & (ncap - 1); nt[i] >= 0; i = (i + 1) & (ncap - 1))
					;
				nt[i] = S.ht[j];
			}
		free(S.ht);
		S.ht = nt;
		S.htcap = ncap;
	}
	for (i = h & (S.htcap - 1); S.ht[i] >= 0; i = (i + 1) & (S.htcap - 1)) {
		const struct sk *o = &S.k[S.ht[i]];

		if (o->keylen == k->keylen && memcmp(ap(o->key), ap(k->key), k->keylen) == 0)
			return o->id;
	}
	S.ht[i] = (int)idx;
	return S.nids++;
}

static void
step_reset(void)
{
	S.nk = 0;
	S.arena.len = 0;
	S.stepid.len = 0;
	S.haveid = 0;
	S.streams.len = S.tts.len = 0;
	S.nstreams = S.ntts = 0;
	for (size_t i = 0; i < S.htcap; i++)
		S.ht[i] = -1;
	S.nids = 0;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	struct sk *p;
	int o;

	if (sr_sect_need(&S.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0 ||
	    (o = sr_sect_kernel(&S.sect, r, &k)) < 0)
		return -1;
	if (k.name == NULL || rf_str(k.name, &tmp) != 0) {
		snprintf(r->err, sizeof r->err, "kernel has no string \"name\"");
		return -1;
	}
	/* Kernels of no step (before the first window) are not kept. */
	if (S.nk > 0 && (o == 1 || k.step_id == NULL || k.step_id->vlen != S.stepid.len ||
	    memcmp(k.step_id->v, S.stepid.p, S.stepid.len) != 0))
		step_reset();
	if (S.nk == 0) {
		S.stepid.len = 0;
		sr_raw(&S.stepid, k.step_id);
		S.haveid = k.step_id != NULL && !rf_isnull(k.step_id);
	}
	if (S.nk == S.capk) {
		S.capk = S.capk ? 2 * S.capk : 1024;
		S.k = xreallocarray(S.k, S.capk, sizeof *S.k);
	}
	p = &S.k[S.nk];
	memset(p, 0, sizeof *p);
	p->s = k.start;
	p->e = k.end;
	p->dur = k.dur;
	p->wait = k.haswait ? k.wait : 0;
	p->name = S.arena.len;
	p->namelen = tmp.len;
	buf_add(&S.arena, tmp.p, tmp.len);
	buf_addc(&S.arena, '\0');
	p->key = S.arena.len;
	opkey(tmp.p, tmp.len, &S.arena);
	p->keylen = S.arena.len - p->key;
	buf_addc(&S.arena, '\0');
	p->src = S.arena.len;
	sr_raw(&S.arena, k.src);
	buf_addc(&S.arena, '\0');
	p->stream = intern(&S.streams, &S.nstreams, k.stream ? k.stream->v : "null",
	    k.stream ? k.stream->vlen : 4);
	p->tt = intern(&S.tts, &S.ntts, k.task_type ? k.task_type->v : "null",
	    k.task_type ? k.task_type->vlen : 4);
	tmp.len = 0;
	if (k.task_type == NULL || rf_str(k.task_type, &tmp) != 0)
		tmp.len = 0;
	p->cls = (unsigned char)tt_class(tmp.len ? tmp.p : NULL);
	p->id = nameid(S.nk);
	S.nk++;
	sr_pass(r);
	return 0;
}

/* ---------------------------------------------------------------- period */

static struct range *rg;
static size_t nrg, caprg;
static int nregion;

static void
addrange(int lo, int hi, int period, int rep, int region)
{
	if (hi <= lo)
		return;
	if (nrg == caprg) {
		caprg = caprg ? 2 * caprg : 64;
		rg = xreallocarray(rg, caprg, sizeof *rg);
	}
	rg[nrg].lo = lo;
	rg[nrg].hi = hi;
	rg[nrg].period = period;
	rg[nrg].rep = rep;
	rg[nrg].region = region;
	nrg++;
}

/*
 * Tandem repeats of seq[lo, hi): candidate periods are the most frequent
 * distances between consecutive occurrences of one name; for each, the
 * longest run of seq[i] == seq[i + p] gives a region of whole periods.
 * The region covering the most kernels (then the shorter period) is cut
 * into its blocks and the parts before and after it are searched again.
 */
static void
period(const int *seq, int lo, int hi, int depth)
{
	int n = hi - lo, maxd = n / 2;
	int bestp = 0, besta = 0, bestcover = 0;

	if (depth < MAXDEPTH && n >= 2 * minperiod && n >= minrepeat && maxd >= minperiod) {
		int *cnt = xcalloc((size_t)maxd + 1, sizeof *cnt);
		int *last = xreallocarray(NULL, (size_t)S.nids + 1, sizeof *last);
		int *cand = xcalloc((size_t)ncand, sizeof *cand);

		for (int i = 0; i <= S.nids; i++)
			last[i] = -1;
		for (int i = lo; i < hi; i++) {
			int d = last[seq[i]] >= 0 ? i - last[seq[i]] : 0;

			if (d >= minperiod && d <= maxd)
				cnt[d]++;
			last[seq[i]] = i;
		}
		for (int c = 0; c < ncand; c++) {
			int best = 0;

			for (int d = minperiod; d <= maxd; d++)
				if (cnt[d] > (best ? cnt[best] : 0))
					best = d;
			if (best == 0)
				break;
			cand[c] = best;
			cnt[best] = 0;
		}
		for (int c = 0; c < ncand && cand[c]; c++) {
			int p = cand[c], run = 0, bs = 0, bl = 0;

			for (int i = lo; i + p < hi; i++) {
				if (seq[i] == seq[i + p]) {
					if (++run > bl) {
						bl = run;
						bs = i - run + 1;
					}
				} else
					run = 0;
			}
			int reps = (bl + p) / p, cover = reps * p;

			if (reps < 2 || cover < minrepeat)
				continue;
			if (cover > bestcover || (cover == bestcover && p < bestp)) {
				bestcover = cover;
				bestp = p;
				besta = bs;
			}
		}
		free(cnt);
		free(last);
		free(cand);
	}
	if (bestcover == 0) {
		addrange(lo, hi, 0, 0, -1);
		return;
	}
	period(seq, lo, besta, depth + 1);
	int region = nregion++;

	for (int r = 0; r * bestp < bestcover; r++)
		addrange(besta + r * bestp, besta + (r + 1) * bestp, bestp, r, region);
	period(seq, besta + bestcover, hi, depth + 1);
}

/* ---------------------------------------------------------------- clocks */

struct clocks {
	int64_t		 n, s, e, busy, sum, cost;
	int64_t		 us, ue;		/* open union segment */
	int		 have, haveu;
};

static void
clk_add(struct clocks *c, const struct sk *k)
{
	c->n++;
	c->sum += k->dur;
	c->cost += k->dur + k->wait;
	if (!c->have || k->cs < c->s)
		c->s = k->cs;
	if (!c->have || k->ce > c->e)
		c->e = k->ce;
	c->have = 1;
	if (k->empty)
		return;
	/* Kernels come in clipped-start order within a step. */
	if (c->haveu && k->cs <= c->ue) {
		if (k->ce > c->ue)
			c->ue = k->ce;
	} else {
		if (c->haveu)
			c->busy += c->ue - c->us;
		c->us = k->cs;
		c->ue = k->ce;
		c->haveu = 1;
	}
}

static int64_t
clk_busy(const struct clocks *c)
{
	return c->busy + (c->haveu ? c->ue - c->us : 0);
}

static void
putclocks(struct buf *b, const struct clocks *c, int64_t wall)
{
	out_nsms(b, "wall", wall);
	out_nsms(b, "busy_union", clk_busy(c));
	out_nsms(b, "kernel_sum", c->sum);
	out_nsms(b, "total_cost", c->cost);
}

/* Dominant task type and stream by duration over kernels [from, to) passing want. */
static void
dominant(struct buf *b, size_t from, size_t to, int st, int part)
{
	int64_t *tt = xcalloc((size_t)S.ntts + 1, sizeof *tt);
	int64_t *sd = xcalloc((size_t)S.nstreams + 1, sizeof *sd);
	int bt = -1, bs = -1;

	for (size_t i = from; i < to; i++) {
		const struct sk *k = &S.k[i];

		if ((st >= 0 && k->st != st) || (part >= 0 && k->block != part))
			continue;
		tt[k->tt] += k->dur;
		sd[k->stream] += k->dur;
	}
	for (int i = 0; i < S.ntts; i++)
		if (bt < 0 || tt[i] > tt[bt])
			bt = i;
	for (int i = 0; i < S.nstreams; i++)
		if (bs < 0 || sd[i] > sd[bs])
			bs = i;
	out_key(b, "dominant_task_type");
	if (bt >= 0 && tt[bt] > 0)
		nth(b, &S.tts, bt);
	else
		buf_adds(b, "null");
	out_key(b, "dominant_stream");
	if (bs >= 0 && sd[bs] > 0)
		nth(b, &S.streams, bs);
	else
		buf_adds(b, "null");
	free(tt);
	free(sd);
}

static int64_t
kval(const struct sk *k, int what)
{
	return what == 0 ? k->dur : what == 1 ? k->dur + k->wait : k->wait;
}

static int
waitheavy(const struct sk *k)
{
	return k->wait >= minbubble && k->wait >= k->dur && k->wait > 0;
}

/* Top kernels by duration (0), total cost (1) or wait (2, wait-heavy only). */
static void
topkernels(struct buf *b, const char *key, size_t from, size_t to, int st, int what)
{
	size_t *top = xcalloc((size_t)topk + 1, sizeof *top);
	int n = 0;

	for (size_t i = from; i < to; i++) {
		const struct sk *k = &S.k[i];
		int j;

		if (st >= 0 && k->st != st)
			continue;
		if (what == 2 && !waitheavy(k))
			continue;
		for (j = n; j > 0 && kval(&S.k[top[j - 1]], what) < kval(k, what); j--)
			if (j < topk)
				top[j] = top[j - 1];
		if (j < topk) {
			top[j] = i;
			if (n < topk)
				n++;
		}
	}
	out_key(b, key);
	buf_addc(b, '[');
	for (int j = 0; j < n; j++) {
		const struct sk *k = &S.k[top[j]];

		if (j)
			buf_addc(b, ',');
		buf_adds(b, "{\"name\":");
		out_esc(b, ap(k->name), k->namelen);
		out_key(b, "task_type");
		nth(b, &S.tts, k->tt);
		out_key(b, "stream");
		nth(b, &S.streams, k->stream);
		out_i64(b, "start_ns", k->s);
		out_nsms(b, "dur", k->dur);
		out_nsms(b, "wait", k->wait);
		out_nsms(b, "total_cost", k->dur + k->wait);
		out_raw(b, "src", ap(k->src), strlen(ap(k->src)));
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
	free(top);
}

static void
part(struct buf *b, const char *key, size_t from, size_t to, int st, int blk)
{
	struct clocks c = { 0 };

	for (size_t i = from; i < to; i++)
		if ((st < 0 || S.k[i].st == st) && S.k[i].block == blk)
			clk_add(&c, &S.k[i]);
	out_key(b, key);
	buf_adds(b, "{\"kernels\":");
	out_int(b, c.n);
	if (c.have) {
		out_i64(b, "start_ns", c.s);
		out_i64(b, "end_ns", c.e);
	} else {
		out_null(b, "start_ns");
		out_null(b, "end_ns");
	}
	putclocks(b, &c, c.have ? c.e - c.s : 0);
	dominant(b, from, to, st, blk);
	buf_addc(b, '}');
}

static int
typeof_(uint64_t h)
{
	for (size_t i = 0; i < S.ntypes; i++)
		if (S.types[i] == h)
			return (int)i;
	if (S.ntypes == S.captypes) {
		S.captypes = S.captypes ? 2 * S.captypes : 16;
		S.types = xreallocarray(S.types, S.captypes, sizeof *S.types);
	}
	S.types[S.ntypes] = h;
	return (int)S.ntypes++;
}

static struct grp *
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
	S.g[S.ng].best = -1;
	return &S.g[S.ng++];
}

struct bub {
	int64_t		 s, d;
	int		 st, boundary;
};

static int
stepcmp_(const void *a, const void *b)
{
	const struct sk *x = a, *y = b;

	if (x->cs != y->cs)
		return x->cs < y->cs ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

/*
 * One step being closed: what its record says (detect), the structures and
 * bubbles found in its kernels (measure), read by the writers (emit).
 */
struct stepx {
	const struct rfield *sid, *gid, *dev;	/* spans of the step line */
	int64_t		 ws, we, service;
	int		 measurable, main_stream, source;
	size_t		 n;			/* kernels of the step */
	struct st	*sv;			/* structures */
	size_t		 nst;
	struct bub	*bubs;			/* bubbles in start order */
	size_t		 nbub;
	int64_t		 pre, tail, bnd, ins, nbnd, nins;
};

/* Read and check the step record; tmp gets its id as text. */
static int
step_read(struct rin *r, struct stepx *x)
{
	if (sr_sect_need(&S.sect, r, "step") != 0)
		return -1;
	if (rin_scan(r) != 0)
		return -1;
	x->sid = rin_get(r, "step_id");
	x->gid = rin_get(r, "group_id");
	x->dev = rin_get(r, "device");
	if (rin_i64(r, "start_ns", &x->ws) != 0 || rin_i64(r, "end_ns", &x->we) != 0 ||
	    x->we < x->ws) {
		snprintf(r->err, sizeof r->err, "step has no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	if (x->sid == NULL || rf_str(x->sid, &tmp) != 0) {
		snprintf(r->err, sizeof r->err, "step has no string \"step_id\"");
		return -1;
	}
	if (S.nk > 0 && (x->sid->vlen != S.stepid.len ||
	    memcmp(x->sid->v, S.stepid.p, x->sid->vlen) != 0)) {
		snprintf(r->err, sizeof r->err, "step \"%.40s\" closes kernels of another step", tmp.p);
		step_reset();
		return -1;
	}
	x->measurable = 1;
	rf_bool(rin_get(r, "measurable_edges"), &x->measurable);
	x->service = x->we - x->ws;
	x->n = S.nk;
	return 0;
}

/* Clip the kernels to the window, find the main stream and the block. */
static void
step_clip(struct stepx *x)
{
	size_t n = x->n;
	int64_t *sd;

	/* Clip to the window; a zero-length kernel never splits a gap. */
	for (size_t i = 0; i < n; i++) {
		struct sk *k = &S.k[i];

		k->cs = k->s < x->ws ? x->ws : k->s;
		k->ce = k->e > x->we ? x->we : k->e;
		if (k->ce < k->cs)
			k->ce = k->cs;
		k->empty = k->ce <= k->cs;
	}
	/* Kernels are in start order; a clipped start can only tie. */
	for (size_t i = 1; i < n; i++)
		if (S.k[i].cs < S.k[i - 1].cs) {
			qsort(S.k, n, sizeof *S.k, stepcmp_);
			break;
		}

	/* The main compute stream: largest compute duration. */
	sd = xcalloc((size_t)S.nstreams + 1, sizeof *sd);
	x->main_stream = -1;
	for (size_t i = 0; i < n; i++)
		if (S.k[i].cls == TT_COMPUTE || S.k[i].cls == TT_UNKNOWN)
			sd[S.k[i].stream] += S.k[i].dur;
	for (int i = 0; i < S.nstreams; i++)
		if (sd[i] > 0 && (x->main_stream < 0 || sd[i] > sd[x->main_stream]))
			x->main_stream = i;
	free(sd);
	for (size_t i = 0; i < n; i++) {
		struct sk *k = &S.k[i];

		k->block = k->stream == x->main_stream && k->dur >= smallns &&
		    (k->cls == TT_COMPUTE || k->cls == TT_UNKNOWN);
	}
}

/*
 * Structure boundaries (buffer indices bd, the range of each in bk), by
 * source: annotations, else the main stream's period, else large gaps.
 * Returns their number; x->source says which.
 */
static size_t
step_bounds(struct stepx *x, size_t *bd, int *bk)
{
	size_t n = x->n, nb = 0;

	nrg = 0;
	nregion = 0;
	x->source = K_STEP;
	if (annot) {
		for (size_t i = 0; i < n; i++)
			if (fnmatch(annot, ap(S.k[i].name), 0) == 0) {
				bk[nb] = -1;
				bd[nb++] = i;
			}
		if (nb > 0) {
			x->source = K_ANNOTATED;
			if (bd[0] > 0) {
				/* Kernels before the first annotation are a structure too. */
				memmove(bd + 1, bd, nb * sizeof *bd);
				memmove(bk + 1, bk, nb * sizeof *bk);
				bd[0] = 0;
				bk[0] = -1;
				nb++;
			}
		}
	}
	if (x->source == K_STEP && n > 0) {
		int *seq = xreallocarray(NULL, n + 1, sizeof *seq);
		int *pos = xreallocarray(NULL, n + 1, sizeof *pos);
		int m = 0, repeats = 0;

		for (size_t i = 0; i < n; i++)
			if (S.k[i].stream == x->main_stream) {
				seq[m] = S.k[i].id;
				pos[m++] = (int)i;
			}
		if (m > 0)
			period(seq, 0, m, 0);
		for (size_t i = 0; i < nrg; i++)
			repeats += rg[i].period > 0;
		if (repeats > 0) {
			x->source = K_REPEAT;
			for (size_t i = 0; i < nrg; i++) {
				bk[nb] = (int)i;
				bd[nb++] = (size_t)pos[rg[i].lo];
			}
		} else
			nrg = 0;
		free(seq);
		free(pos);
	}
	if (x->source == K_STEP && n > 0) {
		int64_t ue = 0;
		int have = 0;

		for (size_t i = 0; i < n; i++) {
			const struct sk *k = &S.k[i];

			if (k->empty)
				continue;
			if (have && k->cs - ue >= largegap) {
				bk[nb] = -1;
				bd[nb++] = i;
			}
			if (!have || k->ce > ue)
				ue = k->ce;
			have = 1;
		}
		if (nb > 0) {
			x->source = K_GAP;
			/* The kernels before the first gap are a structure too. */
			memmove(bd + 1, bd, nb * sizeof *bd);
			memmove(bk + 1, bk, nb * sizeof *bk);
			bd[0] = 0;
			bk[0] = -1;
			nb++;
		}
	}
	if (nb == 0 && n > 0) {
		bk[0] = -1;
		bd[nb++] = 0;
	}
	bd[0] = 0;	/* earlier kernels belong to the first structure */
	return nb;
}

/* The structures of the step (x->sv, x->nst) from its boundaries. */
static void
step_structures(struct stepx *x)
{
	size_t *bd = xreallocarray(NULL, x->n + 1, sizeof *bd);
	int *bk = xreallocarray(NULL, x->n + 1, sizeof *bk);
	size_t nb = step_bounds(x, bd, bk);

	x->sv = xcalloc(nb + 1, sizeof *x->sv);
	x->nst = 0;
	for (size_t b = 0; b < nb; b++) {
		struct st *s = &x->sv[x->nst];

		if (x->nst > 0 && bd[b] == x->sv[x->nst - 1].first)
			continue;	/* annotated kernels with one start */
		s->first = bd[b];
		s->kind = x->source;
		s->mainfirst = -1;
		if (bk[b] >= 0) {
			const struct range *g = &rg[bk[b]];

			s->kind = g->period > 0 ? K_REPEAT : K_IRREGULAR;
			s->period = g->period;
			s->rep = g->rep;
			s->region = g->region;
		}
		x->nst++;
	}
	for (size_t b = 0; b < x->nst; b++)
		x->sv[b].n = (b + 1 < x->nst ? x->sv[b + 1].first : x->n) - x->sv[b].first;
	free(bd);
	free(bk);
}

/* Structure of each kernel, templates, bubbles by place. */
static void
step_measure(struct stepx *x)
{
	struct st *sv = x->sv;
	int64_t ue = 0;
	int haveu = 0, *started;

	for (size_t b = 0; b < x->nst; b++) {
		uint64_t h = FNV_INIT, ha = FNV_INIT;
		int seen = 0;

		for (size_t i = sv[b].first; i < sv[b].first + sv[b].n; i++) {
			S.k[i].st = (int)b;
			ha = fnv(ha, ap(S.k[i].key), S.k[i].keylen + 1);
			if (S.k[i].stream == x->main_stream) {
				h = fnv(h, ap(S.k[i].key), S.k[i].keylen + 1);
				seen = 1;
			}
		}
		sv[b].hash = seen ? h : ha;
		sv[b].type = typeof_(sv[b].hash);
	}
	started = xcalloc(x->nst + 1, sizeof *started);
	x->bubs = xreallocarray(NULL, x->n + 1, sizeof *x->bubs);
	x->nbub = 0;
	x->pre = x->service;
	x->bnd = x->ins = x->nbnd = x->nins = 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct sk *k = &S.k[i];

		if (k->empty)
			continue;
		if (!haveu)
			x->pre = k->cs - x->ws;
		else if (k->cs > ue) {
			struct st *s = &sv[k->st];
			int boundary = !started[k->st] && k->st > 0;
			int64_t g = k->cs - ue;

			if (boundary) {
				s->gapbefore += g;
				x->bnd += g;
				x->nbnd++;
			} else {
				s->inside += g;
				s->nin++;
				if (g > s->largest)
					s->largest = g;
				x->ins += g;
				x->nins++;
			}
			x->bubs[x->nbub].s = ue;
			x->bubs[x->nbub].d = g;
			x->bubs[x->nbub].st = k->st;
			x->bubs[x->nbub++].boundary = boundary;
		}
		started[k->st] = 1;
		if (!haveu || k->ce > ue)
			ue = k->ce;
		haveu = 1;
	}
	x->tail = haveu ? x->we - ue : 0;
	free(started);
}

/* line = the step id, ':' and structure index b: a structure_id. */
static void
structid(long b)
{
	char idbuf[32];

	snprintf(idbuf, sizeof idbuf, ":%ld", b);
	line.len = 0;
	buf_add(&line, tmp.p, tmp.len);
	buf_adds(&line, idbuf);
}

/* The "structure" records of the step. */
static void
emit_structures(const struct stepx *x)
{
	char idbuf[64];

	for (size_t b = 0; b < x->nst; b++) {
		const struct st *s = &x->sv[b];
		struct clocks c = { 0 };
		int64_t nmain = 0;

		for (size_t i = s->first; i < s->first + s->n; i++) {
			clk_add(&c, &S.k[i]);
			nmain += S.k[i].stream == x->main_stream;
		}
		out_begin(&ob, "structure");
		out_raw(&ob, "profile", S.prof.p, S.prof.len);
		out_key(&ob, "device");
		sr_raw(&ob, x->dev);
		out_key(&ob, "step_id");
		sr_raw(&ob, x->sid);
		out_key(&ob, "group_id");
		sr_raw(&ob, x->gid);
		out_i64(&ob, "structure", (int64_t)b);
		structid((long)b);
		out_str(&ob, "structure_id", line.p, line.len);
		snprintf(idbuf, sizeof idbuf, "T%d", s->type);
		out_cstr(&ob, "structure_type", idbuf);
		snprintf(idbuf, sizeof idbuf, "%016llx", (unsigned long long)s->hash);
		out_cstr(&ob, "template", idbuf);
		out_cstr(&ob, "kind", kindname[s->kind]);
		out_cstr(&ob, "source", kindname[x->source]);
		if (s->kind == K_REPEAT) {
			out_i64(&ob, "period", s->period);
			out_i64(&ob, "region", s->region);
			out_i64(&ob, "repeat", s->rep);
		} else {
			out_null(&ob, "period");
			out_null(&ob, "region");
			out_null(&ob, "repeat");
		}
		out_i64(&ob, "kernels", (int64_t)s->n);
		out_i64(&ob, "main_stream_kernels", nmain);
		out_i64(&ob, "start_ns", c.s);
		out_i64(&ob, "end_ns", c.e);
		putclocks(&ob, &c, c.e - c.s);
		out_ratio(&ob, "structure_share", c.e - c.s, x->service);
		out_nsms(&ob, "gap_before", s->gapbefore);
		out_nsms(&ob, "internal_bubble_total", s->inside);
		out_i64(&ob, "internal_bubble_count", s->nin);
		out_nsms(&ob, "largest_internal_bubble", s->largest);
		dominant(&ob, s->first, s->first + s->n, (int)b, -1);
		part(&ob, "block", s->first, s->first + s->n, (int)b, 1);
		part(&ob, "side", s->first, s->first + s->n, (int)b, 0);
		topkernels(&ob, "top_by_duration", s->first, s->first + s->n, (int)b, 0);
		topkernels(&ob, "top_by_total_cost", s->first, s->first + s->n, (int)b, 1);
		topkernels(&ob, "wait_heavy", s->first, s->first + s->n, (int)b, 2);
		rec_put(&ob, stdout);
	}
}

/* "types": the structure types of the step with their counts, in order
 * of first use. */
static void
emit_types(struct buf *sb, const struct stepx *x)
{
	const struct st *sv = x->sv;
	char idbuf[64];

	out_key(sb, "types");
	buf_addc(sb, '[');
	for (size_t b = 0, c2 = 0; b < x->nst; b++) {
		size_t cnt = 0, j;

		for (j = 0; j < b; j++)
			if (sv[j].type == sv[b].type)
				break;
		if (j < b)
			continue;
		for (j = b; j < x->nst; j++)
			cnt += sv[j].type == sv[b].type;
		if (c2++)
			buf_addc(sb, ',');
		snprintf(idbuf, sizeof idbuf, "T%d", sv[b].type);
		buf_adds(sb, "{\"structure_type\":");
		out_esc(sb, idbuf, strlen(idbuf));
		out_i64(sb, "count", (int64_t)cnt);
		out_cstr(sb, "kind", kindname[sv[b].kind]);
		if (sv[b].kind == K_REPEAT)
			out_i64(sb, "period", sv[b].period);
		else
			out_null(sb, "period");
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
}

/* "bubble_structures" (the structures holding the most bubble time, gap
 * before + inside) and "largest_bubbles" (where they sit). */
static void
emit_bubbles(struct buf *sb, const struct stepx *x)
{
	const struct st *sv = x->sv;
	size_t *top = xcalloc((size_t)topk + 1, sizeof *top);
	int tn = 0;
	char idbuf[64];

	for (size_t b = 0; b < x->nst; b++) {
		int64_t v = sv[b].gapbefore + sv[b].inside;
		int j;

		if (v <= 0)
			continue;
		for (j = tn; j > 0 && sv[top[j - 1]].gapbefore + sv[top[j - 1]].inside < v; j--)
			if (j < topk)
				top[j] = top[j - 1];
		if (j < topk) {
			top[j] = b;
			if (tn < topk)
				tn++;
		}
	}
	out_key(sb, "bubble_structures");
	buf_addc(sb, '[');
	for (int j = 0; j < tn; j++) {
		const struct st *s = &sv[top[j]];

		if (j)
			buf_addc(sb, ',');
		structid((long)top[j]);
		buf_adds(sb, "{\"structure_id\":");
		out_esc(sb, line.p, line.len);
		snprintf(idbuf, sizeof idbuf, "T%d", s->type);
		out_cstr(sb, "structure_type", idbuf);
		out_nsms(sb, "bubble", s->gapbefore + s->inside);
		out_nsms(sb, "gap_before", s->gapbefore);
		out_nsms(sb, "internal_bubble_total", s->inside);
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
	tn = 0;
	for (size_t i = 0; i < x->nbub; i++) {
		int j;

		for (j = tn; j > 0 && x->bubs[top[j - 1]].d < x->bubs[i].d; j--)
			if (j < topk)
				top[j] = top[j - 1];
		if (j < topk) {
			top[j] = i;
			if (tn < topk)
				tn++;
		}
	}
	out_key(sb, "largest_bubbles");
	buf_addc(sb, '[');
	for (int j = 0; j < tn; j++) {
		const struct bub *u = &x->bubs[top[j]];

		if (j)
			buf_addc(sb, ',');
		buf_adds(sb, "{\"start_ns\":");
		out_int(sb, u->s);
		out_nsms(sb, "dur", u->d);
		structid((long)u->st);
		out_str(sb, "structure_id", line.p, line.len);
		out_cstr(sb, "at", u->boundary ? "boundary" : "inside");
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
	free(top);
}

/* The step's record kept for the drill-down when its group's best. */
static void
keep_drill(const struct stepx *x, const struct buf *sb)
{
	struct rfield gf;
	struct grp *g;
	int64_t bub = x->bnd + x->ins;

	if (x->gid == NULL || rf_isnull(x->gid))
		return;
	gf = *x->gid;
	line.len = 0;
	if (rf_str(&gf, &line) != 0)
		return;
	g = group_get(line.p, line.len);
	g->service += x->service;
	if (g->best < 0 || bub > g->best || (bub == g->best && x->service > g->bestsvc)) {
		g->best = bub;
		g->bestsvc = x->service;
		free(g->line);
		g->line = xmalloc(sb->len + 2);
		memcpy(g->line, sb->p, sb->len);
		memcpy(g->line + sb->len, "}", 2);
	}
}

/* The "step_structure" record of the step. */
static void
emit_step_structure(const struct stepx *x)
{
	struct buf sb = { 0 };
	struct clocks c = { 0 };
	size_t n = x->n;

	for (size_t i = 0; i < n; i++)
		clk_add(&c, &S.k[i]);
	out_begin(&sb, "step_structure");
	out_raw(&sb, "profile", S.prof.p, S.prof.len);
	out_key(&sb, "device");
	sr_raw(&sb, x->dev);
	out_key(&sb, "step_id");
	sr_raw(&sb, x->sid);
	out_key(&sb, "group_id");
	sr_raw(&sb, x->gid);
	out_cstr(&sb, "source", kindname[x->source]);
	out_i64(&sb, "structures", (int64_t)x->nst);
	emit_types(&sb, x);
	out_key(&sb, "main_stream");
	if (x->main_stream >= 0)
		nth(&sb, &S.streams, x->main_stream);
	else
		buf_adds(&sb, "null");
	out_i64(&sb, "kernels", (int64_t)n);
	out_i64(&sb, "start_ns", x->ws);
	out_i64(&sb, "end_ns", x->we);
	putclocks(&sb, &c, x->service);
	dominant(&sb, 0, n, -1, -1);
	part(&sb, "block", 0, n, -1, 1);
	part(&sb, "side", 0, n, -1, 0);
	topkernels(&sb, "top_by_duration", 0, n, -1, 0);
	topkernels(&sb, "top_by_total_cost", 0, n, -1, 1);
	topkernels(&sb, "wait_heavy", 0, n, -1, 2);
	if (x->measurable) {
		out_nsms(&sb, "prelaunch_gap", x->pre);
		out_nsms(&sb, "tail_gap", x->tail);
	} else {
		out_null(&sb, "prelaunch_gap_ns");
		out_null(&sb, "prelaunch_gap_ms");
		out_null(&sb, "tail_gap_ns");
		out_null(&sb, "tail_gap_ms");
	}
	out_nsms(&sb, "boundary_bubble_total", x->bnd);
	out_i64(&sb, "boundary_bubble_count", x->nbnd);
	out_nsms(&sb, "inside_bubble_total", x->ins);
	out_i64(&sb, "inside_bubble_count", x->nins);
	out_cstr(&sb, "bubbles_at", x->bnd + x->ins == 0 ? "none" :
	    x->bnd * 5 >= 4 * (x->bnd + x->ins) ? "boundary" :
	    x->ins * 5 >= 4 * (x->bnd + x->ins) ? "inside" : "mixed");
	emit_bubbles(&sb, x);
	/* Keep the record for the drill-down before rec_put empties it. */
	keep_drill(x, &sb);
	rec_put(&sb, stdout);
	buf_free(&sb);
}

/* The step record closes the buffered kernels: detect, measure, emit. */
static int
steprec(struct rin *r)
{
	struct stepx x;

	memset(&x, 0, sizeof x);
	if (step_read(r, &x) != 0)
		return -1;
	sr_pass(r);
	step_clip(&x);
	step_structures(&x);
	step_measure(&x);
	emit_structures(&x);
	emit_step_structure(&x);
	free(x.bubs);
	free(x.sv);
	step_reset();
	return 0;
}

/* ---------------------------------------------------------------- profile */

static void
drilldown(void)
{
	struct grp *d = NULL;

	if (!S.sect.active || S.drilled)
		return;
	S.drilled = 1;
	for (size_t i = 0; i < S.ng; i++) {
		if (S.domgroup.len ? (strlen(S.g[i].id) == S.domgroup.len &&
		    memcmp(S.g[i].id, S.domgroup.p, S.domgroup.len) == 0) :
		    (d == NULL || S.g[i].service > d->service))
			d = &S.g[i];
	}
	if (d == NULL || d->line == NULL)
		return;
	out_begin(&ob, "structure_drilldown");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_str(&ob, "dominant_group_id", d->id, strlen(d->id));
	out_cstr(&ob, "selection", "the dominant group's step with the largest "
	    "internal bubble total (boundary + inside), then the longest");
	/* Fields of the chosen step_structure, by copy. */
	{
		struct rin r = { 0 };
		const struct rfield *f;
		static const char *const keys[] = { "step_id", "device", "source", "structures",
		    "boundary_bubble_total_ns", "boundary_bubble_total_ms",
		    "inside_bubble_total_ns", "inside_bubble_total_ms", "bubbles_at",
		    "bubble_structures", "largest_bubbles" };

		r.line = d->line;
		r.len = strlen(d->line);
		if (rin_scan(&r) == 0)
			for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
				out_key(&ob, keys[i]);
				sr_raw(&ob, (f = rin_get(&r, keys[i])));
			}
		buf_free(&r.norm);
	}
	out_raw(&ob, "step_structure", d->line, strlen(d->line));
	rec_put(&ob, stdout);
}

static void
profile_end(void)
{
	drilldown();
	sr_sect_end(&S.sect, SR_CHECK_KERNEL, stdout);
	for (size_t i = 0; i < S.ng; i++) {
		free(S.g[i].id);
		free(S.g[i].line);
	}
	S.ng = 0;
	S.ntypes = 0;
	S.domgroup.len = 0;
	S.sect.active = 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	const struct rfield *f;

	if (sr_is(t, n, "kernel"))
		return kernelrec(r);
	if (sr_is(t, n, "step"))
		return steprec(r);
	if (sr_is(t, n, "profile")) {
		if (rin_scan(r) != 0)
			return -1;
		profile_end();
		sr_sect_profile(&S.sect, r);
		S.drilled = 0;
		step_reset();
		S.prof.len = 0;
		if ((f = rin_get(r, "profile")) != NULL)
			buf_add(&S.prof, f->v, f->vlen);
		else
			buf_adds(&S.prof, "null");
		sr_pass(r);
		return 0;
	}
	if (sr_is(t, n, "step_groups") && S.sect.active) {
		if (rin_scan(r) != 0)
			return -1;
		S.domgroup.len = 0;
		if ((f = rin_get(r, "dominant_group_id")) != NULL && !rf_isnull(f))
			rf_str(f, &S.domgroup);
		sr_pass(r);
		drilldown();
		return 0;
	}
	if (sr_is(t, n, "host") && sr_sect_host(&S.sect))
		drilldown();
	sr_pass(r);
	return 0;
}

static void
onend(void *arg)
{
	profile_end();
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "structure", "step_structure", "structure_drilldown", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rfile = NULL;
	int c, kflag = 0, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "a:km:r:")) != -1)
		switch (c) {
		case 'a':
			annot = optarg;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
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
	minperiod = (int)rules_num("segment.min_period");
	if (minperiod < 1)
		minperiod = 1;
	minrepeat = (int)rules_num("segment.min_repeat_kernels");
	ncand = (int)rules_num("segment.period_candidates");
	if (ncand < 1)
		ncand = 1;
	topk = (int)rules_num("segment.top_kernels");
	if (topk < 1)
		topk = 1;
	largegap = (int64_t)(rules_num("segment.large_gap_us") * 1000 + 0.5);
	smallns = (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5);
	minbubble = rules_ns("bubbles.min_bubble_us", 1e3);
	rc = sr_run(argc, argv, maxline, kflag, &f);
	xclose_stdout();
	return rc;
}
