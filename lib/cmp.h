/*
 * cmp: three-way comparisons for qsort(3) comparators, written once so a
 * comparator says only its keys.
 */
#ifndef ASC_CMP_H
#define ASC_CMP_H

/* -1, 0 or 1 as a is below, equal to or above b (any arithmetic type). */
#define CMP(a, b)	(((a) > (b)) - ((a) < (b)))

/*
 * The fields k0, k1, ... of the elements *x and *y in turn, ascending:
 * the first that differs decides; 0 when none does.
 */
#define CMP_2(k0, k1)	(CMP(x->k0, y->k0) ? CMP(x->k0, y->k0) : CMP(x->k1, y->k1))
#define CMP_3(k0, k1, k2) \
	(CMP(x->k0, y->k0) ? CMP(x->k0, y->k0) : CMP_2(k1, k2))
#define CMP_4(k0, k1, k2, k3) \
	(CMP(x->k0, y->k0) ? CMP(x->k0, y->k0) : CMP_3(k1, k2, k3))

/*
 * A qsort(3) comparator named fn of elements of type T, by keys (one of
 * the CMP_n above): static CMP_FN(opcmp, struct op, CMP_2(start, end)).
 */
#define CMP_FN(fn, T, keys) \
	int fn(const void *a, const void *b) \
	{ const T *x = a, *y = b; return keys; }

#endif
