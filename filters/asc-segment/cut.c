/* asc-segment: a step's kernels cut into structures (segment.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "opkey.h"

#include "segment.h"

/* ---------------------------------------------------------------- period */

struct range {
	int		 lo, hi, period, rep, region;
};

static struct range *rg;
static size_t nrg, caprg;
static int nregion;

static void
addrange(int lo, int hi, int period, int rep, int region)
{
	if (hi <= lo)
		return;
	rg = xgrow(rg, nrg, &caprg, 64, sizeof *rg);
	rg[nrg].lo = lo;
	rg[nrg].hi = hi;
	rg[nrg].period = period;
	rg[nrg].rep = rep;
	rg[nrg].region = region;
	nrg++;
}

/*
 * Tandem repeats of seq[lo, hi): candidate periods are the most frequent
 * distances between consecutive occurrences of one name; for each, the
 * longest run of seq[i] == seq[i + p] gives a region of whole periods.
 * The region covering the most kernels (then the shorter period) is cut
 * into its blocks and the parts before and after it are searched again.
 */
static void
period(const int *seq, int lo, int hi, int depth)
{
	int n = hi - lo, maxd = n / 2;
	int bestp = 0, besta = 0, bestcover = 0;

	if (depth < MAXDEPTH && n >= 2 * minperiod && n >= minrepeat && maxd >= minperiod) {
		int *cnt = xcalloc((size_t)maxd + 1, sizeof *cnt);
		int *last = xreallocarray(NULL, S.keys.n + 1, sizeof *last);
		int *cand = xcalloc((size_t)ncand, sizeof *cand);

		for (int i = 0; i <= (int)S.keys.n; i++)
			last[i] = -1;
		for (int i = lo; i < hi; i++) {
			int d = last[seq[i]] >= 0 ? i - last[seq[i]] : 0;

			if (d >= minperiod && d <= maxd)
				cnt[d]++;
			last[seq[i]] = i;
		}
		for (int c = 0; c < ncand; c++) {
			int best = 0;

			for (int d = minperiod; d <= maxd; d++)
				if (cnt[d] > (best ? cnt[best] : 0))
					best = d;
			if (best == 0)
				break;
			cand[c] = best;
			cnt[best] = 0;
		}
		for (int c = 0; c < ncand && cand[c]; c++) {
			int p = cand[c], run = 0, bs = 0, bl = 0;

			for (int i = lo; i + p < hi; i++) {
				if (seq[i] == seq[i + p]) {
					if (++run > bl) {
						bl = run;
						bs = i - run + 1;
					}
				} else
					run = 0;
			}
			int reps = (bl + p) / p, cover = reps * p;

			if (reps < 2 || cover < minrepeat)
				continue;
			if (cover > bestcover || (cover == bestcover && p < bestp)) {
				bestcover = cover;
				bestp = p;
				besta = bs;
			}
		}
		free(cnt);
		free(last);
		free(cand);
	}
	if (bestcover == 0) {
		addrange(lo, hi, 0, 0, -1);
		return;
	}
	period(seq, lo, besta, depth + 1);
	int region = nregion++;

	for (int r = 0; r * bestp < bestcover; r++)
		addrange(besta + r * bestp, besta + (r + 1) * bestp, bestp, r, region);
	period(seq, besta + bestcover, hi, depth + 1);
}

static CMP_FN(stepcmp_, struct sk, CMP_2(cs, s))

/* Clip the kernels to the window, find the main stream and the block. */
void
step_clip(struct stepx *x)
{
	size_t n = x->n;
	int64_t *sd;

	/* Clip to the window; a zero-length kernel never splits a gap. */
	for (size_t i = 0; i < n; i++) {
		struct sk *k = &S.k[i];

		k->cs = k->s < x->ws ? x->ws : k->s;
		k->ce = k->e > x->we ? x->we : k->e;
		if (k->ce < k->cs)
			k->ce = k->cs;
		k->empty = k->ce <= k->cs;
	}
	/* Kernels are in start order; a clipped start can only tie. */
	for (size_t i = 1; i < n; i++)
		if (S.k[i].cs < S.k[i - 1].cs) {
			qsort(S.k, n, sizeof *S.k, stepcmp_);
			break;
		}

	/* The main compute stream: largest compute duration. */
	sd = xcalloc((size_t)S.nstreams + 1, sizeof *sd);
	x->main_stream = -1;
	for (size_t i = 0; i < n; i++)
		if (S.k[i].cls == TT_COMPUTE || S.k[i].cls == TT_UNKNOWN)
			sd[S.k[i].stream] += S.k[i].dur;
	for (int i = 0; i < S.nstreams; i++)
		if (sd[i] > 0 && (x->main_stream < 0 || sd[i] > sd[x->main_stream]))
			x->main_stream = i;
	free(sd);
	for (size_t i = 0; i < n; i++) {
		struct sk *k = &S.k[i];

		k->block = k->stream == x->main_stream && k->dur >= smallns &&
		    (k->cls == TT_COMPUTE || k->cls == TT_UNKNOWN);
	}
}

/*
 * Structure boundaries (buffer indices bd, the range of each in bk), by
 * source: annotations, else the main stream's period, else large gaps.
 * Returns their number; x->source says which.
 */
static size_t
step_bounds(struct stepx *x, size_t *bd, int *bk)
{
	size_t n = x->n, nb = 0;

	nrg = 0;
	nregion = 0;
	x->source = K_STEP;
	if (annot) {
		for (size_t i = 0; i < n; i++)
			if (fnmatch(annot, ap(S.k[i].name), 0) == 0) {
				bk[nb] = -1;
				bd[nb++] = i;
			}
		if (nb > 0) {
			x->source = K_ANNOTATED;
			if (bd[0] > 0) {
				/* Kernels before the first annotation are a structure too. */
				memmove(bd + 1, bd, nb * sizeof *bd);
				memmove(bk + 1, bk, nb * sizeof *bk);
				bd[0] = 0;
				bk[0] = -1;
				nb++;
			}
		}
	}
	if (x->source == K_STEP && n > 0) {
		int *seq = xreallocarray(NULL, n + 1, sizeof *seq);
		int *pos = xreallocarray(NULL, n + 1, sizeof *pos);
		int m = 0, repeats = 0;

		for (size_t i = 0; i < n; i++)
			if (S.k[i].stream == x->main_stream) {
				seq[m] = S.k[i].id;
				pos[m++] = (int)i;
			}
		if (m > 0)
			period(seq, 0, m, 0);
		for (size_t i = 0; i < nrg; i++)
			repeats += rg[i].period > 0;
		if (repeats > 0) {
			x->source = K_REPEAT;
			for (size_t i = 0; i < nrg; i++) {
				bk[nb] = (int)i;
				bd[nb++] = (size_t)pos[rg[i].lo];
			}
		} else
			nrg = 0;
		free(seq);
		free(pos);
	}
	if (x->source == K_STEP && n > 0) {
		int64_t ue = 0;
		int have = 0;

		for (size_t i = 0; i < n; i++) {
			const struct sk *k = &S.k[i];

			if (k->empty)
				continue;
			if (have && k->cs - ue >= largegap) {
				bk[nb] = -1;
				bd[nb++] = i;
			}
			if (!have || k->ce > ue)
				ue = k->ce;
			have = 1;
		}
		if (nb > 0) {
			x->source = K_GAP;
			/* The kernels before the first gap are a structure too. */
			memmove(bd + 1, bd, nb * sizeof *bd);
			memmove(bk + 1, bk, nb * sizeof *bk);
			bd[0] = 0;
			bk[0] = -1;
			nb++;
		}
	}
	if (nb == 0 && n > 0) {
		bk[0] = -1;
		bd[nb++] = 0;
	}
	bd[0] = 0;	/* earlier kernels belong to the first structure */
	return nb;
}

/* The structures of the step (x->sv, x->nst) from its boundaries. */
void
step_structures(struct stepx *x)
{
	size_t *bd = xreallocarray(NULL, x->n + 1, sizeof *bd);
	int *bk = xreallocarray(NULL, x->n + 1, sizeof *bk);
	size_t nb = step_bounds(x, bd, bk);

	x->sv = xcalloc(nb + 1, sizeof *x->sv);
	x->nst = 0;
	for (size_t b = 0; b < nb; b++) {
		struct st *s = &x->sv[x->nst];

		if (x->nst > 0 && bd[b] == x->sv[x->nst - 1].first)
			continue;	/* annotated kernels with one start */
		s->first = bd[b];
		s->kind = x->source;
		s->mainfirst = -1;
		if (bk[b] >= 0) {
			const struct range *g = &rg[bk[b]];

			s->kind = g->period > 0 ? K_REPEAT : K_IRREGULAR;
			s->period = g->period;
			s->rep = g->rep;
			s->region = g->region;
		}
		x->nst++;
	}
	for (size_t b = 0; b < x->nst; b++)
		x->sv[b].n = (b + 1 < x->nst ? x->sv[b + 1].first : x->n) - x->sv[b].first;
	free(bd);
	free(bk);
}
