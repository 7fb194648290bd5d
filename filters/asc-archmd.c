/*
 * asc-archmd: render the "fia_*" records of asc-fia as the model
 * architecture report, model_architecture_report_<profiling_dir_name>.md,
 * one per profile (phases A8-A9).
 */
#define _GNU_SOURCE		/* strcasestr */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "md.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

#define WIDTH	64	/* columns of the ASCII timelines */
/*
 * What is kept of a profile, as asc-fia caps what it writes: the first
 * NPREC passes and the last one, their checks, the layers of those first
 * passes up to NLREC, MAXREC layer types and streams.  Pass and check
 * records past that are counted and aggregated.
 */
#define NPREC	64
#define NLREC	4096
#define MAXREC	64

/* A layer: what the report uses of a fia_layer record. */
struct lay {
	int64_t	 pass, start;
	int64_t	 wall;
	char	 type[16];
	int	 samp;
};

/* Passes not shown one by one. */
struct omit {
	int64_t	 n, layers, kernels, wsum, wmin, wmax, mean;
	int64_t	 ck[5];		/* checks by status */
};

static const char *ckst[5] = { "ok", "ok_multiple", "explained", "mismatch", "not_applicable" };

struct prof {
	int	 have;
	jv	 profile, summary, passes, checks, types, streams, phases, comms;
	jv	 last;		/* the last pass past the first NPREC, or null */
	struct lay *l;		/* layers 0 .. nl-1 */
	int	 nl, capl;
	int64_t	 droppedl;	/* layer records not kept */
	struct omit drop;	/* pass and check records not kept */
	char	*name;		/* the "profile" value, for grouping */
};

static struct prof P;
static const char *outdir = ".", *outfile;
static int nreports;
static struct buf R, tb;	/* the report being written; scratch */

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-m maxline] [-O file | -o dir] [file ...]\n", progname);
	exit(EX_SYS);
}

/* jv access (all borrow o) ------------------------------------------- */

static jv
get(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT)
		return jv_null();
	return jv_object_get(jv_copy(o), jv_string(k));
}

static int
has(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_NUMBER || jv_get_kind(v) == JV_KIND_STRING;

	jv_free(v);
	return r;
}

static int64_t
gi(jv o, const char *k)
{
	jv v = get(o, k);
	int64_t r = jv_get_kind(v) == JV_KIND_NUMBER ? (int64_t)jv_number_value(v) : 0;

	jv_free(v);
	return r;
}

/* A string field, copied into a ring of buffers ("" when missing). */
static const char *
gs(jv o, const char *k)
{
	static char *ring[16];
	static int at;
	jv v = get(o, k);
	char *s;

	if (jv_get_kind(v) == JV_KIND_STRING)
		s = xstrdup(jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NUMBER || jv_get_kind(v) == JV_KIND_TRUE ||
	    jv_get_kind(v) == JV_KIND_FALSE) {
		jv d = jv_dump_string(jv_copy(v), 0);

		s = xstrdup(jv_string_value(d));
		jv_free(d);
	} else
		s = xstrdup("");
	jv_free(v);
	at = (at + 1) % 16;
	free(ring[at]);
	ring[at] = s;
	return s;
}

static int
len(jv a)
{
	return jv_get_kind(a) == JV_KIND_ARRAY ? jv_array_length(jv_copy(a)) : 0;
}

static jv
at(jv a, int i)
{
	return jv_array_get(jv_copy(a), i);
}

/* Text --------------------------------------------------------------- */

static void
pf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
pf(const char *fmt, ...)
{
	va_list ap;
	char s[1024];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof s) {
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		buf_adds(&R, big);
		free(big);
	} else
		buf_adds(&R, s);
}

/* Milliseconds from ns, exact, with the unit.  A ring of results. */
static const char *
ms(int64_t ns)
{
	static char ring[16][48];
	static int i;
	char t[40];

	i = (i + 1) % 16;
	dec_fmt(t, ns, 6);
	snprintf(ring[i], sizeof ring[i], "%s ms", t);
	return ring[i];
}

/* num/den as a percentage with one decimal. */
static const char *
pct(int64_t num, int64_t den)
{
	static char ring[16][48];
	static int i;
	char t[40];

	i = (i + 1) % 16;
	if (den <= 0) {
		snprintf(ring[i], sizeof ring[i], "n/a");
		return ring[i];
	}
	dec_fmt(t, (num * 1000 + den / 2) / den, 1);
	snprintf(ring[i], sizeof ring[i], "%s %%", t);
	return ring[i];
}

static const char *
ratio(int64_t num, int64_t den)
{
	static char ring[8][40];
	static int i;

	i = (i + 1) % 8;
	if (den <= 0)
		snprintf(ring[i], sizeof ring[i], "n/a");
	else
		dec_fmt(ring[i], (num * 1000 + den / 2) / den, 3);
	return ring[i];
}

/* A table row of n cells; '|' in a cell is escaped. */
static void
row(int n, ...)
{
	va_list ap;

	va_start(ap, n);
	buf_addc(&R, '|');
	for (int i = 0; i < n; i++) {
		const char *c = va_arg(ap, const char *);

		buf_addc(&R, ' ');
		for (; *c; c++) {
			if (*c == '|')
				buf_addc(&R, '\\');
			if (*c == '\n')
				buf_addc(&R, ' ');
			else
				buf_addc(&R, *c);
		}
		buf_adds(&R, " |");
	}
	buf_addc(&R, '\n');
	va_end(ap);
}

/* Separator row: 'l' left, 'r' right per column. */
static void
sep(const char *align)
{
	buf_addc(&R, '|');
	for (const char *a = align; *a; a++)
		buf_adds(&R, *a == 'r' ? " ---: |" : " :--- |");
	buf_addc(&R, '\n');
}

static const char *
tdisplay(const char *t)
{
	if (strcmp(t, "dense") == 0)
		return "Dense";
	if (strcmp(t, "moe_dfc") == 0)
		return "MoE+DFC";
	if (strcmp(t, "moe_gmm") == 0)
		return "MoE+GMM";
	if (strcmp(t, "moe") == 0)
		return "MoE (gating only)";
	if (strcmp(t, "decode") == 0)
		return "Decode";
	if (strcmp(t, "backward") == 0)
		return "Backward";
	return t;
}

static char
tletter(const char *t)
{
	if (strcmp(t, "dense") == 0)
		return 'D';
	if (strcmp(t, "moe_dfc") == 0)
		return 'M';
	if (strcmp(t, "moe_gmm") == 0)
		return 'G';
	if (strcmp(t, "moe") == 0)
		return 'm';
	if (strcmp(t, "decode") == 0)
		return 'd';
	if (strcmp(t, "backward") == 0)
		return 'B';
	return '?';
}

/* A name as a code span (row() escapes '|' in table cells). */
static const char *
code(const char *s)
{
	return mdc(s, 0);
}

static const char *
num(int64_t v)
{
	static char ring[32][24];
	static int i;

	i = (i + 1) % 32;
	snprintf(ring[i], sizeof ring[i], "%lld", (long long)v);
	return ring[i];
}

/* Lookups ------------------------------------------------------------ */

static jv
typerec(const char *type)
{
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);

		if (strcmp(gs(t, "layer_type"), type) == 0)
			return t;
		jv_free(t);
	}
	return jv_invalid();
}

static int64_t
rolewall(jv t, const char *role)
{
	jv roles = get(t, "roles");
	int64_t w = 0;

	for (int i = 0; i < len(roles); i++) {
		jv r = at(roles, i);

		if (strcmp(gs(r, "role"), role) == 0)
			w = gi(r, "wall_ns");
		jv_free(r);
	}
	jv_free(roles);
	return w;
}

static const char *
streamlabel(const char *label)
{
	static char ring[8][128];
	static int i;

	i = (i + 1) % 8;
	if (strcmp(label, "comm:hccl") == 0)
		snprintf(ring[i], sizeof ring[i], "HCCL (no stream id)");
	else if (strcmp(label, "comm:alltoall") == 0)
		snprintf(ring[i], sizeof ring[i], "all-to-all (no stream id)");
	else
		snprintf(ring[i], sizeof ring[i], "stream %s", label);
	return ring[i];
}

/* A boolean field: 1, 0, or -1 when missing or null. */
static int
gb(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_TRUE ? 1 : jv_get_kind(v) == JV_KIND_FALSE ? 0 : -1;

	jv_free(v);
	return r;
}

/* Is the field a number (not null)? */
static int
isnum(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_NUMBER;

	jv_free(v);
	return r;
}

static const char *stagetext(int64_t);

/* A comm row's "Role from": the source, and an inference's evidence. */
static const char *
rolefrom(jv c)
{
	static char t[320];

	if (has(c, "role_evidence"))
		snprintf(t, sizeof t, "%s: %s", gs(c, "role_source"), gs(c, "role_evidence"));
	else
		snprintf(t, sizeof t, "%s", gs(c, "role_source"));
	return t;
}

static const char *
srctext(const char *src)
{
	if (strcmp(src, "metadata_group") == 0)
		return "the kernel's communication group in profiler_metadata.json parallel_group_info";
	if (strcmp(src, "inferred") == 0)
		return "inferred, not read: the groups of profiler_metadata.json parallel_group_info "
		    "carry no HCCL group ids, so each comm group gets the named group (in the Role "
		    "column) of its size that what its ops do points to, as in asc-comm(1) (send/recv "
		    "pp, reduce-scatter / all-gather dp, 1 rank tp, a size only one name has, an "
		    "all-reduce of at least 1 MB per link embd); the Role from column gives each row's "
		    "evidence; the role is that name's";
	if (strcmp(src, "metadata_dims") == 0)
		return "profiler_metadata.json parallel_group_info: the only parallel dimension of "
		    "its kind with more than one rank";
	if (strcmp(src, "position") == 0)
		return "no parallel-group metadata: a collective after the gradient kernels of a "
		    "training step, probably data-parallel gradient buckets";
	return "op names only (fallback: no parallel-group metadata)";
}

/* The string items of an array field, joined with ", " as code. */
static void
joincode(struct buf *b, jv o, const char *k)
{
	jv a = get(o, k);

	for (int i = 0; i < len(a); i++) {
		jv x = at(a, i);

		if (i)
			buf_adds(b, ", ");
		buf_adds(b, code(jv_get_kind(x) == JV_KIND_STRING ? jv_string_value(x) : "?"));
		jv_free(x);
	}
	jv_free(a);
}

/* Sections ----------------------------------------------------------- */

static const char *method;
static int fia;
static int train;		/* a training capture */
static int determ;		/* the layer structure was determined */
static struct omit O;		/* passes omitted: asc-fia's and ours */
static int onpass;		/* index in P.passes before which they go */

/* Layer i if it was kept, else NULL. */
static const struct lay *
layer(int64_t i)
{
	return i >= 0 && i < P.nl ? &P.l[i] : NULL;
}

/* The passes omitted, from the summary and from the records dropped here. */
static void
omitted(void)
{
	jv S = P.summary, ck = get(S, "omitted_checks");
	int64_t sn = gi(S, "omitted_passes");

	memset(&O, 0, sizeof O);
	O.n = sn + P.drop.n;
	O.layers = gi(S, "omitted_layers") + P.drop.layers;
	O.kernels = gi(S, "omitted_kernels") + P.drop.kernels;
	if (sn && P.drop.n) {
		O.wmin = gi(S, "omitted_wall_min_ns") < P.drop.wmin ? gi(S, "omitted_wall_min_ns") : P.drop.wmin;
		O.wmax = gi(S, "omitted_wall_max_ns") > P.drop.wmax ? gi(S, "omitted_wall_max_ns") : P.drop.wmax;
		O.mean = (gi(S, "omitted_wall_mean_ns") * sn + P.drop.wsum) / O.n;
	} else if (sn) {
		O.wmin = gi(S, "omitted_wall_min_ns");
		O.wmax = gi(S, "omitted_wall_max_ns");
		O.mean = gi(S, "omitted_wall_mean_ns");
	} else if (P.drop.n) {
		O.wmin = P.drop.wmin;
		O.wmax = P.drop.wmax;
		O.mean = P.drop.wsum / P.drop.n;
	}
	for (int i = 0; i < 5; i++)
		O.ck[i] = gi(ck, ckst[i]) + P.drop.ck[i];
	jv_free(ck);
	/* The last pass comes after the omitted ones. */
	if (jv_get_kind(P.last) == JV_KIND_OBJECT) {
		P.passes = jv_array_append(P.passes, jv_copy(P.last));
		onpass = len(P.passes) - 1;
	} else
		onpass = len(P.passes);
}

/* All passes, those omitted included. */
static int64_t
npasses(void)
{
	return len(P.passes) + O.n;
}

static int commgrad(void);

static void
s1_config(void)
{
	jv cfg = get(P.profile, "config"), deg = get(P.profile, "degraded");
	const char *path = gs(P.profile, "path");
	char par[128] = "";
	int np = 0;

	pf("## 1. Configuration Context\n\n");
	/* Parallelism from names like tp4, pp2dp2, ep8 in the path. */
	for (const char *s = path; *s; s++) {
		static const char *kinds[] = { "tp", "pp", "dp", "ep", "cp", "sp" };

		for (int k = 0; k < 6; k++)
			if (strncasecmp(s, kinds[k], 2) == 0 && s[2] >= '0' && s[2] <= '9' &&
			    (s == path || !((s[-1] >= 'a' && s[-1] <= 'z') || (s[-1] >= 'A' && s[-1] <= 'Z')))) {
				char t[32];

				snprintf(t, sizeof t, "%s%s=%d", np++ ? ", " : "", kinds[k], atoi(s + 2));
				if (strlen(par) + strlen(t) + 1 < 64)
					strcat(par, t);
			}
	}
	row(2, "Item", "Value");
	sep("ll");
	row(2, "Profile", code(gs(P.profile, "profile")[0] ? gs(P.profile, "profile") : P.name));
	row(2, "Path", path[0] ? code(path) : "unknown (no \"profile\" record)");
	row(2, "Framework", gs(P.profile, "framework")[0] ? mdt(gs(P.profile, "framework"), 0) : "unknown");
	row(2, "Profiler level", gs(cfg, "level")[0] ? mdt(gs(cfg, "level"), 0) : "unknown");
	row(2, "Rank", gs(cfg, "rank")[0] ? mdt(gs(cfg, "rank"), 0) : "unknown");
	tb.len = 0;
	buf_adds(&tb, gs(cfg, "cann_version")[0] ? mdt(gs(cfg, "cann_version"), 0) : "unknown");
	buf_adds(&tb, " / ");
	buf_adds(&tb, gs(cfg, "torch_npu_version")[0] ? mdt(gs(cfg, "torch_npu_version"), 0) : "unknown");
	row(2, "CANN / torch_npu", tb.p);
	if (gb(P.summary, "parallel_metadata") == 1) {
		jv g = get(P.summary, "parallel_groups");

		tb.len = 0;
		for (int i = 0; i < len(g); i++) {
			jv x = at(g, i);
			char t[160];

			buf_adds(&tb, i ? ", " : "");
			buf_adds(&tb, mdt(gs(x, "name"), 0));
			snprintf(t, sizeof t, " %lld rank%s", (long long)gi(x, "ranks"), gi(x, "ranks") == 1 ? "" : "s");
			buf_adds(&tb, t);
			jv_free(x);
		}
		buf_adds(&tb, " (profiler_metadata.json parallel_group_info)");
		row(2, "Parallel groups", tb.p);
		jv_free(g);
		if (has(P.summary, "pipeline_stages")) {
			char t[160];

			snprintf(t, sizeof t, "%lld of %lld (group_rank in the pp group of "
			    "parallel_group_info)", (long long)gi(P.summary, "pipeline_stage"),
			    (long long)gi(P.summary, "pipeline_stages"));
			row(2, "Pipeline stage", t);
		}
	} else
		row(2, "Parallelism", np ? par : "not derivable from the directory name or metadata");
	row(2, "Sequence lengths", "not recorded in the kernel records");
	row(2, "Profiling scope", "device kernels of the capture (kernel_details)");
	if (has(P.summary, "span_ns") && gi(P.summary, "kernels") == 0) {
		/* Nothing to judge from: no phase, no span (the pipeline's
		 * communication records alone do not make a model). */
		row(2, "Kernels", "0 (no device kernel table in the profile)");
		row(2, "Phase", commgrad() ? "unknown from kernels (none); the comm records hold "
		    "gradient traffic, so a training step (section 8)" :
		    "unknown: no device kernels (training or inference cannot be told)");
	} else if (has(P.summary, "span_ns")) {
		row(2, "Capture span (first kernel start to last kernel end)", ms(gi(P.summary, "span_ns")));
		row(2, "Kernels", num(gi(P.summary, "kernels")));
		row(2, "Streams", num(gi(P.summary, "streams")));
		if (has(P.summary, "phase"))
			row(2, "Phase", train ? "training (gradient or optimizer kernels)" :
			    "inference (no gradient or optimizer kernels)");
		if (!determ)
			row(2, "Layers", "not determinable (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched)");
		else if (train) {
			char t[160];

			snprintf(t, sizeof t, "%lld forward + %lld backward",
			    (long long)gi(P.summary, "forward_layers"), (long long)gi(P.summary, "backward_layers"));
			row(2, "Layers", t);
			snprintf(t, sizeof t, "%lld forward + %lld backward",
			    (long long)gi(P.summary, "forward_passes"), (long long)gi(P.summary, "backward_passes"));
			row(2, "Passes", t);
			row(2, "Micro-batches per step", isnum(P.summary, "micro_batches") ?
			    num(gi(P.summary, "micro_batches")) : "not determinable (passes do not pair up)");
		} else {
			row(2, "Layers", num(gi(P.summary, "layers")));
			row(2, "Forward passes", num(gi(P.summary, "passes")));
		}
	} else
		row(2, "Kernels", "no asc-fia summary in the stream");
	tb.len = 0;
	for (int i = 0; i < len(deg); i++) {
		jv d = at(deg, i);

		if (i)
			buf_adds(&tb, ", ");
		buf_adds(&tb, jv_get_kind(d) == JV_KIND_STRING ? jv_string_value(d) : "?");
		jv_free(d);
	}
	row(2, "Degraded inputs", tb.len ? tb.p : "none");
	pf("\n");
	jv_free(cfg);
	jv_free(deg);
}

/* The FIA markers: FusedInferAttentionScore, or prompt / incremental flash attention by name. */
static const char *
fiatext(void)
{
	int64_t named = gi(P.summary, "prefill_attention_kernels") +
	    gi(P.summary, "decode_attention_kernels");

	if (named == 0)
		return "`FusedInferAttentionScore` (FIA) kernels";
	if (named == gi(P.summary, "fia"))
		return "`PromptFlashAttention` (prefill) and `IncreFlashAttention` (decode) kernels, "
		    "FIA by name";
	return "`FusedInferAttentionScore` (FIA), `PromptFlashAttention` and `IncreFlashAttention` kernels";
}

static const char *
methodtext(void)
{
	if (strcmp(method, "fia") == 0)
		return fiatext();
	if (strcmp(method, "attention") == 0)
		return "other attention kernels (fallback: repeating attention pattern)";
	if (strcmp(method, "communication") == 0)
		return "communication kernels (fallback: communication boundaries)";
	if (strcmp(method, "step") == 0)
		return "step boundaries (fallback: no structural marker)";
	if (strcmp(method, "period") == 0)
		return "a repeating block of kernels (fallback: no attention kernel)";
	return "none";
}

/*
 * Layers of a type in a training step of M micro-batches: "14 layers x 2
 * micro-batches" when they split evenly, else "28 layers".
 */
static const char *
permb(int64_t n)
{
	static char s[64];
	int64_t m = train && isnum(P.summary, "micro_batches") ? gi(P.summary, "micro_batches") : 0;

	if (m > 1 && n % m == 0)
		snprintf(s, sizeof s, "%lld layers x %lld micro-batches", (long long)(n / m), (long long)m);
	else
		snprintf(s, sizeof s, "%lld layers", (long long)n);
	return s;
}

static void
typecounts(struct buf *b, jv obj)
{
	int n = 0;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		return;
	jv_object_foreach(obj, k, v) {
		char s[96];

		int64_t c = (int64_t)jv_number_value(v);
		const char *pm = permb(c);

		/* "Dense 14 x 2 micro-batches" in training, "Dense 28" else */
		if (strstr(pm, " x "))
			snprintf(s, sizeof s, "%s%s %lld x %s", n++ ? ", " : "", tdisplay(jv_string_value(k)),
			    (long long)c / gi(P.summary, "micro_batches"), strstr(pm, " x ") + 3);
		else
			snprintf(s, sizeof s, "%s%s %lld", n++ ? ", " : "", tdisplay(jv_string_value(k)),
			    (long long)c);
		buf_adds(b, s);
		jv_free(k);
		jv_free(v);
	}
}

/* Phases as a sentence: "forward 888 kernels (315.3 ms), backward ...". */
static void
phasetext(struct buf *b)
{
	static const char *ph[3] = { "forward", "backward", "optimizer" };
	int64_t n[3] = { 0 }, w[3] = { 0 }, runs[3] = { 0 }, cs[3] = { 0 }, co[3] = { 0 };
	int64_t ccn[3] = { 0 };
	int64_t sn = 0, sw = 0, scn = 0, scs = 0, sks = 0, past = 0, pastn = 0;
	int64_t wt = 0, nw = 0;
	char won[256] = "";

	for (int i = 0; i < len(P.phases); i++) {
		jv r = at(P.phases, i);

		for (int k = 0; k < 3; k++)
			if (strcmp(gs(r, "phase"), ph[k]) == 0) {
				n[k] += gi(r, "kernels");
				w[k] += gi(r, "wall_ns");
				cs[k] += gi(r, "compute_kernel_sum_ns");
				co[k] += gi(r, "comm_kernel_sum_ns");
				ccn[k] += gi(r, "comm_kernels");
				runs[k]++;
			}
		jv g = get(r, "gradient_sync");
		if (jv_get_kind(g) == JV_KIND_OBJECT) {
			sn += gi(g, "kernels");
			sw += gi(g, "wall_ns");
			scn += gi(g, "comm_kernels");
			scs += gi(g, "comm_kernel_sum_ns");
			sks += gi(g, "kernel_sum_ns");
			/* collectives of the backward that outlasted its compute: sync */
			if (gi(g, "backward_comm_kernels") > 0) {
				pastn += gi(g, "backward_comm_kernels");
				if (gi(g, "backward_comm_end_ns") > past)
					past = gi(g, "backward_comm_end_ns");
			}
			if (has(g, "wait_ns")) {
				wt += gi(g, "wait_ns");
				if (nw++ == 0)
					snprintf(won, sizeof won, "%s", code(gs(g, "wait_on")));
			}
		}
		jv_free(g);
		jv_free(r);
	}
	for (int k = 0, m = 0; k < 3; k++) {
		char t[480];

		if (!runs[k])
			continue;
		snprintf(t, sizeof t, "%s%s %lld kernels in %lld run%s (%s wall", m++ ? "; " : "", ph[k],
		    (long long)n[k], (long long)runs[k], runs[k] == 1 ? "" : "s", ms(w[k]));
		buf_adds(b, t);
		/* Communication under the phase: the wall holds it, not compute alone. */
		if (co[k] > 0 && k == 1 && pastn) {
			snprintf(t, sizeof t, ", to its last compute kernel: %s of compute kernels; "
			    "%lld collective%s started in it (%s of communication kernels), the "
			    "last to end running on to %s, into the gradient sync", ms(cs[k]),
			    (long long)ccn[k], ccn[k] == 1 ? "" : "s", ms(co[k]), ms(past));
			buf_adds(b, t);
		} else if (co[k] > 0) {
			snprintf(t, sizeof t, ", which includes communication: %s of "
			    "communication kernels beside %s of compute kernels", ms(co[k]), ms(cs[k]));
			buf_adds(b, t);
		}
		buf_addc(b, ')');
		if (k == 1 && sn > 0) {
			snprintf(t, sizeof t, "; then gradient sync, from the end of the backward's last "
			    "compute kernel to the end of the phase: %lld kernels (%s wall; %lld collective%s %s, other "
			    "kernels %s), not backward time", (long long)sn, ms(sw), (long long)scn,
			    scn == 1 ? "" : "s", ms(scs), ms(sks - scs));
			buf_adds(b, t);
			if (pastn) {
				snprintf(t, sizeof t, "; %lld of these collective%s started in the backward "
				    "and ran past its last compute kernel, to %s (a collective that outlasts "
				    "the backward's compute is gradient sync)", (long long)pastn,
				    scn == 1 ? "" : "s", ms(past));
				buf_adds(b, t);
			}
			if (nw) {
				snprintf(t, sizeof t, "; in it the device waited %s with no compute kernel "
				    "to run (only collectives), "
				    "from the backward's last compute kernel to the next kernel, which "
				    "started after %s ended%s (gradient-sync time on the critical path)",
				    ms(wt), won, nw > 1 ? " (first of several runs)" : "");
				buf_adds(b, t);
			}
		}
	}
}

/* Communication kernels by role, as a sentence. */
static void
commtext(struct buf *b, int bucketsonly)
{
	for (int i = 0; i < len(P.comms); i++) {
		jv c = at(P.comms, i);
		char t[160];

		snprintf(t, sizeof t, " (%s; %lld forward, %lld backward, %lld gradient sync, %lld optimizer)",
		    gs(c, "role"), (long long)gi(c, "forward_kernels"), (long long)gi(c, "backward_kernels"),
		    (long long)gi(c, "gradient_sync_kernels"), (long long)gi(c, "optimizer_kernels"));
		if (!bucketsonly || gi(c, "backward_kernels") || gi(c, "gradient_sync_kernels")) {
			char k[32];

			snprintf(k, sizeof k, "%s%lld ", b->len ? "; " : "", (long long)gi(c, "kernels"));
			buf_adds(b, k);
			buf_adds(b, code(gs(c, "op")));
			buf_adds(b, t);
		}
		jv_free(c);
	}
}

/* No layer structure: describe what the capture holds instead. */
static void
s2_describe(void)
{
	jv S = P.summary, fam = get(S, "families");
	int64_t gmm = gi(S, "grouped_matmul");

	pf("The layer structure **could not be determined**: no `FusedInferAttentionScore`, no "
	    "other attention kernel, and no block of forward kernels repeated 3 times or more "
	    "(rules fia.fallback_anchors, fia.period_min_repeats; backward kernels are not "
	    "searched, so a backward block that repeats does not make layers). No layers or passes are claimed "
	    "and no transformer structure is assumed. What the capture shows instead:\n\n");
	row(5, "Op family", "Forward kernels", "Backward kernels", "Optimizer kernels", "Kernel sum");
	sep("lrrrr");
	for (int i = 0; i < len(fam); i++) {
		jv f = at(fam, i);

		row(5, gs(f, "family"), num(gi(f, "forward_kernels")), num(gi(f, "backward_kernels")),
		    num(gi(f, "optimizer_kernels")), ms(gi(f, "kernel_sum_ns")));
		jv_free(f);
	}
	pf("\n");
	if (train)
		pf("- Phase: training: %lld kernels are named as gradients (`*Grad*`, `*Backprop*`, "
		    "`*Backward*`) and %lld as optimizer kernels (`*Adam*`, `*ForeachAdd*`, ...); a "
		    "named kernel starts its phase, and the phases below also hold the unnamed kernels "
		    "that follow it, so they count more.\n",
		    (long long)gi(S, "backward_kernels"), (long long)gi(S, "optimizer_kernels"));
	else
		pf("- Phase: no gradient or optimizer kernels (inference, or a forward-only capture).\n");
	tb.len = 0;
	phasetext(&tb);
	if (tb.len)
		pf("- Phases in kernel order: %s.\n", tb.p);
	pf("- Convolution / matmul stages of the first forward phase, in order: %s.\n",
	    gs(S, "forward_stages")[0] ? gs(S, "forward_stages") : "none");
	tb.len = 0;
	commtext(&tb, 0);
	if (tb.len)
		pf("- Communication: %s. %s\n", tb.p, train && gi(S, "backward_kernels") ?
		    "Collectives of the backward phase and of its gradient sync are gradient buckets, "
		    "not layers." : "");
	tb.len = 0;
	joincode(&tb, S, "loss_ops");
	if (tb.len)
		pf("- Loss ops: %s.\n", tb.p);
	if (gmm || gi(S, "gating") || gi(S, "dfc"))
		pf("- Expert-style ops are present (%lld `GroupedMatmul`, %lld gating, %lld DFC), but "
		    "without attention kernels the capture is not called a Mixture-of-Experts "
		    "transformer.\n", (long long)gi(S, "grouped_matmul"), (long long)gi(S, "gating"),
		    (long long)gi(S, "dfc"));
	pf("\n");
	jv_free(fam);
}

/* How a layer of the attention fallback starts (asc-fia(1)). */
static const char headtext[] = ", forward and backward (gradient) kernels counted apart, each "
    "layer starting at its first kernel (the kernels before its attention kernel whose names "
    "repeat before the next one, such as the input norm and the QKV projection; backward, the "
    "MLP's gradient)";

static void
s2_evidence(void)
{
	jv S = P.summary, lt = get(S, "layer_types"), why = get(S, "boundary");
	int64_t passes = gi(S, "passes"), lpp = gi(S, "layers_per_pass");
	char s[256];

	pf("## 2. Model Architecture Determination\n\n");
	if (!has(S, "kernels") || gi(S, "kernels") == 0) {
		pf("Cannot be determined: %s.\n\n", !has(S, "kernels") ?
		    "the stream holds no asc-fia records (run asc-fia before asc-archmd)" :
		    "the profile has no device kernels");
		jv_free(lt);
		jv_free(why);
		return;
	}
	if (!determ) {
		s2_describe();
		jv_free(lt);
		jv_free(why);
		return;
	}
	pf("Layers are delimited by %s. ", methodtext());
	if (train && !fia)
		pf("**No `FusedInferAttentionScore` kernel was found**: layers are cut at the other "
		    "attention kernels%s; a forward and a backward pass are cut where the direction "
		    "changes or a send/receive runs. Confidence: **%s**%s.\n\n", headtext,
		    gs(S, "confidence"), gb(S, "layers_agree") == 1 ?
		    " (the forward and backward layer counts agree)" : " (the forward and backward layer counts do not agree)");
	else if (strcmp(method, "period") == 0)
		pf("No attention kernel was found: the layers are probably the repeats of a block of "
		    "kernels; the layer count has low confidence and no transformer structure is "
		    "claimed. Confidence: %s.\n\n", gs(S, "confidence"));
	else {
		if (!fia)
			pf("**No `FusedInferAttentionScore` kernel was found**: the layer boundaries come "
			    "from a fallback marker, so the layer count has **low confidence**. ");
		pf("Confidence: **%s**.\n\n", gs(S, "confidence"));
	}
	row(3, "Evidence", "Value", "Interpretation");
	sep("lrl");
	if (fia) {
		snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "fia"));
		row(3, fiatext(), s, "one FIA per attention layer: one layer starts at each FIA");
		snprintf(s, sizeof s, "%lld, mean %s", (long long)gi(S, "fia_prefill"),
		    has(S, "fia_prefill_mean_ns") ? ms(gi(S, "fia_prefill_mean_ns")) : "n/a");
		row(3, gi(S, "prefill_attention_kernels") ? "Prefill FIA (`PromptFlashAttention` by name, "
		    "else duration > threshold)" : "Prefill FIA (duration > threshold)", s,
		    "attention over the whole prompt");
		snprintf(s, sizeof s, "%lld, mean %s", (long long)gi(S, "fia_decode"),
		    has(S, "fia_decode_mean_ns") ? ms(gi(S, "fia_decode_mean_ns")) : "n/a");
		row(3, gi(S, "decode_attention_kernels") ? "Decode FIA (`IncreFlashAttention` by name, "
		    "else duration < threshold)" : "Decode FIA (duration < threshold)", s, gi(S, "fia_decode") ?
		    "one new token per layer against the KV cache" : "no decode in the capture");
		snprintf(s, sizeof s, "%lld", (long long)gi(S, "fia_ambiguous"));
		row(3, "Ambiguous FIA (between the thresholds)", s, gi(S, "fia_ambiguous") ?
		    "neither clearly prefill nor decode: classified by their other kernels" : "none");
		snprintf(s, sizeof s, "prefill > %s, decode < %s", ms((int64_t)(atof(gs(S, "prefill_min_ms")) * 1e6 + 0.5)),
		    ms((int64_t)(atof(gs(S, "decode_max_ms")) * 1e6 + 0.5)));
		row(3, "Thresholds (rules)", s, "fia.prefill_min_ms, fia.decode_max_ms");
	} else {
		row(3, "`FusedInferAttentionScore` kernels", "0", "the primary marker is absent");
		snprintf(s, sizeof s, "%lld anchors", (long long)gi(S, "anchors"));
		if (strcmp(method, "period") == 0) {
			jv pd = get(S, "period");

			snprintf(s, sizeof s, "block of %lld kernels x %lld repeats", (long long)gi(pd, "kernels"),
			    (long long)gi(pd, "repeats"));
			jv_free(pd);
		}
		row(3, "Fallback marker", s, methodtext());
	}
	if (train) {
		char t[160];

		snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "backward_kernels"));
		row(3, "Gradient kernels (`*Grad*`, `*Backprop*`, `*Backward*`)", s, "backward pass: a "
		    "training capture (kernels so named; the backward phase holds more)");
		snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "optimizer_kernels"));
		row(3, "Optimizer kernels (`*Adam*`, `*ForeachAdd*`)", s, gi(S, "optimizer_kernels") ?
		    "the optimizer step (section 3; kernels so named, the step may hold more)" :
		    "no optimizer step in the capture");
		snprintf(s, sizeof s, "%lld forward, %lld backward", (long long)gi(S, "forward_layers"),
		    (long long)gi(S, "backward_layers"));
		row(3, "Layers by direction", s, gi(S, "forward_layers") == gi(S, "backward_layers") ?
		    "every forward layer has its backward layer" : "forward and backward differ: see section 5");
		snprintf(s, sizeof s, "%lld forward, %lld backward", (long long)gi(S, "forward_passes"),
		    (long long)gi(S, "backward_passes"));
		if (isnum(S, "micro_batches"))
			snprintf(t, sizeof t, "%lld micro-batch%s per step (%lld step%s)",
			    (long long)gi(S, "micro_batches"), gi(S, "micro_batches") == 1 ? "" : "es",
			    (long long)gi(S, "steps"), gi(S, "steps") == 1 ? "" : "s");
		else
			snprintf(t, sizeof t, "micro-batches not determinable: the passes do not pair up");
		row(3, "Passes by direction", s, t);
	}
	tb.len = 0;
	for (int i = 0; i < len(why); i++) {
		jv w = at(why, i);

		if (i)
			buf_adds(&tb, ", ");
		buf_adds(&tb, jv_string_value(w));
		jv_free(w);
	}
	snprintf(s, sizeof s, "%lld pass%s", (long long)passes, passes == 1 ? "" : "es");
	row(3, "Pass boundaries", s, tb.len ? tb.p :
	    "no boundary found (no large gap, no decode-to-prefill transition, no step change, no repeated pattern)");
	if (has(S, "layers_per_pass")) {
		snprintf(s, sizeof s, "%lld layers", (long long)lpp);
		tb.len = 0;
		snprintf(s + 100, 150, "num_passes = %lld / %lld = %lld", (long long)gi(S, "layers"),
		    (long long)lpp, (long long)passes);
		row(3, fia ? "FIA per pass" : "Anchors per pass", s, s + 100);
	} else
		row(3, "Layers per pass", "varies", "passes differ in length: see section 3");
	if (strcmp(method, "period") == 0)
		goto types;	/* no attention: MoE markers say nothing of a transformer */
	snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "gating"));
	row(3, "`MoeGatingTopK`", s, gi(S, "gating") ? "MoE routing: MoE layers present" : "no MoE routing");
	snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "dfc"));
	row(3, "`DispatchFFNCombine` (DFC)", s, gi(S, "dfc") ? "fused expert dispatch + FFN + combine: MoE+DFC layers" : "no fused MoE layers");
	snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "grouped_matmul"));
	row(3, "`GroupedMatmul`", s, gi(S, "grouped_matmul") ? "explicit expert FFN: MoE+GMM and decode layers" : "no explicit expert FFN");
	snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "alltoallv"));
	row(3, "alltoallv", s, gi(S, "alltoallv") ? "expert-parallel all-to-all around GroupedMatmul" : "no expert-parallel all-to-all");
	if (train) {
		tb.len = 0;
		joincode(&tb, S, "loss_ops");
		snprintf(s, sizeof s, "%lld kernels", (long long)gi(S, "loss_kernels"));
		row(3, "Loss ops (`*NLLLoss*`, `*CrossEntropy*`; `ArgMax*` in training)", s, tb.len ? tb.p :
		    "no loss op on this rank (under pipeline parallelism the loss runs on the last stage)");
	}
	/* The embedding is a part of its own: never a layer's anomaly. */
	if (gi(S, "embedding_forward_kernels") + gi(S, "embedding_backward_kernels") > 0) {
		snprintf(s, sizeof s, "%lld forward, %lld gradient kernels (%s)",
		    (long long)gi(S, "embedding_forward_kernels"),
		    (long long)gi(S, "embedding_backward_kernels"), ms(gi(S, "embedding_kernel_sum_ns")));
		row(3, "Embedding (`aclnnEmbedding*`, `*EmbeddingDenseGrad*`, `*EmbeddingBag*`)", s,
		    has(S, "pipeline_stages") && gi(S, "pipeline_stage") == 0 ?
		    "the input embedding, held by this first pipeline stage: the embedding part, not a "
		    "layer (section 6 names a layer whose span holds its gradient kernels)" :
		    "the embedding part, not a layer (section 6 names a layer whose span holds its "
		    "gradient kernels)");
	}
	if (!train) {
		snprintf(s, sizeof s, "%lld layers", (long long)gi(S, "sampling_layers"));
		row(3, "Sampling ops (`ArgMax`, `rejection_*`)", s, gi(S, "sampling_layers") ? "token sampling: end of a prefill or decode step" : "no sampling in the capture");
	}
types:
	tb.len = 0;
	typecounts(&tb, lt);
	row(3, "Layer types", tb.len ? tb.p : "none", "see section 4");
	pf("\n**Conclusion:** ");
	if (strcmp(method, "period") == 0) {
		if (has(S, "layers_per_pass"))
			pf("probably %lld pass%s of %lld layers each (%lld layers, a block of kernels "
			    "repeated); low confidence, and no transformer structure is claimed without "
			    "attention kernels.\n\n", (long long)passes, passes == 1 ? "" : "es",
			    (long long)lpp, (long long)gi(S, "layers"));
		else
			pf("probably %lld layers (a block of kernels repeated) in %lld passes of varying "
			    "length; low confidence, and no transformer structure is claimed without "
			    "attention kernels.\n\n", (long long)gi(S, "layers"), (long long)passes);
		jv_free(lt);
		jv_free(why);
		return;
	}
	if (train) {
		if (gb(S, "layers_agree") == 1)
			pf("**a training step of %lld micro-batch%s, %lld layers each**%s: %lld forward and "
			    "%lld backward layers, which agree", (long long)gi(S, "micro_batches"),
			    gi(S, "micro_batches") == 1 ? "" : "es", (long long)gi(S, "layers_per_micro_batch"),
			    stagetext(gi(S, "layers_per_micro_batch")),
			    (long long)gi(S, "forward_layers"), (long long)gi(S, "backward_layers"));
		else
			pf("a training step with %lld forward and %lld backward layers in %lld forward and "
			    "%lld backward passes; they do not pair up, so the micro-batches and the layers "
			    "per micro-batch could not be determined", (long long)gi(S, "forward_layers"),
			    (long long)gi(S, "backward_layers"), (long long)gi(S, "forward_passes"),
			    (long long)gi(S, "backward_passes"));
		if (gi(S, "dfc") || gi(S, "grouped_matmul") || gi(S, "gating"))
			pf("; the model is a **Mixture-of-Experts** transformer");
		else
			pf("; the model is a **dense** transformer (attention kernels, no MoE markers)");
		pf(".\n\n");
		jv_free(lt);
		jv_free(why);
		return;
	}
	if (has(S, "layers_per_pass") && passes > 0) {
		jv p0 = at(P.passes, 0), plt = get(p0, "layer_types");

		tb.len = 0;
		typecounts(&tb, plt);
		pf("**%lld forward pass%s of %lld layers each (%s)**, %lld layers in all%s",
		    (long long)passes, passes == 1 ? "" : "es", (long long)lpp, tb.p ? tb.p : "",
		    (long long)gi(S, "layers"), stagetext(lpp));
		jv_free(plt);
		jv_free(p0);
	} else
		pf("**%lld layers in %lld passes of varying length**", (long long)gi(S, "layers"),
		    (long long)passes);
	if (gi(S, "dfc") || gi(S, "grouped_matmul") || gi(S, "gating"))
		pf("; the model is a **Mixture-of-Experts** transformer");
	else if (fia || strcmp(method, "attention") == 0)
		pf("; the model is a **dense** transformer");
	pf(".\n\n");
	jv_free(lt);
	jv_free(why);
}

/* Under pipeline parallelism the layers found are this stage's share. */
static const char *
stagetext(int64_t layers)
{
	static char t[256];
	int64_t p = gi(P.summary, "pipeline_stages");

	if (!has(P.summary, "pipeline_stages") || p < 2 || layers <= 0)
		return "";
	snprintf(t, sizeof t, " (this rank is pipeline stage %lld of %lld, numbered from 0 in parallel_group_info: "
	    "these are this stage's layers, so the model has about %lld x %lld = %lld)",
	    (long long)gi(P.summary, "pipeline_stage"), (long long)p, (long long)p,
	    (long long)layers, (long long)(p * layers));
	return t;
}

/* Why there are no layers. */
static const char *
nolayer(void)
{
	if (!determ && gi(P.summary, "kernels"))
		return "no layer structure was determined (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched)";
	return "no layer was found";
}

/* Training: the runs of forward, backward and optimizer kernels. */
static void
phasetable(void)
{
	jv opt = get(P.summary, "optimizer");

	pf("Phases in kernel order (a gradient kernel starts backward, an optimizer kernel the "
	    "optimizer step):\n\n");
	row(8, "Run", "Phase", "Start", "Wall time", "Compute kernels", "Communication kernels",
	    "Kernels", "First kernel");
	sep("rlrrrrrl");
	for (int i = 0; i < len(P.phases); i++) {
		jv r = at(P.phases, i), g = get(r, "gradient_sync");

		row(8, num(gi(r, "run")), gs(r, "phase"), ms(gi(r, "start_ns")), ms(gi(r, "wall_ns")),
		    ms(gi(r, "compute_kernel_sum_ns")), ms(gi(r, "comm_kernel_sum_ns")),
		    num(gi(r, "kernels")), code(gs(r, "first_kernel")));
		/* The dp collectives no gradient kernel follows: a row of their own. */
		if (jv_get_kind(g) == JV_KIND_OBJECT)
			row(8, "", "gradient sync", ms(gi(g, "start_ns")), ms(gi(g, "wall_ns")),
			    ms(gi(g, "kernel_sum_ns") - gi(g, "comm_kernel_sum_ns")),
			    ms(gi(g, "comm_kernel_sum_ns")), num(gi(g, "kernels")), "");
		jv_free(g);
		jv_free(r);
	}
	pf("\n");
	/* The backward ends with its last compute kernel; a wait after it is sync. */
	for (int i = 0, m = 0; i < len(P.phases); i++) {
		jv r = at(P.phases, i), g = get(r, "gradient_sync");

		if (jv_get_kind(g) == JV_KIND_OBJECT && m++ == 0)
			pf("A backward run's wall ends with its last compute kernel before the first dp "
			    "collective no gradient kernel follows, or before the device waited for the "
			    "backward's dp collectives to end (a non-gradient kernel, such as a bucket "
			    "copy, that started only after them); the gradient sync starts there.");
		if (jv_get_kind(g) == JV_KIND_OBJECT && gi(g, "backward_comm_kernels") > 0)
			pf(" Run %lld: %lld collective%s started in the backward and ran on to %s, past "
			    "its last compute kernel; a collective that outlasts the backward's compute "
			    "is gradient sync (its kernels and kernel time are in the gradient sync row).",
			    (long long)gi(r, "run"), (long long)gi(g, "backward_comm_kernels"),
			    gi(g, "backward_comm_kernels") == 1 ? "" : "s",
			    ms(gi(g, "backward_comm_end_ns")));
		if (jv_get_kind(g) == JV_KIND_OBJECT && has(g, "wait_ns"))
			pf(" Run %lld: from %s to %s (%s) the device had no compute kernel to run (only "
			    "collectives ran): the next "
			    "kernel started after %s ended. That wait is gradient-sync time on the "
			    "critical path, not backward compute.", (long long)gi(r, "run"),
			    ms(gi(g, "wait_start_ns")), ms(gi(g, "wait_end_ns")), ms(gi(g, "wait_ns")),
			    code(gs(g, "wait_on")));
		if (i == len(P.phases) - 1 && m)
			pf("\n\n");
		jv_free(g);
		jv_free(r);
	}
	if (jv_get_kind(opt) == JV_KIND_OBJECT)
		pf("Optimizer step: from %s at %s to %s, %s wall, %lld kernels (%s kernel time).\n\n",
		    code(gs(opt, "first_kernel")), ms(gi(opt, "start_ns")), ms(gi(opt, "end_ns")),
		    ms(gi(opt, "wall_ns")), (long long)gi(opt, "kernels"), ms(gi(opt, "kernel_sum_ns")));
	else
		pf("No optimizer kernel in the capture: the optimizer step was not captured.\n\n");
	jv_free(opt);
}

/* What each part of the work between passes is (asc-fia between_passes). */
static const char *const bparts[][2] = {
	{ "pipeline_send_receive", "pipeline send/receive (the wait for the other stage and the transfer)" },
	{ "gradient_sync", "gradient sync (dp collectives after the last gradient kernel)" },
	{ "embd_gradient_allreduce", "embedding-gradient all-reduce (embd group)" },
	{ "optimizer", "optimizer step (its kernels and collectives)" },
	{ "other_comm", "other collectives" },
	{ "other_compute", "compute outside the layers (after a pass's last layer, before the next pass's first)" },
};

/* The work between passes as a sentence ("" none); its kernel sum in *sum. */
static void
betweentext(struct buf *b, int64_t *sum)
{
	jv bp = get(P.summary, "between_passes");

	*sum = 0;
	for (size_t i = 0; i < sizeof bparts / sizeof bparts[0]; i++) {
		jv x = get(bp, bparts[i][0]);
		char t[256];

		if (jv_get_kind(x) == JV_KIND_OBJECT) {
			snprintf(t, sizeof t, "%s%s %s, %lld kernel%s", b->len ? "; " : "",
			    ms(gi(x, "kernel_sum_ns")), bparts[i][1], (long long)gi(x, "kernels"),
			    gi(x, "kernels") == 1 ? "" : "s");
			buf_adds(b, t);
			*sum += gi(x, "kernel_sum_ns");
		}
		jv_free(x);
	}
	jv_free(bp);
}

static void
s3_passes(void)
{
	jv S = P.summary;

	pf("## 3. Forward Pass Boundaries\n\n");
	if (len(P.passes) == 0) {
		pf("Not available: %s.\n\n", !has(S, "kernels") ? "the stream holds no asc-fia records" :
		    !determ && gi(S, "kernels") ? "no layer structure was determined, so no pass is claimed" :
		    "no layer was found");
		if (train)
			phasetable();
		return;
	}
	if (train)
		pf("Training capture: a pass is a run of forward or of backward layers, cut where the "
		    "direction changes or a send/receive (pipeline parallelism) runs; the k-th backward "
		    "pass belongs to the k-th forward pass (micro-batch k).\n\n");
	row(10, fia ? "Pass" : "Pass", fia ? "FIA index range" : "Anchor range", "Layers",
	    "Start (epoch us)", "End (epoch us)", "Wall time", "Mean prefill FIA", "Mean decode FIA",
	    "Kernels", "Boundary");
	sep("rlrllrrrrl");
	for (int i = 0; i < len(P.passes); i++) {
		jv p = at(P.passes, i), why = get(p, "boundary");
		char r[64];

		if (i == onpass && O.n) {
			jv q = at(P.passes, i - 1);
			char a[64], w[160], b[96];

			snprintf(a, sizeof a, "%lld-%lld", (long long)gi(q, "pass") + 1,
			    (long long)gi(p, "pass") - 1);
			snprintf(r, sizeof r, "#%lld-#%lld", (long long)gi(q, "layer_last") + 1,
			    (long long)gi(p, "layer_first") - 1);
			snprintf(w, sizeof w, "mean %s (min %s, max %s)", ms(O.mean), ms(O.wmin), ms(O.wmax));
			snprintf(b, sizeof b, "%lld passes not listed", (long long)O.n);
			row(10, a, r, num(O.layers), "", "", w, "", "", num(O.kernels), b);
			jv_free(q);
		}

		snprintf(r, sizeof r, "#%lld-#%lld", (long long)gi(p, "layer_first"),
		    (long long)gi(p, "layer_last"));
		tb.len = 0;
		for (int j = 0; j < len(why); j++) {
			jv w = at(why, j);

			if (j)
				buf_adds(&tb, ", ");
			buf_adds(&tb, jv_string_value(w));
			jv_free(w);
		}
		if (has(p, "gap_before_ns")) {
			buf_adds(&tb, " (gap ");
			buf_adds(&tb, ms(gi(p, "gap_before_ns")));
			buf_adds(&tb, ")");
		}
		row(10, num(gi(p, "pass")), r, num(gi(p, "layers")),
		    has(p, "start_abs_us") ? gs(p, "start_abs_us") : ms(gi(p, "start_ns")),
		    has(p, "end_abs_us") ? gs(p, "end_abs_us") : ms(gi(p, "end_ns")),
		    ms(gi(p, "wall_ns")),
		    has(p, "fia_prefill_mean_ns") ? ms(gi(p, "fia_prefill_mean_ns")) : "n/a",
		    has(p, "fia_decode_mean_ns") ? ms(gi(p, "fia_decode_mean_ns")) : "n/a",
		    num(gi(p, "kernels")), tb.p);
		jv_free(why);
		jv_free(p);
	}
	pf("\n");
	if (O.n)
		pf("Only the first %d passes and the last are listed (%lld passes in all); the %lld "
		    "between are summarised in one row.\n\n", onpass, (long long)npasses(), (long long)O.n);
	{
		int64_t sum;

		tb.len = 0;
		betweentext(&tb, &sum);
		if (tb.len)
			pf("**Between passes, not layer time** (kernel sums, %s in all): %s. A layer's "
			    "wall ends at its last kernel before this work, a pass's at its last layer's "
			    "end.\n\n", ms(sum), tb.p);
	}
	if (train) {
		tb.len = 0;
		for (int i = 0; i < len(P.passes); i++) {
			jv p = at(P.passes, i);
			char t[96];

			snprintf(t, sizeof t, "%spass %lld %s %lld", i ? ", " : "", (long long)gi(p, "pass"),
			    gs(p, "phase"), (long long)gi(p, "layers"));
			buf_adds(&tb, t);
			jv_free(p);
		}
		pf("Passes by direction (layers): %s. ", tb.p ? tb.p : "none");
		if (isnum(S, "micro_batches"))
			pf("**%lld micro-batch%s per step** of %s forward and %s backward layers.\n\n",
			    (long long)gi(S, "micro_batches"), gi(S, "micro_batches") == 1 ? "" : "es",
			    isnum(S, "layers_per_micro_batch") ? num(gi(S, "layers_per_micro_batch")) : "varying",
			    isnum(S, "backward_layers_per_micro_batch") ?
			    num(gi(S, "backward_layers_per_micro_batch")) : "varying");
		else
			pf("The forward and backward passes do not pair up: the micro-batch count could not "
			    "be determined.\n\n");
		phasetable();
	} else if (len(P.passes) == 1)
		pf("**Single pass captured**: pass consistency cannot be cross-validated and "
		    "cross-pass variation analysis is unavailable.\n\n");
	else {
		jv a = at(P.passes, 0), b = at(P.passes, len(P.passes) - 1);

		if (has(S, "fia_drift_ratio"))
			pf("Cross-pass drift: mean prefill FIA goes from %s (pass 0) to %s (pass %d), "
			    "**%sx**%s. ", ms(gi(a, "fia_prefill_mean_ns")), ms(gi(b, "fia_prefill_mean_ns")),
			    (int)gi(b, "pass"), gs(S, "fia_drift_ratio"),
			    atof(gs(S, "fia_drift_ratio")) > 1.02 ?
			    ": attention grows from pass to pass, consistent with KV-cache growth or memory pressure" :
			    atof(gs(S, "fia_drift_ratio")) < 0.98 ? ": attention shrinks" : ": stable");
		pf("Wall time goes from %s to %s (%sx).\n\n", ms(gi(a, "wall_ns")), ms(gi(b, "wall_ns")),
		    has(S, "wall_drift_ratio") ? gs(S, "wall_drift_ratio") : "n/a");
		jv_free(a);
		jv_free(b);
	}
}

static void
characteristics(struct buf *b, jv t)
{
	jv roles = get(t, "roles");
	int used[64] = { 0 }, n = len(roles) < 64 ? len(roles) : 64;
	char s[256];

	snprintf(s, sizeof s, "%lld kernels/layer; mean wall %s; anchor mean %s",
	    (long long)(gi(t, "kernels") / (gi(t, "layers") ? gi(t, "layers") : 1)),
	    ms(gi(t, "wall_mean_ns")), ms(gi(t, "anchor_mean_ns")));
	buf_adds(b, s);
	buf_adds(b, "; top roles: ");
	for (int k = 0; k < 3 && k < n; k++) {
		int best = -1;
		int64_t bw = -1;

		for (int i = 0; i < n; i++) {
			jv r = at(roles, i);

			if (!used[i] && gi(r, "wall_ns") > bw) {
				bw = gi(r, "wall_ns");
				best = i;
			}
			jv_free(r);
		}
		used[best] = 1;
		jv r = at(roles, best);

		snprintf(s, sizeof s, "%s%s %s", k ? ", " : "", gs(r, "role"), pct(gi(r, "wall_ns"), gi(t, "wall_sum_ns")));
		buf_adds(b, s);
		jv_free(r);
	}
	if (gi(t, "sampling_layers")) {
		snprintf(s, sizeof s, "; sampling in %lld layer%s", (long long)gi(t, "sampling_layers"),
		    gi(t, "sampling_layers") > 1 ? "s" : "");
		buf_adds(b, s);
	}
	jv_free(roles);
}

static void
s4_layers(void)
{
	pf("## 4. Layer Classification\n\n");
	if (len(P.types) == 0) {
		pf("Not available: %s.\n\n", nolayer());
		return;
	}
	if (train)
		pf("Dense: a forward layer without `MoeGatingTopK`, `DispatchFFNCombine` or "
		    "`GroupedMatmul`; MoE types as in inference. Backward: a layer whose anchor is a "
		    "gradient (attention backward) kernel. Loss ops flag the layer that holds them; in "
		    "training an `ArgMax` belongs to the loss, not to sampling.\n\n");
	else if (strcmp(method, "period") == 0)
		pf("Layers here are repeats of a block of kernels (no attention kernel): they are "
		    "listed as Dense only because they hold no MoE marker; no transformer layer is "
		    "implied.\n\n");
	else
		pf("Dense: no `MoeGatingTopK`, `DispatchFFNCombine` or `GroupedMatmul`. MoE+DFC: "
		    "`DispatchFFNCombine` present. MoE+GMM: `GroupedMatmul` (with alltoallv), no DFC. "
		    "Decode: the layer's FIA is a decode FIA. Sampling ops (`ArgMax`, `rejection_*`) flag "
		    "the layer that holds them.\n\n");
	row(4, "Layer type", "Layer range", "Count", "Characteristics");
	sep("llrl");
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);
		char c[64];

		tb.len = 0;
		characteristics(&tb, t);
		snprintf(c, sizeof c, "%s", permb(gi(t, "layers")));
		row(4, tdisplay(gs(t, "layer_type")), gs(t, "layer_ranges"), c, tb.p);
		jv_free(t);
	}
	pf("\n");
	/* Sampling layers. */
	tb.len = 0;
	for (int i = 0, n = 0; i < P.nl; i++) {
		const struct lay *l = &P.l[i];

		if (l->samp && n++ < 20) {
			char s[64];

			snprintf(s, sizeof s, "%s%d (%s)", n > 1 ? ", " : "", i, tdisplay(l->type));
			buf_adds(&tb, s);
		}
	}
	pf("Layers with %s ops: %s%s.\n\n", train ? "loss" : "sampling", tb.len ? tb.p : "none",
	    P.nl < gi(P.summary, "layers") ? " (among the layers recorded)" : "");
}

static void
s5_checks(void)
{
	int bad = 0, n = len(P.checks), idle = 0;

	pf("## 5. Cross-Verification Table\n\n");
	if (n == 0) {
		pf("Not available: %s.\n\n", !determ && gi(P.summary, "kernels") ?
		    "no layer structure was determined, so there is nothing to cross-verify" :
		    "no layer was found");
		return;
	}
	row(7, "Pass", "Check", "Expected layers", "Observed layers", "Kernels", "Status", "Note");
	sep("rlrrrll");
	for (int i = 0; i < n; i++) {
		jv c = at(P.checks, i);
		const char *st = gs(c, "status");
		static const struct { const char *k, *v; } cn[] = {
			{ "fia_equals_layers", "FIA count = layer count" },
			{ "dfc_equals_moe_dfc", "`DispatchFFNCombine` = MoE+DFC layers" },
			{ "grouped_matmul_equals_moe_gmm_decode", "`GroupedMatmul` = MoE+GMM + decode layers" },
			{ "gating_equals_moe", "`MoeGatingTopK` = all MoE layers" },
			{ "backward_equals_forward", "backward layers = forward layers (micro-batch)" },
		};
		const char *label = gs(c, "check");

		for (size_t k = 0; k < sizeof cn / sizeof cn[0]; k++)
			if (strcmp(cn[k].k, label) == 0)
				label = cn[k].v;
		bad += strcmp(st, "mismatch") == 0;
		/* Only checks that had something to test count as agreeing. */
		if (gb(c, "tested") == 0 || strcmp(st, "not_applicable") == 0)
			idle++;
		row(7, num(gi(c, "pass")), label, num(gi(c, "expected_layers")),
		    num(gi(c, "observed_layers")), num(gi(c, "kernels")),
		    strcmp(st, "mismatch") == 0 ? "**mismatch**" : st, gs(c, "note"));
		jv_free(c);
	}
	pf("\n");
	if (O.n) {
		int64_t all = 0;

		tb.len = 0;
		for (int i = 0; i < 5; i++)
			if (O.ck[i]) {
				char s[64];

				snprintf(s, sizeof s, "%s%lld %s", tb.len ? ", " : "", (long long)O.ck[i],
				    ckst[i]);
				buf_adds(&tb, s);
				all += O.ck[i];
			}
		pf("The %lld checks of the %lld passes not listed: %s.\n\n", (long long)all,
		    (long long)O.n, tb.len ? tb.p : "none");
		bad += (int)O.ck[3];
		n += (int)all;
		idle += (int)O.ck[4];
	}
	if (bad)
		pf("**%d discrepanc%s** between op counts and the layer classification; each is "
		    "stated in its note.\n\n", bad, bad == 1 ? "y" : "ies");
	else if (n - idle == 0)
		pf("No check had anything to test (%d not applicable or none expected, none found): the "
		    "layer classification is not cross-verified.\n\n", n);
	else
		pf("**All %d checks that tested something agree** with the layer classification "
		    "(multiples are explained in the notes)%s.\n\n", n - idle,
		    idle ? "; the others had nothing to test" : "");
}

static void
tree(jv t)
{
	jv tpl = get(t, "template");
	int n = len(tpl), i = 0;

	pf("```\n%s layer (template from layer %lld: %d kernels, mean wall %s)\n",
	    tdisplay(gs(t, "layer_type")), (long long)gi(t, "first_layer"), n, ms(gi(t, "wall_mean_ns")));
	while (i < n) {
		jv k0 = at(tpl, i);
		char role[64];
		int j = i, last;
		int64_t sum = 0;

		snprintf(role, sizeof role, "%s", gs(k0, "role"));
		jv_free(k0);
		for (; j < n; j++) {
			jv k = at(tpl, j);
			int same = strcmp(gs(k, "role"), role) == 0;

			if (same)
				sum += gi(k, "dur_mean_ns");
			jv_free(k);
			if (!same)
				break;
		}
		last = j >= n;
		pf("%s %s (%d kernel%s, %s)\n", last ? "└─" : "├─", role, j - i, j - i > 1 ? "s" : "", ms(sum));
		for (int q = i; q < j; q++) {
			jv k = at(tpl, q);

			if (q - i == 8 && j - q > 1) {
				int64_t rest = 0;

				for (int z = q; z < j; z++) {
					jv kz = at(tpl, z);

					rest += gi(kz, "dur_mean_ns");
					jv_free(kz);
				}
				pf("%s  └─ ... %d more kernels, %s\n", last ? " " : "│", j - q, ms(rest));
				jv_free(k);
				break;
			}
			pf("%s  %s %s  %s  [%s]%s\n", last ? " " : "│", q == j - 1 ? "└─" : "├─",
			    mdv(gs(k, "name")), ms(gi(k, "dur_mean_ns")), mdv(streamlabel(gs(k, "stream"))),
			    strcmp(gs(k, "class"), "compute") ? (strcmp(gs(k, "class"), "comm") ? " AI_CPU" : " comm") : "");
			jv_free(k);
		}
		i = j;
	}
	if (n == 0)
		pf("└─ (no kernels)\n");
	pf("```\n\n");
	jv_free(tpl);
}

static void
roletable(jv t, int top)
{
	jv roles = get(t, "roles");
	int n = len(roles) < 64 ? len(roles) : 64, used[64] = { 0 };

	row(6, "Component", "Kernels (all layers)", "Wall time per layer", "Wall time, all layers",
	    "Share of layer", "Stream(s)");
	sep("lrrrrl");
	for (int k = 0; k < n && k < top; k++) {
		int best = -1;
		int64_t bw = -1;

		for (int i = 0; i < n; i++) {
			jv r = at(roles, i);

			if (!used[i] && gi(r, "wall_ns") > bw) {
				bw = gi(r, "wall_ns");
				best = i;
			}
			jv_free(r);
		}
		used[best] = 1;
		jv r = at(roles, best), st = get(r, "streams");

		tb.len = 0;
		for (int i = 0; i < len(st); i++) {
			jv s = at(st, i);

			if (i)
				buf_adds(&tb, ", ");
			buf_adds(&tb, code(streamlabel(jv_string_value(s))));
			jv_free(s);
		}
		row(6, gs(r, "role"), num(gi(r, "kernels")), ms(gi(r, "wall_per_layer_ns")),
		    ms(gi(r, "wall_ns")), pct(gi(r, "wall_ns"), gi(t, "wall_sum_ns")), tb.p ? tb.p : "");
		jv_free(st);
		jv_free(r);
	}
	row(6, "**Layer wall (first kernel start to last kernel end)**", num(gi(t, "kernels")),
	    ms(gi(t, "wall_mean_ns")), ms(gi(t, "wall_sum_ns")), "100.0 %", "all");
	pf("\n");
	jv_free(roles);
}

static void
s6_sub(void)
{
	pf("## 6. Per-Layer Sub-Structure\n\n");
	if (len(P.types) == 0) {
		pf("Not available: %s.\n\n", nolayer());
		return;
	}
	pf("For each layer type: the kernel sequence of its template layer (the first layer of the "
	    "type; durations are means over the layers that match it), kernels grouped by role, "
	    "then the wall time per role: the union of the role's kernel intervals in each layer, "
	    "summed over the layers of the type. Shares are of the layer wall; roles on other "
	    "streams overlap the main stream, so shares can add up past 100 %%.\n\n");
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i), an = get(t, "anomalies");

		pf("### 6.%d %s — %s (%s)\n\n", i + 1, tdisplay(gs(t, "layer_type")),
		    permb(gi(t, "layers")), gs(t, "layer_ranges"));
		pf("%lld of %lld layers match the template kernel sequence; %lld deviate%s%s.\n\n",
		    (long long)gi(t, "matched_layers"), (long long)gi(t, "layers"),
		    (long long)gi(t, "deviating_layers"), gi(t, "deviating_layers") == 1 ? "s" : "",
		    strcmp(gs(t, "template_truncated"), "true") == 0 ? " (template truncated)" : "");
		tree(t);
		roletable(t, 64);
		pf("Anomalies:\n\n");
		if (len(an) == 0)
			pf("- none detected\n");
		for (int j = 0; j < len(an); j++) {
			jv a = at(an, j);

			pf("- %s\n", mdt(jv_string_value(a), 0));
			jv_free(a);
		}
		pf("\n");
		jv_free(an);
		jv_free(t);
	}
}

static void
s7_decode(void)
{
	jv d = typerec("decode");

	pf("## 7. Decode Phase Analysis\n\n");
	if (train) {
		pf("Not applicable: training capture (forward, backward and optimizer phases); there is "
		    "no decode.\n\n");
		jv_free(d);
		return;
	}
	if (!fia && has(P.summary, "method") && (!determ || strcmp(method, "period") == 0)) {
		pf("Not applicable: no attention kernels, so there is no prefill or decode to tell "
		    "apart and no decode is claimed.\n\n");
		jv_free(d);
		return;
	}
	if (!fia) {
		pf("Not available: without FIA kernels prefill and decode cannot be told apart.\n\n");
		jv_free(d);
		return;
	}
	if (!jv_is_valid(d)) {
		pf("**No decode FIA detected**: the capture is prefill-only (inference or prefill "
		    "capture scope); the decode phase analysis is omitted.\n\n");
		return;
	}
	int64_t wall = gi(d, "wall_sum_ns"), comm = rolewall(d, "ep_comm") + rolewall(d, "tp_comm");
	int64_t att = rolewall(d, "attention");
	int64_t kpl = gi(d, "kernels") / (gi(d, "layers") ? gi(d, "layers") : 1);
	int64_t kmean = gi(d, "kernels") ? gi(d, "kernel_sum_ns") / gi(d, "kernels") : 0;

	pf("Dominant costs of a decode layer (%lld decode layers):\n\n", (long long)gi(d, "layers"));
	roletable(d, 6);
	row(5, "Phase", "FIA kernels", "Mean FIA", "Mean layer wall", "FIA share of layer");
	sep("lrrrr");
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);

		row(5, tdisplay(gs(t, "layer_type")), num(gi(t, "layers")), ms(gi(t, "anchor_mean_ns")),
		    ms(gi(t, "wall_mean_ns")), pct(gi(t, "anchor_mean_ns"), gi(t, "wall_mean_ns")));
		jv_free(t);
	}
	pf("\n");
	if (has(P.summary, "fia_prefill_mean_ns"))
		pf("FIA drops from %s (prefill mean) to %s (decode mean), **%sx shorter**. ",
		    ms(gi(P.summary, "fia_prefill_mean_ns")), ms(gi(P.summary, "fia_decode_mean_ns")),
		    ratio(gi(P.summary, "fia_prefill_mean_ns"), gi(P.summary, "fia_decode_mean_ns")));
	pf("In a decode layer communication (TP + EP) takes %s of the layer wall against %s for "
	    "attention", pct(comm, wall), pct(att, wall));
	if (comm > att)
		pf(": the decode profile is **communication-dominated%s**", rolewall(d, "ep_comm") > rolewall(d, "tp_comm") ? " (all-to-all)" : "");
	pf(". A decode layer runs %lld kernels of %s mean duration", (long long)kpl, ms(kmean));
	if (kmean < 50000)
		pf(": it is **latency-bound** (launch and synchronisation costs rival the compute)");
	pf(". ");
	if (gi(P.summary, "dfc") && rolewall(d, "expert_ffn") > 0)
		pf("Expert compute shifts from the fused `DispatchFFNCombine` of prefill to explicit "
		    "`GroupedMatmul` with alltoallv in decode.");
	pf("\n\n");
	jv_free(d);
}

static void
diagram(jv best)
{
	jv tpl = get(best, "template");
	int64_t span = 1;
	char lanes[16][WIDTH + 1], names[16][64];
	int nl = 0;

	for (int i = 0; i < len(tpl); i++) {
		jv k = at(tpl, i);

		if (gi(k, "offset_mean_ns") + gi(k, "dur_mean_ns") > span)
			span = gi(k, "offset_mean_ns") + gi(k, "dur_mean_ns");
		jv_free(k);
	}
	for (int i = 0; i < len(tpl); i++) {
		jv k = at(tpl, i);
		const char *st = streamlabel(gs(k, "stream"));
		const char *cl = gs(k, "class");
		int l;
		/* UTF-8 glyphs do not fit a char lane: letters, drawn below. */
		char g = strcmp(cl, "comm") == 0 ? 'c' : strcmp(cl, "ai_cpu") == 0 ? 'a' : 'x';

		for (l = 0; l < nl; l++)
			if (strcmp(names[l], st) == 0)
				break;
		if (l == nl && nl < 16) {
			snprintf(names[nl], sizeof names[nl], "%s", st);
			memset(lanes[nl], ' ', WIDTH);
			lanes[nl][WIDTH] = '\0';
			nl++;
		}
		if (l < nl) {
			int a = (int)(gi(k, "offset_mean_ns") * WIDTH / span);
			int b = (int)((gi(k, "offset_mean_ns") + gi(k, "dur_mean_ns")) * WIDTH / span);

			if (b <= a)
				b = a + 1;
			for (int c = a; c < b && c < WIDTH; c++)
				lanes[l][c] = g;
		}
		jv_free(k);
	}
	pf("Pipeline of one %s layer (template, %s from its first kernel start; one column = %s):\n\n",
	    tdisplay(gs(best, "layer_type")), ms(span), ms(span / WIDTH));
	pf("```\n");
	for (int l = 0; l < nl; l++) {
		pf("%-28s │", mdv(names[l]));
		for (int c = 0; c < WIDTH; c++)
			pf("%s", lanes[l][c] == 'x' ? "█" : lanes[l][c] == 'c' ? "▒" : lanes[l][c] == 'a' ? "░" : " ");
		pf("│\n");
	}
	pf("%-28s └", "");
	for (int c = 0; c < WIDTH; c++)
		pf("─");
	pf("┘\n%-28s  0%*s%s\n", "", WIDTH - 1, "", ms(span));
	pf("█ compute   ▒ communication   ░ AI CPU\n```\n\n");
	jv_free(tpl);
}

/* Is a comm op gradient traffic: a dp reduce-scatter / all-gather, an embd all-reduce? */
static int
isgrad(const char *role, const char *op)
{
	return strcmp(role, "embd_comm") == 0 || (strcmp(role, "dp_comm") == 0 &&
	    (strcasestr(op, "reducescatter") || strcasestr(op, "allgather")));
}

/* Do the comm records of a profile without kernels hold gradient traffic? */
static int
commgrad(void)
{
	jv ops = get(P.summary, "comm_ops");
	int grad = 0;

	for (int i = 0; i < len(ops); i++) {
		jv c = at(ops, i);

		grad |= isgrad(gs(c, "role"), gs(c, "op"));
		jv_free(c);
	}
	jv_free(ops);
	return grad;
}

/* No device kernels: what communication.json says this rank communicated. */
static void
s8_commops(void)
{
	jv ops = get(P.summary, "comm_ops");
	int grad = commgrad();

	if (len(ops) == 0) {
		pf("Not available: no device kernels.\n\n");
		jv_free(ops);
		return;
	}
	pf("No device kernels, so no stream, overlap or pipeline can be shown. The comm records "
	    "(communication.json) show what this rank communicated:\n\n");
	row(6, "Op", "Group", "Role", "Role from", "Ops", "Elapsed (sum)");
	sep("llllrr");
	for (int i = 0; i < len(ops); i++) {
		jv c = at(ops, i);
		char r[160];
		const char *role = gs(c, "role"), *op = gs(c, "op");

		if (has(c, "parallel_group"))
			snprintf(r, sizeof r, "%s (%s)", gs(c, "parallel_group"), role);
		else
			snprintf(r, sizeof r, "%s", role);
		row(6, code(op), code(gs(c, "group")), r, rolefrom(c), num(gi(c, "ops")),
		    ms(gi(c, "elapse_ns")));
		jv_free(c);
	}
	pf("\n");
	if (grad)
		pf("A data-parallel reduce-scatter / all-gather or an embedding-gradient all-reduce is "
		    "gradient traffic: the comm records show a training step, whose layers the missing "
		    "kernels would show.\n\n");
	jv_free(ops);
}

static void
s8_comm(void)
{
	jv S = P.summary;

	pf("## 8. Communication Pipeline Structure\n\n");
	if (len(P.streams) == 0) {
		s8_commops();
		return;
	}
	row(8, "Stream", "Role", "Kernels", "Kernel sum", "Busy (union)",
	    "Overlap with compute on other streams", "Hidden share", "First kernel");
	sep("llrrrrrl");
	for (int i = 0; i < len(P.streams); i++) {
		jv s = at(P.streams, i);
		char h[32];

		snprintf(h, sizeof h, "%s", pct(gi(s, "overlap_compute_ns"), gi(s, "busy_ns")));
		row(8, code(streamlabel(gs(s, "label"))), gs(s, "role"), num(gi(s, "kernels")),
		    ms(gi(s, "kernel_sum_ns")), ms(gi(s, "busy_ns")), ms(gi(s, "overlap_compute_ns")), h,
		    gs(s, "first_kernel")[0] ? code(gs(s, "first_kernel")) : "none");
		jv_free(s);
	}
	pf("\nCommunication kernels carry no stream id in kernel_details: they are grouped by "
	    "family (HCCL collectives, all-to-all).\n\n");
	if (len(P.comms)) {
		const char *src = NULL;
		int mixed = 0;

		pf("Communication roles (dp / tp / pp / ep / cp), by op and group:\n\n");
		row(10, "Op", "Group", "Role", "Role from", "Kernels", "Kernel sum", "Forward",
		    "Backward", "Gradient sync", "Optimizer");
		sep("llllrrrrrr");
		for (int i = 0; i < len(P.comms); i++) {
			jv c = at(P.comms, i);

			char rl[128];

			if (gs(c, "parallel_group")[0])	/* the named group, then its role */
				snprintf(rl, sizeof rl, "%s (%s)", gs(c, "parallel_group"), gs(c, "role"));
			else
				snprintf(rl, sizeof rl, "%s", gs(c, "role"));
			row(10, code(gs(c, "op")), gs(c, "group")[0] ? code(gs(c, "group")) : "unknown",
			    rl, rolefrom(c), num(gi(c, "kernels")),
			    ms(gi(c, "kernel_sum_ns")), num(gi(c, "forward_kernels")),
			    num(gi(c, "backward_kernels")), num(gi(c, "gradient_sync_kernels")),
			    num(gi(c, "optimizer_kernels")));
			if (src == NULL)
				src = xstrdup(gs(c, "role_source"));
			else
				mixed |= strcmp(src, gs(c, "role_source")) != 0;
			jv_free(c);
		}
		pf("\n");
		if (!mixed)
			pf("Where the roles come from: %s.", srctext(src));
		else
			pf("Where the roles come from: per row (metadata_group: the kernel's group in "
			    "parallel_group_info; inferred: the named group of parallel_group_info its "
			    "comm group matched by size and what its ops do, not read; metadata_dims: the only parallel dimension with more than "
			    "one rank; position: a collective after the gradient kernels; name: op names only, "
			    "a fallback).");
		if (src && strcmp(src, "metadata_dims") == 0 && !mixed)
			pf(" The kernels' communication groups (communication.json) are not keys of "
			    "parallel_group_info here, so no kernel is linked to its group; the role follows "
			    "from the dimensions alone.");
		{
			jv g = get(P.summary, "parallel_groups");

			tb.len = 0;
			for (int i = 0; i < len(g); i++) {
				jv x = at(g, i);

				if (!has(x, "role") && gi(x, "ranks") > 1) {
					buf_adds(&tb, tb.len ? ", " : "");
					buf_adds(&tb, code(gs(x, "name")));
				}
				jv_free(x);
			}
			if (tb.len && src && strcmp(src, "metadata_dims") == 0)
				pf(" Groups without a dp/tp/pp/ep/cp name (%s) have more than one rank too: "
				    "collectives of the optimizer phase (gradient norm, overflow checks) may run "
				    "in them rather than in dp.", tb.p);
			jv_free(g);
		}
		if (gb(P.summary, "parallel_metadata") != 1)
			pf(" No parallel_group_info was found beside the profile (no profiler_metadata.json, "
			    "or none in it), so "
			    "the roles are %s.", mixed || strcmp(src, "name") != 0 ?
			    "inferred from names and position, not measured" : "inferred from op names only");
		pf("\n\n");
		free((char *)src);
	}
	if (gi(S, "comm_busy_ns") == 0)
		pf("**No communication kernels**: there is no comm/compute overlap to measure; the stream "
		    "roles above are still documented.\n\n");
	else
		pf("Communication busy %s (union), compute busy %s; their intersection is %s, so "
		    "**%s of communication is hidden** behind compute and %s is exposed.\n\n",
		    ms(gi(S, "comm_busy_ns")), ms(gi(S, "compute_busy_ns")), ms(gi(S, "comm_overlap_ns")),
		    pct(gi(S, "comm_overlap_ns"), gi(S, "comm_busy_ns")),
		    ms(gi(S, "comm_busy_ns") - gi(S, "comm_overlap_ns")));
	pf("kernel_sum vs wall: the kernels add up to %s, the device is busy %s (union of all "
	    "streams) over a span of %s. kernel_sum / busy = **%s**: ",
	    ms(gi(S, "kernel_sum_ns")), ms(gi(S, "busy_ns")), ms(gi(S, "span_ns")),
	    ratio(gi(S, "kernel_sum_ns"), gi(S, "busy_ns")));
	if (gi(S, "kernel_sum_ns") > gi(S, "busy_ns") + gi(S, "busy_ns") / 20)
		pf("kernels on different streams run at the same time (communication and AI CPU "
		    "streams under the main compute stream), so kernel_sum exceeds wall time and must "
		    "not be read as elapsed time.\n\n");
	else
		pf("little concurrency: kernel_sum is close to the busy time; the streams mostly take "
		    "turns.\n\n");
	if (len(P.types) == 0)
		pf("No pipeline diagram: no layer template.\n\n");
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);

		diagram(t);
		jv_free(t);
	}
}

static void
s9_variation(void)
{
	pf("## 9. Layer-to-Layer Variation\n\n");
	if (len(P.types) == 0) {
		pf("Not available: %s.\n\n", nolayer());
		return;
	}
	row(9, "Layer type", "Layers", "Kernels per layer (template)", "Mean wall", "Min wall",
	    "Max wall", "Std dev", "CV", "Matching the template");
	sep("lrrrrrrrr");
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);
		char m[64];

		snprintf(m, sizeof m, "%lld of %lld layers", (long long)gi(t, "matched_layers"),
		    (long long)gi(t, "layers"));
		row(9, tdisplay(gs(t, "layer_type")), num(gi(t, "layers")), num(gi(t, "template_kernels")),
		    ms(gi(t, "wall_mean_ns")), ms(gi(t, "wall_min_ns")), ms(gi(t, "wall_max_ns")),
		    ms(gi(t, "wall_stddev_ns")), gs(t, "wall_cv")[0] ? gs(t, "wall_cv") : "n/a", m);
		jv_free(t);
	}
	pf("\n");
	if (len(P.passes) < 2) {
		pf("Single pass: no cross-pass comparison.\n\n");
		return;
	}
	/* Mean wall per type per pass. */
	int nt = len(P.types) < 8 ? len(P.types) : 8;

	buf_adds(&R, "| Pass |");
	for (int i = 0; i < nt; i++) {
		jv t = at(P.types, i);

		pf(" %s mean wall |", tdisplay(gs(t, "layer_type")));
		jv_free(t);
	}
	buf_adds(&R, "\n| ---: |");
	for (int i = 0; i < nt; i++)
		buf_adds(&R, " ---: |");
	buf_addc(&R, '\n');
	int64_t skipped = 0;

	for (int p = 0; p < len(P.passes); p++) {
		jv q = at(P.passes, p);
		int64_t pn = gi(q, "pass"), any = 0;

		jv_free(q);
		for (int l = 0; l < P.nl && !any; l++)
			any = P.l[l].pass == pn;
		if (!any && npasses() != len(P.passes)) {
			skipped++;
			continue;
		}
		pf("| %lld |", (long long)pn);
		for (int i = 0; i < nt; i++) {
			jv t = at(P.types, i);
			const char *ty = gs(t, "layer_type");
			int64_t sum = 0, n = 0;

			for (int l = 0; l < P.nl; l++)
				if (P.l[l].pass == pn && strcmp(P.l[l].type, ty) == 0) {
					sum += P.l[l].wall;
					n++;
				}
			pf(" %s |", n ? ms(sum / n) : "n/a");
			jv_free(t);
		}
		buf_addc(&R, '\n');
	}
	pf("\n");
	if (skipped || O.n)
		pf("Passes without recorded layers are not shown (%lld of %lld).\n\n",
		    (long long)(skipped + O.n), (long long)npasses());
}

/* A line of the model box: UTF-8 aware padding to 56 columns. */
static void
boxline(const char *t)
{
	int cols = 0;

	for (const char *c = t; *c; c++)
		cols += ((unsigned char)*c & 0xc0) != 0x80;
	pf("│ %s", t);
	for (; cols < 56; cols++)
		buf_addc(&R, ' ');
	pf(" │\n");
}

static void
s10_summary(void)
{
	jv S = P.summary;

	pf("## 10. Model Architecture Summary\n\n");
	if (P.nl == 0) {
		pf("Not available: %s.\n\n", !determ && gi(S, "kernels") ?
		    "no layer structure was determined (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched); "
		    "section 2 describes the capture's op families and phases" : "no layer was found");
		if (!determ && gi(S, "kernels")) {
			tb.len = 0;
			phasetext(&tb);
			pf("Key findings:\n\n- %s capture; layers and passes **could not be determined**.\n",
			    train ? "Training" : "Inference (or forward-only)");
			if (tb.len)
				pf("- Phases: %s.\n", tb.p);
			pf("- Forward stages: %s.\n", gs(S, "forward_stages")[0] ? gs(S, "forward_stages") : "none");
			tb.len = 0;
			commtext(&tb, 0);
			if (tb.len)
				pf("- Communication: %s.\n", tb.p);
			pf("\n");
		}
		return;
	}
	/* Model diagram: runs of layer types in pass 0. */
	jv p0 = at(P.passes, 0);
	int64_t l0 = gi(p0, "layer_first"), l1 = gi(p0, "layer_last"), lr = l1;

	if (lr >= P.nl)
		lr = P.nl - 1;		/* the layers recorded */

	pf("```\n┌──────────────────────────────────────────────────────────┐\n");
	{
		char t[128];

		snprintf(t, sizeof t, "Forward pass: %lld layers (pass 0)", (long long)(l1 - l0 + 1));
		boxline(t);
		pf("├──────────────────────────────────────────────────────────┤\n");
		for (int64_t i = l0; i <= lr;) {
			char ty[32];
			int64_t j = i, samp = 0;

			snprintf(ty, sizeof ty, "%s", layer(i)->type);
			for (; j <= lr; j++) {
				const struct lay *M = layer(j);
				int same = strcmp(M->type, ty) == 0;

				if (same && M->samp)
					samp++;
				if (!same)
					break;
			}
			if (j - 1 == i)
				snprintf(t, sizeof t, "layer %lld", (long long)i);
			else
				snprintf(t, sizeof t, "layers %lld-%lld", (long long)i, (long long)(j - 1));
			char line[256];

			snprintf(line, sizeof line, "%-16s %-18s x%-4lld%s", t, tdisplay(ty),
			    (long long)(j - i), !samp ? "" : train ? " + loss" : " + sampling");
			boxline(line);
			if (j <= lr)
				boxline("        │");
			i = j;
		}
		if (lr < l1) {
			snprintf(t, sizeof t, "... %lld more layers not recorded", (long long)(l1 - lr));
			boxline("        │");
			boxline(t);
		}
	}
	pf("└──────────────────────────────────────────────────────────┘\n");
	if (train && isnum(S, "micro_batches"))
		pf("  x %lld micro-batch%s, each with a backward pass of %s layers\n",
		    (long long)gi(S, "micro_batches"), gi(S, "micro_batches") == 1 ? "" : "es",
		    isnum(S, "backward_layers_per_micro_batch") ?
		    num(gi(S, "backward_layers_per_micro_batch")) : "varying");
	else if (npasses() > 1)
		pf("  x %lld passes\n", (long long)npasses());
	pf("```\n\n");
	jv_free(p0);

	/* Per-pass execution timeline. */
	pf("Per-pass execution timeline (one column = 1/%d of the pass wall time; D Dense, "
	    "M MoE+DFC, G MoE+GMM, m MoE, d Decode, %s. before the first layer):\n\n```\n", WIDTH,
	    train ? "B Backward, " : "");
	for (int p = 0; p < len(P.passes); p++) {
		jv q = at(P.passes, p);
		int64_t s = gi(q, "start_ns"), e = gi(q, "end_ns"), w = e - s > 0 ? e - s : 1;
		int64_t a = gi(q, "layer_first"), b = gi(q, "layer_last");
		char line[WIDTH + 1];

		if (p == onpass && O.n)
			pf("... %lld passes not listed\n", (long long)O.n);
		if (b >= P.nl)
			b = P.nl - 1;
		if (a > b) {
			pf("pass %-3lld (layers not recorded)%*s  %s\n", (long long)gi(q, "pass"),
			    WIDTH - 21, "", ms(gi(q, "wall_ns")));
			jv_free(q);
			continue;
		}
		for (int c = 0; c < WIDTH; c++) {
			int64_t mid = s + (w * (2 * c + 1)) / (2 * WIDTH);
			char ch = '.';

			for (int64_t l = a; l <= b; l++)
				if (P.l[l].start <= mid)
					ch = tletter(P.l[l].type);
			line[c] = ch;
		}
		line[WIDTH] = '\0';
		pf("pass %-3lld %s  %s\n", (long long)gi(q, "pass"), line, ms(gi(q, "wall_ns")));
		jv_free(q);
	}
	pf("```\n\n");
	pf("Key findings:\n\n");
	tb.len = 0;
	{
		jv lt = get(S, "layer_types");

		typecounts(&tb, lt);
		jv_free(lt);
	}
	if (train) {
		jv opt = get(S, "optimizer");

		if (gb(S, "layers_agree") == 1)
			pf("- Training step: **%lld micro-batch%s x %lld layers**%s (%lld forward, %lld backward "
			    "layers, which agree), found by %s; confidence %s.\n",
			    (long long)gi(S, "micro_batches"), gi(S, "micro_batches") == 1 ? "" : "es",
			    (long long)gi(S, "layers_per_micro_batch"),
			    stagetext(gi(S, "layers_per_micro_batch")), (long long)gi(S, "forward_layers"),
			    (long long)gi(S, "backward_layers"), methodtext(), gs(S, "confidence"));
		else
			pf("- Training step: %lld forward and %lld backward layers that do not pair up; "
			    "micro-batches not determinable; confidence %s.\n",
			    (long long)gi(S, "forward_layers"), (long long)gi(S, "backward_layers"),
			    gs(S, "confidence"));
		if (jv_get_kind(opt) == JV_KIND_OBJECT)
			pf("- Optimizer step: %s, %lld kernels, %s wall.\n", code(gs(opt, "first_kernel")),
			    (long long)gi(opt, "kernels"), ms(gi(opt, "wall_ns")));
		jv_free(opt);
		tb.len = 0;
		joincode(&tb, S, "loss_ops");
		pf("- Loss ops: %s.\n", tb.len ? tb.p : "none on this rank");
	} else if (strcmp(method, "period") == 0)
		pf("- Probably %lld layers in %lld pass%s (a repeating block of kernels); confidence %s.\n",
		    (long long)gi(S, "layers"), (long long)gi(S, "passes"), gi(S, "passes") == 1 ? "" : "es",
		    gs(S, "confidence"));
	else
		pf("- **%lld layers** in **%lld pass%s** (%s), found by %s; confidence %s.\n",
		    (long long)gi(S, "layers"), (long long)gi(S, "passes"), gi(S, "passes") == 1 ? "" : "es",
		    tb.p ? tb.p : "", methodtext(), gs(S, "confidence"));
	if (fia)
		pf("- FIA: %lld prefill (mean %s), %lld decode (mean %s), %lld ambiguous.\n",
		    (long long)gi(S, "fia_prefill"),
		    has(S, "fia_prefill_mean_ns") ? ms(gi(S, "fia_prefill_mean_ns")) : "n/a",
		    (long long)gi(S, "fia_decode"),
		    has(S, "fia_decode_mean_ns") ? ms(gi(S, "fia_decode_mean_ns")) : "n/a",
		    (long long)gi(S, "fia_ambiguous"));
	pf("- Communication: %s busy, %s hidden behind compute; kernel_sum / busy = %s.\n",
	    ms(gi(S, "comm_busy_ns")), pct(gi(S, "comm_overlap_ns"), gi(S, "comm_busy_ns")),
	    ratio(gi(S, "kernel_sum_ns"), gi(S, "busy_ns")));
	if (train && len(P.comms)) {
		tb.len = 0;
		commtext(&tb, 0);
		pf("- Communication roles: %s.\n", tb.p);
	}
	{
		int64_t sum;

		tb.len = 0;
		betweentext(&tb, &sum);
		if (tb.len)
			pf("- Between passes, not in the layer or pass walls: %s.\n", tb.p);
	}
	pf("\n");
}

/* Report assembly and saving ----------------------------------------- */

/* The profile's name as a file name part: [A-Za-z0-9._-], and a name
 * too long for a directory entry cut to its head and a hash of it all. */
static void
sanitize(char *s)
{
	uint32_t h = 2166136261u;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	for (char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	if (n > 180)
		snprintf(s + 160, n - 160 + 1, "~%08x", h);
}

/* The biggest finding first, for a training capture or one without layers. */
static void
headline(void)
{
	jv S = P.summary, opt = get(S, "optimizer");

	if (!has(S, "phase") || gi(S, "kernels") == 0 || (!train && determ && strcmp(method, "period") != 0)) {
		jv_free(opt);
		return;
	}
	pf("**In short:** ");
	if (!determ)
		pf("a%s capture whose layer structure **could not be determined** (no attention kernel, "
		    "no block of forward kernels repeated 3 times; backward kernels are not searched); section 2 describes its op families, stages "
		    "and phases instead", train ? " training" : "n inference");
	else if (strcmp(method, "period") == 0) {
		jv pd = get(S, "period");

		if (isnum(S, "layers_per_pass"))
			pf("probably %lld pass%s of %lld layers each (%lld layers: a block of %lld kernels "
			    "repeated), low confidence; no attention kernel, so no transformer structure is "
			    "claimed", (long long)gi(S, "passes"), gi(S, "passes") == 1 ? "" : "es",
			    (long long)gi(S, "layers_per_pass"), (long long)gi(S, "layers"),
			    (long long)gi(pd, "kernels"));
		else
			pf("probably %lld layers (a block of %lld kernels repeated), low confidence; no "
			    "attention kernel, so no transformer structure is claimed",
			    (long long)gi(S, "layers"), (long long)gi(pd, "kernels"));
		jv_free(pd);
	}
	else if (gb(S, "layers_agree") == 1)
		pf("a training step: **%lld micro-batch%s of %lld layers**%s, %lld forward and %lld "
		    "backward layers that agree", (long long)gi(S, "micro_batches"),
		    gi(S, "micro_batches") == 1 ? "" : "es", (long long)gi(S, "layers_per_micro_batch"),
		    stagetext(gi(S, "layers_per_micro_batch")),
		    (long long)gi(S, "forward_layers"), (long long)gi(S, "backward_layers"));
	else
		pf("a training step with %lld forward and %lld backward layers that do not pair up: "
		    "the micro-batches could not be determined", (long long)gi(S, "forward_layers"),
		    (long long)gi(S, "backward_layers"));
	if (train && jv_get_kind(opt) == JV_KIND_OBJECT)
		pf("; optimizer step located (%s, %lld kernels, %s wall)", code(gs(opt, "first_kernel")),
		    (long long)gi(opt, "kernels"), ms(gi(opt, "wall_ns")));
	else if (train)
		pf("; no optimizer kernel in the capture");
	pf(".\n\n");
	jv_free(opt);
}

static void
render(void)
{
	const char *path, *base;
	char *dir;
	jv notes;
	struct stat st;

	R.len = 0;
	path = gs(P.profile, "path");
	if (!*path)
		path = P.name ? P.name : "unknown";
	dir = xstrdup(path);
	while (strlen(dir) > 1 && dir[strlen(dir) - 1] == '/')
		dir[strlen(dir) - 1] = '\0';
	if ((base = strrchr(dir, '/')) != NULL)
		memmove(dir, base + 1, strlen(base));
	if (!*dir) {
		free(dir);
		dir = xstrdup("unknown");
	}
	method = has(P.summary, "method") ? gs(P.summary, "method") : "none";
	method = xstrdup(method);
	fia = strcmp(method, "fia") == 0;
	train = strcmp(gs(P.summary, "phase"), "training") == 0;
	determ = gb(P.summary, "layers_determinable") != 0 && strcmp(method, "none") != 0;
	omitted();
	pf("# Model Architecture Report: %s\n\n", code(dir));
	pf("Reverse-engineered from the device kernels by asc-fia; rendered by asc-archmd. "
	    "Times are exact, in milliseconds (ms) unless stated; shares in percent.\n\n");
	headline();
	notes = get(P.summary, "notes");
	if (len(notes)) {
		pf("Notes on this capture:\n\n");
		for (int i = 0; i < len(notes); i++) {
			jv n = at(notes, i);
			const char *c = jv_string_value(n), *t = c;

			if (strcmp(c, "no_fia_fallback_attention") == 0)
				t = "**No FIA kernels**: layers are delimited by other attention kernels (fallback); reduced confidence in the layer count.";
			else if (strcmp(c, "no_fia_fallback_communication") == 0)
				t = "**No FIA kernels** and no attention kernels: layers are delimited by communication kernels (fallback); reduced confidence in the layer count.";
			else if (strcmp(c, "no_fia_fallback_period") == 0)
				t = "No FIA and no other attention kernels: layers are probably the repeats of a block of forward kernels (fallback); low confidence in the layer count.";
			else if (strcmp(c, "period_search_capped") == 0)
				t = "The repeating block was searched in the first kernels only (fia.period_max_kernels): later kernels are in no layer.";
			else if (strcmp(c, "layers_not_determinable") == 0)
				t = "**No layer structure**: no attention kernel and no block of forward kernels repeated 3 times (backward kernels are not searched for repeats); sections 2 and 8 describe what the capture holds instead.";
			else if (strcmp(c, "no_fia_fallback_step") == 0)
				t = "**No FIA kernels** and no other structural marker: each step is one block (fallback); the layer count is unknown.";
			else if (strcmp(c, "single_pass") == 0)
				t = "Single forward pass: no cross-pass comparison.";
			else if (strcmp(c, "no_decode") == 0)
				t = "No decode FIA: prefill-only capture; decode analysis omitted.";
			else if (strcmp(c, "ambiguous_fia") == 0)
				t = "Some FIA durations lie between the prefill and decode thresholds (ambiguous).";
			else if (strcmp(c, "no_comm") == 0)
				t = "No communication kernels in the capture.";
			else if (strcmp(c, "prologue") == 0)
				t = "Kernels before the first layer anchor are counted in pass 0 (prologue).";
			else if (strcmp(c, "several_devices") == 0)
				t = "Several devices in one profile: this report describes the first.";
			else if (strcmp(c, "no_kernels") == 0)
				t = "**No device kernels** in this profile: the sections below cannot be filled.";
			else if (strcmp(c, "op_stat_only") == 0)
				t = "**Only aggregate op data** (op_statistic): op counts only, no layer sequence trees.";
			else if (strcmp(c, "passes_capped") == 0)
				t = "Many passes: asc-fia recorded the first ones and the last; the others are summarised.";
			else if (strcmp(c, "layers_capped") == 0)
				t = "Many layers: asc-fia recorded those of the first passes only (capped); per-layer views cover those.";
			pf("- %s\n", t);
			jv_free(n);
		}
		pf("\n");
	} else if (!has(P.summary, "method"))
		pf("- **No asc-fia records** for this profile: run `asc-fia` before `asc-archmd`; "
		    "the sections below give the reason they are empty.\n\n");
	jv_free(notes);
	s1_config();
	s2_evidence();
	s3_passes();
	s4_layers();
	s5_checks();
	s6_sub();
	s7_decode();
	s8_comm();
	s9_variation();
	s10_summary();
	free((char *)method);

	/* Save. */
	if (outfile && strcmp(outfile, "-") == 0) {
		fwrite(R.p, 1, R.len, stdout);
	} else if (outfile && stat(outfile, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (-O /dev/null): written in place, never replaced. */
		FILE *fp;

		if (nreports > 0)
			die("%s: several profiles in the stream: use -o dir", outfile);
		if ((fp = fopen(outfile, "w")) == NULL)
			dieerr("%s", outfile);
		if (fwrite(R.p, 1, R.len, fp) != R.len || fclose(fp) != 0)
			dieerr("%s", outfile);
		printf("%s\n", outfile);
	} else {
		char *final, *tmpn;
		int fd;
		FILE *fp;

		if (outfile) {
			if (nreports > 0)
				die("%s: several profiles in the stream: use -o dir", outfile);
			final = xstrdup(outfile);
		} else {
			size_t n = strlen(outdir) + strlen(dir) + 64;

			sanitize(dir);
			final = xmalloc(n);
			snprintf(final, n, "%s/model_architecture_report_%s.md", outdir, dir);
		}
		tmpn = xmalloc(strlen(final) + 16);
		sprintf(tmpn, "%s.XXXXXX", final);
		if ((fd = mkstemp(tmpn)) < 0)
			dieerr("%s", tmpn);
		if (fchmod(fd, 0640) != 0 || (fp = fdopen(fd, "w")) == NULL) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", tmpn);
		}
		if (fwrite(R.p, 1, R.len, fp) != R.len || fflush(fp) != 0 || fsync(fd) != 0) {
			int e = errno;

			fclose(fp);
			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		if (fclose(fp) != 0) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		if (rename(tmpn, final) != 0) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		printf("%s\n", final);
		free(final);
		free(tmpn);
	}
	nreports++;
	free(dir);
}

static void
prof_reset(void)
{
	if (P.have) {
		jv_free(P.profile);
		jv_free(P.summary);
		jv_free(P.passes);
		jv_free(P.checks);
		jv_free(P.last);
		jv_free(P.types);
		jv_free(P.streams);
		jv_free(P.phases);
		jv_free(P.comms);
		free(P.name);
	}
	P.have = 0;
	P.nl = 0;
	P.droppedl = 0;
	memset(&P.drop, 0, sizeof P.drop);
}

static void
prof_new(const char *name)
{
	prof_reset();
	P.have = 1;
	P.profile = jv_object();
	P.summary = jv_object();
	P.passes = jv_array();
	P.checks = jv_array();
	P.last = jv_null();
	P.types = jv_array();
	P.streams = jv_array();
	P.phases = jv_array();
	P.comms = jv_array();
	P.name = xstrdup(name);
}

static void
flush(void)
{
	if (P.have)
		render();
	prof_reset();
}

/* Records kept, or counted (all take v). */
static void
addpass(jv v)
{
	int64_t w;
	jv q;

	if (gi(v, "pass") < NPREC) {
		P.passes = jv_array_append(P.passes, v);
		return;
	}
	/* Past the first passes: the latest is kept as the last. */
	q = P.last;
	P.last = v;
	if (jv_get_kind(q) != JV_KIND_OBJECT) {
		jv_free(q);
		return;
	}
	w = gi(q, "wall_ns");
	if (P.drop.n == 0 || w < P.drop.wmin)
		P.drop.wmin = w;
	if (P.drop.n == 0 || w > P.drop.wmax)
		P.drop.wmax = w;
	P.drop.n++;
	P.drop.wsum += w;
	P.drop.layers += gi(q, "layers");
	P.drop.kernels += gi(q, "kernels");
	jv_free(q);
}

static void
addcheck(jv v)
{
	int64_t p = gi(v, "pass");
	const char *st;

	if (p < NPREC || (jv_get_kind(P.last) == JV_KIND_OBJECT && p == gi(P.last, "pass"))) {
		P.checks = jv_array_append(P.checks, v);
		return;
	}
	st = gs(v, "status");
	for (int i = 0; i < 5; i++)
		if (strcmp(st, ckst[i]) == 0)
			P.drop.ck[i]++;
	jv_free(v);
}

static void
addlayer(jv v)
{
	struct lay *l;
	jv sv;

	if (gi(v, "pass") >= NPREC || gi(v, "layer") != P.nl || P.nl >= NLREC) {
		P.droppedl++;
		jv_free(v);
		return;
	}
	if (P.nl == P.capl) {
		P.capl = P.capl ? 2 * P.capl : 64;
		P.l = xreallocarray(P.l, (size_t)P.capl, sizeof *P.l);
	}
	l = &P.l[P.nl++];
	l->pass = gi(v, "pass");
	l->start = gi(v, "start_ns");
	l->wall = gi(v, "wall_ns");
	snprintf(l->type, sizeof l->type, "%s", gs(v, "layer_type"));
	sv = get(v, "sampling");
	l->samp = jv_get_kind(sv) == JV_KIND_TRUE;
	jv_free(sv);
	sv = get(v, "loss");
	l->samp |= jv_get_kind(sv) == JV_KIND_TRUE;	/* training: the loss in its place */
	jv_free(sv);
	jv_free(v);
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	jv v, pv;
	const char *pn;

	if (!sr_is(t, n, "profile") && !(n > 4 && memcmp(t, "fia_", 4) == 0))
		return 0;
	v = jv_parse_sized(r->line, (int)r->len);
	if (!jv_is_valid(v)) {
		jv_free(v);
		snprintf(r->err, sizeof r->err, "not a JSON object");
		return -1;
	}
	pv = jv_object_get(jv_copy(v), jv_string("profile"));
	if (jv_get_kind(pv) == JV_KIND_STRING)
		pn = jv_string_value(pv);
	else if (jv_get_kind(pv) == JV_KIND_NUMBER) {
		jv_free(pv);
		pv = jv_dump_string(jv_object_get(jv_copy(v), jv_string("profile")), 0);
		pn = jv_string_value(pv);
	} else {
		jv_free(pv);
		jv_free(v);
		snprintf(r->err, sizeof r->err, "record has no \"profile\"");
		return -1;
	}
	if (sr_is(t, n, "profile")) {
		flush();
		prof_new(pn);
		jv_free(P.profile);
		P.profile = v;
		jv_free(pv);
		return 0;
	}
	if (!P.have || strcmp(P.name, pn) != 0) {
		flush();
		prof_new(pn);
	}
	jv_free(pv);
	if (sr_is(t, n, "fia_summary")) {
		if (has(P.summary, "method")) {
			/* A second device of the profile: the first is reported. */
			jv_free(v);
			return 0;
		}
		jv_free(P.summary);
		P.summary = v;
	} else if (sr_is(t, n, "fia_pass"))
		addpass(v);
	else if (sr_is(t, n, "fia_check"))
		addcheck(v);
	else if (sr_is(t, n, "fia_layer"))
		addlayer(v);
	else if (sr_is(t, n, "fia_layer_type") && len(P.types) < MAXREC)
		P.types = jv_array_append(P.types, v);
	else if (sr_is(t, n, "fia_stream") && len(P.streams) < MAXREC)
		P.streams = jv_array_append(P.streams, v);
	else if (sr_is(t, n, "fia_phase") && len(P.phases) < MAXREC + 1)
		P.phases = jv_array_append(P.phases, v);
	else if (sr_is(t, n, "fia_comm") && len(P.comms) < MAXREC)
		P.comms = jv_array_append(P.comms, v);
	else
		jv_free(v);
	return 0;
}

static void
onend(void *arg)
{
	flush();
}

int
main(int argc, char *argv[])
{
	struct sr_filter f = { onrec, onend, NULL, "host", 1, NULL };
	size_t maxline = (size_t)1 << 28;
	int c, kflag = 0, rc;
	struct stat st;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "O:km:o:")) != -1)
		switch (c) {
		case 'O':
			outfile = optarg;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'o':
			outdir = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	if (outfile == NULL) {
		if (stat(outdir, &st) != 0)
			dieerr("%s", outdir);
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			dieerr("%s", outdir);
		}
	}
	rc = sr_run(argc, argv, maxline, kflag, &f);
	xclose_stdout();
	return rc;
}
