/* nest: depth and leafness of host events by thread. */
#include <stdlib.h>

#include "nest.h"
#include "util.h"

/*
 * Two binary heaps keep each event O(log n), whatever the shape: deep
 * nesting and long events that overlap without nesting made a scan of
 * every open event quadratic.  open is a min-heap of the ends of the
 * thread's open events (its size after popping the ended ones is the
 * depth); cand a max-heap, by end, of the open events not yet context.
 */

static void
grow(struct nest_open **a, size_t n, size_t *cap)
{
	if (n == *cap) {
		*cap = *cap ? *cap * 2 : 4;
		*a = xreallocarray(*a, *cap, sizeof **a);
	}
}

/* sign 1: a min-heap by end; -1: a max-heap. */
static int
above(const struct nest_open *a, const struct nest_open *b, int sign)
{
	return sign > 0 ? a->end < b->end : a->end > b->end;
}

static void
heap_push(struct nest_open *a, size_t *n, struct nest_open v, int sign)
{
	size_t i = (*n)++;

	while (i > 0 && above(&v, &a[(i - 1) / 2], sign)) {
		a[i] = a[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	a[i] = v;
}

static void
heap_down(struct nest_open *a, size_t n, size_t i, int sign)
{
	struct nest_open v = a[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && above(&a[c + 1], &a[c], sign))
			c++;
		if (!above(&a[c], &v, sign))
			break;
		a[i] = a[c];
		i = c;
	}
	a[i] = v;
}

static void
heap_pop(struct nest_open *a, size_t *n, int sign)
{
	a[0] = a[--*n];
	if (*n)
		heap_down(a, *n, 0, sign);
}

/*
 * cand keeps the events that ended before becoming context until they
 * outnumber the open ones: then it is rebuilt from those still open.
 */
static void
cand_compact(struct nest_thr *t, int64_t start)
{
	size_t k = 0;

	if (t->ncand <= 2 * t->n + 64)
		return;
	for (size_t i = 0; i < t->ncand; i++)
		if (t->cand[i].end > start)
			t->cand[k++] = t->cand[i];
	t->ncand = k;
	for (size_t i = k / 2; i-- > 0;)
		heap_down(t->cand, k, i, -1);
}

int
nest_add(struct nest_thr *t, int64_t start, int64_t end, uint64_t id,
    nest_ctx_fn ctx, void *arg)
{
	int depth;

	while (t->n && t->stk[0].end <= start)
		heap_pop(t->stk, &t->n, 1);
	depth = (int)t->n;
	/*
	 * The open events this lies wholly inside are context (asc-attrib's
	 * rule, asc-attrib(1)): not a partial overlap (clock skew between
	 * the Python and CANN recorders), not an instant.  The ended events
	 * still in cand end at or before start, so before end: never taken.
	 */
	if (end > start) {
		while (t->ncand && t->cand[0].end >= end) {
			ctx(arg, t->cand[0].id);
			heap_pop(t->cand, &t->ncand, -1);
		}
		grow(&t->stk, t->n, &t->cap);
		heap_push(t->stk, &t->n, (struct nest_open){ end, id }, 1);
		grow(&t->cand, t->ncand, &t->ccap);
		heap_push(t->cand, &t->ncand, (struct nest_open){ end, id }, -1);
		cand_compact(t, start);
	}
	return depth;
}

int
nest_idle(struct nest_thr *t, int64_t now)
{
	while (t->n && t->stk[0].end <= now)
		heap_pop(t->stk, &t->n, 1);
	if (t->n)
		return 0;
	nest_free(t);
	return 1;
}

void
nest_free(struct nest_thr *t)
{
	free(t->stk);
	free(t->cand);
	t->stk = t->cand = NULL;
	t->n = t->cap = t->ncand = t->ccap = 0;
}
