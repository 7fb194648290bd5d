/* asc-fia: a unit's fia_summary record (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "nsms.h"
#include "rec.h"
#include "util.h"

#include "fia.h"

/* Method, figures of the kernels, layers and passes, notes. */
static void
sum_figures(const struct unit *u)
{
	const struct eng *e = u->e;
	const struct chain *ch = u->ch;
	int ei = u->ei, fia = u->fia, mismatch = u->mismatch, agree = u->agree;
	int methods = u->methods, nn = u->nn;
	size_t np = u->np;
	const int64_t *nfia = e->nfia, *fsum = e->fsum, *tc = e->tc, *cnt = e->cnt, samp = e->samp;
	int64_t firstfia = ch->n ? ch->firstfia : -1, lastfia = ch->n ? ch->lastfia : -1;
	int64_t firstwall = ch->n ? ch->firstwall : -1, lastwall = ch->n ? ch->lastwall : -1;
	int64_t cb = acc_get(&G.comm), pb = acc_get(&G.comp), ab = acc_get(&G.all);
	int64_t ov = cb + pb - ab;
	int uniform = np > 0 && ch->uniform;

	out_cstr(&ob, "method", G.nk && e->nl ? ename[ei] : "none");
	out_cstr(&ob, "confidence", !G.nk || !e->nl ? "none" : fia ? (mismatch ? "medium" : "high") :
	    ei == E_ATT && agree ? "medium" : "low");
	out_i64(&ob, "kernels", G.nk);
	out_i64(&ob, "streams", G.nst);
	if (G.havek) {
		out_i64(&ob, "start_ns", G.first);
		out_i64(&ob, "end_ns", G.last);
		putabs("start_abs_us", G.first);
		putabs("end_abs_us", G.last);
	} else {
		out_null(&ob, "start_ns");
		out_null(&ob, "end_ns");
		out_null(&ob, "start_abs_us");
		out_null(&ob, "end_abs_us");
	}
	out_nsms(&ob, "span", G.havek ? G.last - G.first : 0);
	out_nsms(&ob, "kernel_sum", G.ksum);
	out_nsms(&ob, "busy", ab);
	putratio("parallelism", G.ksum, ab);
	out_nsms(&ob, "comm_busy", cb);
	out_nsms(&ob, "compute_busy", pb);
	out_nsms(&ob, "comm_overlap", ov);
	putratio("comm_hidden_ratio", ov, cb);
	out_i64(&ob, "anchors", e->nanch);
	out_i64(&ob, "fia", cnt[0]);
	out_i64(&ob, "fia_prefill", nfia[FC_PREFILL]);
	out_i64(&ob, "fia_decode", nfia[FC_DECODE]);
	out_i64(&ob, "fia_ambiguous", nfia[FC_AMBIG]);
	putmean("fia_prefill_mean", fsum[FC_PREFILL], nfia[FC_PREFILL]);
	putmean("fia_decode_mean", fsum[FC_DECODE], nfia[FC_DECODE]);
	putmean("fia_ambiguous_mean", fsum[FC_AMBIG], nfia[FC_AMBIG]);
	out_i64(&ob, "prologue_kernels", e->pro_n);
	out_i64(&ob, "layers", (int64_t)e->nl);
	out_i64(&ob, "passes", (int64_t)np);
	if (uniform)
		out_i64(&ob, "layers_per_pass", (int64_t)(ch->rec[0].l1 - ch->rec[0].l0));
	else
		out_null(&ob, "layers_per_pass");
	putwhy(methods);
	out_key(&ob, "layer_types");
	buf_addc(&ob, '{');
	for (int ti = 0; ti < e->nt; ti++) {
		out_member(&ob, (size_t)ti, tname[e->t[ti].type]);
		out_int(&ob, tc[e->t[ti].type]);
	}
	buf_addc(&ob, '}');
	out_i64(&ob, "sampling_layers", samp);
	out_i64(&ob, "dfc", cnt[1]);
	out_i64(&ob, "grouped_matmul", cnt[2]);
	out_i64(&ob, "gating", cnt[3]);
	out_i64(&ob, "alltoallv", cnt[4]);
	out_i64(&ob, "sampling", cnt[5]);
	putratio("fia_drift_ratio", lastfia, np > 1 ? firstfia : 0);
	putratio("wall_drift_ratio", lastwall, np > 1 ? firstwall : 0);
	if (G.nk == 0 && G.opn) {
		static const char *ok[] = { "fia", "dfc", "grouped_matmul", "gating",
		    "alltoallv", "sampling" };

		out_key(&ob, "op_stat_counts");
		buf_addc(&ob, '{');
		for (int i = 0; i < 6; i++) {
			out_member(&ob, (size_t)i, ok[i]);
			out_int(&ob, G.opcnt[i]);
		}
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "op_stat_counts");
	out_dec(&ob, "prefill_min_ms", prefill_min, 6);
	out_dec(&ob, "decode_max_ms", decode_max, 6);
	out_dec(&ob, "pass_gap_ms", pass_gap, 6);
	putnotes(u->notes, nn);
}

/* Training: the phase, passes and micro-batches. */
static void
sum_training(const struct unit *u)
{
	const struct eng *e = u->e;
	const int64_t *tc = e->tc;
	int64_t nfp = u->nfp, nbp = u->nbp, nsteps = u->nsteps, fl1 = u->fl1, bl1 = u->bl1;
	int funi = u->funi, buni = u->buni, agree = u->agree;
	size_t nlw = u->nlw;

	if (nlw < e->nl)
		out_i64(&ob, "layer_records", (int64_t)nlw);
	/* Training, phases, loss, period, families, parallel groups. */
	/* No kernels: nothing tells training from inference. */
	out_cstr(&ob, "phase", G.nk == 0 ? "unknown" : training ? "training" : "inference");
	out_i64(&ob, "backward_kernels", G.nbwd);
	out_i64(&ob, "optimizer_kernels", G.nopt);
	out_i64(&ob, "forward_layers", (int64_t)e->nl - tc[T_BWD]);
	out_i64(&ob, "backward_layers", tc[T_BWD]);
	out_i64(&ob, "forward_passes", nfp);
	out_i64(&ob, "backward_passes", nbp);
	out_i64(&ob, "steps", nsteps);
	if (training && nfp > 0 && nfp == nbp && nfp % nsteps == 0)
		out_i64(&ob, "micro_batches", nfp / nsteps);
	else
		out_null(&ob, "micro_batches");
	if (nfp > 0 && funi)
		out_i64(&ob, "layers_per_micro_batch", fl1);
	else
		out_null(&ob, "layers_per_micro_batch");
	if (nbp > 0 && buni)
		out_i64(&ob, "backward_layers_per_micro_batch", bl1);
	else
		out_null(&ob, "backward_layers_per_micro_batch");
	if (training)
		out_bool(&ob, "layers_agree", agree);
	else
		out_null(&ob, "layers_agree");
	out_bool(&ob, "layers_determinable", e->nl > 0);
	if (G.nk == 0 && ncr > 0)
		put_comm_ops();
	out_i64(&ob, "prefill_attention_kernels", G.npfa);
	out_i64(&ob, "decode_attention_kernels", G.nifa);
}

/* The work between passes, optimizer, loss, period, families, stages. */
static void
sum_parts(const struct unit *u)
{
	const struct eng *e = u->e;
	int ei = u->ei;

	/* The work between passes, left out of the layer and pass walls. */
	out_key(&ob, "between_passes");
	buf_addc(&ob, '{');
	for (int j = 0, any = 0; j < NBP; j++) {
		if (e->bn[j] == 0)
			continue;
		out_member(&ob, any++, bpname[j]);
		buf_adds(&ob, "{\"kernels\":");
		out_int(&ob, e->bn[j]);
		buf_adds(&ob, ",\"kernel_sum_ns\":");
		out_int(&ob, e->bsum[j]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, '}');
	if (G.opt_first >= 0) {
		out_key(&ob, "optimizer");
		buf_addc(&ob, '{');
		buf_adds(&ob, "\"first_kernel\":");
		out_esc(&ob, NT.v[G.opt_first].s, NT.v[G.opt_first].n);
		out_i64(&ob, "start_ns", G.opt_s);
		out_i64(&ob, "end_ns", G.opt_e);
		out_nsms(&ob, "wall", G.opt_e - G.opt_s);
		out_i64(&ob, "kernels", G.nph[PH_OPT]);
		out_nsms(&ob, "kernel_sum", G.phsum[PH_OPT]);
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "optimizer");
	out_i64(&ob, "phase_runs", G.nruns);
	out_i64(&ob, "loss_kernels", G.nloss + (training ? G.nargm : 0));
	out_key(&ob, "loss_ops");
	buf_addc(&ob, '[');
	for (int i = 0, m = 0; i < G.nlossn; i++) {
		int v = G.lossn[i];

		if (v < 0 && !training)
			continue;
		if (m++)
			buf_addc(&ob, ',');
		v = v < 0 ? -v - 1 : v - 1;
		out_esc(&ob, NT.v[v].s, NT.v[v].n);
	}
	buf_addc(&ob, ']');
	if (ei == E_PER && P.per) {
		out_key(&ob, "period");
		buf_addc(&ob, '{');
		buf_adds(&ob, "\"kernels\":");
		out_int(&ob, (int64_t)P.per);
		out_i64(&ob, "repeats", (int64_t)P.rep);
		out_i64(&ob, "first", (int64_t)P.at);
		out_i64(&ob, "searched", (int64_t)P.n);
		buf_addc(&ob, '}');
	} else
		out_null(&ob, "period");
	out_i64(&ob, "period_unsearched_kernels", G.pkmore);
	out_key(&ob, "families");
	buf_addc(&ob, '[');
	for (int f = 0, m = 0; f <= nfam; f++) {
		int64_t n = G.famn[f][0] + G.famn[f][1] + G.famn[f][2];

		if (n == 0)
			continue;
		if (m++)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"family\":");
		out_esc(&ob, f < nfam ? famname[f] : "other", strlen(f < nfam ? famname[f] : "other"));
		out_i64(&ob, "forward_kernels", G.famn[f][PH_FWD]);
		out_i64(&ob, "backward_kernels", G.famn[f][PH_BWD]);
		out_i64(&ob, "optimizer_kernels", G.famn[f][PH_OPT]);
		out_nsms(&ob, "kernel_sum", G.famsum[f][0] + G.famsum[f][1] + G.famsum[f][2]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	tb.len = 0;
	for (int i = 0; i < G.nstage; i++) {
		char st[96];

		snprintf(st, sizeof st, "%s%s x%lld", i ? ", " : "", famname[G.stage[i]],
		    (long long)G.stagen[i]);
		buf_adds(&tb, st);
	}
	out_str(&ob, "forward_stages", tb.p ? tb.p : "", tb.len);
	out_i64(&ob, "embedding_forward_kernels", G.nemb[0]);
	out_i64(&ob, "embedding_backward_kernels", G.nemb[1]);
	out_nsms(&ob, "embedding_kernel_sum", G.embsum);
}

static void
sum_groups(void)
{
	out_bool(&ob, "parallel_metadata", M.have);
	if (M.ppstages > 0) {
		out_i64(&ob, "pipeline_stage", M.ppstage);
		out_i64(&ob, "pipeline_stages", M.ppstages);
	} else {
		out_null(&ob, "pipeline_stage");
		out_null(&ob, "pipeline_stages");
	}
	out_key(&ob, "parallel_groups");
	buf_addc(&ob, '[');
	for (int i = 0; i < M.n; i++) {
		out_item(&ob, i, "name");
		out_esc(&ob, M.name[i], strlen(M.name[i]));
		out_i64(&ob, "ranks", M.size[i]);
		if (M.role[i] >= 0)
			out_cstr(&ob, "role", roles[M.role[i]]);
		else
			out_null(&ob, "role");
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
}

void
emit_summary(const struct unit *u)
{
	head("fia_summary");
	sum_figures(u);
	sum_training(u);
	sum_parts(u);
	sum_groups();
}
