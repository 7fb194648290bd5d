/*
 * asc-archmd: render the "fia_*" records of asc-fia as the model
 * architecture report, model_architecture_report_<profiling_dir_name>.md,
 * one per profile (phases A8-A9).  This file reads the records of a
 * profile and keeps what the report uses; filters/asc-archmd/ renders and
 * writes it (archmd.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jv.h>

#include "filter.h"
#include "rec.h"
#include "steprec.h"
#include "asc-archmd/archmd.h"

const char *ckst[5] = { "ok", "ok_multiple", "explained", "mismatch", "not_applicable" };

struct prof P;
const char *outdir = ".", *outfile;

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
	const char *pn, *line;
	size_t linelen;

	if (!sr_is(t, n, "profile") && !(n > 4 && memcmp(t, "fia_", 4) == 0))
		return 0;
	line = rin_line(r, &linelen);
	v = jv_parse_sized(line, (int)linelen);
	if (!jv_is_valid(v)) {
		jv_free(v);
		rin_error(r, "not a JSON object");
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
		rin_error(r, "record has no \"profile\"");
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

int
main(int argc, char *argv[])
{
	/* The host events, most of the input, are dropped unread. */
	const struct filter f = {
		.rec = onrec,
		.end = flush,
		.bulk = "host",
		.bulk_drop = 1,
	};
	/* No -r: the report reads no rules. */
	struct filter_opts o = FILTER_OPTS("[-k] [-m maxline] [-O file | -o dir] [file ...]",
	    .common = "km:",
	    .args = FILTER_ARGS({ .letter = 'O', .to = &outfile }, { .letter = 'o', .to = &outdir }));
	struct stat st;

	filter_getopt(argc, argv, "O:o:", &o);
	if (outfile == NULL) {
		if (stat(outdir, &st) != 0)
			dieerr("%s", outdir);
		if (!S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			dieerr("%s", outdir);
		}
	}
	return filter_main(argc, argv, &o, &f);
}

