/*
 * asc-cluster's input: the records of many profiles read into the ranks,
 * their steps, collectives, links, groups, waits and the rank reports'
 * pipeline figures (kernels other than communication ones and host
 * events are skipped unread).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <jv.h>

#include "dec.h"
#include "intern.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "cluster.h"

struct cop *cops;
size_t ncop;
struct ppst *pps;
size_t npps;
struct gstake *gss;
size_t ngs;
struct rtop *rtops;
size_t nrtop;
struct pwait *pws;
size_t npw;
struct lwait *lws;
size_t nlw;
struct idle *ids;
size_t nid;
struct rgroup *rgs;
size_t nrg;
struct rank *ranks;
int nrank;
struct cinst *cis;
size_t ncis;
struct link *links;
size_t nlink;

/*
 * Ops of one name in one step of one rank, in order: the n-th comm
 * record and the n-th communication kernel of that name are the same op.
 * An intern table on (rank, step, op) keeps that matching linear.
 */
struct occ {
	size_t	*idx;			/* cis of the comm records, in order */
	int	 ncomm, nkern;
};
static struct intern occkeys;
static struct occ *occs;		/* by id of occkeys */
static size_t nocc, occcap;

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

/* Each dimension's field in a step_metrics record and in a step_trace one
 * (torch_npu has no tail). */
static const struct {
	const char	*metrics, *trace;
} dimkey[ND] = {
	[D_COMPUTE] = { "compute_ns", "computing_ns" },
	[D_EXPOSED] = { "comm_exposed_ns", "comm_not_overlapped_ns" },
	[D_OVERLAP] = { "comm_overlapped_ns", "overlapped_ns" },
	[D_FREE] = { "internal_bubble_total_ns", "free_ns" },
	[D_PREP] = { "prelaunch_gap_ns", "preparing_ns" },
	[D_TAIL] = { "tail_gap_ns", NULL },
	[D_SERVICE] = { "service_ns", "stage_ns" },
};

/* The rank's step the record names in field k (made when new), or NULL
 * when it names none. */
static struct rstep *
stepof(const struct rin *in, const char *k, struct rank *r)
{
	char *step = getstr(in, k);
	struct rstep *s;

	if (step == NULL)
		return NULL;
	s = findstep(r, step);
	free(step);
	return s;
}

static void
getdims(const struct rin *in, int trace, int64_t v[ND])
{
	for (int d = 0; d < ND; d++) {
		const char *k = trace ? dimkey[d].trace : dimkey[d].metrics;

		v[d] = k != NULL ? geti(in, k) : UNSET;
	}
}

static void
onmetrics(struct rin *in, struct rank *r)
{
	struct rstep *s = stepof(in, "step_id", r);
	int64_t st;

	if (s == NULL)
		return;
	s->from_kernels = 1;
	getdims(in, 0, s->v);
	st = geti(in, "start_ns");
	if (st != UNSET && r->origin != UNSET)
		s->start_abs = r->origin + st;
	if (r->device < 0 && geti(in, "device") != UNSET)
		r->device = (int)geti(in, "device");
}

static void
onsteptrace(struct rin *in, struct rank *r)
{
	struct rstep *s = stepof(in, "step", r);

	if (s == NULL)
		return;
	s->have_st = 1;
	getdims(in, 1, s->st);
	/* No stage_ns: the step is torch_npu's Stage (computing + not
	 * overlapped + free), as asc-judge takes it; Preparing stays beside
	 * it, not in it. */
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

/* The ops of (rank, step, op): their key is the rank's bytes, the step,
 * a NUL and the op. */
static struct occ *
occof(int rank, const char *step, const char *op)
{
	static struct buf k;
	size_t id;

	k.len = 0;
	buf_add(&k, &rank, sizeof rank);
	buf_add(&k, step, strlen(step) + 1);
	buf_adds(&k, op);
	id = intern_add(&occkeys, k.p, k.len);
	if (id == nocc) {
		occs = xgrow(occs, nocc, &occcap, 256, sizeof *occs);
		occs[nocc++] = (struct occ){ 0 };
	}
	return &occs[id];
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
	if (strcmp(jvs(s, "next_op", t, sizeof t), "-") != 0)
		x->nextop = xstrdup(t);
	if (no > 0 && ns == no + 1 && x->nextop) {
		jv lo = jv_array_get(jv_copy(ops), no - 1), li = jv_array_get(jv_copy(st), ns - 1);

		if (jv_get_kind(lo) == JV_KIND_STRING && jv_get_kind(li) == JV_KIND_NUMBER) {
			x->lastop = xstrdup(jv_string_value(lo));
			x->lastidle = llround(jv_number_value(li) * 1e6);
		}
		jv_free(lo);
		jv_free(li);
	}
	x->mbpart = NULL;
	x->mbafter = jvms(s, "after_microbatch_ms");
	x->mbcut = jvms(s, "per_step_ms");
	x->mbidle = UNSET;
	{
		jv m = jv_object_get(jv_copy(s), jv_string("microbatches"));

		x->mbs = jv_get_kind(m) == JV_KIND_NUMBER ? (int)jv_number_value(m) : 0;
		jv_free(m);
	}
	if (x->lastop && strcmp(jvs(s, "per_step_part", t, sizeof t), "-") != 0) {
		jv mb = jv_object_get(jv_copy(s), jv_string("here_idle_microbatch_stretches_ms"));
		jv mi = jv_get_kind(mb) == JV_KIND_ARRAY && jv_array_length(jv_copy(mb)) == ns ?
		    jv_array_get(jv_copy(mb), ns - 1) : jv_null();

		if (jv_get_kind(mi) == JV_KIND_NUMBER && x->mbafter != UNSET && x->mbcut != UNSET) {
			x->mbpart = xstrdup(t);
			x->mbidle = llround(jv_number_value(mi) * 1e6);
		}
		jv_free(mi);
		jv_free(mb);
	}
	jv_free(ops);
	jv_free(st);
}

/* A recommendation's priority: 0 for "P0" ..., 9 when it has none. */
static int
recpri(jv r)
{
	char t[16];

	return strcmp(jvs(r, "priority", t, sizeof t), "-") != 0 && t[0] == 'P' && t[1] >= '0' && t[1] <= '9' ?
	    t[1] - '0' : 9;
}

/* A rank report's P0 finding, which the cluster points to. */
static void
rankp0(jv r, int ri)
{
	char id[16], h[1024];
	jv u;

	if (recpri(r) != 0)
		return;
	rtops = xreallocarray(rtops, nrtop + 1, sizeof *rtops);
	rtops[nrtop].rank = ri;
	rtops[nrtop].id = xstrdup(jvs(r, "id", id, sizeof id));
	jvs(r, "headline", h, sizeof h);
	if (*h && h[strlen(h) - 1] == '.')	/* the cluster's sentence goes on */
		h[strlen(h) - 1] = '\0';
	rtops[nrtop].head = xstrdup(h);
	rtops[nrtop].stake = jvms(r, "time_at_stake_ms");
	u = jv_object_get(jv_copy(r), jv_string("stake_upper_bound"));
	rtops[nrtop++].ub = jv_get_kind(u) == JV_KIND_TRUE;
	jv_free(u);
}

/* The stake_by_group entries of one recommendation of a rank report. */
static void
groupstakes(jv r, int ri)
{
	char rid[16];
	int rpri = recpri(r);
	int64_t rstake = jvms(r, "time_at_stake_ms");
	jv sg;

	rankp0(r, ri);
	jvs(r, "id", rid, sizeof rid);
	sg = jv_object_get(r, jv_string("stake_by_group"));

	if (jv_get_kind(sg) == JV_KIND_ARRAY)
		jv_array_foreach(sg, i, e) {
			char g[64], h[32];

			if (strcmp(jvs(e, "group", g, sizeof g), "-") != 0) {
				struct gstake x = { ri, xstrdup(g), xstrdup(jvs(e, "how", h, sizeof h)),
				    jvms(e, "stake_ms"), jvms(e, "compute_ms"), jvms(e, "half_transfer_ms"), 0, NULL, 9, UNSET };

				jv u = jv_object_get(jv_copy(e), jv_string("upper_bound"));

				x.ub = jv_get_kind(u) == JV_KIND_TRUE;
				jv_free(u);
				x.rid = xstrdup(rid);
				x.rpri = rpri;
				x.rstake = rstake;
				gss = xreallocarray(gss, ngs + 1, sizeof *gss);
				gss[ngs++] = x;
			}
			jv_free(e);
		}
	jv_free(sg);
}

/* The pipeline_stages and group stakes of a rank report's recommendations. */
static void
onverdict(struct rin *in, int ri)
{
	jv rv = getjv(in, "recommendations");
	int n = jv_get_kind(rv) == JV_KIND_ARRAY ? jv_array_length(jv_copy(rv)) : 0;

	for (int i = 0; i < n; i++) {
		groupstakes(jv_array_get(jv_copy(rv), i), ri);
		jv s = jv_object_get(jv_array_get(jv_copy(rv), i), jv_string("pipeline_stages"));
		char t[64];
		jv ps = jv_object_get(jv_array_get(jv_copy(rv), i), jv_string("pipeline_stake"));
		struct ppst x = { ri, NULL, NULL, UNSET, UNSET, UNSET, 0, 0, 0, UNSET, UNSET, UNSET, 0, NULL, NULL, UNSET, 0, UNSET,
		    NULL, UNSET, UNSET, UNSET, 0 };

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
				x.rebal = jvms(ps, "rebalance_ms");
				x.wsched = jvms(ps, "schedule_won_ms");
				v = jv_object_get(jv_copy(ps), jv_string("microbatches_advised"));
				x.madv = jv_get_kind(v) == JV_KIND_NUMBER ? (int)jv_number_value(v) : 0;
				jv_free(v);
				v = jv_object_get(jv_copy(ps), jv_string("upper_bound"));
				x.ub = jv_get_kind(v) == JV_KIND_TRUE;
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
	struct cop c = { ri, getstr(in, "group"), getstr(in, "step"), getstr(in, "op"), 0, NULL, NULL, NULL, NULL };
	jv pv = getjv(in, "peers");

	if (c.group == NULL || c.step == NULL || jv_get_kind(pv) != JV_KIND_ARRAY) {
		free(c.group);
		free(c.step);
		free(c.op);
		jv_free(pv);
		return;
	}
	c.n = jv_array_length(jv_copy(pv));
	c.peer = xcalloc((size_t)c.n + 1, sizeof *c.peer);
	c.ex = xcalloc((size_t)c.n + 1, sizeof *c.ex);
	c.ownex = xcalloc((size_t)c.n + 1, sizeof *c.ownex);
	c.own = xcalloc((size_t)c.n + 1, sizeof *c.own);
	for (int i = 0; i < c.n; i++) {
		jv o = jv_array_get(jv_copy(pv), i);
		const char *k[] = { "rank", "exposed_wait_ns", "own_exposed_wait_ns", "own_wait_ns" };
		int64_t *d[] = { &c.peer[i], &c.ex[i], &c.ownex[i], &c.own[i] };

		for (int x = 0; x < 4; x++) {
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
int
sameprofile(const struct rank *a, const struct rank *b)
{
	return strcmp(a->profile, b->profile) == 0 && a->origin == b->origin &&
	    (a->path && b->path ? strcmp(a->path, b->path) == 0 : a->path == b->path);
}

/* The operand being read: its index, its path (a directory's records.ndjson). */
static int file = -1;
static char *path;

/* Open operand op; a directory is asc-analyze's output for one rank. */
struct rin *
readopen(const char *op, size_t maxline, void *arg)
{
	struct rin *in;
	struct stat sb;

	file++;
	free(path);
	path = xstrdup(op);
	if (strcmp(op, "-") != 0 && stat(op, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		path = xreallocarray(path, strlen(op) + 16, 1);
		sprintf(path, "%s/records.ndjson", op);
	}
	if ((in = rin_new(path, maxline)) == NULL)
		dieerr("%s", path);
	rin_setname(in, dispname(path));
	return in;
}

/* A record of the operand readopen() opened: 0, or -1 (its error set). */
int
readrec(struct rin *in, const char *t, size_t tn, void *arg)
{
	char *prof;
	struct rank *rk;

	if (istype(t, tn, "host") || istype(t, tn, "op") ||
	    0 ||
	    istype(t, tn, "segment") || istype(t, tn, "marker")) {
		char ty[32];

		memcpy(ty, t, tn);
		rin_bulk(in, ty, tn, NULL);
		return 0;
	}
	if (!istype(t, tn, "profile") && !istype(t, tn, "step_metrics") &&
	    !istype(t, tn, "step_trace") && !istype(t, tn, "comm") &&
	    !istype(t, tn, "comm_link") && !istype(t, tn, "kernel") &&
	    !istype(t, tn, "comm_peer") && !istype(t, tn, "comm_group") &&
	    !istype(t, tn, "comm_op") && !istype(t, tn, "anomaly_discovery") &&
	    !istype(t, tn, "attribution") && !istype(t, tn, "comm_task") &&
	    !istype(t, tn, "bubble"))
		return 0;
	if (rin_scan(in) != 0)
		return -1;
	if (istype(t, tn, "kernel")) {
		const struct rfield *f = rin_get(in, "task_type");
		struct buf b = {0};
		int comm;

		if (f == NULL || rf_isnull(f))
			return 0;
		if (rf_str(f, &b) != 0)
			return 0;
		comm = rules_match("ops.comm_task_types", b.p ? b.p : "");
		buf_free(&b);
		if (!comm)
			return 0;
	}
	prof = getstr(in, "profile");
	if (prof == NULL) {
		rin_error(in, "record has no \"profile\"");
		return -1;
	}
	rk = findrank(file, prof, istype(t, tn, "profile"));
	/* The same name again in one stream: another profile, or refused. */
	if (rk && rk->seen && istype(t, tn, "profile")) {
		int first = (int)(rk - ranks);	/* ranks moves as it grows */

		rk = findrank(-1, prof, 1);
		rk->file = file;
		onprofile(in, rk);
		if (sameprofile(&ranks[first], rk)) {
			rin_error(in, "profile %.120s a second time (same path and origin): one profile given twice",
			    prof);
			free(prof);
			return -1;
		}
		rk->seen = 1;
		rk->input = xstrdup(path);
		free(prof);
		return 0;
	}
	free(prof);
	if (rk == NULL) {
		rin_error(in, "record of a profile before its \"profile\" record");
		return -1;
	}
	if (istype(t, tn, "profile")) {
		onprofile(in, rk);
		rk->seen = 1;
		if (rk->input == NULL)
			rk->input = xstrdup(path);
	} else if (istype(t, tn, "step_metrics"))
		onmetrics(in, rk);
	else if (istype(t, tn, "step_trace"))
		onsteptrace(in, rk);
	else if (istype(t, tn, "comm"))
		oncomm(in, rk, (int)(rk - ranks));
	else if (istype(t, tn, "comm_link"))
		onlink(in, (int)(rk - ranks));
	else if (istype(t, tn, "comm_peer"))
		onpeer(in, (int)(rk - ranks));
	else if (istype(t, tn, "comm_op"))
		oncop(in, (int)(rk - ranks));
	else if (istype(t, tn, "anomaly_discovery"))
		onverdict(in, (int)(rk - ranks));
	else if (istype(t, tn, "comm_group"))
		ongroup(in, (int)(rk - ranks));
	else if (istype(t, tn, "attribution"))
		onattrib(in, rk);
	else if (istype(t, tn, "comm_task"))
		ontask(in, rk, (int)(rk - ranks));
	else if (istype(t, tn, "bubble")) {
		int64_t a = geti(in, "start_ns"), b = geti(in, "end_ns");

		if (a != UNSET && b != UNSET && rk->origin != UNSET) {
			ids = xreallocarray(ids, nid + 1, sizeof *ids);
			ids[nid].rank = (int)(rk - ranks);
			ids[nid].start = rk->origin + a;
			ids[nid++].end = rk->origin + b;
		}
	}
	else
		oncommkernel(in, rk, (int)(rk - ranks));
	return 0;
}
