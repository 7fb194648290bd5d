/*
 * asc-archmd: the report of a profile.  What the records say is decided
 * here (the method, training or not, whether layers were found, the
 * passes omitted and the layers kept); the template asc-archmd.jq, run
 * over them and the records, writes the Markdown (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "jqprog.h"

#include "archmd.h"

struct buf R;

static const char *method;
static int fia, train, determ;
static struct omit O;		/* passes omitted: asc-fia's and ours */
static int onpass;		/* index in P.passes before which they go */

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

/* The template, asc-archmd.jq after fmt.jq, built in by the Makefile. */
static const char asc_archmd_jq[] =
#include "asc-archmd.jq.inc"
;

static struct jqprog *prog;

/* The template's text replaces R. */
static void
put(jv s, void *arg)
{
	if (jv_get_kind(s) != JV_KIND_STRING)
		die("asc-archmd.jq: output is not text");
	buf_add(&R, jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)));
	jv_free(s);
}

/* The layers kept, as the template reads them. */
static jv
layers(void)
{
	jv a = jv_array();

	for (int i = 0; i < P.nl; i++) {
		jv l = jv_object();

		l = jv_object_set(l, jv_string("pass"), jv_number((double)P.l[i].pass));
		l = jv_object_set(l, jv_string("start"), jv_number((double)P.l[i].start));
		l = jv_object_set(l, jv_string("wall"), jv_number((double)P.l[i].wall));
		l = jv_object_set(l, jv_string("type"), jv_string(P.l[i].type));
		l = jv_object_set(l, jv_string("samp"), jv_number(P.l[i].samp));
		a = jv_array_append(a, l);
	}
	return a;
}

/* What the template reads: the records and what was decided of them
 * (filters/asc-archmd.jq says what each member is). */
static jv
input(const char *dir)
{
	jv in = jv_object(), ck, o;

	in = jv_object_set(in, jv_string("dir"), jv_string(dir));
	in = jv_object_set(in, jv_string("method"), jv_string(method));
	in = jv_object_set(in, jv_string("train"), jv_bool(train));
	in = jv_object_set(in, jv_string("determ"), jv_bool(determ));
	in = jv_object_set(in, jv_string("fia"), jv_bool(fia));
	in = jv_object_set(in, jv_string("npasses"), jv_number((double)npasses()));
	in = jv_object_set(in, jv_string("omitted"), jv_number((double)O.n));
	ck = jv_array();
	for (int i = 0; i < 5; i++)
		ck = jv_array_append(ck, jv_number((double)O.ck[i]));
	in = jv_object_set(in, jv_string("omitted_checks"), ck);
	o = jv_object();
	o = jv_object_set(o, jv_string("layers"), jv_number((double)O.layers));
	o = jv_object_set(o, jv_string("kernels"), jv_number((double)O.kernels));
	o = jv_object_set(o, jv_string("mean"), jv_number((double)O.mean));
	o = jv_object_set(o, jv_string("wmin"), jv_number((double)O.wmin));
	o = jv_object_set(o, jv_string("wmax"), jv_number((double)O.wmax));
	in = jv_object_set(in, jv_string("O"), o);
	in = jv_object_set(in, jv_string("profile"), jv_copy(P.profile));
	in = jv_object_set(in, jv_string("name"), jv_string(P.name ? P.name : ""));
	in = jv_object_set(in, jv_string("checks"), jv_copy(P.checks));
	in = jv_object_set(in, jv_string("onpass"), jv_number(onpass));
	in = jv_object_set(in, jv_string("S"), jv_copy(P.summary));
	in = jv_object_set(in, jv_string("passes"), jv_copy(P.passes));
	in = jv_object_set(in, jv_string("types"), jv_copy(P.types));
	in = jv_object_set(in, jv_string("phases"), jv_copy(P.phases));
	in = jv_object_set(in, jv_string("comms"), jv_copy(P.comms));
	in = jv_object_set(in, jv_string("streams"), jv_copy(P.streams));
	in = jv_object_set(in, jv_string("layers"), layers());
	return in;
}

void
render(void)
{
	const char *path, *base;
	char *dir, err[512];
	jv in;

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
	if (prog == NULL)
		prog = jqprog_new("asc-archmd.jq", asc_archmd_jq);
	in = input(dir);
	R.len = 0;
	if (jqprog_run(prog, in, put, NULL, err, sizeof err) != 0)
		die("%s", err);
	free((char *)method);

	save(dir);
	free(dir);
}
