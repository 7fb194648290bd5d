/*
 * asc-cluster's late rank: how its delay at its first late collective
 * splits against the other ranks (step start, preparing, in the step),
 * and what the ranks before it wait for it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "rules.h"
#include "util.h"

#include "cluster.h"

/* A step's value of d from its own source; preparing from
 * step_trace_time.csv when the kernels give none (as rmean does). */
int64_t
stepv(const struct rstep *s, enum dim d)
{
	int64_t v = s->from_kernels ? s->v[d] : s->st[d];

	return v == UNSET && d == D_PREP ? s->st[d] : v;
}

/* "2.1 ms later" / "540 µs shorter": a signed difference in words. */
const char *
moreless(int64_t d, const char *more, const char *less, char *t)
{
	char h[64];

	snprintf(t, 64, "%s %s", hd(d < 0 ? -d : d, h), d < 0 ? less : more);
	return t;
}

/*
 * What the late rank's preparing holds more host time in than the
 * others' same step (asc-attrib's prelaunch windows): the families and
 * the untraced host time that grew, largest first.  Empty when a rank
 * has no such record.
 */
static void
prepdiff(const struct job *j, int ri, const struct rstep *ls, struct buf *b)
{
	int64_t *o = xcalloc((size_t)j->nr + 1, sizeof *o);
	int64_t d[33];
	const char *nm[33], *head[33];
	int nd = 0, n;

	if (ls->untraced == UNSET)
		goto out;
	for (int f = -1; f < ls->nhc && nd < 32; f++) {
		n = 0;
		for (int k = 0; k < j->nr; k++) {
			const struct rank *q = &ranks[j->r[k]];

			if (j->r[k] == ri)
				continue;
			for (int s = 0; s < q->nstep; s++) {
				const struct rstep *qs = &q->steps[s];
				int64_t v = 0;

				if (strcmp(qs->step, ls->step) != 0)
					continue;
				if (qs->untraced == UNSET)
					goto out;
				if (f < 0)
					v = qs->untraced;
				else
					for (int h = 0; h < qs->nhc; h++)
						if (strcmp(qs->hc[h].fam, ls->hc[f].fam) == 0)
							v = qs->hc[h].ns;
				o[n++] = v;
			}
		}
		if (n == 0)
			goto out;
		d[nd] = (f < 0 ? ls->untraced : ls->hc[f].ns) - median(o, n);
		nm[nd] = f < 0 ? "untraced host time" : ls->hc[f].fam;
		head[nd] = f < 0 ? NULL : ls->hc[f].head;
		if (d[nd] > 0)
			nd++;
	}
	/* largest first; a few entries */
	for (int x = 1; x < nd; x++)
		for (int y = x; y > 0 && d[y - 1] < d[y]; y--) {
			int64_t t = d[y];
			const char *a = nm[y], *c = head[y];

			d[y] = d[y - 1], nm[y] = nm[y - 1], head[y] = head[y - 1];
			d[y - 1] = t, nm[y - 1] = a, head[y - 1] = c;
		}
	for (int x = 0; x < nd && x < 3; x++) {
		char h[64];

		bprintf(b, "%s%s +%s%s%s%s", x ? ", " : "", nm[x], hd(d[x], h),
		    head[x] ? " (" : "", head[x] ? head[x] : "", head[x] ? ")" : "");
	}
out:
	free(o);
}

/* The end of rank ri's last comm op of me's step that ends before me
 * starts (communication.json's start + elapse); NULL when none. */
static const struct cinst *
prevcomm(int ri, const struct cinst *me, int64_t *pend)
{
	const struct cinst *prev = NULL;

	*pend = UNSET;
	if (me == NULL || me->start_abs == UNSET)
		return NULL;
	for (size_t c = 0; c < ncis; c++) {
		const struct cinst *x = &cis[c];
		int64_t e;

		if (x->rank != ri || x == me || strcmp(x->step, me->step) != 0 ||
		    x->start_abs == UNSET || x->elapse_ms < 0)
			continue;
		e = x->start_abs + (int64_t)(x->elapse_ms * 1e6);
		if (e <= me->start_abs && (*pend == UNSET || e > *pend))
			*pend = e, prev = x;
	}
	return prev;
}

/* Rank ri's device idle (its bubbles) inside [a, z). */
static int64_t
idlein(int ri, int64_t a0, int64_t z0)
{
	int64_t idle = 0;

	for (size_t b = 0; b < nid; b++) {
		int64_t a, z;

		if (ids[b].rank != ri)
			continue;
		a = ids[b].start > a0 ? ids[b].start : a0;
		z = ids[b].end < z0 ? ids[b].end : z0;
		if (z > a)
			idle += z - a;
	}
	return idle;
}

/* The same stretch in its rank report's pipeline stages.  A report
 * that ends its last micro-batch at a once-per-step part measures a
 * shorter stretch than this one (to the collective): say which. */
static void
ppsidle(int ri, const struct cinst *prev, const struct cinst *me, struct buf *out)
{
	char h[64], h2[64], h3[64];

	for (size_t a = 0; a < npps; a++) {
		const struct ppst *p = &pps[a];

		if (p->rank != ri || p->lastidle == UNSET || !p->lastop || !p->nextop ||
		    strcmp(p->lastop, prev->op) != 0 || strcmp(p->nextop, me->op) != 0)
			continue;
		if (p->mbpart)
			bprintf(out, "; its rank report, which counts every gap, gives %s of idle in the %s from %s to its %s part, a shorter stretch: it leaves out that part's %s before %s, once-per-step work, not a micro-batch's",
			    hd(p->mbidle, h), hd(p->mbafter, h2), prev->op, p->mbpart, hd(p->mbcut, h3), me->op);
		else
			bprintf(out, "; its rank report, which counts every gap, gives %s there", hd(p->lastidle, h));
		break;
	}
}

/*
 * Where the late rank idles before its late collective: the device idle
 * (bubbles) between the end of its previous comm op of the step and the
 * collective's start.  Text into out; 0 when the records do not tell.
 */
int
idlebefore(int ri, const struct cinst *me, struct buf *out)
{
	const struct cinst *prev;
	int64_t pend, idle;
	char h1[64], h2[64];

	if ((prev = prevcomm(ri, me, &pend)) == NULL)
		return 0;
	if ((idle = idlein(ri, pend, me->start_abs)) == 0)
		return 0;
	bprintf(out, "%s of its device idle (its bubbles, short gaps left out) lies between the end of %s and the start of %s (a %s stretch)",
	    hd(idle, h1), prev->op, me->op, hd(me->start_abs - pend, h2));
	ppsidle(ri, prev, me, out);
	return 1;
}

/* Has rank oi kernels in step st (else its step is step_trace_time.csv's). */
static int
haskernels(int oi, const char *st)
{
	for (int s = 0; s < ranks[oi].nstep; s++)
		if (strcmp(ranks[oi].steps[s].step, st) == 0)
			return ranks[oi].steps[s].from_kernels;
	return 0;
}

/*
 * The late rank's delay at collective w, split by the end of each rank's
 * previous comm op of the step (comm records): how much earlier or later
 * it leaves that op than the others (*dleave), and how much longer its
 * stretch from there to the collective is (*dstretch), against the
 * other rank or the median of the others.  The text (into out) names
 * each side's op, stretch and device idle; 0 when a rank lacks the ops.
 */
int
stretchcmp(int ri, const struct coll *w, const char *against, int64_t *dleave,
    int64_t *dstretch, struct buf *out)
{
	const struct cinst *me = NULL, *mp, *op1 = NULL, *opp = NULL;
	int64_t mend, *e, *st, oend = UNSET;
	int n = 0, unk = 0, oi1 = -1;
	char h1[64], h2[64], h3[64], h4[64], nm[64];

	*dleave = *dstretch = UNSET;
	for (size_t m = 0; m < w->n; m++)
		if (cis[w->first + m].rank == ri)
			me = &cis[w->first + m];
	if ((mp = prevcomm(ri, me, &mend)) == NULL)
		return 0;
	e = xcalloc(w->n + 1, sizeof *e);
	st = xcalloc(w->n + 1, sizeof *st);
	for (size_t m = 0; m < w->n; m++) {
		const struct cinst *o = &cis[w->first + m], *p;
		int64_t pe;

		if (o->rank == ri)
			continue;
		if ((p = prevcomm(o->rank, o, &pe)) == NULL) {
			unk = 1;
			break;
		}
		e[n] = pe, st[n] = o->start_abs - pe;
		if (n++ == 0)
			op1 = o, opp = p, oend = pe, oi1 = o->rank;
	}
	if (!unk && n > 0) {
		int64_t ost = median(st, n);

		*dleave = mend - median(e, n);
		*dstretch = (me->start_abs - mend) - ost;
		bprintf(out, "it ends %s, its previous communication op of the step, %s than %s ends %s, and takes %s from there to %s against %s on %s (%s)",
		    mp->op, moreless(*dleave, "later", "earlier", h1), against,
		    n == 1 ? opp->op : "theirs", hd(me->start_abs - mend, h2), me->op, hd(ost, h3), against,
		    moreless(*dstretch, "longer", "shorter", h4));
		if (haskernels(ri, me->step)) {
			bprintf(out, "; %s of its device idle (its bubbles, short gaps left out) lies in its stretch",
			    hd(idlein(ri, mend, me->start_abs), h1));
			ppsidle(ri, mp, me, out);
		}
		if (n == 1 && haskernels(oi1, op1->step))
			bprintf(out, "; %s of %s's device idle lies in its stretch", hd(idlein(oi1, oend, op1->start_abs), h1),
			    rname(&ranks[oi1], nm));
		else if (n == 1)
			bprintf(out, "; %s's device idle there is not measured (it has no kernel table)", rname(&ranks[oi1], nm));
	}
	free(e);
	free(st);
	return *dstretch != UNSET;
}

/*
 * Why the rank is late, from the split of its delay against the others'
 * same step.  With the step start known: the parts before the step, in
 * its preparing and inside the step before the collective, each named.
 * Without it: extra free time (or compute) over the step that covers the
 * delay is the cause; else the breakdown does not explain it.
 */
const char *
latecause(const struct job *j, int ri, const struct rstep *ls, int64_t delay,
    const char *op, const char *against, int64_t dstart, int64_t dprep, int64_t rest,
    int64_t dfree, int64_t dcomp, const char *where, const struct stretch *st, struct buf *out)
{
	char t1[64], t2[64], t3[64];
	/* parts under a tenth of the skew floor are clock jitter */
	int64_t jitter = (int64_t)(rules_num("cluster.skew_min_us") * 100);

	if (dstart != UNSET && dprep != UNSET && rest != UNSET) {
		struct buf b = {0}, h = {0};
		int np = 0;

		if (dstart >= jitter) {
			bprintf(&b, "%s before its step (its step began later: the previous step or work between steps, not in the capture)", hd(dstart, t1));
			np++;
		}
		if (dprep >= jitter) {
			prepdiff(j, ri, ls, &h);
			bprintf(&b, "%s%s longer preparing before its first kernel (%s%s)", np ? "; " : "", hd(dprep, t1),
			    h.len ? "its host time there grows most in " : "which host work grows there is not in the records: no host attribution for every rank",
			    h.len ? h.p : "");
			np++;
		}
		if (rest >= jitter) {
			bprintf(&b, "%s%s inside the step before the collective", np ? "; " : "", hd(rest, t1));
			np++;
		}
		/* Parts the other way take off the delay: said too, so the
		 * parts add up to it. */
		if (np && dstart <= -jitter) {
			bprintf(&b, "; −%s before its step (its step began earlier)", hd(-dstart, t1));
			np++;
		}
		if (np && dprep <= -jitter) {
			bprintf(&b, "; −%s in preparing (its preparing is shorter)", hd(-dprep, t1));
			np++;
		}
		if (np && rest <= -jitter) {
			bprintf(&b, "; −%s inside the step (it reaches the collective sooner after its first kernel)", hd(-rest, t1));
			np++;
		}
		if (np)
			bprintf(out, "%s%s", np > 1 ? "the delay splits into " : "", b.p);
		else
			bprintf(out, "not explained by its breakdown");
		buf_free(&b);
		buf_free(&h);
		return out->p;
	}
	/* The comm records' direct comparison beats the step-wide free
	 * time, which holds idle hidden under other waits too. */
	if (st && st->dstretch != UNSET && (st->dstretch >= jitter || st->dleave >= jitter)) {
		bprintf(out, "%s: %s",
		    st->dleave < jitter ? "a longer stretch from its previous communication op to the collective" :
		    st->dstretch < jitter ? "it leaves its previous communication op later" :
		    "it leaves its previous communication op later and takes longer from there to the collective",
		    st->text);
		if (dfree != UNSET)
			bprintf(out, "; for context only, over the whole step it has %s than %s (step-wide: it does not place that idle before the collective)",
			    moreless(dfree, "more free time", "less free time", t1), against);
		return out->p;
	}
	if (dfree != UNSET && dfree >= delay && (dcomp == UNSET || dfree > dcomp)) {
		bprintf(out, "its extra idle time: over the step it has %s more free time than %s (device idle outside communication; compute %s), which covers the %s delay and holds back its %s%s%s",
		    hd(dfree, t1), against, dcomp == UNSET ? "unknown" : moreless(dcomp, "more", "less", t2), hd(delay, t3), op,
		    where ? "; " : "", where ? where : "");
		return out->p;
	}
	if (dcomp != UNSET && dcomp >= delay) {
		bprintf(out, "more compute: over the step it has %s more compute than %s, which covers the %s delay of its %s",
		    hd(dcomp, t1), against, hd(delay, t2), op);
		return out->p;
	}
	return "not explained by its breakdown (the delay is inside the step before the collective)";
}

/*
 * How much longer the ranks that arrive before the late rank ri spend in
 * its significant collectives than it does (communication.json's
 * elapsed times): their wait for it, per step, and the part of it
 * communication.json books as idle rather than wait (no task waits on a
 * peer there).  One object per rank in *jo (the record's waited_by),
 * and for the report the ops it compares them in, one array per rank
 * in *ops ({op, ns, own_ns}: theirs and the late rank's elapsed time);
 * returns the most of any rank, UNSET if none.
 */
int64_t
othersextra(const struct job *j, int ri, const struct coll *cl, size_t ncl, double skew_min,
    jv *ops, struct buf *jo)
{
	int64_t most = UNSET;
	int nlist = 0;

	buf_addc(jo, '[');
	for (int k = 0; k < j->nr; k++) {
		int oi = j->r[k];
		double ext = 0, idle = 0;
		int nop = 0, steps = ranks[oi].nstep > 0 ? ranks[oi].nstep : 1;
		jv o = jv_array();

		if (oi == ri)
			continue;
		for (size_t c = 0; c < ncl; c++) {
			const struct cinst *me = NULL, *ot = NULL;
			double e;

			/* a later uncaptured rank holds them there, not ri */
			if (cl[c].late != ri || (double)cl[c].skew < skew_min || cl[c].selfwait)
				continue;
			for (size_t m = 0; m < cl[c].n; m++) {
				const struct cinst *ci = &cis[cl[c].first + m];

				if (ci->rank == ri)
					me = ci;
				else if (ci->rank == oi)
					ot = ci;
			}
			if (me == NULL || ot == NULL || me->elapse_ms < 0 || ot->elapse_ms < 0 ||
			    (e = ot->elapse_ms - me->elapse_ms) <= 0)
				continue;
			ext += e;
			/* the part not booked as wait */
			if (ot->wait_ms >= 0 && me->wait_ms >= 0) {
				double wd = ot->wait_ms - me->wait_ms;

				if (e - (wd > 0 ? wd : 0) > 0)
					idle += e - (wd > 0 ? wd : 0);
			}
			nop++;
			o = jv_array_append(o, JV_OBJECT(jv_string("op"), jv_string(ot->op),
			    jv_string("ns"), nsjv((int64_t)(ot->elapse_ms * 1e6)),
			    jv_string("own_ns"), nsjv((int64_t)(me->elapse_ms * 1e6))));
		}
		if (nop == 0) {
			jv_free(o);
			continue;
		}
		{
			int64_t en = (int64_t)(ext * 1e6) / steps, in = (int64_t)(idle * 1e6) / steps;

			if (most == UNSET || en > most)
				most = en;
			if (nlist++)
				buf_addc(jo, ',');
			buf_adds(jo, "{\"profile\":");
			out_esc(jo, ranks[oi].profile, strlen(ranks[oi].profile));
			if (ranks[oi].rankid >= 0)
				out_i64(jo, "rank", ranks[oi].rankid);
			else
				out_null(jo, "rank");
			put_ns(jo, "extra_elapsed_per_step", en);
			put_ns(jo, "booked_idle_per_step", in);
			buf_addc(jo, '}');
			*ops = jv_array_append(*ops, o);
		}
	}
	buf_addc(jo, ']');
	return most;
}

/* A late rank, told at its first late collective: computed, then
 * written (record, report, recommendation). */
struct late {
	int	 ri;
	struct rank *r;
	struct coll *w;			/* its first late collective */
	struct rstep *ls;		/* its step of it */
	int64_t	 tot, totc;		/* skews and waits caused, summed */
	int64_t	 dstart, dprep, dfree, dcomp, rest, extra;
	int64_t	 dleave, dstretch;	/* stretchcmp's */
	const char *against, *cause;
	char	 onm[64];
	struct buf chain, causebuf, where, xj, stb;
	jv	 xops;			/* othersextra's ops, for the report */
};

/* Its step against the median of the others' same step. */
static void
latesteps(const struct job *j, struct late *L)
{
	int nr = j->nr, ri = L->ri;
	struct rank *r = L->r;
	const struct coll *w = L->w;
	struct rstep *ls = NULL;
	int64_t dstart = UNSET, dprep = UNSET, dfree = UNSET, dcomp = UNSET, rest = UNSET;
	const struct rank *other = NULL;
	int nother = 0;

	for (int s = 0; s < r->nstep; s++)
		if (strcmp(r->steps[s].step, cis[w->first].step) == 0)
			ls = &r->steps[s];
	if (ls) {
		int64_t *o[4];
		int n[4] = {0};
		const enum dim dd[3] = { D_PREP, D_FREE, D_COMPUTE };

		for (int x = 0; x < 4; x++)
			o[x] = xcalloc((size_t)nr * 4 + 1, sizeof *o[x]);
		for (int k = 0; k < nr; k++) {
			struct rank *q = &ranks[j->r[k]];

			if (j->r[k] == ri)
				continue;
			for (int s = 0; s < q->nstep; s++) {
				struct rstep *qs = &q->steps[s];

				if (strcmp(qs->step, ls->step) != 0)
					continue;
				if (nother++ == 0)
					other = q;
				if (qs->start_abs != UNSET)
					o[0][n[0]++] = qs->start_abs;
				for (int x = 0; x < 3; x++)
					if (stepv(qs, dd[x]) != UNSET)
						o[x + 1][n[x + 1]++] = stepv(qs, dd[x]);
			}
		}
		if (ls->start_abs != UNSET && n[0])
			dstart = ls->start_abs - median(o[0], n[0]);
		if (stepv(ls, D_PREP) != UNSET && n[1])
			dprep = stepv(ls, D_PREP) - median(o[1], n[1]);
		if (stepv(ls, D_FREE) != UNSET && n[2])
			dfree = stepv(ls, D_FREE) - median(o[2], n[2]);
		if (stepv(ls, D_COMPUTE) != UNSET && n[3])
			dcomp = stepv(ls, D_COMPUTE) - median(o[3], n[3]);
		if (dstart != UNSET && dprep != UNSET)
			rest = w->delay - dstart - dprep;
		for (int x = 0; x < 4; x++)
			free(o[x]);
	}
	L->ls = ls;
	L->dstart = dstart, L->dprep = dprep, L->dfree = dfree, L->dcomp = dcomp, L->rest = rest;
	if (nother == 1)
		L->against = rname(other, L->onm);
	else
		L->against = "the median of the other ranks";
}

/* Where its delay comes from, and how long the others wait for it. */
static void
latecompute(const struct job *j, const struct cres *x, int ri, struct late *L)
{
	struct rank *r = &ranks[ri];
	struct coll *w = NULL, *cl = x->cl;
	int64_t tot = 0, totc = 0, extra = UNSET;
	size_t ncl = x->ncl;
	double skew_min = x->skew_min;
	char nm[64], t1[64], t2[64], t3[64], t4[64], t5[64], t6[64], t8[64], t9[64], t10[64];
	struct buf chain = {0}, causebuf = {0}, where = {0}, xj = {0};
	jv xops = jv_array();
	const char *against, *cause;
	int hasw = 0;

	memset(L, 0, sizeof *L);
	/* The chain is told at its first late arrival: later ones
	 * carry the drift of the steps before (the others waited). */
	for (size_t k = 0; k < ncl; k++)
		if (cl[k].late == ri && (double)cl[k].skew >= skew_min) {
			tot += cl[k].fixed;
			totc += cl[k].caused;
			if (w == NULL || cl[k].at < w->at)
				w = &cl[k];
		}
	L->ri = ri, L->r = r, L->w = w;
	latesteps(j, L);
	against = L->against;
	{
		struct rstep *ls = L->ls;
		int64_t dstart = L->dstart, dprep = L->dprep, dfree = L->dfree, dcomp = L->dcomp, rest = L->rest;
		int64_t up = x->up, upleast = x->upleast;

		{
			const struct cinst *me = NULL;

			for (size_t m = 0; m < w->n; m++)
				if (cis[w->first + m].rank == ri)
					me = &cis[w->first + m];
			hasw = idlebefore(ri, me, &where);
		}
		{
			struct stretch st = { UNSET, UNSET, NULL };

			if (stretchcmp(ri, w, against, &st.dleave, &st.dstretch, &L->stb))
				st.text = L->stb.p;
			L->dleave = st.dleave, L->dstretch = st.dstretch;
			cause = latecause(j, ri, ls, w->delay, cis[w->first].op, against,
			    dstart, dprep, rest, dfree, dcomp, hasw ? where.p : NULL, st.text ? &st : NULL, &causebuf);
		}
		/* Differences to the others, never the rank's own values. */
		bprintf(&chain, "%s arrives %s late at %s (step %s), against %s: step start %s, preparing %s%s, in the step before the collective %s%s%s%s%s%s; over the whole step %s has %s and %s than %s",
		    rname(r, nm), hd(w->delay, t1), cis[w->first].op, cis[w->first].step, against,
		    dstart == UNSET ? "unknown" : moreless(dstart, "later", "earlier", t2),
		    dprep == UNSET ? "unknown" : moreless(dprep, "longer", "shorter", t3),
		    dprep != UNSET && ls && ls->v[D_PREP] == UNSET ? " (step_trace_time.csv)" : "",
		    rest == UNSET ? "unknown" : moreless(rest, "later", "earlier", t4),
		    L->dstretch == UNSET ? "" : " (by the comm records: its previous communication op ends ",
		    L->dstretch == UNSET ? "" : moreless(L->dleave, "later", "earlier", t9),
		    L->dstretch == UNSET ? "" : ", and its stretch from there to the collective is ",
		    L->dstretch == UNSET ? "" : moreless(L->dstretch, "longer", "shorter", t10),
		    L->dstretch == UNSET ? "" : ")",
		    rname(r, t8),
		    dfree == UNSET ? "an unknown free time" : moreless(dfree, "more free time", "less free time", t5),
		    dcomp == UNSET ? "an unknown compute" : moreless(dcomp, "more compute", "less compute", t6),
		    against);
		/* the ranks before it wait for it inside these collectives */
		if (!(up >= 0 && upleast > w->delay))
			extra = othersextra(j, ri, cl, ncl, skew_min, &xops, &xj);
	}
	L->tot = tot, L->totc = totc, L->extra = extra, L->cause = cause;
	L->chain = chain, L->causebuf = causebuf, L->where = where, L->xops = xops, L->xj = xj;
}

static void
laterec(const struct job *j, const struct cres *x, const struct late *L)
{
	struct rank *r = L->r;
	const struct coll *w = L->w;
	int ri = L->ri;
	int64_t dstart = L->dstart, dprep = L->dprep, dfree = L->dfree, dcomp = L->dcomp, rest = L->rest;
	int64_t totc = L->totc, up = x->up, upleast = x->upleast;
	const int *latecount = x->latecount;
	size_t nsig = x->nsig;
	const char *cause = L->cause, *upg = x->upg;
	struct buf chain = L->chain, xj = L->xj;

	rbegin("late_rank", j);
	put_rank(r);
	out_i64(&rb, "late_at", latecount[ri]);
	out_i64(&rb, "significant_collectives", (int64_t)nsig);
	out_cstr(&rb, "first_late_op", cis[w->first].op);
	out_cstr(&rb, "first_late_step", cis[w->first].step);
	put_ns(&rb, "delay", w->delay);
	put_ns(&rb, "wait_caused_total", totc);
	put_ns(&rb, "step_start_delta", dstart);
	put_ns(&rb, "preparing_delta", dprep);
	put_ns(&rb, "in_step_delta", rest);
	put_ns(&rb, "free_delta", dfree);
	put_ns(&rb, "compute_delta", dcomp);
	put_ns(&rb, "previous_op_end_delta", L->dleave);
	put_ns(&rb, "stretch_delta", L->dstretch);
	out_cstr(&rb, "cause", cause);
	out_cstr(&rb, "chain", chain.p);
	out_key(&rb, "waited_by");
	if (xj.len)
		buf_add(&rb, xj.p, xj.len);
	else
		buf_adds(&rb, "null");
	/* A peer outside the input that every captured rank waits for
	 * longer: this rank is only the latest of those captured. */
	out_key(&rb, "outweighed_by");
	if (up >= 0 && upleast > w->delay) {
		buf_adds(&rb, "{\"group\":");
		out_esc(&rb, upg, strlen(upg));
		out_i64(&rb, "peer", up);
		out_bool(&rb, "in_input", 0);
		put_ns(&rb, "least_exposed_wait_per_step", upleast);
		buf_addc(&rb, '}');
	} else
		buf_adds(&rb, "null");
	rput();
}

/* The report's section on a late rank, after its late_rank record:
 * what the record does not hold (the skews summed, the phrase on who
 * else is late, which its recommendation holds too, the ops in which
 * the ranks of its waited_by wait for it; "captured": only the latest
 * of the ranks in this input). */
static void
mdlate(const struct cres *x, int64_t tot, const char *who, jv ops, int captured)
{
	if (!md) {
		jv_free(ops);
		return;
	}
	doc_view("skew_min_us", jv_number(x->skew_min / 1000));
	doc_view("late", JV_OBJECT(jv_string("skews_ns"), nsjv(tot),
	    jv_string("who"), jv_string(who ? who : ""),
	    jv_string("waited_ops"), ops,
	    jv_string("captured_only"), jv_bool(captured)));
	mdsection("late");
}

/* A peer outside the input covers its skew: it is secondary. */
static void
latesecondary(const struct job *j, const struct cres *x, const struct late *L)
{
	struct rank *r = L->r;
	const struct coll *w = L->w;
	int ri = L->ri;
	int64_t tot = L->tot, up = x->up;
	const int *latecount = x->latecount;
	size_t nsig = x->nsig;
	const char *cause = L->cause, *upg = x->upg;
	char nm[64], t1[64], t6[64];
	struct buf fx = {0};

	/* Once that peer is fixed, its skew is the gap in arrival; what the
	 * ranks that wait for it lose is their wait not under compute, as
	 * the recommendation on that peer counts their next-latest waits. */
	for (int i = 0; i < j->nr; i++) {
		const struct cinst *c0 = &cis[w->first];
		int64_t per, wt, ex;
		char h1[64], h2[64], h3[64], h4[64], h5[64], wn[64];

		if (j->r[i] == ri || !pairwait(j->r[i], upg, up, r->rankid, c0->step, c0->op, &per, &wt, &ex))
			continue;
		bprintf(&fx, "%s%s %s per step, %s of it in %s, where it waits %s for %s, the other %s under its own compute",
		    fx.len ? "; " : "", rname(&ranks[j->r[i]], wn), hd(per, h1), hd(ex, h2), c0->op, hd(wt, h3),
		    rname(r, h5), hd(wt > ex ? wt - ex : 0, h4));
	}
	mdlate(x, tot, NULL, jv_array(), 1);
	/* The longer wait covers this one: nothing is won
	 * here while that peer is late. */
	if (fx.len)
		addreco(0, "Secondary to the wait for rank %lld (not in this input), which covers it: %s arrives %s late at its first late collective (%d of %zu) among the ranks in this input; nothing is at stake while rank %lld is late; once it is fixed, its %s skew there (the gap in arrival) costs the ranks that wait for it, not under compute (their HCCL tasks; in each op at most their wait for rank %lld, as the recommendation on rank %lld counts the waits it leaves): %s. Cause: %s.",
		    (long long)up, rname(r, nm), hd(w->delay, t1), latecount[ri], nsig, (long long)up, hd(w->delay, t6), (long long)up, (long long)up, fx.p, cause);
	else
		addreco(0, "Secondary to the wait for rank %lld (not in this input), which covers it: %s arrives %s late at its first late collective (%d of %zu) among the ranks in this input; nothing is at stake while rank %lld is late, up to %s once it is fixed. Cause: %s.",
		    (long long)up, rname(r, nm), hd(w->delay, t1), latecount[ri], nsig, (long long)up, hd(w->delay, t6), cause);
	buf_free(&fx);
}

static void
lateprimary(const struct cres *x, const struct late *L)
{
	struct rank *r = L->r;
	const struct coll *w = L->w, *cl = x->cl;
	int ri = L->ri;
	int64_t tot = L->tot, extra = L->extra;
	const int *latecount = x->latecount;
	size_t nsig = x->nsig, ncl = x->ncl;
	double skew_min = x->skew_min;
	const char *cause = L->cause;
	char nm[64], t1[64];

	/* Only the captured ranks are seen: the late rank's
	 * own wait in those collectives (comm records) means a
	 * rank not in this input came later still, and a group
	 * larger than the ranks seen has members not seen. */
	double selfw = 0;
	const char *selfop = NULL;
	int partial = 0;
	char t7[64];
	struct buf who = {0};

	for (size_t k = 0; k < ncl; k++) {
		if (cl[k].late != ri || (double)cl[k].skew < skew_min)
			continue;
		for (size_t m = 0; m < cl[k].n; m++) {
			struct cinst *ci = &cis[cl[k].first + m];

			if (ci->rank == ri && ci->wait_ms > selfw)
				selfw = ci->wait_ms, selfop = ci->op;
		}
		for (size_t g = 0; g < nrg; g++)
			if (rgs[g].rank == ri && rgs[g].size > (int64_t)cl[k].n &&
			    strcmp(rgs[g].group, cis[cl[k].first].group) == 0)
				partial = 1;
	}
	/* a tenth of the skew floor: above the few µs of
	 * handshake a wait holds when no peer is late */
	if (selfw * 1e6 < skew_min / 10)
		selfop = NULL;
	if (selfop)
		bprintf(&who, "; in %s it itself waits %s (comm records), so a rank of that group not in this input arrives later still",
		    selfop, hd((int64_t)(selfw * 1e6), t7));
	else
		bprintf(&who, "%s", partial ? " (a group of these collectives has ranks not in this input, which are not seen here)" : "");
	mdlate(x, tot, who.p, jv_copy(L->xops), partial || selfop);
	addreco(w->delay, "%s arrives %s late at its first late collective (%d of %zu): %s; the ranks in this input that arrive before it wait for it%s%s%s%s.",
	    rname(r, nm), hd(w->delay, t1), latecount[ri], nsig, cause,
	    extra != UNSET ? " (up to " : "", extra != UNSET ? hd(extra, t7) : "",
	    extra != UNSET ? " per step longer in these collectives: fixing its delay recovers it on them)" : "", who.p);
	buf_free(&who);
}

/* The rank late at most significant collectives, and why. */
void
lateranks(const struct job *j, const struct cres *x)
{
	jsarray("late_ranks");
	for (int i = 0; x->nsig && i < j->nr; i++) {
		int ri = j->r[i];
		struct late L;

		if ((double)x->latecount[ri] <= rules_num("cluster.late_share") * (double)x->nsig)
			continue;
		latecompute(j, x, ri, &L);
		laterec(j, x, &L);
		if (x->up >= 0 && x->upleast > L.w->delay)
			latesecondary(j, x, &L);
		else
			lateprimary(x, &L);
		jv_free(L.xops);
		buf_free(&L.xj);
		buf_free(&L.chain);
		buf_free(&L.causebuf);
		buf_free(&L.where);
		buf_free(&L.stb);
	}
}
