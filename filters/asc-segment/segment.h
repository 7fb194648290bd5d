/*
 * asc-segment's own modules (filters/asc-segment/, linked into asc-segment
 * alone): a step's kernels cut into structures (cut.c), the clocks and
 * bubbles measured in them (measure.c), the records written (emit.c).
 * filters/asc-segment.c reads the records, holds a step's kernels and
 * drives them.
 */
#ifndef ASC_SEGMENT_H
#define ASC_SEGMENT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "intern.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

#define MAXDEPTH	16

/* A kernel of the step being read. */
struct sk {
	int64_t		 s, e, cs, ce, dur, wait;	/* cs, ce: clipped to the window */
	int		 stream, tt, id, st;		/* st: structure index */
	unsigned char	 cls, block, empty;
	size_t		 name, key, src;		/* offsets in S.arena */
	size_t		 namelen, keylen;
};

/* A structure: kernels [first, next structure's first) of the step. */
struct st {
	size_t		 first, n;		/* buffer indices */
	int		 kind;			/* K_* */
	int		 period, rep, region;	/* repeated: kernels per block, index, region */
	int		 mainfirst;		/* first main-stream kernel index, -1 */
	int		 type;
	uint64_t	 hash;
	int64_t		 gapbefore, inside, nin, largest;
};

enum { K_REPEAT, K_IRREGULAR, K_ANNOTATED, K_GAP, K_STEP };
extern const char *const kindname[];

struct grp {
	char		*id;
	int64_t		 service;		/* total, for the dominant group */
	int64_t		 best, bestsvc;		/* candidate step: bubbles, service */
	char		*line;			/* its step_structure record */
};

/* What a profile and the step being read hold. */
struct seg {
	struct sr_sect	 sect;
	int		 drilled;
	struct buf	 prof;
	/* the step being read */
	struct sk	*k;
	size_t		 nk, capk;
	struct buf	 arena, stepid, streams, tts;
	int		 nstreams, ntts, haveid;
	struct intern	 keys;			/* the op keys of the step, by id */
	/* structure types of the profile */
	uint64_t	*types;
	size_t		 ntypes, captypes;
	/* groups */
	struct grp	*g;
	size_t		 ng, capg;
	struct buf	 domgroup;		/* from step_groups */
};

struct clocks {
	int64_t		 n, s, e, busy, sum, cost;
	int64_t		 us, ue;		/* open union segment */
	int		 have, haveu;
};

struct bub {
	int64_t		 s, d;
	int		 st, boundary;
};

/*
 * One step being closed: what its record says (detect), the structures and
 * bubbles found in its kernels (measure), read by the writers (emit).
 */
struct stepx {
	const struct rfield *sid, *gid, *dev;	/* spans of the step line */
	int64_t		 ws, we, service;
	int		 measurable, main_stream, source;
	size_t		 n;			/* kernels of the step */
	struct st	*sv;			/* structures */
	size_t		 nst;
	struct bub	*bubs;			/* bubbles in start order */
	size_t		 nbub;
	int64_t		 pre, tail, bnd, ins, nbnd, nins;
};

extern struct seg S;

/* Options and rules (asc-segment.c); ob, tmp, line: scratch buffers. */
extern const char *annot;
extern int minperiod, minrepeat, ncand, topk;
extern int64_t largegap, smallns, minbubble;
extern struct buf ob, tmp, line;

/* A string of the step's arena (its kernels' names, keys and srcs). */
static inline const char *
ap(size_t off)
{
	return S.arena.p + off;
}

/* The n-th line of a \n-separated list. */
static inline void
nth(struct buf *b, const struct buf *l, int n)
{
	const char *p = l->p;

	for (int i = 0; i < n; i++)
		p = strchr(p, '\n') + 1;
	buf_add(b, p, (size_t)(strchr(p, '\n') - p));
}

/* cut.c */
void		 step_clip(struct stepx *);
void		 step_structures(struct stepx *);

/* measure.c */
void		 clk_add(struct clocks *, const struct sk *);
void		 putclocks(struct buf *, const struct clocks *, int64_t);
void		 dominant(struct buf *, size_t, size_t, int, int);
void		 topkernels(struct buf *, const char *, size_t, size_t, int, int);
void		 topins(size_t *top, int64_t *tv, int *tn, size_t i, int64_t v);
void		 part(struct buf *, const char *, size_t, size_t, int, int);
void		 step_measure(struct stepx *);

/* emit.c */
void		 emit_structures(const struct stepx *);
void		 emit_step_structure(const struct stepx *);
void		 drilldown(void);

#endif
