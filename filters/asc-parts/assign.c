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
	splitlmhead();
	markphases();
	if (!S.layered)
		markcnn();
	markstretches();
}
