/*
 * asc-attrib: the cause rules of a window: its figures (unions, per
 * family time, threads), its labels in the order of asc-attrib(1), and
 * its longest untraced stretch.
 */
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

void
figures(const struct win *w, struct fig *f)
{
	const struct wst *st = w->st;

	memset(f, 0, sizeof *f);
	f->len = w->e - w->s;
	/* The recording began at or before the window: its host side was seen. */
	f->covered = P.nhost > 0 && P.firsthost <= w->s;
	f->top = -1;
	if (st == NULL)
		return;
	for (int i = 0; i <= nfam; i++) {
		f->cause[i] = run_len(&st->fam[i]) - (i ? run_len(&st->fam[i - 1]) : run_len(&st->ser));
		/* "other" names no cause: it is never the top one */
		if (i < nfam && f->cause[i] > 0 && (f->top < 0 || f->cause[i] > f->cause[f->top]))
			f->top = i;
	}
	f->cov = run_len(&st->any);
	f->anyd = run_len(&st->fam[nfam]);
	f->self = run_len(&st->all) - f->anyd;
	f->wait = run_len(&st->ser);
	f->sync = run_len(&st->sync);
	f->comm = run_len(&st->comm);
	f->nth = st->nth;
	for (int i = 0; i < st->nth; i++)
		f->busy += run_len(&st->th[i].u);
}

/* The label rules of asc-attrib(1), in order; thresholds compared exactly. */
void
labels(const struct win *w, const struct fig *f, int hosts, struct lab *lb)
{
	lb->n = 0;
	lb->reason = NULL;
	/* A boundary window is an artefact only where the capture missed it. */
	if (!hosts || (w->partial && !f->covered)) {
		lb->l[lb->n++] = L_INSUFF;
		lb->reason = hosts ? "partial_capture_boundary" : "no_host_events";
		return;
	}
	if (f->len > 0 && atleast(f->sync, f->len, syncppm))
		lb->l[lb->n++] = L_SYNC;
	if (f->len > 0 && atleast(f->comm, f->len, commppm))
		lb->l[lb->n++] = L_COMM;
	if (f->len > 0 && !atleast(f->cov, f->len, untrppm))
		lb->l[lb->n++] = L_UNTRACED;
	if (lb->n == 0 && f->len > 0 && atleast(f->cov, f->len, launchppm))
		lb->l[lb->n++] = L_LAUNCH;
	if (lb->n == 0 && f->cov > 0 && !atleast(f->busy, f->cov, serialppm))
		lb->l[lb->n++] = L_SERIAL;
	if (lb->n == 0) {
		lb->l[lb->n++] = L_INSUFF;
		lb->reason = "no_cause_family";
	}
}

/* The window's longest untraced stretch, its trailing edge included. */
struct gap
wingap(const struct win *w)
{
	const struct wst *st = w->st;
	struct gap g = { w->s, w->e, NOID, NOID };

	if (st == NULL)
		return g;
	g = st->gap;
	if (st->fam[nfam].have && w->e - st->fam[nfam].ce > g.e - g.s) {
		g.s = st->fam[nfam].ce;
		g.e = w->e;
		g.before = st->lastname;
		g.after = NOID;
	}
	return g;
}
