/*
 * nest: the depth and leafness of host events, one thread at a time, for
 * both the text timeline (trace.c) and the SQLite export (dbhost.c).
 *
 * Events of a thread arrive in start order (ties: the longer first).  An
 * event's depth is the number of the thread's events still open at its
 * start (their end after it).  An event is context (leaf false) when
 * another event of its thread, of nonzero length, lies wholly inside it
 * (starts at or after its start, ends at or before its end); a partial
 * overlap does not count.  When none has by the time the sweep passes
 * its end, it is a leaf (markers never are: the caller's to say).  This
 * is the rule asc-attrib applies to the records (asc-attrib(1)).  The caller keeps the events; nest knows them by
 * an id it gives, and tells it through a callback.
 */
#ifndef ASC_NEST_H
#define ASC_NEST_H

#include <stddef.h>
#include <stdint.h>

struct nest_open {
	int64_t		 end;
	uint64_t	 id;
};

struct nest_thr {
	struct nest_open *stk;		/* heap: the thread's open events */
	size_t		 n, cap;
	struct nest_open *cand;		/* heap: those not yet context */
	size_t		 ncand, ccap;
};

/* Event id of the thread is context: called once per event at most. */
typedef void (*nest_ctx_fn)(void *arg, uint64_t id);

/*
 * Event [start, end] of thread t arrives: its depth.  ctx is called for
 * each earlier event of the thread it makes context.  O(log n) a call.
 */
int	nest_add(struct nest_thr *t, int64_t start, int64_t end, uint64_t id,
	    nest_ctx_fn ctx, void *arg);
/*
 * Nothing of thread t is open at now (no event of it starts before now
 * any more): its memory is freed, and 1 returned; else 0.
 */
int	nest_idle(struct nest_thr *t, int64_t now);
void	nest_free(struct nest_thr *t);

#endif
