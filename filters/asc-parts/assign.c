/*
 * asc-parts: which kind of part each kernel is in (kind and key), from
 * asc-fia's layers, passes and phase runs.
 */
#include <stdlib.h>
#include <string.h>

#include "parts.h"

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

/*
 * A backward run without a gradient sync from asc-fia (a gradient kernel,
 * the embedding's, began after its last collective did) whose collective
 * outlasts its compute has one all the same, from the end of its last
 * compute kernel: the rule the run with one follows.
 */
static void
nullsync(void)
{
	for (size_t i = 0, ri = 0; i < S.nk;) {
		size_t a = i, r = ri = runof(ri, &S.k[i]);
		int64_t ce = INT64_MIN;

		for (; i < S.nk && (ri = runof(ri, &S.k[i])) == r; i++)
			if (!S.k[i].comm && S.k[i].e > ce)
				ce = S.k[i].e;
		if (S.nr == 0 || S.r[r].phase != 1 || S.r[r].gs >= 0 || ce == INT64_MIN)
			continue;
		for (size_t j = a; j < i; j++)
			if (S.k[j].comm && !S.k[j].p2p && S.k[j].s < ce && S.k[j].e > ce)
				S.r[r].gs = ce;
	}
}

/* A collective begun in a backward layer or the embedding backward. */
static int
latecomm(const struct kern *x, size_t ri)
{
	return (x->kind == K_BWD || x->kind == K_EBWD) && x->comm && !x->p2p && S.nr > 0 &&
	    S.r[ri].phase == 1 && S.r[ri].gs >= 0 && x->s < S.r[ri].gs && x->e > S.r[ri].gs;
}

/*
 * Training: optimizer, gradient sync and send/receive by phase and name;
 * a collective that outlasts the backward's compute is gradient sync,
 * wherever it began.
 */
static void
markphases(void)
{
	size_t ri = 0;

	for (size_t i = 0; i < S.nk; i++) {
		struct kern *x = &S.k[i];

		ri = runof(ri, x);
		if ((x->layer >= 0 || x->lmhead) && latecomm(x, ri))
			x->layer = -1, x->kind = K_GSYNC, x->key = (long)ri, x->late = 1;
		if (x->layer >= 0 || x->lmhead)
			continue;
		if (S.nr > 0 && S.r[ri].phase == 2)
			x->kind = K_OPT, x->key = (long)ri;
		else if (S.nr > 0 && S.r[ri].gs >= 0 && (x->s >= S.r[ri].gs ||
		    (x->comm && !x->p2p && x->e > S.r[ri].gs)))
			/* a collective that outlasts the backward's compute is
			 * gradient sync, as asc-fia cuts it (late: begun before) */
			x->kind = K_GSYNC, x->key = (long)ri, x->late = x->s < S.r[ri].gs;
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
	for (size_t i = a; i < b; i++)
		if (S.k[i].egrad && prev != NULL && prev->bwd)
			return K_EBWD;
	if (next != NULL && next->lip == 0)
		return next->bwd ? K_BPRO : K_EMBED;
	if (prev != NULL && prev->bwd)
		return K_BEPI;
	return K_OTHER;
}

/*
 * An embedding backward stretch [a, b) after a backward layer (asc-fia
 * ends the layer before the embedding's kernels) ends as splitembed ends
 * one inside a layer: at a gradient-norm kernel after its first embedding
 * gradient kernel (gradient sync from there) or at a forward embedding
 * kernel (the next micro-batch's embedding).  Returns whether it did.
 */
static int
ebwdtail(size_t a, size_t b)
{
	size_t j = a, t;

	while (j < b && !S.k[j].egrad)
		j++;
	for (t = j; t < b && !S.k[t].gnorm && !(S.k[t].embed && !S.k[t].egrad); t++)
		;
	if (t == b)
		return 0;
	if (!S.k[t].gnorm)
		for (size_t f = t; t < b; t++)
			S.k[t].kind = K_EMBED, S.k[t].key = (long)f;
	for (size_t ri = t < b ? runof(0, &S.k[t]) : 0; t < b; t++)
		S.k[t].kind = K_GSYNC, S.k[t].key = (long)ri;
	return 1;
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
		if (i > 0 && S.k[i - 1].step != x->step)
			prev = NULL;	/* a step starts before its first layer */
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

		if (x->p2p) {
			/* the stage waits in every send/receive: named by where */
			int w = prev == NULL || next == NULL ? W_NONE : !prev->bwd && next->bwd ? W_FWDBWD :
			    !prev->bwd && !next->bwd ? W_FWDFWD : next->bwd ? W_BWDBWD : W_BWDFWD;

			k = K_PWAIT;
			for (size_t j = i; j < b; j++)
				S.k[j].sub = (unsigned)w & 7;
		} else if (!S.layered)
			k = K_OTHER;
		else
			k = stretchkind(i, b, prev, next);
		long key = k == lastkind && lastend == i ? S.k[i - 1].key : (long)i;

		for (size_t j = i; j < b; j++)
			S.k[j].kind = k, S.k[j].key = key;
		lastkind = k == K_EBWD && ebwdtail(i, b) ? -1 : k, lastend = b, i = b;
	}
}

/*
 * A stage that starts at kernel i takes back what belongs to it from the
 * stage before: its dropout (fia.dropout) after the last activation of
 * the layer before, or, for the loss, the log-softmax of a cross-entropy
 * (fia.log_softmax).  No convolution, matmul or pooling kernel moves.
 */
static void
pullback(size_t i, int kind, long stage, int loss)
{
	size_t from = i;

	for (size_t j = i; j-- > 0;) {
		const struct kern *y = &S.k[j];

		if (y->step != S.k[i].step || (y->kind != K_CONV && y->kind != K_FC && y->kind != K_INPUT &&
		    y->kind != K_GPOOL) ||
		    y->conv || y->mm || y->pool)
			break;
		if (loss ? y->lsm : y->drop)
			from = j;
	}
	for (size_t j = from; j < i; j++)
		S.k[j].kind = kind, S.k[j].key = stage;
}

/* The stream with the most compute kernels of step st (-1: none). */
static int64_t
mainstream(int st)
{
	struct { int64_t id; size_t n; } c[16];
	size_t nc = 0, best = 0;

	for (size_t i = 0; i < S.nk; i++) {
		size_t q;

		if (S.k[i].step != st || S.k[i].comm || S.k[i].stream < 0)
			continue;
		for (q = 0; q < nc && c[q].id != S.k[i].stream; q++)
			;
		if (q == nc && nc < sizeof c / sizeof *c)
			c[nc].id = S.k[i].stream, c[nc++].n = 0;
		if (q < nc)
			c[q].n++;
	}
	for (size_t q = 1; q < nc; q++)
		if (c[q].n > c[best].n)
			best = q;
	return nc > 0 ? c[best].id : -1;
}

/*
 * A dropout kernel on a side stream (fia.dropout: the mask, which the
 * framework launches ahead, before the kernels it runs between on the
 * main stream) goes to the part of the next dropout kernel of the main
 * stream, the one that applies it: it moves to the start of that part,
 * whose wall starts where the part's main-stream kernels do.
 */
static void
sidedrop(void)
{
	int st = -2;
	int64_t ms = -1;

	for (size_t i = 0; i < S.nk; i++) {
		struct kern x = S.k[i];
		size_t j, t;

		if (x.step != st)
			st = x.step, ms = mainstream(st);
		if (!x.drop || x.comm || x.moved || x.stream < 0 || ms < 0 || x.stream == ms ||
		    (x.kind != K_INPUT && x.kind != K_CONV && x.kind != K_FC && x.kind != K_GPOOL))
			continue;
		for (j = i + 1; j < S.nk && S.k[j].step == st && !(S.k[j].drop && S.k[j].stream == ms); j++)
			;
		if (j == S.nk || S.k[j].step != st || (S.k[j].kind == x.kind && S.k[j].key == x.key))
			continue;
		for (t = j; t > i + 1 && S.k[t - 1].kind == S.k[j].kind && S.k[t - 1].key == S.k[j].key; t--)
			;
		x.kind = S.k[j].kind, x.key = S.k[j].key, x.moved = 1, x.at = S.k[t].s;
		memmove(&S.k[i], &S.k[i + 1], (t - i - 1) * sizeof *S.k);
		S.k[t - 1] = x;
		i--;
	}
}

/*
 * The seed of the backward (fia.grad_seed: the ones the loss's gradient
 * starts from), launched just before the backward's first kernel, is the
 * backward's.
 */
static void
seedback(void)
{
	for (size_t j = 1; j < S.nk; j++) {
		if (S.k[j].kind != K_BACK || S.k[j - 1].kind == K_BACK)
			continue;
		for (size_t t = j; t-- > 0 && S.k[t].seed && S.k[t].step == S.k[j].step && !S.k[t].comm;)
			S.k[t].kind = K_BACK, S.k[t].key = S.k[j].key;
	}
}

/*
 * Without layers (a CNN): before the first convolution or matmul the
 * input, then a convolution stage at each convolution kernel and a
 * classifier layer at each matmul, global pooling (fia.global_pool) after
 * a convolution stage on its own, the loss from the first loss kernel;
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
		if (x->loss && cur != K_LOSS) {
			cur = K_LOSS, stage = 0;
			pullback(i, cur, stage, 1);
		} else if (cur != K_LOSS && (x->conv || x->mm)) {
			cur = x->conv ? K_CONV : K_FC, stage = x->conv ? ++nconv : ++nfc;
			pullback(i, cur, stage, 0);
		} else if (cur == K_CONV && x->gpool)
			cur = K_GPOOL, stage = 0;
		S.conv |= cur == K_CONV;
		x->kind = cur, x->key = stage;
	}
	/* After the last loss kernel of a run: not the loss (a metric, say). */
	for (size_t i = S.nk; i-- > 0;) {
		if (S.k[i].kind != K_LOSS)
			continue;
		for (size_t j = i; j > 0 && S.k[j].kind == K_LOSS && !S.k[j].loss; j--)
			S.k[j].kind = K_POSTLOSS;
		while (i > 0 && S.k[i - 1].kind == K_LOSS)
			i--;
	}
	seedback();
	sidedrop();
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

#define NONE	((size_t)-1)

static int
samename(size_t i, size_t j)
{
	return strcmp(S.names.p + S.k[i].no, S.names.p + S.k[j].no) == 0;
}

/* Kernels [f - n, f) move from what held them to layer j. */
static void
takeback(size_t j, size_t n)
{
	struct layer *l = &S.l[j];

	for (size_t t = l->first - n; t < l->first; t++) {
		if (S.k[t].layer >= 0)
			S.l[S.k[t].layer].kernels--, S.l[S.k[t].layer].ksum -= S.k[t].dur;
		S.k[t].layer = (int)j, S.k[t].key = (long)j;
		S.k[t].kind = l->bwd ? K_BWD : K_FWD;
		l->kernels++, l->ksum += S.k[t].dur;
	}
	l->first -= n;
}

/*
 * Kernel t may go to the first layer l of a pass: it is in no layer, or
 * in a layer of the other direction past its first kernel (asc-fia ends
 * the last forward layer at the first backward anchor, so that layer
 * holds what the backward runs before it).
 */
static int
outside(size_t t, const struct layer *l)
{
	const struct kern *x = &S.k[t];

	return x->layer < 0 || (S.l[x->layer].bwd != l->bwd && t > S.l[x->layer].first);
}

/*
 * asc-fia cuts a layer at its anchor (the attention kernel), so what a
 * layer runs before it (its input norm, QKV projection and rotary
 * embedding; backward: the MLP's gradient) sits at the end of the layer
 * before, or before the first layer.  d: the kernels before the pass's
 * first anchor whose names repeat those before its second (the period's
 * head, in the stretch before the first layer); each layer of the pass
 * takes back as many of its d kernels as repeat, the layer before keeping
 * one at least.
 */
static void
shiftlayers(void)
{
	for (size_t i = 0; i + 1 < S.nl; i++) {
		const struct layer *l0 = &S.l[i], *l1 = &S.l[i + 1];

		if (l0->lip != 0 || l1->lip != 1 || l1->pass != l0->pass || l1->bwd != l0->bwd ||
		    l0->first == NONE || l1->first == NONE)
			continue;
		size_t a = l0->first, b = l1->first, d = 0;

		while (d < a && (long)d + 1 < l0->kernels && outside(a - 1 - d, l0) &&
		    S.k[a - 1 - d].step == S.k[a].step && !S.k[a - 1 - d].comm && samename(a - 1 - d, b - 1 - d))
			d++;
		for (size_t j = i; d > 0 && j < S.nl && S.l[j].pass == l0->pass && S.l[j].bwd == l0->bwd &&
		    S.l[j].first != NONE; j++) {
			size_t f = S.l[j].first, e = 0;

			if (j > i && S.l[j - 1].first + S.l[j - 1].kernels != f)
				break;
			while (e < d && f > e && S.k[f - 1 - e].step == S.k[f].step && samename(f - 1 - e, b - 1 - e) &&
			    (j == i ? outside(f - 1 - e, l0) : f - 1 - e > S.l[j - 1].first))
				e++;
			takeback(j, e);
		}
	}
}

/*
 * A backward layer that holds an embedding gradient kernel (fia.embedding
 * and fia.backward) ends before it: from there to the layer's end is the
 * embedding backward, up to a gradient-norm kernel (fia.grad_norm) after
 * it, where the check and scaling of the gradients before the first
 * collective begin: the gradient sync's; or up to a forward embedding
 * kernel (the next micro-batch's, which asc-fia's layer runs on to, up to
 * its first anchor): from there it is that micro-batch's embedding.
 */
static void
splitembed(void)
{
	for (size_t i = 0; i < S.nl; i++) {
		struct layer *l = &S.l[i];
		size_t end = l->first + (size_t)l->kernels, j, t;

		if (!l->bwd || l->first == NONE)
			continue;
		for (j = l->first + 1; j < end && !S.k[j].egrad; j++)
			;
		if (j == end)
			continue;
		for (t = j; t < end && !S.k[t].gnorm && !(S.k[t].embed && !S.k[t].egrad); t++)
			S.k[t].layer = -1, S.k[t].lmhead = 1, S.k[t].kind = K_EBWD, S.k[t].key = (long)j;
		if (t < end && !S.k[t].gnorm)
			for (size_t f = t; t < end; t++)
				S.k[t].layer = -1, S.k[t].lmhead = 1, S.k[t].kind = K_EMBED, S.k[t].key = (long)f;
		for (size_t ri = t < end ? runof(0, &S.k[t]) : 0; t < end; t++)
			S.k[t].layer = -1, S.k[t].lmhead = 1, S.k[t].kind = K_GSYNC, S.k[t].key = (long)ri;
		l->kernels = (long)(j - l->first);
	}
}

/*
 * The gradient clipping of a backward run's gradient sync: from the
 * first gradient-norm kernel (fia.grad_norm) after the last collective
 * before its last one, to the run's end: the norms, their sum over the
 * ranks and the scaling, the optimizer's clip-grad-norm.
 */
static void
markclip(void)
{
	for (size_t r = 0; r < S.nr; r++) {
		size_t last = NONE, end = NONE, c = NONE, from = NONE;

		for (size_t i = 0; i < S.nk; i++)
			if (S.k[i].kind == K_GSYNC && S.k[i].key == (long)r) {
				end = i;
				if (S.k[i].gnorm)
					last = i;
			}
		if (last == NONE)
			continue;
		for (size_t i = last; i-- > 0 && c == NONE;)
			if (S.k[i].kind == K_GSYNC && S.k[i].key == (long)r && S.k[i].comm)
				c = i;
		for (size_t i = c == NONE ? 0 : c + 1; i <= last && from == NONE; i++)
			if (S.k[i].kind == K_GSYNC && S.k[i].key == (long)r && S.k[i].gnorm)
				from = i;
		for (size_t i = from; i <= end; i++)
			if (S.k[i].kind == K_GSYNC && S.k[i].key == (long)r)
				S.k[i].kind = K_CLIP;
	}
}

/*
 * A collective begun inside the backward and counted in the gradient
 * sync moves to where the sync starts: before the first kernel of its
 * step at or after the run's gradient_sync start, so parts stay runs.
 */
static void
movelate(void)
{
	for (size_t i = 0; i < S.nk; i++) {
		if (!S.k[i].late)
			continue;
		struct kern x = S.k[i];
		int64_t gs = S.r[x.key].gs;
		size_t j = i + 1;

		while (j < S.nk && S.k[j].step == x.step && S.k[j].s < gs)
			j++;
		memmove(&S.k[i], &S.k[i + 1], (j - i - 1) * sizeof *S.k);
		x.late = 0, x.moved = 1, x.at = gs;
		S.k[j - 1] = x;
		i--;
	}
}

void
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
	shiftlayers();
	splitlmhead();
	splitembed();
	nullsync();
	markphases();
	if (!S.layered)
		markcnn();
	markstretches();
	markclip();
	movelate();
}
