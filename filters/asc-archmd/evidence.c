/*
 * asc-archmd: sections 1-3 of the report (configuration, how the
 * architecture was determined, the pass boundaries) and the texts later
 * sections share (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "md.h"
#include "archmd.h"

void
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

const char *
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
const char *
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

void
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
void
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
void
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

/* Section 2's opening: what delimits the layers, and the confidence. */
static void
s2_intro(jv S)
{
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
}

/* The evidence rows of the layer marker: the FIA kernels, or the fallback. */
static void
s2_markers(jv S)
{
	char s[256];

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
}

/* The evidence rows of a training capture: gradients, optimizer, directions. */
static void
s2_training(jv S)
{
	char s[256], t[160];

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

/* The evidence rows of the passes: their boundaries and layers. */
static void
s2_passes(jv S, jv why)
{
	int64_t passes = gi(S, "passes"), lpp = gi(S, "layers_per_pass");
	char s[256];

	tb.len = 0;
	joinstrs(&tb, why);
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
}

/* The evidence rows of the MoE markers, the loss, the embedding and the
 * sampling (not after a period search: with no attention kernel, MoE
 * markers say nothing of a transformer). */
static void
s2_parts(jv S)
{
	char s[256];

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
		    "layer (no layer's wall holds its kernels: they run before a pass's first layer "
		    "or after its last)" :
		    "the embedding part, not a layer (no layer's wall holds its kernels: they run "
		    "before a pass's first layer or after its last)");
	}
	if (!train) {
		snprintf(s, sizeof s, "%lld layers", (long long)gi(S, "sampling_layers"));
		row(3, "Sampling ops (`ArgMax`, `rejection_*`)", s, gi(S, "sampling_layers") ? "token sampling: end of a prefill or decode step" : "no sampling in the capture");
	}
}

/* Section 2's conclusion: passes, layers, and dense or MoE. */
static void
s2_conclusion(jv S)
{
	int64_t passes = gi(S, "passes"), lpp = gi(S, "layers_per_pass");

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
}

void
s2_evidence(void)
{
	jv S = P.summary, lt, why;

	pf("## 2. Model Architecture Determination\n\n");
	if (!has(S, "kernels") || gi(S, "kernels") == 0) {
		pf("Cannot be determined: %s.\n\n", !has(S, "kernels") ?
		    "the stream holds no asc-fia records (run asc-fia before asc-archmd)" :
		    "the profile has no device kernels");
		return;
	}
	if (!determ) {
		s2_describe();
		return;
	}
	s2_intro(S);
	row(3, "Evidence", "Value", "Interpretation");
	sep("lrl");
	s2_markers(S);
	if (train)
		s2_training(S);
	why = get(S, "boundary");
	s2_passes(S, why);
	jv_free(why);
	if (strcmp(method, "period") != 0)
		s2_parts(S);
	tb.len = 0;
	lt = get(S, "layer_types");
	typecounts(&tb, lt);
	jv_free(lt);
	row(3, "Layer types", tb.len ? tb.p : "none", "see section 4");
	s2_conclusion(S);
}

/* Under pipeline parallelism the layers found are this stage's share. */
const char *
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

/* A section of the layer types, when there is none: it says why; 1. */
int
notypes(void)
{
	if (len(P.types))
		return 0;
	pf("Not available: %s.\n\n", !determ && gi(P.summary, "kernels") ?
	    "no layer structure was determined (no attention kernel, no block of forward kernels repeated 3 times; backward kernels are not searched)" :
	    "no layer was found");
	return 1;
}

/* Does the profile have backward layers (asc-parts cuts its backward by them)? */
static int
bwdlayers(void)
{
	int n = 0;

	for (int i = 0; i < len(P.types) && !n; i++) {
		jv t = at(P.types, i);

		n = strcmp(gs(t, "layer_type"), "backward") == 0;
		jv_free(t);
	}
	return n;
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
		if (i == len(P.phases) - 1 && m && bwdlayers())
			/* The anomaly report cuts the same kernels by part: say where. */
			pf(" The anomaly report's parts (asc-parts) cut these boundaries "
			    "otherwise: its backward ends with the last backward layer%s; the "
			    "gradient-norm check and scaling (a `fia.grad_norm` kernel and those "
			    "after it) before the first collective, counted here in the backward "
			    "run, are in its gradient sync part; and the optimizer's clip-grad-norm "
			    "(from the gradient-norm kernels after the last collective), counted "
			    "here in the gradient sync, is its gradient clipping part.",
			    gi(P.summary, "embedding_backward_kernels") > 0 ?
			    " and the embedding backward (a part of its own, not a layer's)" : "");
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
void
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

void
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
		joinstrs(&tb, why);
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
