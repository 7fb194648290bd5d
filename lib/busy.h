/*
 * The device-busy union of one step: its kernels' intervals, clipped to
 * the step window, sorted and merged into segments.  asc-gaps measures
 * the step's bubbles on them, asc-merge (and asc-gaps -s) writes them as
 * "segment" records, asc-trace draws them from the kernels of a saved
 * stream, which does not carry them.  And the time an interval union
 * covers, for asc-comm's and asc-ops's unions (iv_covered).
 */
#ifndef BUSY_H
#define BUSY_H

#include <stddef.h>
#include <stdint.h>

#include "rec.h"
#include "steprec.h"

struct busy_iv {
	int64_t		 s, e;
	size_t		 ctx, ctxlen;	/* context object in busy.ctx */
	size_t		 seq;
	int		 comm;		/* a communication task (ops.comm_task_types) */
};

struct busy {
	struct busy_iv	*v;
	size_t		 n, cap;
	struct buf	 ctx;		/* the kernels' context objects (sr_ctx) */
	struct buf	 step;		/* step_id (unescaped) of the kernels held */
	int		 have;		/* kernels are held */
};

/* One merged segment; first and last name kernels in b->ctx. */
struct busy_seg {
	long			 index, kernels;
	int64_t			 s, e, compute, comm;
	const struct busy_iv	*first, *last;
};

/* Add kernel k of the step being buffered. */
void	busy_add(struct busy *b, const struct sr_kern *k);
/*
 * Kernel k of a stream after asc-steps: held (busy_add) for its step, or
 * passed over when its step_id is null.  1 held, 0 passed over, -1 with
 * r's error set: no step_id, or a step other than the kernels held.
 */
int	busy_kernel(struct busy *b, struct rin *r, const struct sr_kern *k);
/*
 * Does the step record whose "step_id" is sid (NULL: missing) close the
 * kernels held?  Its string is unescaped into *id.  0 yes, or none are
 * held; -1 with r's error set: no string, or another step (the kernels
 * held are dropped).
 */
int	busy_step(struct busy *b, struct rin *r, const struct rfield *sid, struct buf *id);
/*
 * Clip the buffered kernels to [ws, we], merge them and call fn per
 * segment in time order; compute and comm are the unions of the
 * segment's compute and communication kernels.  The buffer is emptied.
 */
void	busy_merge(struct busy *b, int64_t ws, int64_t we,
	    void (*fn)(const struct busy *, const struct busy_seg *, void *), void *arg);
void	busy_clear(struct busy *b);

/* A time interval [s, e) in ns: what asc-comm's and asc-ops's unions of
 * kernels and tasks hold. */
struct iv {
	int64_t		 s, e;
};
/* The ns of [a, b) that u[0..n), disjoint and sorted by start, cover. */
int64_t	iv_covered(const struct iv *u, size_t n, int64_t a, int64_t b);
/* The "segment" record of g into ob; prof, dev, sid: the step record's. */
void	busy_seg_rec(struct buf *ob, const struct busy *b, const struct busy_seg *g,
	    const struct rfield *prof, const struct rfield *dev, const struct rfield *sid);

#endif
