/*
 * asc-cluster: one verdict across the ranks of a job.  Reads the record
 * streams of many profiles (saved records.ndjson files, or one stream of
 * several profiles) and writes "cluster" records: the time breakdown of
 * every rank and step side by side, slow ranks per dimension, the
 * alignment of every collective across the ranks of its group (arrival
 * skew, late rank, wait it caused), the rank that is late at most
 * collectives with the cause chain from its own breakdown, and slow links
 * of the communication matrix.  With -o DIR also cluster.json and
 * cluster_report.md.
 *
 * Ranks are compared on absolute time: each rank's origin is exact decimal
 * text, so origin + start_ns is integer ns arithmetic, never a double.
 * Memory is per rank, per step, per collective, per idle window and per
 * long Notify_Wait: kernels other than communication ones and host
 * events are skipped unread.
 *
 * Its parts, in filters/asc-cluster/ (cluster.h): read.c reads the
 * records, jobs.c groups the profiles into jobs, peers.c the groups and
 * the peers not in the input, late.c the late rank, links.c the links,
 * out.c the output helpers.  Here: main, and per job the figures
 * computed into a struct cres, then the writers of its records, report
 * and recommendations.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "filter.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "asc-cluster/cluster.h"

static const char *dimname[ND] = {
	"compute", "comm_exposed", "comm_overlapped", "free", "preparing",
	"tail", "service"
};
/* The dimensions judged for slow ranks, with the cause each one names. */
static const enum dim judged[] = { D_COMPUTE, D_PREP, D_FREE, D_EXPOSED };
#define NJUDGED	4
static const char *dimcause[ND] = {
	"more compute on that rank (load imbalance or a slower device)",
	"more exposed communication (it waits for peers or a slow link)",
	"", "the device idles inside the step on that rank (host launch, syncs)",
	"a longer preparing before the first kernel on that rank (host work between the step's start and its first kernel: the dataloader's next batch, input copies)",
	"", ""
};

int quiet;
int rc = EX_OK;

/* The job record, its warnings and the report's head. */
static void
wjob(struct job *j)
{
	int nr = j->nr, nkern = 0;

	for (int i = 0; i < nr; i++)
		if (ranks[j->r[i]].nstep && ranks[j->r[i]].steps[0].from_kernels)
			nkern++;
	/* The job. */
	doc_begin();
	rbegin("job", j);
	out_i64(&rb, "ranks", j->nids);
	out_key(&rb, "profiles");
	buf_addc(&rb, '[');
	for (int i = 0; i < nr; i++) {
		if (i)
			buf_addc(&rb, ',');
		out_esc(&rb, ranks[j->r[i]].profile, strlen(ranks[j->r[i]].profile));
	}
	buf_addc(&rb, ']');
	out_cstr(&rb, "parent", ranks[j->r[0]].parent);
	out_cstr(&rb, "metadata", ranks[j->r[0]].sig);
	out_i64(&rb, "ranks_from_kernels", nkern);
	out_i64(&rb, "ranks_from_step_trace", nr - nkern);
	out_i64(&rb, "jobs_in_input", njob);
	{
		struct buf why = {0};

		out_cstr(&rb, "confidence", jobconf(j, &why));
		out_key(&rb, "confidence_reasons");
		buf_add(&rb, why.p, why.len);
		free(why.p);
	}
	out_i64(&rb, "warnings", j->nwarn);
	rput();
	jsarray("warnings");
	for (int i = 0; i < j->nwarn; i++) {
		struct jwarn *w = &j->warn[i];

		rbegin("warning", j);
		out_cstr(&rb, "code", w->code);
		out_cstr(&rb, "message", w->msg);
		out_key(&rb, "profiles");
		buf_addc(&rb, '[');
		out_esc(&rb, ranks[w->a].profile, strlen(ranks[w->a].profile));
		buf_addc(&rb, ',');
		out_esc(&rb, ranks[w->b].profile, strlen(ranks[w->b].profile));
		buf_addc(&rb, ']');
		if (strcmp(w->code, "duplicate_rank") == 0)
			out_i64(&rb, "rank", ranks[w->a].rankid);
		else
			out_null(&rb, "rank");
		rput();
	}

	mdsection("head");
}

/* Ranks and their steps. */
static void
wranks(const struct job *j)
{
	int nr = j->nr;

	/* Ranks and their steps. */
	jsarray("ranks");
	for (int i = 0; i < nr; i++) {
		struct rank *r = &ranks[j->r[i]];
		char *rel = NULL;

		rbegin("rank", j);
		put_rank(r);
		if (r->device >= 0)
			out_i64(&rb, "device", r->device);
		else
			out_null(&rb, "device");
		out_cstr(&rb, "breakdown_source", r->nstep && r->steps[0].from_kernels ? "kernels" : "step_trace");
		out_i64(&rb, "steps", r->nstep);
		out_key(&rb, "bandwidth");
		buf_addc(&rb, '{');
		for (int b = 0; b < r->nbw; b++) {
			char t[160];

			if (b)
				buf_addc(&rb, ',');
			out_esc(&rb, r->bw[b].name, strlen(r->bw[b].name));
			snprintf(t, sizeof t, ":{\"size_mb\":%.6g,\"time_ms\":%.6g,\"bandwidth_gbps\":%.4f}",
			    r->bw[b].size_mb, r->bw[b].time_ms, r->bw[b].size_mb / r->bw[b].time_ms);
			buf_adds(&rb, t);
		}
		buf_addc(&rb, '}');
		if (outdir && r->input && strcmp(r->input, "-") != 0) {
			char *d = xstrdup(r->input), *sl = strrchr(d, '/'), *rep;

			if (sl)
				*sl = '\0';
			rep = xmalloc(strlen(sl ? d : ".") + 32);
			sprintf(rep, "%s/anomaly_report.md", sl ? d : ".");
			if (access(rep, R_OK) == 0)
				rel = relpath(outdir, rep);
			free(rep);
			free(d);
		}
		out_cstr(&rb, "report", rel);
		free(rel);
		rput();
	}
	jsarray("rank_steps");
	for (int i = 0; i < nr; i++) {
		struct rank *r = &ranks[j->r[i]];

		for (int s = 0; s < r->nstep; s++) {
			struct rstep *st = &r->steps[s];
			int64_t *v = st->from_kernels ? st->v : st->st;
			int64_t diff = UNSET;

			rbegin("rank_step", j);
			put_rank(r);
			out_cstr(&rb, "step", st->step);
			out_cstr(&rb, "breakdown_source", st->from_kernels ? "kernels" : "step_trace");
			for (int d = 0; d < ND; d++)
				put_ns(&rb, dimname[d], v[d]);
			/* Agreement with torch_npu's own figures of the step. */
			if (st->from_kernels && st->have_st)
				for (int d = 0; d < D_TAIL; d++)
					if (v[d] != UNSET && st->st[d] != UNSET) {
						int64_t x = llabs(v[d] - st->st[d]);

						if (diff == UNSET || x > diff)
							diff = x;
					}
			if (diff == UNSET)
				out_null(&rb, "step_trace_max_diff_ns");
			else
				out_i64(&rb, "step_trace_max_diff_ns", diff);
			rput();
		}
	}
}

/* Slow ranks: per dimension, the median rank's mean. */
static void
medians(const struct job *j, struct cres *x)
{
	int nr = j->nr;
	int64_t *vals = xcalloc((size_t)nr + 1, sizeof *vals), *med = x->med, mstep;

	/* Slow ranks: per dimension, the deviation from the median rank. */
	for (int d = 0; d < ND; d++) {
		int n = 0;

		for (int i = 0; i < nr; i++)
			if ((vals[n] = rmean(&ranks[j->r[i]], d)) != UNSET)
				n++;
		med[d] = n ? median(vals, n) : UNSET;
	}
	mstep = med[D_SERVICE];
	x->mstep = mstep;
	free(vals);
}

/* The report's link to a rank's own report, when there is one beside
 * its input (its directory, else the working directory). */
static char *
mdreport(const struct rank *r)
{
	char *d, *sl, rep[4096], *rel = NULL;

	if (!outdir || !r->input)
		return NULL;
	d = xstrdup(r->input);
	if ((sl = strrchr(d, '/')))
		*sl = '\0';
	snprintf(rep, sizeof rep, "%s/anomaly_report.md", sl ? d : ".");
	if (access(rep, R_OK) == 0)
		rel = relpath(outdir, rep);
	free(d);
	return rel;
}

/* The report's time per rank, and the head of its slow-rank table: each
 * rank's means, its link (render.c's urljv), and the rule's figures. */
static void
mdranks(const struct job *j, const struct cres *x)
{
	static const enum dim shown[] = { D_SERVICE, D_COMPUTE, D_EXPOSED, D_OVERLAP, D_FREE, D_PREP };
	jv rs = jv_array();
	int64_t mstep = x->mstep;
	double share = rules_num("cluster.slow_rank_step_share");

	if (!md)
		return;
	for (int i = 0; i < j->nr; i++) {
		struct rank *r = &ranks[j->r[i]];
		char *rel = mdreport(r);
		jv m = jv_object();

		for (size_t k = 0; k < sizeof shown / sizeof shown[0]; k++)
			m = jv_object_set(m, jv_string(dimname[shown[k]]), nsjv(rmean(r, shown[k])));
		rs = jv_array_append(rs, JV_OBJECT(jv_string("mean"), m,
		    jv_string("prep_from_step_trace"), jv_bool(prepfromst(r)),
		    jv_string("link"), rel ? urljv(rel) : jv_null()));
		free(rel);
	}
	doc_view("rank_means", rs);
	doc_view("slow_share_pct", jv_number(share * 100));
	doc_view("slow_threshold_ns", nsjv(mstep == UNSET ? UNSET : (int64_t)(share * (double)mstep)));
	doc_view("msprof_ratio", jv_number(rules_num("cluster.msprof_range_ratio")));
	mdsection("ranks");
}

/* Slow ranks: per dimension, the deviation from the median rank. */
static void
wdims(const struct job *j, const struct cres *x)
{
	char t1[64];
	int nr = j->nr;
	const int64_t *med = x->med;
	jv ranges = jv_array();
	int64_t mstep = x->mstep;

	jsarray("dimensions");
	{
		int64_t thr = mstep == UNSET ? UNSET : (int64_t)(rules_num("cluster.slow_rank_step_share") * (double)mstep);
		struct buf slow = {0};

		for (int q = 0; q < NJUDGED; q++) {
			enum dim d = judged[q];
			int64_t mn = UNSET, mx = UNSET, sum = 0;
			int n = 0, imn = -1, imx = -1;
			double range = -1;
			struct buf names = {0};
			int nslow = 0;

			for (int i = 0; i < nr; i++) {
				int64_t v = rmean(&ranks[j->r[i]], d);

				if (v == UNSET)
					continue;
				if (mn == UNSET || v < mn)
					mn = v, imn = i;
				if (mx == UNSET || v > mx)
					mx = v, imx = i;
				sum += v;
				n++;
			}
			if (n > 0 && sum > 0)
				range = (double)(mx - mn) / ((double)sum / n);
			rbegin("dimension", j);
			out_cstr(&rb, "dimension", dimname[d]);
			out_i64(&rb, "ranks_measured", n);
			put_ns(&rb, "median", med[d]);
			put_ns(&rb, "min", mn);
			put_ns(&rb, "max", mx);
			out_cstr(&rb, "min_profile", imn >= 0 ? ranks[j->r[imn]].profile : NULL);
			out_cstr(&rb, "max_profile", imx >= 0 ? ranks[j->r[imx]].profile : NULL);
			if (range >= 0) {
				char t[32];

				snprintf(t, sizeof t, "%.4f", range);
				out_raw(&rb, "range_ratio", t, strlen(t));
			} else
				out_null(&rb, "range_ratio");
			out_bool(&rb, "msprof_analyze_flag", range > rules_num("cluster.msprof_range_ratio"));
			put_ns(&rb, "threshold", thr);
			rput();
			for (int i = 0; n > 1 && thr != UNSET && i < nr; i++) {
				struct rank *r = &ranks[j->r[i]];
				int64_t v = rmean(r, d);
				char nm[64];

				if (v == UNSET || v - med[d] <= thr)
					continue;
				nslow++;
				if (names.len)
					buf_adds(&names, ", ");
				buf_adds(&names, rname(r, nm));
				rb.len = 0;
				out_begin(&rb, "cluster");
				out_cstr(&rb, "kind", "slow_rank");
				out_cstr(&rb, "job", j->name);
				put_rank(r);
				out_cstr(&rb, "dimension", dimname[d]);
				put_ns(&rb, "value", v);
				put_ns(&rb, "median", med[d]);
				put_ns(&rb, "deviation", v - med[d]);
				put_ns(&rb, "threshold", thr);
				out_cstr(&rb, "cause", dimcause[d]);
				buf_add(&slow, rb.p, rb.len);
				buf_adds(&slow, "}\n");
				addreco(v - med[d], "%s: %s is %s above the median rank per step: %s.",
				    rname(r, nm), dimname[d], hd(v - med[d], t1), dimcause[d]);
			}
			/* The record's range_ratio has 4 decimals, the table 3
			 * of the double: rounded once, from the double. */
			ranges = jv_array_append(ranges, range >= 0 ? jv_number(range) : jv_null());
			buf_free(&names);
		}
		jsarray("slow_ranks");
		for (char *p = slow.p, *e; p && *p; p = e + 1) {
			e = strchr(p, '\n');
			rb.len = 0;
			buf_add(&rb, p, (size_t)(e - p - 1));
			rput();
		}
		buf_free(&slow);
	}
	doc_view("range_ratio_3", ranges);
	mdsection("dimensions");
}

/* Collectives: the same op of a group in the same step on several
 * ranks, their skew, late rank and the wait it causes. */
static void
collect(const struct job *j, size_t cfirst, size_t cend, struct cres *x)
{
	const char *upg = NULL;
	int64_t up, upleast;
	int64_t *vals = xcalloc((size_t)j->nr + 1, sizeof *vals);
	struct coll *cl = NULL;
	size_t ncl = 0, nsig = 0;
	double skew_min = x->skew_min;
	int *latecount = x->latecount;

	/* A peer outside the input that every captured rank waits for. */
	up = uncaptured_worst(j, &upg, &upleast);
	/* Collectives: the same op of a group in the same step on several
	 * ranks. */
	for (size_t a = cfirst, b; a < cend; a = b) {
		struct coll c = { a, 0, -1, -1, 0, 0, 0, 0, -1, 0, 0, 0 };
		int64_t mx = INT64_MIN, mn = INT64_MAX;

		for (b = a; b < cend && strcmp(cis[b].group, cis[a].group) == 0 &&
		    strcmp(cis[b].step, cis[a].step) == 0 && strcmp(cis[b].op, cis[a].op) == 0 &&
		    cis[b].occ == cis[a].occ; b++)
			;
		c.n = b - a;
		if (c.n < 2 || !cis[a].collective)
			continue;
		for (size_t i = a; i < b; i++) {
			if (cis[i].start_abs == UNSET)
				goto skip;
			if (cis[i].start_abs > mx)
				mx = cis[i].start_abs, c.late = cis[i].rank;
			if (cis[i].start_abs < mn)
				mn = cis[i].start_abs, c.early = cis[i].rank;
		}
		c.skew = mx - mn;
		c.at = mx;
		for (size_t i = a, k = 0; i < b; i++) {
			c.caused += mx - cis[i].start_abs;
			if (cis[i].rank != c.late) {
				vals[k++] = cis[i].start_abs;
				if (cis[i].wait_ms >= 0)
					c.waited_ms = (c.waited_ms < 0 ? 0 : c.waited_ms) + cis[i].wait_ms;
			}
		}
		c.delay = mx - median(vals, (int)c.n - 1);
		/* Every captured rank of the group waits longer for a peer
		 * outside the input: while it is late, this skew costs
		 * nothing; what it causes shows once that peer is fixed. */
		c.fixed = c.caused;
		if (up >= 0 && strcmp(cis[a].group, upg) == 0 && upleast > c.skew) {
			c.covered = 1;
			c.caused = 0;
		}
		/* The latest captured rank itself waits (comm records, above
		 * the few µs of handshake) in a group with members not in
		 * the input: one of those arrives later still, every wait
		 * ends at its arrival, and this rank causes none of it. */
		for (size_t i = a; i < b; i++)
			if (cis[i].rank == c.late && cis[i].wait_ms * 1e6 >= skew_min / 10 &&
			    grouppartial(c.late, cis[a].group, c.n)) {
				c.selfwait = 1;
				c.caused = 0;
			}
		if ((double)c.skew >= skew_min) {
			nsig++;
			latecount[c.late]++;
		}
		cl = xreallocarray(cl, ncl + 1, sizeof *cl);
		cl[ncl++] = c;
skip:
		;
	}
	x->up = up, x->upg = upg, x->upleast = upleast;
	x->cl = cl, x->ncl = ncl, x->nsig = nsig;
	free(vals);
}

static void
wcolls(const struct job *j, const struct cres *x)
{
	struct coll *cl = x->cl;
	size_t ncl = x->ncl;
	int64_t up = x->up;
	double skew_min = x->skew_min;

	jsarray("collectives");
	for (size_t k = 0; k < ncl; k++) {
		struct coll *c = &cl[k];
		struct cinst *ci = &cis[c->first];
		size_t kern = 0;

		for (size_t i = 0; i < c->n; i++)
			kern += (size_t)ci[i].from_kernel;
		rbegin("collective", j);
		out_cstr(&rb, "group", ci->group[0] ? ci->group : NULL);
		out_cstr(&rb, "step", ci->step[0] ? ci->step : NULL);
		out_cstr(&rb, "op", ci->op);
		out_i64(&rb, "ranks", (int64_t)c->n);
		out_cstr(&rb, "start_source", srcname(kern, c->n));
		put_ns(&rb, "skew", c->skew);
		out_cstr(&rb, "late_profile", ranks[c->late].profile);
		if (ranks[c->late].rankid >= 0)
			out_i64(&rb, "late_rank", ranks[c->late].rankid);
		else
			out_null(&rb, "late_rank");
		out_cstr(&rb, "first_profile", ranks[c->early].profile);
		put_ns(&rb, "late_delay", c->delay);
		put_ns(&rb, "wait_caused", c->caused);
		put_ns(&rb, "wait_once_peer_fixed", c->fixed);
		if (c->covered)
			out_i64(&rb, "covered_by_peer", up);
		else
			out_null(&rb, "covered_by_peer");
		out_bool(&rb, "covered_by_uncaptured", c->selfwait);
		if (c->waited_ms >= 0) {
			char t[32];

			snprintf(t, sizeof t, "%.6g", c->waited_ms);
			out_raw(&rb, "others_wait_ms", t, strlen(t));
		} else
			out_null(&rb, "others_wait_ms");
		out_bool(&rb, "significant", (double)c->skew >= skew_min);
		rput();
	}
}

/* The worst collectives: the table from the collective records, by
 * wait caused, and the rule's figures. */
static void
mdcolls(const struct cres *x)
{
	if (!md || !x->ncl)
		return;
	doc_view("skew_min_us", jv_number(x->skew_min / 1000));
	doc_view("top_collectives", jv_number((double)(size_t)rules_num("cluster.top_collectives")));
	mdsection("collectives");
}

/* The rank reports' priority of a stake against the median step: P1,
 * P2, P3 (P0 is the first's alone). */
static int64_t bandstep;

static int
band(int64_t stake)
{
	double sh = bandstep == UNSET || bandstep <= 0 || stake == UNSET ? 0 :
	    (double)stake / (double)bandstep;

	return sh >= 0.10 ? 1 : sh >= 0.02 ? 2 : 3;
}

/* By stake, except that an upper bound that stands only because a
 * figure is unmeasured comes after the measured ones of its band. */
static int
bybandstake(const void *a, const void *b)
{
	const struct reco *x = a, *y = b;
	int bx = band(x->stake), by = band(y->stake);

	if (bx != by)
		return bx < by ? -1 : 1;
	if (x->ub != y->ub)
		return x->ub ? 1 : -1;
	return bystake(a, b);
}

/*
 * The rank reports' own first findings (P0), to which the list points:
 * it holds only what the ranks show together.  *least: the least of
 * their stakes (UNSET: none given), which a cluster item must reach to
 * be P0 itself: it would then lead that rank's list too.
 */
static void
ranktops(const struct job *j, int64_t *least)
{
	jv tops = jv_array();

	*least = UNSET;
	for (size_t i = 0; i < nrtop; i++) {
		const struct rtop *r = &rtops[i];

		if (!injob(j, r->rank))
			continue;
		if (r->stake != UNSET && (*least == UNSET || r->stake < *least))
			*least = r->stake;
		if (md)
			tops = jv_array_append(tops, JV_OBJECT(jv_string("profile"), jv_string(ranks[r->rank].profile),
			    jv_string("rank"), ranks[r->rank].rankid >= 0 ? jv_number(ranks[r->rank].rankid) : jv_null(),
			    jv_string("id"), jv_string(r->id), jv_string("stake_ns"), nsjv(r->stake),
			    jv_string("upper_bound"), jv_bool(r->ub), jv_string("headline"), jv_string(r->head)));
	}
	if (md)
		doc_view("rank_tops", tops);
	else
		jv_free(tops);
}

/* Where the rank reports hold a group's stake in a finding of another
 * priority than pri (their finding sums several groups'): say so.  A
 * finding that gives the group no share of its stake does not count it:
 * said apart, with no share. */
static void
grouppri(const struct job *j, const char *g, int pri, struct buf *o)
{
	char nm[64], t1[64], t2[64];
	int n = 0, z = 0, peers = 1;

	for (size_t i = 0; g && i < ngs; i++) {
		const struct gstake *s = &gss[i];

		if (!injob(j, s->rank) || strcmp(s->group, g) != 0 || s->rpri == pri || s->rpri > 3)
			continue;
		if (s->stake == 0) {
			z++;
			continue;
		}
		if (n++ == 0)
			bprintf(o, "; P%d here, on this item's own stake: the rank reports count the group in a finding of theirs that sums several groups' stakes, ", pri);
		else
			bprintf(o, ", ");
		bprintf(o, "%s's %s (P%d, %s per step, %s of it this group's)", rname(&ranks[s->rank], nm),
		    s->rid, s->rpri, s->rstake == UNSET ? "none" : hd(s->rstake, t1),
		    s->stake == UNSET ? "none" : hd(s->stake, t2));
	}
	if (z == 0)
		return;
	for (size_t i = 0; i < ngs; i++)
		if (injob(j, gss[i].rank) && strcmp(gss[i].group, g) == 0 && gss[i].stake == 0 &&
		    (gss[i].how == NULL || strcmp(gss[i].how, "peers") != 0))
			peers = 0;
	bprintf(o, n ? "; and " : "; P%d here, on this item's own stake: ", pri);
	z = 0;
	for (size_t i = 0; i < ngs; i++) {
		const struct gstake *s = &gss[i];

		if (!injob(j, s->rank) || strcmp(s->group, g) != 0 || s->rpri == pri || s->rpri > 3 || s->stake != 0)
			continue;
		bprintf(o, "%s%s's %s (P%d, %s per step)", z++ ? ", " : "", rname(&ranks[s->rank], nm),
		    s->rid, s->rpri, s->rstake == UNSET ? "none" : hd(s->rstake, t1));
	}
	bprintf(o, " name%s the group but leave it out of %s stake%s", z > 1 ? "" : "s", z > 1 ? "their" : "its",
	    peers ? " (its time there is its ops' wait for their peers, at stake on those peers)" : "");
}

/* The recommendations, on the rank reports' priority scale. */
static void
wrecos(const struct job *j, int64_t mstep)
{
	int64_t top;

	jsarray("recommendations");
	bandstep = mstep;
	if (nreco > 1)	/* never a NULL base, even for zero items */
		qsort(recos, (size_t)nreco, sizeof *recos, bybandstake);
	ranktops(j, &top);
	for (int k = 0; k < nreco; k++) {
		/* The rank reports' scale (asc-judge): by the share of the
		 * median step at stake, P0 only for the first, and only
		 * when no less than a rank's own P0. */
		double sh = mstep == UNSET || mstep <= 0 || recos[k].stake == UNSET ? 0 :
		    (double)recos[k].stake / (double)mstep;
		int pri = k == 0 && sh >= 0.05 && (top == UNSET || recos[k].stake >= top) ? 0 :
		    sh >= 0.10 ? 1 : sh >= 0.02 ? 2 : 3;
		struct buf txt = {0};

		bprintf(&txt, "%s", recos[k].text);
		if (txt.len && txt.p[txt.len - 1] == '.')
			txt.p[--txt.len] = '\0';
		grouppri(j, recos[k].group, pri, &txt);
		bprintf(&txt, ".");
		rbegin("recommendation", j);
		out_i64(&rb, "priority", pri);
		put_ns(&rb, "time_at_stake", recos[k].stake);
		out_cstr(&rb, "text", txt.p);
		out_bool(&rb, "upper_bound", recos[k].ub);
		rput();
		buf_free(&txt);
	}
	mdsection("recommendations");
}

static void
analyse(struct job *j, size_t cfirst, size_t cend)
{
	struct cres x = { .skew_min = rules_num("cluster.skew_min_us") * 1000 };
	struct lres lr;

	x.latecount = xcalloc((size_t)nrank, sizeof *x.latecount);
	/* The previous job's recommendations are written: free them. */
	for (int k = 0; k < nreco; k++)
		free(recos[k].text);
	nreco = 0;
	wjob(j);
	wranks(j);
	medians(j, &x);
	mdranks(j, &x);
	wdims(j, &x);
	collect(j, cfirst, cend, &x);
	wcolls(j, &x);
	lateranks(j, &x);
	mdcolls(&x);
	linkscan(j, &lr);
	wlinks(j, &lr);
	peerwaits(j);
	wrecos(j, x.mstep);
	free(lr.s);
	free(x.cl);
	free(x.latecount);
}

static void
mkoutdir(const char *d)
{
	/* 0750 whatever the umask, as the other outputs; one that exists is left as it is. */
	if (mkdir(d, 0750) == 0) {
		if (chmod(d, 0750) != 0)
			dieerr("%s", d);
	} else if (errno != EEXIST)
		dieerr("%s", d);
}

/* Written aside and renamed when complete: never a half-written file. */
static FILE *
openout(const char *name, struct aside *a)
{
	char *path = xmalloc(strlen(outdir) + strlen(name) + 2);

	sprintf(path, "%s/%s", outdir, name);
	if (aside_open(a, path) != 0)
		dieerr("%s", path);
	free(path);
	return a->fp;
}

int
main(int argc, char **argv)
{
	int onejob = 0;
	/* No -k: a bad record stops the whole job; no -m: lines of 64 MiB. */
	struct filter_opts o = { .maxline = (size_t)1 << 26, .common = "r:",
	    .args = FILTER_ARGS({ .letter = 'o', .to = &outdir }),
	    .flags = FILTER_FLAGS({ .letter = '1', .to = &onejob }, { .letter = 'q', .to = &quiet }),
	    .usage = "[-1q] [-o dir] [-r rules] [file ...]" };
	/* Each operand opened by readopen(): one rank's stream or directory. */
	const struct filter f = {
		.rec = readrec,
		.open = readopen,
		.stdout_asis = 1,
	};
	const char *rulesf;
	struct aside mda, jsa;
	FILE *jfp = NULL;

	filter_getopt(argc, argv, "1o:q", &o);
	rules_load(rulesf = o.rules);
	if (filter_run(argc - optind, argv + optind, &o, &f) != EX_OK)
		exit(EX_DATA);
	if (nrank == 0) {
		fprintf(stderr, "%s: no profile record in the input\n", progname);
		exit(EX_DATA);
	}
	makejobs(onejob);
	dupcheck();
	if (njob > 1 && !quiet)
		warnmsg("%d unrelated jobs in the input (parent directory or capture metadata differ): analysed apart, not merged", njob);
	/* Collectives grouped by job, group, step, op and occurrence. */
	if (ncis > 1)
		qsort(cis, ncis, sizeof *cis, cmpci);
	if (outdir) {
		mkoutdir(outdir);
		md = openout("cluster_report.md", &mda);
		jfp = openout("cluster.json", &jsa);
		buf_adds(&js, "{\n\"asc_version\": ");
		out_esc(&js, asc_version(), strlen(asc_version()));
		buf_adds(&js, ",\n\"rules_file\": ");
		out_esc(&js, rules_file(rulesf), strlen(rules_file(rulesf)));
		buf_adds(&js, ",\n\"rules\": ");
		buf_adds(&js, rules_json());
		buf_adds(&js, ",\n\"jobs\": [\n");
	}
	for (int j = 0, k = 0; j < njob; j++) {
		size_t a = (size_t)k, b;

		for (b = a; b < ncis && ranks[cis[b].rank].job == j; b++)
			;
		if (outdir) {
			if (j)
				buf_adds(&js, "]},\n");
			buf_adds(&js, "{\"job\": ");
			out_esc(&js, jobs[j].name, strlen(jobs[j].name));
			buf_adds(&js, ",\n\"records\": [\n");
			jsfirst = 1;
		}
		analyse(&jobs[j], a, b);
		k = (int)b;
	}
	if (outdir) {
		buf_adds(&js, "]}\n]\n}\n");
		if (fwrite(js.p, 1, js.len, jfp) != js.len || aside_commit(&jsa) != 0)
			dieerr("%s/cluster.json", outdir);
		mdfoot(asc_version(), rules_file(rulesf));
		if (aside_commit(&mda) != 0)
			dieerr("%s/cluster_report.md", outdir);
	}
	xclose_stdout();
	return rc;
}
