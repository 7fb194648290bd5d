/* asc-fia: the records of a unit but its summary (fia.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "nsms.h"
#include "rec.h"
#include "rules.h"
#include "strv.h"
#include "util.h"

#include "fia.h"

void
putratio(const char *k, int64_t num, int64_t den)
{
	char t[40];
	int n;

	if (den <= 0) {
		out_null(&ob, k);
		return;
	}
	n = dec_ratio(t, num, den);
	out_raw(&ob, k, t, (size_t)n);
}

/* The mean of n durations summing to sum; null when there are none. */
void
putmean(const char *k, int64_t sum, int64_t n)
{
	out_nsms_or_null(&ob, k, n != 0, n ? sum / n : 0);
}

void
fmtms(struct buf *b, int64_t ns)
{
	char t[40];

	dec_fmt(t, ns, 6);
	buf_adds(b, t);
	buf_adds(b, " ms");
}

void
putwhy(int why)
{
	static const char *w[] = { "first", "gap", "decode_to_prefill", "step", "pattern",
	    "direction", "send_receive" };
	int n = 0;

	out_key(&ob, "boundary");
	buf_addc(&ob, '[');
	for (int i = 0; i < 7; i++)
		if (why & (1 << i)) {
			if (n++)
				buf_addc(&ob, ',');
			out_esc(&ob, w[i], strlen(w[i]));
		}
	buf_addc(&ob, ']');
}

void
putnotes(const char *const *notes, int n)
{
	out_strv(&ob, "notes", notes, n);
}

void
putabs(const char *k, int64_t rel)
{
	char t[40];

	if (G.haveorigin) {
		/* A string, like the profile's origin_us: a double would round it. */
		dec_fmt(t, G.origin + rel, 3);
		out_cstr(&ob, k, t);
	} else
		out_null(&ob, k);
}

static void
putpass(const struct pass *q, int64_t pi)
{
	head("fia_pass");
	out_i64(&ob, "pass", pi);
	putwhy(q->why);
	out_nsms_or_null(&ob, "gap_before", q->gap >= 0, q->gap);
	out_i64(&ob, "layer_first", (int64_t)q->l0);
	out_i64(&ob, "layer_last", (int64_t)q->l1 - 1);
	out_i64(&ob, "layers", (int64_t)(q->l1 - q->l0));
	out_i64(&ob, "fia", q->c[0]);
	out_i64(&ob, "fia_prefill", q->pf[FC_PREFILL]);
	out_i64(&ob, "fia_decode", q->pf[FC_DECODE]);
	out_i64(&ob, "fia_ambiguous", q->pf[FC_AMBIG]);
	out_i64(&ob, "start_ns", q->s);
	out_i64(&ob, "end_ns", q->en);
	putabs("start_abs_us", q->s);
	putabs("end_abs_us", q->en);
	out_nsms(&ob, "wall", q->en - q->s);
	out_nsms(&ob, "kernel_sum", q->ks);
	putmean("fia_prefill_mean", q->ps[FC_PREFILL], q->pf[FC_PREFILL]);
	putmean("fia_decode_mean", q->ps[FC_DECODE], q->pf[FC_DECODE]);
	out_i64(&ob, "kernels", q->k);
	out_key(&ob, "layer_types");
	buf_addc(&ob, '{');
	for (int t = 0, m = 0; t < NTYPE; t++)
		if (q->ptc[t]) {
			out_member(&ob, m++, tname[t]);
			out_int(&ob, q->ptc[t]);
		}
	buf_addc(&ob, '}');
	out_i64(&ob, "dfc", q->c[1]);
	out_i64(&ob, "grouped_matmul", q->c[2]);
	out_i64(&ob, "gating", q->c[3]);
	out_i64(&ob, "alltoallv", q->c[4]);
	out_i64(&ob, "sampling_layers", training ? 0 : q->c[5]);
	out_cstr(&ob, "phase", q->dir ? "backward" : "forward");
	rec_put(&ob, stdout);
}

/* Passes: all of them. */
void
emit_passes(const struct unit *u)
{
	const struct chain *ch = u->ch;

	for (size_t pi = 0; pi < ch->nrec; pi++)
		putpass(&ch->rec[pi], (int64_t)pi);
}

void
emit_layers(const struct unit *u)
{
	const struct eng *e = u->e;
	const struct chain *ch = u->ch;
	size_t nlw = u->nlw;

	for (size_t i = 0; i < nlw; i++) {
		const struct layer *L = &e->l[i];

		head("fia_layer");
		out_i64(&ob, "layer", (int64_t)i);
		out_i64(&ob, "pass", ch == &e->pat ? (int64_t)(i / e->per) : L->pass);
		out_i64(&ob, "layer_in_pass", ch == &e->pat ? (int64_t)(i % e->per) : L->inpass);
		out_cstr(&ob, "layer_type", tname[L->type]);
		out_cstr(&ob, "fia_class", fcname[L->fcls]);
		out_nsms(&ob, "anchor_dur", L->fiadur);
		out_i64(&ob, "start_ns", L->start);
		out_i64(&ob, "end_ns", L->end);
		out_nsms(&ob, "wall", L->end - L->start);
		out_nsms(&ob, "kernel_sum", L->ksum);
		out_i64(&ob, "kernels", L->kernels);
		out_i64(&ob, "dfc", L->dfc);
		out_i64(&ob, "grouped_matmul", L->gmm);
		out_i64(&ob, "gating", L->gate);
		out_i64(&ob, "alltoallv", L->a2a);
		out_i64(&ob, "ai_cpu", L->aicpu);
		out_bool(&ob, "sampling", !training && L->samp > 0);
		out_bool(&ob, "template_match", L->match);
		out_cstr(&ob, "direction", L->dir ? "backward" : "forward");
		out_bool(&ob, "loss", L->loss > 0 || (training && L->samp > 0));
		rec_put(&ob, stdout);
	}
}

/* A layer type's anomalies found at its end: a warm-up, AI_CPU kernels. */
static void
type_anomalies(struct ltype *t)
{
	char s[256];

	/* Warm-up: the type's first layer against the mean of the others. */
	if (t->count > 1) {
		int64_t rest = (t->wsum - t->firstwall) / (t->count - 1);

		if (rest > 0 && (double)t->firstwall > warmup * (double)rest) {
			char a[40], b[40], r[40];

			dec_fmt(a, t->firstwall, 6);
			dec_fmt(b, rest, 6);
			dec_ratio(r, t->firstwall, rest);
			snprintf(s, sizeof s, "warm-up: layer %d (the first of the type) "
			    "takes %s ms, %sx the mean of the others (%s ms)", t->first, a, r, b);
			tb.len = 0;
			buf_adds(&tb, s);
			anomaly(t, &tb);
		}
	}
	for (int i = 0; i < t->ntpl; i++)
		if (t->tpl[i].cls == C_AICPU) {
			tb.len = 0;
			buf_adds(&tb, "AI_CPU kernel ");
			buf_adds(&tb, NT.v[t->tpl[i].name].s);
			buf_adds(&tb, " on stream ");
			buf_adds(&tb, G.st[t->tpl[i].stream].label);
			buf_adds(&tb, " (");
			fmtms(&tb, t->tpl[i].dsum / t->matched);
			buf_adds(&tb, " per layer): an AI Core implementation would avoid the AI CPU round trip");
			anomaly(t, &tb);
		}
}

static void
put_roles(const struct ltype *t)
{
	out_key(&ob, "roles");
	buf_addc(&ob, '[');
	for (int r = 0, m = 0; r < nroles; r++) {
		if (t->rn[r] == 0)
			continue;
		if (m++)
			buf_addc(&ob, ',');
		buf_addc(&ob, '{');
		buf_adds(&ob, "\"role\":");
		out_esc(&ob, rolename(r), strlen(rolename(r)));
		out_i64(&ob, "kernels", t->rn[r]);
		out_nsms(&ob, "kernel_sum", t->rsum[r]);
		out_nsms(&ob, "wall", t->rwall[r]);
		out_nsms(&ob, "wall_per_layer", t->rwall[r] / t->count);
		putratio("share", t->rwall[r], t->wsum);
		out_key(&ob, "streams");
		buf_addc(&ob, '[');
		for (int si = 0, q = 0; si < G.nst; si++)
			if (t->rstreams[r] & (1ULL << si)) {
				if (q++)
					buf_addc(&ob, ',');
				out_esc(&ob, G.st[si].label, strlen(G.st[si].label));
			}
		buf_addc(&ob, ']');
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* The template and the anomalies. */
static void
put_tpl(const struct ltype *t)
{
	out_key(&ob, "template");
	buf_addc(&ob, '[');
	for (int i = 0; i < t->ntpl; i++) {
		const struct tk *k = &t->tpl[i];

		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		out_esc(&ob, NT.v[k->name].s, NT.v[k->name].n);
		out_cstr(&ob, "role", rolename(k->role));
		out_cstr(&ob, "stream", G.st[k->stream].label);
		out_cstr(&ob, "class", clname[k->cls]);
		out_nsms(&ob, "dur_mean", k->dsum / t->matched);
		out_nsms(&ob, "offset_mean", k->osum / t->matched);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	out_strv(&ob, "anomalies", (const char *const *)t->anom, t->nanom);
}

static void
put_type(const struct ltype *t)
{
	int64_t mean = t->wsum / t->count;
	double var = t->wsq / (double)t->count - (double)mean * (double)mean;
	int64_t sd = var > 0 ? (int64_t)llround(sqrt(var)) : 0;
	char s[256];

	head("fia_layer_type");
	out_cstr(&ob, "layer_type", tname[t->type]);
	out_i64(&ob, "layers", t->count);
	tb.len = 0;
	buf_add(&tb, t->rtext.p, t->rtext.len);
	if (t->nr > NRANGE) {
		snprintf(s, sizeof s, ", ... (%lld more)", (long long)(t->nr - NRANGE));
		buf_adds(&tb, s);
	}
	out_str(&ob, "layer_ranges", tb.p, tb.len);
	out_i64(&ob, "first_layer", t->first);
	out_i64(&ob, "kernels", t->kernels);
	out_i64(&ob, "sampling_layers", training ? 0 : t->samp);
	out_nsms(&ob, "wall_sum", t->wsum);
	out_nsms(&ob, "wall_mean", mean);
	out_nsms(&ob, "wall_min", t->wmin);
	out_nsms(&ob, "wall_max", t->wmax);
	out_nsms(&ob, "wall_stddev", sd);
	putratio("wall_cv", sd, mean);
	out_nsms(&ob, "kernel_sum", t->ksum);
	out_nsms(&ob, "anchor_mean", t->fiasum / t->count);
	out_i64(&ob, "template_kernels", t->ntpl);
	out_bool(&ob, "template_truncated", t->truncated);
	out_i64(&ob, "matched_layers", t->matched);
	out_i64(&ob, "deviating_layers", t->deviating);
	put_roles(t);
	put_tpl(t);
	rec_put(&ob, stdout);
}

void
emit_types(const struct unit *u)
{
	struct eng *e = u->e;

	for (int ti = 0; ti < e->nt; ti++) {
		struct ltype *t = &e->t[ti];

		type_anomalies(t);
		put_type(t);
	}
}

void
emit_streams(void)
{
	int mainst = -1;

	for (int i = 0; i < G.nst; i++) {
		const struct stream *s = &G.st[i];

		if (s->ncl[C_COMPUTE] * 2 > s->n &&
		    (mainst < 0 || s->clsum[C_COMPUTE] > G.st[mainst].clsum[C_COMPUTE]))
			mainst = i;
	}
	for (int i = 0; i < G.nst; i++) {
		const struct stream *s = &G.st[i];
		int64_t ov = acc_get(&s->u) + acc_get(&s->c) - acc_get(&s->m);
		const char *role;

		if (s->ncl[C_COMM] * 2 > s->n)
			role = strstr(s->label, "alltoall") ? "all_to_all" : "hccl_comm";
		else if (s->ncl[C_AICPU] * 2 > s->n)
			role = "ai_cpu";
		else
			role = i == mainst ? "main_compute" : "side_compute";
		head("fia_stream");
		out_raw(&ob, "stream", s->raw, strlen(s->raw));
		out_cstr(&ob, "label", s->label);
		out_cstr(&ob, "role", role);
		out_i64(&ob, "kernels", s->n);
		out_i64(&ob, "compute_kernels", s->ncl[C_COMPUTE]);
		out_i64(&ob, "comm_kernels", s->ncl[C_COMM]);
		out_i64(&ob, "ai_cpu_kernels", s->ncl[C_AICPU]);
		out_nsms(&ob, "kernel_sum", s->sum);
		out_nsms(&ob, "busy", acc_get(&s->u));
		out_nsms(&ob, "overlap_compute", ov);
		putratio("hidden_ratio", ov, acc_get(&s->u));
		out_cstr(&ob, "first_kernel", s->first);
		rec_put(&ob, stdout);
	}
}

/* Phases: the runs of one phase. */
void
emit_phases(void)
{
	if (G.nruns > 0)
		run_close();
	for (int64_t i = 0; i < G.nruns; i++) {
		const struct prun *u = &G.runs[i];
		int64_t end = u->sync ? u->we : u->e, n = u->sync ? u->w.n : u->a.n;
		int64_t sum = u->sync ? u->w.sum : u->a.sum, csum = u->sync ? u->w.csum : u->a.csum;
		int64_t cn = u->sync ? u->w.cn : u->a.cn;

		head("fia_phase");
		out_i64(&ob, "run", i);
		out_cstr(&ob, "phase", phname[u->ph]);
		out_i64(&ob, "start_ns", u->s);
		out_i64(&ob, "end_ns", end);
		out_nsms(&ob, "wall", end - u->s);
		out_nsms(&ob, "kernel_sum", sum);
		out_nsms(&ob, "compute_kernel_sum", sum - csum);
		out_nsms(&ob, "comm_kernel_sum", csum);
		out_i64(&ob, "comm_kernels", cn);
		out_i64(&ob, "kernels", n);
		out_cstr(&ob, "first_kernel", NT.v[u->first].s);
		out_key(&ob, "gradient_sync");
		if (u->sync) {
			buf_adds(&ob, "{\"start_ns\":");
			out_int(&ob, u->ts);
			out_i64(&ob, "end_ns", u->e);
			out_nsms(&ob, "wall", u->e - u->ts);
			out_i64(&ob, "kernels", u->a.n - u->w.n);
			out_i64(&ob, "comm_kernels", u->a.cn - u->w.cn);
			out_nsms(&ob, "comm_kernel_sum", u->a.csum - u->w.csum);
			out_nsms(&ob, "kernel_sum", u->a.sum - u->w.sum);
			/* the backward's collectives running on into the sync */
			out_i64(&ob, "backward_comm_end_ns", u->w.me > u->we ? u->w.me : u->we);
			out_i64(&ob, "backward_comm_kernels", u->mv);
			if (u->xc >= 0) {
				out_i64(&ob, "wait_start_ns", u->xs);
				out_i64(&ob, "wait_end_ns", u->xe);
				out_nsms(&ob, "wait", u->xe - u->xs);
				out_cstr(&ob, "wait_on", u->xcraw[0] ? u->xcraw : NT.v[u->xc].s);
			} else {
				out_null(&ob, "wait_start_ns");
				out_null(&ob, "wait_end_ns");
				out_nsms_null(&ob, "wait");
				out_null(&ob, "wait_on");
			}
			buf_addc(&ob, '}');
		} else
			buf_adds(&ob, "null");
		rec_put(&ob, stdout);
	}
}

/* Communication: by op, group and role, with where the role came from. */
void
emit_comm(void)
{
	for (int i = 0; i < G.ncb; i++) {
		const struct cb *c = &G.cb[i];

		head("fia_comm");
		out_cstr(&ob, "op", NT.v[c->name].s);
		if (c->group >= 0)
			out_cstr(&ob, "group", NT.v[c->group].s);
		else
			out_null(&ob, "group");
		out_cstr(&ob, "role", rolename(c->role));
		out_cstr(&ob, "role_source", rsname[c->src]);
		out_cstr(&ob, "role_evidence", c->src == RS_INF ? cgwhy(c->group) : NULL);
		out_i64(&ob, "kernels", c->n);
		out_nsms(&ob, "kernel_sum", c->sum);
		out_i64(&ob, "forward_kernels", c->nph[PH_FWD]);
		out_i64(&ob, "backward_kernels", c->nph[PH_BWD]);
		out_i64(&ob, "gradient_sync_kernels", c->nsync);
		out_i64(&ob, "optimizer_kernels", c->nph[PH_OPT]);
		{	/* the named group its comm group matched */
			const char *pg = NULL;

			for (int k = 0; c->group >= 0 && k < ncg; k++)
				if (CG[k].g == c->group && CG[k].meta >= 0)
					pg = M.name[CG[k].meta];
			out_cstr(&ob, "parallel_group", pg);
		}
		rec_put(&ob, stdout);
	}
}
