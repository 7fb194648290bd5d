/*
 * asc-comm: intervals: sorting without qsort's null-pointer trap, the
 * disjoint union, and the time of a stretch under compute (lib/busy.c's
 * iv_covered()).
 */
#include <stdlib.h>

#include "busy.h"

#include "comm.h"

/* qsort, which may not be passed the null pointer of an empty array. */
void
sortv(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int
ivcmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

/* Sort and merge intervals into a disjoint union; returns its count. */
size_t
mergeiv(struct iv *v, size_t n)
{
	size_t k = 0;

	sortv(v, n, sizeof *v, ivcmp);
	for (size_t i = 0; i < n; i++) {
		if (k && v[i].s <= v[k - 1].e) {
			if (v[i].e > v[k - 1].e)
				v[k - 1].e = v[i].e;
		} else
			v[k++] = v[i];
	}
	return k;
}

void
mergecu(void)
{
	S.ncu = mergeiv(S.cu, S.ncu);
}

/* Nanoseconds of [s, e) under compute. */
int64_t
undercompute(int64_t s, int64_t e)
{
	return iv_covered(S.cu, S.ncu, s, e);
}
