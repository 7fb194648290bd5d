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

/* The op of key k[0..n) in view: its table key is the view's byte, then k. */
struct op *
op_get(int view, const char *k, size_t n)
{
	static struct buf tk;
	struct optab *t = &S.ops;
	struct op *o;
	size_t id;

	tk.len = 0;
	buf_addc(&tk, (char)view);
	buf_add(&tk, k, n);
	id = intern_add(&t->keys, tk.p, tk.len);
	if (id < t->n)
		return t->v[id];
	t->v = xgrow(t->v, t->n, &t->cap, 256, sizeof *t->v);
	o = t->v[t->n++] = xcalloc(1, sizeof *o);
	o->key = t->keys.v[id].s + 1;
	o->keylen = n;
	o->view = view;
	return o;
}

static void
op_free(struct op *o)
{
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
	for (size_t id = 0; id < S.ops.n; id++)
		op_free(S.ops.v[id]);
	S.ops.n = 0;
	intern_clear(&S.ops.keys);
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
