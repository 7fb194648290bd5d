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
#include "md.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#define UNSET	INT64_MIN

enum dim { D_COMPUTE, D_EXPOSED, D_OVERLAP, D_FREE, D_PREP, D_TAIL, D_SERVICE, ND };
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

struct rstep {
	char	*step;
	int	 from_kernels;		/* else step_trace_time.csv */
	int64_t	 v[ND];			/* UNSET: not measurable */
	int64_t	 start_abs;		/* step window start, UNSET if unknown */
	int	 have_st;
	int64_t	 st[ND];		/* torch_npu's figures of the same step */
	/* host time in the preparing window by cause family (asc-attrib's
	 * prelaunch attribution); untraced UNSET: no such record */
	int	 nhc;
	struct hcause { char *fam, *head; int64_t ns; } *hc;
	int64_t	 untraced;
};

struct tbw {
	char	*name;
	double	 size_mb, time_ms;
};

struct rank {
	int	 file;			/* input index: names repeat across files */
	char	*profile, *path, *input, *sig, *parent;
	int	 rankid, device;
	int64_t	 origin;		/* absolute ns; UNSET until the profile record */
	int	 job;
	int	 nstep;
	struct rstep *steps;
	int	 nbw;
	struct tbw *bw;
	int	 seen;			/* its profile record was read */
	int	 active;		/* profiler_info schedule active steps, -1 unknown */
};

struct cinst {
	int	 rank;
	char	*group, *step, *op;
	int	 occ;			/* n-th op of that name in the step */
	int	 collective;
	int64_t	 start_abs;
	int	 from_kernel;
	double	 wait_ms;		/* -1: unknown */
	double	 elapse_ms;		/* communication.json's; -1: unknown */
	double	 xfer_ms, xfer_mb;	/* its busiest transport's bandwidth row */
};

struct link {
	int	 rank;
	char	*group, *cls, *link, *transport, *op;
	double	 size_mb, time_ms, bw;
	int	 fromdb;		/* src analysis.db CommAnalyzerMatrix */
};

/* A rank's wait for one peer of a group in one step, from its HCCL
 * tasks (asc-comm's comm_peer); and the groups each rank belongs to
 * (comm_group), with the size the capture gives. */
struct pwait {
	int	 rank;
	char	*group, *step;
	int64_t	 peer, wait, exposed;
	int64_t	 own;			/* all of its waits on that peer, UNSET unknown */
	int64_t	 ownex;			/* the part of own not under compute */
	int64_t	 local;			/* the tasks' own number of the peer */
};

/* A comm_op's waits per peer (local ranks, as its tasks number them). */
struct cop {
	int	 rank;
	char	*group, *step;
	int	 n;
	int64_t	*peer, *ex, *ownex;	/* exposed_wait_ns, own_exposed_wait_ns */
};
static struct cop *cops;
static size_t ncop;

/* A rank report's pipeline stages (asc-judge's pipeline_stages): this
 * stage's and the peer stage's time per micro-batch, in ns. */
struct ppst {
	int	 rank;
	char	*group, *imb;		/* imbalance: peer, here, none */
	int64_t	 here, peer, perstep;	/* perstep: imbalance_ms_per_step */
	double	 ratio;			/* slower_by_ratio */
	int	 est, spans;		/* here_estimated; spans_ms's length */
	/* what the rank report says acting could win (pipeline_stake):
	 * won_ms, of it imbalance_ms and schedule_won_ms with
	 * microbatches_advised; UNSET without it */
	int64_t	 won, wimb, wsched;
	int	 madv;
	/* the device idle (no kernel) from its last send/recv op, lastop,
	 * to nextop, the step's next communication op; UNSET unknown */
	char	*lastop, *nextop;
	int64_t	 lastidle;
};
static struct ppst *pps;
static size_t npps;

struct rgroup {
	int	 rank;
	char	*group;
	int64_t	 size;
	char	*role, *kind;		/* parallel_group_info name, ops_kind */
	int64_t	 elapsed, exposed;	/* over the capture; exposed UNSET: no kernels */
	int64_t	*peer;			/* peer_global_ranks */
	int	 npeer;
	/* embd groups with kernels: from the group's gradient to its ops,
	 * and the compute in between (after_grad, after_grad_compute) */
	int64_t	 gradgap, gradcu;
};

static struct pwait *pws;
static size_t npw;

/* A long Notify_Wait of a rank's HCCL tasks: on which peer (the tasks'
 * number) and when it ends, absolute. */
struct lwait {
	int	 rank;
	int64_t	 peer, end, dur;
};
static struct lwait *lws;
static size_t nlw;

/* A device idle window of a rank (asc-gaps' bubble), absolute ns. */
struct idle {
	int	 rank;
	int64_t	 start, end;
};
static struct idle *ids;
static size_t nid;
static struct rgroup *rgs;
static size_t nrg;

static struct rank *ranks;
static int nrank;
static struct cinst *cis;
static size_t ncis;
static struct link *links;
static size_t nlink;
static int rc = EX_OK;

static void usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-1q] [-o dir] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

static struct rank *
findrank(int file, const char *profile, int make)
{
	for (int i = nrank; i-- > 0; )
		if (ranks[i].file == file && strcmp(ranks[i].profile, profile) == 0)
			return &ranks[i];
	if (!make)
		return NULL;
	ranks = xreallocarray(ranks, (size_t)nrank + 1, sizeof *ranks);
	memset(&ranks[nrank], 0, sizeof ranks[0]);
	ranks[nrank].file = file;
	ranks[nrank].profile = xstrdup(profile);
	ranks[nrank].rankid = -1;
	ranks[nrank].device = -1;
	ranks[nrank].origin = UNSET;
	ranks[nrank].active = -1;
	return &ranks[nrank++];
}

static struct rstep *
findstep(struct rank *r, const char *step)
{
	for (int i = 0; i < r->nstep; i++)
		if (strcmp(r->steps[i].step, step) == 0)
			return &r->steps[i];
	r->steps = xreallocarray(r->steps, (size_t)r->nstep + 1, sizeof *r->steps);
	memset(&r->steps[r->nstep], 0, sizeof r->steps[0]);
	r->steps[r->nstep].step = xstrdup(step);
	for (int d = 0; d < ND; d++)
		r->steps[r->nstep].v[d] = r->steps[r->nstep].st[d] = UNSET;
	r->steps[r->nstep].start_abs = UNSET;
	r->steps[r->nstep].untraced = UNSET;
	return &r->steps[r->nstep++];
}

static int64_t
geti(const struct rin *in, const char *k)
{
	int64_t v;

	return rin_i64(in, k, &v) == 0 ? v : UNSET;
}

static char *
getstr(const struct rin *in, const char *k)
{
	struct buf b = {0};

	if (rin_str(in, k, &b) != 0) {
		buf_free(&b);
		return NULL;
	}
	if (b.p == NULL)
		return xstrdup("");
	return b.p;
}

/* A raw field as a libjq value (small nested objects only). */
static jv
getjv(const struct rin *in, const char *k)
{
	const struct rfield *f = rin_get(in, k);

	if (f == NULL)
		return jv_null();
	return jv_parse_sized(f->v, (int)f->vlen);
}

static const char *
jvs(jv o, const char *k, char *t, size_t n)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));

	if (jv_get_kind(v) == JV_KIND_STRING)
		snprintf(t, n, "%s", jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NULL || !jv_is_valid(v))
		snprintf(t, n, "-");
	else {
		jv s = jv_dump_string(jv_copy(v), JV_PRINT_SORTED);

		snprintf(t, n, "%s", jv_string_value(s));
		jv_free(s);
	}
	jv_free(v);
	return t;
}

/* profile: identity, origin, and what ties it to a job (parent dir name
 * and capture metadata; the rank id and the file name are left out). */
static void
onprofile(struct rin *in, struct rank *r)
{
	char *o = getstr(in, "origin_us"), *fw = getstr(in, "framework");
	jv cfg = getjv(in, "config");
	char t[6][256];
	struct buf b = {0};
	const char *slash;

	free(r->path);
	r->path = getstr(in, "path");
	if (o == NULL || dec_us2ns(o, strlen(o), &r->origin) != 0)
		r->origin = UNSET;
	if (jv_get_kind(cfg) == JV_KIND_OBJECT) {
		jv rk = jv_object_get(jv_copy(cfg), jv_string("rank"));

		/* A rank id that is no int is no rank id (and no cast out of range). */
		if (jv_get_kind(rk) == JV_KIND_NUMBER && jv_number_value(rk) >= 0 &&
		    jv_number_value(rk) <= INT_MAX && jv_number_value(rk) == (int)jv_number_value(rk))
			r->rankid = (int)jv_number_value(rk);
		jv_free(rk);
		{
			jv sc = jv_object_get(jv_copy(cfg), jv_string("schedule"));

			if (jv_get_kind(sc) == JV_KIND_OBJECT) {
				jv a = jv_object_get(jv_copy(sc), jv_string("active"));

				if (jv_get_kind(a) == JV_KIND_NUMBER)
					r->active = (int)jv_number_value(a);
				jv_free(a);
			}
			jv_free(sc);
		}
		jvs(cfg, "level", t[0], sizeof t[0]);
		jvs(cfg, "schedule", t[1], sizeof t[1]);
		jvs(cfg, "torch_npu_version", t[2], sizeof t[2]);
		jvs(cfg, "cann_version", t[3], sizeof t[3]);
		jvs(cfg, "aic_metrics", t[4], sizeof t[4]);
		jvs(cfg, "with_stack", t[5], sizeof t[5]);
	} else
		for (int i = 0; i < 6; i++)
			strcpy(t[i], "-");
	jv_free(cfg);
	/* The parent dir's name, not its path: ranks analysed on different
	 * machines keep the same layout, not the same mount point. */
	free(r->parent);
	r->parent = NULL;
	if (r->path && (slash = strrchr(r->path, '/')) != NULL && slash > r->path) {
		const char *p = slash;

		while (p > r->path && p[-1] != '/')
			p--;
		r->parent = xstrndup(p, (size_t)(slash - p));
	}
	if (r->parent == NULL)
		r->parent = xstrdup(".");
	buf_adds(&b, fw ? fw : "-");
	for (int i = 0; i < 6; i++) {
		buf_addc(&b, '|');
		buf_adds(&b, t[i]);
	}
	free(r->sig);
	r->sig = b.p;
	free(o);
	free(fw);
}

static void
onmetrics(struct rin *in, struct rank *r)
{
	char *step = getstr(in, "step_id");
	struct rstep *s;
	int64_t st;

	if (step == NULL)
		return;
	s = findstep(r, step);
	free(step);
	s->from_kernels = 1;
	s->v[D_COMPUTE] = geti(in, "compute_ns");
	s->v[D_EXPOSED] = geti(in, "comm_exposed_ns");
	s->v[D_OVERLAP] = geti(in, "comm_overlapped_ns");
	s->v[D_FREE] = geti(in, "internal_bubble_total_ns");
	s->v[D_PREP] = geti(in, "prelaunch_gap_ns");
	s->v[D_TAIL] = geti(in, "tail_gap_ns");
	s->v[D_SERVICE] = geti(in, "service_ns");
	st = geti(in, "start_ns");
	if (st != UNSET && r->origin != UNSET)
		s->start_abs = r->origin + st;
	if (r->device < 0 && geti(in, "device") != UNSET)
		r->device = (int)geti(in, "device");
}

static void
onsteptrace(struct rin *in, struct rank *r)
{
	char *step = getstr(in, "step");
	struct rstep *s;

	if (step == NULL)
		return;
	s = findstep(r, step);
	free(step);
	s->have_st = 1;
	s->st[D_COMPUTE] = geti(in, "computing_ns");
	s->st[D_EXPOSED] = geti(in, "comm_not_overlapped_ns");
	s->st[D_OVERLAP] = geti(in, "overlapped_ns");
	s->st[D_FREE] = geti(in, "free_ns");
	s->st[D_PREP] = geti(in, "preparing_ns");
	s->st[D_TAIL] = UNSET;
	/* The step is torch_npu's Stage (computing + not overlapped + free),
	 * as asc-judge takes it; Preparing stays beside it, not in it. */
	s->st[D_SERVICE] = geti(in, "stage_ns");
	if (s->st[D_SERVICE] == UNSET) {
		s->st[D_SERVICE] = 0;
		for (int d = 0; d < D_PREP; d++)
			if (d != D_OVERLAP && s->st[d] != UNSET)
				s->st[D_SERVICE] += s->st[d];
	}
	if (r->device < 0 && geti(in, "device") != UNSET)
		r->device = (int)geti(in, "device");
}

/* The preparing window's host time by family: what the ranks' preparing
 * differ in, when one rank prepares its step longer. */
static void
onattrib(struct rin *in, struct rank *r)
{
	char *scope = getstr(in, "scope"), *step = getstr(in, "step_id");
	jv hc, ch;
	struct rstep *s;

	if (scope == NULL || step == NULL || strcmp(scope, "prelaunch") != 0 ||
	    (hc = getjv(in, "host_causes"), jv_get_kind(hc) != JV_KIND_OBJECT)) {
		if (scope && step && strcmp(scope, "prelaunch") == 0)
			jv_free(hc);
		free(scope);
		free(step);
		return;
	}
	/* only for a step the metrics gave (they come first) */
	s = NULL;
	for (int i = 0; i < r->nstep; i++)
		if (strcmp(r->steps[i].step, step) == 0)
			s = &r->steps[i];
	if (s == NULL) {
		jv_free(hc);
		free(scope);
		free(step);
		return;
	}
	s->untraced = geti(in, "untraced_ns");
	if (s->untraced == UNSET)
		s->untraced = 0;
	ch = getjv(in, "host_chains");
	jv_object_foreach(hc, k, v) {
		if (jv_get_kind(v) == JV_KIND_NUMBER) {
			struct hcause *h;

			s->hc = xreallocarray(s->hc, (size_t)s->nhc + 1, sizeof *s->hc);
			h = &s->hc[s->nhc++];
			h->fam = xstrdup(jv_string_value(k));
			h->ns = (int64_t)jv_number_value(v);
			h->head = NULL;
			/* the family's first call chain names its top call */
			if (jv_get_kind(ch) == JV_KIND_ARRAY)
				jv_array_foreach(ch, i, c) {
					jv f = jv_object_get(jv_copy(c), jv_string("family"));
					jv cc = jv_object_get(jv_copy(c), jv_string("chain"));

					if (h->head == NULL && jv_get_kind(f) == JV_KIND_STRING &&
					    strcmp(jv_string_value(f), h->fam) == 0 &&
					    jv_get_kind(cc) == JV_KIND_ARRAY && jv_array_length(jv_copy(cc)) > 0) {
						jv x = jv_array_get(jv_copy(cc), 0);

						if (jv_get_kind(x) == JV_KIND_STRING)
							h->head = xstrdup(jv_string_value(x));
						jv_free(x);
					}
					jv_free(f);
					jv_free(cc);
					jv_free(c);
				}
		}
		jv_free(k);
		jv_free(v);
	}
	jv_free(hc);
	jv_free(ch);
	free(scope);
	free(step);
}

/* A Notify_Wait task long enough to be a peer's lateness. */
static void
ontask(struct rin *in, struct rank *r, int ri)
{
	char *ty = getstr(in, "task_type");
	int64_t end = geti(in, "end_ns"), dur = geti(in, "dur_ns"), peer = geti(in, "dst_rank");

	if (ty && strcmp(ty, "Notify_Wait") == 0 && end != UNSET && dur != UNSET && peer != UNSET &&
	    r->origin != UNSET && (double)dur >= rules_num("cluster.skew_min_us") * 1000) {
		lws = xreallocarray(lws, nlw + 1, sizeof *lws);
		lws[nlw].rank = ri;
		lws[nlw].peer = peer;
		lws[nlw].end = r->origin + end;
		lws[nlw++].dur = dur;
	}
	free(ty);
}

static struct cinst *
newci(int rank)
{
	if ((ncis & (ncis - 1)) == 0)
		cis = xreallocarray(cis, ncis ? ncis * 2 : 64, sizeof *cis);
	memset(&cis[ncis], 0, sizeof cis[0]);
	cis[ncis].rank = rank;
	cis[ncis].wait_ms = -1;
	cis[ncis].elapse_ms = -1;
	return &cis[ncis++];
}

/*
 * Ops of one name in one step of one rank, in order: the n-th comm
 * record and the n-th communication kernel of that name are the same op.
 * A hash table on (rank, step, op) keeps that matching linear.
 */
struct occ {
	int	 rank;
	char	*step, *op;
	size_t	*idx;			/* cis of the comm records, in order */
	int	 ncomm, nkern;
};
static struct occ *occs;
static size_t nocc, occcap;

static uint64_t
occhash(int rank, const char *step, const char *op)
{
	uint64_t h = 1469598103934665603ULL ^ (uint64_t)rank;

	for (const char *p = step; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	h = (h ^ 0x1f) * 1099511628211ULL;
	for (const char *p = op; *p; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static struct occ *
occof(int rank, const char *step, const char *op)
{
	size_t i;

	if (2 * (nocc + 1) > occcap) {
		struct occ *old = occs;
		size_t oldcap = occcap;

		occcap = occcap ? occcap * 2 : 256;
		occs = xcalloc(occcap, sizeof *occs);
		for (size_t k = 0; k < oldcap; k++)
			if (old[k].op) {
				i = occhash(old[k].rank, old[k].step, old[k].op) & (occcap - 1);
				while (occs[i].op)
					i = (i + 1) & (occcap - 1);
				occs[i] = old[k];
			}
		free(old);
	}
	i = occhash(rank, step, op) & (occcap - 1);
	for (; occs[i].op; i = (i + 1) & (occcap - 1))
		if (occs[i].rank == rank && strcmp(occs[i].op, op) == 0 && strcmp(occs[i].step, step) == 0)
			return &occs[i];
	occs[i].rank = rank;
	occs[i].step = xstrdup(step);
	occs[i].op = xstrdup(op);
	nocc++;
	return &occs[i];
}

static double
numof(jv v)
{
	double d = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : 0;

	jv_free(v);
	return d;
}

static void
oncomm(struct rin *in, struct rank *r, int ri)
{
	char *op = getstr(in, "op"), *kind = getstr(in, "kind");
	char *step = getstr(in, "step");
	int64_t st = geti(in, "start_ns");
	struct cinst *c;
	jv bw;
	const struct rfield *w = rin_get(in, "wait_ms");

	if (op == NULL || r->origin == UNSET) {
		free(op);
		free(kind);
		free(step);
		return;
	}
	c = newci(ri);
	c->op = op;
	c->step = step ? step : xstrdup("");
	c->group = getstr(in, "group");
	if (c->group == NULL)
		c->group = xstrdup("");
	c->collective = kind == NULL || strcmp(kind, "p2p") != 0;
	{
		struct occ *o = occof(ri, c->step, op);

		o->idx = xreallocarray(o->idx, (size_t)o->ncomm + 1, sizeof *o->idx);
		o->idx[o->ncomm] = (size_t)(c - cis);
		c->occ = o->ncomm++;
	}
	c->start_abs = st == UNSET ? UNSET : r->origin + st;
	if (w && !rf_isnull(w))
		c->wait_ms = strtod(w->v, NULL);
	if ((w = rin_get(in, "elapse_ms")) != NULL && !rf_isnull(w))
		c->elapse_ms = strtod(w->v, NULL);
	free(kind);
	/* Bandwidth per transport, summed over the rank's ops. */
	bw = getjv(in, "bandwidth");
	if (jv_get_kind(bw) == JV_KIND_OBJECT)
		jv_object_foreach(bw, k, v) {
			double mb = numof(jv_object_get(jv_copy(v), jv_string("size_mb")));
			double ms = numof(jv_object_get(jv_copy(v), jv_string("time_ms")));
			int i;

			/* transports repeat one transfer (HCCS and SDMA):
			 * the op's transfer time is its longest row */
			if (ms > c->xfer_ms)
				c->xfer_ms = ms, c->xfer_mb = mb;
			if (mb > 0 && ms > 0) {
				for (i = 0; i < r->nbw; i++)
					if (strcmp(r->bw[i].name, jv_string_value(k)) == 0)
						break;
				if (i == r->nbw) {
					r->bw = xreallocarray(r->bw, (size_t)r->nbw + 1, sizeof *r->bw);
					r->bw[i].name = xstrdup(jv_string_value(k));
					r->bw[i].size_mb = r->bw[i].time_ms = 0;
					r->nbw++;
				}
				r->bw[i].size_mb += mb;
				r->bw[i].time_ms += ms;
			}
			jv_free(k);
			jv_free(v);
		}
	else
		jv_free(bw);
}

/* A communication kernel: its exact start replaces the op's start from
 * communication.json (a Python float there); no such op, a new one. */
static void
oncommkernel(struct rin *in, struct rank *r, int ri)
{
	char *name = getstr(in, "name"), *step = getstr(in, "step");
	int64_t st = geti(in, "start_ns");
	int occ;
	struct cinst *c = NULL;
	struct occ *o;

	if (name == NULL || st == UNSET || r->origin == UNSET)
		goto out;
	if (step == NULL)
		step = xstrdup("");
	o = occof(ri, step, name);
	occ = o->nkern++;
	if (occ < o->ncomm)
		c = &cis[o->idx[occ]];
	if (c == NULL) {
		c = newci(ri);
		c->op = name;
		c->step = step;
		c->group = xstrdup("");
		c->occ = occ;
		c->collective = !rules_match("cluster.p2p_names", name);
		name = step = NULL;
	}
	c->from_kernel = 1;
	c->start_abs = r->origin + st;
out:
	free(name);
	free(step);
}

static void
onlink(struct rin *in, int ri)
{
	struct link *l;
	const struct rfield *f;
	char *tr = getstr(in, "transport");

	f = rin_get(in, "size_mb");
	/* Small transfers measure latency, not bandwidth. */
	if (tr == NULL || rules_match("cluster.link_ignore_transports", tr) ||
	    f == NULL || rf_isnull(f) || strtod(f->v, NULL) < rules_num("cluster.link_min_size_mb")) {
		free(tr);
		return;
	}
	links = xreallocarray(links, nlink + 1, sizeof *links);
	l = &links[nlink++];
	l->rank = ri;
	l->transport = tr;
	l->group = getstr(in, "group");
	l->cls = getstr(in, "op_class");
	l->link = getstr(in, "link");
	l->op = getstr(in, "op");
	l->size_mb = (f = rin_get(in, "size_mb")) && !rf_isnull(f) ? strtod(f->v, NULL) : 0;
	l->time_ms = (f = rin_get(in, "time_ms")) && !rf_isnull(f) ? strtod(f->v, NULL) : 0;
	l->bw = (f = rin_get(in, "bandwidth_gbps")) && !rf_isnull(f) ? strtod(f->v, NULL) : 0;
	l->fromdb = (f = rin_get(in, "src")) && !rf_isnull(f) && strstr(f->v, "CommAnalyzerMatrix") != NULL;
	if (l->group == NULL)
		l->group = xstrdup("");
	if (l->cls == NULL)
		l->cls = xstrdup("");
	if (l->link == NULL)
		l->link = xstrdup("");
}

static int64_t
jvms(jv o, const char *k)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	int64_t r = jv_get_kind(v) == JV_KIND_NUMBER ? llround(jv_number_value(v) * 1e6) : UNSET;

	jv_free(v);
	return r;
}

/* pipeline_stages' last idle stretch: from its last op to next_op. */
static void
ppidle(jv s, struct ppst *x)
{
	jv ops = jv_object_get(jv_copy(s), jv_string("ops"));
	jv st = jv_object_get(jv_copy(s), jv_string("here_idle_stretches_ms"));
	int no = jv_get_kind(ops) == JV_KIND_ARRAY ? jv_array_length(jv_copy(ops)) : 0;
	int ns = jv_get_kind(st) == JV_KIND_ARRAY ? jv_array_length(jv_copy(st)) : 0;
	char t[256];

	/* one stretch before the first op, one after each */
	if (no > 0 && ns == no + 1 && strcmp(jvs(s, "next_op", t, sizeof t), "-") != 0) {
		jv lo = jv_array_get(jv_copy(ops), no - 1), li = jv_array_get(jv_copy(st), ns - 1);

		x->nextop = xstrdup(t);
		if (jv_get_kind(lo) == JV_KIND_STRING && jv_get_kind(li) == JV_KIND_NUMBER) {
			x->lastop = xstrdup(jv_string_value(lo));
			x->lastidle = llround(jv_number_value(li) * 1e6);
		}
		jv_free(lo);
		jv_free(li);
	}
	jv_free(ops);
	jv_free(st);
}

/* The pipeline_stages of a rank report's recommendations. */
static void
onverdict(struct rin *in, int ri)
{
	jv rv = getjv(in, "recommendations");
	int n = jv_get_kind(rv) == JV_KIND_ARRAY ? jv_array_length(jv_copy(rv)) : 0;

	for (int i = 0; i < n; i++) {
		jv s = jv_object_get(jv_array_get(jv_copy(rv), i), jv_string("pipeline_stages"));
		char t[64];
		jv ps = jv_object_get(jv_array_get(jv_copy(rv), i), jv_string("pipeline_stake"));
		struct ppst x = { ri, NULL, NULL, UNSET, UNSET, UNSET, 0, 0, 0, UNSET, UNSET, UNSET, 0, NULL, NULL, UNSET };

		if (jv_get_kind(s) == JV_KIND_OBJECT && strcmp(jvs(s, "group", t, sizeof t), "-") != 0) {
			jv v;

			x.group = xstrdup(t);
			x.imb = strcmp(jvs(s, "imbalance", t, sizeof t), "-") != 0 ? xstrdup(t) : NULL;
			x.here = jvms(s, "here_ms");
			x.peer = jvms(s, "peer_ms");
			x.perstep = jvms(s, "imbalance_ms_per_step");
			v = jv_object_get(jv_copy(s), jv_string("slower_by_ratio"));
			x.ratio = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : -1;
			jv_free(v);
			v = jv_object_get(jv_copy(s), jv_string("here_estimated"));
			x.est = jv_get_kind(v) == JV_KIND_TRUE;
			jv_free(v);
			v = jv_object_get(jv_copy(s), jv_string("spans_ms"));
			x.spans = jv_get_kind(v) == JV_KIND_ARRAY ? jv_array_length(jv_copy(v)) : 0;
			jv_free(v);
			ppidle(s, &x);
			if (jv_get_kind(ps) == JV_KIND_OBJECT) {
				x.won = jvms(ps, "won_ms");
				x.wimb = jvms(ps, "imbalance_ms");
				x.wsched = jvms(ps, "schedule_won_ms");
				v = jv_object_get(jv_copy(ps), jv_string("microbatches_advised"));
				x.madv = jv_get_kind(v) == JV_KIND_NUMBER ? (int)jv_number_value(v) : 0;
				jv_free(v);
			}
			pps = xreallocarray(pps, npps + 1, sizeof *pps);
			pps[npps++] = x;
		}
		jv_free(s);
		jv_free(ps);
	}
	jv_free(rv);
}

static void
oncop(struct rin *in, int ri)
{
	struct cop c = { ri, getstr(in, "group"), getstr(in, "step"), 0, NULL, NULL, NULL };
	jv pv = getjv(in, "peers");

	if (c.group == NULL || c.step == NULL || jv_get_kind(pv) != JV_KIND_ARRAY) {
		free(c.group);
		free(c.step);
		jv_free(pv);
		return;
	}
	c.n = jv_array_length(jv_copy(pv));
	c.peer = xcalloc((size_t)c.n + 1, sizeof *c.peer);
	c.ex = xcalloc((size_t)c.n + 1, sizeof *c.ex);
	c.ownex = xcalloc((size_t)c.n + 1, sizeof *c.ownex);
	for (int i = 0; i < c.n; i++) {
		jv o = jv_array_get(jv_copy(pv), i);
		const char *k[] = { "rank", "exposed_wait_ns", "own_exposed_wait_ns" };
		int64_t *d[] = { &c.peer[i], &c.ex[i], &c.ownex[i] };

		for (int x = 0; x < 3; x++) {
			jv v = jv_object_get(jv_copy(o), jv_string(k[x]));

			*d[x] = jv_get_kind(v) == JV_KIND_NUMBER ? (int64_t)jv_number_value(v) : UNSET;
			jv_free(v);
		}
		jv_free(o);
	}
	jv_free(pv);
	cops = xreallocarray(cops, ncop + 1, sizeof *cops);
	cops[ncop++] = c;
}

/*
 * msprof's matrix gives, per op class, views of the same links: the
 * "<class>-total" rows (all the class's ops) and "<class>-top1",
 * "-middle", "-bottomN" (single ops picked by time).  A link is counted
 * and judged once: a view is dropped when its link has a -total row.
 */
static int
istotal(const char *cls, const char *base, size_t n)
{
	return strncmp(cls, base, n) == 0 && strcmp(cls + n, "-total") == 0;
}

/* links[a] is the first entry of its link (rank, group, link, transport):
 * a link that carries several op classes is counted once. */
static int
firstlink(size_t a)
{
	const struct link *l = &links[a];

	for (size_t b = 0; b < a; b++)
		if (links[b].rank == l->rank && strcmp(links[b].group, l->group) == 0 &&
		    strcmp(links[b].link, l->link) == 0 && strcmp(links[b].transport, l->transport) == 0)
			return 0;
	return 1;
}

static void
dropviews(void)
{
	char *view = xcalloc(nlink + 1, 1);
	size_t k = 0;

	/* mark first, then drop: a dropped entry's strings are freed */
	for (size_t a = 0; a < nlink; a++) {
		const struct link *l = &links[a];
		const char *d = strrchr(l->cls, '-');

		for (size_t b = 0; d && strcmp(d, "-total") != 0 && b < nlink && !view[a]; b++)
			view[a] = links[b].rank == l->rank && strcmp(links[b].group, l->group) == 0 &&
			    strcmp(links[b].link, l->link) == 0 &&
			    strcmp(links[b].transport, l->transport) == 0 &&
			    istotal(links[b].cls, l->cls, (size_t)(d - l->cls));
	}
	for (size_t a = 0; a < nlink; a++) {
		struct link *l = &links[a];

		if (view[a]) {
			free(l->group), free(l->cls), free(l->link), free(l->transport), free(l->op);
			continue;
		}
		links[k++] = *l;
	}
	free(view);
	nlink = k;
}

static void
onpeer(struct rin *in, int ri)
{
	struct pwait w = { ri, getstr(in, "group"), getstr(in, "step"),
	    geti(in, "rank"), geti(in, "wait_ns"), geti(in, "exposed_wait_ns"), geti(in, "own_wait_ns"),
	    geti(in, "own_exposed_wait_ns"), UNSET };

	/* the tasks' rank is local to the group: the global one when
	 * parallel_group_info gives it */
	w.local = w.peer;
	if (geti(in, "global_rank") != UNSET)
		w.peer = geti(in, "global_rank");
	if (w.group == NULL || w.peer == UNSET || w.exposed == UNSET) {
		free(w.group);
		free(w.step);
		return;
	}
	pws = xreallocarray(pws, npw + 1, sizeof *pws);
	pws[npw++] = w;
}

static void
ongroup(struct rin *in, int ri)
{
	struct rgroup g = { ri, getstr(in, "group"), geti(in, "size"), getstr(in, "role"),
	    getstr(in, "ops_kind"), geti(in, "elapsed_ns"), geti(in, "exposed_ns"), NULL, 0,
	    geti(in, "after_grad_ns"), geti(in, "after_grad_compute_ns") };
	jv pr = getjv(in, "peer_global_ranks");

	if (g.group == NULL) {
		free(g.role);
		free(g.kind);
		jv_free(pr);
		return;
	}
	if (jv_get_kind(pr) == JV_KIND_ARRAY) {
		int n = jv_array_length(jv_copy(pr));

		g.peer = xcalloc((size_t)n + 1, sizeof *g.peer);
		for (int i = 0; i < n; i++) {
			jv x = jv_array_get(jv_copy(pr), i);

			if (jv_get_kind(x) == JV_KIND_NUMBER)
				g.peer[g.npeer++] = (int64_t)jv_number_value(x);
			jv_free(x);
		}
	}
	jv_free(pr);
	rgs = xreallocarray(rgs, nrg + 1, sizeof *rgs);
	rgs[nrg++] = g;
}

static int
istype(const char *t, size_t n, const char *s)
{
	return n == strlen(s) && memcmp(t, s, n) == 0;
}

/* Two profile records of one capture: same name, path and origin. */
static int
sameprofile(const struct rank *a, const struct rank *b)
{
	return strcmp(a->profile, b->profile) == 0 && a->origin == b->origin &&
	    (a->path && b->path ? strcmp(a->path, b->path) == 0 : a->path == b->path);
}

static void
readinput(const char *path, int file)
{
	struct rin in;
	const char *t;
	size_t tn;
	struct stat sb;
	char *p = NULL;
	int r;

	/* A directory is asc-analyze's output for one rank. */
	if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		p = xmalloc(strlen(path) + 16);
		sprintf(p, "%s/records.ndjson", path);
		path = p;
	}
	if (rin_open(&in, path, 1 << 26) != 0)
		dieerr("%s", path);
	while ((r = rin_next(&in)) != 0) {
		char *prof;
		struct rank *rk;

		if (r < 0 || rin_type(&in, &t, &tn) != 0)
			goto bad;
		if (istype(t, tn, "host") || istype(t, tn, "op") ||
		    0 ||
		    istype(t, tn, "segment") || istype(t, tn, "marker")) {
			char ty[32];

			memcpy(ty, t, tn);
			rin_bulk(&in, ty, tn, NULL);
			continue;
		}
		if (!istype(t, tn, "profile") && !istype(t, tn, "step_metrics") &&
		    !istype(t, tn, "step_trace") && !istype(t, tn, "comm") &&
		    !istype(t, tn, "comm_link") && !istype(t, tn, "kernel") &&
		    !istype(t, tn, "comm_peer") && !istype(t, tn, "comm_group") &&
		    !istype(t, tn, "comm_op") && !istype(t, tn, "anomaly_discovery") &&
		    !istype(t, tn, "attribution") && !istype(t, tn, "comm_task") &&
		    !istype(t, tn, "bubble"))
			continue;
		if (rin_scan(&in) != 0)
			goto bad;
		if (istype(t, tn, "kernel")) {
			const struct rfield *f = rin_get(&in, "task_type");
			struct buf b = {0};
			int comm;

			if (f == NULL || rf_isnull(f))
				continue;
			if (rf_str(f, &b) != 0)
				continue;
			comm = rules_match("ops.comm_task_types", b.p ? b.p : "");
			buf_free(&b);
			if (!comm)
				continue;
		}
		prof = getstr(&in, "profile");
		if (prof == NULL) {
			snprintf(in.err, sizeof in.err, "record has no \"profile\"");
			goto bad;
		}
		rk = findrank(file, prof, istype(t, tn, "profile"));
		/* The same name again in one stream: another profile, or refused. */
		if (rk && rk->seen && istype(t, tn, "profile")) {
			int first = (int)(rk - ranks);	/* ranks moves as it grows */

			rk = findrank(-1, prof, 1);
			rk->file = file;
			onprofile(&in, rk);
			if (sameprofile(&ranks[first], rk)) {
				snprintf(in.err, sizeof in.err, "profile %.120s a second time (same path and origin): one profile given twice",
				    prof);
				free(prof);
				goto bad;
			}
			rk->seen = 1;
			rk->input = xstrdup(path);
			free(prof);
			continue;
		}
		free(prof);
		if (rk == NULL) {
			snprintf(in.err, sizeof in.err, "record of a profile before its \"profile\" record");
			goto bad;
		}
		if (istype(t, tn, "profile")) {
			onprofile(&in, rk);
			rk->seen = 1;
			if (rk->input == NULL)
				rk->input = xstrdup(path);
		} else if (istype(t, tn, "step_metrics"))
			onmetrics(&in, rk);
		else if (istype(t, tn, "step_trace"))
			onsteptrace(&in, rk);
		else if (istype(t, tn, "comm"))
			oncomm(&in, rk, (int)(rk - ranks));
		else if (istype(t, tn, "comm_link"))
			onlink(&in, (int)(rk - ranks));
		else if (istype(t, tn, "comm_peer"))
			onpeer(&in, (int)(rk - ranks));
		else if (istype(t, tn, "comm_op"))
			oncop(&in, (int)(rk - ranks));
		else if (istype(t, tn, "anomaly_discovery"))
			onverdict(&in, (int)(rk - ranks));
		else if (istype(t, tn, "comm_group"))
			ongroup(&in, (int)(rk - ranks));
		else if (istype(t, tn, "attribution"))
			onattrib(&in, rk);
		else if (istype(t, tn, "comm_task"))
			ontask(&in, rk, (int)(rk - ranks));
		else if (istype(t, tn, "bubble")) {
			int64_t a = geti(&in, "start_ns"), b = geti(&in, "end_ns");

			if (a != UNSET && b != UNSET && rk->origin != UNSET) {
				ids = xreallocarray(ids, nid + 1, sizeof *ids);
				ids[nid].rank = (int)(rk - ranks);
				ids[nid].start = rk->origin + a;
				ids[nid++].end = rk->origin + b;
			}
		}
		else
			oncommkernel(&in, rk, (int)(rk - ranks));
		continue;
bad:
		fprintf(stderr, "%s: %s:%lu: %s\n", progname, dispname(path), in.lineno, in.err);
		exit(EX_DATA);
	}
	rin_close(&in);
	free(p);
}

/* ---- jobs ---- */

struct job {
	char	*name;
	int	 nr;
	int	*r;			/* rank indexes, by rank id */
	int	 nids;			/* distinct ranks: a rank id held twice counts once */
	int	 nwarn;
	struct jwarn *warn;
};

/* Two profiles of a job that share a name or a rank id. */
struct jwarn {
	const char *code;		/* duplicate_profile, duplicate_rank */
	char	*msg;
	int	 a, b;			/* rank indexes */
};
static struct job *jobs;
static int njob;

static int
byrankid(const void *a, const void *b)
{
	const struct rank *x = &ranks[*(const int *)a], *y = &ranks[*(const int *)b];

	if (x->rankid != y->rankid)
		return x->rankid < y->rankid ? -1 : 1;
	return strcmp(x->profile, y->profile);
}

static void
makejobs(int onejob)
{
	for (int i = 0; i < nrank; i++) {
		struct rank *r = &ranks[i];
		int j;

		for (j = 0; j < njob; j++) {
			struct rank *q = &ranks[jobs[j].r[0]];

			if (onejob || (strcmp(q->parent, r->parent) == 0 && strcmp(q->sig, r->sig) == 0))
				break;
		}
		if (j == njob) {
			jobs = xreallocarray(jobs, (size_t)njob + 1, sizeof *jobs);
			memset(&jobs[njob], 0, sizeof jobs[0]);
			jobs[njob].name = xstrdup(onejob ? "cluster" : r->parent);
			/* Same dir name, other metadata: a different job. */
			for (int k = 0; k < njob; k++)
				if (strcmp(jobs[k].name, jobs[njob].name) == 0) {
					char t[32];

					snprintf(t, sizeof t, "-%d", njob + 1);
					jobs[njob].name = xrealloc(jobs[njob].name, strlen(jobs[njob].name) + 32);
					strcat(jobs[njob].name, t);
					break;
				}
			njob++;
		}
		jobs[j].r = xreallocarray(jobs[j].r, (size_t)jobs[j].nr + 1, sizeof *jobs[j].r);
		jobs[j].r[jobs[j].nr++] = i;
		r->job = j;
	}
	for (int j = 0; j < njob; j++)
		qsort(jobs[j].r, (size_t)jobs[j].nr, sizeof *jobs[j].r, byrankid);
}

static int
byprofile(const void *a, const void *b)
{
	const struct rank *x = &ranks[*(const int *)a], *y = &ranks[*(const int *)b];
	int c = strcmp(x->profile, y->profile);

	return c ? c : *(const int *)a - *(const int *)b;
}

static int quiet;		/* -q: the records and the report say it, stderr does not */

/*
 * Formatted text appended to a growing buffer: sentences are never cut
 * at a fixed length.
 */
static void
bvprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		dieerr("vsnprintf");
	buf_grow(b, (size_t)n + 1);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

static void
bprintf(struct buf *, const char *, ...) __attribute__((format(printf, 2, 3)));

static void
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bvprintf(b, fmt, ap);
	va_end(ap);
}

static void
jwarn(struct job *j, const char *code, int a, int b, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void
jwarn(struct job *j, const char *code, int a, int b, const char *fmt, ...)
{
	va_list ap;
	struct buf m = {0};

	va_start(ap, fmt);
	bvprintf(&m, fmt, ap);
	va_end(ap);
	if (!quiet)
		warnmsg("%s", m.p);
	j->warn = xreallocarray(j->warn, (size_t)j->nwarn + 1, sizeof *j->warn);
	j->warn[j->nwarn++] = (struct jwarn){ code, m.p, a, b };
}

/*
 * Nothing merged or counted twice without a word: the same profile from
 * two inputs is refused; two profiles of one name, or of one rank id, in
 * a job are both kept and said, and the rank counts once.
 */
static void
dupcheck(void)
{
	for (int j = 0; j < njob; j++) {
		struct job *jb = &jobs[j];
		int *o = xmalloc((size_t)jb->nr * sizeof *o);

		memcpy(o, jb->r, (size_t)jb->nr * sizeof *o);
		qsort(o, (size_t)jb->nr, sizeof *o, byprofile);
		for (int i = 1; i < jb->nr; i++) {
			struct rank *a = &ranks[o[i - 1]], *b = &ranks[o[i]];

			if (strcmp(a->profile, b->profile) != 0)
				continue;
			if (sameprofile(a, b)) {
				warnmsg("%s: profile %s is already in %s (same path and origin): one profile given twice",
				    dispname(b->input), b->profile, dispname(a->input));
				exit(EX_DATA);
			}
			jwarn(jb, "duplicate_profile", o[i - 1], o[i],
			    "job %s: two profiles named %s (from %s and %s, other path or origin): both are analysed, apart",
			    jb->name, a->profile, dispname(a->input), dispname(b->input));
		}
		free(o);
		jb->nids = jb->nr;
		for (int i = 1; i < jb->nr; i++) {
			struct rank *a = &ranks[jb->r[i - 1]], *b = &ranks[jb->r[i]];

			if (a->rankid < 0 || a->rankid != b->rankid)
				continue;
			jb->nids--;
			jwarn(jb, "duplicate_rank", jb->r[i - 1], jb->r[i],
			    "job %s: rank %d is held by two profiles (%s and %s): counted once, both shown; the cross-rank figures are unsure",
			    jb->name, a->rankid, a->profile, b->profile);
		}
	}
}

/* ---- output helpers ---- */

static struct buf rb;		/* the record being written */
static struct buf js;		/* cluster.json */
static FILE *md;		/* cluster_report.md, or NULL */
static const char *outdir;

static void
put_ns(struct buf *b, const char *k, int64_t v)
{
	char key[64];

	snprintf(key, sizeof key, "%s_ns", k);
	if (v == UNSET)
		out_null(b, key);
	else
		out_i64(b, key, v);
	snprintf(key, sizeof key, "%s_ms", k);
	if (v == UNSET)
		out_null(b, key);
	else
		out_dec(b, key, v, 6);
}

static void
rbegin(const char *kind, const struct job *j)
{
	rb.len = 0;
	out_begin(&rb, "cluster");
	out_cstr(&rb, "kind", kind);
	out_cstr(&rb, "job", j->name);
}

static void
put_rank(const struct rank *r)
{
	out_cstr(&rb, "profile", r->profile);
	if (r->rankid >= 0)
		out_i64(&rb, "rank", r->rankid);
	else
		out_null(&rb, "rank");
}

/* Write the record to stdout and, as a JSON array member, to js. */
static int jsfirst;

static void
rput(void)
{
	if (outdir) {
		if (!jsfirst)
			buf_add(&js, ",\n", 2);
		jsfirst = 0;
		buf_add(&js, rb.p, rb.len);
		buf_addc(&js, '}');
	}
	rec_put(&rb, stdout);
}

static void
jsarray(const char *name)
{
	if (!outdir)
		return;
	buf_adds(&js, "],\n\"");
	buf_adds(&js, name);
	buf_adds(&js, "\": [\n");
	jsfirst = 1;
}

/* Duration for people: 3-4 significant digits and a unit that fits. */
static const char *
hd(int64_t ns, char *t)
{
	double a = ns < 0 ? -(double)ns : (double)ns;	/* -INT64_MIN overflows */

	if (ns == UNSET)
		return strcpy(t, "—");
	if (a >= 1e9)
		snprintf(t, 32, "%.4g s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(t, 32, "%.4g ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(t, 32, "%.4g µs", (double)ns / 1e3);
	else
		snprintf(t, 32, "%lld ns", (long long)ns);
	return t;
}

static const char *
rname(const struct rank *r, char *t)
{
	if (r->rankid < 0)
		return r->profile;	/* any length: never copied */
	snprintf(t, 64, "rank %d", r->rankid);
	return t;
}

/* ---- analysis of one job ---- */

static int
cmpi64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of n values (sorted in place); the lower middle for even n
 * would bias, so the mean of the two middles, in integer ns. */
static int64_t
median(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpi64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Does a step of r from kernels take its preparing from step_trace_time.csv? */
static int
prepfromst(const struct rank *r)
{
	for (int i = 0; i < r->nstep; i++)
		if (r->steps[i].from_kernels && r->steps[i].v[D_PREP] == UNSET &&
		    r->steps[i].st[D_PREP] != UNSET)
			return 1;
	return 0;
}

/* Mean of a rank's value of d over its steps; UNSET if none measurable. */
static int64_t
rmean(const struct rank *r, enum dim d)
{
	int64_t s = 0;
	int n = 0;

	for (int i = 0; i < r->nstep; i++) {
		int64_t v = r->steps[i].from_kernels ? r->steps[i].v[d] : r->steps[i].st[d];

		/* No step start in the kernels (no trace): torch_npu's
		 * Preparing from step_trace_time.csv, when the rank has it. */
		if (v == UNSET && d == D_PREP)
			v = r->steps[i].st[d];
		if (v != UNSET) {
			s += v;
			n++;
		}
	}
	return n ? s / n : UNSET;
}

static int
cmpci(const void *a, const void *b)
{
	const struct cinst *x = a, *y = b;
	int c;

	if (ranks[x->rank].job != ranks[y->rank].job)
		return ranks[x->rank].job - ranks[y->rank].job;
	if ((c = strcmp(x->group, y->group)) != 0)
		return c;
	if ((c = strcmp(x->step, y->step)) != 0)
		return c;
	if ((c = strcmp(x->op, y->op)) != 0)
		return c;
	if (x->occ != y->occ)
		return x->occ - y->occ;
	return x->rank - y->rank;
}

struct coll {
	size_t	 first, n;		/* span of cis */
	int	 late, early;		/* rank indexes */
	int64_t	 skew, caused, delay;	/* delay: late start - median of others */
	int64_t	 at;			/* the late rank's start, absolute */
	double	 waited_ms;		/* measured wait of the others, -1 unknown */
	int64_t	 fixed;			/* the wait it causes once no uncaptured peer covers it */
	int	 covered;		/* a longer wait on an uncaptured peer covers it */
	int	 selfwait;		/* the late rank itself waits: one not captured is later */
};

/* Does rank index ri's group g have more members than the n seen? */
static int
grouppartial(int ri, const char *g, size_t n)
{
	for (size_t k = 0; k < nrg; k++)
		if (rgs[k].rank == ri && rgs[k].size > (int64_t)n && strcmp(rgs[k].group, g) == 0)
			return 1;
	return 0;
}

/* Where the starts of a collective come from: n ranks, kern of them
 * with an exact kernel start. */
static const char *
srcname(size_t kern, size_t n)
{
	return kern == n ? "kernels" : kern == 0 ? "communication.json" : "mixed";
}

static int
bycaused(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;

	if (x->fixed != y->fixed)
		return x->fixed > y->fixed ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

struct reco {
	int64_t	 stake;
	char	*text;
};
static struct reco *recos;
static int nreco;

static void
addreco(int64_t stake, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
addreco(int64_t stake, const char *fmt, ...)
{
	va_list ap;
	struct buf b = {0};

	recos = xreallocarray(recos, (size_t)nreco + 1, sizeof *recos);
	recos[nreco].stake = stake;
	va_start(ap, fmt);
	bvprintf(&b, fmt, ap);
	va_end(ap);
	recos[nreco++].text = b.p;
}

static int
bystake(const void *a, const void *b)
{
	const struct reco *x = a, *y = b;

	return x->stake > y->stake ? -1 : x->stake < y->stake;
}

/* Relative path from directory `from` to `to` (both made absolute). */
static char *
relpath(const char *from, const char *to)
{
	char *a = realpath(from, NULL), *b = realpath(to, NULL);
	struct buf o = {0};
	size_t i = 0, k;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return NULL;
	}
	/* The common prefix, at a '/' boundary. */
	for (k = 0; a[k] && a[k] == b[k]; k++)
		if (a[k] == '/')
			i = k;
	if (a[k] == '\0' && (b[k] == '/' || b[k] == '\0'))
		i = k;
	for (const char *p = a + i; *p; p++)
		if (*p == '/')
			buf_adds(&o, "../");
	buf_adds(&o, b[i] == '/' ? b + i + 1 : b + i);
	free(a);
	free(b);
	return o.p ? o.p : xstrdup(".");
}

/* Is rank index ri one of job j's ranks? */
static int
injob(const struct job *j, int ri)
{
	for (int i = 0; i < j->nr; i++)
		if (j->r[i] == ri)
			return 1;
	return 0;
}

/* The job rank whose rank id is id and that belongs to group g, or -1. */
static int
captured(const struct job *j, const char *g, int64_t id)
{
	for (size_t k = 0; k < nrg; k++)
		if (injob(j, rgs[k].rank) && ranks[rgs[k].rank].rankid == id &&
		    strcmp(rgs[k].group, g) == 0)
			return rgs[k].rank;
	return -1;
}

/* What lowers a job's confidence, each one level (high, medium, low):
 * one step (a single sample of every skew), a group with members the
 * input does not hold (a wait on them is only bounded), and a rank
 * without HCCL tasks (its waits are not split by peer).  A rank held
 * twice makes it low.  Writes the reasons as a JSON array into b. */
static const char *
jobconf(const struct job *j, struct buf *b)
{
	int n = 0, steps = 0, partial = 0, notasks = 0;

	for (int i = 0; i < j->nr; i++) {
		int ri = j->r[i], tasks = 0;

		if (ranks[ri].nstep > steps)
			steps = ranks[ri].nstep;
		for (size_t a = 0; a < npw && !tasks; a++)
			tasks = pws[a].rank == ri;
		notasks |= !tasks;
		for (size_t k = 0; k < nrg; k++) {
			int64_t in = 0;

			if (rgs[k].rank != ri || rgs[k].size == UNSET || rgs[k].elapsed <= 0)
				continue;
			for (size_t q = 0; q < nrg; q++)
				in += injob(j, rgs[q].rank) && strcmp(rgs[q].group, rgs[k].group) == 0;
			partial |= rgs[k].size > in;
		}
	}
	buf_addc(b, '[');
	if (steps < 2)
		buf_adds(b, n++ ? ",\"one_step\"" : "\"one_step\"");
	if (partial)
		buf_adds(b, n++ ? ",\"uncaptured_group_members\"" : "\"uncaptured_group_members\"");
	if (notasks)
		buf_adds(b, n++ ? ",\"no_comm_tasks\"" : "\"no_comm_tasks\"");
	if (j->nwarn)
		buf_adds(b, n++ ? ",\"duplicate_ranks\"" : "\"duplicate_ranks\"");
	buf_addc(b, ']');
	return j->nwarn || n >= 2 ? "low" : n == 1 ? "medium" : "high";
}

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
static int64_t
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

/*
 * A group whose ranks in the input have no HCCL tasks (no peer_wait) but
 * whose parallel_group_info name gives its global ranks: the members the
 * input does not hold, and the time each captured rank spends in the
 * group's ops per step.  Without tasks the wait on them is not measured.
 */
/*
 * A pp group's stage imbalance as the rank reports give it (asc-judge's
 * pipeline_stages), for each rank of the job in the group, into b;
 * returns whether a stage is the slower by 10 % or more.
 */
static int
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
		bprintf(b, "%s%s's stage takes %s%s per micro-batch%s, the peer stage (global rank%s %s) %s",
		    b->len ? "; " : "", rname(&ranks[x->rank], nm), x->est ? "about " : "", hd(x->here, t1),
		    x->est ? " (its first forward estimated: no kernel table)" : "",
		    npeer > 1 ? "s" : "", peers, hd(x->peer, t2));
		if (peer && x->perstep != UNSET)
			bprintf(b, ": the peer stage is the slower, by %s per micro-batch (%.0f%%), %s per step of the bubble on %s",
			    hd(x->peer - x->here, t3), x->ratio * 100, hd(x->perstep, t4), rname(&ranks[x->rank], nm));
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
 * into b; returns the least of them, UNSET when no rank report gives it.
 */
static int64_t
ppwon(const struct job *j, const char *g, struct buf *b)
{
	char t1[64], t2[64], t3[64], nm[64];
	int64_t least = UNSET;

	for (size_t a = 0; a < npps; a++) {
		const struct ppst *x = &pps[a];

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->won == UNSET)
			continue;
		bprintf(b, "%s%s at most %s", b->len ? "; " : "", rname(&ranks[x->rank], nm), hd(x->won, t1));
		if (x->wimb != UNSET && x->wsched != UNSET && x->madv > 0)
			bprintf(b, " (the imbalance, %s, and %s of the schedule's share with %d micro-batches)",
			    hd(x->wimb, t2), hd(x->wsched, t3), x->madv);
		if (least == UNSET || x->won < least)
			least = x->won;
	}
	return least;
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

static void
nometapeers(const struct job *j, size_t k, int in, int64_t size, const char *rl, int *head)
{
	const char *g = rgs[k].group;
	struct buf out = {0}, who = {0}, bound = {0}, wtxt = {0};
	int64_t least = UNSET, mostwait = UNSET, stake, won;
	int nout = 0, nr = 0, nbound = 0;
	char t1[64], t2[64], t3[64], nm[64];

	for (size_t a = 0; a < npw; a++)
		if (injob(j, pws[a].rank) && strcmp(pws[a].group, g) == 0)
			return;		/* the tasks measured it */
	for (int p = 0; p < rgs[k].npeer; p++) {
		int64_t id = rgs[k].peer[p];
		int held = 0;

		for (int i = 0; i < j->nr; i++)
			held |= ranks[j->r[i]].rankid == id;
		if (!held) {
			bprintf(&out, "%s%lld", nout++ ? ", " : "", (long long)id);
		}
	}
	if (nout == 0) {
		buf_free(&out);
		return;
	}
	for (size_t q = k; q < nrg; q++) {
		const struct rgroup *x = &rgs[q];
		int64_t ns, steps;

		if (!injob(j, x->rank) || strcmp(x->group, g) != 0 || x->elapsed == UNSET)
			continue;
		steps = ranks[x->rank].nstep > 0 ? ranks[x->rank].nstep : 1;
		ns = (x->exposed != UNSET ? x->exposed : x->elapsed) / steps;
		bprintf(&who, "%s%s %s%s", nr++ ? ", " : "", rname(&ranks[x->rank], nm), hd(ns, t1),
		    x->exposed != UNSET ? " not under compute" : " (no kernels: its elapsed time)");
		if (least == UNSET || ns < least)
			least = ns;
	}
	if (least == UNSET || least < (int64_t)(rules_num("cluster.skew_min_us") * 1000)) {
		buf_free(&out);
		buf_free(&who);
		return;
	}
	/* The bandwidth table covering most of the ops' elapsed time on
	 * every captured rank: moving data, at most the rest a wait. */
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
		bprintf(&bound, "%s%s %.4g MB in %s of %s (%.3g GB/s)", nbound++ ? ", " : "",
		    rname(&ranks[x->rank], nm), mb / (double)steps, hd((int64_t)(xm * 1e6) / steps, t1),
		    hd((int64_t)(el * 1e6) / steps, t3), mb / xm);
		if (mostwait == UNSET || (int64_t)((el - xm) * 1e6) / steps > mostwait)
			mostwait = (int64_t)((el - xm) * 1e6) / steps;
	}
	/* a pipeline's stake: what its rank reports say acting could win */
	stake = least;
	if (rgs[k].role && strncmp(rgs[k].role, "pp", 2) == 0 &&
	    (won = ppwon(j, g, &wtxt)) != UNSET && won < least)
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
	out_cstr(&rb, "measured", stake != least ? "no HCCL tasks: what the rank reports say acting on the pipeline bubble could win, not the wait on the peer" :
	    "no HCCL tasks: the time in the group's ops, not the wait on the peer");
	out_bool(&rb, "transfer_bound", nbound > 0);
	put_ns(&rb, "wait_at_most", nbound ? mostwait : UNSET);
	rput();
	/* No HCCL tasks here: the figures are the ops' time, not waits. */
	if (md && !*head)
		fprintf(md, "\n## Waits for ranks not in this input\n\nThe ranks here hold no HCCL tasks for these groups: the figures are the time per step each rank spends in the group's ops (their kernels, or communication.json's elapsed time), not a measured wait on the peer; global ranks are parallel_group_info's.\n");
	*head = 1;
	if (md)
		fprintf(md, "\nGroup `%s` (%s, %s) has %lld ranks, %d in this input (%s); parallel_group_info names its other member%s, global rank%s %s, which %s not in this input. "
		    "The input holds no HCCL tasks, so the wait on %s is not measured; per step the ranks spend in the group's ops: %s.\n",
		    g, rgs[k].role ? rgs[k].role : "no role", rgs[k].kind ? rgs[k].kind : "ops", (long long)size, in, rl,
		    nout > 1 ? "s" : "", nout > 1 ? "s" : "", out.p, nout > 1 ? "are" : "is", nout > 1 ? "them" : "it", who.p);
	if (nbound) {
		if (md)
			fprintf(md, "Its ops are transfer-bound: by the bandwidth table they move, per step, %s; at most %s per step can be a wait on global rank%s %s.\n",
			    bound.p, hd(mostwait, t1), nout > 1 ? "s" : "", out.p);
		{
			struct buf adv = {0};

			xferadvice(j, k, &adv);
			addreco(least, "Group %s (%s) spends %s per step in its %s, transfer-bound: by the bandwidth table %s; at most %s per step can be a wait on global rank%s %s (not in this input)%s; at most the whole %s per step is at stake.",
			    g, rgs[k].role ? rgs[k].role : "no role", hd(least, t2), rgs[k].kind ? rgs[k].kind : "ops",
			    bound.p, hd(mostwait, t1), nout > 1 ? "s" : "", out.p, adv.p, hd(least, t3));
			buf_free(&adv);
		}
		goto done;
	}
	if (rgs[k].role && strncmp(rgs[k].role, "pp", 2) == 0) {
		struct buf st = {0}, pp = {0};
		int imb = ppimbalance(j, g, out.p, nout, &st);

		if (st.len == 0)
			bprintf(&pp, "; in a pipeline this time is also the bubble: no rank report in the input compares the stages (none given, or too few send/recv ops or no op after the last); rebalance the stages where they differ, and raise the micro-batch count or use an interleaved schedule for the schedule's own warm-up and flush");
		else
			bprintf(&pp, "; in a pipeline this time is also the bubble: %s (the rank reports' pipeline stages, from the send/recv ops' times)%s",
			    st.p, imb ? "; rebalance the stages (the imbalance above), and raise the micro-batch count or use an interleaved schedule for the rest, the schedule's own warm-up and flush" :
			    "; the bubble is the schedule's own: raise the micro-batch count or use an interleaved schedule");
		if (md && st.len)
			fprintf(md, "Stage imbalance, as the rank reports give it: %s.\n", st.p);
		if (md && wtxt.len)
			fprintf(md, "What acting on it could win per step, as the rank reports give it: %s.\n", wtxt.p);
		addreco(stake, "Group %s (%s) has members not in this input (global rank%s %s, by parallel_group_info): the ranks in this input spend %s per step in its %s%s%s%s; the input holds no HCCL tasks to measure the wait on %s: profile global rank%s %s (or all ranks)%s.",
		    g, rgs[k].role ? rgs[k].role : "no role", nout > 1 ? "s" : "", out.p, hd(least, t2),
		    rgs[k].kind ? rgs[k].kind : "ops",
		    wtxt.len ? ", of which acting could win, by the rank reports: " : " (all of it at most at stake: no rank report in this input gives what acting could win",
		    wtxt.len ? wtxt.p : "", wtxt.len ? "" : ")", nout > 1 ? "them" : "it", nout > 1 ? "s" : "", out.p, pp.p);
		buf_free(&st);
		buf_free(&pp);
	} else
		addreco(least, "Group %s (%s) has members not in this input (global rank%s %s, by parallel_group_info): the ranks in this input spend %s per step in its %s (all of it at most at stake); the input holds no HCCL tasks to measure the wait on %s: profile global rank%s %s (or all ranks).",
		    g, rgs[k].role ? rgs[k].role : "no role", nout > 1 ? "s" : "", out.p, hd(least, t2),
		    rgs[k].kind ? rgs[k].kind : "ops", nout > 1 ? "them" : "it", nout > 1 ? "s" : "", out.p);
done:
	buf_free(&out);
	buf_free(&who);
	buf_free(&bound);
	buf_free(&wtxt);
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

/*
 * After the peer `first`, the peers rank ri waits for next, as its own
 * report gives them (asc-judge(1)): in each op of the group, a peer's
 * own wait not under compute, at most the wait on `first` there (fixing
 * `first` leaves no more of it), summed and per step (the steps of the
 * rank's comm ops), at least cluster.skew_min_us, largest first, into
 * *b; how many, in *top the longest; in *rem the longest of them in each
 * op, summed per step: what fixing `first` leaves.
 */
static int
nextpeers(int ri, const char *g, int64_t first, struct buf *b, int64_t *top, int64_t *topw, int64_t *rem)
{
	int64_t pe[64], pw[64], steps = 0;
	int n = 0, m;

	*top = -1;
	*topw = UNSET;
	*rem = 0;
	for (size_t a = 0; a < ncop; a++) {
		int dup = 0;

		for (size_t c = 0; c < a && !dup; c++)
			dup = cops[c].rank == ri && strcmp(cops[c].step, cops[a].step) == 0;
		steps += cops[a].rank == ri && !dup;
	}
	for (size_t a = 0; a < ncop; a++) {
		const struct cop *c = &cops[a];
		int64_t lw = 0, best = 0;

		if (c->rank != ri || strcmp(c->group, g) != 0)
			continue;
		for (int i = 0; i < c->n; i++)
			if (c->peer[i] != UNSET && c->ex[i] != UNSET && gpeer(ri, g, c->peer[i]) == first)
				lw += c->ex[i];
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
	for (int x = 0; x < n; x++) {
		char h[64];

		bprintf(b, "%srank %lld %s", x ? ", " : "", (long long)pe[x], hd(pw[x], h));
	}
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
	struct buf b = {0};
	int64_t top, topw, rem;
	int n = nextpeers(ri, g, first, &b, &top, &topw, &rem);

	buf_free(&b);
	if (n > 0 && rem >= (int64_t)(rules_num("comm.straggler_min_ms") * 1e6))
		return wait - rem;
	return wait;
}

/*
 * Groups and the peers not in the input: per group, its size and the
 * job's ranks in it; per peer rank the input does not hold, the exposed
 * wait of each captured rank for it (mean per step), from their HCCL
 * tasks.  Peer ranks are the tasks' own numbers (local to the group).
 */
static void
peerwaits(const struct job *j)
{
	char t1[64], nm[64];
	int head = 0;

	jsarray("groups");
	for (size_t k = 0; k < nrg; k++) {
		const char *g = rgs[k].group;
		int64_t size = UNSET;
		int in = 0, seen = 0;
		struct buf rl = {0};

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
				if (in++)
					buf_adds(&rl, ", ");
				buf_adds(&rl, rname(&ranks[rgs[q].rank], nm));
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
			struct buf who = {0}, won = {0};
			int64_t least = UNSET, leastwon = UNSET, nr = 0, dup = 0;
			int less = 0;

			if (!injob(j, w->rank) || strcmp(w->group, g) != 0 ||
			    captured(j, g, w->peer) >= 0)
				continue;
			for (size_t b = 0; b < a; b++)
				if (injob(j, pws[b].rank) && strcmp(pws[b].group, g) == 0 &&
				    pws[b].peer == w->peer)
					dup = 1;
			if (dup)
				continue;
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
				buf_adds(&won, nr > 1 ? ", " : "");
				bprintf(&won, "%s %s", rname(&ranks[ri], nm), hd(wb, t1));
			}
			buf_addc(&rb, ']');
			put_ns(&rb, "time_at_stake", leastwon);
			rput();
			if (least == UNSET || least < (int64_t)(rules_num("cluster.skew_min_us") * 1000)) {
				buf_free(&who);
				buf_free(&won);
				continue;
			}

			if (md && !head)
				fprintf(md, "\n## Waits for ranks not in this input\n\nFrom each rank's HCCL tasks: the time per step, not under compute, that it waits for a peer of its group (peer ranks as the tasks number them, local to the group, or global where parallel_group_info maps them).\n");
			head = 1;
			if (md) {
				fprintf(md, "\nGroup `%s`", g);
				if (size != UNSET)
					fprintf(md, " has %lld ranks, %d in this input (%s)", (long long)size, in, rl.p ? rl.p : "");
				fprintf(md, ". %s wait%s for rank %lld, which is not in this input: %s per step.\n",
				    nr == j->nr && nr > 1 ? (nr == 2 ? "Both ranks" : "All ranks") : nr == 1 ? "One rank" : "Ranks",
				    nr == 1 ? "s" : "", (long long)w->peer, who.p ? who.p : "");
			}
			/* Waits that end together are released by the peer's
			 * arrival: it is late, the links are not slow. */
			{
				int64_t spread;
				int nw, steps = 0;

				for (int i = 0; i < j->nr; i++)
					if (ranks[j->r[i]].nstep > steps)
						steps = ranks[j->r[i]].nstep;
				if (sameend(j, g, w->peer, &spread, &nw) && md) {
					char h[64];

					if ((double)spread <= rules_num("cluster.skew_min_us") * 100)
						fprintf(md, "\nTheir HCCL tasks show the waits for rank %lld ending at the same instant (%d wait%s of at least %g µs on each rank, ends within %s of each other): the peer's arrival releases them together, so rank %lld arrives late; a slow link would not end them together.",
						    (long long)w->peer, nw, nw == 1 ? "" : "s", rules_num("cluster.skew_min_us"), hd(spread, h), (long long)w->peer);
					else
						fprintf(md, "\nTheir HCCL tasks show the waits for rank %lld ending up to %s apart (%d wait%s of at least %g µs on each rank).",
						    (long long)w->peer, hd(spread, h), nw, nw == 1 ? "" : "s", rules_num("cluster.skew_min_us"));
					if (steps == 1)
						fprintf(md, " The capture holds one step%s: one occurrence, not a pattern.",
						    ranks[j->r[0]].active == 1 ? " (profiler_info schedule active 1)" : "");
					fprintf(md, "\n");
				}
			}
			/* The peers each captured rank waits for next: fixing
			 * the latest one leaves them; all of them late is a
			 * group-wide skew. */
			{
				struct buf nx = {0}, rx = {0};
				int wide = 0;
				const char *widen = "";
				char wnm[64];

				for (int i = 0; i < j->nr; i++) {
					struct buf b = {0};
					int64_t top, topw, rem;
					int n = nextpeers(j->r[i], g, w->peer, &b, &top, &topw, &rem);
					char h[64], h2[64];

					if (n == 0)
						continue;
					if (size != UNSET && n == size - 2) {
						if (!wide)
							widen = rname(&ranks[j->r[i]], wnm);
						wide = 1;
						bprintf(&nx, "%s%s waits for every other peer too (its own waits per step not under compute, in each op at most its wait for rank %lld: ",
						    nx.len ? " " : "", rname(&ranks[j->r[i]], nm), (long long)w->peer);
					} else
						bprintf(&nx, "%s%s waits next for ", nx.len ? " " : "", rname(&ranks[j->r[i]], nm));
					buf_adds(&nx, b.p);
					if (n == size - 2)
						buf_adds(&nx, ")");
					else
						bprintf(&nx, " per step, not under compute (in each op at most its wait for rank %lld)", (long long)w->peer);
					bprintf(&nx, "; the longest of them in each op, what fixing rank %lld leaves: %s per step.", (long long)w->peer, hd(rem, h2));
					if (rx.len == 0) {
						bprintf(&rx, "; fixing it leaves %s per step of waits on the next-latest peers on %s (rank %lld the longest, %s)",
						    hd(rem, h2), rname(&ranks[j->r[i]], nm), (long long)top, hd(topw, h));
					}
					buf_free(&b);
				}
				if (md && nx.len)
					fprintf(md, "\nAfter rank %lld: %s%s%s%s\n", (long long)w->peer, nx.p,
					    wide ? " Every peer of the group arrives after " : "", wide ? widen : "",
					    wide ? ": the skew is group-wide, and fixing one peer at a time leaves the next." : "");
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
				buf_free(&nx);
				buf_free(&rx);
			}
			buf_free(&who);
			buf_free(&won);
		}
		nometapeers(j, k, in, size, rl.p ? rl.p : "", &head);
		exposedgroup(j, k, in, size);
		buf_free(&rl);
	}
}

/* A step's value of d from its own source; preparing from
 * step_trace_time.csv when the kernels give none (as rmean does). */
static int64_t
stepv(const struct rstep *s, enum dim d)
{
	int64_t v = s->from_kernels ? s->v[d] : s->st[d];

	return v == UNSET && d == D_PREP ? s->st[d] : v;
}

/* "2.1 ms later" / "540 µs shorter": a signed difference in words. */
static const char *
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

/*
 * Where the late rank idles before its late collective: the device idle
 * (bubbles) between the end of its previous comm op of the step and the
 * collective's start.  Text into out; 0 when the records do not tell.
 */
static int
idlebefore(int ri, const struct cinst *me, struct buf *out)
{
	const struct cinst *prev = NULL;
	int64_t pend = UNSET, idle = 0;
	char h1[64], h2[64];

	if (me == NULL || me->start_abs == UNSET)
		return 0;
	for (size_t c = 0; c < ncis; c++) {
		const struct cinst *x = &cis[c];
		int64_t e;

		if (x->rank != ri || x == me || strcmp(x->step, me->step) != 0 ||
		    x->start_abs == UNSET || x->elapse_ms < 0)
			continue;
		e = x->start_abs + (int64_t)(x->elapse_ms * 1e6);
		if (e <= me->start_abs && (pend == UNSET || e > pend))
			pend = e, prev = x;
	}
	if (prev == NULL)
		return 0;
	for (size_t b = 0; b < nid; b++) {
		int64_t a, z;

		if (ids[b].rank != ri)
			continue;
		a = ids[b].start > pend ? ids[b].start : pend;
		z = ids[b].end < me->start_abs ? ids[b].end : me->start_abs;
		if (z > a)
			idle += z - a;
	}
	if (idle == 0)
		return 0;
	bprintf(out, "%s of its device idle (its bubbles, short gaps left out) lies between the end of %s and the start of %s (a %s stretch)",
	    hd(idle, h1), prev->op, me->op, hd(me->start_abs - pend, h2));
	/* the same stretch in its rank report's pipeline stages */
	for (size_t a = 0; a < npps; a++)
		if (pps[a].rank == ri && pps[a].lastidle != UNSET && pps[a].lastop && pps[a].nextop &&
		    strcmp(pps[a].lastop, prev->op) == 0 && strcmp(pps[a].nextop, me->op) == 0) {
			bprintf(out, "; its rank report, which counts every gap, gives %s there", hd(pps[a].lastidle, h1));
			break;
		}
	return 1;
}

/*
 * Why the rank is late, from the split of its delay against the others'
 * same step.  With the step start known: the parts before the step, in
 * its preparing and inside the step before the collective, each named.
 * Without it: extra free time (or compute) over the step that covers the
 * delay is the cause; else the breakdown does not explain it.
 */
static const char *
latecause(const struct job *j, int ri, const struct rstep *ls, int64_t delay,
    const char *op, const char *against, int64_t dstart, int64_t dprep, int64_t rest,
    int64_t dfree, int64_t dcomp, const char *where, struct buf *out)
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
 * peer there).  Text in *t ("rank 1 12.47 ms per step (...)"), one
 * object per rank in *js; returns the most of any rank, UNSET if none.
 */
static int64_t
othersextra(const struct job *j, int ri, const struct coll *cl, size_t ncl, double skew_min,
    struct buf *t, struct buf *jo)
{
	int64_t most = UNSET;
	int nlist = 0;

	buf_addc(jo, '[');
	for (int k = 0; k < j->nr; k++) {
		int oi = j->r[k];
		double ext = 0, idle = 0;
		int nop = 0, steps = ranks[oi].nstep > 0 ? ranks[oi].nstep : 1;
		struct buf ops = {0};
		char h1[64], h2[64], h3[64], nm[64];

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
			bprintf(&ops, "%s%s %s vs %s", nop++ ? ", " : "", ot->op,
			    hd((int64_t)(ot->elapse_ms * 1e6), h1), hd((int64_t)(me->elapse_ms * 1e6), h2));
		}
		if (nop == 0) {
			buf_free(&ops);
			continue;
		}
		{
			int64_t en = (int64_t)(ext * 1e6) / steps, in = (int64_t)(idle * 1e6) / steps;

			if (most == UNSET || en > most)
				most = en;
			if (nlist)
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
			bprintf(t, "%s%s %s per step longer (%s); %s of it booked as idle, not wait, in communication.json",
			    nlist++ ? "; " : "", rname(&ranks[oi], nm), hd(en, h1), ops.p, hd(in, h3));
		}
		buf_free(&ops);
	}
	buf_addc(jo, ']');
	return most;
}

static void
analyse(struct job *j, size_t cfirst, size_t cend)
{
	char t1[64], t2[64], t3[64], t4[64], t5[64];
	int nr = j->nr;
	const char *upg = NULL;
	int64_t up, upleast;
	int64_t *vals = xcalloc((size_t)nr + 1, sizeof *vals);
	int64_t med[ND], mstep;
	int nkern = 0;
	struct coll *cl = NULL;
	size_t ncl = 0, nsig = 0;
	double skew_min = rules_num("cluster.skew_min_us") * 1000;
	int *latecount = xcalloc((size_t)nrank, sizeof *latecount);

	/* The previous job's recommendations are written: free them. */
	for (int k = 0; k < nreco; k++)
		free(recos[k].text);
	nreco = 0;
	for (int i = 0; i < nr; i++)
		if (ranks[j->r[i]].nstep && ranks[j->r[i]].steps[0].from_kernels)
			nkern++;

	/* The job. */
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

	if (md) {
		fprintf(md, "# Cluster %s: %d rank%s\n\n", mdt(j->name, 0), j->nids, j->nids == 1 ? "" : "s");
		if (j->nids != nr)
			fprintf(md, "%d profiles for %d ranks.\n\n", nr, j->nids);
		for (int i = 0; i < j->nwarn; i++)
			fprintf(md, "**Warning:** %s.\n\n", mdt(j->warn[i].msg, 0));
		if (j->nwarn)
			fprintf(md, "Confidence **low**: the figures across ranks rest on the profiles above.\n\n");
		if (njob > 1)
			fprintf(md, "The input held %d unrelated jobs (different parent directory or capture metadata); they are analysed apart, never merged.\n\n", njob);
		if (nr - nkern > 0)
			fprintf(md, "%d rank%s had no kernel table: %s breakdown is torch_npu's step_trace_time.csv and %s collectives come from communication.json.\n\n",
			    nr - nkern, nr - nkern == 1 ? "" : "s", nr - nkern == 1 ? "its" : "their", nr - nkern == 1 ? "its" : "their");
	}

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

	/* Slow ranks: per dimension, the deviation from the median rank. */
	for (int d = 0; d < ND; d++) {
		int n = 0;

		for (int i = 0; i < nr; i++)
			if ((vals[n] = rmean(&ranks[j->r[i]], d)) != UNSET)
				n++;
		med[d] = n ? median(vals, n) : UNSET;
	}
	mstep = med[D_SERVICE];
	if (md) {
		fprintf(md, "## Time per rank (mean per step)\n\n");
		if (nr > 20)
			fprintf(md, "%d ranks: the 10 with the longest step are shown; every rank is in cluster.json.\n\n", nr);
		fprintf(md, "| rank | step time | compute | comm exposed | overlapped | free | preparing | source |\n|---|---|---|---|---|---|---|---|\n");
		for (int shown = 0, i = 0; i < nr; i++) {
			struct rank *r = &ranks[j->r[i]];
			char n[64], *rel = NULL;
			int worse = 0;

			if (nr > 20) {
				/* Rank among ranks by step time. */
				for (int k = 0; k < nr; k++)
					if (rmean(&ranks[j->r[k]], D_SERVICE) > rmean(r, D_SERVICE) ||
					    (rmean(&ranks[j->r[k]], D_SERVICE) == rmean(r, D_SERVICE) && k < i))
						worse++;
				if (worse >= 10)
					continue;
			}
			shown++;
			if (outdir && r->input) {
				char *d = xstrdup(r->input), *sl = strrchr(d, '/'), rep[4096];

				if (sl)
					*sl = '\0';
				snprintf(rep, sizeof rep, "%s/anomaly_report.md", sl ? d : ".");
				if (access(rep, R_OK) == 0)
					rel = relpath(outdir, rep);
				free(d);
			}
			if (rel)
				fprintf(md, "| [%s](%s) ", mdt(rname(r, n), 1), mdu(rel));
			else
				fprintf(md, "| %s ", mdt(rname(r, n), 1));
			free(rel);
			fprintf(md, "| %s | %s | %s | %s | %s | %s%s | %s |\n",
			    hd(rmean(r, D_SERVICE), t1), hd(rmean(r, D_COMPUTE), t2),
			    hd(rmean(r, D_EXPOSED), t3), hd(rmean(r, D_OVERLAP), t4),
			    hd(rmean(r, D_FREE), t5), hd(rmean(r, D_PREP), n),
			    prepfromst(r) ? " (step_trace_time.csv)" : "",
			    r->nstep && r->steps[0].from_kernels ? "kernels" : "step_trace_time.csv");
		}
		fprintf(md, "\n## Slow ranks\n\nA rank is slow in a dimension when its mean per step exceeds the median rank's by more than %g %% of the median step (%s). msprof-analyze's rule, (max − min) / mean > %g, is shown beside it.\n\n",
		    rules_num("cluster.slow_rank_step_share") * 100,
		    hd(mstep == UNSET ? UNSET : (int64_t)(rules_num("cluster.slow_rank_step_share") * (double)mstep), t1),
		    rules_num("cluster.msprof_range_ratio"));
		fprintf(md, "| dimension | median | min | max | (max−min)/mean | msprof-analyze | slow ranks |\n|---|---|---|---|---|---|---|\n");
	}
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
			if (md)
				fprintf(md, "| %s | %s | %s | %s | %s | %s | %s |\n", dimname[d],
				    hd(med[d], t1), hd(mn, t2), hd(mx, t3),
				    range >= 0 ? (snprintf(t4, sizeof t4, "%.3f", range), t4) : "—",
				    range > rules_num("cluster.msprof_range_ratio") ? "slow" : "ok",
				    nslow ? mdt(names.p, 1) : "none");
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

	/* The rank late at most significant collectives, and why. */
	jsarray("late_ranks");
	for (int i = 0; nsig && i < nr; i++) {
		int ri = j->r[i];
		struct rank *r = &ranks[ri];
		struct coll *w = NULL;
		struct rstep *ls = NULL;
		int64_t dstart = UNSET, dprep = UNSET, dfree = UNSET, dcomp = UNSET, rest = UNSET;
		int64_t tot = 0, totc = 0;
		char nm[64], t6[64], t8[64], onm[64];
		const char *against;
		struct buf chain = {0}, causebuf = {0}, where = {0};
		const char *cause;
		const struct rank *other = NULL;
		int nother = 0;
		struct buf xt = {0}, xj = {0};
		int64_t extra = UNSET;
		int hasw = 0;

		if ((double)latecount[ri] <= rules_num("cluster.late_share") * (double)nsig)
			continue;
		/* The chain is told at its first late arrival: later ones
		 * carry the drift of the steps before (the others waited). */
		for (size_t k = 0; k < ncl; k++)
			if (cl[k].late == ri && (double)cl[k].skew >= skew_min) {
				tot += cl[k].fixed;
				totc += cl[k].caused;
				if (w == NULL || cl[k].at < w->at)
					w = &cl[k];
			}
		/* Its step against the median of the others' same step. */
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
		if (nother == 1)
			against = rname(other, onm);
		else
			against = "the median of the other ranks";
		{
			const struct cinst *me = NULL;

			for (size_t m = 0; m < w->n; m++)
				if (cis[w->first + m].rank == ri)
					me = &cis[w->first + m];
			hasw = idlebefore(ri, me, &where);
		}
		cause = latecause(j, ri, ls, w->delay, cis[w->first].op, against,
		    dstart, dprep, rest, dfree, dcomp, hasw ? where.p : NULL, &causebuf);
		/* Differences to the others, never the rank's own values. */
		bprintf(&chain, "%s arrives %s late at %s (step %s), against %s: step start %s, preparing %s%s, in the step before the collective %s; over the whole step %s has %s and %s than %s",
		    rname(r, nm), hd(w->delay, t1), cis[w->first].op, cis[w->first].step, against,
		    dstart == UNSET ? "unknown" : moreless(dstart, "later", "earlier", t2),
		    dprep == UNSET ? "unknown" : moreless(dprep, "longer", "shorter", t3),
		    dprep != UNSET && ls && ls->v[D_PREP] == UNSET ? " (step_trace_time.csv)" : "",
		    rest == UNSET ? "unknown" : moreless(rest, "later", "earlier", t4),
		    rname(r, t8),
		    dfree == UNSET ? "an unknown free time" : moreless(dfree, "more free time", "less free time", t5),
		    dcomp == UNSET ? "an unknown compute" : moreless(dcomp, "more compute", "less compute", t6),
		    against);
		/* the ranks before it wait for it inside these collectives */
		if (!(up >= 0 && upleast > w->delay))
			extra = othersextra(j, ri, cl, ncl, skew_min, &xt, &xj);
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
		if (up >= 0 && upleast > w->delay) {
			char t7[64];

			if (md)
				fprintf(md, "\n## Latest of the captured ranks: %s\n\n%s is the last of the ranks in this input to arrive at %d of %zu collectives with a skew of at least %g µs; its arrival skews there add up to %s (how much later than the earliest rank in this input it arrived). "
				    "Every rank in this input waits longer for rank %lld of group `%s`, which is not in this input (at least %s per step, below): that peer arrives later still, so this skew is secondary.\n\n%s.\n\nCause of the skew: %s.\n",
				    mdt(rname(r, nm), 0), mdt(rname(r, t5), 0), latecount[ri], nsig, skew_min / 1000, hd(tot, t1),
				    (long long)up, upg, hd(upleast, t7), mdt(chain.p, 0), cause);
			/* The longer wait covers this one: nothing is won
			 * here while that peer is late. */
			addreco(0, "Secondary to the wait for rank %lld (not in this input), which covers it: %s arrives %s late at its first late collective (%d of %zu) among the ranks in this input; nothing is at stake while rank %lld is late, up to %s once it is fixed. Cause: %s.",
			    (long long)up, rname(r, nm), hd(w->delay, t1), latecount[ri], nsig, (long long)up, hd(w->delay, t6), cause);
			buf_free(&xt);
			buf_free(&xj);
			buf_free(&chain);
			buf_free(&causebuf);
			buf_free(&where);
			continue;
		}
		{
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
			if (md)
				fprintf(md, "\n## %s: %s\n\n%s is the last %sto arrive at %d of %zu collectives with a skew of at least %g µs; its arrival skews there add up to %s (how much later than the earliest rank %sit arrived)%s.\n\n%s.\n\nCause: %s.\n",
				    partial || selfop ? "Latest of the captured ranks" : "Late rank",
				    mdt(rname(r, nm), 0), mdt(rname(r, t5), 0), partial || selfop ? "of the ranks in this input " : "",
				    latecount[ri], nsig, skew_min / 1000, hd(tot, t1), partial || selfop ? "in this input " : "",
				    mdt(who.p, 0), mdt(chain.p, 0), cause);
			if (md && xt.len)
				fprintf(md, "\nThe ranks that arrive before it wait for it inside these collectives: %s. Fixing %s's delay recovers that time on them.\n",
				    mdt(xt.p, 0), mdt(rname(r, t5), 0));
			addreco(w->delay, "%s arrives %s late at its first late collective (%d of %zu): %s; the ranks in this input that arrive before it wait for it%s%s%s%s.",
			    rname(r, nm), hd(w->delay, t1), latecount[ri], nsig, cause,
			    extra != UNSET ? " (up to " : "", extra != UNSET ? hd(extra, t7) : "",
			    extra != UNSET ? " per step longer in these collectives: fixing its delay recovers it on them)" : "", who.p);
			buf_free(&who);
		}
		buf_free(&xt);
		buf_free(&xj);
		buf_free(&chain);
		buf_free(&causebuf);
		buf_free(&where);
	}

	/* The worst collectives. */
	if (md && ncl) {
		size_t top = (size_t)rules_num("cluster.top_collectives");
		struct coll *sorted = xmalloc(ncl * sizeof *sorted);

		memcpy(sorted, cl, ncl * sizeof *sorted);
		qsort(sorted, ncl, sizeof *sorted, bycaused);
		int ncov = 0;

		int nself = 0;

		for (size_t k = 0; k < ncl; k++) {
			ncov += cl[k].covered;
			nself += cl[k].selfwait && !cl[k].covered;
		}
		fprintf(md, "\n## Collectives by wait caused\n\n%zu collectives seen on two ranks or more, %zu with an arrival skew of at least %g µs.",
		    ncl, nsig, skew_min / 1000);
		if (ncov)
			fprintf(md, " In %d of them every rank in this input waits longer for rank %lld (not in this input): while it is late they cause no wait; the last column gives the wait once it is fixed.",
			    ncov, (long long)up);
		if (nself)
			fprintf(md, " In %d of them the latest rank in this input itself waits (comm records) for a rank of its group not in this input, which arrives later still: the wait caused is 0 there%s.",
			    nself, ncov ? "" : "; the last column gives the wait once that rank is on time");
		fprintf(md, "\n\n| op | step | ranks | skew | late rank | wait caused |%s start from |\n|---|---|---|---|---|---|%s---|\n",
		    ncov || nself ? " once the peer is fixed |" : "", ncov || nself ? "---|" : "");
		for (size_t k = 0; k < ncl && k < top; k++) {
			struct cinst *ci = &cis[sorted[k].first];
			size_t kern = 0;
			char nm[64];

			for (size_t i = 0; i < sorted[k].n; i++)
				kern += (size_t)ci[i].from_kernel;
			fprintf(md, "| %s | %s | %zu | %s | %s | %s |", mdt(ci->op, 1), mdt(ci->step, 1),
			    sorted[k].n, hd(sorted[k].skew, t1), mdt(rname(&ranks[sorted[k].late], nm), 1),
			    hd(sorted[k].caused, t2));
			if (ncov || nself)
				fprintf(md, " %s |", hd(sorted[k].fixed, t3));
			fprintf(md, " %s |\n", srcname(kern, sorted[k].n));
		}
		free(sorted);
	}

	/* Slow links: below a fraction of the median bandwidth of links of
	 * the same transport and op class in the job. */
	jsarray("slow_links");
	{
		size_t nl = 0, ndb = 0, nslow = 0;
		int head = 0;

		dropviews();
		size_t nreal = 0;

		for (size_t a = 0; a < nlink; a++)
			if (ranks[links[a].rank].job == (int)(j - jobs)) {
				nl++;
				ndb += links[a].fromdb;
				nreal += firstlink(a);
			}
		for (size_t a = 0; a < nlink; a++) {
			struct link *l = &links[a];
			double *bw, m, lbw, lloss;
			size_t n = 0;
			int lsteps;

			if (ranks[l->rank].job != (int)(j - jobs) || l->bw <= 0)
				continue;
			bw = xmalloc(nl * sizeof *bw);
			for (size_t b = 0; b < nlink; b++)
				if (ranks[links[b].rank].job == ranks[l->rank].job && links[b].bw > 0 &&
				    strcmp(links[b].transport, l->transport) == 0 &&
				    strcmp(links[b].cls, l->cls) == 0)
					bw[n++] = links[b].bw;
			/* Median by selection: n is small (links of one class). */
			for (size_t x = 1; x < n; x++)
				for (size_t y = x; y > 0 && bw[y - 1] > bw[y]; y--) {
					double tmp = bw[y];

					bw[y] = bw[y - 1];
					bw[y - 1] = tmp;
				}
			m = n % 2 ? bw[n / 2] : (bw[n / 2 - 1] + bw[n / 2]) / 2;
			free(bw);
			/* One verdict per link: its mean over the steps, told at
			 * its first entry. */
			{
				double sbw = 0, sloss = 0;
				int steps = 0, first = 1;

				for (size_t b = 0; b < nlink; b++) {
					struct link *q = &links[b];

					if (q->rank != l->rank || q->bw <= 0 || strcmp(q->group, l->group) != 0 ||
					    strcmp(q->cls, l->cls) != 0 || strcmp(q->link, l->link) != 0 ||
					    strcmp(q->transport, l->transport) != 0)
						continue;
					if (b < a)
						first = 0;
					sbw += q->bw;
					sloss += q->time_ms - q->size_mb / m;
					steps++;
				}
				if (!first)
					continue;
				lbw = sbw / steps;
				lloss = sloss / steps;
				lsteps = steps;
			}
			if (n < 3 || lbw >= rules_num("cluster.slow_link_fraction") * m)
				continue;
			nslow++;
			{
				char nm[64], t[64];
				int64_t stake = (int64_t)(lloss * 1e6);

				rbegin("slow_link", j);
				put_rank(&ranks[l->rank]);
				out_cstr(&rb, "group", l->group);
				out_cstr(&rb, "op_class", l->cls);
				out_cstr(&rb, "link", l->link);
				out_cstr(&rb, "transport", l->transport);
				out_i64(&rb, "entries", lsteps);
				snprintf(t, sizeof t, "%.4f", lbw);
				out_raw(&rb, "bandwidth_gbps", t, strlen(t));
				snprintf(t, sizeof t, "%.4f", m);
				out_raw(&rb, "median_gbps", t, strlen(t));
				snprintf(t, sizeof t, "%.4f", lbw / m);
				out_raw(&rb, "fraction", t, strlen(t));
				put_ns(&rb, "time_at_stake", stake);
				rput();
				if (md) {
					if (!head)
						fprintf(md, "\n## Slow links\n\nLinks below %g of the median bandwidth of their transport and op class in the job.\n\n| rank | link | transport | op class | bandwidth | median | time lost per op |\n|---|---|---|---|---|---|---|\n",
						    rules_num("cluster.slow_link_fraction"));
					head = 1;
					fprintf(md, "| %s | %s | %s | %s | %.3g GB/s | %.3g GB/s | %s |\n",
					    mdt(rname(&ranks[l->rank], nm), 1), mdt(l->link, 1), mdt(l->transport, 1),
					    mdt(l->cls, 1), lbw, m, hd(stake, t1));
				}
				addreco(stake, "%s: link %s (%s, %s) runs at %.3g GB/s against a median of %.3g GB/s: check that link (cabling, HCCS/RDMA port, HCCL_ALGO / HCCL_RDMA_TC settings).",
				    rname(&ranks[l->rank], nm), l->link, l->transport, l->cls, lbw, m);
			}
		}
		if (md && nl == 0)
			fprintf(md, "\n## Slow links\n\nNo communication_matrix.json or analysis.db CommAnalyzerMatrix: links not judged.\n");
		else if (md && nslow == 0) {
			/* Name the source actually read, and what was left out. */
			char by[64] = "";

			if (nreal != nl)
				snprintf(by, sizeof by, " (%zu entries by op class)", nl);
			fprintf(md, "\n## Slow links\n\n%zu links%s read from %s (of at least %g MB, transports not ignored by the rules); none below %g of its median.\n",
			    nreal, by, ndb == 0 ? "communication_matrix.json" : ndb == nl ? "analysis.db CommAnalyzerMatrix" :
			    "communication_matrix.json and analysis.db CommAnalyzerMatrix",
			    rules_num("cluster.link_min_size_mb"), rules_num("cluster.slow_link_fraction"));
		}
	}

	peerwaits(j);
	jsarray("recommendations");
	if (nreco > 1)	/* never a NULL base, even for zero items */
		qsort(recos, (size_t)nreco, sizeof *recos, bystake);
	if (md)
		fprintf(md, "\n## Recommendations (by time at stake per step)\n\n");
	for (int k = 0; k < nreco; k++) {
		/* The rank reports' scale (asc-judge): by the share of the
		 * median step at stake, P0 only for the first. */
		double sh = mstep == UNSET || mstep <= 0 || recos[k].stake == UNSET ? 0 :
		    (double)recos[k].stake / (double)mstep;
		int pri = k == 0 && sh >= 0.05 ? 0 : sh >= 0.10 ? 1 : sh >= 0.02 ? 2 : 3;

		rbegin("recommendation", j);
		out_i64(&rb, "priority", pri);
		put_ns(&rb, "time_at_stake", recos[k].stake);
		out_cstr(&rb, "text", recos[k].text);
		rput();
		if (md)
			fprintf(md, "%d. P%d (%s): %s\n", k + 1, pri, hd(recos[k].stake, t1), mdt(recos[k].text, 0));
	}
	if (md && nreco == 0)
		fprintf(md, "No rank, collective or link stands out across the job.\n");
	if (md)
		fprintf(md, "\n");
	free(cl);
	free(vals);
	free(latecount);
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
	const char *rulesf = NULL;
	int c, onejob = 0;
	struct aside mda, jsa;
	FILE *jfp = NULL;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "1o:qr:")) != -1)
		switch (c) {
		case 'q':
			quiet = 1;
			break;
		case '1':
			onejob = 1;
			break;
		case 'o':
			outdir = optarg;
			break;
		case 'r':
			rulesf = optarg;
			break;
		default:
			usage();
		}
	rules_load(rulesf);
	argc -= optind;
	argv += optind;
	if (argc == 0)
		readinput("-", 0);
	for (int i = 0; i < argc; i++)
		readinput(argv[i], i);
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
		fprintf(md, "_Made by asc %s with the rules `%s`._\n", asc_version(), rules_file(rulesf));
		if (aside_commit(&mda) != 0)
			dieerr("%s/cluster_report.md", outdir);
	}
	xclose_stdout();
	return rc;
}
