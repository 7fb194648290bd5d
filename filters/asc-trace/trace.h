/*
 * asc-trace's own modules (filters/asc-trace/, linked into asc-trace
 * alone): the event writer and our tracks (out.c), the time breakdown
 * drawn from the kernels (breakdown.c), and --merge's copy of the original
 * trace (merge.c).  filters/asc-trace.c reads the records in two passes
 * and drives them.
 */
#ifndef ASC_TRACE_H
#define ASC_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "rec.h"
#include "util.h"

/* Our tracks: thread ids far above any stream id, sorted above them. */
enum { T_STEP, T_BREAK, T_BUBBLE, T_STRUCT, T_WAIT, NTRACK };
#define TID_BASE	1000000000LL

/* asc-trace.c */
extern int64_t origin_ns;
extern char *profname;
extern int aflag;		/* -a: each busy segment an event */

/* out.c: the output, the process our tracks go on (as text), the event
 * being written */
extern FILE *out;
extern char pid[64];
extern int ownpid;
extern struct buf eb;

void	 emit(const char *, size_t);
void	 sep(void);
void	 ev_begin(int, const char *, size_t, const char *, int64_t, int64_t, const char *);
void	 ev_end(void);
void	 meta(const char *, int64_t, const char *, const char *, long, int);
void	 tracks(void);
void	 kv_us(const char *, int64_t);

/* breakdown.c */
void	 win_add(const struct rin *, int64_t, int64_t);
void	 do_busy(struct rin *);
void	 busy_flush(void);

/* merge.c */
struct copier {
	int		 fd;
	const char	*name;
	char		*b;
	size_t		 pos, len;
	uint64_t	 off;		/* bytes read before b[pos] */
	int		 object;	/* {"traceEvents":[...]} */
	unsigned long	 elements, escaped, nonnum;
	struct buf	 tail;		/* the object after the array */
};

void	 copy_head(struct copier *);
void	 copy_events(struct copier *);
void	 read_tail(struct copier *);
void	 copy_tail(struct copier *);

#endif
