/* asc-fia: the end of a unit decided: training or not, the method (FIA,
 * attention or period), the passes, the notes (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "fia.h"

static void
notes(struct unit *u)
{
	const struct eng *e = u->e;
	const int64_t *nfia = e->nfia;
	int ei = u->ei, fia = u->fia, nn = 0;
	size_t np = u->np, nlw = u->nlw;
	const char **notes = u->notes;

	if (G.nk == 0)
		notes[nn++] = G.opn ? "op_stat_only" : "no_kernels";
	else if (ei != E_FIA)
		notes[nn++] = ei == E_ATT ? "no_fia_fallback_attention" :
		    e->nl ? "no_fia_fallback_period" : "layers_not_determinable";
	if (np == 1)
		notes[nn++] = "single_pass";
	if (fia && nfia[FC_DECODE] == 0)
		notes[nn++] = "no_decode";
	if (fia && nfia[FC_AMBIG] > 0)
		notes[nn++] = "ambiguous_fia";
	if (acc_get(&G.comm) == 0 && G.nk)
		notes[nn++] = "no_comm";
	if (e->pro_n)
		notes[nn++] = "prologue";
	if (G.units > 0)
		notes[nn++] = "several_devices";
	if (nlw < e->nl)
		notes[nn++] = "layers_capped";
	if (ei == E_PER && G.pkmore)
		notes[nn++] = "period_search_capped";
	u->nn = nn;
}

/* Training: forward and backward passes, micro-batches per step. */
static void
training_passes(struct unit *u)
{
	const struct chain *ch = u->ch;

	u->nfp = u->nbp = 0;
	u->nsteps = 1;
	u->fl1 = u->bl1 = -1;
	u->funi = u->buni = 1;
	for (size_t pi = 0; pi < ch->nrec; pi++) {
		const struct pass *q = &ch->rec[pi];
		int64_t nl = (int64_t)(q->l1 - q->l0);

		u->nsteps += (q->why & B_STEP) != 0;
		if (q->dir) {
			u->nbp++;
			u->buni &= u->bl1 < 0 || u->bl1 == nl;
			u->bl1 = nl;
		} else {
			u->nfp++;
			u->funi &= u->fl1 < 0 || u->fl1 == nl;
			u->fl1 = nl;
		}
	}
	u->agree = training && u->nfp > 0 && u->nfp == u->nbp && u->funi &&
	    u->buni && u->fl1 == u->bl1;
}

void
classify(struct unit *u)
{
	struct eng *e;
	struct chain *ch;
	int ei;

	/* Gradients or an optimizer step: only training has them. */
	training = G.nbwd >= minbwd || G.nopt >= minbwd;
	if (G.e[E_FIA].nanch)
		ei = E_FIA;
	else if (G.e[E_ATT].nanch)
		ei = E_ATT;
	else {
		ei = E_PER;
		period_replay();
	}
	e = &G.e[ei];
	if (e->open)
		layer_end(e, ei, 1);
	/* The passes: the repeated pattern only when nothing else cuts. */
	ch = &e->on;
	if (e->on.n == 1 && e->nl >= 4 && e->per >= 2 && e->nl % e->per == 0 &&
	    e->per <= e->nl / 2)
		ch = &e->pat;
	if (ch->n)
		chain_close(ch);
	memset(u, 0, sizeof *u);
	u->e = e;
	u->ei = ei;
	u->fia = ei == E_FIA;
	u->ch = ch;
	u->np = ch->n;
	u->methods = ch->methods | (ch == &e->pat ? B_PAT : 0);
	u->anymoe = e->anymoe;
	u->mismatch = e->mis || (u->anymoe && e->decbad);
	for (int ti = 0; ti < e->nt; ti++)
		ranges_flush(&e->t[ti]);
	/* The layers written: the first NLREC. */
	u->nlw = e->nl < NLREC ? e->nl : NLREC;
	notes(u);
	training_passes(u);
}
