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

#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#define TOPK		3	/* top kernels by kernel sum, per part and kind */
#define PART_STEPS	16	/* steps with "part" records; step_parts: all */
#define MAXROLE		64

enum kind {
	K_EMBED, K_FWD, K_LMHEAD, K_PWAIT, K_P2P, K_BPRO, K_BWD, K_BEPI,
	K_GSYNC, K_OPT, K_INPUT, K_CONV, K_FC, K_LOSS, K_BACK, K_PREFILL,
	K_DECODE, K_PASS, K_BETWEEN, K_DGAP, K_OTHER, K_N
};
static const char *const kname[K_N] = {
	"embedding", "forward_layer", "lm_head_loss", "pipeline_wait",
	"pipeline_send_receive", "backward_prologue", "backward_layer",
	"backward_epilogue", "gradient_sync", "optimizer", "input",
	"conv_stage", "classifier_layer", "loss", "backward", "prefill_pass",
	"decode_pass", "forward_pass", "between_passes", "decode_gap", "other"
};
static const char *const klabel[K_N] = {
	"embedding", "forward layer", "LM head + loss", "pipeline wait",
	"pipeline send/receive", "backward before the first layer",
	"backward layer", "backward after the last layer", "gradient sync",
	"optimizer step", "input", "convolution stage", "classifier layer",
	"loss", "backward", "prefill pass", "decode pass", "forward pass",
	"between passes", "gap between decode tokens", "other"
};

struct kern {
	int64_t		 s, e, dur, wait;
	size_t		 no;		/* name in S.names, NUL-terminated */
	int		 step;		/* index in S.step, -1: none */
	int		 kind, role, layer, pass;
	long		 key;
	unsigned	 comm:1, p2p:1, loss:1, conv:1, mm:1, lmhead:1;
};
struct layer { int64_t start, end, ksum; long kernels; size_t first; int idx, pass, lip, bwd, cls; char type[24]; };
struct pass { int idx, bwd, prefill, decode, mb; int64_t start, end; };
struct run { int phase, idx; int64_t start, end, gs; };	/* 0 fwd 1 bwd 2 opt; gs -1 */
struct step { char *id; int64_t s, e, service, ksum; int have; };

static struct {
	struct kern	*k;
	size_t		 nk, capk;
	struct buf	 names, prof, dev;
	struct layer	*l;
	size_t		 nl, capl;
	struct pass	*p;
	size_t		 np, capp;
	struct run	*r;
	size_t		 nr, capr;
	struct step	*st;
	size_t		 nst, capst;
	int		 active, training, inference, layered, mismatch;
	int		 conv;		/* a convolution stage was cut */
	long		 runs;		/* asc-fia's phase runs, recorded or not */
	int		 capped;	/* its layer or pass records are capped */
	char		 method[16], phase[16];
} S;

static struct buf ob;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-m maxline] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

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

static char	**convg, **mmg, *rolename[MAXROLE], **roleg[MAXROLE];
static int	 nrole;

/*
 * The sides are the op families of fia.families (attention, matmul,
 * normalization, activation, ...) for compute kernels, comm for
 * communication kernels, other for the rest; the convolution and matmul
 * families also cut the stages of a capture without layers.
 */
static void
loadglobs(void)
{
	jv f = rules_get("fia.families");

	jv_array_foreach(f, i, e) {
		jv n = jv_object_get(jv_copy(e), jv_string("family"));

		if (nrole < MAXROLE - 2 && jv_get_kind(n) == JV_KIND_STRING) {
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
	rolename[nrole++] = xstrdup("comm");
	rolename[nrole++] = xstrdup("other");
}

/* A communication kernel is comm; else the first family that matches. */
static int
roleof(const char *name, int comm)
{
	if (comm)
		return nrole - 2;
	for (int i = 0; i < nrole - 2; i++)
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
	tmp.len = 0;
	if (k.task_type != NULL)
		rf_str(k.task_type, &tmp);
	buf_addc(&tmp, '\0');
	x->comm = rules_match("ops.comm_task_types", tmp.p);
	const char *nm = S.names.p + x->no;

	x->p2p = rules_match("fia.p2p", nm);
	x->loss = rules_match("fia.loss", nm);
	x->conv = matchany(convg, nm);
	x->mm = !x->conv && matchany(mmg, nm);
	x->role = roleof(nm, x->comm);
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
	jv o = jv_parse_sized(r->line, (int)r->len);

	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		snprintf(r->err, sizeof r->err, "not a JSON object");
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
 * Layer kernels: the run of the layer's kernel count that starts at its
 * first kernel, as asc-fia cut it.  A run that does not start there or
 * whose kernel sum differs is counted in S.mismatch (never expected).
 */
static void
marklayers(void)
{
	size_t j = 0;

	for (size_t i = 0; i < S.nl; i++) {
		struct layer *l = &S.l[i];
		int64_t sum = 0;

		while (j < S.nk && (S.k[j].s < l->start || S.k[j].layer >= 0))
			j++;
		l->first = (size_t)-1;
		if (j == S.nk || S.k[j].s != l->start) {
			S.mismatch++;
			continue;
		}
		l->first = j;
		for (long c = 0; c < l->kernels && j < S.nk; c++, j++) {
			S.k[j].layer = (int)i;
			S.k[j].kind = l->bwd ? K_BWD : K_FWD;
			S.k[j].key = (long)i;
			sum += S.k[j].dur;
		}
		if (sum != l->ksum)
			S.mismatch++;
	}
	S.layered = S.nl > 0;
}

static int
lcmp(const void *a, const void *b)
{
	const long *x = a, *y = b;

	return (*x > *y) - (*x < *y);
}

/* Is layer i a forward layer that a backward layer follows? */
static int
beforebwd(size_t i)
{
	return !S.l[i].bwd && i + 1 < S.nl && S.l[i + 1].bwd;
}

/*
 * The last forward layer that a backward layer follows with no
 * send/receive between (a last pipeline stage, or no pipeline) holds, as
 * asc-fia cuts it at the next attention anchor, the final norm, the LM
 * head and the loss, forward and backward.  Its kernels past the median
 * kernel count of the other forward layers of its type go to an
 * lm_head_loss part, when they hold a matmul or a loss kernel.
 */
static void
splitlmhead(void)
{
	long *n = xreallocarray(NULL, S.nl + 1, sizeof *n);

	for (size_t i = 0; i < S.nl; i++) {
		struct layer *l = &S.l[i];
		size_t m = 0, extra = 0;

		if (!beforebwd(i) || l->first == (size_t)-1)
			continue;
		for (size_t j = 0; j < S.nl; j++)
			if (j != i && !S.l[j].bwd && !beforebwd(j) && strcmp(S.l[j].type, l->type) == 0)
				n[m++] = S.l[j].kernels;
		if (m == 0)
			continue;
		qsort(n, m, sizeof *n, lcmp);
		long n0 = n[m / 2];

		if (l->kernels <= n0)
			continue;
		for (size_t j = l->first + (size_t)n0; j < l->first + (size_t)l->kernels; j++)
			if (S.k[j].mm || S.k[j].loss)
				extra = 1;
		if (!extra)
			continue;
		for (size_t j = l->first + (size_t)n0; j < l->first + (size_t)l->kernels; j++) {
			S.k[j].layer = -1, S.k[j].lmhead = 1;
			S.k[j].kind = K_LMHEAD, S.k[j].key = (long)(l->first + (size_t)n0);
		}
	}
	free(n);
}

static struct pass *
passof(int idx)
{
	for (size_t i = 0; i < S.np; i++)
		if (S.p[i].idx == idx)
			return &S.p[i];
	return NULL;
}

static int
passkind(const struct pass *p)
{
	if (p == NULL)
		return K_PASS;
	return p->decode && !p->prefill ? K_DECODE : p->prefill ? K_PREFILL : K_PASS;
}

/* The phase run of kernel x (kernels come in start order): its index. */
static size_t
runof(size_t ri, const struct kern *x)
{
	while (ri + 1 < S.nr && S.r[ri + 1].start <= x->s)
		ri++;
	return ri;
}

#define PENDING	(-1)

/* Training: optimizer, gradient sync and send/receive by phase and name. */
static void
markphases(void)
{
	size_t ri = 0;

	for (size_t i = 0; i < S.nk; i++) {
		struct kern *x = &S.k[i];

		ri = runof(ri, x);
		if (x->layer >= 0 || x->lmhead)
			continue;
		if (S.nr > 0 && S.r[ri].phase == 2)
			x->kind = K_OPT, x->key = (long)ri;
		else if (S.nr > 0 && S.r[ri].gs >= 0 && x->s >= S.r[ri].gs)
			x->kind = K_GSYNC, x->key = (long)ri;
		else
			x->kind = PENDING;
	}
}

/* A stretch [a, b) of kernels outside the layers, between prev and next. */
static int
stretchkind(size_t a, size_t b, const struct layer *prev, const struct layer *next)
{
	for (size_t i = a; i < b; i++)
		if (S.k[i].loss)
			return K_LMHEAD;
	if (next != NULL && next->lip == 0)
		return next->bwd ? K_BPRO : K_EMBED;
	if (prev != NULL && prev->bwd)
		return K_BEPI;
	return K_OTHER;
}

/*
 * The kernels of a layered training capture outside the layers: send /
 * receive runs (a wait between the last forward and the first backward
 * layer), and stretches cut where the phase run changes.
 */
static void
markstretches(void)
{
	const struct layer *prev = NULL;
	size_t ri = 0, i = 0;
	int lastkind = -1;
	size_t lastend = (size_t)-1;

	while (i < S.nk) {
		struct kern *x = &S.k[i];

		ri = runof(ri, x);
		if (x->layer >= 0)
			prev = &S.l[x->layer];
		if (x->kind != PENDING) {
			i++;
			continue;
		}
		size_t b = i + 1, r0 = ri, nx;

		while (b < S.nk && S.k[b].kind == PENDING && S.k[b].p2p == x->p2p &&
		    runof(r0, &S.k[b]) == r0)
			b++;
		for (nx = b; nx < S.nk && S.k[nx].layer < 0; nx++)
			;
		const struct layer *next = nx < S.nk ? &S.l[S.k[nx].layer] : NULL;
		int k;

		if (x->p2p)
			k = prev != NULL && !prev->bwd && next != NULL && next->bwd ? K_PWAIT : K_P2P;
		else if (!S.layered)
			k = K_OTHER;
		else
			k = stretchkind(i, b, prev, next);
		long key = k == lastkind && lastend == i ? S.k[i - 1].key : (long)i;

		for (size_t j = i; j < b; j++)
			S.k[j].kind = k, S.k[j].key = key;
		lastkind = k, lastend = b, i = b;
	}
}

/*
 * Without layers (a CNN): before the first convolution or matmul the
 * input, then a convolution stage at each convolution kernel and a
 * classifier layer at each matmul, the loss from the first loss kernel;
 * the backward phase is one part.
 */
static void
markcnn(void)
{
	size_t ri = 0;
	long stage = 0, nconv = 0, nfc = 0;
	int cur = K_INPUT;
	size_t currun = (size_t)-1;

	for (size_t i = 0; i < S.nk; i++) {
		struct kern *x = &S.k[i];

		ri = runof(ri, x);
		if (x->kind != PENDING || x->p2p)
			continue;
		if (S.nr > 0 && S.r[ri].phase == 1) {
			x->kind = K_BACK, x->key = (long)ri;
			continue;
		}
		if (ri != currun && currun != (size_t)-1 && cur == K_LOSS)
			cur = K_INPUT;
		currun = ri;
		if (x->loss && cur != K_LOSS)
			cur = K_LOSS, stage = 0;
		else if (cur != K_LOSS && (x->conv || x->mm))
			cur = x->conv ? K_CONV : K_FC, stage = x->conv ? ++nconv : ++nfc;
		S.conv |= cur == K_CONV;
		x->kind = cur, x->key = stage;
	}
}

/*
 * Inference: each pass a part, cut where its layers change from prefill
 * to decode (a pass holding both); the kernels between its layers go
 * with the layer before them.
 */
static void
markinference(void)
{
	size_t pi = 0;
	int lastpass = -1, lastkind = K_PASS;

	for (size_t i = 0; i < S.nk; i++) {
		struct kern *x = &S.k[i];

		if (x->layer >= 0) {
			const struct layer *l = &S.l[x->layer];
			struct pass *p = passof(l->pass);

			x->kind = l->cls >= 0 ? l->cls : passkind(p);
			x->key = (long)(p ? p->idx : -1) * 4 + (x->kind == K_DECODE);
			lastpass = p ? p->idx : -1, lastkind = x->kind;
			continue;
		}
		while (pi < S.np && S.p[pi].end < x->s)
			pi++;
		if (pi < S.np && x->s >= S.p[pi].start) {
			x->kind = S.p[pi].idx == lastpass ? lastkind : passkind(&S.p[pi]);
			x->key = (long)S.p[pi].idx * 4 + (x->kind == K_DECODE);
		} else
			x->kind = PENDING;
	}
	for (size_t i = 0; i < S.nk; i++)
		if (S.k[i].kind == PENDING)
			S.k[i].kind = K_BETWEEN, S.k[i].key = i > 0 && S.k[i - 1].kind == K_BETWEEN ?
			    S.k[i - 1].key : (long)i;
}

static void
assign(void)
{
	marklayers();
	if (S.inference && S.np > 0) {
		markinference();
		return;
	}
	if (!S.training) {
		for (size_t i = 0; i < S.nk; i++)
			if (S.k[i].layer < 0)
				S.k[i].kind = K_OTHER, S.k[i].key = -1;
		return;
	}
	splitlmhead();
	markphases();
	if (!S.layered)
		markcnn();
	markstretches();
}

/* The four clocks of a set of kernels inside [lo, hi], and its gaps. */
struct clk { long n; int64_t ws, we, busy, ksum, cost, gaps; };

static int
ivcmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int64_t	*ivbuf;
static size_t	 ivcap;

/*
 * idx[0..n) in start order.  wall: the first start to the last end, cut
 * at hi; busy: the union of the intervals inside the wall; gaps: its
 * holes.
 */
static struct clk
clocks(const size_t *idx, size_t n, int64_t lo, int64_t hi)
{
	struct clk c = { 0 };
	int64_t me = INT64_MIN, cs = 0, ce = 0;
	size_t m = 0;

	if (n == 0)
		return c;
	c.n = (long)n;
	c.ws = S.k[idx[0]].s < lo ? lo : S.k[idx[0]].s;
	for (size_t i = 0; i < n; i++) {
		const struct kern *x = &S.k[idx[i]];

		c.ksum += x->dur, c.cost += x->dur + x->wait;
		if (x->s < c.ws)
			c.ws = x->s < lo ? lo : x->s;
		if (x->e > me)
			me = x->e;
	}
	c.we = me < hi ? me : hi;
	if (c.we < c.ws)
		c.we = c.ws;
	if (ivcap < 2 * n)
		ivbuf = xreallocarray(ivbuf, ivcap = 2 * n, sizeof *ivbuf);
	for (size_t i = 0; i < n; i++) {
		int64_t s = S.k[idx[i]].s, e = S.k[idx[i]].e;

		s = s < c.ws ? c.ws : s, e = e > c.we ? c.we : e;
		if (e > s)
			ivbuf[2 * m] = s, ivbuf[2 * m + 1] = e, m++;
	}
	qsort(ivbuf, m, 2 * sizeof *ivbuf, ivcmp);
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || ivbuf[2 * i] > ce) {
			if (i > 0)
				c.busy += ce - cs, c.gaps++;
			cs = ivbuf[2 * i], ce = ivbuf[2 * i + 1];
		} else if (ivbuf[2 * i + 1] > ce)
			ce = ivbuf[2 * i + 1];
	}
	if (m > 0)
		c.busy += ce - cs;
	return c;
}

static void
putclk(const struct clk *c, int64_t service)
{
	out_i64(&ob, "kernels", c->n);
	out_nsms(&ob, "wall", c->we - c->ws);
	out_nsms(&ob, "busy_union", c->busy);
	out_nsms(&ob, "kernel_sum", c->ksum);
	out_nsms(&ob, "total_cost", c->cost);
	if (service >= 0) {
		out_ratio(&ob, "share", c->we - c->ws, service);
		out_i64(&ob, "bubbles", c->gaps);
		out_nsms(&ob, "bubble", c->we - c->ws - c->busy);
	}
}

static int
namecmp(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	int d = strcmp(S.names.p + S.k[*x].no, S.names.p + S.k[*y].no);

	return d ? d : (*x > *y) - (*x < *y);
}

struct grp { size_t at; long cnt; int64_t sum; };

static int
grpcmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return strcmp(S.names.p + S.k[x->at].no, S.names.p + S.k[y->at].no);
}

/* The TOPK kernel names by kernel sum (ties: by name) of idx[0..n). */
static void
puttop(const size_t *idx, size_t n)
{
	size_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v), ng = 0;
	struct grp *g = xreallocarray(NULL, n ? n : 1, sizeof *g);

	memcpy(v, idx, n * sizeof *v);
	qsort(v, n, sizeof *v, namecmp);
	for (size_t i = 0, j; i < n; i = j) {
		g[ng].at = v[i], g[ng].sum = 0;
		for (j = i; j < n && strcmp(S.names.p + S.k[v[j]].no, S.names.p + S.k[v[i]].no) == 0; j++)
			g[ng].sum += S.k[v[j]].dur;
		g[ng++].cnt = (long)(j - i);
	}
	qsort(g, ng, sizeof *g, grpcmp);
	out_key(&ob, "top_kernels");
	buf_addc(&ob, '[');
	for (size_t q = 0; q < ng && q < TOPK; q++) {
		const char *nm = S.names.p + S.k[g[q].at].no;

		buf_adds(&ob, q ? ",{\"name\":" : "{\"name\":");
		out_esc(&ob, nm, strlen(nm));
		out_i64(&ob, "kernels", g[q].cnt);
		out_nsms(&ob, "kernel_sum", g[q].sum);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	free(v);
	free(g);
}

struct part { size_t a, b; int kind, step, layer, mb; long key; };
static struct part *P;

static size_t	 np, capp;
static size_t	*mem, capm;

/* A layer part: a forward or backward layer (not a pass of layers). */
static int
islayer(const struct part *q)
{
	return q->layer >= 0 && (q->kind == K_FWD || q->kind == K_BWD);
}

/* Consecutive kernels of one step with one kind and key. */
static void
buildparts(void)
{
	np = 0;
	for (size_t i = 0; i < S.nk; i++) {
		const struct kern *x = &S.k[i];
		struct part *q = np ? &P[np - 1] : NULL;

		if (x->step < 0)
			continue;
		if (q != NULL && q->step == x->step && q->kind == x->kind && q->key == x->key) {
			q->b = i + 1;
			continue;
		}
		if (np == capp)
			P = xreallocarray(P, capp = capp ? 2 * capp : 256, sizeof *P);
		P[np++] = (struct part){ i, i + 1, x->kind, x->step, x->layer, 0, x->key };
	}
	/*
	 * Between two decode passes of a step: the gap between tokens, a part
	 * of its own (the kernels between the passes, or none).
	 */
	for (size_t i = 1; i < np; i++) {
		if (P[i].kind != K_DECODE || P[i - 1].step != P[i].step)
			continue;
		if (P[i - 1].kind == K_DECODE && P[i - 1].key != P[i].key) {
			if (np == capp)
				P = xreallocarray(P, capp *= 2, sizeof *P);
			memmove(&P[i + 1], &P[i], (np - i) * sizeof *P);
			P[i] = (struct part){ P[i + 1].a, P[i + 1].a, K_DGAP, P[i].step, -1, 0, -1 };
			np++;
		} else if (P[i - 1].kind == K_BETWEEN && i >= 2 && P[i - 2].kind == K_DECODE &&
		    P[i - 2].step == P[i].step)
			P[i - 1].kind = K_DGAP;
	}
	/* Micro-batch: the layer's pass among the passes of its direction in the step. */
	int last[2] = { -1, -1 }, mb[2] = { 0, 0 }, st = -1;

	for (size_t i = 0; i < np; i++) {
		if (P[i].step != st)
			st = P[i].step, last[0] = last[1] = -1, mb[0] = mb[1] = 0;
		if (!islayer(&P[i]))
			continue;
		const struct layer *l = &S.l[P[i].layer];

		if (l->pass != last[l->bwd])
			last[l->bwd] = l->pass, mb[l->bwd]++;
		P[i].mb = mb[l->bwd];
	}
}

static size_t
members(const struct part *q, size_t *m, int role)
{
	size_t n = 0;

	for (size_t i = q->a; i < q->b; i++)
		if (S.k[i].step == q->step && (role < 0 || S.k[i].role == role))
			m[n++] = i;
	return n;
}

static void
growmem(size_t n)
{
	if (capm < n)
		mem = xreallocarray(mem, capm = n, sizeof *mem);
}

/*
 * The part's clocks: its kernels cut at the next part's first start.  A
 * gap between decode tokens starts where the token before it ends.
 */
static struct clk
partclk(size_t pi)
{
	const struct part *q = &P[pi];
	const struct step *s = &S.st[q->step];
	int64_t hi = s->have ? s->e : INT64_MAX;
	struct clk c;

	if (pi + 1 < np && P[pi + 1].step == q->step && S.k[P[pi + 1].a].s < hi)
		hi = S.k[P[pi + 1].a].s;
	growmem(q->b - q->a + 1);
	c = clocks(mem, members(q, mem, -1), s->have ? s->s : INT64_MIN, hi);
	if (q->kind == K_DGAP && pi > 0) {
		struct clk prev = partclk(pi - 1);

		if (c.n == 0)
			c.we = hi;
		c.ws = prev.we;
		growmem(q->b - q->a + 1);
	}
	return c;
}

static void
partname(const struct part *q, char *d, size_t n)
{
	if (islayer(q))
		snprintf(d, n, "%s %d (micro-batch %d)", klabel[q->kind], S.l[q->layer].lip + 1, q->mb);
	else if (q->kind == K_CONV || q->kind == K_FC)
		snprintf(d, n, "%s %ld", q->kind == K_FC && !S.conv ? "matmul layer" : klabel[q->kind], q->key);
	else if (q->kind == K_PREFILL || q->kind == K_DECODE || q->kind == K_PASS)
		snprintf(d, n, "%s %ld", klabel[q->kind], q->key / 4);
	else if (q->kind == K_DGAP && q > P)
		snprintf(d, n, "gap after decode pass %ld", q[-1].key / 4);
	else
		snprintf(d, n, "%s", klabel[q->kind]);
}

/* sides: per role, the clocks of its kernels inside the part's wall. */
static void
putsides(const size_t *m, size_t n, const struct clk *pc, struct clk *acc)
{
	size_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	int first = 1;

	out_key(&ob, "sides");
	buf_addc(&ob, '[');
	for (int r = 0; r < nrole; r++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (S.k[m[i]].role == r)
				v[k++] = m[i];
		if (k == 0)
			continue;
		struct clk c = clocks(v, k, pc->ws, pc->we);

		if (acc != NULL) {
			acc[r].n += c.n, acc[r].busy += c.busy, acc[r].ksum += c.ksum;
			acc[r].cost += c.cost, acc[r].we += c.we - c.ws;
		}
		buf_adds(&ob, first ? "{\"side\":" : ",{\"side\":");
		out_esc(&ob, rolename[r], strlen(rolename[r]));
		putclk(&c, -1);
		buf_addc(&ob, '}');
		first = 0;
	}
	buf_addc(&ob, ']');
	free(v);
}

static void
puthead(const char *type, const struct step *s)
{
	out_begin(&ob, type);
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_raw(&ob, "device", S.dev.len ? S.dev.p : "null", S.dev.len ? S.dev.len : 4);
	out_str(&ob, "step_id", s->id, strlen(s->id));
}

static void
putpart(size_t pi, int idx)
{
	const struct part *q = &P[pi];
	const struct step *s = &S.st[q->step];
	struct clk c = partclk(pi);
	char name[96];
	size_t n;

	partname(q, name, sizeof name);
	puthead("part", s);
	out_i64(&ob, "part", idx);
	out_cstr(&ob, "kind", kname[q->kind]);
	out_cstr(&ob, "name", name);
	if (islayer(q)) {
		const struct layer *l = &S.l[q->layer];

		out_cstr(&ob, "direction", l->bwd ? "backward" : "forward");
		out_i64(&ob, "layer", l->idx);
		out_cstr(&ob, "layer_type", l->type);
		out_i64(&ob, "micro_batch", q->mb);
	} else {
		out_null(&ob, "direction");
		out_null(&ob, "layer");
		out_null(&ob, "layer_type");
		out_null(&ob, "micro_batch");
	}
	out_i64(&ob, "start_ns", c.ws);
	out_i64(&ob, "end_ns", c.we);
	putclk(&c, s->have ? s->service : 0);
	growmem(q->b - q->a);
	n = members(q, mem, -1);
	puttop(mem, n);
	putsides(mem, n, &c, NULL);
	rec_put(&ob, stdout);
}

static int
samekind(const struct part *a, const struct part *b)
{
	if (a->kind != b->kind)
		return 0;
	if (!islayer(a) || !islayer(b))
		return 1;
	return strcmp(S.l[a->layer].type, S.l[b->layer].type) == 0;
}

static void
kindlabel(const struct part *q, long parts, int mbs, char *d, size_t n)
{
	const char *t = islayer(q) ? S.l[q->layer].type : "";
	char ty[40] = "";

	if (*t && strcmp(t, "dense") != 0 && strcmp(t, "backward") != 0)
		snprintf(ty, sizeof ty, " (%s)", t);
	const char *kl = q->kind == K_FC && !S.conv ? "matmul layer" : klabel[q->kind];

	if (mbs > 1 && parts % mbs == 0)
		snprintf(d, n, "%s%s x%ld x%d micro-batches", kl, ty, parts / mbs, mbs);
	else if (parts > 1)
		snprintf(d, n, "%s%s x%ld", kl, ty, parts);
	else
		snprintf(d, n, "%s%s", kl, ty);
}

/* One kind of part of the step [p0, p1) (the parts like P[k]), summed. */
static void
putkind(size_t p0, size_t p1, size_t k, const struct clk *pc, const struct step *s)
{
	struct clk sum = { 0 }, acc[MAXROLE];
	long parts = 0;
	int mbs = 0;
	size_t n = 0, tot = 0;
	char label[128];

	memset(acc, 0, sizeof acc);
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k]))
			tot += P[i].b - P[i].a;
	growmem(tot);
	for (size_t i = p0; i < p1; i++) {
		if (!samekind(&P[i], &P[k]))
			continue;
		parts++;
		if (P[i].mb > mbs)
			mbs = P[i].mb;
		sum.n += pc[i - p0].n, sum.we += pc[i - p0].we - pc[i - p0].ws;
		sum.busy += pc[i - p0].busy, sum.ksum += pc[i - p0].ksum;
		sum.cost += pc[i - p0].cost, sum.gaps += pc[i - p0].gaps;
		n += members(&P[i], mem + n, -1);
	}
	long nloss = 0;

	for (size_t i = 0; i < n; i++)
		nloss += S.k[mem[i]].loss;
	kindlabel(&P[k], parts, mbs, label, sizeof label);
	buf_adds(&ob, "{\"kind\":");
	out_esc(&ob, kname[P[k].kind], strlen(kname[P[k].kind]));
	out_cstr(&ob, "label", label);
	if (islayer(&P[k]))
		out_cstr(&ob, "layer_type", S.l[P[k].layer].type);
	else
		out_null(&ob, "layer_type");
	out_i64(&ob, "parts", parts);
	if (mbs > 0)
		out_i64(&ob, "micro_batches", mbs);
	else
		out_null(&ob, "micro_batches");
	putclk(&sum, s->have ? s->service : 0);
	out_i64(&ob, "loss_kernels", nloss);
	puttop(mem, n);
	/* The sides summed over the parts, each part's cut at its wall. */
	out_key(&ob, "sides");
	buf_addc(&ob, '[');
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k])) {
			/* Each part's sides are written, summed, then cut off. */
			size_t m = members(&P[i], mem, -1), len = ob.len;

			putsides(mem, m, &pc[i - p0], acc);
			ob.len = len;
		}
	for (int r = 0, first = 1; r < nrole; r++) {
		if (acc[r].n == 0)
			continue;
		buf_adds(&ob, first ? "{\"side\":" : ",{\"side\":");
		out_esc(&ob, rolename[r], strlen(rolename[r]));
		out_i64(&ob, "kernels", acc[r].n);
		out_nsms(&ob, "wall", acc[r].we);
		out_nsms(&ob, "busy_union", acc[r].busy);
		out_nsms(&ob, "kernel_sum", acc[r].ksum);
		out_nsms(&ob, "total_cost", acc[r].cost);
		buf_addc(&ob, '}');
		first = 0;
	}
	buf_adds(&ob, "]}");
}

/* The step_parts record of the step of the parts [p0, p1). */
static void
putstep(size_t p0, size_t p1)
{
	const struct step *s = &S.st[P[p0].step];
	struct clk *pc = xreallocarray(NULL, p1 - p0, sizeof *pc);
	int64_t wall = 0, ksum = 0;
	long kern = 0;

	for (size_t i = p0; i < p1; i++) {
		pc[i - p0] = partclk(i);
		wall += pc[i - p0].we - pc[i - p0].ws, ksum += pc[i - p0].ksum, kern += pc[i - p0].n;
	}
	puthead("step_parts", s);
	out_cstr(&ob, "method", S.method[0] ? S.method : NULL);
	out_cstr(&ob, "phase", S.phase[0] ? S.phase : NULL);
	out_bool(&ob, "layers_matched", S.mismatch == 0);
	out_i64(&ob, "parts", (int64_t)(p1 - p0));
	out_i64(&ob, "kernels", kern);
	out_nsms(&ob, "service", s->have ? s->service : 0);
	out_nsms(&ob, "step_kernel_sum", s->ksum);
	out_nsms(&ob, "kernel_sum", ksum);
	out_nsms(&ob, "wall_sum", wall);
	out_nsms(&ob, "between_parts", (s->have ? s->service : 0) - wall);
	out_key(&ob, "kinds");
	buf_addc(&ob, '[');
	for (size_t k = p0, first = 1; k < p1; k++) {
		size_t j;

		for (j = p0; j < k && !samekind(&P[j], &P[k]); j++)
			;
		if (j < k)
			continue;
		if (!first)
			buf_addc(&ob, ',');
		first = 0;
		putkind(p0, p1, k, pc, s);
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
	free(pc);
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
	if (sr_is(t, n, "kernel"))
		return kernelrec(r);
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

static void
onend(void *arg)
{
	(void)arg;
	finish();
}

int
main(int argc, char *argv[])
{
	static const char *const own[] = { "part", "step_parts", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rules = NULL;
	int c, kflag = 0, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "km:r:")) != -1)
		switch (c) {
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			rules = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rules);
	loadglobs();
	rc = sr_run(argc, argv, maxline, kflag, &f);
	xclose_stdout();
	return rc;
}
