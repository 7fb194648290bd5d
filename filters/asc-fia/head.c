/*
 * asc-fia: a layer's head.  A layer runs some kernels before its anchor
 * (the attention kernel): its input norm, QKV projection and rotary
 * embedding; backward, the MLP's gradient.  The kernels just before an
 * anchor whose names repeat those before the next anchor of the same
 * direction (no collective among them, one step, the layer before keeping
 * one kernel at least) are the layer's head, so the layer starts at its
 * first kernel, as asc-parts(1) cuts it.  Kernels wait in a queue until
 * the anchor after theirs has come (fia.h).
 */
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "util.h"

#include "fia.h"

#define QN	8192		/* kernels held: a layer and its head, at most */

struct qk {
	struct lk k;
	int64_t	 dur, gap;
	int	 anch, open;	/* an anchor; opens a layer (for the anchor */
	int	 af;		/* its head later: af, adur are the anchor's) */
	int64_t	 adur;
	size_t	 hd;		/* an anchor's head: its length */
	size_t	 lb;		/* an anchor's pass starts there, or before */
	int	 hasstep;
	size_t	 steplen;
	char	 step[40];
};

struct hq {
	struct qk *q;
	size_t	 base, n;	/* absolute index of q's oldest kernel; held */
	size_t	 pa, pp;	/* the last anchor and the one before */
	int	 have[2];
	size_t	 first, d;	/* the run's first anchor; its head */
	int	 brk;		/* a pass boundary since the last anchor */
	size_t	 lbk;		/* the last kernel starting a pass */
};

static struct hq Q[NENG];

static struct qk *
at(struct hq *h, size_t i)
{
	return &h->q[i % QN];
}

static void
release(struct hq *h, struct eng *e, int ei)
{
	struct qk *x = at(h, h->base);
	struct rfield f = { "step", x->step, 4, x->steplen };

	eng_kernel(e, ei, &x->k, x->open, x->open ? x->adur : x->dur, x->hasstep ? &f : NULL,
	    x->gap, x->open ? x->af : x->k.flags);
	h->base++;
	h->n--;
}

static int
samestepq(const struct qk *a, const struct qk *b)
{
	return a->hasstep == b->hasstep && a->steplen == b->steplen &&
	    memcmp(a->step, b->step, a->steplen) == 0;
}

/*
 * The head that the anchors a < b share (as many kernels as repeat), not
 * reaching the anchor before a (lo, when there is one: hl).
 */
static size_t
headlen(struct hq *h, size_t a, size_t b, size_t lo, int hl)
{
	size_t d = 0;

	if ((at(h, a)->af ^ at(h, b)->af) & F_BWD)
		return 0;
	while (a - d > h->base && (!hl || a - 1 - d > lo) && b - 1 - d > a &&
	    a - 1 - d >= at(h, a)->lb && b - 1 - d >= at(h, b)->lb) {
		const struct qk *x = at(h, a - 1 - d), *y = at(h, b - 1 - d);

		if (x->k.name != y->k.name || x->k.cls == C_COMM || y->k.cls == C_COMM ||
		    !samestepq(x, at(h, a)) || !samestepq(y, at(h, b)))
			break;
		d++;
	}
	return d;
}

/* The anchor at a opens its layer d kernels before it (unless released). */
static void
sethead(struct hq *h, size_t a, size_t d)
{
	struct qk *x = at(h, a), *o = at(h, a - x->hd), *y;

	if (a - x->hd < h->base || a - d < h->base)
		return;
	o->open = 0;
	y = at(h, a - d);
	y->open = 1;
	y->af = x->af;
	y->adur = x->adur;
	x->hd = d;
}

void
head_kernel(struct eng *e, int ei, const struct lk *k, int anchor, int64_t dur,
    const struct rfield *step, int64_t gap)
{
	struct hq *h = &Q[ei];
	size_t i = h->base + h->n;
	struct qk *x;

	if (h->q == NULL)
		h->q = xcalloc(QN, sizeof *h->q);
	if (h->n == QN)
		release(h, e, ei);
	x = at(h, i);
	memset(x, 0, sizeof *x);
	x->k = *k;
	x->dur = dur;
	x->gap = gap;
	x->anch = x->open = !!anchor;
	x->af = k->flags;
	x->adur = dur;
	if (step && step->vlen <= sizeof x->step) {
		x->hasstep = 1;
		x->steplen = step->vlen;
		memcpy(x->step, step->v, step->vlen);
	}
	h->n++;
	/* As layer_end cuts passes: a gap, a send / receive, a new step. */
	if ((gap >= pass_gap && gap >= 0) || (k->flags & F_P2P) ||
	    (h->n > 1 && !samestepq(x, at(h, i - 1)))) {
		h->brk = 1;
		h->lbk = i;	/* a head does not reach before the pass */
	}
	x->lb = h->lbk;
	if (!anchor)
		return;
	if (!h->have[0] || h->brk || ((at(h, h->pa)->af ^ x->af) & F_BWD)) {
		h->first = i;	/* a run of anchors starts: its head comes next */
		h->d = 0;
	} else if (h->pa == h->first) {
		/* The run's head: before its first two anchors, what repeats. */
		h->d = headlen(h, h->pa, i, h->pp, h->have[1]);
		sethead(h, h->pa, h->d);
		sethead(h, i, h->d);
	} else {
		size_t d = headlen(h, h->pa, i, h->pp, 1);

		sethead(h, i, d < h->d ? d : h->d);
	}
	h->brk = 0;
	h->pp = h->pa;
	h->have[1] = h->have[0];
	h->pa = i;
	h->have[0] = 1;
}

/* Every held kernel into its engine, at the end of a unit. */
void
head_flush(struct eng *e, int ei)
{
	struct hq *h = &Q[ei];

	while (h->n > 0)
		release(h, e, ei);
	h->have[0] = h->have[1] = 0;
	h->brk = 0;
	h->lbk = h->base;
}
