/*
 * asc-attrib: the step context and the bubble windows: the step,
 * marker, device_task and bubble records read, the windows sorted and
 * opened in start order, and the lookups the sweep and the stakes make
 * in them (context spans, device-idle time, the loop frame around a
 * stretch).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "rules.h"
#include "util.h"

#include "attrib.h"

/* The step (device, step_id) by raw values, added when new. */
static uint32_t
stepof(const struct rfield *dev, const struct rfield *sid, const struct rfield *gid,
    int real)
{
	const char *dv = dev ? dev->v : "null", *gv = gid ? gid->v : "null";
	size_t dn = dev ? dev->vlen : 4, gn = gid ? gid->vlen : 4;
	struct step *s;

	for (size_t i = P.nst; i-- > 0;) {
		s = &P.st[i];
		if (s->devn == dn && s->sidn == sid->vlen &&
		    memcmp(P.arena.p + s->dev, dv, dn) == 0 &&
		    memcmp(P.arena.p + s->sid, sid->v, sid->vlen) == 0) {
			s->real |= real;
			return (uint32_t)i;
		}
	}
	P.st = xgrow(P.st, P.nst, &P.capst, 64, sizeof *P.st);
	s = &P.st[P.nst];
	memset(s, 0, sizeof *s);
	s->real = real;
	s->dev = P.arena.len;
	buf_add(&P.arena, dv, dn);
	s->devn = (uint32_t)dn;
	s->sid = P.arena.len;
	buf_add(&P.arena, sid->v, sid->vlen);
	s->sidn = (uint32_t)sid->vlen;
	s->gid = P.arena.len;
	buf_add(&P.arena, gv, gn);
	s->gidn = (uint32_t)gn;
	return (uint32_t)P.nst++;
}

void
spanadd(struct span **v, size_t *n, size_t *cap, int64_t s, int64_t e, int64_t tid,
    uint32_t step)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[*n].s = s;
	(*v)[*n].e = e;
	(*v)[*n].tid = tid;
	(*v)[*n].step = step;
	(*n)++;
}

/* Intervals by start, then end (spans and device tasks). */
static int
secmp(int64_t xs, int64_t xe, int64_t ys, int64_t ye)
{
	if (xs != ys)
		return xs < ys ? -1 : 1;
	return (xe > ye) - (xe < ye);
}

int
spancmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return secmp(x->s, x->e, y->s, y->e);
}

/* The first span starting at or after s. */
size_t
spanfrom(const struct span *v, size_t n, int64_t s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (v[m].s < s)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Does [s, e] hold a whole span (of thread tid, when the span has one)? */
int
holds(const struct span *v, size_t n, int64_t s, int64_t e, int64_t tid)
{
	for (size_t i = spanfrom(v, n, s); i < n && v[i].s <= e; i++)
		if (v[i].e <= e && (v[i].tid < 0 || v[i].tid == tid))
			return 1;
	return 0;
}

int
steprec(struct rin *r)
{
	const struct rfield *sid;
	int64_t s, e;
	uint32_t st;

	if (rin_scan(r) != 0)
		return -1;
	if ((sid = rin_get(r, "step_id")) == NULL || sid->v[0] != '"') {
		rin_error(r, "step has no string \"step_id\"");
		return -1;
	}
	st = stepof(rin_get(r, "device"), sid, rin_get(r, "group_id"), 1);
	/* A step without a window (an older stream) only lacks the context test. */
	if (rin_i64(r, "start_ns", &s) == 0 && rin_i64(r, "end_ns", &e) == 0 && e >= s) {
		spanadd(&P.sw, &P.nsw, &P.capsw, s, e, -1, st);
		P.st[st].s0 = s;
	}
	return 0;
}

/* A step marker: the events around it are the step's context. */
int
markrec(struct rin *r)
{
	int64_t s, e, tid;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) == 0 && rin_i64(r, "end_ns", &e) == 0 && e >= s) {
		if (rin_i64(r, "tid", &tid) != 0)
			tid = 0;
		spanadd(&P.mk, &P.nmk, &P.capmk, s, e, tid, NOID);
	}
	return 0;
}

/* A "device_task" record (asc-ingest): kept for the windows it lies in. */
int
dtaskrec(struct rin *r)
{
	const struct rfield *nm, *tt;
	struct dtask *d;
	int64_t s, e, st;

	if (rin_scan(r) != 0)
		return -1;
	if ((nm = rin_get(r, "name")) == NULL || nm->v[0] != '"' ||
	    rin_i64(r, "start_ns", &s) != 0 || rin_i64(r, "end_ns", &e) != 0 || e < s) {
		rin_error(r, "device_task has no string \"name\" or no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	if (P.ndt == P.capdt) {
		P.capdt = P.capdt ? 2 * P.capdt : 64;
		P.dt = xreallocarray(P.dt, P.capdt, sizeof *P.dt);
		P.dtmax = xreallocarray(P.dtmax, P.capdt, sizeof *P.dtmax);
	}
	d = &P.dt[P.ndt++];
	d->s = s;
	d->e = e;
	d->stream = rin_i64(r, "stream", &st) == 0 ? st : -1;
	d->name = intern(nm->v, nm->vlen);
	tt = rin_get(r, "task_type");
	d->tt = tt && tt->v[0] == '"' ? intern(tt->v, tt->vlen) : NOID;
	return 0;
}

static int
dtcmp(const void *a, const void *b)
{
	const struct dtask *x = a, *y = b;

	return secmp(x->s, x->e, y->s, y->e);
}

/* Sort the device tasks and make their running latest end, once. */
void
dtprep(void)
{
	sortv(P.dt, P.ndt, sizeof *P.dt, dtcmp);
	for (size_t i = 0; i < P.ndt; i++)
		P.dtmax[i] = i && P.dtmax[i - 1] > P.dt[i].e ? P.dtmax[i - 1] : P.dt[i].e;
}

/* Does the raw tags array hold the quoted tag? */
static int
hastag(const struct rfield *f, const char *q)
{
	size_t n = strlen(q);

	for (size_t i = 0; i + n <= f->vlen; i++)
		if (memcmp(f->v + i, q, n) == 0)
			return 1;
	return 0;
}

int
bubblerec(struct rin *r)
{
	const struct rfield *sid, *sc, *tags, *bid;
	struct win *w;
	int64_t s, e;
	int sig, scope;

	if (P.sect.sec == SR_HOST) {
		rin_error(r, "bubble after the profile's \"host\" records");
		return -1;
	}
	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) != 0 || rin_i64(r, "end_ns", &e) != 0 || e < s) {
		rin_error(r, "bubble has no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	sid = rin_get(r, "step_id");
	bid = rin_get(r, "bubble_id");
	if (sid == NULL || sid->v[0] != '"' || bid == NULL || bid->v[0] != '"') {
		rin_error(r, "bubble has no string \"step_id\" and \"bubble_id\"");
		return -1;
	}
	sc = rin_get(r, "scope");
	if (sc == NULL || rf_str(sc, &tmp) != 0)
		tmp.len = 0;
	for (scope = 0; scope < NSCOPE; scope++)
		if (tmp.len && strcmp(tmp.p, scopename[scope]) == 0)
			break;
	if (scope == NSCOPE) {
		rin_error(r, "bubble \"scope\" is not prelaunch, "
		    "step_internal, tail or global");
		return -1;
	}
	if (rf_bool(rin_get(r, "significant"), &sig) != 0)
		sig = e - s >= rules_ns("bubbles.min_bubble_us", 1e3);
	P.w = xgrow(P.w, P.nw, &P.capw, 64, sizeof *P.w);
	w = &P.w[P.nw];
	memset(w, 0, sizeof *w);
	w->s = s;
	w->e = e;
	w->sig = (unsigned char)sig;
	w->scope = (unsigned char)scope;
	tags = rin_get(r, "tags");
	w->partial = tags && hastag(tags, "\"PARTIAL_CAPTURE_BOUNDARY\"");
	w->step = stepof(rin_get(r, "device"), sid, rin_get(r, "group_id"),
	    scope != S_GLOBAL);
	w->bid = P.arena.len;
	buf_add(&P.arena, bid->v, bid->vlen);
	w->bidn = (uint32_t)bid->vlen;
	w->before.name = NOID;
	P.nw++;
	return 0;
}

static int
bystart(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (P.w[i].s != P.w[j].s)
		return P.w[i].s < P.w[j].s ? -1 : 1;
	return i < j ? -1 : i > j;
}

void
sortwins(void)
{
	if (P.sorted)
		return;
	P.ord = xreallocarray(P.ord, P.nw + 1, sizeof *P.ord);
	for (size_t i = 0; i < P.nw; i++)
		P.ord[i] = i;
	sortv(P.ord, P.nw, sizeof *P.ord, bystart);
	P.sorted = 1;
}

/*
 * Windows starting at or before t (all: every window) become active.
 * Every event seen so far started before them: the latest-ending one is
 * the op before a window unless it overlaps it.
 */
void
openupto(int64_t t, int all)
{
	while (P.nopen < P.nw && (all || P.w[P.ord[P.nopen]].s <= t)) {
		struct win *w = &P.w[P.ord[P.nopen++]];

		if (P.last.name != NOID && P.last.e <= w->s)
			w->before = P.last;
		P.act = xgrow(P.act, P.nact, &P.capact, 16, sizeof *P.act);
		P.act[P.nact++] = (size_t)(w - P.w);
	}
}

/* How many windows start before t: P.ord[0..n) (sorted). */
size_t
winsbefore(int64_t t)
{
	size_t lo = 0, hi = P.nw;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.w[P.ord[m]].s < t)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Device-idle time in [s, e): the step windows' gaps (global ones repeat them). */
int64_t
idleov(int64_t s, int64_t e)
{
	size_t lo = winsbefore(s);
	int64_t t = 0;

	/* Step windows are disjoint: only the last one starting before s reaches it. */
	while (lo > 0 && P.w[P.ord[--lo]].scope == S_GLOBAL)
		;
	for (size_t i = lo; i < P.nw && P.w[P.ord[i]].s < e; i++) {
		const struct win *w = &P.w[P.ord[i]];
		int64_t a = w->s > s ? w->s : s, b = w->e < e ? w->e : e;

		if (w->scope != S_GLOBAL && b > a)
			t += b - a;
	}
	return t;
}

/*
 * The innermost loop frame holding [s, e) whole (the latest-starting),
 * NOID when none: the stretch is then untraced.  Loop frames are few
 * (a handful a step), searched once per profile.
 */
uint32_t
inside(int64_t s, int64_t e)
{
	uint32_t id = NOID;
	int64_t best = INT64_MIN;

	for (size_t i = 0; i < P.ncx; i++)
		if (P.cx[i].s <= s && P.cx[i].e >= e && P.cx[i].s >= best) {
			best = P.cx[i].s;
			id = P.cx[i].step;
		}
	return id;
}

/*
 * The innermost loop frame of user code (a Python frame naming a user
 * source line) on thread tid holding [s, e) whole, NOID when none: the
 * caller of a call the call tree places under no frame.
 */
uint32_t
userctx(int64_t tid, int64_t s, int64_t e)
{
	uint32_t id = NOID;
	int64_t best = INT64_MIN;

	for (size_t i = 0; i < P.ncx; i++)
		if (P.cx[i].tid == tid && P.cx[i].s <= s && P.cx[i].e >= e &&
		    P.cx[i].s >= best && P.cx[i].step != NOID && (I.v[P.cx[i].step].cls & 128)) {
			best = P.cx[i].s;
			id = P.cx[i].step;
		}
	return id;
}
