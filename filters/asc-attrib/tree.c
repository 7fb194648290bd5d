/*
 * asc-attrib: the call-tree index: the threads (pid, tid) with their
 * queued open events, the OS threads' open events, and each event placed
 * under its parent (family, chain, dispatch op, serialisation candidate).
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

/* The thread (pid, tid), added when new. */
struct othr *
othr(int64_t pid, int64_t tid)
{
	struct othr *t;

	if (P.lastth < P.nth && P.th[P.lastth].tid == tid && P.th[P.lastth].pid == pid)
		return &P.th[P.lastth];
	for (size_t i = 0; i < P.nth; i++)
		if (P.th[i].tid == tid && P.th[i].pid == pid)
			return &P.th[P.lastth = i];
	P.th = xgrow(P.th, P.nth, &P.capth, 16, sizeof *P.th);
	t = &P.th[P.lastth = P.nth++];
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	return t;
}

/* The OS thread tid's open events, added when new. */
static struct cthr *
cthr(int64_t tid)
{
	struct cthr *t;

	if (P.lastct < P.nct && P.ct[P.lastct].tid == tid)
		return &P.ct[P.lastct];
	for (size_t i = 0; i < P.nct; i++)
		if (P.ct[i].tid == tid)
			return &P.ct[P.lastct = i];
	if (P.nct == P.capct) {
		P.capct = P.capct ? 2 * P.capct : 16;
		P.ct = xreallocarray(P.ct, P.capct, sizeof *P.ct);
		memset(P.ct + P.nct, 0, (P.capct - P.nct) * sizeof *P.ct);
	}
	t = &P.ct[P.lastct = P.nct++];
	t->tid = tid;
	t->n = 0;
	return t;
}

/* Append a name; a full chain keeps its outermost name and the deepest. */
static void
chainadd(struct chain *c, uint32_t id)
{
	if (c->n == CHN) {
		memmove(c->id + 1, c->id + 2, (CHN - 2) * sizeof *c->id);
		c->n--;
	}
	c->id[c->n++] = id;
}

/*
 * h's Python user frame (struct qev): itself when it is one (a
 * python_function naming a user source line) right under another or at
 * the root; else its parent's, h the outermost call under it when the
 * parent is that frame.  A user frame under a framework call stays in
 * that call, so the calls counted by frame never nest.
 */
static void
pyframe(struct qev *h, const struct cent *par, int python)
{
	if (par)
		h->fch = par->fch;
	else
		h->fch.n = 0;
	if (python && (I.v[h->name].cls & 128) && (par == NULL || par->pyc == NOID)) {
		h->pyf = h->name;
		h->pyc = NOID;
		h->pyent = 0;
		chainadd(&h->fch, h->name);
		return;
	}
	h->pyf = par ? par->pyf : NOID;
	h->pyent = par == NULL || par->pyc == NOID;
	h->pyc = h->pyent ? h->name : par->pyc;
}

/* A long sync's outermost event starts a serialisation candidate. */
static int32_t
serialnew(const struct qev *h)
{
	struct serial *c;

	P.sr = xgrow(P.sr, P.nsr, &P.capsr, 16, sizeof *P.sr);
	c = &P.sr[P.nsr];
	c->s = h->s;
	c->e = h->e;
	c->bs = h->s;
	c->blocked = h->e - h->s;
	c->frame = h->cframe;
	c->fam = h->fam;
	c->ch = h->ch;
	c->fch = h->fch;
	c->step = NOID;
	c->point = 2 * idleov(h->s, h->e) <= h->e - h->s;
	return (int32_t)P.nsr++;
}

/*
 * Place h in its OS thread's call tree.  Its parent is the latest-
 * starting open event that wholly contains it: events that end by its
 * start, or before its end, contain neither it nor anything after it
 * that a later-starting event would not contain too.
 */
void
chainof(struct qev *h, int python)
{
	struct cthr *t = cthr(h->tid);
	struct cent *par, *c;
	int32_t cand;
	int isop = 0;

	while (t->n > 0 && (t->v[t->n - 1].e <= h->s || t->v[t->n - 1].e < h->e))
		t->n--;
	par = t->n > 0 ? &t->v[t->n - 1] : NULL;
	h->ser = ++P.serialno;
	h->pser = par ? par->ser : 0;
	h->depth = par ? par->depth + 1 : 0;
	/* A copy's evidence under a pending copy call makes it a copy. */
	if (par && par->troot && (h->cls & 32)) {
		size_t r = 0;

		while (t->v[r].ser != par->troot)
			r++;
		copyres(t->v[r].qi, famh2d);
	}
	h->troot = 0;
	h->own = (h->cls & 16) ? (unsigned char)nfam : h->fam;
	if (par && famhold[par->fam] && !par->troot)
		h->fam = par->fam;
	else if (par && par->troot) {
		h->troot = par->troot;
		h->pqi = par->qi;
		h->fam = par->fam < h->own ? par->fam : h->own;
	} else if ((h->cls & 16) && famh2d >= 0 && !(par && par->fam <= famh2d)) {
		/* pending: a copy until copyres says otherwise */
		h->troot = h->ser;
		h->own = par ? par->fam : (unsigned char)nfam;
		h->fam = (unsigned char)famh2d;
	} else if (par && par->fam < h->fam)
		h->fam = par->fam;
	if (par)
		h->ch = par->ch;
	else
		h->ch.n = 0;
	chainadd(&h->ch, h->name);
	h->cframe = h->frame != NOID ? h->frame : par ? par->frame : NOID;
	pyframe(h, par, python);
	h->op = par ? par->op : NOID;
	if (h->op == NOID && (I.v[h->name].cls & 8)) {
		h->op = h->name;
		isop = 1;
	}
	/* Dispatch time is named by the outermost op (children included). */
	h->isop = isop;
	h->tally = h->fam == famlaunch && isop;
	cand = par ? par->cand : -1;
	if (h->troot != h->ser && famsync[h->fam] && !(par && famsync[par->fam]) &&
	    h->e - h->s >= serialmin)
		cand = serialnew(h);
	else if (cand >= 0 && (h->cls & 1) && 2 * (h->e - h->s) >= P.sr[cand].e - P.sr[cand].s) {
		/* a deeper synchronising call: how long the host was blocked */
		P.sr[cand].bs = h->s;
		P.sr[cand].blocked = h->e - h->s;
		P.sr[cand].ch = h->ch;
	}
	h->serial = cand >= 0 && P.sr[cand].point;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
		par = t->n > 0 ? &t->v[t->n - 1] : NULL;
	}
	c = &t->v[t->n++];
	c->s = h->s;
	c->e = h->e;
	c->ser = h->ser;
	c->frame = h->cframe;
	c->op = h->op;
	c->depth = h->depth;
	c->cand = cand;
	c->serial = h->serial;
	c->fam = h->fam;
	c->own = h->own;
	c->cls = h->cls;
	c->troot = h->troot;
	c->qi = P.qtail;
	c->pyf = h->pyf;
	c->pyc = h->pyc;
	c->fch = h->fch;
	if (!python)
		c->ch = h->ch;
	else if (par)
		c->ch = par->ch;
	else
		c->ch.n = 0;
}

/*
 * The pending copy call queued at qi is a copy (fam h2d_copy: a call
 * under it copies or synchronises) or dispatch work (the dispatch
 * family: it ended without one).  Its queued calls and its thread's
 * open ones take their families from it; a copy of serial_min_us starts
 * a serialisation candidate, deepened as chainof would have; one that
 * is no copy is no sync marker either.
 */
void
copyres(uint64_t qi, int fam)
{
	struct qev *r = qat(qi), *q;
	struct cthr *t = cthr(r->tid);
	uint64_t root = r->ser;
	int32_t cand = -1;

	r->fam = (unsigned char)(fam < r->own ? fam : r->own);
	if (famsync[r->fam] && !famsync[r->own] && r->e - r->s >= serialmin)
		cand = serialnew(r);
	for (uint64_t i = qi; i < P.qtail; i++) {
		q = qat(i);
		if (q->troot != root)
			continue;
		if (i != qi)
			q->fam = q->own < qat(q->pqi)->fam ? q->own : qat(q->pqi)->fam;
		if (fam != famh2d && (q->cls & 16))
			q->cls &= ~1;
		q->tally = q->fam == famlaunch && q->isop;
		if (cand >= 0)
			q->serial = P.sr[cand].point;
		q->troot = 0;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct cent *c = &t->v[i];

		if (c->troot != root)
			continue;
		c->fam = c->ser == root ? r->fam : c->own < t->v[i - 1].fam ? c->own : t->v[i - 1].fam;
		if (fam != famh2d && (c->cls & 16))
			c->cls &= ~1;
		if (cand >= 0) {
			struct serial *sr = &P.sr[cand];

			c->cand = cand;
			c->serial = sr->point;
			if (c->ser != root && (c->cls & 1) && 2 * (c->e - c->s) >= sr->e - sr->s) {
				sr->bs = c->s;
				sr->blocked = c->e - c->s;
				sr->ch = c->ch;
			}
		}
		c->troot = 0;
	}
}
