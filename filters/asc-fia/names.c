/* asc-fia: the rules' kernel names and roles, interned names (fia.h). */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "intern.h"
#include "opkey.h"
#include "rules.h"
#include "util.h"

#include "fia.h"

const char *const bpname[NBP] = { "pipeline_send_receive", "gradient_sync",
    "embd_gradient_allreduce", "optimizer", "other_comm", "other_compute" };
const char *const tname[NTYPE] = { "dense", "moe_dfc", "moe_gmm", "moe", "decode", "backward" };
const char *const fcname[] = { "none", "prefill", "decode", "ambiguous" };
const char *const ename[NENG] = { "fia", "attention", "period" };
const char *const phname[NPH] = { "forward", "backward", "optimizer" };
const char *const rsname[NRS] = { "metadata_group", "inferred", "metadata_dims", "position", "name" };
const char *const clname[] = { "compute", "comm", "ai_cpu" };

struct intern NT;
char *roles[MAXROLE];
static const char *const *rglob[MAXROLE];
int nroles, rsmall, rother;
char *famname[MAXFAM];
static const char *const *famglob[MAXFAM];
int nfam;
char *grname[MAXGROUP];
const char *const *grglob[MAXGROUP];
int ngr;
int r_samp = -1, r_pp = -1, r_dp = -1, r_ep = -1, r_embd = -1;
int minbwd, minrep;
size_t maxpk;
int64_t prefill_min, decode_max, pass_gap, small_ns;
double warmup;
int tplmax;

static int64_t
ms2ns(const char *key)
{
	return (int64_t)llround(rules_num(key) * 1e6);
}

/*
 * A list of {"<field>": name, "names": [globs]} at fia.<key>, into name[]
 * and glob[] from index at; returns the new count.
 */
static int
loadnamed(const char *key, const char *field, char **name, const char *const **glob,
    int at, int max)
{
	char path[64];
	jv r;
	int n;

	snprintf(path, sizeof path, "fia.%s", key);
	r = rules_get(path);
	if (jv_get_kind(r) != JV_KIND_ARRAY)
		die("rules: \"fia.%s\" must be a list of {\"%s\", \"names\"}", key, field);
	n = jv_array_length(jv_copy(r));
	if (n > max - at)
		die("rules: \"fia.%s\" has more than %d entries", key, max - at);
	for (int i = 0; i < n; i++) {
		jv o = jv_array_get(jv_copy(r), i), rn, gl;
		int m;
		const char **g;

		if (jv_get_kind(o) != JV_KIND_OBJECT)
			die("rules: \"fia.%s\" must be a list of {\"%s\", \"names\"}", key, field);
		rn = jv_object_get(jv_copy(o), jv_string(field));
		gl = jv_object_get(o, jv_string("names"));
		if (jv_get_kind(rn) != JV_KIND_STRING || jv_get_kind(gl) != JV_KIND_ARRAY)
			die("rules: \"fia.%s\" must be a list of {\"%s\", \"names\"}", key, field);
		name[at] = xstrdup(jv_string_value(rn));
		m = jv_array_length(jv_copy(gl));
		g = xcalloc((size_t)m + 1, sizeof *g);
		for (int j = 0; j < m; j++) {
			jv s = jv_array_get(jv_copy(gl), j);

			if (jv_get_kind(s) != JV_KIND_STRING)
				die("rules: \"fia.%s\" names must be strings", key);
			g[j] = xstrdup(jv_string_value(s));
			jv_free(s);
		}
		glob[at++] = g;
		jv_free(rn);
		jv_free(gl);
	}
	jv_free(r);
	return at;
}

int
roleidx(const char *name)
{
	for (int r = 0; r < nroles; r++)
		if (strcmp(roles[r], name) == 0)
			return r;
	return -1;
}

void
loadroles(void)
{
	nroles = loadnamed("roles", "role", roles, rglob, 0, MAXROLE - 2);
	nfam = loadnamed("families", "family", famname, famglob, 0, MAXFAM);
	ngr = loadnamed("group_roles", "role", grname, grglob, 0, MAXGROUP);
	r_samp = roleidx("sampling");
	r_pp = roleidx("pp_comm");
	r_dp = roleidx("dp_comm");
	r_ep = roleidx("ep_comm");
	r_embd = roleidx("embd_comm");
	minbwd = (int)rules_num("fia.training_min_backward");
	minrep = (int)rules_num("fia.period_min_repeats");
	if (minrep < 2)
		minrep = 2;
	maxpk = (size_t)rules_num("fia.period_max_kernels");
	rules_list("fia.backward");
	rules_list("fia.optimizer");
	rules_list("fia.loss");
	rules_list("fia.embedding");
	rules_list("fia.grad_norm");
	rules_list("fia.p2p");
	rules_list("fia.prefill_attention");
	rules_list("fia.decode_attention");
	rsmall = nroles;
	roles[nroles++] = xstrdup("small_op_overhead");
	rother = nroles;
	roles[nroles++] = xstrdup("other");
	prefill_min = ms2ns("fia.prefill_min_ms");
	decode_max = ms2ns("fia.decode_max_ms");
	pass_gap = ms2ns("fia.pass_gap_ms");
	small_ns = (int64_t)llround(rules_num("fia.small_op_us") * 1e3);
	warmup = rules_num("fia.warmup_ratio");
	tplmax = (int)rules_num("fia.template_max");
	if (tplmax < 1)
		tplmax = 1;
	rules_list("ops.comm_task_types");
	rules_list("ops.aicpu_task_types");
}

/* The index of an interned name, or -1. */
int
lookup(const char *s, size_t n)
{
	return (int)intern_find(&NT, s, n);
}

int
intern(const char *s, size_t n)
{
	return (int)intern_add(&NT, s, n);
}

/* The first of the n glob lists glob[] that has a pattern matching s, or -1. */
static int
globsof(const char *const *const *glob, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		for (const char *const *g = glob[i]; *g; g++)
			if (fnmatch(*g, s, 0) == 0)
				return i;
	return -1;
}

/* What the rules say of a raw kernel name; valid until the next call. */
const struct rawname *
kname(const char *s, size_t n)
{
	static struct rawname *cache;
	static struct buf kb;
	struct rawname *c;

	if (cache == NULL)
		cache = xcalloc(RAWCACHE, sizeof *cache);
	c = &cache[fnv(FNV_INIT, s, n) & (RAWCACHE - 1)];
	if (c->s && c->n == n && memcmp(c->s, s, n) == 0)
		return c;
	free(c->s);
	c->s = xstrndup(s, n);
	c->n = n;
	c->flags = 0;
	c->flags |= rules_match("fia.fia_names", c->s) ? F_FIA : 0;
	c->flags |= rules_match("fia.dfc", c->s) ? F_DFC : 0;
	c->flags |= rules_match("fia.grouped_matmul", c->s) ? F_GMM : 0;
	c->flags |= rules_match("fia.moe_gating", c->s) ? F_GATE : 0;
	c->flags |= rules_match("fia.alltoallv", c->s) ? F_A2A : 0;
	c->flags |= rules_match("fia.sampling", c->s) ? F_SAMP : 0;
	c->flags |= rules_match("fia.fallback_anchors", c->s) ? F_ANCH : 0;
	c->flags |= rules_match("fia.comm_names", c->s) ? F_COMMN : 0;
	c->flags |= rules_match("fia.backward", c->s) ? F_BWD : 0;
	c->flags |= rules_match("fia.optimizer", c->s) ? F_OPT : 0;
	c->flags |= rules_match("fia.loss", c->s) ? F_LOSS : 0;
	c->flags |= rules_match("fia.p2p", c->s) ? F_P2P : 0;
	c->flags |= rules_match("fia.embedding", c->s) ? F_EMB : 0;
	c->flags |= rules_match("fia.grad_seed", c->s) ? F_SEED : 0;
	c->flags |= rules_match("fia.grad_norm", c->s) ? F_ONCE : 0;
	/* Prompt / incremental flash attention are prefill / decode FIA by
	 * definition: FIA markers whose class is their name. */
	if (!(c->flags & F_FIA)) {
		c->flags |= rules_match("fia.prefill_attention", c->s) ? F_PFA : 0;
		c->flags |= rules_match("fia.decode_attention", c->s) ? F_IFA : 0;
		if (c->flags & (F_PFA | F_IFA))
			c->flags |= F_FIA;
	}
	/* A gradient kernel is never a forward marker. */
	if (c->flags & F_BWD)
		c->flags &= ~(F_FIA | F_SAMP | F_LOSS | F_OPT);
	c->fam = globsof(famglob, nfam, c->s);
	c->role = globsof(rglob, rsmall, c->s);
	kb.len = 0;
	opkey(c->s, n, &kb);
	c->norm = kb.len == n ? intern(c->s, n) : intern(kb.p, kb.len);
	return c;
}

/* A role's name: an ArgMax in a training capture is the loss, not sampling. */
const char *
rolename(int r)
{
	return training && r == r_samp ? "loss" : roles[r];
}
