/*
 * asc-cluster's groups and peers: the waits of the input ranks on peers
 * the input does not hold (from HCCL tasks, or the time in the group's
 * ops when there are none), what fixing them wins back, pipeline stages
 * and transfer-bound groups as the rank reports give them.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "rules.h"
#include "util.h"

#include "cluster.h"

/* Rank index ri's exposed wait for peer of group g, mean per step; UNSET
 * when its tasks name no such wait. */
static int64_t
meanpeerwait(int ri, const char *g, int64_t peer)
{
	int64_t sum = 0, steps = 0;

	for (size_t b = 0; b < npw; b++)
		if (pws[b].rank == ri && strcmp(pws[b].group, g) == 0 && pws[b].peer == peer) {
			sum += pws[b].exposed;
			steps++;
		}
	return steps ? sum / steps : UNSET;
}

/*
 * The peer outside the input that holds back every captured rank of its
 * group longest: the least of their exposed waits for it per step (what
 * it costs each of them at least), in *least; its group in *g.  -1 when
 * no captured rank waits for one at least cluster.skew_min_us.
 */
int64_t
uncaptured_worst(const struct job *j, const char **g, int64_t *least)
{
	int64_t best = -1;

	*least = UNSET;
	for (size_t a = 0; a < npw; a++) {
		const struct pwait *w = &pws[a];
		int64_t lo = UNSET;

		if (!injob(j, w->rank) || captured(j, w->group, w->peer) >= 0)
			continue;
		for (size_t k = 0; k < nrg; k++) {	/* every captured member */
			int64_t v;

			if (!injob(j, rgs[k].rank) || strcmp(rgs[k].group, w->group) != 0)
				continue;
			v = meanpeerwait(rgs[k].rank, w->group, w->peer);
			if (v == UNSET)
				v = 0;
			if (lo == UNSET || v < lo)
				lo = v;
		}
		if (lo != UNSET && lo >= (int64_t)(rules_num("cluster.skew_min_us") * 1000) &&
		    (*least == UNSET || lo > *least)) {
			*least = lo;
			*g = w->group;
			best = w->peer;
		}
	}
	return best;
}

/* The reduce-scatter group (data parallel) of rank ri, or NULL. */
static const struct rgroup *
dpgroup(int ri)
{
	for (size_t q = 0; q < nrg; q++)
		if (rgs[q].rank == ri && rgs[q].role && strncmp(rgs[q].role, "dp", 2) == 0 &&
		    rgs[q].kind && strstr(rgs[q].kind, "reduce-scatter"))
			return &rgs[q];
	return NULL;
}

/*
 * The advice for a transfer-bound group with members not in the input,
 * on the evidence its own rank reports use (asc-judge(1)): the compute
 * each rank runs between the group's gradient (embd: the last
 * EmbeddingDenseBackward kernel) and its ops, the most that overlapping
 * it with compute can hide.  Into adv.
 */
static void
xferadvice(const struct job *j, size_t k, struct buf *adv)
{
	const char *g = rgs[k].group, *dp = NULL;
	struct buf few = {0}, unk = {0}, rs = {0};
	int nfew = 0, nenough = 0, nunk = 0;
	char t1[64], t2[64], nm[64];

	for (size_t q = k; q < nrg; q++) {
		const struct rgroup *x = &rgs[q], *d;
		int64_t steps, el;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		if ((d = dpgroup(x->rank)) != NULL && dp == NULL)
			dp = d->role;
		steps = ranks[x->rank].nstep > 0 ? ranks[x->rank].nstep : 1;
		el = (x->exposed != UNSET ? x->exposed : x->elapsed) / steps;
		if (x->gradcu != UNSET && x->gradgap != UNSET && x->gradcu / steps < el) {
			bprintf(&few, "%s%s %s in the %s between them", nfew++ ? ", " : "",
			    rname(&ranks[x->rank], nm), hd(x->gradcu / steps, t1), hd(x->gradgap / steps, t2));
		} else if (x->gradcu != UNSET)
			nenough++;
		else if (x->exposed == UNSET)
			bprintf(&unk, "%s%s", nunk++ ? ", " : "", rname(&ranks[x->rank], nm));
	}
	if (dp)
		bprintf(&rs, "run it concurrently with the %s reduce-scatter (a different group and peer) or ", dp);
	if (nfew)
		bprintf(adv, ": only this compute per step runs between the group's gradient (its last EmbeddingDenseBackward kernel) and its ops, as the rank report%s give%s it: %s, so overlapping it with compute hides at most that; %sshrink it (reduce the gradient in a lower precision: an FP32 gradient in BF16 moves half the data)",
		    nfew > 1 ? "s" : "", nfew > 1 ? "" : "s", few.p, rs.len ? rs.p : "");
	else if (nunk && !nenough)
		bprintf(adv, ": whether compute is left after its gradients are ready to hide it under cannot be told on %s (no kernel table; on a first pipeline stage the embedding gradient is computed last): overlap it with that compute if there is some, else %sshrink it (reduce the gradient in a lower precision)",
		    unk.p, rs.len ? rs.p : "");
	else
		bprintf(adv, ": overlap it with compute (issue it as soon as its gradients are ready, under the rest of the backward) or shrink it");
	buf_free(&few);
	buf_free(&unk);
	buf_free(&rs);
}

/*
 * What the rank reports say overlapping or shrinking group g's ops could
 * win (their stake_by_group), the most over the job's ranks of g, with
 * each rank's figure in txt; UNSET unless every such rank gives one;
 * in *ub whether the rank report marks that most an upper bound.
 */
/* grpstake: a rank report counts only the half transfer, its compute
 * after the gradient unknown (no kernel table); xferreco words it */
static int gsunknown;

/* The compute after its gradient that a rank of the same role as group g
 * gives (a twin stage with a kernel table), into w; 0 if none. */
static int
twincompute(const struct job *j, const char *g, int ri, char *w, size_t n)
{
	const char *role = NULL;
	char nm[64], t[64];

	for (size_t q = 0; q < nrg && role == NULL; q++)
		if (rgs[q].rank == ri && strcmp(rgs[q].group, g) == 0)
			role = rgs[q].role;
	if (role == NULL)
		return 0;
	for (size_t i = 0; i < ngs; i++) {
		if (gss[i].rank == ri || !injob(j, gss[i].rank) || strcmp(gss[i].how, "shrink") != 0 ||
		    gss[i].compute == UNSET)
			continue;
		for (size_t q = 0; q < nrg; q++)
			if (rgs[q].rank == gss[i].rank && strcmp(rgs[q].group, gss[i].group) == 0 &&
			    rgs[q].role && strcmp(rgs[q].role, role) == 0) {
				snprintf(w, n, "; on %s, %s follows its %s gradient", rname(&ranks[gss[i].rank], nm),
				    hd(gss[i].compute, t), role);
				return 1;
			}
	}
	return 0;
}

static int64_t
grpstake(const struct job *j, const char *g, struct buf *txt, int *nr, int *ub)
{
	int64_t most = UNSET;
	int n = 0;
	char t1[64], t2[64], t3[64], nm[64], w[160], tw[160];

	gsunknown = 0;

	for (size_t q = 0; q < nrg; q++) {
		const struct rgroup *x = &rgs[q];
		const struct gstake *s = NULL;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		for (size_t i = 0; i < ngs && s == NULL; i++)
			if (gss[i].rank == x->rank && strcmp(gss[i].group, g) == 0 && gss[i].stake != UNSET)
				s = &gss[i];
		if (s == NULL)
			return UNSET;
		if (strcmp(s->how, "shrink") == 0 && s->compute != UNSET && s->halfxfer != UNSET)
			bprintf(txt, "%s%s %s (the %s of compute after its gradient, and %s, half its transfer, by reducing in BF16)",
			    n++ ? ", " : "", rname(&ranks[x->rank], nm), hd(s->stake, t1), hd(s->compute, t2), hd(s->halfxfer, t3));
		else if (strcmp(s->how, "shrink") == 0 && s->halfxfer != UNSET) {
			if (!twincompute(j, g, x->rank, tw, sizeof tw))
				tw[0] = 0;
			bprintf(txt, "%s%s %s (half its transfer, by reducing in BF16; the compute after its gradient, under which overlapping it could hide more, is not known: no kernel table%s)",
			    n++ ? ", " : "", rname(&ranks[x->rank], nm), hd(s->stake, t1), tw);
			gsunknown = 1;
		} else
			bprintf(txt, "%s%s %s", n++ ? ", " : "", rname(&ranks[x->rank], nm), hd(s->stake, t1));
		if (s->ub)
			bprintf(txt, " (%s)", ubwhy(x->rank, w));
		if (most == UNSET || s->stake > most)
			most = s->stake, *ub = s->ub;
	}
	*nr = n;
	return most;
}

/*
 * The recommendation for a transfer-bound group with members not in the
 * input: its figures, the advice its rank reports' evidence supports,
 * and the stake (theirs, or at most the whole time).
 */
static void
xferreco(const struct job *j, size_t k, int64_t least, int64_t stake, int64_t mostwait,
    const char *bound, const char *out, int nout, const char *gtxt, int ngtxt, int ub)
{
	struct buf adv = {0}, sk = {0};
	char t1[64], t2[64], t3[64];

	xferadvice(j, k, &adv);
	if (stake != least && gsunknown)
		bprintf(&sk, "%s per step is at stake by what the rank report%s can measure, more only as far as compute after its gradient can hide it: %s", hd(stake, t3), ngtxt > 1 ? "s" : "", gtxt);
	else if (stake != least)
		bprintf(&sk, "at most %s per step is at stake, by the rank report%s: %s", hd(stake, t3), ngtxt > 1 ? "s" : "", gtxt);
	else if (ub && ngtxt)
		bprintf(&sk, "at most the whole %s per step is at stake, by the rank report%s: %s", hd(least, t3),
		    ngtxt > 1 ? "s" : "", gtxt);
	else
		bprintf(&sk, "at most the whole %s per step is at stake", hd(least, t3));
	addreco(stake, "Group %s (%s) spends %s per step in its %s, transfer-bound: by the bandwidth table %s; at most %s per step can be a wait on global rank%s %s (not in this input)%s; %s.",
	    rgs[k].group, rgs[k].role ? rgs[k].role : "no role", hd(least, t2), rgs[k].kind ? rgs[k].kind : "ops",
	    bound, hd(mostwait, t1), nout > 1 ? "s" : "", out, adv.p, sk.p);
	recogroup(rgs[k].group);
	if (ub)
		recoub();
	buf_free(&adv);
	buf_free(&sk);
}

/* A group's size as "%lld" printed it, UNSET included. */
static jv
sizejv(int64_t size)
{
	char t[32];

	if (size != UNSET)
		return jv_number((double)size);
	snprintf(t, sizeof t, "%lld", (long long)size);
	return jv_string(t);
}

/*
 * The bandwidth table covering most of group k's ops' elapsed time on
 * every captured rank: moving data, at most the rest a wait.  The ranks'
 * figures, into b (the recommendation's words) and *rows (the report's:
 * ns, MB and GB/s); the most that can be a wait in *mostwait.  How
 * many ranks, 0 when one is not transfer-bound.
 */
static int
xferbound(const struct job *j, size_t k, struct buf *b, jv *rows, int64_t *mostwait)
{
	const char *g = rgs[k].group;
	int nbound = 0;
	char t1[64], t3[64], nm[64];

	for (size_t q = k; q < nrg; q++) {
		const struct rgroup *x = &rgs[q];
		double el = 0, xm = 0, mb = 0;
		int64_t steps;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		for (size_t c = 0; c < ncis; c++)
			if (cis[c].rank == x->rank && strcmp(cis[c].group, g) == 0 && cis[c].elapse_ms >= 0) {
				el += cis[c].elapse_ms;
				xm += cis[c].xfer_ms;
				mb += cis[c].xfer_mb;
			}
		if (el <= 0 || xm <= el / 2) {
			nbound = 0;
			break;
		}
		steps = ranks[x->rank].nstep > 0 ? ranks[x->rank].nstep : 1;
		bprintf(b, "%s%s %.4g MB in %s of %s (%.3g GB/s)", nbound++ ? ", " : "",
		    rname(&ranks[x->rank], nm), mb / (double)steps, hd((int64_t)(xm * 1e6) / steps, t1),
		    hd((int64_t)(el * 1e6) / steps, t3), mb / xm);
		/* the same figures for the report */
		*rows = jv_array_append(*rows, JV_OBJECT(jv_string("rank"), rankjv(&ranks[x->rank]),
		    jv_string("mb"), jv_number(mb / (double)steps), jv_string("xfer_ns"), nsjv((int64_t)(xm * 1e6) / steps),
		    jv_string("elapsed_ns"), nsjv((int64_t)(el * 1e6) / steps), jv_string("gbps"), jv_number(mb / xm)));
		if (*mostwait == UNSET || (int64_t)((el - xm) * 1e6) / steps > *mostwait)
			*mostwait = (int64_t)((el - xm) * 1e6) / steps;
	}
	return nbound;
}

/*
 * A group whose ranks in the input have no HCCL tasks (no peer_wait) but
 * whose parallel_group_info name gives its global ranks: the members the
 * input does not hold, and the time each captured rank spends in the
 * group's ops per step.  Without tasks the wait on them is not measured.
 */
static void
nometapeers(const struct job *j, size_t k, int in, int64_t size, jv rl, jv *pv)
{
	const char *g = rgs[k].group;
	struct buf out = {0}, bound = {0}, wtxt = {0}, gtxt = {0};
	int64_t least = UNSET, mostwait = UNSET, stake, won;
	int nout = 0, nbound = 0, ngtxt = 0, ub = 0;
	char t2[64];
	jv pids = jv_array(), who = jv_array(), rows = jv_array(), b;

	for (size_t a = 0; a < npw; a++)
		if (injob(j, pws[a].rank) && strcmp(pws[a].group, g) == 0)
			goto none;	/* the tasks measured it */
	for (int p = 0; p < rgs[k].npeer; p++) {
		int64_t id = rgs[k].peer[p];
		int held = 0;

		for (int i = 0; i < j->nr; i++)
			held |= ranks[j->r[i]].rankid == id;
		if (!held) {
			bprintf(&out, "%s%lld", nout++ ? ", " : "", (long long)id);
			pids = jv_array_append(pids, jv_number((double)id));
		}
	}
	if (nout == 0)
		goto none;
	for (size_t q = k; q < nrg; q++) {
		const struct rgroup *x = &rgs[q];
		int64_t ns, steps;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		steps = ranks[x->rank].nstep > 0 ? ranks[x->rank].nstep : 1;
		ns = (x->exposed != UNSET ? x->exposed : x->elapsed) / steps;
		who = jv_array_append(who, JV_OBJECT(jv_string("rank"), rankjv(&ranks[x->rank]),
		    jv_string("ns"), nsjv(ns), jv_string("exposed"), jv_bool(x->exposed != UNSET)));
		if (least == UNSET || ns < least)
			least = ns;
	}
	if (least == UNSET || least < (int64_t)(rules_num("cluster.skew_min_us") * 1000))
		goto none;
	nbound = xferbound(j, k, &bound, &rows, &mostwait);
	/* a pipeline's stake, or a transfer-bound group's: what its rank
	 * reports say acting could win */
	stake = least;
	if (rgs[k].role && strncmp(rgs[k].role, "pp", 2) == 0 &&
	    (won = ppwon(j, g, &wtxt, &ub)) != UNSET && won < least)
		stake = won;
	else if (nbound && (won = grpstake(j, g, &gtxt, &ngtxt, &ub)) != UNSET && won < least)
		stake = won;
	rbegin("peer_wait", j);
	out_cstr(&rb, "group", g);
	out_null(&rb, "peer");
	out_key(&rb, "peer_global_ranks");
	buf_addc(&rb, '[');
	buf_adds(&rb, out.p);
	buf_addc(&rb, ']');
	out_bool(&rb, "in_input", 0);
	out_cstr(&rb, "role", rgs[k].role);
	out_key(&rb, "waits");
	buf_adds(&rb, "null");
	put_ns(&rb, "time_at_stake", stake);
	out_cstr(&rb, "measured", stake != least ? (nbound ? "no HCCL tasks: what the rank reports say overlapping or shrinking its ops could win, not the wait on the peer" :
	    "no HCCL tasks: what the rank reports say acting on the pipeline bubble could win, not the wait on the peer") :
	    "no HCCL tasks: the time in the group's ops, not the wait on the peer");
	out_bool(&rb, "transfer_bound", nbound > 0);
	put_ns(&rb, "wait_at_most", nbound ? mostwait : UNSET);
	rput();
	/* No HCCL tasks here: the report gives the ops' time, not waits
	 * (asc-cluster.jq's peers). */
	b = JV_OBJECT(jv_string("tasks"), jv_false(), jv_string("group"), jv_string(g),
	    jv_string("role"), rgs[k].role ? jv_string(rgs[k].role) : jv_null(),
	    jv_string("ops"), rgs[k].kind ? jv_string(rgs[k].kind) : jv_null(),
	    jv_string("size"), sizejv(size), jv_string("in"), jv_number(in), jv_string("ranks"), jv_copy(rl),
	    jv_string("peers"), pids, jv_string("spent"), who);
	pids = who = jv_invalid();
	if (nbound) {
		b = jv_object_set(b, jv_string("bound"), JV_OBJECT(jv_string("rows"), rows,
		    jv_string("most_wait_ns"), nsjv(mostwait)));
		rows = jv_invalid();
		xferreco(j, k, least, stake, mostwait, bound.p, out.p, nout, gtxt.p, ngtxt, ub);
		goto done;
	}
	if (rgs[k].role && strncmp(rgs[k].role, "pp", 2) == 0) {
		struct buf st = {0}, pp = {0};
		int imb = ppimbalance(j, g, out.p, nout, &st);

		if (st.len == 0)
			bprintf(&pp, "; in a pipeline this time is also the bubble: no rank report in the input compares the stages (none given, or too few send/recv ops or no op after the last); rebalance the stages where they differ, and raise the micro-batch count or use an interleaved schedule for the schedule's own warm-up and flush");
		else
			bprintf(&pp, "; in a pipeline this time is also the bubble: %s (the rank reports' pipeline stages, from the send/recv ops' times)%s",
			    st.p, imb && nomorembs(j, g) ? "; rebalance the stages (what it wins: above); the rank reports count no win from more micro-batches (the device idle each micro-batch carries outweighs the warm-up and flush they save, or without a kernel table it cannot be told): remove that idle before raising the micro-batch count" :
			    imb ? "; rebalance the stages (what it wins: above), and raise the micro-batch count or use an interleaved schedule for the rest, the schedule's own warm-up and flush" :
			    "; the bubble is the schedule's own: raise the micro-batch count or use an interleaved schedule");
		/* pipeline.c's phrases, the recommendation's too */
		if (st.len)
			b = jv_object_set(b, jv_string("stage_imbalance"), jv_string(st.p));
		if (wtxt.len)
			b = jv_object_set(b, jv_string("win"), jv_string(wtxt.p));
		addreco(stake, "Group %s (%s) has members not in this input (global rank%s %s, by parallel_group_info): the ranks in this input spend %s per step in its %s%s%s%s; the input holds no HCCL tasks to measure the wait on %s: profile global rank%s %s (or all ranks)%s.",
		    g, rgs[k].role ? rgs[k].role : "no role", nout > 1 ? "s" : "", out.p, hd(least, t2),
		    rgs[k].kind ? rgs[k].kind : "ops",
		    wtxt.len ? ", of which acting could win, by the rank reports: " : " (all of it at most at stake: no rank report in this input gives what acting could win",
		    wtxt.len ? wtxt.p : "", wtxt.len ? "" : ")", nout > 1 ? "them" : "it", nout > 1 ? "s" : "", out.p, pp.p);
		recogroup(g);
		if (ub && stake != least)
			recoub();
		buf_free(&st);
		buf_free(&pp);
	} else
		addreco(least, "Group %s (%s) has members not in this input (global rank%s %s, by parallel_group_info): the ranks in this input spend %s per step in its %s (all of it at most at stake); the input holds no HCCL tasks to measure the wait on %s: profile global rank%s %s (or all ranks).",
		    g, rgs[k].role ? rgs[k].role : "no role", nout > 1 ? "s" : "", out.p, hd(least, t2),
		    rgs[k].kind ? rgs[k].kind : "ops", nout > 1 ? "them" : "it", nout > 1 ? "s" : "", out.p);
	recogroup(g);
done:
	*pv = jv_array_append(*pv, b);
none:
	jv_free(pids);
	jv_free(who);
	jv_free(rows);
	buf_free(&out);
	buf_free(&bound);
	buf_free(&wtxt);
	buf_free(&gtxt);
}

/*
 * A group whose every member is in the input, with ops not under compute
 * on each of them (kernels, or step_trace_time.csv's Overlapped 0 for a
 * rank without kernels): the least of their exposed time per step is
 * communication no peer can explain (the others' excess is their wait
 * for the latest of them): overlap it with compute.
 */
static void
exposedgroup(const struct job *j, size_t k, int in, int64_t size)
{
	const char *g = rgs[k].group;
	int64_t least = UNSET;
	struct buf who = {0};
	int n = 0;
	char t1[64], t2[64], nm[64];

	if (size == UNSET || size < 2 || in < size)
		return;
	for (size_t q = k; q < nrg; q++) {
		const struct rgroup *x = &rgs[q];
		int64_t ns, steps;
		int st = 0;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		steps = ranks[x->rank].nstep > 0 ? ranks[x->rank].nstep : 1;
		if (x->exposed != UNSET)
			ns = x->exposed / steps;
		else if (rmean(&ranks[x->rank], D_OVERLAP) == 0)
			ns = x->elapsed / steps, st = 1;
		else
			goto out;	/* part may be under compute: not told */
		bprintf(&who, "%s%s %s%s", n++ ? ", " : "", rname(&ranks[x->rank], nm), hd(ns, t1),
		    st ? " (elapsed; step_trace_time.csv Overlapped 0)" : "");
		if (least == UNSET || ns < least)
			least = ns;
	}
	if (n < 2 || least < (int64_t)(rules_num("cluster.skew_min_us") * 1000))
		goto out;
	addreco(least, "Group %s (%s, %s) has all its %lld ranks in this input and none of its ops overlap compute (per step not under compute: %s): at least %s per step of it is exposed on every rank (what a rank has beyond that is its wait for the latest one): overlap it with compute%s.",
	    g, rgs[k].role ? rgs[k].role : "no role", rgs[k].kind ? rgs[k].kind : "ops", (long long)size,
	    who.p, hd(least, t2),
	    rgs[k].role && strncmp(rgs[k].role, "dp", 2) == 0 ?
	    " (data-parallel gradients: the reduce-scatter under the backward, the all-gather under the next forward, e.g. Megatron's overlap_grad_reduce / overlap_param_gather)" : "");
	recogroup(g);
out:
	buf_free(&who);
}

/*
 * Do the captured ranks' long waits on the peer end together?  Each long
 * Notify_Wait of the first rank against the nearest-ending one of every
 * other rank of the group: the largest gap in *spread, the first rank's
 * waits in *nw.  Only for ranks whose tasks belong to this group alone
 * (the tasks carry no group).  Returns 0 when it cannot be told.
 */
static int
sameend(const struct job *j, const char *g, int64_t peer, int64_t *spread, int *nw)
{
	int first = -1, others = 0;

	*spread = 0;
	*nw = 0;
	for (int i = 0; i < j->nr; i++) {
		int ri = j->r[i], ng = 0, ing = 0;

		for (size_t k = 0; k < nrg; k++)
			if (rgs[k].rank == ri) {
				ng++;
				ing |= strcmp(rgs[k].group, g) == 0;
			}
		if (!ing)
			continue;
		if (ng != 1)
			return 0;
		if (first < 0) {
			first = ri;
			continue;
		}
		others++;
		for (size_t a = 0; a < nlw; a++) {
			int64_t best = INT64_MAX;

			if (lws[a].rank != first || lws[a].peer != peer)
				continue;
			for (size_t b = 0; b < nlw; b++)
				if (lws[b].rank == ri && lws[b].peer == peer && llabs(lws[b].end - lws[a].end) < best)
					best = llabs(lws[b].end - lws[a].end);
			if (best == INT64_MAX)
				return 0;
			if (best > *spread)
				*spread = best;
		}
	}
	for (size_t a = 0; a < nlw; a++)
		*nw += lws[a].rank == first && lws[a].peer == peer;
	return first >= 0 && others > 0 && *nw > 0;
}

/* A comm_op peer's rank as comm_peer gives it: global where mapped. */
static int64_t
gpeer(int ri, const char *g, int64_t local)
{
	for (size_t a = 0; a < npw; a++)
		if (pws[a].rank == ri && pws[a].local == local && strcmp(pws[a].group, g) == 0)
			return pws[a].peer;
	return local;
}

/* The steps of rank ri's comm ops. */
static int64_t
copsteps(int ri)
{
	int64_t steps = 0;

	for (size_t a = 0; a < ncop; a++) {
		int dup = 0;

		for (size_t c = 0; c < a && !dup; c++)
			dup = cops[c].rank == ri && strcmp(cops[c].step, cops[a].step) == 0;
		steps += cops[a].rank == ri && !dup;
	}
	return steps;
}

/* Rank ri's wait on peer `first` in op c not under compute. */
static int64_t
firstwait(const struct cop *c, int ri, const char *g, int64_t first)
{
	int64_t lw = 0;

	for (int i = 0; i < c->n; i++)
		if (c->peer[i] != UNSET && c->ex[i] != UNSET && gpeer(ri, g, c->peer[i]) == first)
			lw += c->ex[i];
	return lw;
}

/*
 * Rank ri's next comm op of group g from cops[*a] on (*a moved past it),
 * with in *lw its wait on peer `first` (firstwait); NULL after the last:
 * the walk of pairwait and nextpeers.
 */
static const struct cop *
nextwaitop(size_t *a, int ri, const char *g, int64_t first, int64_t *lw)
{
	while (*a < ncop) {
		const struct cop *c = &cops[(*a)++];

		if (c->rank == ri && strcmp(c->group, g) == 0) {
			*lw = firstwait(c, ri, g, first);
			return c;
		}
	}
	return NULL;
}

/*
 * Rank ri's own wait for peer p by its HCCL tasks: per step, in each op
 * of group g at most its wait on `first` and not under compute, as
 * nextpeers counts it (into *per); and in op `op` of step `step`, the
 * whole wait (*w) and the part not under compute (*ex).  0 when that op
 * has no such wait.
 */
int
pairwait(int ri, const char *g, int64_t first, int64_t p, const char *step, const char *op,
    int64_t *per, int64_t *w, int64_t *ex)
{
	int64_t steps = copsteps(ri), sum = 0, lw;
	int found = 0;
	const struct cop *c;

	for (size_t a = 0; (c = nextwaitop(&a, ri, g, first, &lw)) != NULL;) {
		int64_t v = 0;

		for (int i = 0; i < c->n; i++) {
			if (c->peer[i] == UNSET || c->ownex[i] == UNSET || gpeer(ri, g, c->peer[i]) != p)
				continue;
			v += c->ownex[i] < lw ? c->ownex[i] : lw;
			if (c->op && strcmp(c->op, op) == 0 && strcmp(c->step, step) == 0 && c->own[i] != UNSET)
				*w = c->own[i], *ex = c->ownex[i], found = 1;
		}
		sum += v;
	}
	*per = steps ? sum / steps : 0;
	return found && steps;
}

/*
 * After the peer `first`, the peers rank ri waits for next, as its own
 * report gives them (asc-judge(1)): in each op of the group, a peer's
 * own wait not under compute, at most the wait on `first` there (fixing
 * `first` leaves no more of it), summed and per step (the steps of the
 * rank's comm ops), at least cluster.skew_min_us, largest first, into
 * *pl unless NULL ({rank, ns} each); how many, in *top the longest; in
 * *rem the longest of them in each op, summed per step: what fixing
 * `first` leaves.
 */
static int
nextpeers(int ri, const char *g, int64_t first, jv *pl, int64_t *top, int64_t *topw, int64_t *rem)
{
	int64_t pe[64], pw[64], steps = copsteps(ri), lw;
	int n = 0, m;
	const struct cop *c;

	*top = -1;
	*topw = UNSET;
	*rem = 0;
	for (size_t a = 0; (c = nextwaitop(&a, ri, g, first, &lw)) != NULL;) {
		int64_t best = 0;

		for (int i = 0; i < c->n; i++) {
			int64_t p, v;
			int x;

			if (c->peer[i] == UNSET || c->ownex[i] == UNSET || (p = gpeer(ri, g, c->peer[i])) == first)
				continue;
			v = c->ownex[i] < lw ? c->ownex[i] : lw;
			if (v > best)
				best = v;
			for (x = 0; x < n && pe[x] != p; x++)
				;
			if (x == n) {
				if (n == 64)
					continue;
				pe[n] = p;
				pw[n++] = 0;
			}
			pw[x] += v;
		}
		*rem += best;
	}
	if (steps == 0)
		return 0;
	*rem /= steps;
	for (int x = m = 0; x < n; x++)
		if (pw[x] / steps >= (int64_t)(rules_num("cluster.skew_min_us") * 1000)) {
			pe[m] = pe[x];
			pw[m++] = pw[x] / steps;
		}
	n = m;
	for (int x = 1; x < n; x++)
		for (int y = x; y > 0 && pw[y - 1] < pw[y]; y--) {
			int64_t t = pw[y], u = pe[y];

			pw[y] = pw[y - 1], pe[y] = pe[y - 1];
			pw[y - 1] = t, pe[y - 1] = u;
		}
	for (int x = 0; x < n && pl; x++)
		*pl = jv_array_append(*pl, JV_OBJECT(jv_string("rank"), jv_number((double)pe[x]),
		    jv_string("ns"), nsjv(pw[x])));
	if (n) {
		*top = pe[0];
		*topw = pw[0];
	}
	return n;
}

/*
 * What fixing the peer `first` wins back on rank ri, whose exposed wait
 * for it is wait per step: the wait less what the next-latest peers
 * leave (nextpeers), when one of them is listed and that remainder
 * reaches comm.straggler_min_ms, as the rank report's
 * won_back_by_fixing_ms (asc-judge(1)); else the whole wait.
 */
static int64_t
wonback(int ri, const char *g, int64_t first, int64_t wait)
{
	int64_t min = (int64_t)(rules_num("comm.straggler_min_ms") * 1e6), top, topw, rem;
	int n;

	/* what is left is at most the wait on `first` in each op: a wait
	 * below the floor leaves none (and nextpeers, which reads every
	 * op, runs only for the waits that matter) */
	if (wait < min)
		return wait;
	n = nextpeers(ri, g, first, NULL, &top, &topw, &rem);
	if (n > 0 && rem >= min)
		return wait - rem;
	return wait;
}

/* A peer of a group that the input does not hold, and the captured
 * ranks' waits on it. */
struct pw {
	const struct pwait *w;
	const char *g;
	jv	 rl;			/* the group's ranks in the input */
	int64_t	 size, least, leastwon, nr;
	int	 in, less;
	struct buf who, won;		/* per rank: its wait, what fixing wins back */
	jv	 waits;			/* per rank: {rank, ns}, for the report */
};

/* Its record; 0 when its least wait is below cluster.skew_min_us. */
static int
pwrec(const struct job *j, struct pw *p)
{
	const struct pwait *w = p->w;
	const char *g = p->g;
	struct buf who = {0}, won = {0};
	int64_t least = UNSET, leastwon = UNSET, nr = 0;
	int less = 0;
	char t1[64], nm[64];

	rbegin("peer_wait", j);
	out_cstr(&rb, "group", g);
	out_i64(&rb, "peer", w->peer);
	out_bool(&rb, "in_input", 0);
	out_key(&rb, "waits");
	buf_addc(&rb, '[');
	for (int i = 0; i < j->nr; i++) {
		int ri = j->r[i];
		int64_t sum = meanpeerwait(ri, g, w->peer), wb;

		if (sum == UNSET)
			continue;
		if (nr++)
			buf_addc(&rb, ',');
		buf_adds(&rb, "{\"profile\":");
		out_esc(&rb, ranks[ri].profile, strlen(ranks[ri].profile));
		if (ranks[ri].rankid >= 0)
			out_i64(&rb, "rank", ranks[ri].rankid);
		else
			out_null(&rb, "rank");
		put_ns(&rb, "exposed_wait_per_step", sum);
		wb = wonback(ri, g, w->peer, sum);
		put_ns(&rb, "won_back_per_step", wb);
		buf_addc(&rb, '}');
		if (least == UNSET || sum < least)
			least = sum;
		if (leastwon == UNSET || wb < leastwon)
			leastwon = wb;
		less |= wb < sum;
		buf_adds(&who, nr > 1 ? ", " : "");
		bprintf(&who, "%s %s", rname(&ranks[ri], nm), hd(sum, t1));
		p->waits = jv_array_append(p->waits, JV_OBJECT(jv_string("rank"), rankjv(&ranks[ri]),
		    jv_string("ns"), nsjv(sum)));
		buf_adds(&won, nr > 1 ? ", " : "");
		bprintf(&won, "%s %s", rname(&ranks[ri], nm), hd(wb, t1));
	}
	buf_addc(&rb, ']');
	put_ns(&rb, "time_at_stake", leastwon);
	rput();
	p->who = who, p->won = won, p->least = least, p->leastwon = leastwon, p->nr = nr, p->less = less;
	if (least == UNSET || least < (int64_t)(rules_num("cluster.skew_min_us") * 1000)) {
		buf_free(&p->who);
		buf_free(&p->won);
		return 0;
	}
	return 1;
}

/* For the report (asc-cluster.jq's peers): the group, who waits how
 * long, and whether the waits end together (released by the peer's
 * arrival: it is late, the links are not slow). */
static jv
pwview(const struct job *j, struct pw *p)
{
	int64_t spread;
	int nw, steps = 0;
	jv b = JV_OBJECT(jv_string("tasks"), jv_true(), jv_string("group"), jv_string(p->g),
	    jv_string("size"), p->size == UNSET ? jv_null() : jv_number((double)p->size),
	    jv_string("in"), jv_number(p->in), jv_string("ranks"), jv_copy(p->rl),
	    jv_string("peer"), jv_number((double)p->w->peer), jv_string("waits"), p->waits);

	p->waits = jv_invalid();
	for (int i = 0; i < j->nr; i++)
		if (ranks[j->r[i]].nstep > steps)
			steps = ranks[j->r[i]].nstep;
	if (sameend(j, p->g, p->w->peer, &spread, &nw))
		b = jv_object_set(b, jv_string("same_end"), JV_OBJECT(jv_string("spread_ns"), nsjv(spread),
		    jv_string("waits"), jv_number(nw),
		    jv_string("together"), jv_bool((double)spread <= rules_num("cluster.skew_min_us") * 100),
		    jv_string("one_step"), jv_bool(steps == 1),
		    jv_string("active1"), jv_bool(ranks[j->r[0]].active == 1)));
	return b;
}

/* The peers each captured rank waits for next: fixing the latest one
 * leaves them; all of them late is a group-wide skew.  And the
 * recommendation. */
static void
pwnext(const struct job *j, struct pw *p, jv *view)
{
	const struct pwait *w = p->w;
	const char *g = p->g;
	int64_t size = p->size, leastwon = p->leastwon;
	int in = p->in, less = p->less;
	struct buf who = p->who, won = p->won;
	char nm[64];

	struct buf rx = {0};
	int wide = 0;
	const char *widen = "";
	char wnm[64];
	jv rows = jv_array(), after = jv_null();

	for (int i = 0; i < j->nr; i++) {
		jv pl = jv_array();
		int64_t top, topw, rem;
		int n = nextpeers(j->r[i], g, w->peer, &pl, &top, &topw, &rem);
		char h[64], h2[64];

		if (n == 0) {
			jv_free(pl);
			continue;
		}
		/* waits for every other peer: the skew is group-wide */
		if (size != UNSET && n == size - 2) {
			if (!wide) {
				widen = rname(&ranks[j->r[i]], wnm);
				jv_free(after);
				after = rankjv(&ranks[j->r[i]]);
			}
			wide = 1;
		}
		rows = jv_array_append(rows, JV_OBJECT(jv_string("rank"), rankjv(&ranks[j->r[i]]),
		    jv_string("wide"), jv_bool(size != UNSET && n == size - 2), jv_string("peers"), pl,
		    jv_string("rem_ns"), nsjv(rem)));
		if (rx.len == 0) {
			bprintf(&rx, "; fixing it leaves %s per step of waits not under compute on the next-latest peers on %s (rank %lld the longest, %s)",
			    hd(rem, h2), rname(&ranks[j->r[i]], nm), (long long)top, hd(topw, h));
		}
	}
	*view = jv_object_set(*view, jv_string("next"), JV_OBJECT(jv_string("rows"), rows,
	    jv_string("wide_after"), after));
	if (wide) {
		buf_adds(&rx, ": every other peer arrives after ");
		buf_adds(&rx, widen);
		buf_adds(&rx, " too, the skew is group-wide");
	}
	{
		char sz[96] = "";

		if (size != UNSET)
			snprintf(sz, sizeof sz, "; the input holds %d of the group's %lld ranks", in, (long long)size);
		/* the stake is what fixing it wins back, as
		 * the rank reports give it */
		if (less) {
			buf_adds(&who, "; what fixing it wins back, the rest being the waits on the next-latest peers: ");
			buf_add(&who, won.p, won.len);
		}
		if (wide)
			addreco(leastwon, "Rank %lld of group %s, which is not in this input, holds back the ranks that are (exposed wait per step: %s)%s%s: profile all ranks to see why they are late.",
			    (long long)w->peer, g, who.p ? who.p : "", sz, rx.p);
		else
			addreco(leastwon, "Rank %lld of group %s, which is not in this input, holds back the ranks that are (exposed wait per step: %s)%s%s: profile rank %lld (or all ranks) to see why it is late.",
			    (long long)w->peer, g, who.p ? who.p : "", sz, rx.len ? rx.p : "", (long long)w->peer);
	}
	buf_free(&rx);
	p->who = who;
}

/*
 * Groups and the peers not in the input: per group, its size and the
 * job's ranks in it; per peer rank the input does not hold, the exposed
 * wait of each captured rank for it (mean per step), from their HCCL
 * tasks.  Peer ranks are the tasks' own numbers (local to the group).
 */
void
peerwaits(const struct job *j)
{
	jv pv = jv_array();

	jsarray("groups");
	for (size_t k = 0; k < nrg; k++) {
		const char *g = rgs[k].group;
		int64_t size = UNSET;
		int in = 0, seen = 0;
		jv rl = jv_array();

		if (!injob(j, rgs[k].rank))
			continue;
		for (size_t q = 0; q < k; q++)
			if (injob(j, rgs[q].rank) && strcmp(rgs[q].group, g) == 0)
				seen = 1;
		if (seen)
			continue;
		for (size_t q = k; q < nrg; q++)
			if (injob(j, rgs[q].rank) && strcmp(rgs[q].group, g) == 0) {
				if (rgs[q].size != UNSET && rgs[q].size > size)
					size = rgs[q].size;
				in++;
				rl = jv_array_append(rl, rankjv(&ranks[rgs[q].rank]));
			}
		rbegin("group", j);
		out_cstr(&rb, "group", g);
		if (size == UNSET)
			out_null(&rb, "size");
		else
			out_i64(&rb, "size", size);
		out_i64(&rb, "ranks_in_input", in);
		rput();
		/* the peers of this group that the input does not hold */
		for (size_t a = 0; a < npw; a++) {
			const struct pwait *w = &pws[a];
			struct pw p = { .w = w, .g = g, .rl = rl, .size = size, .least = UNSET,
			    .leastwon = UNSET, .in = in, .waits = jv_array() };
			int dup = 0;
			jv v;

			if (!injob(j, w->rank) || strcmp(w->group, g) != 0 ||
			    captured(j, g, w->peer) >= 0)
				continue;
			for (size_t b = 0; b < a; b++)
				if (injob(j, pws[b].rank) && strcmp(pws[b].group, g) == 0 &&
				    pws[b].peer == w->peer)
					dup = 1;
			if (dup || !pwrec(j, &p)) {
				jv_free(p.waits);
				continue;
			}
			v = pwview(j, &p);
			pwnext(j, &p, &v);
			pv = jv_array_append(pv, v);
			buf_free(&p.who);
			buf_free(&p.won);
		}
		nometapeers(j, k, in, size, rl, &pv);
		exposedgroup(j, k, in, size);
		jv_free(rl);
	}
	doc_view("skew_min_us", jv_number(rules_num("cluster.skew_min_us")));
	doc_view("peers", pv);
	mdsection("peers");
}
