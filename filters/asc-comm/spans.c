/*
 * asc-comm: intervals: sorting without qsort's null-pointer trap, the
 * disjoint union, and the time of a stretch under compute.
 */
#include <stdlib.h>

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

/* Nanoseconds of [s, e) covered by the disjoint sorted intervals v. */
int64_t
covered(const struct iv *v, size_t nv, int64_t s, int64_t e)
{
	size_t lo = 0, hi = nv;
	int64_t n = 0;

	while (lo < hi) {	/* the first interval ending after s */
		size_t m = (lo + hi) / 2;

		if (v[m].e <= s)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i < nv && v[i].s < e; i++) {
		int64_t a = v[i].s > s ? v[i].s : s;
		int64_t b = v[i].e < e ? v[i].e : e;

		if (b > a)
			n += b - a;
	}
	return n;
}

/* Nanoseconds of [s, e) under compute. */
int64_t
undercompute(int64_t s, int64_t e)
{
	return covered(S.cu, S.ncu, s, e);
}
