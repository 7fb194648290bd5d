/*
 * asc-judge: gather what the analysis stages wrote about a profile (step
 * metrics, bubbles, attribution, op rankings, structures) and decide:
 * write one "anomaly_discovery" record per profile, after its records.
 * The decision tables are the jq program asc-judge.jq, built in.
 */
#define _GNU_SOURCE		/* memmem */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "filter.h"
#include "gather.h"
#include "jqprog.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

/* The built-in jq program, made from asc-judge.jq by the Makefile. */
static const char asc_judge_jq[] =
#include "asc-judge.jq.inc"
;

/*
 * Record types the verdict reads, with their caps: significant bubble
 * windows and their attribution, the longest first; everything else is
 * per step, per group or per op, so bounded by those counts.  Every
 * record passes through.
 */
static struct gather_type kept[] = {
	{ .type = "profile", .cap = 1 },
	{ .type = "warning", .cap = 1000 },
	{ .type = "step_trace" },
	{ .type = "comm", .cap = 20000 },
	{ .type = "comm_op", .cap = 20000 },
	{ .type = "comm_peer", .cap = 20000 },
	{ .type = "comm_op_wait", .cap = 20000 },
	{ .type = "comm_group", .cap = 1000 },
	{ .type = "comm_pipeline", .cap = 1000 },
	{ .type = "step_metrics" },
	{ .type = "bubble", .cap = 2000, .mode = GATHER_LONGEST, .significant = 1 },
	{ .type = "attribution", .cap = 2000, .mode = GATHER_LONGEST, .significant = 1 },
	{ .type = "attribution_summary", .cap = 1 },
	{ .type = "step_groups", .cap = 1 },
	{ .type = "capture_gaps", .cap = 1 },
	{ .type = "op" },
	{ .type = "op_summary", .cap = 1 },
	/* communication kernels (task_type COMMUNICATION), gathered from the
	 * kernel records: their per-op durations show a late peer when
	 * the capture has no HCCL tasks */
	{ .type = "comm_kernel", .cap = 20000 },
	/* asc-parts: per step, where the time goes by model part */
	{ .type = "step_parts", .cap = 100000 },
	{ .type = "part", .cap = 20000 },
};
#define NKEPT	(int)(sizeof kept / sizeof kept[0])

static int kflag;
static struct jqprog *prog;
static struct gather *g;
static int rc = EX_OK;
static FILE *jfp;		/* -j: anomaly_discovery objects, pretty */
static struct aside jas;	/* -j's file, written aside */
/*
 * -a: the records of asc-attrib -n for the input's one profile, from a
 * file (a FIFO in asc-analyze, whose attribution runs beside the stages
 * after asc-gaps).  Read when the profile's records end: written on and
 * gathered as if they had been in the stream.
 */
static const char *apath;
static jv inranks;		/* -I: the ranks of the input's profiles, or null */
static struct rin *ar;
static int adone;
static struct buf aprof;	/* the stream's profile name, raw JSON */
static const char *rulesf;	/* the verdict says which rules made it */

static void
emit(jv obj, void *arg)
{
	const char *profile = arg;
	struct buf b = {0};
	jv s;
	const char *t;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		die("asc-judge.jq: output is not an object");
	s = jv_dump_string(obj, 0);
	t = jv_string_value(s);
	out_begin(&b, "anomaly_discovery");
	out_cstr(&b, "profile", profile);
	if (t[1] != '}')
		buf_addc(&b, ',');
	buf_add(&b, t + 1, strlen(t + 1) - 1);
	if (jfp) {
		/* The same object, pretty, for people and validators. */
		jv o;

		buf_addc(&b, '}');
		o = jv_parse_sized(b.p, (int)b.len);
		b.len--;
		if (!jv_is_valid(o))
			die("asc-judge: internal error: invalid anomaly_discovery");
		jv_dumpf(o, jfp, JV_PRINT_PRETTY | JV_PRINT_INDENT_FLAGS(2));
		fputc('\n', jfp);
	}
	rec_put(&b, stdout);
	jv_free(s);
	buf_free(&b);
}

/*
 * torch_npu's step_trace rows keyed by step, built here: jq 1.6 copies an
 * object on every insert in a reduce, which is quadratic in the steps.
 */
static jv
keybystep(jv acc)
{
	jv rows = jv_object_get(jv_copy(acc), jv_string("step_trace"));
	jv by = jv_object();
	int n = jv_array_length(jv_copy(rows));

	for (int i = 0; i < n; i++) {
		jv r = jv_array_get(jv_copy(rows), i);
		jv st = jv_object_get(jv_copy(r), jv_string("step"));
		jv key = jv_get_kind(st) == JV_KIND_STRING ? st :
		    (jv_free(st), jv_string(""));

		by = jv_object_set(by, key, r);
	}
	jv_free(rows);
	return jv_object_set(acc, jv_string("step_trace_by_step"), by);
}

static int
bad(struct rin *r)
{
	return rin_bad(r, kflag, &rc);
}

/* -a: the attribution records of the profile being gathered. */
static void
attribfile(void)
{
	const struct rfield *f;
	const char *t;
	size_t tn;
	int k;

	if (adone++)
		die("-a %s: the input holds more than one profile: -a takes one", apath);
	for (;;) {
		int n = rin_next(ar);

		if (n == 0)
			break;
		if (n < 0 || rin_type(ar, &t, &tn) != 0) {
			if (bad(ar))
				break;
			continue;
		}
		if (tn == 7 && memcmp(t, "profile", 7) == 0) {
			if (rin_scan(ar) != 0 || (f = rin_get(ar, "profile")) == NULL ||
			    f->vlen != aprof.len || memcmp(f->v, aprof.p, f->vlen) != 0) {
				rin_error(ar, "a profile record of another profile than the input's");
				if (bad(ar))
					break;
			}
			continue;
		}
		sr_pass(ar);
		if ((k = gather_index(g, t, tn)) > 0 && gather_add(g, k, ar) != 0 && bad(ar))
			break;
	}
}

/* The profile gathered: its verdict. */
static void
flush(struct gather *gp, void *arg)
{
	char err[512];
	jv acc, p;
	char *name;

	if (apath && (rc == EX_OK || kflag))
		attribfile();
	acc = keybystep(gather_take(gp));
	acc = jv_object_set(acc, jv_string("asc"), JV_OBJECT(jv_string("version"),
	    jv_string(asc_version()), jv_string("rules_file"), jv_string(rulesf)));
	acc = jv_object_set(acc, jv_string("input_ranks"), jv_copy(inranks));
	p = jv_getpath(jv_copy(acc), JV_ARRAY(jv_string("profile"), jv_number(0), jv_string("profile")));
	name = xstrdup(jv_get_kind(p) == JV_KIND_STRING ? jv_string_value(p) : "");
	jv_free(p);
	if (jqprog_run(prog, acc, emit, name, err, sizeof err) != 0)
		die("%s", err);
	free(name);
}

/* A communication kernel: its line holds "task_type":"COMMUNICATION". */
static int
commkernel(const struct rin *r)
{
	static const char key[] = "\"task_type\":\"COMMUNICATION\"";
	size_t len;
	const char *line = rin_line(r, &len);

	return memmem(line, len, key, sizeof key - 1) != NULL;
}

/* Kernels are gathered as "comm_kernel", communication kernels alone. */
static int
gatheras(const struct rin *r, const char *t, size_t tn, void *arg)
{
	if (tn == 6 && memcmp(t, "kernel", 6) == 0)
		return commkernel(r) ? gather_index(g, "comm_kernel", 11) : FILTER_ONE;
	return gather_index(g, t, tn);
}

/* A profile record: with -a, its name, which the -a file's must match. */
static int
onprofile(struct rin *r, void *arg)
{
	const struct rfield *f;

	if (apath) {
		aprof.len = 0;
		if (rin_scan(r) == 0 && (f = rin_get(r, "profile")) != NULL)
			buf_add(&aprof, f->v, f->vlen);
	}
	return 0;
}

static int
onrec(struct rin *r, const char *t, size_t tn, void *arg)
{
	if (apath && tn >= 11 && memcmp(t, "attribution", 11) == 0) {
		rin_error(r, "an %.*s record in the input: with -a they come from the -a file only",
		    (int)tn, t);
		return -1;
	}
	return 0;
}

/* -I 0,1,...: the ranks (profiler_info_N.json) of the input's profiles. */
static jv
rankopt(const char *arg)
{
	jv a = jv_array();
	const char *s = arg;
	char *e;

	for (;;) {
		long long v;

		errno = 0;
		v = strtoll(s, &e, 10);
		if (e == s || errno || v < 0 || v > INT32_MAX || (*e != ',' && *e != '\0'))
			die("-I %s: not a list of ranks (0,1,...)", arg);
		a = jv_array_append(a, jv_number((double)v));
		if (*e == '\0')
			return a;
		s = e + 1;
	}
}

int
main(int argc, char *argv[])
{
	struct filter f = {
		.rec = onrec,
		.own = FILTER_OWN("anomaly_discovery"),
		.profile = onprofile,
		.gather_pass = 1,
		.gather_as = gatheras,
		.whole = flush,
	};
	/* No -m: the verdict's lines are the stream's. */
	struct filter_opts o = FILTER_OPTS("[-k] [-a attribfile] [-I ranks] [-j file] [-r rules] [file ...]",
	    .common = "kr:", .args = FILTER_ARGS({ .letter = 'a', .to = &apath }));
	int ch, st;

	inranks = jv_null();
	while ((ch = filter_getopt(argc, argv, "a:I:j:", &o)) != -1) {
		switch (ch) {
		case 'I':
			inranks = rankopt(optarg);
			break;
		case 'j':
			if (aside_open(&jas, optarg) != 0)
				dieerr("%s", optarg);
			jfp = jas.fp;
			break;
		}
	}
	kflag = o.kflag;
	rules_load(o.rules);
	rulesf = rules_file(o.rules);
	for (int i = 0; i < NKEPT; i++)
		if (kept[i].mode == GATHER_LONGEST) {
			kept[i].cap = (size_t)rules_num("bubbles.keep_windows");
			if (kept[i].cap < 1)
				kept[i].cap = 1;
		}
	f.gather = g = gather_new(kept, NKEPT);
	/* Opened now: a FIFO's writer waits for this reader. */
	if (apath && (ar = rin_new(apath, 0)) == NULL)
		dieerr("%s", apath);
	prog = jqprog_new("asc-judge.jq", asc_judge_jq);
	st = filter_run(argc - optind, argv + optind, &o, &f);
	if (rc == EX_OK)
		rc = st;
	rin_free(ar);
	buf_free(&aprof);
	gather_free(g);
	jqprog_free(prog);
	jv_free(inranks);
	/* Only a complete file replaces the old one. */
	if (jfp && rc != EX_OK && !kflag)
		aside_discard(&jas);
	else if (jfp && aside_commit(&jas) != 0)
		dieerr("anomaly_discovery file");
	xclose_stdout();
	return rc;
}
