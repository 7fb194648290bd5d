/* asc-fia: training phases: runs of one phase and their gradient sync,
 * op families, forward stages, loss ops (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "fia.h"

static int
syncrole(int role)
{
	return role >= 0 && (role == r_dp || role == r_embd);
}

/*
 * Before x joins the backward run u: a dp or embedding collective starts
 * the run's gradient sync at the end of the backward's last compute kernel
 * (before a wait for the collectives, if one came since the last gradient
 * kernel); a later gradient kernel undoes it (the collective overlapped
 * the backward and stays in its wall).
 */
/*
 * The sync starts at we: a collective of the backward (before the wait,
 * if any) that ends after we outlasts its compute and is gradient sync.
 */
static void
sync_move(struct prun *u)
{
	int lim = u->pw ? u->pnbc : u->nbc;

	u->mv = 0;
	for (int i = 0; i < lim; i++)
		if (u->bc[i].e > u->we) {
			u->mv++;
			u->w.n--;
			u->w.sum -= u->bc[i].dur;
			u->w.cn--;
			u->w.csum -= u->bc[i].dur;
			G.cb[u->bc[i].cb].mark--;
		}
}

/* The gradient sync starts (last: x, a collective counted in G.lastcb). */
static void
sync_start(struct prun *u, int last)
{
	u->sync = 1;
	for (int i = 0; i < G.ncb; i++)
		G.cb[i].mark = u->pw ? G.cb[i].wmark : G.cb[i].nph[PH_BWD] - (last && i == G.lastcb);
	if (u->pw) {
		u->we = u->xs;
		u->w = u->p;
	} else {
		u->xc = -1;
		u->we = u->ce ? u->ce : u->e;
		u->w = u->a;
	}
	u->ts = u->we;
	sync_move(u);
}

/*
 * Before x joins the backward run u: a dp or embedding collective starts
 * the run's gradient sync at the end of the backward's last compute kernel
 * (before a wait for the collectives, if one came since the last gradient
 * kernel); a later gradient kernel undoes it (the collective overlapped
 * the backward and stays in its wall, unless it outlasts the backward's
 * compute: sync_move).
 */
static void
run_sync(struct prun *u, const struct lk *x)
{
	if (u->ph != PH_BWD)
		return;
	if (u->sync && (x->flags & F_BWD))
		u->sync = 0;
	else if (!u->sync && x->cls == C_COMM && syncrole(x->role))
		sync_start(u, 1);
	if (u->sync)
		return;
	if (x->flags & F_BWD)
		u->pw = 0;
	else if (!u->pw && x->cls != C_COMM && u->ce && u->a.me > u->ce && x->s >= u->a.me &&
	    syncrole(u->mer)) {
		/* x waited for the collectives: the backward's compute ended at ce */
		u->pw = 1;
		u->p = u->a;
		u->pnbc = u->nbc;
		u->xs = u->ce;
		u->xe = x->s;
		u->xc = u->mec;
		memcpy(u->xcraw, u->mecraw, sizeof u->xcraw);
		for (int i = 0; i < G.ncb; i++)
			G.cb[i].wmark = G.cb[i].nph[PH_BWD];
	}
}

/* A closed run: the collectives of its gradient sync leave the backward. */
static void
run_commit(const struct prun *u)
{
	if (u->ph != PH_BWD || !u->sync)
		return;
	for (int i = 0; i < G.ncb; i++) {
		int64_t d = G.cb[i].nph[PH_BWD] - G.cb[i].mark;

		G.cb[i].nsync += d;
		G.cb[i].nph[PH_BWD] -= d;
	}
}

/* The open run closed: its gradient sync committed, the run kept. */
void
run_close(void)
{
	struct prun *u = &G.lastrun;

	/* No sync collective after the last gradient kernel, but one outlasts it. */
	if (u->ph == PH_BWD && !u->sync && u->ce)
		for (int i = 0; i < u->nbc; i++)
			if (u->bc[i].e > u->ce) {
				sync_start(u, 0);
				break;
			}
	run_commit(u);
	if ((size_t)G.nruns > G.caprun) {
		G.caprun = G.caprun ? 2 * G.caprun : 64;
		G.runs = xreallocarray(G.runs, G.caprun, sizeof *G.runs);
	}
	G.runs[G.nruns - 1] = G.lastrun;
}

/* The kernel x, of phase ph: phase runs, families, stages, loss ops. */
void
phase_kernel(int ph, const struct lk *x, int fam, int64_t dur)
{
	if (G.nruns == 0 || G.lastrun.ph != ph) {
		if (G.nruns > 0)
			run_close();
		G.nruns++;
		memset(&G.lastrun, 0, sizeof G.lastrun);
		G.lastrun.ph = ph;
		G.lastrun.xc = -1;
		G.lastrun.first = x->name;
		G.lastrun.s = x->s;
	}
	G.ph = ph;
	run_sync(&G.lastrun, x);
	if (ph == PH_BWD && x->cls == C_COMM && syncrole(x->role) && G.lastrun.nbc < NBC)
		G.lastrun.bc[G.lastrun.nbc++] = (struct bcoll){ G.lastcb, x->e, dur };
	G.lastrun.a.n++;
	G.lastrun.a.sum += dur;
	if (x->cls == C_COMM) {
		G.lastrun.a.cn++;
		G.lastrun.a.csum += dur;
	}
	if (x->e > G.lastrun.e)
		G.lastrun.e = x->e;
	if (x->cls != C_COMM && x->e > G.lastrun.ce)
		G.lastrun.ce = x->e;
	else if (x->cls == C_COMM && x->e > G.lastrun.a.me) {
		G.lastrun.a.me = x->e;
		G.lastrun.mec = x->name;
		G.lastrun.mer = x->role;
		snprintf(G.lastrun.mecraw, sizeof G.lastrun.mecraw, "%.*s",
		    nmb.len < sizeof G.lastrun.mecraw ? (int)nmb.len : 0, nmb.p);
	}
	G.nph[ph]++;
	G.phsum[ph] += dur;
	if (ph == PH_OPT) {
		if (G.opt_first < 0) {
			G.opt_first = x->name;
			G.opt_s = x->s;
		}
		if (x->e > G.opt_e)
			G.opt_e = x->e;
	}
	if (fam < 0 || x->cls == C_COMM)
		fam = nfam;	/* other (communication is counted apart) */
	if (x->cls != C_COMM) {
		G.famn[fam][ph]++;
		G.famsum[fam][ph] += dur;
	}
	/* Stages: convolution / matmul runs of the first forward phase. */
	if (ph == PH_FWD && G.nruns == 1 && fam < nfam &&
	    (strcmp(famname[fam], "convolution") == 0 || strcmp(famname[fam], "matmul") == 0)) {
		if (G.nstage > 0 && G.stage[G.nstage - 1] == fam)
			G.stagen[G.nstage - 1]++;
		else if (G.nstage < NSTAGE) {
			G.stage[G.nstage] = fam;
			G.stagen[G.nstage++] = 1;
		}
	}
}

/*
 * The backward's run has just opened, and the kernel before it, counted
 * in the forward, seeds it (fia.grad_seed: the ones the loss's gradient
 * starts from): it is the backward's, as asc-parts(1) counts it.
 */
void
phase_seed(void)
{
	struct prun *f = &G.runs[G.nruns - 2];
	int fam = G.seed.fam < 0 ? nfam : G.seed.fam;
	int64_t d = G.seed.dur;

	if (G.nruns < 2 || f->ph != PH_FWD || f->a.n < 2)
		return;
	f->a.n--, f->a.sum -= d;
	f->e = G.seed.pe, f->ce = G.seed.pce;	/* its ends before the seed */
	G.nph[PH_FWD]--, G.phsum[PH_FWD] -= d;
	G.nph[PH_BWD]++, G.phsum[PH_BWD] += d;
	G.famn[fam][PH_FWD]--, G.famsum[fam][PH_FWD] -= d;
	G.famn[fam][PH_BWD]++, G.famsum[fam][PH_BWD] += d;
	G.lastrun.a.n++, G.lastrun.a.sum += d;
	G.lastrun.first = G.seed.x.name, G.lastrun.s = G.seed.x.s;
}

void
lossname(int name, int argmax)
{
	int v = argmax ? -(name + 1) : name + 1;

	for (int i = 0; i < G.nlossn; i++)
		if (G.lossn[i] == v)
			return;
	if (G.nlossn < 4)
		G.lossn[G.nlossn++] = v;
}
