/*
 * asc-attrib: writing the "attribution" record of a window and the
 * fields the step and summary records share with it (causes, coverage,
 * chains, evidence, device tasks, the longest untraced stretch).
 */
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

/*
 * The device tasks in window w: their union ("device_task_ns") and the
 * five that overlap it most, longest first.  Only tasks starting before
 * the window's end whose run of latest ends still reaches its start are
 * looked at.
 */
static void
dtaskout(const struct win *w)
{
	size_t lo = 0, hi = P.ndt, top[EVN];
	int64_t ov[EVN], tot = 0, cs = 0, ce = 0;
	int n = 0, have = 0;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.dt[m].s < w->e)
			lo = m + 1;
		else
			hi = m;
	}
	/* [0, lo) start before the window's end; walk back while one can reach it */
	size_t first = lo;
	while (first > 0 && P.dtmax[first - 1] > w->s)
		first--;
	for (size_t i = first; i < lo; i++) {
		const struct dtask *d = &P.dt[i];
		int64_t a = d->s > w->s ? d->s : w->s, b = d->e < w->e ? d->e : w->e;
		int j;

		if (b <= a)
			continue;
		/* union: starts come in order */
		if (!have || a > ce) {
			tot += have ? ce - cs : 0;
			cs = a;
			ce = b;
			have = 1;
		} else if (b > ce)
			ce = b;
		if (n < EVN)
			n++;
		else if (b - a <= ov[EVN - 1])
			continue;
		for (j = n - 1; j > 0 && ov[j - 1] < b - a; j--) {
			ov[j] = ov[j - 1];
			top[j] = top[j - 1];
		}
		ov[j] = b - a;
		top[j] = i;
	}
	tot += have ? ce - cs : 0;
	out_i64(&ob, "device_task_ns", tot);
	out_key(&ob, "device_tasks");
	buf_addc(&ob, '[');
	for (int i = 0; i < n; i++) {
		const struct dtask *d = &P.dt[top[i]];

		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(d->name);
		out_key(&ob, "task_type");
		putistr(d->tt);
		if (d->stream >= 0)
			out_i64(&ob, "stream", d->stream);
		else
			out_null(&ob, "stream");
		out_i64(&ob, "start_ns", d->s);
		out_i64(&ob, "offset_ns", d->s - P.st[w->step].s0);
		out_i64(&ob, "dur_ns", d->e - d->s);
		out_i64(&ob, "overlap_ns", ov[i]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

void
share(const char *k, int64_t num, int64_t den)
{
	if (den > 0)
		out_ratio(&ob, k, num, den);
	else
		out_null(&ob, k);
}

static void
evlist(const struct top *t)
{
	buf_addc(&ob, '[');
	for (int i = 0; t && i < t->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(t->v[i].name);
		out_i64(&ob, "tid", t->v[i].tid);
		out_i64(&ob, "overlap_ns", t->v[i].ov);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
hopout(const struct hop *h, const char *rel)
{
	out_key(&ob, "top_host_op");
	if (h->name == NOID) {
		buf_adds(&ob, "null");
		return;
	}
	buf_adds(&ob, "{\"name\":");
	putistr(h->name);
	out_i64(&ob, "tid", h->tid);
	out_i64(&ob, "start_ns", h->s);
	out_i64(&ob, "end_ns", h->e);
	out_i64(&ob, "overlap_ns", h->ov);
	out_cstr(&ob, "relation", rel);
	out_key(&ob, "frame");
	putistr(h->frame);
	buf_addc(&ob, '}');
}

void
chainout(const struct chain *c)
{
	buf_addc(&ob, '[');
	for (int i = 0; i < c->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		putistr(c->id[i]);
	}
	buf_addc(&ob, ']');
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A copy chain's device side: its deepest event's duration (the
 * synchronising call, or at Level0 aten::copy_) and the time from that
 * event's start to the start of the latest device copy starting inside
 * it (null: none).  A long time before the transfer starts is host work
 * (staging pageable memory), not the transfer.
 */
static void
copystart(const struct fbest *b)
{
	size_t lo = 0, hi;

	out_i64(&ob, "call_ns", b->e - b->s);
	if (P.ncp == 0) {
		out_key(&ob, "copy_start_ns");
		buf_adds(&ob, "null");
		return;
	}
	if (!P.cpsorted) {
		sortv(P.cp, P.ncp, sizeof *P.cp, i64cmp);
		P.cpsorted = 1;
	}
	/* the first copy starting at or after the event's end */
	hi = P.ncp;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.cp[m] < b->e)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == 0 || P.cp[lo - 1] < b->s) {
		out_key(&ob, "copy_start_ns");
		buf_adds(&ob, "null");
		return;
	}
	out_i64(&ob, "copy_start_ns", P.cp[lo - 1] - b->s);
}

/*
 * The family's time in calls with no frame of their own, by enclosing
 * Python user frame and outermost call, and in those frames' own lines
 * (struct pyg), most first; only when a Python frame holds some of it.
 */
static void
byframe(const struct fbest *b)
{
	int ord[PGN], n = 0, framed = 0;
	int64_t ns[PGN];

	for (int i = 0; i < b->npg; i++) {
		ns[i] = run_len(&b->pg[i].gl) - run_len(&b->pg[i].l);
		if (ns[i] <= 0)
			continue;
		framed |= b->pg[i].f != NOID;
		int j = n++;

		for (; j > 0 && ns[ord[j - 1]] < ns[i]; j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	/* no Python frame places any of it: the chain says as much */
	if (!framed)
		return;
	out_key(&ob, "by_frame");
	buf_addc(&ob, '[');
	for (int k = 0; k < n; k++) {
		const struct pyg *g = &b->pg[ord[k]];

		buf_adds(&ob, k ? ",{\"frame\":" : "{\"frame\":");
		putistr(g->f);
		out_key(&ob, "call");
		putistr(g->c);
		out_i64(&ob, "ns", ns[ord[k]]);
		if (g->own)
			buf_adds(&ob, ",\"own\":true");
		/* no frame in the call tree: the loop frame that calls it */
		if (g->f == NOID && !g->over) {
			out_key(&ob, "called_by");
			putistr(userctx(g->tid, g->s, g->e));
		}
		if (g->c != NOID && (I.v[g->c].cls & 256))
			buf_adds(&ob, ",\"profiler\":true");
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* Each family's chain in the window, the family with most time first. */
static void
chains(const struct wst *st, const struct fig *f, int hosts)
{
	int ord[MAXFAM + 1], n = 0;

	out_key(&ob, "host_chains");
	if (!hosts) {
		buf_adds(&ob, "null");
		return;
	}
	for (int i = 0; st && i <= nfam; i++)
		if (f->cause[i] > 0 && st->fb[i]) {
			int j = n++;

			for (; j > 0 && f->cause[ord[j - 1]] < f->cause[i]; j--)
				ord[j] = ord[j - 1];
			ord[j] = i;
		}
	buf_addc(&ob, '[');
	for (int k = 0; k < n; k++) {
		const struct fbest *b = st->fb[ord[k]];

		if (k)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"family\":");
		out_esc(&ob, famname[ord[k]], strlen(famname[ord[k]]));
		out_i64(&ob, "ns", f->cause[ord[k]]);
		out_key(&ob, "chain");
		chainout(&b->ch);
		out_key(&ob, "frame");
		putistr(b->frame);
		out_i64(&ob, "overlap_ns", b->ov);
		out_i64(&ob, "tree_ns", b->treeov);
		if (b->npg > 0)
			byframe(b);
		if (ord[k] == famh2d) {
			copystart(b);
			out_key(&ob, "to_device");
			buf_adds(&ob, st->todev ? "true" : "false");
		}
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* {family: ns} in priority order; null when the profile has no host events. */
void
causes(const char *k, const int64_t *ns, int hosts)
{
	out_key(&ob, k);
	if (!hosts) {
		buf_adds(&ob, "null");
		return;
	}
	buf_addc(&ob, '{');
	for (int i = 0; i <= nfam; i++) {
		out_member(&ob, (size_t)i, famname[i]);
		out_int(&ob, ns[i]);
	}
	buf_addc(&ob, '}');
}

void
attribution(const struct win *w, const struct fig *f, int hosts, const struct lab *lb)
{
	const struct step *s = &P.st[w->step];
	const struct wst *st = w->st;

	out_begin(&ob, "attribution");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_raw(&ob, "device", P.arena.p + s->dev, s->devn);
	out_raw(&ob, "step_id", P.arena.p + s->sid, s->sidn);
	out_raw(&ob, "group_id", P.arena.p + s->gid, s->gidn);
	out_raw(&ob, "bubble_id", P.arena.p + w->bid, w->bidn);
	out_cstr(&ob, "scope", scopename[w->scope]);
	out_i64(&ob, "start_ns", w->s);
	out_i64(&ob, "end_ns", w->e);
	out_i64(&ob, "dur_ns", f->len);
	out_bool(&ob, "significant", w->sig);
	out_bool(&ob, "partial_capture_boundary", w->partial);
	out_bool(&ob, "capture_covered", f->covered);
	out_bool(&ob, "host_evidence", hosts);
	if (hosts) {
		out_i64(&ob, "host_visible_ns", f->cov);
		out_ratio(&ob, "host_visible_coverage_ratio", f->cov, f->len);
		out_i64(&ob, "sync_marker_ns", f->sync);
		out_ratio(&ob, "sync_marker_overlap_ratio", f->sync, f->len);
		out_i64(&ob, "comm_marker_ns", f->comm);
		out_ratio(&ob, "comm_marker_overlap_ratio", f->comm, f->len);
		out_i64(&ob, "host_threads", f->nth);
		out_i64(&ob, "thread_busy_ns", f->busy);
		out_i64(&ob, "host_any_ns", f->anyd);
		out_i64(&ob, "frame_self_ns", f->self);
		out_key(&ob, "frame_self");
		if (f->self > 0)
			putistr(st->cxname);
		else
			buf_adds(&ob, "null");
		out_i64(&ob, "untraced_ns", f->len - f->anyd - f->self);
		out_i64(&ob, "serial_wait_ns", f->wait);
	} else {
		static const char *nul[] = { "host_visible_ns",
		    "host_visible_coverage_ratio", "sync_marker_ns",
		    "sync_marker_overlap_ratio", "comm_marker_ns",
		    "comm_marker_overlap_ratio", "host_threads", "thread_busy_ns",
		    "host_any_ns", "frame_self_ns", "frame_self", "untraced_ns",
		    "serial_wait_ns" };

		for (size_t i = 0; i < sizeof nul / sizeof *nul; i++)
			out_null(&ob, nul[i]);
	}
	if (f->cov > 0)
		out_ratio(&ob, "host_parallelism", f->busy, f->cov);
	else
		out_null(&ob, "host_parallelism");
	causes("host_causes", f->cause, hosts);
	out_cstr(&ob, "host_cause_top", f->top >= 0 ? famname[f->top] : NULL);
	chains(st, f, hosts);
	if (hosts)
		rootsout(w);
	out_key(&ob, "labels");
	buf_addc(&ob, '[');
	for (int i = 0; i < lb->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, lname[lb->l[i]], strlen(lname[lb->l[i]]));
	}
	buf_addc(&ob, ']');
	out_cstr(&ob, "reason", lb->reason);
	out_key(&ob, "evidence");
	buf_addc(&ob, '{');
	for (int i = 0; i < lb->n; i++) {
		out_member(&ob, (size_t)i, lname[lb->l[i]]);
		evlist(st == NULL ? NULL : lb->l[i] == L_SYNC ? st->tsync :
		    lb->l[i] == L_COMM ? st->tcomm : &st->tany);
	}
	buf_addc(&ob, '}');
	if (st && st->best.name != NOID)
		hopout(&st->best, "overlaps");
	else
		hopout(&w->before, "before");
	dtaskout(w);
	rec_put(&ob, stdout);
}

/*
 * Time in windows by host coverage: covered by a host event of any depth
 * below the loop's frames (of it, the host blocked in a serialisation
 * point), by a loop frame alone (its own code, named by selfname), or by
 * none.  Not measurable without host events.
 */
void
coverage(int64_t covered, int64_t self, uint32_t selfname, int64_t untraced,
    int64_t wait, int64_t sig, int hosts)
{
	static const char *nul[] = { "host_covered_ns", "host_covered_ms",
	    "host_covered_share", "frame_self_ns", "frame_self_ms",
	    "frame_self_share", "frame_self", "untraced_ns", "untraced_ms",
	    "untraced_share", "serial_wait_ns", "serial_wait_ms" };

	if (!hosts) {
		for (size_t i = 0; i < sizeof nul / sizeof *nul; i++)
			out_null(&ob, nul[i]);
		return;
	}
	out_nsms(&ob, "host_covered", covered);
	share("host_covered_share", covered, sig);
	out_nsms(&ob, "frame_self", self);
	share("frame_self_share", self, sig);
	out_key(&ob, "frame_self");
	putistr(self > 0 ? selfname : NOID);
	out_nsms(&ob, "untraced", untraced);
	share("untraced_share", untraced, sig);
	out_nsms(&ob, "serial_wait", wait);
}

void
gapout(const struct gap *g, const struct win *w)
{
	out_key(&ob, "untraced_longest");
	if (w == NULL) {
		buf_adds(&ob, "null");
		return;
	}
	buf_adds(&ob, "{\"bubble_id\":");
	buf_add(&ob, P.arena.p + w->bid, w->bidn);
	out_i64(&ob, "start_ns", g->s);
	out_i64(&ob, "end_ns", g->e);
	out_i64(&ob, "dur_ns", g->e - g->s);
	out_i64(&ob, "offset_ns", g->s - P.st[w->step].s0);
	out_key(&ob, "before");
	putistr(g->before);
	out_key(&ob, "after");
	putistr(g->after);
	out_key(&ob, "inside");
	putistr(inside(g->s, g->e));
	buf_addc(&ob, '}');
}
