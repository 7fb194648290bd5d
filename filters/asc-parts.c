/*
 * asc-parts: where the time of a step goes by model part.  From the
 * kernels of a profile and what asc-fia(1) found in them (its fia_layer,
 * fia_pass, fia_phase and fia_summary records), every kernel of a step is
 * put in exactly one part (embedding, forward layer k, LM head + loss,
 * pipeline wait, backward layer k, gradient sync, optimizer step, ...),
 * and each part gets the four clocks of asc-segment(1), its bubbles, its
 * top kernels and its sides (the fia.roles of its kernels).  Written at
 * the end of each profile as "part" and "step_parts" records.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "filter.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"
#include "asc-parts/parts.h"

struct partstate S;

struct buf ob;

/* A rules list of globs as a NULL-terminated array of C strings. */
static char **
globs(jv g)
{
	char **v = xcalloc((size_t)(jv_get_kind(g) == JV_KIND_ARRAY ? jv_array_length(jv_copy(g)) : 0) + 1, sizeof *v);
	size_t n = 0;

	if (jv_get_kind(g) == JV_KIND_ARRAY)
		jv_array_foreach(g, i, x) {
			if (jv_get_kind(x) == JV_KIND_STRING)
				v[n++] = xstrdup(jv_string_value(x));
			jv_free(x);
		}
	jv_free(g);
	return v;
}

static int
matchany(char *const *g, const char *name)
{
	for (; *g; g++)
		if (fnmatch(*g, name, 0) == 0)
			return 1;
	return 0;
}

static char	**convg, **mmg, **roleg[MAXROLE];
char		*rolename[MAXROLE];
int		 nrole;

/*
 * The sides are the op families of fia.families (attention, matmul,
 * normalization, activation, ...) and gradient norm for compute kernels,
 * comm for communication kernels, other for the rest; the convolution
 * and matmul families also cut the stages of a capture without layers.
 */
static void
loadglobs(void)
{
	jv f = rules_get("fia.families");

	jv_array_foreach(f, i, e) {
		jv n = jv_object_get(jv_copy(e), jv_string("family"));

		if (nrole < MAXROLE - 3 && jv_get_kind(n) == JV_KIND_STRING) {
			rolename[nrole] = xstrdup(jv_string_value(n));
			roleg[nrole] = globs(jv_object_get(jv_copy(e), jv_string("names")));
			if (strcmp(rolename[nrole], "convolution") == 0)
				convg = roleg[nrole];
			else if (strcmp(rolename[nrole], "matmul") == 0)
				mmg = roleg[nrole];
			nrole++;
		}
		jv_free(n);
		jv_free(e);
	}
	jv_free(f);
	if (convg == NULL)
		convg = globs(jv_null());
	if (mmg == NULL)
		mmg = globs(jv_null());
	rolename[nrole] = xstrdup("gradient norm");
	roleg[nrole++] = globs(rules_get("fia.grad_norm"));
	rolename[nrole++] = xstrdup("comm");
	rolename[nrole++] = xstrdup("other");
}

/*
 * A communication kernel is comm; a gradient norm (fia.grad_norm: the
 * optimizer's, not a normalization layer) gradient norm; else the first
 * family that matches.
 */
static int
roleof(const char *name, int comm)
{
	if (comm)
		return nrole - 2;
	if (matchany(roleg[nrole - 3], name))
		return nrole - 3;
	for (int i = 0; i < nrole - 3; i++)
		if (matchany(roleg[i], name))
			return i;
	return nrole - 1;
}

static void
reset(void)
{
	for (size_t i = 0; i < S.nst; i++)
		free(S.st[i].id);
	S.nk = S.nl = S.np = S.nr = S.nst = 0;
	S.names.len = S.prof.len = S.dev.len = 0;
	S.training = S.inference = S.layered = S.mismatch = S.capped = S.conv = 0;
	S.runs = 0;
	S.method[0] = S.phase[0] = '\0';
}

static int
stepidx(const char *id, int add)
{
	for (size_t i = S.nst; i-- > 0;)
		if (strcmp(S.st[i].id, id) == 0)
			return (int)i;
	if (!add)
		return -1;
	if (S.nst == S.capst)
		S.st = xreallocarray(S.st, S.capst = S.capst ? 2 * S.capst : 16, sizeof *S.st);
	memset(&S.st[S.nst], 0, sizeof *S.st);
	S.st[S.nst].id = xstrdup(id);
	return (int)S.nst++;
}

static struct buf tmp;

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	struct kern *x;

	if (sr_kernel(r, &k) != 0)
		return -1;
	if (S.dev.len == 0)
		sr_raw(&S.dev, k.device);
	if (S.nk == S.capk)
		S.k = xreallocarray(S.k, S.capk = S.capk ? 2 * S.capk : 4096, sizeof *S.k);
	x = &S.k[S.nk++];
	memset(x, 0, sizeof *x);
	x->s = k.start, x->e = k.end, x->dur = k.dur, x->wait = k.haswait ? k.wait : 0;
	x->step = -1, x->layer = x->pass = -1, x->kind = K_OTHER;
	if (k.stream == NULL || rf_isnull(k.stream) || rf_i64(k.stream, &x->stream) != 0)
		x->stream = -1;
	if (k.step_id != NULL && !rf_isnull(k.step_id) && rf_str(k.step_id, &tmp) == 0) {
		buf_addc(&tmp, '\0');
		x->step = stepidx(tmp.p, 1);
	}
	tmp.len = 0;
	if (k.name != NULL)
		rf_str(k.name, &tmp);
	buf_addc(&tmp, '\0');
	x->no = S.names.len;
	buf_add(&S.names, tmp.p, tmp.len);
	x->ko = S.names.len;
	opkey(tmp.p, tmp.len - 1, &S.names);
	buf_addc(&S.names, '\0');
	tmp.len = 0;
	if (k.task_type != NULL)
		rf_str(k.task_type, &tmp);
	buf_addc(&tmp, '\0');
	x->comm = rules_match("ops.comm_task_types", tmp.p);
	x->cls = (unsigned)tt_class(tmp.p);
	const char *nm = S.names.p + x->no;

	x->p2p = rules_match("fia.p2p", nm);
	x->loss = rules_match("fia.loss", nm);
	x->embed = rules_match("fia.embedding", nm);
	/* the embedding's gradient, not a forward embedding (GatherV2) */
	x->egrad = x->embed && rules_match("fia.backward", nm);
	x->gnorm = rules_match("fia.grad_norm", nm);
	x->lsm = rules_match("fia.log_softmax", nm);
	x->drop = rules_match("fia.dropout", nm);
	x->metric = rules_match("fia.metric", nm);
	x->seed = rules_match("fia.grad_seed", nm);
	x->gpool = rules_match("fia.global_pool", nm);
	x->conv = matchany(convg, nm);
	x->mm = !x->conv && matchany(mmg, nm);
	x->role = roleof(nm, x->comm);
	x->pool = strcmp(rolename[x->role], "pooling") == 0;
	sr_pass(r);
	return 0;
}

static int64_t
jint(jv o, const char *k, int64_t def)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));
	int64_t n = jv_get_kind(v) == JV_KIND_NUMBER ? (int64_t)jv_number_value(v) : def;

	jv_free(v);
	return n;
}

static void
jstr(jv o, const char *k, char *dst, size_t n)
{
	jv v = jv_object_get(jv_copy(o), jv_string(k));

	snprintf(dst, n, "%s", jv_get_kind(v) == JV_KIND_STRING ? jv_string_value(v) : "");
	jv_free(v);
}

/* The fia records and step windows this stage reads. */
static int
fiarec(struct rin *r, const char *t, size_t n)
{
	size_t len;
	const char *line = rin_line(r, &len);
	jv o = jv_parse_sized(line, (int)len);

	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		rin_error(r, "not a JSON object");
		return -1;
	}
	if (sr_is(t, n, "fia_layer")) {
		if (S.nl == S.capl)
			S.l = xreallocarray(S.l, S.capl = S.capl ? 2 * S.capl : 256, sizeof *S.l);
		struct layer *l = &S.l[S.nl++];
		char dir[16];

		l->start = jint(o, "start_ns", 0), l->kernels = jint(o, "kernels", 0);
		l->end = jint(o, "end_ns", l->start);
		l->ksum = jint(o, "kernel_sum_ns", 0), l->idx = (int)jint(o, "layer", 0);
		l->pass = (int)jint(o, "pass", -1), l->lip = (int)jint(o, "layer_in_pass", 0);
		jstr(o, "direction", dir, sizeof dir);
		l->bwd = strcmp(dir, "backward") == 0;
		jstr(o, "layer_type", l->type, sizeof l->type);
		jstr(o, "fia_class", dir, sizeof dir);
		l->cls = strcmp(dir, "decode") == 0 ? K_DECODE : strcmp(dir, "prefill") == 0 ? K_PREFILL : -1;
	} else if (sr_is(t, n, "fia_pass")) {
		if (S.np == S.capp)
			S.p = xreallocarray(S.p, S.capp = S.capp ? 2 * S.capp : 64, sizeof *S.p);
		struct pass *p = &S.p[S.np++];
		char ph[16];

		memset(p, 0, sizeof *p);
		p->idx = (int)jint(o, "pass", 0), p->start = jint(o, "start_ns", 0);
		p->end = jint(o, "end_ns", 0), p->prefill = jint(o, "fia_prefill", 0) > 0;
		p->decode = jint(o, "fia_decode", 0) > 0;
		jstr(o, "phase", ph, sizeof ph);
		p->bwd = strcmp(ph, "backward") == 0;
	} else if (sr_is(t, n, "fia_phase")) {
		if (S.nr == S.capr)
			S.r = xreallocarray(S.r, S.capr = S.capr ? 2 * S.capr : 16, sizeof *S.r);
		struct run *u = &S.r[S.nr++];
		char ph[16];
		jv g = jv_object_get(jv_copy(o), jv_string("gradient_sync"));

		jstr(o, "phase", ph, sizeof ph);
		u->phase = strcmp(ph, "backward") == 0 ? 1 : strcmp(ph, "optimizer") == 0 ? 2 : 0;
		u->start = jint(o, "start_ns", 0), u->idx = (int)jint(o, "run", 0);
		u->end = jint(o, "end_ns", u->start);
		u->gs = jv_get_kind(g) == JV_KIND_OBJECT ? jint(g, "start_ns", -1) : -1;
		if (u->gs >= 0 && jint(g, "end_ns", 0) > u->end)
			u->end = jint(g, "end_ns", 0);
		jv_free(g);
	} else if (sr_is(t, n, "fia_summary")) {
		jstr(o, "phase", S.phase, sizeof S.phase);
		jstr(o, "method", S.method, sizeof S.method);
		S.training = strcmp(S.phase, "training") == 0;
		S.inference = strcmp(S.phase, "inference") == 0;
		S.runs = jint(o, "phase_runs", 0);
		jv notes = jv_object_get(jv_copy(o), jv_string("notes"));

		jv_array_foreach(notes, ni, nv) {
			if (jv_get_kind(nv) == JV_KIND_STRING && (strcmp(jv_string_value(nv), "passes_capped") == 0 ||
			    strcmp(jv_string_value(nv), "layers_capped") == 0))
				S.capped = 1;
			jv_free(nv);
		}
	} else if (sr_is(t, n, "step")) {
		char id[256];
		int i;

		jstr(o, "step_id", id, sizeof id);
		if ((i = stepidx(id, 0)) >= 0) {
			struct step *s = &S.st[i];

			s->s = jint(o, "start_ns", 0), s->e = jint(o, "end_ns", 0);
			s->service = jint(o, "service_ns", s->e - s->s);
			s->ksum = jint(o, "kernel_sum_ns", 0), s->have = 1;
		}
	}
	jv_free(o);
	sr_pass(r);
	return 0;
}

/*
 * How far asc-fia's records reach: it writes the first 64 phase runs and
 * the last, the layers of its first 64 passes.  A step with a kernel past
 * the last recorded run before a gap, or past the last recorded layer
 * when layers are capped, gets no parts (they would be guessed).
 */
static int64_t
coverage(void)
{
	int64_t t = INT64_MAX;

	for (size_t i = 0; i + 1 < S.nr; i++)
		if (S.r[i + 1].idx != S.r[i].idx + 1) {
			t = S.r[i].end;
			break;
		}
	if (S.nr > 0 && S.runs > (long)S.nr && t == INT64_MAX)
		t = S.r[S.nr - 1].end;
	if (S.capped && S.nl > 0 && S.l[S.nl - 1].end < t)
		t = S.l[S.nl - 1].end;
	return t;
}

static int
covered(size_t p0, size_t p1, int64_t t)
{
	for (size_t i = p0; i < p1; i++)
		if (S.k[P[i].b - 1].s >= t)
			return 0;
	return 1;
}

/* At the end of a profile: assign, cut, write. */
static void
finish(void)
{
	if (!S.active || S.nk == 0)
		return;
	assign();
	buildparts();
	int64_t t = coverage();

	for (size_t p0 = 0, p1; p0 < np; p0 = p1) {
		for (p1 = p0; p1 < np && P[p1].step == P[p0].step; p1++)
			;
		if (!covered(p0, p1, t))
			continue;
		for (size_t i = p0; i < p1; i++)
			if (P[p0].step < PART_STEPS)
				putpart(i, (int)(i - p0));
		putstep(p0, p1);
	}
	S.active = 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	(void)arg;
	if (sr_is(t, n, "fia_layer") || sr_is(t, n, "fia_pass") || sr_is(t, n, "fia_phase") ||
	    sr_is(t, n, "fia_summary") || sr_is(t, n, "step"))
		return fiarec(r, t, n);
	if (sr_is(t, n, "profile")) {
		finish();
		reset();
		S.active = 1;
		if (rin_scan(r) != 0)
			return -1;
		sr_raw(&S.prof, rin_get(r, "profile"));
	}
	sr_pass(r);
	return 0;
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.rec = onrec,
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec }),
		.end = finish,
		.bulk = "host",
		.own = FILTER_OWN("part", "step_parts"),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-m maxline] [-r rules] [file ...]");

	filter_getopt(argc, argv, "", &o);
	rules_load(o.rules);
	opkey_init();
	loadglobs();
	return filter_main(argc, argv, &o, &f);
}
