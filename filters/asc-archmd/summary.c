/*
 * asc-archmd: sections 9-10 of the report (layer-to-layer variation, the
 * model summary) (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "archmd.h"

void
s9_variation(void)
{
	pf("## 9. Layer-to-Layer Variation\n\n");
	if (notypes())
		return;
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

/* Section 10 when no layer was found. */
static void
s10_none(jv S)
{
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
}

/* The model diagram: runs of layer types in pass 0. */
static void
s10_diagram(jv S)
{
	jv p0 = at(P.passes, 0);
	int64_t l0 = gi(p0, "layer_first"), l1 = gi(p0, "layer_last"), lr = l1;
	char t[128], line[256];

	if (lr >= P.nl)
		lr = P.nl - 1;		/* the layers recorded */
	pf("```\n┌──────────────────────────────────────────────────────────┐\n");
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
}

/* The per-pass execution timeline. */
static void
s10_timeline(void)
{
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
}

/* The key findings. */
static void
s10_findings(jv S)
{
	jv lt = get(S, "layer_types");
	int64_t sum;

	pf("Key findings:\n\n");
	tb.len = 0;
	typecounts(&tb, lt);
	jv_free(lt);
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
	tb.len = 0;
	betweentext(&tb, &sum);
	if (tb.len)
		pf("- Between passes, not in the layer or pass walls: %s.\n", tb.p);
	pf("\n");
}

void
s10_summary(void)
{
	jv S = P.summary;

	pf("## 10. Model Architecture Summary\n\n");
	if (P.nl == 0) {
		s10_none(S);
		return;
	}
	s10_diagram(S);
	s10_timeline();
	s10_findings(S);
}
