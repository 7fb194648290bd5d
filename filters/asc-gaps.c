/*
 * asc-gaps: per step, the device-busy union of its kernels (the segments
 * of asc-merge, merged here again: carrying them as records between two
 * stages cost more than merging), its bubble metrics ("step_metrics") and
 * every gap as a "bubble" window with the kernels around it; per profile
 * (device), the gaps of the whole-capture busy union ("capture_gaps") and
 * the "global" windows among them.
 *
 * A step's windows shorter than min_bubble_us are many (hundreds of
 * thousands of gaps of a few us in a large capture) and no later stage
 * judges them: they are summed per step in one "bubble_minor" record
 * (count, total, histogram) unless -a asks for a record each.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busy.h"
#include "dec.h"
#include "filter.h"
#include "nsms.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "strv.h"
#include "util.h"


struct seg {
	int64_t		 s, e;
	int64_t		 compute, comm;	/* unions inside it */
	size_t		 first, firstn, last, lastn;	/* context objects in G.arena */
};

struct win {
	int64_t		 s, e;
	size_t		 id, idn, gid, gidn;		/* raw JSON in G.ids */
};

struct gap {
	int64_t		 a, b;
	char		*before, *after;		/* context objects or NULL */
	size_t		 bo, bn, ao, an;		/* pending: the contexts in G.pctx */
};

struct gaplist {
	struct gap	*v;
	size_t		 n, cap, head;
};

static struct {
	struct sr_sect	 sect;
	struct buf	 prof;
	/* the kernels of the step being read, then its segments */
	struct busy	 un;
	int		 bad;
	struct seg	*sg;
	size_t		 nsg, capsg;
	struct buf	 arena;
	/* the pass: one device's kernels and steps */
	int		 pass, passes;
	struct buf	 dev;
	int64_t		 nk, nsteps, us, ue, firstk, busy, largest, ngaps;
	int		 haveu;
	struct buf	 firstctx, lastctx, kctx;
	const char	*kc;		/* the current kernel's context: in kctx or G.un.ctx */
	size_t		 kcn;
	struct win	*w;
	size_t		 nw, capw;
	struct buf	 ids;
	struct gaplist	 pend, glob;
	struct buf	 pctx;		/* the pending gaps' contexts: most are dropped */
} G;

/* From the rules ("bubbles.*"); -b overrides min_bubble_us. */
static int64_t minbubble = -1, heavymin, heavyppm, underppm, commmin, commppm;
static struct buf ob, tmp, bid;
static int aflag, sflag;

/*
 * The step's windows below min_bubble_us, when not written one by one:
 * the histogram's upper bounds are 1, 2, 5, 10, 20, 50 ... us below
 * min_bubble_us, the last bound min_bubble_us itself.
 */
#define NHIST	32
static struct {
	int64_t		 n, total, largest;
	int64_t		 up[NHIST], hn[NHIST], hdur[NHIST];
	int		 nb;
} M;

static void
gl_add(struct gaplist *l, int64_t a, int64_t b, const char *before, size_t bn,
    const char *after, size_t an)
{
	l->v = xgrow(l->v, l->n, &l->cap, 64, sizeof *l->v);
	l->v[l->n].a = a;
	l->v[l->n].b = b;
	l->v[l->n].before = before ? xstrndup(before, bn) : NULL;
	l->v[l->n].after = after ? xstrndup(after, an) : NULL;
	l->n++;
}

/* A whole-capture gap not yet placed in a window; its contexts are the
 * last kernel's and the current one's. */
static void
pend_add(int64_t a, int64_t b)
{
	struct gaplist *l = &G.pend;
	struct gap *g;

	l->v = xgrow(l->v, l->n, &l->cap, 64, sizeof *l->v);
	g = &l->v[l->n++];
	g->a = a;
	g->b = b;
	g->before = g->after = NULL;
	g->bo = G.pctx.len;
	buf_add(&G.pctx, G.lastctx.p, G.lastctx.len);
	g->bn = G.lastctx.len;
	g->ao = G.pctx.len;
	buf_add(&G.pctx, G.kc, G.kcn);
	g->an = G.kcn;
}

static void
gl_clear(struct gaplist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].before);
		free(l->v[i].after);
	}
	l->n = l->head = 0;
}

static void
head(const char *type)
{
	out_begin(&ob, type);
	out_raw(&ob, "profile", G.prof.p, G.prof.len);
	out_raw(&ob, "device", G.dev.p, G.dev.len);
}

/* A bubble record.  sid: unescaped step id (NULL: "none"); gid raw or NULL. */
static void
bubble(const char *sid, size_t sidn, const char *gid, size_t gidn,
    const char *scope, size_t nth, int64_t a, int64_t b,
    const char *before, size_t bn, const char *after, size_t an, int partial)
{
	char t[64];

	if (!aflag && b - a < minbubble && strcmp(scope, "global") != 0) {
		int i = 0;

		while (i < M.nb - 1 && b - a >= M.up[i])
			i++;
		M.n++;
		M.total += b - a;
		if (b - a > M.largest)
			M.largest = b - a;
		M.hn[i]++;
		M.hdur[i] += b - a;
		return;
	}
	head("bubble");
	if (sid)
		out_str(&ob, "step_id", sid, sidn);
	else
		out_cstr(&ob, "step_id", "none");
	if (gid)
		out_raw(&ob, "group_id", gid, gidn);
	else
		out_null(&ob, "group_id");
	bid.len = 0;
	if (sid)
		buf_add(&bid, sid, sidn);
	else
		buf_adds(&bid, "none");
	snprintf(t, sizeof t, ":%s:%zu", scope, nth);
	buf_adds(&bid, t);
	out_str(&ob, "bubble_id", bid.p, bid.len);
	out_cstr(&ob, "scope", scope);
	out_i64(&ob, "start_ns", a);
	out_i64(&ob, "end_ns", b);
	out_i64(&ob, "dur_ns", b - a);
	out_dec(&ob, "start_us", a, 3);
	out_dec(&ob, "end_us", b, 3);
	out_dec(&ob, "duration_ms", b - a, 6);
	out_bool(&ob, "significant", b - a >= minbubble);
	out_key(&ob, "tags");
	buf_adds(&ob, partial ? "[\"PARTIAL_CAPTURE_BOUNDARY\"]" : "[]");
	if (before)
		out_raw(&ob, "before", before, bn);
	else
		out_null(&ob, "before");
	if (after)
		out_raw(&ob, "after", after, an);
	else
		out_null(&ob, "after");
	rec_put(&ob, stdout);
}

/* The step's "bubble_minor" record; the sums restart. */
static void
minorout(const char *sid, size_t sidn, const char *gid, size_t gidn)
{
	char t[40];

	head("bubble_minor");
	out_str(&ob, "step_id", sid, sidn);
	out_raw(&ob, "group_id", gid, gidn);
	out_i64(&ob, "windows", M.n);
	out_nsms(&ob, "dur", M.total);
	out_nsms(&ob, "largest", M.largest);
	out_dec(&ob, "min_bubble_us", minbubble, 3);
	out_key(&ob, "hist");
	buf_addc(&ob, '[');
	for (int i = 0; i < M.nb; i++) {
		out_item(&ob, i, "below_us");
		buf_add(&ob, t, (size_t)dec_fmt(t, M.up[i], 3));
		buf_adds(&ob, ",\"windows\":");
		out_int(&ob, M.hn[i]);
		buf_adds(&ob, ",\"dur_ns\":");
		out_int(&ob, M.hdur[i]);
		buf_addc(&ob, '}');
		M.hn[i] = M.hdur[i] = 0;
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
	M.n = M.total = M.largest = 0;
}

static void
pass_begin(const char *dev, size_t n)
{
	G.pass = 1;
	G.dev.len = 0;
	buf_add(&G.dev, dev, n);
	G.nk = G.nsteps = G.busy = G.largest = G.ngaps = 0;
	G.haveu = 0;
	G.nw = 0;
	G.ids.len = 0;
	gl_clear(&G.pend);
	G.pctx.len = 0;
	gl_clear(&G.glob);
}

/*
 * The window that contains [a, b) (inside), or that holds a (s <= a < e),
 * or -1.  Windows are in start order and disjoint, except that Step Id
 * column windows may overlap their neighbour: look one window further back.
 */
static long
findwin(int64_t a, int64_t b, int inside)
{
	size_t lo = 0, hi = G.nw;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (G.w[mid].s <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (long i = (long)lo - 1; i >= 0 && i >= (long)lo - 2; i--)
		if (inside ? b <= G.w[i].e : a < G.w[i].e)
			return i;
	return -1;
}

static int
inwindow(int64_t a, int64_t b)
{
	return findwin(a, b, 1) >= 0;
}

static long
holder(int64_t a)
{
	return findwin(a, a, 0);
}

static void
gapseen(int64_t a, int64_t b)
{
	G.ngaps++;
	if (b - a > G.largest)
		G.largest = b - a;
}

/* Pending whole-capture gaps ending by `upto` are decided: inside one window, dropped. */
static void
resolve(int64_t upto, int all)
{
	struct gaplist *p = &G.pend;

	while (p->head < p->n && (all || p->v[p->head].b <= upto)) {
		struct gap *g = &p->v[p->head++];

		if (!inwindow(g->a, g->b))
			gl_add(&G.glob, g->a, g->b, G.pctx.p + g->bo, g->bn,
			    G.pctx.p + g->ao, g->an);
	}
	if (p->head == p->n) {
		p->n = p->head = 0;
		G.pctx.len = 0;
	}
}

static void
pass_end(void)
{
	int64_t ss = 0, se = 0, gap;
	int have = 0;

	if (!G.pass)
		return;
	if (G.haveu) {
		G.busy += G.ue - G.us;
		ss = G.firstk;
		se = G.ue;
		have = 1;
	}
	for (size_t i = 0; i < G.nw; i++) {
		if (!have || G.w[i].s < ss)
			ss = G.w[i].s;
		if (!have || G.w[i].e > se)
			se = G.w[i].e;
		have = 1;
	}
	resolve(0, 1);
	/*
	 * Edge gaps of the capture, before the first and after the last
	 * kernel (or the whole span without kernels), written in time order
	 * around the others.
	 */
	struct gaplist lead = { 0 }, trail = { 0 };

	if (!G.haveu) {
		if (se > ss) {
			gapseen(ss, se);
			if (!inwindow(ss, se))
				gl_add(&lead, ss, se, NULL, 0, NULL, 0);
		}
	} else {
		if (ss < G.firstk) {
			gapseen(ss, G.firstk);
			if (!inwindow(ss, G.firstk))
				gl_add(&lead, ss, G.firstk, NULL, 0, G.firstctx.p, G.firstctx.len);
		}
		if (G.ue < se) {
			gapseen(G.ue, se);
			if (!inwindow(G.ue, se))
				gl_add(&trail, G.ue, se, G.lastctx.p, G.lastctx.len, NULL, 0);
		}
	}
	size_t nglob = 0;
	struct gap *all = xreallocarray(NULL, G.glob.n + 2, sizeof *all);

	if (lead.n)
		all[nglob++] = lead.v[0];
	for (size_t i = 0; i < G.glob.n; i++)
		all[nglob++] = G.glob.v[i];
	if (trail.n)
		all[nglob++] = trail.v[0];
	long prevwi = -2;
	size_t run = 0, nneg = 0;

	for (size_t i = 0; i < nglob; i++) {
		const struct gap *g = &all[i];
		long wi = holder(g->a);
		const char *sid = NULL, *gid = NULL;
		size_t sidn = 0, gidn = 0, nth = 0;
		int partial = !G.haveu || g->b <= G.firstk || g->a >= G.ue;

		if (wi >= 0) {
			struct rfield f = { NULL, G.ids.p + G.w[wi].id, 0, G.w[wi].idn };

			rf_str(&f, &tmp);
			sid = tmp.p;
			sidn = tmp.len;
			gid = G.ids.p + G.w[wi].gid;
			gidn = G.w[wi].gidn;
		}
		/* Gaps are in time order, so a window's gaps are consecutive;
		 * those outside every window (-1) are counted apart. */
		if (wi < 0)
			nth = nneg++;
		else if (wi == prevwi)
			nth = run++;
		else {
			prevwi = wi;
			run = 1;
			nth = 0;
		}
		bubble(sid, sidn, gid, gidn, "global", nth, g->a, g->b,
		    g->before, g->before ? strlen(g->before) : 0,
		    g->after, g->after ? strlen(g->after) : 0, partial);
	}
	free(all);
	gl_clear(&lead);
	gl_clear(&trail);
	free(lead.v);
	free(trail.v);
	gap = have ? se - ss - G.busy : 0;
	head("capture_gaps");
	out_i64_or_null(&ob, "start_ns", have, ss);
	out_i64_or_null(&ob, "end_ns", have, se);
	out_nsms(&ob, "capture_span", have ? se - ss : 0);
	out_nsms(&ob, "busy_union", G.busy);
	out_nsms(&ob, "gap", gap);
	out_ratio(&ob, "gap_ratio", gap, have ? se - ss : 0);
	out_nsms(&ob, "largest_gap", G.largest);
	out_i64(&ob, "gap_count", G.ngaps);
	out_i64(&ob, "kernels", G.nk);
	out_i64(&ob, "steps", G.nsteps);
	out_i64(&ob, "global_bubble_count", (int64_t)nglob);
	out_dec(&ob, "min_bubble_us", minbubble, 3);
	rec_put(&ob, stdout);
	gl_clear(&G.glob);
	G.pass = 0;
	G.passes++;
}

static void
profile_end(void)
{
	if (!G.sect.active)
		return;
	sr_sect_end(&G.sect, SR_CHECK_KERNEL, stdout);
	if (!G.pass && G.passes == 0)
		pass_begin("null", 4);
	pass_end();
	G.sect.active = 0;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	int o, inun = 0;

	if ((o = sr_sect_kernel_rec(&G.sect, r, &k)) < 0)
		return -1;
	if (o == 1 && (G.nk > 0 || !G.pass ||
	    G.dev.len != G.sect.ord.dev.len || memcmp(G.dev.p, G.sect.ord.dev.p, G.dev.len) != 0)) {
		pass_end();
		pass_begin(G.sect.ord.dev.p, G.sect.ord.dev.len);
	}
	G.nk++;
	if ((inun = busy_kernel(&G.un, r, &k)) < 0)
		return -1;
	if (k.end > k.start) {
		if (G.un.n > 0 && inun) {
			/* busy_add wrote it already */
			G.kc = G.un.ctx.p + G.un.v[G.un.n - 1].ctx;
			G.kcn = G.un.v[G.un.n - 1].ctxlen;
		} else {
			G.kctx.len = 0;
			sr_ctx(&G.kctx, &k);
			G.kc = G.kctx.p;
			G.kcn = G.kctx.len;
		}
		if (!G.haveu) {
			G.haveu = 1;
			G.us = G.firstk = k.start;
			G.ue = k.end;
			G.firstctx.len = 0;
			buf_add(&G.firstctx, G.kc, G.kcn);
			G.lastctx.len = 0;
			buf_add(&G.lastctx, G.kc, G.kcn);
		} else if (k.start <= G.ue) {
			if (k.end >= G.ue) {
				G.ue = k.end;
				G.lastctx.len = 0;
				buf_add(&G.lastctx, G.kc, G.kcn);
			}
		} else {
			gapseen(G.ue, k.start);
			pend_add(G.ue, k.start);
			G.busy += G.ue - G.us;
			G.us = k.start;
			G.ue = k.end;
			G.lastctx.len = 0;
			buf_add(&G.lastctx, G.kc, G.kcn);
		}
	}
	sr_pass(r);
	return 0;
}

/* A segment of the step being closed: kept for its bubbles (-s: written). */
static void
putseg(const struct busy *b, const struct busy_seg *g, void *arg)
{
	const struct rfield *const *f = arg;
	struct seg *s;

	G.sg = xgrow(G.sg, G.nsg, &G.capsg, 256, sizeof *G.sg);
	s = &G.sg[G.nsg++];
	s->s = g->s;
	s->e = g->e;
	s->compute = g->compute;
	s->comm = g->comm;
	s->first = G.arena.len;
	buf_add(&G.arena, b->ctx.p + g->first->ctx, g->first->ctxlen);
	s->firstn = g->first->ctxlen;
	s->last = G.arena.len;
	buf_add(&G.arena, b->ctx.p + g->last->ctx, g->last->ctxlen);
	s->lastn = g->last->ctxlen;
	if (sflag) {
		busy_seg_rec(&ob, b, g, f[0], f[1], f[2]);
		rec_put(&ob, stdout);
	}
}

/* Kernels buffered when a profile ends: reported, the record that reveals
 * it is still processed, the exit status is 1. */
static void
leftover(const struct rin *r)
{
	if (!G.un.have)
		return;
	if (r)
		warnmsg("%s:%lu: kernels of step \"%.40s\" have no \"step\" record",
		    rin_name(r), rin_lineno(r), G.un.step.p);
	else
		warnmsg("end of input: kernels of step \"%.40s\" have no \"step\" record",
		    G.un.step.p);
	G.bad = 1;
	busy_clear(&G.un);
}

static const char *
ctxp(size_t off)
{
	return G.arena.p + off;
}

/* x >= max(1 ms, 10 % of service) with the rules' defaults */
static int
heavy(int64_t x, int64_t service)
{
	return x >= heavymin && (__int128)x * 1000000 >= (__int128)heavyppm * service;
}
/* The step's window, kept for the whole-capture gaps. */
static void
addwin(const struct rfield *sid, const struct rfield *gid, int64_t ws, int64_t we)
{
	G.w = xgrow(G.w, G.nw, &G.capw, 64, sizeof *G.w);
	struct win *w = &G.w[G.nw++];

	w->s = ws;
	w->e = we;
	w->id = G.ids.len;
	buf_add(&G.ids, sid->v, sid->vlen);
	w->idn = sid->vlen;
	w->gid = G.ids.len;
	sr_raw(&G.ids, gid);
	w->gidn = G.ids.len - w->gid;
}

/* What the busy segments of a step say. */
struct stepm {
	int64_t busy, internal, largest, nbub, nsig, compute, comm;
};

static void
measure(struct stepm *m)
{
	*m = (struct stepm){ 0 };
	for (size_t i = 0; i < G.nsg; i++) {
		m->busy += G.sg[i].e - G.sg[i].s;
		m->compute += G.sg[i].compute;
		m->comm += G.sg[i].comm;
		if (i > 0) {
			int64_t g = G.sg[i].s - G.sg[i - 1].e;

			m->internal += g;
			m->nbub++;
			if (g > m->largest)
				m->largest = g;
			if (g >= minbubble)
				m->nsig++;
		}
	}
}

/* The step_metrics tags, in their order. */
static void
puttags(int tidle, int tpre, int ttail, int tint, int tcomm)
{
	const char *tags[5] = { NULL };
	int nt = 0;

	if (tidle)
		tags[nt++] = "DEVICE_IDLE_GAP_HEAVY";
	if (tpre)
		tags[nt++] = "PRELAUNCH_GAP_HEAVY";
	if (ttail)
		tags[nt++] = "TAIL_GAP_HEAVY";
	if (tint)
		tags[nt++] = "INTERNAL_BUBBLE_HEAVY";
	if (tcomm)
		tags[nt++] = "COMM_EXPOSED_HEAVY";
	out_strv(&ob, "tags", tags, nt);
}


static int
steprec(struct rin *r)
{
	const struct rfield *sid, *gid, *src, *dev;
	int64_t ws, we, kernels = 0;
	int measurable = 1, first = 0, last = 0;

	if (sr_sect_need(&G.sect, r, "step") != 0)
		return -1;
	if (rin_scan(r) != 0)
		return -1;
	sid = rin_get(r, "step_id");
	if (rin_i64(r, "start_ns", &ws) != 0 || rin_i64(r, "end_ns", &we) != 0 || we < ws) {
		rin_error(r, "step has no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	if (busy_step(&G.un, r, sid, &tmp) != 0)
		return -1;
	gid = rin_get(r, "group_id");
	src = rin_get(r, "window_source");
	dev = rin_get(r, "device");
	/* The busy union, its segments (-s: written before the step record). */
	{
		const struct rfield *f[3] = { rin_get(r, "profile"), dev, sid };

		G.nsg = 0;
		G.arena.len = 0;
		busy_merge(&G.un, ws, we, putseg, f);
	}
	rf_bool(rin_get(r, "measurable_edges"), &measurable);
	rf_bool(rin_get(r, "first_step"), &first);
	rf_bool(rin_get(r, "last_step"), &last);
	rin_i64(r, "kernels", &kernels);
	sr_pass(r);
	if (!G.pass)
		pass_begin(dev ? dev->v : "null", dev ? dev->vlen : 4);
	G.nsteps++;

	/* The window, for the whole-capture gaps. */
	addwin(sid, gid, ws, we);
	resolve(we, 0);

	struct stepm m;
	int64_t service = we - ws, pre, tail;

	measure(&m);
	pre = G.nsg ? G.sg[0].s - ws : service;
	tail = G.nsg ? we - G.sg[G.nsg - 1].e : 0;

	const char *gv = gid ? gid->v : "null";
	size_t gn = gid ? gid->vlen : 4;
	int tpre = measurable && heavy(pre, service);
	int ttail = measurable && heavy(tail, service);
	int tint = heavy(m.largest, service);
	/*
	 * torch_npu's split of the busy union: Computing (compute union),
	 * Communication(Not Overlapped) (busy minus compute), Overlapped
	 * (compute and comm both: |A| + |B| - |A u B|).
	 */
	int64_t exposed = m.busy - m.compute, overlapped = m.compute + m.comm - m.busy;
	int tcomm = exposed >= commmin &&
	    (__int128)exposed * 1000000 >= (__int128)commppm * service;
	int tidle = (service > 0 &&
	    (__int128)(service - m.busy) * 1000000 >= (__int128)underppm * service) ||
	    tpre || ttail || tint;

	head("step_metrics");
	out_raw(&ob, "step_id", sid->v, sid->vlen);
	out_raw(&ob, "group_id", gv, gn);
	out_key(&ob, "window_source");
	sr_raw(&ob, src);
	out_bool(&ob, "measurable_edges", measurable);
	out_i64(&ob, "start_ns", ws);
	out_i64(&ob, "end_ns", we);
	out_i64(&ob, "kernels", kernels);
	out_i64(&ob, "segments", (int64_t)G.nsg);
	out_nsms(&ob, "service", service);
	out_nsms(&ob, "device_busy_union", m.busy);
	out_nsms(&ob, "underfeed", service - m.busy);
	out_ratio(&ob, "underfeed_ratio", service - m.busy, service);
	out_nsms(&ob, "compute", m.compute);
	out_nsms(&ob, "comm_exposed", exposed);
	out_nsms(&ob, "comm_overlapped", overlapped);
	out_nsms_or_null(&ob, "prelaunch_gap", measurable, pre);
	out_nsms_or_null(&ob, "tail_gap", measurable, tail);
	out_nsms(&ob, "internal_bubble_total", m.internal);
	out_nsms(&ob, "largest_internal_bubble", m.largest);
	out_i64(&ob, "bubble_count", m.nbub);
	out_i64(&ob, "significant_bubble_count", m.nsig);
	out_dec(&ob, "min_bubble_us", minbubble, 3);
	puttags(tidle, tpre, ttail, tint, tcomm);
	rec_put(&ob, stdout);

	/* Bubbles in time order: prelaunch, internal, tail. */
	if (measurable && pre > 0)
		bubble(tmp.p, tmp.len, gv, gn, "prelaunch", 0, ws, ws + pre, NULL, 0,
		    G.nsg ? ctxp(G.sg[0].first) : NULL, G.nsg ? G.sg[0].firstn : 0, first);
	for (size_t i = 1; i < G.nsg; i++)
		bubble(tmp.p, tmp.len, gv, gn, "step_internal", i - 1,
		    G.sg[i - 1].e, G.sg[i].s,
		    ctxp(G.sg[i - 1].last), G.sg[i - 1].lastn,
		    ctxp(G.sg[i].first), G.sg[i].firstn, 0);
	if (measurable && tail > 0)
		bubble(tmp.p, tmp.len, gv, gn, "tail", 0, we - tail, we,
		    ctxp(G.sg[G.nsg - 1].last), G.sg[G.nsg - 1].lastn, NULL, 0, last);
	if (M.n > 0)
		minorout(tmp.p, tmp.len, gv, gn);
	G.nsg = 0;
	return 0;
}

/* A profile ends (r: the record that ends it, NULL at the end of input). */
static void
onprofend(struct rin *r, void *arg)
{
	leftover(r);
	profile_end();
}

static int
onprofile(struct rin *r, void *arg)
{
	G.passes = 0;
	G.nsg = 0;
	return 0;
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "step", .rec = steprec }),
		.own = FILTER_OWN("step_metrics", "bubble",
		    "bubble_minor", "capture_gaps", "segment"),
		FILTER_SECTIONS(&G.sect, &G.prof, onprofend, onprofile, pass_end),
	};
	static const int m125[] = { 1, 2, 5 };
	struct filter_opts o = FILTER_OPTS("[-aks] [-b min_bubble_us] [-m maxline] [-r rules] [file ...]",
	    .flags = FILTER_FLAGS({ .letter = 'a', .to = &aflag }, { .letter = 's', .to = &sflag }));
	int c, rc;

	while ((c = filter_getopt(argc, argv, "ab:s", &o)) != -1)
		if (c == 'b' && (dec_us2ns(optarg, strlen(optarg), &minbubble) != 0 ||
		    minbubble < 0))
			die("min_bubble_us: not a non-negative number: %s", optarg);
	rules_load(o.rules);
	if (minbubble < 0)
		minbubble = rules_ns("bubbles.min_bubble_us", 1e3);
	/* 1-2-5 bounds below min_bubble_us, then min_bubble_us. */
	for (int64_t d = 1000; d < minbubble && M.nb < NHIST - 3; d *= 10)
		for (int k = 0; k < 3; k++)
			if (d * m125[k] < minbubble)
				M.up[M.nb++] = d * m125[k];
	M.up[M.nb++] = minbubble;
	heavymin = rules_ns("bubbles.heavy_gap_min_ms", 1e6);
	heavyppm = llround(rules_num("bubbles.heavy_gap_service_share") * 1e6);
	underppm = llround(rules_num("bubbles.high_underfeed_ratio") * 1e6);
	commmin = rules_ns("bubbles.comm_exposed_min_ms", 1e6);
	commppm = llround(rules_num("bubbles.comm_exposed_service_share") * 1e6);
	rc = filter_main(argc, argv, &o, &f);
	return G.bad && rc == 0 ? EX_DATA : rc;
}
