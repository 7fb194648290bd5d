/*
 * asc-fia: reverse-engineer the model architecture from device kernels
 * (phases A1-A7): FusedInferAttentionScore (FIA) timeline, forward-pass
 * boundaries, layer classification, cross-verification, per-layer-type
 * sub-structure, decode and communication pipeline, as "fia_*" records
 * written at the end of each profile's kernels.
 */
#define _GNU_SOURCE		/* strcasestr */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#define MAXROLE		64
#define MAXSTREAM	64
#define MAXTYPE		8
#define MAXANOM		8
/*
 * Output caps: memory and output follow the model's structure, not the
 * length of the capture.  fia_pass and fia_check records are written for
 * the first NPREC passes and the last one (the passes between are
 * aggregated in the summary), fia_layer records for at most the first
 * NLREC layers of those passes; the pattern fallback finds periods of up to
 * PATMAX layers; a layer type lists at most NRANGE layer ranges.
 */
#define NPREC		64
#define NLREC		4096
#define PATMAX		1024
#define NRANGE		64

/* Name flags, from the rules. */
#define F_FIA	0x01
#define F_DFC	0x02
#define F_GMM	0x04
#define F_GATE	0x08
#define F_A2A	0x10
#define F_SAMP	0x20
#define F_ANCH	0x40	/* fallback anchor (other attention kernels) */
#define F_COMMN	0x80
#define F_BWD	0x100	/* backward (gradient) kernel */
#define F_OPT	0x200	/* optimizer kernel */
#define F_LOSS	0x400	/* loss kernel */
#define F_P2P	0x800	/* point-to-point send / receive */
#define F_PFA	0x1000	/* prefill attention by name (PromptFlashAttention) */
#define F_IFA	0x2000	/* decode attention by name (IncreFlashAttention) */
#define F_EMB	0x4000	/* the embedding's lookup or gradient */

enum { C_COMPUTE, C_COMM, C_AICPU };
enum { FC_NONE, FC_PREFILL, FC_DECODE, FC_AMBIG };
enum { T_DENSE, T_DFC, T_GMM, T_MOE, T_DECODE, T_BWD, NTYPE };
enum { E_FIA, E_ATT, E_PER, NENG };
enum { PH_FWD, PH_BWD, PH_OPT, NPH };
/*
 * Work between passes, not layer time: pipeline send/receive, gradient
 * sync (dp collectives after the last gradient kernel), the embedding
 * gradient all-reduce, the optimizer step, and the rest (other
 * collectives, compute before the next pass's first layer).
 */
enum { BP_PIPE, BP_GRAD, BP_EMBD, BP_OPT, BP_COMM, BP_COMP, NBP };
static const char *bpname[NBP] = { "pipeline_send_receive", "gradient_sync",
    "embd_gradient_allreduce", "optimizer", "other_comm", "other_compute" };
/* Where a communication kernel's role comes from. */
enum { RS_GROUP, RS_INF, RS_DIMS, RS_POS, RS_NAME, NRS };

static const char *tname[NTYPE] = { "dense", "moe_dfc", "moe_gmm", "moe", "decode", "backward" };
static const char *fcname[] = { "none", "prefill", "decode", "ambiguous" };
static const char *ename[NENG] = { "fia", "attention", "period" };
static const char *phname[NPH] = { "forward", "backward", "optimizer" };
static const char *rsname[NRS] = { "metadata_group", "inferred", "metadata_dims", "position", "name" };
static const char *clname[] = { "compute", "comm", "ai_cpu" };

/*
 * Kernel names without their instance suffix (ops.name_strip_regex),
 * interned: as many as the model has kinds of kernels.  What the rules say
 * of a raw name is kept in a cache of RAWCACHE entries: raw names can be
 * unique per kernel (hcom_allReduce__428_1001_1).
 */
#define RAWCACHE	16384

struct name {
	char	*s;
	size_t	 n;
};

struct rawname {
	char	*s;
	size_t	 n;
	int	 flags, role;	/* role -1: none matched */
	int	 norm;		/* the name without its instance suffix */
	int	 fam;		/* op family (fia.families), -1: none */
};

/* A union of intervals fed in start order. */
struct acc {
	int	 have;
	int64_t	 s, e, tot;
};

struct stream {
	char		*label;		/* raw stream value, or comm:hccl / comm:alltoall */
	char		*raw;		/* raw JSON value ("null" for none) */
	size_t		 llen, rlen;
	int		 fromf;		/* raw is the kernels' own value */
	int64_t		 n, sum, ncl[3], clsum[3];
	struct acc	 u, c, m;	/* own, compute on other streams, both */
	char		*first;		/* the name of the first kernel */
};

/* A kernel of the current layer (name: the normalised name). */
struct lk {
	int	 name, flags, stream, role, cls, ph;
	int64_t	 s, e;
};

struct layer {
	int64_t	 start, end, kernels, ksum, fiadur, gap;
	int	 fcls, type, dfc, gmm, gate, a2a, samp, aicpu, nfia, stepchg, pass, inpass, match;
	int	 dir, p2p;		/* backward layer; a send / receive before it */
	int	 loss;			/* loss kernels in it */
};

/* A cross-verification check of a pass, accumulated layer by layer. */
struct chk {
	int64_t	 expected, observed, kernels, mn, mx;
	int	 nlack, nextra, lackdecode;
	char	 lack[192], extra[192];	/* the first 5 layers of each */
};

/* A pass, accumulated layer by layer. */
struct pass {
	size_t	 l0, l1;		/* layer range [l0, l1) */
	int	 why;			/* boundary reasons, bits */
	int	 haves, dir;
	int64_t	 gap, s, en, k, ks, pf[4], ps[4], ptc[NTYPE], c[6];
	struct chk ck[4];
};

/* Classes of a check's outcome before the profile-wide facts are known. */
enum { K_OK, K_OKM, K_LACKDEC, K_MIS, NKC };

/* The passes of one way of cutting the layers. */
struct chain {
	struct pass	 rec[NPREC];	/* the first passes */
	size_t		 nrec, n;	/* kept; all, the open one included */
	struct pass	 cur, last;	/* the open pass; the last closed after rec */
	int		 havelast, uniform, methods;
	/* The passes between rec and last. */
	int64_t		 on, olayers, okern, owsum, owmin, owmax, ock[4][NKC];
	int64_t		 firstfia, lastfia, firstwall, lastwall;
};

#define MAXFAM	16
#define MAXCB	64
#define NSTAGE	32
#define MAXGROUP 32

/*
 * A run of kernels of one phase.  A backward run whose dp (or embedding)
 * collective no gradient kernel follows ends with its last compute kernel
 * before it: from there on is gradient sync (w*: the backward; ts: the
 * sync's start).  When a non-gradient compute kernel had to wait for the
 * run's dp collectives to end (a bucket copy behind the previous bucket),
 * the backward ends before that wait (p*: the run before the wait; x*: the
 * wait, on the collective xc), and the wait is gradient-sync time.
 */
struct prun {
	int	 ph, first;	/* first: the name of its first kernel */
	int64_t	 s, e, n, sum, cn, csum;	/* c*: communication kernels */
	int	 sync;
	int64_t	 we, wn, wsum, wcn, wcsum, ts, wme;
	int64_t	 ce, me;	/* last end of compute, of communication kernels */
	int	 mec, mer;	/* the collective ending last: name, role */
	int	 pw, xc;	/* a wait since the last gradient kernel; its collective */
	int64_t	 pn, psum, pcn, pcsum, pme, xs, xe;
	char	 mecraw[96], xcraw[96];	/* mec, xc as the kernel names them */
};

/* Communication kernels of one op, group and role. */
struct cb {
	int	 name, group, role, src;	/* group: -1 unknown */
	int64_t	 n, sum, nph[NPH];
	int64_t	 nsync, mark, wmark;	/* gradient sync; nph[PH_BWD] at its start */
};

/* A kept kernel, for the period search and its replay. */
struct pk {
	struct lk k;
	int64_t	 dur, gap;
	int	 step;		/* step serial, -1: none */
	int	 fam, ph;
};

struct tk {
	int	 name, stream, role, cls;
	int64_t	 dsum, osum;
};

struct ltype {
	int	 type, first;
	int64_t	 count, kernels, ksum, wsum, wmin, wmax, fiasum, firstwall, samp;
	double	 wsq;
	int64_t	 rn[MAXROLE], rsum[MAXROLE], rwall[MAXROLE];
	uint64_t rstreams[MAXROLE];
	struct tk *tpl;
	int	 ntpl, truncated;
	int64_t	 matched, deviating;
	char	*anom[MAXANOM];
	int	 nanom;
	/* Runs of consecutive layers of the type, as text (NRANGE at most). */
	struct buf rtext;
	int64_t	 rs, rl, nr;		/* open run [rs, rl]; runs */
};

struct eng {
	int		 open, nanch;
	/*
	 * The open layer: figures added up kernel by kernel, its first
	 * template_max kernels and its distinct names in order, so a layer
	 * as long as the capture (steps without ids) costs no more.
	 */
	struct lk	*buf;
	size_t		 nbuf, capbuf;
	struct acc	 ra[MAXROLE];	/* per role: union of intervals */
	int64_t		 rn[MAXROLE], rsum[MAXROLE];
	uint64_t	 rst[MAXROLE];
	int		*dn;		/* distinct names, first seen first */
	size_t		 ndn, capdn;
	unsigned	*stamp, serial;	/* per name: last layer holding it */
	size_t		 capst;
	struct layer	 cur;
	struct layer	*l;		/* the first NLREC layers */
	size_t		 nl, capl;	/* all layers; room in l */
	int64_t		 pro_n, pro_sum, pro_s, pro_e;
	struct ltype	 t[MAXTYPE];
	int		 nt;
	struct buf	 lstep;		/* the open layer's step, raw */
	int		 lstepk;	/* it has one */
	int		 prevfcls;	/* of the last closed layer */
	int		 prevdir, p2p;	/* of the last layer; a send / receive since */
	struct chain	 on;		/* passes from gaps, transitions, steps */
	struct chain	 pat;		/* passes from the layer-type period */
	/*
	 * Between passes: once the open layer meets a send/receive or an
	 * optimizer kernel (hard) or a gradient sync (soft: undone by a later
	 * gradient kernel or a next layer of the same pass), its figures
	 * before that kernel are kept in s*, and the kernels from it on are
	 * tallied in p* for the parts b* if the layer is cut back.
	 */
	int		 seal;		/* 0 none, 1 soft, 2 hard */
	struct layer	 scur;
	struct acc	 sra[MAXROLE];
	int64_t		 srn[MAXROLE], srsum[MAXROLE];
	uint64_t	 srst[MAXROLE];
	size_t		 snbuf, sndn;
	int64_t		 pn[NBP], psum[NBP], bn[NBP], bsum[NBP];
	size_t		 per;		/* shortest period so far; 0: none <= PATMAX */
	/* Totals over the layers. */
	int64_t		 nfia[4], fsum[4], tc[NTYPE], cnt[6], samp;
	int		 anymoe, mis, decbad;
};

static struct {
	int		 unit, units;
	struct sr_sect	 sect;		/* the profile: order, counts, its name */
	struct buf	 dev;
	int64_t		 origin;	/* epoch ns, if known */
	int		 haveorigin;
	/* the unit: one device run */
	int64_t		 nk, ksum, first, last, maxend;
	int		 havek;
	struct acc	 all, comm, comp;
	struct stream	 st[MAXSTREAM];
	int		 nst;
	struct eng	 e[NENG];
	struct buf	 pkstep;	/* the previous kernel's step, raw */
	int		 pkstepk, havepk;
	/* op_stat counts, for a profile without kernels */
	int64_t		 opn, opcnt[8];
	/* Phases: the current one, kernels per phase, runs of one phase. */
	int		 ph;
	int64_t		 nph[NPH], phsum[NPH], nbwd, nopt;
	struct prun	 runs[NPREC];
	int64_t		 nruns;
	struct prun	 lastrun;	/* the open run, or the last one */
	/* Loss kernels: by name, and ArgMax-like ones (loss in training). */
	int64_t		 nloss, nargm;
	int64_t		 npfa, nifa;	/* FIA markers by name */
	int64_t		 nemb[2], embsum;	/* embedding kernels: forward, gradient */
	int		 lossn[4], nlossn;
	/* Op families per phase, communication by op and role, stages. */
	int64_t		 famn[MAXFAM + 1][NPH], famsum[MAXFAM + 1][NPH];
	struct cb	 cb[MAXCB];
	int		 ncb, lastcb;	/* lastcb: the last comm kernel's */
	int		 stage[NSTAGE], nstage;
	int64_t		 stagen[NSTAGE];
	/* The first kernels, kept for the period search. */
	struct pk	*pk;
	size_t		 npk, cappk;
	int64_t		 pkmore;	/* kernels past the cap */
	int		 stepser;	/* serial of the kernel's step */
	int64_t		 opt_s, opt_e;	/* the optimizer kernels' span */
	int		 opt_first;	/* the first one, -1: none */
} G;

/* The capture's parallel groups (profiler_metadata.json). */
static struct {
	int	 have, n, dims;		/* dims: the only collective role with > 1 rank, or -1 */
	char	*key[MAXGROUP], *name[MAXGROUP];
	int	 role[MAXGROUP], size[MAXGROUP];
	int	 ppsize, epsize;
	int	 ppstage, ppstages;	/* this rank's pp group: group_rank, size; -1 */
} M;

/*
 * What the capture says of each comm group (communication.json's ops,
 * communication_matrix.json's links), to match it to a named group of
 * parallel_group_info as asc-comm does: its size (the ranks of its
 * links) and what its ops do.
 */
#define MAXCG	256
#define MAXCGR	64
static struct cg {
	int	 g;			/* names[] index of the group id */
	int	 p2p, rsag, ar;		/* send/recv, reduce-scatter or
					   all-gather, all-reduce */
	double	 maxmb;			/* largest transfer on a link */
	int64_t	 rk[MAXCGR];
	int	 nrk;
	int	 meta;			/* M index, -1 */
	const char *why;		/* what inferred meta (as asc-comm) */
} CG[MAXCG];
static int ncg, cgdone;

/*
 * communication.json's ops by op name and group, for a profile without
 * device kernels: what the rank communicated is still known.
 */
#define MAXCR	64
static struct cr {
	int	 name, raw, group;	/* raw: the first op's full name */
	int64_t	 n, elapse;		/* ops, their elapsed time (ns) */
} CR[MAXCR];
static int ncr;

/*
 * communication.json: op name -> group + 1, by interned name, for the
 * kernels' groups; at most OPGCAP ops are kept.
 */
#define OPGCAP	65536
static int *opg;
static size_t capopg, nopg;

/* -n: write profile records and our own, not the input. */
static int ownonly;
/* The unit being written is a training capture. */
static int training;

static struct name *names;
static size_t nnames, capnames, *htab, hcap;
static char *roles[MAXROLE];
static const char *const *rglob[MAXROLE];
static int nroles, rsmall, rother;
static char *famname[MAXFAM];
static const char *const *famglob[MAXFAM];
static int nfam;
static char *grname[MAXGROUP];		/* fia.group_roles: role of a group name */
static const char *const *grglob[MAXGROUP];
static int ngr;
/* Roles the code assigns itself (-1: not in the rules). */
static int r_samp = -1, r_pp = -1, r_dp = -1, r_ep = -1, r_embd = -1;
static int minbwd, minrep;
static size_t maxpk;
static int64_t prefill_min, decode_max, pass_gap, small_ns;
static double warmup;
static int tplmax;
static struct buf ob, tmp, tb, nmb;	/* nmb: the kernel's name */

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-kn] [-m maxline] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

/* Rules -------------------------------------------------------------- */

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

static int
roleidx(const char *name)
{
	for (int r = 0; r < nroles; r++)
		if (strcmp(roles[r], name) == 0)
			return r;
	return -1;
}

static void
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

static uint64_t
hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* The index of an interned name, or -1. */
static int
lookup(const char *s, size_t n)
{
	size_t i;

	if (hcap == 0)
		return -1;
	i = hash(s, n) & (hcap - 1);
	while (htab[i]) {
		const struct name *t = &names[htab[i] - 1];

		if (t->n == n && memcmp(t->s, s, n) == 0)
			return (int)(htab[i] - 1);
		i = (i + 1) & (hcap - 1);
	}
	return -1;
}

static int
intern(const char *s, size_t n)
{
	size_t i;

	if (nnames * 2 >= hcap) {
		size_t nc = hcap ? 2 * hcap : 1024;

		free(htab);
		htab = xcalloc(nc, sizeof *htab);
		hcap = nc;
		for (size_t k = 0; k < nnames; k++) {
			i = hash(names[k].s, names[k].n) & (hcap - 1);
			while (htab[i])
				i = (i + 1) & (hcap - 1);
			htab[i] = k + 1;
		}
	}
	i = hash(s, n) & (hcap - 1);
	while (htab[i]) {
		const struct name *t = &names[htab[i] - 1];

		if (t->n == n && memcmp(t->s, s, n) == 0)
			return (int)(htab[i] - 1);
		i = (i + 1) & (hcap - 1);
	}
	if (nnames == capnames) {
		capnames = capnames ? 2 * capnames : 256;
		names = xreallocarray(names, capnames, sizeof *names);
	}
	names[nnames].s = xstrndup(s, n);
	names[nnames].n = n;
	htab[i] = ++nnames;
	return (int)(nnames - 1);
}

/* What the rules say of a raw kernel name; valid until the next call. */
static const struct rawname *
kname(const char *s, size_t n)
{
	static struct rawname *cache;
	static struct buf kb;
	struct rawname *c;

	if (cache == NULL)
		cache = xcalloc(RAWCACHE, sizeof *cache);
	c = &cache[hash(s, n) & (RAWCACHE - 1)];
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
	c->fam = -1;
	for (int f = 0; f < nfam && c->fam < 0; f++)
		for (const char *const *g = famglob[f]; *g; g++)
			if (fnmatch(*g, c->s, 0) == 0) {
				c->fam = f;
				break;
			}
	c->role = -1;
	for (int r = 0; r < rsmall && c->role < 0; r++)
		for (const char *const *g = rglob[r]; *g; g++)
			if (fnmatch(*g, c->s, 0) == 0) {
				c->role = r;
				break;
			}
	kb.len = 0;
	opkey(c->s, n, &kb);
	c->norm = kb.len == n ? intern(c->s, n) : intern(kb.p, kb.len);
	return c;
}

/* Output helpers ----------------------------------------------------- */

/* A role's name: an ArgMax in a training capture is the loss, not sampling. */
static const char *
rolename(int r)
{
	return training && r == r_samp ? "loss" : roles[r];
}

static void
putratio(const char *k, int64_t num, int64_t den)
{
	char t[40];
	int n;

	if (den <= 0) {
		out_null(&ob, k);
		return;
	}
	n = dec_ratio(t, num, den);
	out_raw(&ob, k, t, (size_t)n);
}

static void
head(const char *type)
{
	out_begin(&ob, type);
	out_raw(&ob, "profile", G.sect.prof.p, G.sect.prof.len);
	out_raw(&ob, "device", G.dev.p, G.dev.len);
}

static void
fmtms(struct buf *b, int64_t ns)
{
	char t[40];

	dec_fmt(t, ns, 6);
	buf_adds(b, t);
	buf_adds(b, " ms");
}

/* Intervals ---------------------------------------------------------- */

static void
acc_add(struct acc *a, int64_t s, int64_t e)
{
	if (!a->have) {
		a->have = 1;
		a->s = s;
		a->e = e;
	} else if (s <= a->e) {
		if (e > a->e)
			a->e = e;
	} else {
		a->tot += a->e - a->s;
		a->s = s;
		a->e = e;
	}
}

static int64_t
acc_get(const struct acc *a)
{
	return a->tot + (a->have ? a->e - a->s : 0);
}

/* Units (device runs) ------------------------------------------------ */

static void
eng_reset(struct eng *e)
{
	for (int i = 0; i < e->nt; i++) {
		free(e->t[i].tpl);
		for (int j = 0; j < e->t[i].nanom; j++)
			free(e->t[i].anom[j]);
		buf_free(&e->t[i].rtext);
	}
	memset(e->t, 0, sizeof e->t);
	e->nt = 0;
	e->open = e->nanch = 0;
	e->nbuf = e->nl = 0;
	e->pro_n = e->pro_sum = 0;
	e->lstep.len = 0;
	e->lstepk = 0;
	e->prevfcls = FC_NONE;
	e->prevdir = e->p2p = 0;
	memset(&e->on, 0, sizeof e->on);
	memset(&e->pat, 0, sizeof e->pat);
	e->per = 0;
	memset(e->nfia, 0, sizeof e->nfia);
	memset(e->fsum, 0, sizeof e->fsum);
	memset(e->tc, 0, sizeof e->tc);
	memset(e->cnt, 0, sizeof e->cnt);
	e->samp = 0;
	e->anymoe = e->mis = e->decbad = 0;
	e->seal = 0;
	memset(e->bn, 0, sizeof e->bn);
	memset(e->bsum, 0, sizeof e->bsum);
}

static void
unit_begin(const char *dev, size_t n)
{
	G.unit = 1;
	G.dev.len = 0;
	buf_add(&G.dev, dev, n);
	G.nk = G.ksum = 0;
	G.havek = 0;
	memset(&G.all, 0, sizeof G.all);
	memset(&G.comm, 0, sizeof G.comm);
	memset(&G.comp, 0, sizeof G.comp);
	for (int i = 0; i < G.nst; i++) {
		free(G.st[i].label);
		free(G.st[i].raw);
		free(G.st[i].first);
	}
	G.nst = 0;
	for (int i = 0; i < NENG; i++)
		eng_reset(&G.e[i]);
	G.havepk = 0;
	G.ph = PH_FWD;
	memset(G.nph, 0, sizeof G.nph);
	memset(G.phsum, 0, sizeof G.phsum);
	G.nbwd = G.nopt = G.nruns = 0;
	G.nloss = G.nargm = G.npfa = G.nifa = 0;
	G.nemb[0] = G.nemb[1] = G.embsum = 0;
	G.nlossn = 0;
	memset(G.famn, 0, sizeof G.famn);
	memset(G.famsum, 0, sizeof G.famsum);
	G.ncb = G.nstage = 0;
	G.npk = 0;
	G.pkmore = 0;
	G.stepser = 0;
	G.opt_first = -1;
}

static int
streamidx(const struct rfield *f, int cls, int flags)
{
	const char *label;
	size_t n;

	if (f == NULL) {
		label = cls == C_COMM ? ((flags & F_A2A) ? "comm:alltoall" : "comm:hccl") : "null";
		n = strlen(label);
	} else {
		/* The same raw value is the same stream: no unescaping. */
		for (int i = 0; i < G.nst; i++)
			if (G.st[i].fromf && G.st[i].rlen == f->vlen &&
			    memcmp(G.st[i].raw, f->v, f->vlen) == 0)
				return i;
		tmp.len = 0;
		if (rf_str(f, &tmp) != 0) {
			tmp.len = 0;
			buf_add(&tmp, f->v, f->vlen);
		}
		label = tmp.p;
		n = tmp.len;
	}
	for (int i = 0; i < G.nst; i++)
		if (G.st[i].llen == n && memcmp(G.st[i].label, label, n) == 0)
			return i;
	if (G.nst == MAXSTREAM)
		return MAXSTREAM - 1;
	struct stream *s = &G.st[G.nst];

	memset(s, 0, sizeof *s);
	s->label = xstrndup(label, n);
	s->raw = f ? xstrndup(f->v, f->vlen) : xstrdup("null");
	s->llen = n;
	s->rlen = strlen(s->raw);
	s->fromf = f != NULL;
	/* Compute on the other streams so far (the same set for c and m). */
	s->c = G.comp;
	s->m = G.comp;
	s->first = NULL;
	return G.nst++;
}

/* Is the step f (NULL: none) the one held in b (k: there is one)? */
static int
samestep(const struct buf *b, int k, const struct rfield *f)
{
	if (f == NULL || !k)
		return f == NULL && !k;
	return b->len == f->vlen && memcmp(b->p, f->v, f->vlen) == 0;
}

static void
keepstep(struct buf *b, int *k, const struct rfield *f)
{
	b->len = 0;
	*k = f != NULL;
	if (f)
		buf_add(b, f->v, f->vlen);
}

/* Layers ------------------------------------------------------------- */

static struct ltype *
typeof_(struct eng *e, int type)
{
	for (int i = 0; i < e->nt; i++)
		if (e->t[i].type == type)
			return &e->t[i];
	struct ltype *t = &e->t[e->nt++];

	memset(t, 0, sizeof *t);
	t->type = type;
	t->first = (int)e->nl;
	return t;
}

static void
anomaly(struct ltype *t, struct buf *b)
{
	if (t->nanom < MAXANOM)
		t->anom[t->nanom++] = xstrndup(b->p, b->len);
}

static void
ranges_flush(struct ltype *t)
{
	char s[64];

	if (t->nr == 0 || t->nr > NRANGE)
		return;
	if (t->rs == t->rl)
		snprintf(s, sizeof s, "%s%lld", t->nr > 1 ? ", " : "", (long long)t->rs);
	else
		snprintf(s, sizeof s, "%s%lld-%lld", t->nr > 1 ? ", " : "", (long long)t->rs,
		    (long long)t->rl);
	buf_adds(&t->rtext, s);
}

/* Passes ------------------------------------------------------------- */

#define B_FIRST	1
#define B_GAP	2
#define B_D2P	4
#define B_STEP	8
#define B_PAT	16
#define B_DIR	32	/* forward <-> backward */
#define B_P2P	64	/* a send / receive between the layers */

static const struct {
	const char	*what;
	int		 flag;
	unsigned	 mask;		/* layer types expected to hold it */
} ckind[4] = {
	{ "fia_equals_layers", F_FIA, 0 },
	{ "dfc_equals_moe_dfc", F_DFC, 1u << T_DFC },
	{ "grouped_matmul_equals_moe_gmm_decode", F_GMM, 1u << T_GMM | 1u << T_DECODE },
	{ "gating_equals_moe", F_GATE, 1u << T_DFC | 1u << T_GMM | 1u << T_MOE | 1u << T_DECODE },
};

static void
chk_add(struct chk *c, int kind, const struct layer *L, size_t i)
{
	int flag = ckind[kind].flag;
	int n = flag == F_FIA ? L->nfia : flag == F_DFC ? L->dfc :
	    flag == F_GMM ? L->gmm : L->gate;
	int want = flag == F_FIA ? 1 : !!(ckind[kind].mask & (1u << L->type));
	char s[64];

	c->expected += want;
	c->observed += n > 0;
	c->kernels += n;
	if (n > 0) {
		if (c->mn < 0 || n < c->mn)
			c->mn = n;
		if (n > c->mx)
			c->mx = n;
	}
	if (want && n == 0) {
		if (c->nlack++ < 5) {
			snprintf(s, sizeof s, "%s%zu (%s)", c->nlack > 1 ? ", " : "", i, tname[L->type]);
			strcat(c->lack, s);
		}
		c->lackdecode &= L->type == T_DECODE;
	} else if (!want && n > 0 && c->nextra++ < 5) {
		snprintf(s, sizeof s, "%s%zu (%s)", c->nextra > 1 ? ", " : "", i, tname[L->type]);
		strcat(c->extra, s);
	}
}

/* The outcome, but for what depends on the whole profile. */
static int
chk_class(const struct chk *c)
{
	if (c->nlack == 0 && c->nextra == 0)
		return c->kernels == c->observed ? K_OK : K_OKM;
	return c->nextra == 0 && c->lackdecode ? K_LACKDEC : K_MIS;
}

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

static void
chain_fold(struct chain *ch, const struct pass *q)
{
	int64_t w = q->en - q->s;

	if (ch->on == 0 || w < ch->owmin)
		ch->owmin = w;
	if (ch->on == 0 || w > ch->owmax)
		ch->owmax = w;
	ch->on++;
	ch->olayers += (int64_t)(q->l1 - q->l0);
	ch->okern += q->k;
	ch->owsum += w;
	for (int j = 0; j < 4; j++)
		ch->ock[j][chk_class(&q->ck[j])]++;
}

static void
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
	if (ch->nrec < NPREC) {
		ch->rec[ch->nrec++] = *q;
		return;
	}
	if (ch->havelast)
		chain_fold(ch, &ch->last);
	ch->last = *q;
	ch->havelast = 1;
}

/* Layer i, which starts a pass when why is not 0. */
static void
chain_layer(struct chain *ch, const struct eng *e, const struct layer *L, size_t i, int why)
{
	if (i == 0) {
		memset(ch, 0, sizeof *ch);
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
static void
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
		if (e->nl == e->capl) {
			e->capl = e->capl ? 2 * e->capl : 64;
			e->l = xreallocarray(e->l, e->capl, sizeof *e->l);
		}
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

/* A closed layer: totals, layer-type runs, passes. */
static void
layer_done(struct eng *e, struct layer *L)
{
	struct ltype *t = typeof_(e, L->type);
	int64_t i = (int64_t)e->nl;

	e->nfia[L->fcls]++;
	e->fsum[L->fcls] += L->fiadur;
	e->tc[L->type]++;
	e->anymoe |= L->type == T_DFC || L->type == T_GMM || L->type == T_MOE;
	e->cnt[0] += L->nfia;
	e->cnt[1] += L->dfc;
	e->cnt[2] += L->gmm;
	e->cnt[3] += L->gate;
	e->cnt[4] += L->a2a;
	e->cnt[5] += L->samp;
	e->samp += L->samp > 0;
	if ((L->dfc && L->type != T_DFC) || (L->gmm && L->type != T_GMM && L->type != T_DECODE))
		e->mis = 1;
	if (L->type == T_DECODE && (!L->gate || !L->gmm))
		e->decbad = 1;
	if (t->nr == 0 || t->rl != i - 1) {
		ranges_flush(t);
		t->rs = i;
		t->nr++;
	}
	t->rl = i;
	layer_pass(e, L);
	e->nl++;
}

static void
layer_close(struct eng *e, int ei)
{
	struct layer *L = &e->cur;
	struct ltype *t;
	int64_t wall;

	if (L->dir)
		L->type = T_BWD;
	else if (L->fcls == FC_DECODE)
		L->type = T_DECODE;
	else if (L->dfc)
		L->type = T_DFC;
	else if (L->gmm)
		L->type = T_GMM;
	else if (L->gate)
		L->type = T_MOE;
	else
		L->type = T_DENSE;
	t = typeof_(e, L->type);
	wall = L->end - L->start;
	if (t->count == 0) {
		t->wmin = t->wmax = wall;
		t->firstwall = wall;
	}
	t->count++;
	t->kernels += L->kernels;
	t->ksum += L->ksum;
	t->wsum += wall;
	t->wsq += (double)wall * (double)wall;
	if (wall < t->wmin)
		t->wmin = wall;
	if (wall > t->wmax)
		t->wmax = wall;
	t->fiasum += L->fiadur;
	t->samp += L->samp > 0;
	for (int r = 0; r < nroles; r++) {
		t->rwall[r] += acc_get(&e->ra[r]);
		t->rn[r] += e->rn[r];
		t->rsum[r] += e->rsum[r];
		t->rstreams[r] |= e->rst[r];
	}
	/* The template: the first layer of the type; later ones are matched. */
	if (t->count == 1) {
		t->ntpl = (int)e->nbuf;
		t->truncated = L->kernels > tplmax;
		t->tpl = xcalloc((size_t)t->ntpl + 1, sizeof *t->tpl);
		for (int i = 0; i < t->ntpl; i++) {
			const struct lk *k = &e->buf[i];

			t->tpl[i] = (struct tk){ k->name, k->stream, k->role, k->cls,
			    k->e - k->s, k->s - L->start };
		}
		t->matched = 1;
		L->match = 1;
	} else {
		int same = !t->truncated && L->kernels == t->ntpl;

		for (int i = 0; same && i < t->ntpl; i++)
			same = t->tpl[i].name == e->buf[i].name &&
			    t->tpl[i].stream == e->buf[i].stream;
		if (same) {
			for (int i = 0; i < t->ntpl; i++) {
				t->tpl[i].dsum += e->buf[i].e - e->buf[i].s;
				t->tpl[i].osum += e->buf[i].s - L->start;
			}
			t->matched++;
			L->match = 1;
		} else {
			t->deviating++;
			if (t->nanom < MAXANOM - 2) {
				int shown = 0;

				tb.len = 0;
				{
					char s[160];

					snprintf(s, sizeof s, "layer %zu: %lld kernels, the template "
					    "(layer %d) has %d", e->nl, (long long)L->kernels,
					    t->first, t->ntpl);
					buf_adds(&tb, s);
				}
				/* Names in this layer that the template lacks; the
				 * embedding's (its lookup or gradient) apart. */
				for (int emb = 0; emb < 2; emb++, shown = 0)
					for (size_t i = 0; i < e->ndn && shown < 4; i++) {
						int in = 0;

						for (int j = 0; j < t->ntpl && !in; j++)
							in = t->tpl[j].name == e->dn[i];
						if (in || !!rules_match("fia.embedding", names[e->dn[i]].s) != emb)
							continue;
						buf_adds(&tb, shown ? ", " : emb ? "; in its span, the "
						    "embedding's kernels (the embedding part, not this "
						    "layer's): " : "; not in the template: ");
						buf_adds(&tb, names[e->dn[i]].s);
						shown++;
					}
				anomaly(t, &tb);
			}
		}
	}
	(void)ei;
	layer_done(e, L);
	e->open = 0;
	e->nbuf = 0;
}

/* The part between passes that a kernel outside every layer belongs to. */
static int
bpart(const struct lk *k)
{
	if (k->flags & F_P2P)
		return BP_PIPE;
	if (k->ph == PH_OPT)
		return BP_OPT;
	if (k->cls == C_COMM && k->role >= 0 && k->role == r_dp)
		return BP_GRAD;
	if (k->cls == C_COMM && k->role >= 0 && k->role == r_embd)
		return BP_EMBD;
	return k->cls == C_COMM ? BP_COMM : BP_COMP;
}

/*
 * How a kernel ends the open layer: 2 surely (a send / receive, the
 * optimizer step); 1 unless the pass goes on after it (a gradient sync
 * in the backward phase: overlapped with the backward it is layer time);
 * 0 not.
 */
static int
sealof(const struct lk *k)
{
	if ((k->flags & F_P2P) || k->ph == PH_OPT)
		return 2;
	if (k->ph == PH_BWD && k->cls == C_COMM && k->role >= 0 &&
	    (k->role == r_dp || k->role == r_embd))
		return 1;
	return 0;
}

/* Keep the open layer's figures before its first kernel between passes. */
static void
seal_open(struct eng *e, int how)
{
	if (e->seal == 0) {
		e->scur = e->cur;
		memcpy(e->sra, e->ra, sizeof e->ra);
		memcpy(e->srn, e->rn, sizeof e->rn);
		memcpy(e->srsum, e->rsum, sizeof e->rsum);
		memcpy(e->srst, e->rst, sizeof e->rst);
		e->snbuf = e->nbuf;
		e->sndn = e->ndn;
		memset(e->pn, 0, sizeof e->pn);
		memset(e->psum, 0, sizeof e->psum);
	}
	if (how > e->seal)
		e->seal = how;
}

/*
 * Close the open layer; cut it back to its last kernel before the work
 * between passes when that is sure or a new pass follows (cut), and
 * count that work in its parts.
 */
static void
layer_end(struct eng *e, int ei, int cut)
{
	if (e->seal == 2 || (e->seal == 1 && cut)) {
		e->cur = e->scur;
		memcpy(e->ra, e->sra, sizeof e->ra);
		memcpy(e->rn, e->srn, sizeof e->rn);
		memcpy(e->rsum, e->srsum, sizeof e->rsum);
		memcpy(e->rst, e->srst, sizeof e->rst);
		e->nbuf = e->snbuf;
		e->ndn = e->sndn;
		for (int j = 0; j < NBP; j++) {
			e->bn[j] += e->pn[j];
			e->bsum[j] += e->psum[j];
		}
	}
	e->seal = 0;
	layer_close(e, ei);
}

static void
eng_kernel(struct eng *e, int ei, const struct lk *k, int anchor, int64_t dur,
    const struct rfield *step, int64_t gap)
{
	int sl = sealof(k);

	if (anchor) {
		int prev = e->open, dir = ei != E_PER && (k->flags & F_BWD);
		int stepchg = prev && e->lstepk && step && !samestep(&e->lstep, 1, step);

		/* As layer_pass cuts passes. */
		if (e->open)
			layer_end(e, ei, (gap >= pass_gap && gap >= 0) || stepchg ||
			    dir != e->cur.dir || e->p2p);
		memset(&e->cur, 0, sizeof e->cur);
		memset(e->ra, 0, sizeof e->ra);
		memset(e->rn, 0, sizeof e->rn);
		memset(e->rsum, 0, sizeof e->rsum);
		memset(e->rst, 0, sizeof e->rst);
		e->nbuf = e->ndn = 0;
		if (++e->serial == 0) {		/* wrapped: forget the stamps */
			memset(e->stamp, 0, e->capst * sizeof *e->stamp);
			e->serial = 1;
		}
		e->cur.stepchg = stepchg;
		keepstep(&e->lstep, &e->lstepk, step);
		e->open = 1;
		e->nanch++;
		e->cur.start = k->s;
		e->cur.end = k->e;
		e->cur.fiadur = dur;
		e->cur.gap = gap;
		e->cur.dir = dir;
		e->cur.p2p = e->p2p;
		e->p2p = 0;
		if (ei == E_FIA)
			e->cur.fcls = (k->flags & F_PFA) ? FC_PREFILL : (k->flags & F_IFA) ? FC_DECODE :
			    dur > prefill_min ? FC_PREFILL : dur < decode_max ? FC_DECODE : FC_AMBIG;
	}
	if (k->flags & F_P2P)
		e->p2p = 1;
	if (!e->open && sl == 2) {	/* before the first layer: not the prologue's */
		e->bn[bpart(k)]++;
		e->bsum[bpart(k)] += k->e - k->s;
		return;
	}
	if (!e->open) {
		if (e->pro_n == 0)
			e->pro_s = k->s;
		if (e->pro_n == 0 || k->e > e->pro_e)
			e->pro_e = k->e;
		e->pro_n++;
		e->pro_sum += k->e - k->s;
		return;
	}
	/* A gradient kernel after a gradient sync: the sync overlaps the pass. */
	if (e->seal == 1 && (k->flags & F_BWD))
		e->seal = 0;
	if (sl)
		seal_open(e, sl);
	if (e->seal) {
		e->pn[bpart(k)]++;
		e->psum[bpart(k)] += k->e - k->s;
		if (e->seal == 2)
			return;
	}
	/* The kernel, into the open layer. */
	struct layer *L = &e->cur;
	int fl = k->flags;

	L->kernels++;
	L->ksum += k->e - k->s;
	if (k->e > L->end)
		L->end = k->e;
	L->dfc += !!(fl & F_DFC);
	L->gmm += !!(fl & F_GMM);
	L->gate += !!(fl & F_GATE);
	L->a2a += !!(fl & F_A2A);
	L->samp += !!(fl & F_SAMP);
	L->nfia += !!(fl & F_FIA);
	L->loss += !!(fl & F_LOSS);
	L->aicpu += k->cls == C_AICPU;
	acc_add(&e->ra[k->role], k->s, k->e);
	e->rn[k->role]++;
	e->rsum[k->role] += k->e - k->s;
	e->rst[k->role] |= 1ULL << k->stream;
	if (e->nbuf < (size_t)tplmax) {
		if (e->nbuf == e->capbuf) {
			e->capbuf = e->capbuf ? 2 * e->capbuf : 256;
			e->buf = xreallocarray(e->buf, e->capbuf, sizeof *e->buf);
		}
		e->buf[e->nbuf++] = *k;
	}
	if ((size_t)k->name >= e->capst) {
		size_t nc = nnames > 2 * e->capst ? nnames : 2 * e->capst + 64;

		e->stamp = xreallocarray(e->stamp, nc, sizeof *e->stamp);
		memset(e->stamp + e->capst, 0, (nc - e->capst) * sizeof *e->stamp);
		e->capst = nc;
	}
	if (e->stamp[k->name] != e->serial) {
		e->stamp[k->name] = e->serial;
		if (e->ndn == e->capdn) {
			e->capdn = e->capdn ? 2 * e->capdn : 64;
			e->dn = xreallocarray(e->dn, e->capdn, sizeof *e->dn);
		}
		e->dn[e->ndn++] = k->name;
	}
}

/* Output ------------------------------------------------------------- */

static void
putwhy(int why)
{
	static const char *w[] = { "first", "gap", "decode_to_prefill", "step", "pattern",
	    "direction", "send_receive" };
	int n = 0;

	out_key(&ob, "boundary");
	buf_addc(&ob, '[');
	for (int i = 0; i < 7; i++)
		if (why & (1 << i)) {
			if (n++)
				buf_addc(&ob, ',');
			out_esc(&ob, w[i], strlen(w[i]));
		}
	buf_addc(&ob, ']');
}

static void
putnotes(const char *const *notes, int n)
{
	out_key(&ob, "notes");
	buf_addc(&ob, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, notes[i], strlen(notes[i]));
	}
	buf_addc(&ob, ']');
}

static void
putabs(const char *k, int64_t rel)
{
	char t[40];

	if (G.haveorigin) {
		/* A string, like the profile's origin_us: a double would round it. */
		dec_fmt(t, G.origin + rel, 3);
		out_cstr(&ob, k, t);
	} else
		out_null(&ob, k);
}

/* One cross-verification check of a pass. */
static void
check(const struct chk *c, int64_t pi, int kind, int anymoe, int fia, int bwd)
{
	int flag = ckind[kind].flag, nlack = c->nlack, nextra = c->nextra;
	const char *status;
	char s[200];

	tb.len = 0;
	if (bwd) {
		status = "not_applicable";
		buf_adds(&tb, "backward pass: the checks of forward layers do not apply");
	} else if (flag == F_FIA && !fia) {
		status = "not_applicable";
		buf_adds(&tb, "no FIA kernels: layers come from a fallback marker");
	} else if (nlack == 0 && nextra == 0) {
		if (c->kernels == c->observed) {
			status = "ok";
			buf_adds(&tb, c->observed ? "one per layer" : "none expected, none found");
		} else {
			status = "ok_multiple";
			if (c->mn == c->mx)
				snprintf(s, sizeof s, "%lld kernels = %lld per layer x %lld layers",
				    (long long)c->kernels, (long long)c->mn, (long long)c->observed);
			else
				snprintf(s, sizeof s, "%lld kernels in %lld layers (%lld-%lld per layer)",
				    (long long)c->kernels, (long long)c->observed, (long long)c->mn,
				    (long long)c->mx);
			buf_adds(&tb, s);
		}
	} else if (nextra == 0 && c->lackdecode && !anymoe && flag != F_FIA) {
		status = "explained";
		buf_adds(&tb, "no MoE layer in the capture: the decode layers are dense (");
		buf_adds(&tb, c->lack);
		buf_adds(&tb, ")");
	} else {
		status = "mismatch";
		if (nlack) {
			snprintf(s, sizeof s, "%d expected layer%s without it: ", nlack, nlack > 1 ? "s" : "");
			buf_adds(&tb, s);
			buf_adds(&tb, c->lack);
			if (nlack > 5)
				buf_adds(&tb, ", ...");
		}
		if (nextra) {
			snprintf(s, sizeof s, "%s%d other layer%s with it: ", nlack ? "; " : "",
			    nextra, nextra > 1 ? "s" : "");
			buf_adds(&tb, s);
			buf_adds(&tb, c->extra);
			if (nextra > 5)
				buf_adds(&tb, ", ...");
		}
	}
	head("fia_check");
	out_i64(&ob, "pass", pi);
	out_cstr(&ob, "check", ckind[kind].what);
	out_i64(&ob, "expected_layers", c->expected);
	out_i64(&ob, "observed_layers", c->observed);
	out_i64(&ob, "kernels", c->kernels);
	out_cstr(&ob, "status", status);
	out_str(&ob, "note", tb.p ? tb.p : "", tb.len);
	/* Did it test anything: a marker expected or seen, or a layer count. */
	out_bool(&ob, "tested", strcmp(status, "not_applicable") != 0 &&
	    (c->expected > 0 || c->observed > 0));
	rec_put(&ob, stdout);
}

/* Backward pass pi holds as many layers as forward pass fi. */
static void
check_bwd(const struct pass *b, int64_t pi, const struct pass *f, int64_t fi)
{
	int64_t nb = (int64_t)(b->l1 - b->l0), nf = f ? (int64_t)(f->l1 - f->l0) : 0;
	char s[160];

	if (f)
		snprintf(s, sizeof s, "%lld backward layers; forward pass %lld has %lld",
		    (long long)nb, (long long)fi, (long long)nf);
	else
		snprintf(s, sizeof s, "%lld backward layers; no forward pass before it",
		    (long long)nb);
	head("fia_check");
	out_i64(&ob, "pass", pi);
	out_cstr(&ob, "check", "backward_equals_forward");
	out_i64(&ob, "expected_layers", nf);
	out_i64(&ob, "observed_layers", nb);
	out_i64(&ob, "kernels", 0);
	out_cstr(&ob, "status", f && nf == nb ? "ok" : "mismatch");
	out_cstr(&ob, "note", s);
	out_bool(&ob, "tested", 1);
	rec_put(&ob, stdout);
}

static void
putpass(const struct pass *q, int64_t pi)
{
	head("fia_pass");
	out_i64(&ob, "pass", pi);
	putwhy(q->why);
	if (q->gap >= 0)
		out_nsms(&ob, "gap_before", q->gap);
	else {
		out_null(&ob, "gap_before_ns");
		out_null(&ob, "gap_before_ms");
	}
	out_i64(&ob, "layer_first", (int64_t)q->l0);
	out_i64(&ob, "layer_last", (int64_t)q->l1 - 1);
	out_i64(&ob, "layers", (int64_t)(q->l1 - q->l0));
	out_i64(&ob, "fia", q->c[0]);
	out_i64(&ob, "fia_prefill", q->pf[FC_PREFILL]);
	out_i64(&ob, "fia_decode", q->pf[FC_DECODE]);
	out_i64(&ob, "fia_ambiguous", q->pf[FC_AMBIG]);
	out_i64(&ob, "start_ns", q->s);
	out_i64(&ob, "end_ns", q->en);
	putabs("start_abs_us", q->s);
	putabs("end_abs_us", q->en);
	out_nsms(&ob, "wall", q->en - q->s);
	out_nsms(&ob, "kernel_sum", q->ks);
	if (q->pf[FC_PREFILL])
		out_nsms(&ob, "fia_prefill_mean", q->ps[FC_PREFILL] / q->pf[FC_PREFILL]);
	else {
		out_null(&ob, "fia_prefill_mean_ns");
		out_null(&ob, "fia_prefill_mean_ms");
	}
	if (q->pf[FC_DECODE])
		out_nsms(&ob, "fia_decode_mean", q->ps[FC_DECODE] / q->pf[FC_DECODE]);
	else {
		out_null(&ob, "fia_decode_mean_ns");
		out_null(&ob, "fia_decode_mean_ms");
	}
	out_i64(&ob, "kernels", q->k);
	out_key(&ob, "layer_types");
	buf_addc(&ob, '{');
	for (int t = 0, m = 0; t < NTYPE; t++)
		if (q->ptc[t]) {
			if (m++)
				buf_addc(&ob, ',');
			out_esc(&ob, tname[t], strlen(tname[t]));
			buf_addc(&ob, ':');
			out_int(&ob, q->ptc[t]);
		}
	buf_addc(&ob, '}');
	out_i64(&ob, "dfc", q->c[1]);
	out_i64(&ob, "grouped_matmul", q->c[2]);
	out_i64(&ob, "gating", q->c[3]);
	out_i64(&ob, "alltoallv", q->c[4]);
	out_i64(&ob, "sampling_layers", training ? 0 : q->c[5]);
	out_cstr(&ob, "phase", q->dir ? "backward" : "forward");
	rec_put(&ob, stdout);
}

/*
 * No attention anchor: the longest stretch of forward compute kernels
 * (names in order) that is one block of 2 to PATMAX kernels, holding a
 * convolution or matmul, repeated at least period_min_repeats times.  The
 * kept kernels are then replayed with a layer at each repeat.
 */
static struct { size_t per, rep, at, n; } P;

static int
isstage(int fam)
{
	return fam >= 0 && (strcmp(famname[fam], "convolution") == 0 ||
	    strcmp(famname[fam], "matmul") == 0);
}

static void
period_replay(void)
{
	size_t n = 0, best = 0, ci = 0;
	int *a = xcalloc(G.npk + 1, sizeof *a);
	size_t *ix = xcalloc(G.npk + 1, sizeof *ix);
	struct eng *e = &G.e[E_PER];

	memset(&P, 0, sizeof P);
	for (size_t i = 0; i < G.npk; i++)
		if (G.pk[i].k.cls != C_COMM && G.pk[i].ph == PH_FWD) {
			ix[n] = i;
			a[n++] = G.pk[i].k.name;
		}
	for (size_t p = 2; p <= PATMAX && p * (size_t)minrep <= n; p++) {
		size_t run = 0;

		for (size_t i = p; i < n; i++) {
			size_t rep, st;
			int distinct = 0, stage = 0;

			if (a[i] != a[i - p]) {
				run = 0;
				continue;
			}
			run++;
			rep = (run + p) / p;
			if (rep < (size_t)minrep || rep * p <= best)
				continue;
			st = i + 1 - run - p;
			for (size_t j = st; j < st + p; j++) {
				distinct |= a[j] != a[st];
				stage |= isstage(G.pk[ix[j]].fam);
			}
			if (!distinct || !stage)
				continue;
			best = rep * p;
			P.per = p;
			P.rep = rep;
			P.at = st;
		}
	}
	P.n = n;
	if (best) {
		for (size_t i = 0; i < G.npk; i++) {
			const struct pk *q = &G.pk[i];
			struct rfield sf, *sp = NULL;
			char sb[24];
			int anchor = 0;

			if (q->k.cls != C_COMM && q->ph == PH_FWD) {
				anchor = ci >= P.at && ci < P.at + P.rep * P.per && (ci - P.at) % P.per == 0;
				ci++;
			}
			if (q->step >= 0) {
				sf.k = "step";
				sf.klen = 4;
				sf.vlen = (size_t)snprintf(sb, sizeof sb, "%d", q->step);
				sf.v = sb;
				sp = &sf;
			}
			eng_kernel(e, E_PER, &q->k, anchor, q->dur, sp, q->gap);
		}
	}
	free(a);
	free(ix);
}

static int commrole(const char *, size_t, int, int, int, int *, int *);
static void run_commit(const struct prun *);
static const char *cgwhy(int);

/* Without kernels: communication.json's ops by name and group, with roles. */
static void
put_comm_ops(void)
{
	out_key(&ob, "comm_ops");
	buf_addc(&ob, '[');
	for (int i = 0; i < ncr; i++) {
		const struct rawname *kn = kname(names[CR[i].raw].s, names[CR[i].raw].n);
		const char *pg = NULL;
		int group, src, role;

		role = commrole(names[CR[i].raw].s, names[CR[i].raw].n, kn->flags,
		    kn->role >= 0 ? kn->role : rother, PH_FWD, &group, &src);
		for (int k = 0; k < ncg; k++)
			if (CG[k].g == CR[i].group && CG[k].meta >= 0)
				pg = M.name[CG[k].meta];
		buf_adds(&ob, i ? ",{" : "{");
		buf_adds(&ob, "\"op\":");
		out_esc(&ob, names[CR[i].name].s, names[CR[i].name].n);
		buf_adds(&ob, ",\"group\":");
		out_esc(&ob, names[CR[i].group].s, names[CR[i].group].n);
		buf_adds(&ob, ",\"parallel_group\":");
		if (pg)
			out_esc(&ob, pg, strlen(pg));
		else
			buf_adds(&ob, "null");
		buf_adds(&ob, ",\"role\":");
		out_esc(&ob, rolename(role), strlen(rolename(role)));
		buf_adds(&ob, ",\"role_source\":");
		out_esc(&ob, rsname[src], strlen(rsname[src]));
		out_cstr(&ob, "role_evidence", src == RS_INF ? cgwhy(group) : NULL);
		buf_adds(&ob, ",\"ops\":");
		out_int(&ob, CR[i].n);
		buf_adds(&ob, ",\"elapse_ns\":");
		out_int(&ob, CR[i].elapse);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
unit_end(void)
{
	struct eng *e = NULL;
	int ei, methods, fia, anymoe, mismatch, nn = 0;
	size_t np, nlw;
	struct chain *ch;
	const char *notes[16];
	int64_t *nfia, *fsum, *tc, *cnt, samp;
	int64_t firstfia, lastfia, firstwall, lastwall;

	if (!G.unit)
		return;
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
	fia = ei == E_FIA;
	/* The passes: the repeated pattern only when nothing else cuts. */
	ch = &e->on;
	if (e->on.n == 1 && e->nl >= 4 && e->per >= 2 && e->nl % e->per == 0 &&
	    e->per <= e->nl / 2)
		ch = &e->pat;
	if (ch->n)
		chain_close(ch);
	np = ch->n;
	methods = ch->methods | (ch == &e->pat ? B_PAT : 0);
	firstfia = ch->n ? ch->firstfia : -1;
	lastfia = ch->n ? ch->lastfia : -1;
	firstwall = ch->n ? ch->firstwall : -1;
	lastwall = ch->n ? ch->lastwall : -1;
	nfia = e->nfia;
	fsum = e->fsum;
	tc = e->tc;
	cnt = e->cnt;
	samp = e->samp;
	anymoe = e->anymoe;
	mismatch = e->mis || (anymoe && e->decbad);
	for (int ti = 0; ti < e->nt; ti++)
		ranges_flush(&e->t[ti]);
	/* The layers written: the first NLREC of the passes written. */
	nlw = e->nl < NLREC ? e->nl : NLREC;
	if (np > NPREC && nlw > ch->rec[NPREC - 1].l1)
		nlw = ch->rec[NPREC - 1].l1;
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
	if (np > NPREC)
		notes[nn++] = "passes_capped";
	if (nlw < e->nl)
		notes[nn++] = "layers_capped";
	if (ei == E_PER && G.pkmore)
		notes[nn++] = "period_search_capped";

	/* Passes: the first NPREC and the last. */
	for (size_t pi = 0; pi < ch->nrec; pi++)
		putpass(&ch->rec[pi], (int64_t)pi);
	if (ch->havelast)
		putpass(&ch->last, (int64_t)np - 1);
	/* Cross-verification. */
	/* The k-th backward pass against the k-th forward pass (micro-batch k). */
	for (size_t pi = 0, nb = 0; pi < ch->nrec; pi++) {
		for (int j = 0; j < 4; j++)
			check(&ch->rec[pi].ck[j], (int64_t)pi, j, anymoe, fia, ch->rec[pi].dir);
		if (ch->rec[pi].dir) {
			size_t fi = 0, k = 0;
			const struct pass *f = NULL;

			for (fi = 0; fi < ch->nrec; fi++)
				if (!ch->rec[fi].dir && k++ == nb) {
					f = &ch->rec[fi];
					break;
				}
			check_bwd(&ch->rec[pi], (int64_t)pi, f, (int64_t)fi);
			nb++;
		}
	}
	if (ch->havelast)
		for (int j = 0; j < 4; j++)
			check(&ch->last.ck[j], (int64_t)np - 1, j, anymoe, fia, ch->last.dir);
	/* Layers. */
	for (size_t i = 0; i < nlw; i++) {
		const struct layer *L = &e->l[i];

		head("fia_layer");
		out_i64(&ob, "layer", (int64_t)i);
		out_i64(&ob, "pass", ch == &e->pat ? (int64_t)(i / e->per) : L->pass);
		out_i64(&ob, "layer_in_pass", ch == &e->pat ? (int64_t)(i % e->per) : L->inpass);
		out_cstr(&ob, "layer_type", tname[L->type]);
		out_cstr(&ob, "fia_class", fcname[L->fcls]);
		out_nsms(&ob, "anchor_dur", L->fiadur);
		out_i64(&ob, "start_ns", L->start);
		out_i64(&ob, "end_ns", L->end);
		out_nsms(&ob, "wall", L->end - L->start);
		out_nsms(&ob, "kernel_sum", L->ksum);
		out_i64(&ob, "kernels", L->kernels);
		out_i64(&ob, "dfc", L->dfc);
		out_i64(&ob, "grouped_matmul", L->gmm);
		out_i64(&ob, "gating", L->gate);
		out_i64(&ob, "alltoallv", L->a2a);
		out_i64(&ob, "ai_cpu", L->aicpu);
		out_bool(&ob, "sampling", !training && L->samp > 0);
		out_bool(&ob, "template_match", L->match);
		out_cstr(&ob, "direction", L->dir ? "backward" : "forward");
		out_bool(&ob, "loss", L->loss > 0 || (training && L->samp > 0));
		rec_put(&ob, stdout);
	}
	/* Layer types. */
	for (int ti = 0; ti < e->nt; ti++) {
		struct ltype *t = &e->t[ti];
		int64_t mean = t->wsum / t->count;
		double var = t->wsq / (double)t->count - (double)mean * (double)mean;
		int64_t sd = var > 0 ? (int64_t)llround(sqrt(var)) : 0;
		char s[256];

		/* Warm-up: the type's first layer against the mean of the others. */
		if (t->count > 1) {
			int64_t rest = (t->wsum - t->firstwall) / (t->count - 1);

			if (rest > 0 && (double)t->firstwall > warmup * (double)rest) {
				char a[40], b[40], r[40];

				dec_fmt(a, t->firstwall, 6);
				dec_fmt(b, rest, 6);
				dec_ratio(r, t->firstwall, rest);
				snprintf(s, sizeof s, "warm-up: layer %d (the first of the type) "
				    "takes %s ms, %sx the mean of the others (%s ms)", t->first, a, r, b);
				tb.len = 0;
				buf_adds(&tb, s);
				anomaly(t, &tb);
			}
		}
		for (int i = 0; i < t->ntpl; i++)
			if (t->tpl[i].cls == C_AICPU) {
				tb.len = 0;
				buf_adds(&tb, "AI_CPU kernel ");
				buf_adds(&tb, names[t->tpl[i].name].s);
				buf_adds(&tb, " on stream ");
				buf_adds(&tb, G.st[t->tpl[i].stream].label);
				buf_adds(&tb, " (");
				fmtms(&tb, t->tpl[i].dsum / t->matched);
				buf_adds(&tb, " per layer): an AI Core implementation would avoid the AI CPU round trip");
				anomaly(t, &tb);
			}
		head("fia_layer_type");
		out_cstr(&ob, "layer_type", tname[t->type]);
		out_i64(&ob, "layers", t->count);
		tb.len = 0;
		buf_add(&tb, t->rtext.p, t->rtext.len);
		if (t->nr > NRANGE) {
			snprintf(s, sizeof s, ", ... (%lld more)", (long long)(t->nr - NRANGE));
			buf_adds(&tb, s);
		}
		out_str(&ob, "layer_ranges", tb.p, tb.len);
		out_i64(&ob, "first_layer", t->first);
		out_i64(&ob, "kernels", t->kernels);
		out_i64(&ob, "sampling_layers", training ? 0 : t->samp);
		out_nsms(&ob, "wall_sum", t->wsum);
		out_nsms(&ob, "wall_mean", mean);
		out_nsms(&ob, "wall_min", t->wmin);
		out_nsms(&ob, "wall_max", t->wmax);
		out_nsms(&ob, "wall_stddev", sd);
		putratio("wall_cv", sd, mean);
		out_nsms(&ob, "kernel_sum", t->ksum);
		out_nsms(&ob, "anchor_mean", t->fiasum / t->count);
		out_i64(&ob, "template_kernels", t->ntpl);
		out_bool(&ob, "template_truncated", t->truncated);
		out_i64(&ob, "matched_layers", t->matched);
		out_i64(&ob, "deviating_layers", t->deviating);
		out_key(&ob, "roles");
		buf_addc(&ob, '[');
		for (int r = 0, m = 0; r < nroles; r++) {
			if (t->rn[r] == 0)
				continue;
			if (m++)
				buf_addc(&ob, ',');
			buf_addc(&ob, '{');
			buf_adds(&ob, "\"role\":");
			out_esc(&ob, rolename(r), strlen(rolename(r)));
			out_i64(&ob, "kernels", t->rn[r]);
			out_nsms(&ob, "kernel_sum", t->rsum[r]);
			out_nsms(&ob, "wall", t->rwall[r]);
			out_nsms(&ob, "wall_per_layer", t->rwall[r] / t->count);
			putratio("share", t->rwall[r], t->wsum);
			out_key(&ob, "streams");
			buf_addc(&ob, '[');
			for (int si = 0, q = 0; si < G.nst; si++)
				if (t->rstreams[r] & (1ULL << si)) {
					if (q++)
						buf_addc(&ob, ',');
					out_esc(&ob, G.st[si].label, strlen(G.st[si].label));
				}
			buf_addc(&ob, ']');
			buf_addc(&ob, '}');
		}
		buf_addc(&ob, ']');
		out_key(&ob, "template");
		buf_addc(&ob, '[');
		for (int i = 0; i < t->ntpl; i++) {
			const struct tk *k = &t->tpl[i];

			if (i)
				buf_addc(&ob, ',');
			buf_adds(&ob, "{\"name\":");
			out_esc(&ob, names[k->name].s, names[k->name].n);
			out_cstr(&ob, "role", rolename(k->role));
			out_cstr(&ob, "stream", G.st[k->stream].label);
			out_cstr(&ob, "class", clname[k->cls]);
			out_nsms(&ob, "dur_mean", k->dsum / t->matched);
			out_nsms(&ob, "offset_mean", k->osum / t->matched);
			buf_addc(&ob, '}');
		}
		buf_addc(&ob, ']');
		out_key(&ob, "anomalies");
		buf_addc(&ob, '[');
		for (int i = 0; i < t->nanom; i++) {
			if (i)
				buf_addc(&ob, ',');
			out_esc(&ob, t->anom[i], strlen(t->anom[i]));
		}
		buf_addc(&ob, ']');
		rec_put(&ob, stdout);
	}
	/* Streams. */
	int mainst = -1;

	for (int i = 0; i < G.nst; i++) {
		const struct stream *s = &G.st[i];

		if (s->ncl[C_COMPUTE] * 2 > s->n &&
		    (mainst < 0 || s->clsum[C_COMPUTE] > G.st[mainst].clsum[C_COMPUTE]))
			mainst = i;
	}
	for (int i = 0; i < G.nst; i++) {
		const struct stream *s = &G.st[i];
		int64_t ov = acc_get(&s->u) + acc_get(&s->c) - acc_get(&s->m);
		const char *role;

		if (s->ncl[C_COMM] * 2 > s->n)
			role = strstr(s->label, "alltoall") ? "all_to_all" : "hccl_comm";
		else if (s->ncl[C_AICPU] * 2 > s->n)
			role = "ai_cpu";
		else
			role = i == mainst ? "main_compute" : "side_compute";
		head("fia_stream");
		out_raw(&ob, "stream", s->raw, strlen(s->raw));
		out_cstr(&ob, "label", s->label);
		out_cstr(&ob, "role", role);
		out_i64(&ob, "kernels", s->n);
		out_i64(&ob, "compute_kernels", s->ncl[C_COMPUTE]);
		out_i64(&ob, "comm_kernels", s->ncl[C_COMM]);
		out_i64(&ob, "ai_cpu_kernels", s->ncl[C_AICPU]);
		out_nsms(&ob, "kernel_sum", s->sum);
		out_nsms(&ob, "busy", acc_get(&s->u));
		out_nsms(&ob, "overlap_compute", ov);
		putratio("hidden_ratio", ov, acc_get(&s->u));
		out_cstr(&ob, "first_kernel", s->first);
		rec_put(&ob, stdout);
	}
	/* Phases: the runs of one phase, the first NPREC and the last. */
	if (G.nruns > 0)
		run_commit(&G.lastrun);
	if (G.nruns > 0 && G.nruns <= NPREC)
		G.runs[G.nruns - 1] = G.lastrun;
	for (int64_t i = 0; i < G.nruns; i++) {
		const struct prun *u;

		if (i < NPREC)
			u = &G.runs[i];
		else if (i == G.nruns - 1)
			u = &G.lastrun;
		else
			continue;
		int64_t end = u->sync ? u->we : u->e, n = u->sync ? u->wn : u->n;
		int64_t sum = u->sync ? u->wsum : u->sum, csum = u->sync ? u->wcsum : u->csum;
		int64_t cn = u->sync ? u->wcn : u->cn;

		head("fia_phase");
		out_i64(&ob, "run", i);
		out_cstr(&ob, "phase", phname[u->ph]);
		out_i64(&ob, "start_ns", u->s);
		out_i64(&ob, "end_ns", end);
		out_nsms(&ob, "wall", end - u->s);
		out_nsms(&ob, "kernel_sum", sum);
		out_nsms(&ob, "compute_kernel_sum", sum - csum);
		out_nsms(&ob, "comm_kernel_sum", csum);
		out_i64(&ob, "comm_kernels", cn);
		out_i64(&ob, "kernels", n);
		out_cstr(&ob, "first_kernel", names[u->first].s);
		out_key(&ob, "gradient_sync");
		if (u->sync) {
			buf_adds(&ob, "{\"start_ns\":");
			out_int(&ob, u->ts);
			out_i64(&ob, "end_ns", u->e);
			out_nsms(&ob, "wall", u->e - u->ts);
			out_i64(&ob, "kernels", u->n - u->wn);
			out_i64(&ob, "comm_kernels", u->cn - u->wcn);
			out_nsms(&ob, "comm_kernel_sum", u->csum - u->wcsum);
			out_nsms(&ob, "kernel_sum", u->sum - u->wsum);
			/* the backward's collectives running on into the sync */
			out_i64(&ob, "backward_comm_end_ns", u->wme > u->we ? u->wme : u->we);
			if (u->xc >= 0) {
				out_i64(&ob, "wait_start_ns", u->xs);
				out_i64(&ob, "wait_end_ns", u->xe);
				out_nsms(&ob, "wait", u->xe - u->xs);
				out_cstr(&ob, "wait_on", u->xcraw[0] ? u->xcraw : names[u->xc].s);
			} else {
				out_null(&ob, "wait_start_ns");
				out_null(&ob, "wait_end_ns");
				out_null(&ob, "wait_ns");
				out_null(&ob, "wait_ms");
				out_null(&ob, "wait_on");
			}
			buf_addc(&ob, '}');
		} else
			buf_adds(&ob, "null");
		rec_put(&ob, stdout);
	}
	/* Communication: by op, group and role, with where the role came from. */
	for (int i = 0; i < G.ncb; i++) {
		const struct cb *c = &G.cb[i];

		head("fia_comm");
		out_cstr(&ob, "op", names[c->name].s);
		if (c->group >= 0)
			out_cstr(&ob, "group", names[c->group].s);
		else
			out_null(&ob, "group");
		out_cstr(&ob, "role", rolename(c->role));
		out_cstr(&ob, "role_source", rsname[c->src]);
		out_cstr(&ob, "role_evidence", c->src == RS_INF ? cgwhy(c->group) : NULL);
		out_i64(&ob, "kernels", c->n);
		out_nsms(&ob, "kernel_sum", c->sum);
		out_i64(&ob, "forward_kernels", c->nph[PH_FWD]);
		out_i64(&ob, "backward_kernels", c->nph[PH_BWD]);
		out_i64(&ob, "gradient_sync_kernels", c->nsync);
		out_i64(&ob, "optimizer_kernels", c->nph[PH_OPT]);
		{	/* the named group its comm group matched */
			const char *pg = NULL;

			for (int k = 0; c->group >= 0 && k < ncg; k++)
				if (CG[k].g == c->group && CG[k].meta >= 0)
					pg = M.name[CG[k].meta];
			out_cstr(&ob, "parallel_group", pg);
		}
		rec_put(&ob, stdout);
	}
	/* Summary. */
	int64_t cb = acc_get(&G.comm), pb = acc_get(&G.comp), ab = acc_get(&G.all);
	int64_t ov = cb + pb - ab;
	int uniform = np > 0 && ch->uniform;

	head("fia_summary");
	/* Training: forward and backward passes, micro-batches per step. */
	int64_t nfp = 0, nbp = 0, nsteps = 1, fl1 = -1, bl1 = -1;
	int funi = 1, buni = 1, known = ch->on == 0, agree;

	for (size_t pi = 0; pi < ch->nrec + (size_t)ch->havelast; pi++) {
		const struct pass *q = pi < ch->nrec ? &ch->rec[pi] : &ch->last;
		int64_t nl = (int64_t)(q->l1 - q->l0);

		nsteps += (q->why & B_STEP) != 0;
		if (q->dir) {
			nbp++;
			buni &= bl1 < 0 || bl1 == nl;
			bl1 = nl;
		} else {
			nfp++;
			funi &= fl1 < 0 || fl1 == nl;
			fl1 = nl;
		}
	}
	agree = training && known && nfp > 0 && nfp == nbp && funi && buni && fl1 == bl1;
	out_cstr(&ob, "method", G.nk && e->nl ? ename[ei] : "none");
	out_cstr(&ob, "confidence", !G.nk || !e->nl ? "none" : fia ? (mismatch ? "medium" : "high") :
	    ei == E_ATT && agree ? "medium" : "low");
	out_i64(&ob, "kernels", G.nk);
	out_i64(&ob, "streams", G.nst);
	if (G.havek) {
		out_i64(&ob, "start_ns", G.first);
		out_i64(&ob, "end_ns", G.last);
		putabs("start_abs_us", G.first);
		putabs("end_abs_us", G.last);
	} else {
		out_null(&ob, "start_ns");
		out_null(&ob, "end_ns");
		out_null(&ob, "start_abs_us");
		out_null(&ob, "end_abs_us");
	}
	out_nsms(&ob, "span", G.havek ? G.last - G.first : 0);
	out_nsms(&ob, "kernel_sum", G.ksum);
	out_nsms(&ob, "busy", ab);
	putratio("parallelism", G.ksum, ab);
	out_nsms(&ob, "comm_busy", cb);
	out_nsms(&ob, "compute_busy", pb);
	out_nsms(&ob, "comm_overlap", ov);
	putratio("comm_hidden_ratio", ov, cb);
	out_i64(&ob, "anchors", e->nanch);
	out_i64(&ob, "fia", cnt[0]);
	out_i64(&ob, "fia_prefill", nfia[FC_PREFILL]);
	out_i64(&ob, "fia_decode", nfia[FC_DECODE]);
	out_i64(&ob, "fia_ambiguous", nfia[FC_AMBIG]);
	if (nfia[FC_PREFILL])
		out_nsms(&ob, "fia_prefill_mean", fsum[FC_PREFILL] / nfia[FC_PREFILL]);
	else {
		out_null(&ob, "fia_prefill_mean_ns");
		out_null(&ob, "fia_prefill_mean_ms");
	}
	if (nfia[FC_DECODE])
		out_nsms(&ob, "fia_decode_mean", fsum[FC_DECODE] / nfia[FC_DECODE]);
	else {
		out_null(&ob, "fia_decode_mean_ns");
		out_null(&ob, "fia_decode_mean_ms");
	}
	if (nfia[FC_AMBIG])
		out_nsms(&ob, "fia_ambiguous_mean", fsum[FC_AMBIG] / nfia[FC_AMBIG]);
	else {
		out_null(&ob, "fia_ambiguous_mean_ns");
		out_null(&ob, "fia_ambiguous_mean_ms");
	}
	out_i64(&ob, "prologue_kernels", e->pro_n);
	out_i64(&ob, "layers", (int64_t)e->nl);
	out_i64(&ob, "passes", (int64_t)np);
	if (uniform)
		out_i64(&ob, "layers_per_pass", (int64_t)(ch->rec[0].l1 - ch->rec[0].l0));
	else
		out_null(&ob, "layers_per_pass");
	putwhy(methods);
	out_key(&ob, "layer_types");
	buf_addc(&ob, '{');
	for (int ti = 0, m = 0; ti < e->nt; ti++) {
		if (m++)
			buf_addc(&ob, ',');
		out_esc(&ob, tname[e->t[ti].type], strlen(tname[e->t[ti].type]));
		buf_addc(&ob, ':');
		out_int(&ob, tc[e->t[ti].type]);
	}
	buf_addc(&ob, '}');
	out_i64(&ob, "sampling_layers", samp);
	out_i64(&ob, "dfc", cnt[1]);
	out_i64(&ob, "grouped_matmul", cnt[2]);
	out_i64(&ob, "gating", cnt[3]);
	out_i64(&ob, "alltoallv", cnt[4]);
	out_i64(&ob, "sampling", cnt[5]);
	putratio("fia_drift_ratio", lastfia, np > 1 ? firstfia : 0);
	putratio("wall_drift_ratio", lastwall, np > 1 ? firstwall : 0);
	if (G.nk == 0 && G.opn) {
		static const char *ok[] = { "fia", "dfc", "grouped_matmul", "gating",
		    "alltoallv", "sampling" };

		out_key(&ob, "op_stat_counts");
		buf_addc(&ob, '{');
		for (int i = 0; i < 6; i++) {
			if (i)
				buf_addc(&ob, ',');
			out_esc(&ob, ok[i], strlen(ok[i]));
			buf_addc(&ob, ':');
			out_int(&ob, G.opcnt[i]);
		}
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "op_stat_counts");
	out_dec(&ob, "prefill_min_ms", prefill_min, 6);
	out_dec(&ob, "decode_max_ms", decode_max, 6);
	out_dec(&ob, "pass_gap_ms", pass_gap, 6);
	putnotes(notes, nn);
	if (np > NPREC) {
		/* The passes between the first NPREC and the last. */
		static const char *kc[NKC] = { "ok", "ok_multiple", "explained", "mismatch" };
		int64_t st[NKC + 1] = { 0 };

		out_i64(&ob, "pass_records", (int64_t)ch->nrec + 1);
		out_i64(&ob, "omitted_passes", ch->on);
		out_i64(&ob, "omitted_layers", ch->olayers);
		out_i64(&ob, "omitted_kernels", ch->okern);
		out_nsms(&ob, "omitted_wall_min", ch->owmin);
		out_nsms(&ob, "omitted_wall_mean", ch->on ? ch->owsum / ch->on : 0);
		out_nsms(&ob, "omitted_wall_max", ch->owmax);
		for (int j = 0; j < 4; j++)
			for (int c = 0; c < NKC; c++) {
				int k = c;

				if (ckind[j].flag == F_FIA && !fia)
					k = NKC;	/* not_applicable */
				else if (c == K_LACKDEC && (anymoe || ckind[j].flag == F_FIA))
					k = K_MIS;
				st[k] += ch->ock[j][c];
			}
		out_key(&ob, "omitted_checks");
		buf_addc(&ob, '{');
		for (int c = 0; c <= NKC; c++) {
			const char *k = c < NKC ? kc[c] : "not_applicable";

			if (c)
				buf_addc(&ob, ',');
			out_esc(&ob, k, strlen(k));
			buf_addc(&ob, ':');
			out_int(&ob, st[c]);
		}
		buf_addc(&ob, '}');
	}
	if (nlw < e->nl)
		out_i64(&ob, "layer_records", (int64_t)nlw);
	/* Training, phases, loss, period, families, parallel groups. */
	/* No kernels: nothing tells training from inference. */
	out_cstr(&ob, "phase", G.nk == 0 ? "unknown" : training ? "training" : "inference");
	out_i64(&ob, "backward_kernels", G.nbwd);
	out_i64(&ob, "optimizer_kernels", G.nopt);
	out_i64(&ob, "forward_layers", (int64_t)e->nl - tc[T_BWD]);
	out_i64(&ob, "backward_layers", tc[T_BWD]);
	out_i64(&ob, "forward_passes", known ? nfp : -1);
	out_i64(&ob, "backward_passes", known ? nbp : -1);
	out_i64(&ob, "steps", nsteps);
	if (training && known && nfp > 0 && nfp == nbp && nfp % nsteps == 0)
		out_i64(&ob, "micro_batches", nfp / nsteps);
	else
		out_null(&ob, "micro_batches");
	if (known && nfp > 0 && funi)
		out_i64(&ob, "layers_per_micro_batch", fl1);
	else
		out_null(&ob, "layers_per_micro_batch");
	if (known && nbp > 0 && buni)
		out_i64(&ob, "backward_layers_per_micro_batch", bl1);
	else
		out_null(&ob, "backward_layers_per_micro_batch");
	if (training)
		out_bool(&ob, "layers_agree", agree);
	else
		out_null(&ob, "layers_agree");
	out_bool(&ob, "layers_determinable", e->nl > 0);
	if (G.nk == 0 && ncr > 0)
		put_comm_ops();
	out_i64(&ob, "prefill_attention_kernels", G.npfa);
	out_i64(&ob, "decode_attention_kernels", G.nifa);
	/* The work between passes, left out of the layer and pass walls. */
	out_key(&ob, "between_passes");
	buf_addc(&ob, '{');
	for (int j = 0, any = 0; j < NBP; j++) {
		if (e->bn[j] == 0)
			continue;
		if (any++)
			buf_addc(&ob, ',');
		out_esc(&ob, bpname[j], strlen(bpname[j]));
		buf_adds(&ob, ":{\"kernels\":");
		out_int(&ob, e->bn[j]);
		buf_adds(&ob, ",\"kernel_sum_ns\":");
		out_int(&ob, e->bsum[j]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, '}');
	if (G.opt_first >= 0) {
		out_key(&ob, "optimizer");
		buf_addc(&ob, '{');
		buf_adds(&ob, "\"first_kernel\":");
		out_esc(&ob, names[G.opt_first].s, names[G.opt_first].n);
		out_i64(&ob, "start_ns", G.opt_s);
		out_i64(&ob, "end_ns", G.opt_e);
		out_nsms(&ob, "wall", G.opt_e - G.opt_s);
		out_i64(&ob, "kernels", G.nph[PH_OPT]);
		out_nsms(&ob, "kernel_sum", G.phsum[PH_OPT]);
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "optimizer");
	out_i64(&ob, "phase_runs", G.nruns);
	out_i64(&ob, "loss_kernels", G.nloss + (training ? G.nargm : 0));
	out_key(&ob, "loss_ops");
	buf_addc(&ob, '[');
	for (int i = 0, m = 0; i < G.nlossn; i++) {
		int v = G.lossn[i];

		if (v < 0 && !training)
			continue;
		if (m++)
			buf_addc(&ob, ',');
		v = v < 0 ? -v - 1 : v - 1;
		out_esc(&ob, names[v].s, names[v].n);
	}
	buf_addc(&ob, ']');
	if (ei == E_PER && P.per) {
		out_key(&ob, "period");
		buf_addc(&ob, '{');
		buf_adds(&ob, "\"kernels\":");
		out_int(&ob, (int64_t)P.per);
		out_i64(&ob, "repeats", (int64_t)P.rep);
		out_i64(&ob, "first", (int64_t)P.at);
		out_i64(&ob, "searched", (int64_t)P.n);
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "period");
	out_i64(&ob, "period_unsearched_kernels", G.pkmore);
	out_key(&ob, "families");
	buf_addc(&ob, '[');
	for (int f = 0, m = 0; f <= nfam; f++) {
		int64_t n = G.famn[f][0] + G.famn[f][1] + G.famn[f][2];

		if (n == 0)
			continue;
		if (m++)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"family\":");
		out_esc(&ob, f < nfam ? famname[f] : "other", strlen(f < nfam ? famname[f] : "other"));
		out_i64(&ob, "forward_kernels", G.famn[f][PH_FWD]);
		out_i64(&ob, "backward_kernels", G.famn[f][PH_BWD]);
		out_i64(&ob, "optimizer_kernels", G.famn[f][PH_OPT]);
		out_nsms(&ob, "kernel_sum", G.famsum[f][0] + G.famsum[f][1] + G.famsum[f][2]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	tb.len = 0;
	for (int i = 0; i < G.nstage; i++) {
		char st[96];

		snprintf(st, sizeof st, "%s%s x%lld", i ? ", " : "", famname[G.stage[i]],
		    (long long)G.stagen[i]);
		buf_adds(&tb, st);
	}
	out_str(&ob, "forward_stages", tb.p ? tb.p : "", tb.len);
	out_i64(&ob, "embedding_forward_kernels", G.nemb[0]);
	out_i64(&ob, "embedding_backward_kernels", G.nemb[1]);
	out_nsms(&ob, "embedding_kernel_sum", G.embsum);
	out_bool(&ob, "parallel_metadata", M.have);
	if (M.ppstages > 0) {
		out_i64(&ob, "pipeline_stage", M.ppstage);
		out_i64(&ob, "pipeline_stages", M.ppstages);
	} else {
		out_null(&ob, "pipeline_stage");
		out_null(&ob, "pipeline_stages");
	}
	out_key(&ob, "parallel_groups");
	buf_addc(&ob, '[');
	for (int i = 0; i < M.n; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		out_esc(&ob, M.name[i], strlen(M.name[i]));
		out_i64(&ob, "ranks", M.size[i]);
		if (M.role[i] >= 0)
			out_cstr(&ob, "role", roles[M.role[i]]);
		else
			out_null(&ob, "role");
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
	G.unit = 0;
	G.units++;
}

static void
profile_end(void)
{
	if (!G.sect.active)
		return;
	sr_sect_end(&G.sect, SR_CHECK_KERNEL, stdout);
	if (G.units == 0 && !G.unit)
		unit_begin("null", 4);
	unit_end();
	G.sect.active = 0;
}

/* Records ------------------------------------------------------------ */

static int
classof(const struct rfield *f, int flags)
{
	static struct buf last;		/* the last task type, raw, and its class */
	static int lastcls = -1;

	if (flags & F_COMMN)
		return C_COMM;
	if (f == NULL)
		return C_COMPUTE;
	if (lastcls >= 0 && last.len == f->vlen && memcmp(last.p, f->v, f->vlen) == 0)
		return lastcls;
	last.len = 0;
	buf_add(&last, f->v, f->vlen);
	if (rf_str(f, &tmp) != 0)
		lastcls = C_COMPUTE;
	else if (rules_match("ops.comm_task_types", tmp.p))
		lastcls = C_COMM;
	else if (rules_match("ops.aicpu_task_types", tmp.p))
		lastcls = C_AICPU;
	else
		lastcls = C_COMPUTE;
	return lastcls;
}

/* Training ------------------------------------------------------------ */

static int
syncrole(int role)
{
	return role >= 0 && (role == r_dp || role == r_embd);
}

/*
 * Before x joins the backward run u: a dp or embedding collective starts
 * the run's gradient sync at the end of the backward's last compute kernel
 * (before a wait for the collectives, if one came since the last gradient
 * kernel); a later gradient kernel undoes it (the collective overlapped
 * the backward and stays in its wall).
 */
static void
run_sync(struct prun *u, const struct lk *x)
{
	if (u->ph != PH_BWD)
		return;
	if (u->sync && (x->flags & F_BWD))
		u->sync = 0;
	else if (!u->sync && x->cls == C_COMM && syncrole(x->role)) {
		u->sync = 1;
		for (int i = 0; i < G.ncb; i++)
			G.cb[i].mark = u->pw ? G.cb[i].wmark : G.cb[i].nph[PH_BWD] - (i == G.lastcb);
		if (u->pw) {
			u->we = u->xs;
			u->wn = u->pn;
			u->wsum = u->psum;
			u->wcn = u->pcn;
			u->wcsum = u->pcsum;
			u->wme = u->pme;
		} else {
			u->xc = -1;
			u->we = u->ce ? u->ce : u->e;
			u->wn = u->n;
			u->wsum = u->sum;
			u->wcn = u->cn;
			u->wcsum = u->csum;
			u->wme = u->me;
		}
		u->ts = u->we;
	}
	if (u->sync)
		return;
	if (x->flags & F_BWD)
		u->pw = 0;
	else if (!u->pw && x->cls != C_COMM && u->ce && u->me > u->ce && x->s >= u->me &&
	    syncrole(u->mer)) {
		/* x waited for the collectives: the backward's compute ended at ce */
		u->pw = 1;
		u->pn = u->n;
		u->psum = u->sum;
		u->pcn = u->cn;
		u->pcsum = u->csum;
		u->pme = u->me;
		u->xs = u->ce;
		u->xe = x->s;
		u->xc = u->mec;
		memcpy(u->xcraw, u->mecraw, sizeof u->xcraw);
		for (int i = 0; i < G.ncb; i++)
			G.cb[i].wmark = G.cb[i].nph[PH_BWD];
	}
}

/* A closed run: the collectives of its gradient sync leave the backward. */
static void
run_commit(const struct prun *u)
{
	if (u->ph != PH_BWD || !u->sync)
		return;
	for (int i = 0; i < G.ncb; i++) {
		int64_t d = G.cb[i].nph[PH_BWD] - G.cb[i].mark;

		G.cb[i].nsync += d;
		G.cb[i].nph[PH_BWD] -= d;
	}
}

/* The kernel x, of phase ph: phase runs, families, stages, loss ops. */
static void
phase_kernel(int ph, const struct lk *x, int fam, int64_t dur)
{
	if (G.nruns == 0 || G.lastrun.ph != ph) {
		if (G.nruns > 0)
			run_commit(&G.lastrun);
		if (G.nruns > 0 && G.nruns <= NPREC)
			G.runs[G.nruns - 1] = G.lastrun;
		G.nruns++;
		memset(&G.lastrun, 0, sizeof G.lastrun);
		G.lastrun.ph = ph;
		G.lastrun.xc = -1;
		G.lastrun.first = x->name;
		G.lastrun.s = x->s;
	}
	G.ph = ph;
	run_sync(&G.lastrun, x);
	G.lastrun.n++;
	G.lastrun.sum += dur;
	if (x->cls == C_COMM) {
		G.lastrun.cn++;
		G.lastrun.csum += dur;
	}
	if (x->e > G.lastrun.e)
		G.lastrun.e = x->e;
	if (x->cls != C_COMM && x->e > G.lastrun.ce)
		G.lastrun.ce = x->e;
	else if (x->cls == C_COMM && x->e > G.lastrun.me) {
		G.lastrun.me = x->e;
		G.lastrun.mec = x->name;
		G.lastrun.mer = x->role;
		snprintf(G.lastrun.mecraw, sizeof G.lastrun.mecraw, "%.*s",
		    nmb.len < sizeof G.lastrun.mecraw ? (int)nmb.len : 0, nmb.p);
	}
	G.nph[ph]++;
	G.phsum[ph] += dur;
	if (ph == PH_OPT) {
		if (G.opt_first < 0) {
			G.opt_first = x->name;
			G.opt_s = x->s;
		}
		if (x->e > G.opt_e)
			G.opt_e = x->e;
	}
	if (fam < 0 || x->cls == C_COMM)
		fam = nfam;	/* other (communication is counted apart) */
	if (x->cls != C_COMM) {
		G.famn[fam][ph]++;
		G.famsum[fam][ph] += dur;
	}
	/* Stages: convolution / matmul runs of the first forward phase. */
	if (ph == PH_FWD && G.nruns == 1 && fam < nfam &&
	    (strcmp(famname[fam], "convolution") == 0 || strcmp(famname[fam], "matmul") == 0)) {
		if (G.nstage > 0 && G.stage[G.nstage - 1] == fam)
			G.stagen[G.nstage - 1]++;
		else if (G.nstage < NSTAGE) {
			G.stage[G.nstage] = fam;
			G.stagen[G.nstage++] = 1;
		}
	}
}

static void
lossname(int name, int argmax)
{
	int v = argmax ? -(name + 1) : name + 1;

	for (int i = 0; i < G.nlossn; i++)
		if (G.lossn[i] == v)
			return;
	if (G.nlossn < 4)
		G.lossn[G.nlossn++] = v;
}


static struct cg *
cgget(int g)
{
	for (int i = 0; i < ncg; i++)
		if (CG[i].g == g)
			return &CG[i];
	if (ncg == MAXCG)
		return NULL;
	memset(&CG[ncg], 0, sizeof CG[ncg]);
	CG[ncg].g = g;
	CG[ncg].meta = -1;
	return &CG[ncg++];
}

/* The first named group of n ranks, not yet taken, whose name starts
 * with pre ("" any); its M index or -1. */
static int
cgpick(const int *taken, int n, const char *pre)
{
	for (int i = 0; i < M.n; i++)
		if (!taken[i] && M.size[i] == n && strncmp(M.name[i], pre, strlen(pre)) == 0)
			return i;
	return -1;
}

static void
cgtake(struct cg *c, int *taken, int i, const char *why)
{
	if (i < 0 || c->meta >= 0)
		return;
	taken[i] = 1;
	c->meta = i;
	c->why = why;
}

/* What inferred the named group of the comm group g; NULL: none. */
static const char *
cgwhy(int g)
{
	for (int k = 0; g >= 0 && k < ncg; k++)
		if (CG[k].g == g && CG[k].meta >= 0)
			return CG[k].why;
	return NULL;
}

/*
 * Each comm group's named group, strongest evidence first (asc-comm(1)):
 * send/recv is pp; reduce-scatter / all-gather dp*; 1 rank tp (or any
 * 1-rank name); a size only one name has; an all-reduce of at least 1 MB
 * on a link embd (else dp*), a smaller one mp.
 */
static void
cgmatch(void)
{
	int taken[MAXGROUP] = {0};

	cgdone = 1;
	for (int i = 0; i < ncg; i++)
		if (CG[i].p2p && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "pp"),
			    "send/recv on a group of the size of parallel_group_info's pp");
	for (int i = 0; i < ncg; i++)
		if (CG[i].rsag && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "dp"),
			    "reduce-scatter / all-gather on a group of the size of parallel_group_info's dp");
	for (int i = 0; i < ncg; i++)
		if (CG[i].nrk == 1) {
			int k = cgpick(taken, 1, "tp");

			cgtake(&CG[i], taken, k >= 0 ? k : cgpick(taken, 1, ""),
			    "1 rank: does nothing across ranks");
		}
	for (int i = 0; i < ncg; i++) {
		int k = CG[i].nrk ? cgpick(taken, CG[i].nrk, "") : -1, two = 0;

		for (int j = 0; k >= 0 && j < M.n; j++)
			two |= j != k && !taken[j] && M.size[j] == CG[i].nrk;
		if (k >= 0 && !two)
			cgtake(&CG[i], taken, k,
			    "the only name of parallel_group_info with this many ranks");
	}
	for (int i = 0; i < ncg; i++)
		if (CG[i].ar && CG[i].nrk && CG[i].maxmb >= 1) {
			int k = cgpick(taken, CG[i].nrk, "embd");

			cgtake(&CG[i], taken, k >= 0 ? k : cgpick(taken, CG[i].nrk, "dp"),
			    "all-reduce of at least 1 MB per link (gradients) on a group of that size");
		} else if (CG[i].ar && CG[i].nrk)
			cgtake(&CG[i], taken, cgpick(taken, CG[i].nrk, "mp"),
			    "all-reduce of under 1 MB per link (scalars) on a group of that size");
}

/* A comm_link record: a rank of its group and the size it moved. */
static void
linkrec(struct rin *r)
{
	struct cg *c;
	const char *key[2] = { "src_rank", "dst_rank" };
	int64_t v[2];
	double mb = 0;
	const struct rfield *f;

	if (rin_scan(r) != 0 || rin_str(r, "group", &tmp) != 0 ||
	    (c = cgget(intern(tmp.p, tmp.len))) == NULL)
		return;
	for (int j = 0; j < 2; j++) {
		v[j] = -1;
		if (rin_str(r, key[j], &tmp) == 0 && tmp.len > 0 && tmp.len < 20)
			v[j] = strtoll(tmp.p, NULL, 10);
		else if (rin_i64(r, key[j], &v[j]) != 0)
			v[j] = -1;
		if (v[j] >= 0) {
			int k;

			for (k = 0; k < c->nrk && c->rk[k] != v[j]; k++)
				;
			if (k == c->nrk && c->nrk < MAXCGR)
				c->rk[c->nrk++] = v[j];
		}
	}
	if ((f = rin_get(r, "size_mb")) != NULL && !rf_isnull(f))
		mb = strtod(f->v, NULL);
	if (v[0] != v[1] && mb > c->maxmb)
		c->maxmb = mb;
}

/*
 * The role of a communication kernel: its group in the parallel-group
 * metadata; else the only parallel dimension with more than one rank;
 * else, for a collective after backward kernels, data parallel (gradient
 * buckets); else the name rules.
 */
static int
commrole(const char *raw, size_t n, int fl, int namerole, int ph, int *group, int *src)
{
	int oi = lookup(raw, n);

	*group = oi >= 0 && (size_t)oi < capopg ? opg[oi] - 1 : -1;
	for (int i = 0; *group >= 0 && i < M.n; i++)
		if (M.role[i] >= 0 && strcmp(M.key[i], names[*group].s) == 0) {
			*src = RS_GROUP;
			return M.role[i];
		}
	/* The named group its comm group matched: that name's role, or
	 * "other" for a name without one (default_group, mp): the
	 * parallel_group field names it. */
	if (!cgdone && M.have)
		cgmatch();
	for (int i = 0; *group >= 0 && i < ncg; i++)
		if (CG[i].g == *group && CG[i].meta >= 0) {
			*src = RS_INF;
			return M.role[CG[i].meta] >= 0 ? M.role[CG[i].meta] : rother;
		}
	if ((fl & F_P2P) && r_pp >= 0) {
		*src = M.ppsize > 1 ? RS_DIMS : RS_NAME;
		return r_pp;
	}
	/* An all-to-all is expert parallel by its nature. */
	if ((fl & F_A2A) && r_ep >= 0) {
		*src = M.epsize > 1 ? RS_DIMS : RS_NAME;
		return r_ep;
	}
	if (M.have && M.dims >= 0) {
		*src = RS_DIMS;
		return M.dims;
	}
	if (G.nbwd >= minbwd && ph != PH_FWD && r_dp >= 0) {
		*src = RS_POS;
		return r_dp;
	}
	*src = RS_NAME;
	return namerole;
}

static void
comm_tally(const struct lk *x, int group, int src, int ph, int64_t dur)
{
	struct cb *c = NULL;

	for (int i = 0; i < G.ncb && c == NULL; i++)
		if (G.cb[i].name == x->name && G.cb[i].group == group &&
		    G.cb[i].role == x->role && G.cb[i].src == src)
			c = &G.cb[i];
	if (c == NULL && G.ncb < MAXCB) {
		c = &G.cb[G.ncb++];
		memset(c, 0, sizeof *c);
		c->name = x->name;
		c->group = group;
		c->role = x->role;
		c->src = src;
	} else if (c == NULL)
		c = &G.cb[MAXCB - 1];	/* full: the last one takes the rest */
	G.lastcb = (int)(c - G.cb);
	c->n++;
	c->sum += dur;
	c->nph[ph]++;
}

/* profiler_metadata.json beside the profile: its parallel groups. */
static void
readmeta(const char *dir, size_t n)
{
	struct buf pb = {0};
	jv doc, pg;

	for (int i = 0; i < M.n; i++) {
		free(M.key[i]);
		free(M.name[i]);
	}
	memset(&M, 0, sizeof M);
	M.dims = -1;
	M.ppstage = M.ppstages = -1;
	if (dir == NULL)
		return;
	buf_add(&pb, dir, n);
	buf_adds(&pb, "/profiler_metadata.json");
	doc = jv_load_file(pb.p, 0);	/* an array of the file's JSON texts */
	buf_free(&pb);
	if (jv_get_kind(doc) != JV_KIND_ARRAY || jv_array_length(jv_copy(doc)) != 1) {
		jv_free(doc);
		return;
	}
	doc = jv_array_get(doc, 0);
	pg = jv_get_kind(doc) == JV_KIND_OBJECT ?
	    jv_object_get(doc, jv_string("parallel_group_info")) : (jv_free(doc), jv_invalid());
	if (jv_get_kind(pg) != JV_KIND_OBJECT) {
		jv_free(pg);
		return;
	}
	M.have = 1;
	jv_object_foreach(pg, k, v) {
		jv gn = jv_get_kind(v) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(v), jv_string("group_name")) : jv_invalid();
		jv gr = jv_get_kind(v) == JV_KIND_OBJECT ?
		    jv_object_get(jv_copy(v), jv_string("global_ranks")) : jv_invalid();

		if (M.n < MAXGROUP && jv_get_kind(gn) == JV_KIND_STRING) {
			int i = M.n++;

			M.key[i] = xstrdup(jv_string_value(k));
			M.name[i] = xstrdup(jv_string_value(gn));
			M.size[i] = jv_get_kind(gr) == JV_KIND_ARRAY ? jv_array_length(jv_copy(gr)) : 0;
			M.role[i] = -1;
			for (int g = 0; g < ngr && M.role[i] < 0; g++)
				for (const char *const *gl = grglob[g]; *gl; gl++)
					if (fnmatch(*gl, M.name[i], 0) == 0) {
						M.role[i] = roleidx(grname[g]);
						break;
					}
			/* The pipeline stage: this rank's place in its pp group. */
			if (M.role[i] == r_pp && M.role[i] >= 0 && M.ppstages < 0) {
				jv rk = jv_object_get(jv_copy(v), jv_string("group_rank"));

				if (jv_get_kind(rk) == JV_KIND_NUMBER && M.size[i] > 0 &&
				    jv_number_value(rk) >= 0 && jv_number_value(rk) < M.size[i]) {
					M.ppstage = (int)jv_number_value(rk);
					M.ppstages = M.size[i];
				}
				jv_free(rk);
			}
		}
		jv_free(gn);
		jv_free(gr);
		jv_free(k);
		jv_free(v);
	}
	jv_free(pg);
	/* The collective dimensions with more than one rank. */
	for (int i = 0, many = 0; i < M.n; i++) {
		if (M.role[i] < 0 || M.size[i] < 2 || M.role[i] == r_embd)
			continue;
		if (M.role[i] == r_pp) {
			if (M.size[i] > M.ppsize)
				M.ppsize = M.size[i];
			continue;
		}
		if (M.role[i] == r_ep && M.size[i] > M.epsize)
			M.epsize = M.size[i];
		if (M.dims < 0 && !many)
			M.dims = M.role[i];
		else if (M.dims != M.role[i]) {
			M.dims = -1;
			many = 1;
		}
	}
}

/* Tally a comm record's op by name and group (MAXCR at most). */
static void
cr_add(struct rin *r, int op, int g)
{
	const struct rfield *f = rin_get(r, "elapse_ms");
	int nm = kname(names[op].s, names[op].n)->norm, i;
	int64_t ns = 0;

	for (i = 0; i < ncr && (CR[i].name != nm || CR[i].group != g); i++)
		;
	if (i == ncr) {
		if (ncr == MAXCR)
			return;
		CR[ncr++] = (struct cr){ nm, op, g, 0, 0 };
	}
	CR[i].n++;
	if (f != NULL && !rf_isnull(f) && dec_parse(f->v, f->vlen, 6, &ns) == 0)
		CR[i].elapse += ns;
}

/* A comm record (communication.json): op -> group. */
static void
commrec(struct rin *r)
{
	struct buf ob2 = {0};
	struct cg *c;
	int op;

	if (nopg >= OPGCAP || rin_scan(r) != 0 || rin_str(r, "op", &tmp) != 0)
		return;
	op = intern(tmp.p, tmp.len);
	if (rin_str(r, "group", &ob2) == 0) {
		int g = intern(ob2.p, ob2.len);

		if ((size_t)op >= capopg) {
			size_t nc = (size_t)op + 1 > 2 * capopg ? (size_t)op + 1 : 2 * capopg;

			opg = xreallocarray(opg, nc, sizeof *opg);
			memset(opg + capopg, 0, (nc - capopg) * sizeof *opg);
			capopg = nc;
		}
		if (opg[op] == 0)
			nopg++;
		opg[op] = g + 1;
		cr_add(r, op, g);
		if ((c = cgget(g)) != NULL) {
			const char *on = names[op].s;

			if ((rin_str(r, "kind", &ob2) == 0 && strcmp(ob2.p, "p2p") == 0) ||
			    strcasestr(on, "send") || strcasestr(on, "recv") || strcasestr(on, "receive"))
				c->p2p = 1;
			else if (strcasestr(on, "reducescatter") || strcasestr(on, "allgather"))
				c->rsag = 1;
			else if (strcasestr(on, "allreduce"))
				c->ar = 1;
		}
	}
	buf_free(&ob2);
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	struct lk x;
	int o, fl, fam, ph, newstep, group = -1, src = RS_NAME;
	int64_t gap;

	if (sr_sect_need(&G.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0)
		return -1;
	/* before the order: a kernel rejected (-k) does not move it */
	if (k.name == NULL || rf_str(k.name, &nmb) != 0) {
		snprintf(r->err, sizeof r->err, "kernel has no string \"name\"");
		return -1;
	}
	if ((o = sr_sect_kernel(&G.sect, r, &k)) < 0)
		return -1;
	{
		const struct rawname *kn = kname(nmb.p, nmb.len);

		x.name = kn->norm;
		x.flags = kn->flags;
		x.role = kn->role;
		fam = kn->fam;
	}
	if (o == 1 && (G.nk > 0 || !G.unit || G.dev.len != G.sect.ord.dev.len ||
	    memcmp(G.dev.p, G.sect.ord.dev.p, G.dev.len) != 0)) {
		unit_end();
		unit_begin(G.sect.ord.dev.p, G.sect.ord.dev.len);
	}
	fl = x.flags;
	x.cls = classof(k.task_type, fl);
	x.stream = streamidx(k.stream, x.cls, fl);
	if (x.role < 0)
		x.role = k.dur < small_ns ? rsmall : rother;
	x.s = k.start;
	x.e = k.end;
	newstep = G.havepk && !samestep(&G.pkstep, G.pkstepk, k.step);
	G.stepser += newstep;
	/* The phase: gradients start backward, optimizer kernels the update. */
	ph = G.ph;
	if (fl & F_BWD) {
		ph = PH_BWD;
		G.nbwd++;
	} else if (fl & F_OPT) {
		ph = PH_OPT;
		G.nopt++;
	} else if (ph != PH_FWD && ((fl & (F_FIA | F_ANCH)) || (ph == PH_OPT && newstep)))
		ph = PH_FWD;
	x.ph = ph;
	if (fl & F_EMB) {
		G.nemb[!!(fl & F_BWD)]++;
		G.embsum += k.dur;
	}
	G.npfa += !!(fl & F_PFA);
	G.nifa += !!(fl & F_IFA);
	if (!(fl & F_BWD) && (fl & (F_LOSS | F_SAMP))) {
		G.nloss += !!(fl & F_LOSS);
		G.nargm += !(fl & F_LOSS);
		lossname(x.name, !(fl & F_LOSS));
	}
	if (x.cls == C_COMM) {
		x.role = commrole(nmb.p, nmb.len, fl, x.role, ph, &group, &src);
		comm_tally(&x, group, src, ph, k.dur);
	}
	phase_kernel(ph, &x, fam, k.dur);
	gap = G.havek ? k.start - G.maxend : -1;
	if (!G.havek) {
		G.havek = 1;
		G.first = k.start;
		G.last = G.maxend = k.end;
	}
	if (k.end > G.last)
		G.last = k.end;
	G.nk++;
	G.ksum += k.dur;

	/* Unions: all, comm, compute; per stream own / compute elsewhere / both. */
	acc_add(&G.all, k.start, k.end);
	if (x.cls == C_COMM)
		acc_add(&G.comm, k.start, k.end);
	else
		acc_add(&G.comp, k.start, k.end);
	for (int i = 0; i < G.nst; i++) {
		struct stream *s = &G.st[i];

		if (i == x.stream) {
			acc_add(&s->u, k.start, k.end);
			acc_add(&s->m, k.start, k.end);
		} else if (x.cls != C_COMM) {
			acc_add(&s->c, k.start, k.end);
			acc_add(&s->m, k.start, k.end);
		}
	}
	struct stream *s = &G.st[x.stream];

	s->n++;
	s->sum += k.dur;
	s->ncl[x.cls]++;
	s->clsum[x.cls] += k.dur;
	if (s->first == NULL)
		s->first = xstrndup(nmb.p, nmb.len);

	eng_kernel(&G.e[E_FIA], E_FIA, &x, fl & F_FIA, k.dur, k.step, gap);
	eng_kernel(&G.e[E_ATT], E_ATT, &x, fl & F_ANCH, k.dur, k.step, gap);
	/* Kept for the period search, when there is no attention anchor. */
	if (G.npk < maxpk) {
		if (G.npk == G.cappk) {
			G.cappk = G.cappk ? 2 * G.cappk : 1024;
			G.pk = xreallocarray(G.pk, G.cappk, sizeof *G.pk);
		}
		G.pk[G.npk++] = (struct pk){ x, k.dur, gap, k.step ? G.stepser : -1, fam, ph };
	} else
		G.pkmore++;
	G.havepk = 1;
	keepstep(&G.pkstep, &G.pkstepk, k.step);
	if (k.end > G.maxend)
		G.maxend = k.end;
	if (!ownonly)
		sr_pass(r);
	return 0;
}

static int
opstatrec(struct rin *r)
{
	int64_t n;
	int fl;

	if (G.sect.active && G.sect.sec == SR_BEFORE && rin_scan(r) == 0 &&
	    rin_str(r, "op_type", &tmp) == 0 && rin_i64(r, "count", &n) == 0) {
		fl = kname(tmp.p, tmp.len)->flags;
		G.opn++;
		G.opcnt[0] += (fl & F_FIA) ? n : 0;
		G.opcnt[1] += (fl & F_DFC) ? n : 0;
		G.opcnt[2] += (fl & F_GMM) ? n : 0;
		G.opcnt[3] += (fl & F_GATE) ? n : 0;
		G.opcnt[4] += (fl & F_A2A) ? n : 0;
		G.opcnt[5] += (fl & F_SAMP) ? n : 0;
	}
	if (!ownonly)
		sr_pass(r);
	return 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	const struct rfield *f;

	if (sr_is(t, n, "kernel"))
		return kernelrec(r);
	if (sr_is(t, n, "op_stat"))
		return opstatrec(r);
	if (sr_is(t, n, "comm") && G.sect.active && G.sect.sec == SR_BEFORE)
		commrec(r);
	if (sr_is(t, n, "comm_link") && G.sect.active && G.sect.sec == SR_BEFORE)
		linkrec(r);
	if (sr_is(t, n, "profile")) {
		if (rin_scan(r) != 0)
			return -1;
		profile_end();
		sr_sect_profile(&G.sect, r);
		G.units = 0;
		G.unit = 0;
		G.opn = 0;
		memset(G.opcnt, 0, sizeof G.opcnt);
		G.haveorigin = 0;
		if (opg)
			memset(opg, 0, capopg * sizeof *opg);
		nopg = 0;
		ncg = cgdone = ncr = 0;
		tmp.len = 0;
		if ((f = rin_get(r, "path")) != NULL && rf_str(f, &tmp) == 0 && tmp.len > 0)
			readmeta(tmp.p, tmp.len);
		else
			readmeta(NULL, 0);
		if ((f = rin_get(r, "origin_us")) != NULL && rf_str(f, &tmp) == 0 &&
		    dec_us2ns(tmp.p, tmp.len, &G.origin) == 0)
			G.haveorigin = 1;
	} else if (sr_is(t, n, "host") && sr_sect_host(&G.sect)) {
		/* The kernels are complete: write the analysis now. */
		if (G.units == 0 && !G.unit)
			unit_begin("null", 4);
		unit_end();
	}
	if (!ownonly || sr_is(t, n, "profile"))
		sr_pass(r);
	return 0;
}

static void
onend(void *arg)
{
	profile_end();
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "fia_*", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rfile = NULL;
	int c, kflag = 0, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "km:nr:")) != -1)
		switch (c) {
		case 'k':
			kflag = 1;
			break;
		case 'n':
			ownonly = 1;
			f.bulk_drop = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			rfile = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rfile);
	opkey_init();
	loadroles();
	rc = sr_run(argc, argv, maxline, kflag, &f);
	xclose_stdout();
	return rc;
}
