/*
 * asc-report: render the Markdown anomaly report of each profile from its
 * anomaly_discovery record and the structure and op records beside it.
 * The template is the jq program asc-report.jq, built in.
 */
#include <sys/stat.h>

#include <errno.h>
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
#include "util.h"

/* The built-in jq program, made from asc-report.jq by the Makefile. */
static const char asc_report_jq[] =
#include "asc-report.jq.inc"
;

/* What the report reads, capped; everything else is skipped unparsed. */
static const struct gather_type kept[] = {
	{ .type = "profile", .cap = 1 },
	{ .type = "anomaly_discovery", .cap = 1 },
	{ .type = "structure", .cap = 40 },
	{ .type = "structure_drilldown", .cap = 1 },
	{ .type = "op" },
	{ .type = "op_summary", .cap = 1 },
	{ .type = "op_stat", .cap = 200 },
	{ .type = "warning", .cap = 100 },
};
#define NKEPT	(int)(sizeof kept / sizeof kept[0])

static struct jqprog *prog;
static struct gather *g;
static int nreports, rc = EX_OK;
static const char *outpath;	/* -o: one file (a single profile) */
static FILE *out;
static struct aside oa;		/* -o: written aside (oa.tmp NULL: a device or FIFO, in place) */

static void
put(jv s, void *arg)
{
	if (jv_get_kind(s) != JV_KIND_STRING)
		die("asc-report.jq: output is not text");
	fputs(jv_string_value(s), out);
	jv_free(s);
}

/* The profile gathered: its report. */
static void
flush(struct gather *gp, void *arg)
{
	char err[512];
	jv acc, ad;

	acc = gather_take(gp);
	ad = jv_object_get(jv_copy(acc), jv_string("anomaly_discovery"));
	if (jv_array_length(ad) == 0) {
		jv p = jv_getpath(jv_copy(acc), JV_ARRAY(jv_string("profile"), jv_number(0), jv_string("profile")));

		warnmsg("profile %s: no anomaly_discovery record: the stream ends before the verdict (cut short, or asc-judge did not run)",
		    jv_get_kind(p) == JV_KIND_STRING ? jv_string_value(p) : "?");
		jv_free(p);
		jv_free(acc);
		rc = EX_DATA;
		return;
	}
	if (nreports++ && outpath && oa.tmp)
		die("%s: more than one profile in the stream; -o takes one", outpath);
	if (jqprog_run(prog, acc, put, NULL, err, sizeof err) != 0)
		die("%s", err);
}

int
main(int argc, char *argv[])
{
	/* Nothing is passed on: the output is the report. */
	struct filter f = {
		.whole = flush,
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-o file] [-r rules] [file ...]",
	    .common = "kr:", .args = FILTER_ARGS({ .letter = 'o', .to = &outpath }));
	int st;

	filter_getopt(argc, argv, "o:", &o);
	rules_load(o.rules);
	f.gather = g = gather_new(kept, NKEPT);
	prog = jqprog_new("asc-report.jq", asc_report_jq);
	out = stdout;
	/* Written aside and renamed: never a half-written report; a device
	 * or FIFO (-o /dev/null) is written in place. */
	if (outpath) {
		if (aside_open(&oa, outpath) != 0)
			dieerr("%s", outpath);
		out = oa.fp;
	}
	st = filter_run(argc - optind, argv + optind, &o, &f);
	if (rc == EX_OK)
		rc = st;
	if (outpath) {
		if (oa.tmp && (rc != EX_OK || nreports == 0)) {
			aside_discard(&oa);
			if (nreports == 0 && rc == EX_OK) {
				warnmsg("no profile in the input");
				rc = EX_DATA;
			}
		} else if (aside_commit(&oa) != 0)
			dieerr("%s", outpath);
	}
	gather_free(g);
	jqprog_free(prog);
	xclose_stdout();
	return rc;
}
