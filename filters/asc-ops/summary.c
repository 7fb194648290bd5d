/*
 * asc-ops: the end of a profile's kernels: the ops ranked and written,
 * then the "op_summary" record (rankings, anchors, pollution, AI CPU,
 * tags, PMU bound classes, small ops, variable shapes); the profile's
 * state reset.
 */
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "intern.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "ops.h"

/* The op_summary's "rankings": the top ops by total cost and by duration. */
static void
sum_rankings(struct op **nm, size_t nn, struct op **bydur)
{
	out_key(&ob, "rankings");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < nn && (int)i < topn; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"rank\":");
		out_int(&ob, (int64_t)i + 1);
		out_key(&ob, "by_total_cost");
		key_out(&ob, nm[i]);
		out_dec(&ob, "total_cost_ms", nm[i]->dur + nm[i]->wait, 6);
		out_bool(&ob, "wait_anchor", nm[i]->anchor);
		out_key(&ob, "by_duration");
		key_out(&ob, bydur[i]);
		out_dec(&ob, "dur_ms", bydur[i]->dur, 6);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/*
 * An array k of the ops that keep() keeps, in nm's order: each one's
 * {"key":...} and then what fields() writes of it.
 */
static void
sum_oplist(const char *k, struct op **nm, size_t nn,
    int (*keep)(const struct op *), void (*fields)(const struct op *))
{
	out_key(&ob, k);
	buf_addc(&ob, '[');
	for (size_t i = 0, c = 0; i < nn; i++) {
		if (!keep(nm[i]))
			continue;
		out_item(&ob, c++, "key");
		key_out(&ob, nm[i]);
		fields(nm[i]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static int
is_anchor(const struct op *o)
{
	return o->anchor;
}

static void
anchor_fields(const struct op *o)
{
	out_i64(&ob, "calls", o->calls);
	out_dec(&ob, "dur_avg_us", avg(o->dur, o->calls), 3);
	out_dec(&ob, "wait_avg_us", avg(o->wait, o->calls), 3);
	out_ratio(&ob, "wait_ratio", o->wait, o->dur + o->wait);
	out_i64(&ob, "rank_total_cost", o->rcost);
	out_i64(&ob, "rank_root_cause", o->rroot);
}

/* The AI CPU ops the summary lists: those wanted that ran. */
static int
is_aicpu(const struct op *o)
{
	return wantcpu(o) && o->dur > 0;
}

static void
aicpu_fields(const struct op *o)
{
	out_ratio(&ob, "masked_ratio", o->masked, o->dur);
	out_cstr(&ob, "class", aicpuclass(o));
	out_bool(&ob, "escalated", o->bubblecalls > 0);
}

/* Tags and their op counts. */
static void
sum_tags(struct op **nm, size_t nn)
{
	int64_t na = 0, np = 0, nc[3] = { 0, 0, 0 }, nr = 0;

	for (size_t i = 0; i < nn; i++) {
		struct op *o = nm[i];

		na += o->anchor;
		np += o->polcalls > 0;
		if (o->cls == TT_AICPU && o->dur > 0) {
			const char *c = aicpuclass(o);

			nc[c[6] == 'M' ? 0 : c[6] == 'P' ? 1 : 2]++;
			nr += (double)o->masked < exposedr * (double)o->dur;
		}
	}
	out_key(&ob, "tags");
	buf_addc(&ob, '{');
	size_t m = 0;
#define TAG(name, cnt) do { if (cnt) { out_member(&ob, m++, name); out_int(&ob, cnt); } } while (0)
	TAG("WAIT_ANCHOR_FALSE_HOTSPOT", na);
	TAG("WAIT_POLLUTION_RISK", np);
	TAG("AICPU_MASKED_BUT_UNDESIRABLE", nc[0]);
	TAG("AICPU_PARTIALLY_EXPOSED", nc[1]);
	TAG("AICPU_EXPOSED_NOT_ALLOWED", nc[2]);
	TAG("AICPU_EXPOSED_RISK", nr);
	buf_addc(&ob, '}');
}

/* The limits pmu_judge uses, per core side, so a report can show them. */
static void
sum_limits(void)
{
	static const char *const k[] = { "cube.mac_ratio", "cube.mte2_ratio",
	    "cube.starved_mte2_ratio", "cube.starved_mac_ratio", "vector.vec_ratio",
	    "vector.mte2_ratio", "vector.mte3_ratio", "attention.mte2_ratio",
	    "attention.fixpipe_ratio", "attention.vec_ratio", "scalar_ratio", "balanced_sum" };
	char full[64], t[32];

	out_key(&ob, "limits");
	buf_addc(&ob, '{');
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		snprintf(full, sizeof full, "pmu.%s", k[i]);
		snprintf(t, sizeof t, "%g", rules_num(full));
		out_member(&ob, i, k[i]);
		buf_adds(&ob, t);
	}
	buf_addc(&ob, '}');
}

/* The PMU status and the ops' bound classes (asc-ops/pmu.c judges). */
static void
sum_pmu(struct op **nm, size_t nn)
{
	int64_t bounds[8] = { 0 };
	static const char *const bn[8] = { "cube_bound", "vector_bound", "mte2_bound",
	    "mte3_bound", "fixpipe_bound", "scalar_bound", "balanced", "unknown" };

	out_key(&ob, "pmu");
	tmp.len = 0;
	pmu_status(&tmp, S.pmustatus, &S.metrics);
	buf_adds(&ob, "{\"status\":");
	out_esc(&ob, tmp.p, tmp.len);
	out_key(&ob, "aic_metrics");
	if (S.metrics.len)
		buf_add(&ob, S.metrics.p, S.metrics.len);
	else
		buf_adds(&ob, "null");
	if (S.pmustatus == 1) {
		int64_t judged = 0;

		for (size_t i = 0; i < nn; i++) {
			struct pmu_judge j;
			struct pmu_who w = { nm[i]->key, nm[i]->nnames > 0 ? nm[i]->names[0] : NULL,
			    nm[i]->tt };

			if ((nm[i]->cls != TT_COMPUTE && nm[i]->cls != TT_UNKNOWN) || nm[i]->pmu.pk == 0)
				continue;
			pmu_judge(&nm[i]->pmu, &w, &j);
			judged++;
			for (int b = 0; b < 8; b++)
				if (strcmp(j.bound, bn[b]) == 0)
					bounds[b]++;
		}
		out_i64(&ob, "ops_judged", judged);
		out_key(&ob, "bound_classes");
		buf_addc(&ob, '{');
		for (size_t b = 0, m = 0; b < 8; b++)
			if (bounds[b]) {
				out_member(&ob, m++, bn[b]);
				out_int(&ob, bounds[b]);
			}
		buf_addc(&ob, '}');
		sum_limits();
	} else {
		out_i64(&ob, "ops_judged", 0);
		out_null(&ob, "bound_classes");
	}
	buf_addc(&ob, '}');
}

static void
sum_small(void)
{
	out_key(&ob, "small_ops");
	buf_adds(&ob, "{\"small_op_us\":");
	{
		char t[32];
		int tn = dec_fmt(t, smallns, 3);

		buf_add(&ob, t, (size_t)tn);
	}
	out_i64(&ob, "kernels", S.small);
	out_nsms(&ob, "dur_sum", S.smalldur);
	out_ratio(&ob, "share_of_kernel_sum", S.smalldur, S.dur);
	out_ratio(&ob, "share_of_kernels", S.small, S.kernels);
	out_i64(&ob, "steps", S.steps);
	out_i64(&ob, "steps_with_small_ops", S.smallsteps);
	out_i64(&ob, "steps_probable_launch_bound", S.lbsteps);
	out_i64(&ob, "steps_dense", S.densesteps);
	out_i64(&ob, "steps_noise", S.noisesteps);
	buf_addc(&ob, '}');
}

static void
sum_shapes(struct op **nm, size_t nn)
{
	out_key(&ob, "variable_shape");
	buf_adds(&ob, "{\"status\":");
	if (!S.shapes_seen) {
		out_esc(&ob, "skipped", 7);
		out_cstr(&ob, "reason", "no_shapes");
		out_null(&ob, "groups");
		out_null(&ob, "ops_with_shape_variants");
	} else {
		out_esc(&ob, "checked", 7);
		out_null(&ob, "reason");
		out_key(&ob, "groups");
		buf_addc(&ob, '[');
		for (size_t i = 0, c = 0; i < S.ng; i++)
			if (S.g[i].variable) {
				if (c++)
					buf_addc(&ob, ',');
				out_esc(&ob, S.g[i].id, strlen(S.g[i].id));
			}
		buf_addc(&ob, ']');
		keylist("ops_with_shape_variants", nm, nn, wantvar);
	}
	buf_addc(&ob, '}');
	out_key(&ob, "tags_group");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < S.ng; i++)
		if (S.g[i].variable) {
			buf_adds(&ob, "\"VARIABLE_SHAPE_SAME_TEMPLATE\"");
			break;
		}
	buf_addc(&ob, ']');
}

void
profile_out(void)
{
	struct op **v;
	size_t n = 0, nv[NVIEW] = { 0 }, off[NVIEW];

	if (!S.sect.active || S.emitted)
		return;
	step_flush(NULL, 0);
	if (mpath && pmu_join_file(&mjoin, mpath, mmaxline, S.prof.p, S.prof.len, kflag) != EX_OK)
		mrc = EX_DATA;
	S.emitted = 1;
	v = xcalloc(S.ops.n + 1, sizeof *v);
	for (size_t i = 0; i < S.ops.n; i++) {
		v[n++] = S.ops.v[i];
		nv[S.ops.v[i]->view]++;
	}
	off[0] = 0;
	for (int i = 1; i < NVIEW; i++)
		off[i] = off[i - 1] + nv[i - 1];
	rank_ops(v, n, nv, off);

	/* The summary, from the name view. */
	struct op **nm = v + off[V_NAME];
	size_t nn = nv[V_NAME];
	struct op **bydur = xcalloc(nn + 1, sizeof *bydur), **byroot = xcalloc(nn + 1, sizeof *byroot);

	memcpy(bydur, nm, nn * sizeof *bydur);
	memcpy(byroot, nm, nn * sizeof *byroot);
	qsort(bydur, nn, sizeof *bydur, durcmp);
	qsort(byroot, nn, sizeof *byroot, rootcmp);
	out_begin(&ob, "op_summary");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_i64(&ob, "kernels", S.kernels);
	out_i64(&ob, "ops", (int64_t)nv[V_NAME]);
	out_i64(&ob, "op_types", (int64_t)nv[V_TYPE]);
	out_i64(&ob, "name_shapes", (int64_t)nv[V_SHAPE]);
	out_nsms(&ob, "kernel_sum", S.dur);
	out_nsms(&ob, "wait_sum", S.wait);
	out_nsms(&ob, "total_cost", S.dur + S.wait);
	sum_rankings(nm, nn, bydur);
	keylist("root_cause_ranking", byroot, nn, NULL);
	sum_oplist("wait_anchors", nm, nn, is_anchor, anchor_fields);
	keylist("wait_pollution_ops", nm, nn, wantpol);
	out_i64(&ob, "wait_polluted_calls", S.polcalls);
	sum_oplist("aicpu", nm, nn, is_aicpu, aicpu_fields);
	out_i64(&ob, "aicpu_exposed_risk_step_count", S.riskn);
	out_key(&ob, "aicpu_exposed_risk_steps");
	buf_addc(&ob, '[');
	buf_add(&ob, S.risksteps.p ? S.risksteps.p : "", S.risksteps.len);
	buf_addc(&ob, ']');
	sum_tags(nm, nn);
	sum_pmu(nm, nn);
	sum_small();
	sum_shapes(nm, nn);
	rec_put(&ob, stdout);
	free(bydur);
	free(byroot);
	free(v);
}

void
profile_reset(void)
{
	ops_clear();
	S.emitted = 0;
	S.pmustatus = 0;
	S.metrics.len = 0;
	S.shapes_seen = 0;
	S.kernels = S.dur = S.wait = S.small = S.smalldur = S.steps = 0;
	S.polcalls = S.lbsteps = S.noisesteps = S.densesteps = S.smallsteps = 0;
	S.riskn = 0;
	S.risksteps.len = 0;
	S.ncw = S.nck = S.nk = 0;
	S.arena.len = S.streams.len = 0;
	S.nstreams = 0;
	S.hnames = S.hshapes = FNV_INIT;
	S.stepid.len = 0;
	for (size_t i = 0; i < S.ng; i++)
		free(S.g[i].id);
	S.ng = 0;
}
