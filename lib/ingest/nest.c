/* nest: depth and leafness of host events by thread. */
#include <stdlib.h>

#include "nest.h"
#include "util.h"

int
nest_add(struct nest_thr *t, int64_t start, int64_t end, uint64_t id,
    nest_ctx_fn ctx, void *arg)
{
	size_t k = 0;

	/*
	 * The open events this lies wholly inside are context (asc-attrib's
	 * rule, asc-attrib(1)): not a partial overlap (clock skew between
	 * the Python and CANN recorders), not an instant.
	 */
	for (size_t i = 0; i < t->n; i++) {
		struct nest_open *o = &t->stk[i];

		if (o->end <= start)
			continue;
		if (end > start && end <= o->end && !o->ctx && o->id != NEST_GONE) {
			o->ctx = 1;
			ctx(arg, o->id);
		}
		t->stk[k++] = *o;
	}
	t->n = k;
	if (end > start) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->stk = xreallocarray(t->stk, t->cap, sizeof *t->stk);
		}
		t->stk[t->n++] = (struct nest_open){ end, id, 0 };
	}
	return (int)k;
}

void
nest_rename(struct nest_thr *t, uint64_t id, uint64_t newid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->stk[i].id == id)
			t->stk[i].id = newid;
}

void
nest_free(struct nest_thr *t)
{
	free(t->stk);
	t->stk = NULL;
	t->n = t->cap = 0;
}
