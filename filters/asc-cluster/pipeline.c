/*
 * asc-cluster's pipeline groups: the stage imbalance and what acting on a
 * pp group's bubble wins, as the rank reports give them (asc-judge's
 * pipeline_stages and pipeline_stake).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "cluster.h"

/*
 * How a rank report cut its stage's last stretch: at a once-per-step part
 * (left out), or, without a kernel table, at the step's next op with
 * whatever once-per-step work runs before it; then whether another rank
 * of the job cut its own otherwise, so the two do not compare alike.
 */
static void
ppcut(const struct job *j, const struct ppst *x, struct buf *b)
{
	char t1[64], t2[64], nm[64];

	if (x->mbpart) {
		bprintf(b, " (its last stretch ends at its %s part: its %s of once-per-step work before %s left out)",
		    x->mbpart, hd(x->mbcut, t1), x->nextop);
		return;
	}
	if (!x->est || x->nextop == NULL)
		return;
	bprintf(b, " (its first forward estimated, and its last stretch runs to %s with whatever once-per-step work runs before it: no kernel table",
	    x->nextop);
	for (size_t a = 0; a < npps; a++)
		if (injob(j, pps[a].rank) && pps[a].rank != x->rank && pps[a].mbpart && pps[a].mbs > 0) {
			bprintf(b, "; %s's stage time leaves that work out, %s per step there (%s per micro-batch): the two are not cut alike, and differ by up to that much for a reason other than the stages",
			    rname(&ranks[pps[a].rank], nm), hd(pps[a].mbcut, t1), hd(pps[a].mbcut / pps[a].mbs, t2));
			break;
		}
	bprintf(b, ")");
}

/*
 * A pp group's stage imbalance as the rank reports give it (asc-judge's
 * pipeline_stages), for each rank of the job in the group, into b;
 * returns whether a stage is the slower by 10 % or more.
 */
int
ppimbalance(const struct job *j, const char *g, const char *peers, int npeer, struct buf *b)
{
	char t1[64], t2[64], t3[64], t4[64], nm[64];
	int imb = 0;

	for (size_t a = 0; a < npps; a++) {
		const struct ppst *x = &pps[a];
		int peer;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->here == UNSET ||
		    x->peer == UNSET || x->imb == NULL)
			continue;
		peer = strcmp(x->imb, "peer") == 0;
		bprintf(b, "%s%s's stage takes %s%s per micro-batch", b->len ? "; " : "", rname(&ranks[x->rank], nm),
		    x->est ? "about " : "", hd(x->here, t1));
		ppcut(j, x, b);
		bprintf(b, ", the peer stage (global rank%s %s) %s", npeer > 1 ? "s" : "", peers, hd(x->peer, t2));
		if (peer && x->perstep != UNSET) {
			bprintf(b, ": the peer stage is the slower, by %s per micro-batch (%.0f%%), %s per step of the bubble on %s",
			    hd(x->peer - x->here, t3), x->ratio * 100, hd(x->perstep, t4), rname(&ranks[x->rank], nm));
			/* that share goes only with a faster peer stage; moving
			 * work between the stages wins what asc-judge(1) counts */
			if (x->rebal != UNSET)
				bprintf(b, ", all of it won only were the peer stage made as fast, while rebalancing the stages wins about %s by the rank report's 1F1B critical path",
				    hd(x->rebal, t4));
		}
		else if (strcmp(x->imb, "here") == 0)
			bprintf(b, ": %s's stage is the slower, by %s per micro-batch (%.0f%%)",
			    rname(&ranks[x->rank], nm), hd(x->here - x->peer, t3), x->ratio * 100);
		else
			bprintf(b, ": balanced within 10%%");
		imb |= peer || strcmp(x->imb, "here") == 0;
	}
	return imb;
}

/*
 * What acting on a pp group's bubble could win, as the rank reports give
 * it (asc-judge's pipeline_stake), for each rank of the job in group g,
 * into b; returns the least of them, UNSET when no rank report gives it,
 * and in *ub whether that is an upper bound.
 */
int64_t
ppwon(const struct job *j, const char *g, struct buf *b, int *ub)
{
	char t1[64], t2[64], t3[64], nm[64], w[160];
	int64_t least = UNSET;

	for (size_t a = 0; a < npps; a++) {
		const struct ppst *x = &pps[a];

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->won == UNSET)
			continue;
		if (x->rebal != UNSET && x->rebal > 0) {
			/* the imbalance is a bound for a faster peer stage, not
			 * for the rebalancing the advice names */
			bprintf(b, "%s%s about %s", b->len ? "; " : "", rname(&ranks[x->rank], nm), hd(x->won, t1));
			if (x->wsched != UNSET && x->madv > 0)
				bprintf(b, " (rebalancing the stages, %s, and %s of the schedule's share with %d micro-batches)",
				    hd(x->rebal, t2), hd(x->wsched, t3), x->madv);
			else
				bprintf(b, " by rebalancing the stages");
			if (x->ub)
				bprintf(b, ", an estimate: %s has no kernel table", rname(&ranks[x->rank], nm));
			if (x->wimb != UNSET)
				bprintf(b, "; at most %s were the peer stage made as fast as %s's, an upper bound for that, not for rebalancing",
				    hd(x->wimb, t2), rname(&ranks[x->rank], nm));
		} else {
			bprintf(b, "%s%s at most %s", b->len ? "; " : "", rname(&ranks[x->rank], nm), hd(x->won, t1));
			if (x->wimb != UNSET && x->wsched != UNSET && x->madv > 0)
				bprintf(b, " (the imbalance, %s, and %s of the schedule's share with %d micro-batches)",
				    hd(x->wimb, t2), hd(x->wsched, t3), x->madv);
			if (x->ub)
				bprintf(b, ", %s", ubwhy(x->rank, w));
		}
		if (least == UNSET || x->won < least)
			least = x->won, *ub = x->ub;
	}
	return least;
}

/* Whether a rank report of group g counts no win from more micro-batches
 * (their net win is none, or untold without a kernel table). */
int
nomorembs(const struct job *j, const char *g)
{
	for (size_t a = 0; a < npps; a++)
		if (injob(j, pps[a].rank) && strcmp(pps[a].group, g) == 0 &&
		    pps[a].won != UNSET && pps[a].wsched == UNSET)
			return 1;
	return 0;
}
