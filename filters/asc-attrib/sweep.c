/*
 * asc-attrib: the sweep: each host event, its leafness known, against
 * the windows it overlaps (coverage, families, chains, threads, evidence,
 * the top op and the longest untraced gap of each window).
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

/* Keep the EVN largest overlaps, earlier events first among equals. */
static void
top_add(struct top *t, uint32_t name, int64_t tid, int64_t ov)
{
	int i = t->n;

	if (t->n == EVN) {
		if (ov <= t->v[EVN - 1].ov)
			return;
		i = EVN - 1;
	} else
		t->n++;
	for (; i > 0 && t->v[i - 1].ov < ov; i--)
		t->v[i] = t->v[i - 1];
	t->v[i].name = name;
	t->v[i].tid = tid;
	t->v[i].ov = ov;
}

/* The family's chain in a window: see struct fbest. */
static void
fbestadd(struct wst *st, const struct qev *h, int64_t ov)
{
	struct fbest *b = st->fb[h->fam];

	if (b == NULL) {
		b = st->fb[h->fam] = xcalloc(1, sizeof *b);
		b->treeov = -1;
	}
	if (h->pser != 0 && h->pser == b->ser) {
		if (2 * ov < b->treeov)
			return;
	} else if (ov <= b->treeov)
		return;
	else
		b->treeov = ov;
	b->ser = h->ser;
	b->ov = ov;
	b->s = h->s;
	b->e = h->e;
	b->ch = h->ch;
	b->frame = h->cframe;
}

static struct pyg *
pgof(struct wst *st, struct fbest *fb, const struct qev *h, int own, int64_t a)
{
	uint32_t f = own ? h->name : h->pyf, c = own ? NOID : h->pyc;
	struct pyg *g;

	for (int i = 0; i < fb->npg; i++)
		if (fb->pg[i].over || (fb->pg[i].f == f && fb->pg[i].c == c && fb->pg[i].own == own))
			return &fb->pg[i];
	g = &fb->pg[fb->npg++];
	memset(g, 0, sizeof *g);
	g->over = fb->npg == PGN;
	g->f = g->over ? NOID : f;
	g->c = g->over ? NOID : c;
	g->own = !g->over && own;
	g->tid = h->tid;
	g->s = h->s;
	g->e = h->e;
	/* the earlier families' events still open at a */
	if (h->fam > 0 && st->fam[h->fam - 1].have && st->fam[h->fam - 1].ce > a) {
		run_add(&g->gl, st->fam[h->fam - 1].cs, st->fam[h->fam - 1].ce);
		run_add(&g->l, st->fam[h->fam - 1].cs, st->fam[h->fam - 1].ce);
	}
	return g;
}

/*
 * h's [a, b) in the groups of struct pyg: an event of a family before f
 * (or of a serialisation point) in every group of f, a call with no
 * frame, outermost under its Python frame, in its own; a Python frame
 * of user code in its own lines' group, and every other event of its
 * family out of the own lines of the frames it lies in.
 */
static void
pgtouch(struct wst *st, const struct qev *h, int64_t a, int64_t b)
{
	struct fbest *fb;
	int lo = h->serial ? 0 : h->fam, frame;

	for (int f = lo + 1; f <= nfam; f++)
		for (int i = 0; st->fb[f] && i < st->fb[f]->npg; i++) {
			run_add(&st->fb[f]->pg[i].gl, a, b);
			run_add(&st->fb[f]->pg[i].l, a, b);
		}
	if (h->serial || h->cframe != NOID || (fb = st->fb[h->fam]) == NULL)
		return;
	frame = !h->pyent && h->pyf == h->name && h->pyc == NOID;
	for (int i = 0; i < fb->npg; i++)
		if (fb->pg[i].own && !(frame && fb->pg[i].f == h->name)) {
			run_add(&fb->pg[i].gl, a, b);
			run_add(&fb->pg[i].l, a, b);
		}
	if (frame || h->pyent)
		run_add(&pgof(st, fb, h, frame, a)->gl, a, b);
}

/* Before h's [a, b) joins the window's coverage: is the gap it ends the longest? */
static void
gapadd(const struct win *w, struct wst *st, const struct qev *h, int64_t a, int64_t b)
{
	const struct run *u = &st->fam[nfam];
	int64_t from = u->have ? u->ce : w->s;

	if (a > from && a - from > st->gap.e - st->gap.s) {
		st->gap.s = from;
		st->gap.e = a;
		st->gap.before = u->have ? st->lastname : NOID;
		st->gap.after = h->name;
	}
	if (!u->have || b > st->lastend) {
		st->lastend = b;
		st->lastname = h->name;
	}
}

/*
 * Event h covers [a, b) of window w.  Every event counts for the cause
 * families (by its chain's family) and sync and comm markers for theirs
 * at any depth; coverage, threads, evidence and the top op count leaves.
 */
static struct wst *
wstof(struct win *w)
{
	struct wst *st = w->st;

	if (st == NULL) {
		st = w->st = xcalloc(1, sizeof *st);
		st->best.name = NOID;
		st->gap.before = st->gap.after = NOID;
		st->cxname = st->cxframe = NOID;
	}
	return st;
}

/*
 * A frame of the step's context covers [a, b) of w: no cause, but the
 * time it covers alone is its own code.  Events come in start order, so
 * the last one named is the innermost of nested frames.
 */
static void
ctxtouch(struct win *w, const struct qev *h, int64_t a, int64_t b)
{
	struct wst *st;

	if (b <= a)
		return;
	st = wstof(w);
	run_add(&st->all, a, b);
	st->cxname = h->name;
	st->cxframe = h->frame;
}

static void
touch(struct win *w, const struct qev *h, int64_t a, int64_t b, int leaf)
{
	struct wst *st;
	struct thr *t = NULL;

	if (b <= a)
		return;
	st = wstof(w);
	run_add(&st->all, a, b);
	if (h->cls & 1) {
		if (st->tsync == NULL)
			st->tsync = xcalloc(1, sizeof *st->tsync);
		run_add(&st->sync, a, b);
		top_add(st->tsync, h->name, h->tid, b - a);
	}
	if (h->cls & 2) {
		if (st->tcomm == NULL)
			st->tcomm = xcalloc(1, sizeof *st->tcomm);
		run_add(&st->comm, a, b);
		top_add(st->tcomm, h->name, h->tid, b - a);
	}
	gapadd(w, st, h, a, b);
	/* A serialisation point waits on the device: it causes no bubble. */
	if (h->serial)
		run_add(&st->ser, a, b);
	for (int f = h->serial ? 0 : h->fam; f <= nfam; f++)
		run_add(&st->fam[f], a, b);
	if (!h->serial)
		fbestadd(st, h, b - a);
	pgtouch(st, h, a, b);
	if (h->fam == famh2d && (h->cls & 64))
		st->todev = 1;
	if (h->tally && w->sig && w->scope != S_GLOBAL)
		P.opns[h->name] += b - a;
	if (!leaf)
		return;
	run_add(&st->any, a, b);
	top_add(&st->tany, h->name, h->tid, b - a);
	for (int i = 0; i < st->nth; i++)
		if (st->th[i].tid == h->tid && st->th[i].pid == h->pid) {
			t = &st->th[i];
			break;
		}
	if (t == NULL) {
		if (st->nth == st->capth) {
			st->capth = st->capth ? 2 * st->capth : 2;
			st->th = xreallocarray(st->th, (size_t)st->capth, sizeof *st->th);
		}
		t = &st->th[st->nth++];
		memset(t, 0, sizeof *t);
		t->pid = h->pid;
		t->tid = h->tid;
	}
	run_add(&t->u, a, b);
	if (st->best.name == NOID || b - a > st->best.ov) {
		st->best.name = h->name;
		st->best.frame = h->frame;
		st->best.tid = h->tid;
		st->best.s = h->s;
		st->best.e = h->e;
		st->best.ov = b - a;
	}
}

/* One event, its leafness known, against the windows. */
static void
process(const struct qev *h)
{
	int leaf = h->state == Q_LEAF;
	size_t k = 0;

	if (leaf)
		P.nleaf++;
	openupto(h->s, 0);
	/* Active windows: drop those that ended, clip to the others. */
	for (size_t i = 0; i < P.nact; i++) {
		struct win *w = &P.w[P.act[i]];

		if (w->e <= h->s)
			continue;
		P.act[k++] = P.act[i];
		if (h->ctx)
			ctxtouch(w, h, h->s, h->e < w->e ? h->e : w->e);
		else
			touch(w, h, h->s, h->e < w->e ? h->e : w->e, leaf);
	}
	P.nact = k;
	/* Windows not yet open that the event reaches. */
	for (size_t i = P.nopen; i < P.nw && P.w[P.ord[i]].s < h->e; i++) {
		struct win *w = &P.w[P.ord[i]];

		if (h->ctx)
			ctxtouch(w, h, w->s, h->e < w->e ? h->e : w->e);
		else
			touch(w, h, w->s, h->e < w->e ? h->e : w->e, leaf);
	}
	if (h->ctx)
		return;
	if (leaf && (P.last.name == NOID || h->e >= P.last.e)) {
		P.last.name = h->name;
		P.last.frame = h->frame;
		P.last.tid = h->tid;
		P.last.s = h->s;
		P.last.e = h->e;
		P.last.ov = 0;
	}
}

/*
 * Process the queue's head while its leafness is known.  Nothing that
 * starts at or after now can lie inside an event that ends by now.
 */
void
drain(int64_t now)
{
	while (P.qhead < P.qtail) {
		struct qev *h = qat(P.qhead);

		/* a pending copy call waits until a call under it decides or it ends */
		if (h->troot != 0 && h->troot == h->ser) {
			if (h->e > now)
				return;
			copyres(P.qhead, famlaunch);
		}
		if (h->state == Q_PENDING) {
			if (h->e > now)
				return;
			h->state = Q_LEAF;
		}
		process(h);
		P.qhead++;
	}
}
