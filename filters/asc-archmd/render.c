/*
 * asc-archmd: the report of a profile in order: its head, notes and
 * sections (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "archmd.h"

const char *method;
int fia, train, determ;
struct omit O;
int onpass;

/* Layer i if it was kept, else NULL. */
const struct lay *
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
int64_t
npasses(void)
{
	return len(P.passes) + O.n;
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

/* The notes of asc-fia's summary as sentences; a note unknown here is
 * shown by its name. */
static const char *const notetext[][2] = {
	{ "no_fia_fallback_attention",
	    "**No FIA kernels**: layers are delimited by other attention kernels (fallback); reduced confidence in the layer count." },
	{ "no_fia_fallback_communication",
	    "**No FIA kernels** and no attention kernels: layers are delimited by communication kernels (fallback); reduced confidence in the layer count." },
	{ "no_fia_fallback_period",
	    "No FIA and no other attention kernels: layers are probably the repeats of a block of forward kernels (fallback); low confidence in the layer count." },
	{ "period_search_capped",
	    "The repeating block was searched in the first kernels only (fia.period_max_kernels): later kernels are in no layer." },
	{ "layers_not_determinable",
	    "**No layer structure**: no attention kernel and no block of forward kernels repeated 3 times (backward kernels are not searched for repeats); sections 2 and 8 describe what the capture holds instead." },
	{ "no_fia_fallback_step",
	    "**No FIA kernels** and no other structural marker: each step is one block (fallback); the layer count is unknown." },
	{ "single_pass",
	    "Single forward pass: no cross-pass comparison." },
	{ "no_decode",
	    "No decode FIA: prefill-only capture; decode analysis omitted." },
	{ "ambiguous_fia",
	    "Some FIA durations lie between the prefill and decode thresholds (ambiguous)." },
	{ "no_comm",
	    "No communication kernels in the capture." },
	{ "prologue",
	    "Kernels before the first layer anchor are counted in pass 0 (prologue)." },
	{ "several_devices",
	    "Several devices in one profile: this report describes the first." },
	{ "no_kernels",
	    "**No device kernels** in this profile: the sections below cannot be filled." },
	{ "op_stat_only",
	    "**Only aggregate op data** (op_statistic): op counts only, no layer sequence trees." },
	{ "passes_capped",
	    "Many passes: asc-fia recorded the first ones and the last; the others are summarised." },
	{ "layers_capped",
	    "Many layers: asc-fia recorded those of the first passes only (capped); per-layer views cover those." },
};

static void
capnotes(void)
{
	jv notes = get(P.summary, "notes");

	if (len(notes)) {
		pf("Notes on this capture:\n\n");
		for (int i = 0; i < len(notes); i++) {
			jv n = at(notes, i);
			const char *c = jv_string_value(n), *t = c;

			for (size_t k = 0; k < sizeof notetext / sizeof notetext[0]; k++)
				if (strcmp(c, notetext[k][0]) == 0) {
					t = notetext[k][1];
					break;
				}
			pf("- %s\n", t);
			jv_free(n);
		}
		pf("\n");
	} else if (!has(P.summary, "method"))
		pf("- **No asc-fia records** for this profile: run `asc-fia` before `asc-archmd`; "
		    "the sections below give the reason they are empty.\n\n");
	jv_free(notes);
}

void
render(void)
{
	const char *path, *base;
	char *dir;

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
	capnotes();
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

	save(dir);
	free(dir);
}
