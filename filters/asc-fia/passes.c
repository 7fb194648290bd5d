/* asc-fia: closed layers cut into passes, by boundaries or by the
 * period of the layer types (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "fia.h"

static void
pass_open(struct pass *q, const struct eng *e, size_t l0, int why, int64_t gap)
{
	memset(q, 0, sizeof *q);
	q->l0 = q->l1 = l0;
	q->why = why;
	q->gap = gap;
	if (l0 == 0 && e->pro_n) {
		q->haves = 1;
		q->s = e->pro_s;
		q->en = e->pro_e;
		q->k = e->pro_n;
		q->ks = e->pro_sum;
	}
	for (int j = 0; j < 4; j++) {
		q->ck[j].mn = -1;
		q->ck[j].lackdecode = 1;
	}
}

static void
pass_add(struct pass *q, const struct layer *L, size_t i)
{
	if (q->l1 == q->l0)
		q->dir = L->dir;
	if (!q->haves) {
		q->haves = 1;
		q->s = L->start;
	}
	if (L->end > q->en)
		q->en = L->end;
	q->k += L->kernels;
	q->ks += L->ksum;
	q->pf[L->fcls]++;
	q->ps[L->fcls] += L->fiadur;
	q->ptc[L->type]++;
	q->c[0] += L->nfia;
	q->c[1] += L->dfc;
	q->c[2] += L->gmm;
	q->c[3] += L->gate;
	q->c[4] += L->a2a;
	q->c[5] += L->samp > 0;
	for (int j = 0; j < 4; j++)
		chk_add(&q->ck[j], j, L, i);
	q->l1 = i + 1;
}

void
chain_close(struct chain *ch)
{
	const struct pass *q = &ch->cur;
	int64_t w = q->en - q->s;

	if (q->pf[FC_PREFILL]) {
		if (ch->firstfia < 0)
			ch->firstfia = q->ps[FC_PREFILL] / q->pf[FC_PREFILL];
		ch->lastfia = q->ps[FC_PREFILL] / q->pf[FC_PREFILL];
	}
	if (ch->firstwall < 0)
		ch->firstwall = w;
	ch->lastwall = w;
	if (ch->nrec == 0)
		ch->uniform = 1;
	else
		ch->uniform &= q->l1 - q->l0 == ch->rec[0].l1 - ch->rec[0].l0;
	ch->rec = xgrow(ch->rec, ch->nrec, &ch->caprec, 64, sizeof *ch->rec);
	ch->rec[ch->nrec++] = *q;
}

void
chain_reset(struct chain *ch)
{
	struct pass *rec = ch->rec;
	size_t cap = ch->caprec;

	memset(ch, 0, sizeof *ch);
	ch->rec = rec;
	ch->caprec = cap;
}

/* Layer i, which starts a pass when why is not 0. */
static void
chain_layer(struct chain *ch, const struct eng *e, const struct layer *L, size_t i, int why)
{
	if (i == 0) {
		chain_reset(ch);
		ch->firstfia = ch->lastfia = ch->firstwall = ch->lastwall = -1;
		pass_open(&ch->cur, e, 0, B_FIRST, -1);
		ch->n = 1;
	} else if (why) {
		chain_close(ch);
		pass_open(&ch->cur, e, i, why, L->gap);
		ch->n++;
		ch->methods |= why;
	}
	pass_add(&ch->cur, L, i);
}

static int
sym(const struct layer *L)
{
	return L->type * 2 + (L->samp > 0);
}

/* The shortest period of the types of layers [0, n), all held. */
static size_t
period(const struct eng *e, size_t n)
{
	static size_t pi[2 * PATMAX];
	size_t k = 0;

	pi[0] = 0;
	for (size_t i = 1; i < n; i++) {
		while (k > 0 && sym(&e->l[i]) != sym(&e->l[k]))
			k = pi[k - 1];
		if (sym(&e->l[i]) == sym(&e->l[k]))
			k++;
		pi[i] = k;
	}
	return n - pi[n - 1];
}

/*
 * A closed layer, number e->nl: cut into passes at gaps, decode to prefill
 * transitions and step changes; while none is found, also at the shortest
 * period of the layer-type sequence.  That period is tracked with the
 * held layers: a sequence with period p is its first p layers repeated,
 * and a new shortest period after layer i exceeds i + 1 - p, so past
 * 2 PATMAX layers a break means no period within PATMAX.
 */
void
layer_pass(struct eng *e, struct layer *L)
{
	size_t i = e->nl;
	int why = 0;

	if (i > 0) {
		if (L->gap >= pass_gap)
			why |= B_GAP;
		if (e->prevfcls == FC_DECODE && L->fcls != FC_DECODE)
			why |= B_D2P;
		if (L->stepchg)
			why |= B_STEP;
		if (L->dir != e->prevdir)
			why |= B_DIR;
		if (L->p2p)
			why |= B_P2P;
	}
	e->prevfcls = L->fcls;
	e->prevdir = L->dir;
	chain_layer(&e->on, e, L, i, why);
	L->pass = (int)(e->on.n - 1);
	L->inpass = (int)(i - e->on.cur.l0);
	if (i < NLREC) {
		e->l = xgrow(e->l, e->nl, &e->capl, 64, sizeof *e->l);
		e->l[i] = *L;
	}
	if (i == 0) {
		e->per = 1;
		chain_layer(&e->pat, e, L, 0, 0);
	} else if (e->on.n > 1)
		e->per = 0;
	else if (e->per && sym(L) == sym(&e->l[i % e->per]))
		chain_layer(&e->pat, e, L, i, i % e->per ? 0 : B_PAT);
	else if (e->per) {
		e->per = i + 1 < 2 * PATMAX ? period(e, i + 1) : 0;
		if (e->per > PATMAX)
			e->per = 0;
		for (size_t j = 0; e->per && j <= i; j++)
			chain_layer(&e->pat, e, &e->l[j], j, j % e->per ? 0 : B_PAT);
	}
}
