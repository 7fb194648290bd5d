/*
 * asc-comm's own modules (filters/asc-comm/, linked into asc-comm alone):
 * spans.c (intervals and the time under compute), groups.c (comm groups,
 * their roles, comm_group), ops.c (each op's tasks split, comm_op and
 * comm_peer), pipeline.c (comm_pipeline and comm_op_wait).
 * filters/asc-comm.c reads the records and drives them.  Calls go one
 * way: asc-comm.c -> ops.c -> pipeline.c -> groups.c -> spans.c, a file
 * calling only those after it.
 */
#ifndef ASC_COMM_H
#define ASC_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "busy.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

enum { C_REST, C_WAIT, C_MOVE };

struct task {
	int64_t		 start, end, peer, src, bytes;
	int		 cls;
	char		*op;		/* the op's name when the source gives it */
	long		 oi;		/* op index, -1 none */
};

struct op {
	char		*name, *step;
	int64_t		 start, end;
	const struct cop *rec;		/* its comm record, or NULL */
};

/* A comm record: group, kind and communication.json's own figures. */
struct cop {
	char		*name, *group, *kind;
	int64_t		 elapse, wait, transit;	/* ns, -1 unknown */
};

struct link {
	char		*group;
	int64_t		 a, b;
	double		 mb;
};

/* A step's span: from its first kernel's start to its last one's end. */
struct stb {
	char		*step;
	int64_t		 s, e;
};

/* One peer's wait in one op: attributed (the parts add up to the op's
 * wait), and its own (any Notify_Wait on it running, whatever else runs:
 * concurrent waits on several peers each count), with the parts of both
 * not under compute. */
struct pw {
	int64_t		 peer, ns, exposed, own, ownex;
};

/* One profile's records, gathered until its end. */
struct comm {
	char		*profile;	/* raw JSON of the "profile" value */
	int64_t		 rank;		/* profiler_info's rank, -1 */
	int		 have;
	struct op	*op;
	size_t		 nop, cop;
	struct task	*t;
	size_t		 nt, ct;
	struct cop	*cr;
	size_t		 ncr, ccr;
	struct link	*lk;
	size_t		 nlk, clk;
	struct iv	*cu;		/* compute kernel intervals */
	size_t		 ncu, ccu;
	struct stb	*sb;		/* each step's first and last kernel */
	size_t		 nsb, csb;
	struct iv	*eg;		/* embedding-gradient kernels */
	size_t		 neg, ceg;
	struct iv	*nw;		/* device Notify Wait tasks (Level0) */
	size_t		 nnw, cnw;
	struct iv	*mv;		/* device SDMA tasks (Level0): data moving */
	size_t		 nmv, cmv;
	char		*nwsrc;		/* where they came from */
	char		*tsrc;		/* where the tasks came from */
	char		*groups;	/* the metadata record's "groups" (raw JSON), NULL */
	int		 meta;		/* 0: no metadata record, 1: one without the file, 2: with it */
	int64_t		 maxop;		/* the longest op */
};

extern struct comm S;
extern struct buf ob;		/* the record being written */

/* A comm group matched to a named group: its global ranks, in the
 * group's own order (local rank k is gr[k]). */
struct gmap {
	char		*group;
	int64_t		*gr;
	int		 n;
};

#define PUSH(a, n, c) do { if ((n) == (c)) { (c) = (c) ? 2 * (c) : 64; \
	(a) = xreallocarray((a), (c), sizeof *(a)); } } while (0)

/* spans.c */
void sortv(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *));
size_t mergeiv(struct iv *v, size_t n);
void mergecu(void);
int64_t undercompute(int64_t s, int64_t e);

/* groups.c */
size_t members(const char *group, int64_t *m, size_t cap);
const struct gmap *findgm(const char *group);
void putgroups(void);
void cleargm(void);

/* ops.c: a profile's comm_op and comm_peer, written at its end */
void putops(void);

/* pipeline.c */
void putpipeline(void);
void putopwaits(void);

#endif
