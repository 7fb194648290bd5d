/*
 * asc-ops: the op table: ops by view and key (name, op_type, name +
 * shapes), each op's raw names and shape variants, and the rounded average.
 */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "opkey.h"
#include "rec.h"
#include "util.h"

#include "ops.h"

/* Rounded average in ns. */
int64_t
avg(int64_t sum, int64_t n)
{
	if (n <= 0)
		return 0;
	return sum >= 0 ? (sum + n / 2) / n : -((-sum + n / 2) / n);
}

struct op *
op_get(int view, const char *k, size_t n)
{
	uint64_t h = hash64((uint64_t)view, k, n);
	struct optab *t = &S.ops;
	size_t i;

	if (2 * (t->n + 1) > t->cap) {
		size_t ncap = t->cap ? 2 * t->cap : 256;
		struct op **nv = xcalloc(ncap, sizeof *nv);

		for (size_t j = 0; j < t->cap; j++)
			if (t->v[j]) {
				for (i = t->v[j]->h & (ncap - 1); nv[i]; i = (i + 1) & (ncap - 1))
					;
				nv[i] = t->v[j];
			}
		free(t->v);
		t->v = nv;
		t->cap = ncap;
	}
	for (i = h & (t->cap - 1); t->v[i]; i = (i + 1) & (t->cap - 1))
		if (t->v[i]->h == h && t->v[i]->view == view && t->v[i]->keylen == n &&
		    memcmp(t->v[i]->key, k, n) == 0)
			return t->v[i];
	struct op *o = xcalloc(1, sizeof *o);

	o->key = xstrndup(k, n);
	o->keylen = n;
	o->h = h;
	o->view = view;
	t->v[i] = o;
	t->n++;
	return o;
}

static void
op_free(struct op *o)
{
	free(o->key);
	free(o->optype);
	free(o->tt);
	for (int i = 0; i < o->nnames; i++)
		free(o->names[i]);
	free(o->inshp);
	free(o->outshp);
	free(o->polsrc);
	free(o);
}

void
ops_clear(void)
{
	for (size_t i = 0; i < S.ops.cap; i++)
		if (S.ops.v[i]) {
			op_free(S.ops.v[i]);
			S.ops.v[i] = NULL;
		}
	S.ops.n = 0;
}

void
addname(struct op *o, const char *n, size_t len)
{
	for (int i = 0; i < o->nnames; i++)
		if (strlen(o->names[i]) == len && memcmp(o->names[i], n, len) == 0)
			return;
	if (o->nnames < MAXNAMES)
		o->names[o->nnames++] = xstrndup(n, len);
	else
		o->namesmore = 1;
}

void
addshape(struct op *o, uint64_t h)
{
	for (int i = 0; i < o->nshp; i++)
		if (o->shp[i] == h)
			return;
	if (o->nshp < MAXSHP)
		o->shp[o->nshp++] = h;
	else
		o->shpmore = 1;
}
