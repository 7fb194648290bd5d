/* nest: depth and leafness of host events by thread. */
#include <stdlib.h>

#include "nest.h"
#include "util.h"

int
nest_add(struct nest_thr *t, int64_t start, int64_t end, uint64_t id,
    nest_ctx_fn ctx, void *arg)
{
	size_t k = 0;

	/* the thread's previous event is context if this starts in it */
	if (t->haslast && start < t->last.end && !t->last.ctx && t->last.id != NEST_GONE) {
		t->last.ctx = 1;
		ctx(arg, t->last.id);
	}
	for (size_t i = 0; i < t->n; i++)
		if (t->stk[i].end > start)
			t->stk[k++] = t->stk[i];
	t->n = k;
	if (end > start) {
		if (t->n == t->cap) {
			t->cap = t->cap ? t->cap * 2 : 16;
			t->stk = xreallocarray(t->stk, t->cap, sizeof *t->stk);
		}
		t->stk[t->n++] = (struct nest_open){ end, id, 0 };
	}
	t->last = (struct nest_open){ end, id, 0 };
	t->haslast = 1;
	return (int)k;
}

void
nest_rename(struct nest_thr *t, uint64_t id, uint64_t newid)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->stk[i].id == id)
			t->stk[i].id = newid;
	if (t->haslast && t->last.id == id)
		t->last.id = newid;
}

void
nest_free(struct nest_thr *t)
{
	free(t->stk);
	t->stk = NULL;
	t->n = t->cap = 0;
}
