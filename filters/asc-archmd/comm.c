/*
 * asc-archmd: sections 7-8 of the report (decode, the communication
 * pipeline) (archmd.h).
 */
#define _GNU_SOURCE		/* strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "md.h"
#include "archmd.h"

void
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
int
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

void
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
