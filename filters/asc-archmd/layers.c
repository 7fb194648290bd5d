/*
 * asc-archmd: sections 4-6 of the report (layer classification, the
 * cross-verification table, per-layer sub-structure) (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "md.h"
#include "archmd.h"

/* The role of largest wall not used yet (the first of equals), now used. */
static int
toprole(jv roles, int n, int *used)
{
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
	return best;
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
		jv r = at(roles, toprole(roles, n, used));

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

void
s4_layers(void)
{
	pf("## 4. Layer Classification\n\n");
	if (notypes())
		return;
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

void
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

void
roletable(jv t, int top)
{
	jv roles = get(t, "roles");
	int n = len(roles) < 64 ? len(roles) : 64, used[64] = { 0 };

	row(6, "Component", "Kernels (all layers)", "Wall time per layer", "Wall time, all layers",
	    "Share of layer", "Stream(s)");
	sep("lrrrrl");
	for (int k = 0; k < n && k < top; k++) {
		jv r = at(roles, toprole(roles, n, used)), st = get(r, "streams");

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

void
s6_sub(void)
{
	pf("## 6. Per-Layer Sub-Structure\n\n");
	if (notypes())
		return;
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
