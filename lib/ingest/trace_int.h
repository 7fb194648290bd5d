/*
 * trace_int: what the parts of the timeline reader share, for them alone.
 * The reader is cut by job:
 *   trace.c   open, read loop, input buffer, public getters
 *   msg.c     FILE:LINE errors, a record's "src" (FILE@OFFSET); the
 *             warnings go to t->w (warns.h)
 *   json.c    the JSON tokenizer (events as spans of the buffer)
 *   runs.c    external sorts: spilled runs of events, fixed-size runs,
 *             the order of each kind of run, a reader's empty run state
 *   events.c  Ascend logic: processes, threads, markers, flows, links
 *   split.c   reading on two threads, joined into the result of one
 *   put.c     the marker, kernel and host writers
 * Functions shared between the parts are named tr_*.  Calls go one way:
 * no part calls one that calls it back; msg.c and runs.c call none (the
 * read loop reaches split.c as a function pointer).
 */
#ifndef ASC_TRACE_INT_H
#define ASC_TRACE_INT_H

#define _GNU_SOURCE		/* memmem, memrchr */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>
#include "dec.h"
#include "jscan.h"
#include "nest.h"
#include "pidtab.h"
#include "rec.h"
#include "simd.h"
#include "util.h"
#include "trace.h"
#include "warns.h"

#define CHUNK		(8u << 20)	/* default read() size */
#define MAPWIN		((size_t)4 << 20)	/* mmap window of a regular file */
#define RDBUF		(128u << 10)	/* run reader buffer, at most */
#define RDMIN		(16u << 10)	/* run reader buffer, at least */
#define RDTOTAL		((size_t)4 << 20)	/* all readers of one merge */
#define WRBUF		(256u << 10)	/* run writer buffer */
#define OUTBUF		(256u << 10)	/* record output buffer */
#define MAXRUNS		48		/* runs per set before they are merged */
#define MAXDEPTH	512		/* JSON nesting limit */
#define DEFRUN		((size_t)40 << 20)
#define SPLITMIN	((uint64_t)64 << 20)	/* read on two threads from */
#define SPLITSCAN	((uint64_t)64 << 20)	/* look this far for an event */
#define MAXEVENT	((size_t)256 << 20)	/* one trace event, at most (as a CSV record) */

enum { R_IGN, R_HOST, R_HW, R_COMM };	/* process roles */
enum { T_IGN, T_HOST, T_DEV };		/* thread (event) roles */
/* spill sets, by the role of the event's process when it was read:
 * host, device (or communication), known other, not yet known */
enum { SET_H, SET_D, SET_I, SET_O, NSET };

/*
 * Spill record: this header, then the stream and task id (int64 each,
 * only when flagged), then name, cat, frame and task type text, padded
 * to a multiple of 8 bytes so that headers stay aligned in a buffer.
 */
struct shdr {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 ti, flags;	/* thread index */
	uint32_t	 nname, ncat, nframe, nttype;
};
_Static_assert(sizeof(struct shdr) == 48, "spill header layout");
#define F_CAT		0x01
#define F_STACK		0x02
#define F_FRAME		0x04
#define F_MARK		0x08
#define F_STREAM	0x10
#define F_TASKID	0x20
#define F_TTYPE		0x40

static inline size_t
rlen(const struct shdr *h)
{
	size_t n = sizeof *h + (h->flags & F_STREAM ? 8 : 0) +
	    (h->flags & F_TASKID ? 8 : 0) + (size_t)h->nname + h->ncat +
	    h->nframe + h->nttype;

	return (n + 7) & ~(size_t)7;
}

static inline int64_t
rext(const struct shdr *h, int i)
{
	int64_t v;

	memcpy(&v, (const char *)(h + 1) + 8 * i, sizeof v);
	return v;
}

/* The text after the header: name, cat, frame, task type. */
static inline const char *
rtext(const struct shdr *h)
{
	return (const char *)(h + 1) + (h->flags & F_STREAM ? 8 : 0) +
	    (h->flags & F_TASKID ? 8 : 0);
}

struct ridx {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 pos;		/* of the record in the block */
	uint32_t	 set;		/* spill set in the low 3 bits, the
					   record length (a multiple of 8)
					   above, or 0 if it does not fit */
};
#define IXSET(x)	((int)((x)->set & 7))

struct run {
	int		 fd;
	uint64_t	 n;
	const uint32_t	*map;		/* thread indices of a run read by
					   the second thread, or NULL */
};

struct rdr {
	int		 fd;
	uint64_t	 left;
	char		*b;		/* 8-aligned records */
	size_t		 cap, pos, len;
	const struct shdr *h;		/* current record, in b */
	int64_t		 start, dur;	/* its sort key */
	uint64_t	 off;
	const uint32_t	*map;		/* of its run */
};

struct mrg {
	struct rdr	*r;
	int		 n, nh;
	int		*hp;
};

/* Sorted runs of fixed-size records (flow ends, links): an in-memory
 * buffer, spilled as sorted runs to one file when full. */
struct frun {
	uint64_t	 off, n;
};

struct frs {
	size_t		 rsz, cap, n;	/* record size, records in m */
	int		(*cmp)(const void *, const void *);
	int		 sgn;		/* the first 8 bytes of a record, its
					   first key, are signed */
	char		*m;
	int		 fd;
	uint64_t	 end;
	struct frun	*runs;
	int		 nruns;
};

struct fsrc {
	const char	*cur;
	const char	*mp;		/* in-memory source */
	int		 fd;		/* file source */
	uint64_t	 off, left;
	char		*b;
	size_t		 bpos, blen, bcap;
};

struct fmrg {
	struct fsrc	*s;
	int		 n, nh;
	int		*hp;
	int		(*cmp)(const void *, const void *);
	size_t		 rsz;
};

struct proc {
	int64_t		 pid;
	char		*name;
	int		 dev;		/* -2 no label, -1 bare "NPU", else id */
	int		 cpu;		/* label CPU */
	int		 role;
};

/*
 * A thread: kept for every thread of the trace until its records are
 * written (the spill records name it by index), so kept to 64 bytes.
 */
struct thr {
	int64_t		 pid, tid;
	int64_t		 minx, maxx;	/* smallest start, largest end */
	unsigned long	 nx;
	unsigned long	 nct;		/* HCCL task events */
	int32_t		 pi;		/* proc index at finalize, or -1 */
	uint32_t	 name;		/* tname[name - 1], 0: none */
	uint32_t	 gen;		/* prov is valid for this (low 32
					   bits of) trace gen, if provok */
	uint8_t		 role;		/* T_* at finalize */
	uint8_t		 prov;		/* provisional set */
	uint8_t		 sets;		/* spill sets holding its events */
	uint8_t		 stack : 1;
	uint8_t		 seen : 1;	/* has an X event or a thread_name */
	uint8_t		 provok : 1;
};
_Static_assert(sizeof(struct thr) == 64, "thread layout");
_Static_assert(NSET <= 8, "spill sets of a thread");

/*
 * Step marker, a fixed-size record of sorted runs: the name is the
 * prefix of kind (an index of the rules' steps.marker_kinds, one past
 * them the -p pattern), '#' and the step digits, held here when they fit (nd),
 * else (nd MKLONG) in the arena mka at the offset and length in dig
 * (only absurdly long step numbers are kept in memory).
 */
struct marker {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 ti;		/* thread index */
	uint8_t		 kind, nd;
	uint16_t	 pad;
	char		 dig[32];
};
_Static_assert(sizeof(struct marker) == 64, "marker layout");
#define MKLONG		0xff

/* Flow end: id = the integer id, or a hash of a non-integer id (kind
 * then has bit 0x80); kind 1 async_npu/torch_to_npu, 2 HostToDevice;
 * ti the thread of an s end. */
struct fl {
	uint64_t	 id;
	int64_t		 ts;
	uint32_t	 ti, kind;
};

/* A host s end at (ti, ts) linked to the earliest f end (kts). */
struct lk {
	int64_t		 ts, kts;
	uint32_t	 ti, pad;
};

struct span {
	const char	*p;
	size_t		 n;
	int		 k;		/* 0 missing, 's' string, 'v' scalar, 'o' nested */
	int		 esc;
};

struct ev {
	struct span	 ph, name, pid, tid, ts, dur, cat, id;
	struct span	 stack, pstream, stream, taskid, ttype, aname, labels;
	struct span	 dims;		/* "Input Dims": record_shapes on a host op */
	/* HCCL task args: "task type", "src rank", "dst rank",
	 * "size(Byte)", "transport type", "stream id", "notify_id" */
	struct span	 ctt, csrc, cdst, csize, ctrans, cstream, cnotify;
};

/*
 * An HCCL task (an X event with a "task type" arg), a fixed-size record
 * of sorted runs: ranks, size and stream are -1 when absent (ranks also
 * when 4294967295, HCCL's "none"); the texts are cut to fit, NUL-padded.
 */
struct ctask {
	int64_t		 start, dur;
	uint64_t	 off;
	int64_t		 bytes, src, dst;
	int32_t		 stream;
	uint32_t	 ti;		/* thread index */
	char		 notify[24];
	char		 ttype[32];
	char		 trans[16];
};
_Static_assert(sizeof(struct ctask) == 128, "comm task layout");
#define FRSMAX		128	/* the largest fixed-size record (room for one
				   aside in the sorts and the join) */

struct pc {
	const char	*p, *e;
	const char	*ep;		/* error position */
	const char	*what;
};
enum { P_OK = 0, P_MORE = 1, P_BAD = -1 };

struct trace {
	int		 fd;
	char		*path, *disp, *tmpdir, *pattern;
	size_t		 npattern, runbytes;
	int		 progress, done;
	/* input buffer */
	char		*b;
	size_t		 cap, len, pos;
	uint64_t	 boff;
	unsigned long	 bline;
	int		 eof;
	int		 mm;		/* b is an mmap window of the file */
	size_t		 maxev;		/* bound on one event or top-level value */
	uint64_t	 fsize;
	size_t		 win;		/* its size */
	size_t		 chunk;
	uint64_t	 nread;
	struct timespec	 t0, tlast;
	char		 err[1024];
	/* metadata */
	struct proc	*pr;
	size_t		 npr, cpr;
	struct thr	*th;
	size_t		 nth, cth;
	char		**tname;	/* thread names, by thr.name - 1 */
	size_t		 ntname, ctname;
	struct pidtab	 hpr, hth;
	unsigned long	 gen;
	int		 lastth;
	int64_t		 lastpid, lasttid;
	/* spill: one block of blkcap bytes, records from the bottom
	 * (alen bytes), their index entries from the top down (nix) */
	char		*blk;
	size_t		 blkcap, alen, nix;
	struct run	*runs[NSET];
	int		 nruns[NSET];
	unsigned	 hostsets, devsets;	/* sets to merge, at finish */
	/* markers, flows */
	struct frs	 mk, mko;		/* markers: all, outermost kept */
	struct buf	 mka;			/* long step digits */
	struct frs	 fs, ff, lk;		/* s ends, f ends, links */
	struct frs	 ct;			/* HCCL tasks */
	/* results */
	struct warns	 w;
	struct trace_counts c;
	struct trace_span span;
	/* scratch */
	struct buf	 sc, sc2, sc3, sc4, ob;
	/* two threads: the first reads up to split (0: none), the
	 * second from there, with cancel and nomsg set */
	uint64_t	 split, splitmin;
	struct split	*sp;
	_Atomic int	*cancel;
	int		 nomsg;
	void		(*bad)(const char *);	/* trace_opts.bad */
	int		 splitres;	/* 1 joined, -1 dropped */
	uint32_t	*map2;		/* its thread indices, once joined */
};

/* Thread h's name (NULL: none), for events.c and put.c's records. */
static inline const char *
tr_thrname(const struct trace *t, const struct thr *h)
{
	return h->name ? t->tname[h->name - 1] : NULL;
}

enum {
	ST_START, ST_OBJ0, ST_OBJKEY, ST_OBJNEXT, ST_ARR0, ST_ARRNEXT,
	ST_ARRELEM, ST_DONE
};

/* Parser state between the two threads. */
struct rdst {
	int		 st, inobj, sawarr;
};
/* an object key span is the literal */
#define KEYIS(k, lit) ((k).n == sizeof(lit) - 1 && \
	memcmp((k).p, lit, sizeof(lit) - 1) == 0)

/* shared between the parts; msg.c: */
int	tr_bad(struct trace *t, const char *ep, const char *what);
void	tr_putsrc(struct trace *t, struct buf *b, uint64_t off);
int	tr_pkey(struct pc *c, struct span *k);
int	tr_pskip(struct pc *c, int depth);
int	tr_pevent(struct pc *c, struct ev *ev);
int	tr_tmpfd(struct trace *t);
/* Write all of p[0..n) to a spill file, at off (where it is: off < 0). */
void	tr_pwall(struct trace *t, int fd, const void *p, size_t n, int64_t off);
void	tr_wall(struct trace *t, int fd, const void *p, size_t n);
void	tr_addrun(struct trace *t, int set, int fd, uint64_t n);
void	tr_flushrun(struct trace *t);
void	tr_spill(struct trace *t, int set, const struct shdr *h, int64_t stream, int64_t taskid, const char *name, const char *cat, const char *frame, const char *ttype);
void	tr_mrg_open(struct trace *t, struct mrg *m, unsigned mask);
struct rdr *tr_mrg_top(struct mrg *m);
void	tr_mrg_pop(struct mrg *m);
void	tr_mrg_close(struct mrg *m);
void	tr_consolidate(struct trace *t, int set);
void	tr_frs_init(struct frs *f, size_t rsz, size_t bytes, int (*cmp)(const void *, const void *), int sgn);
void	tr_frs_free(struct frs *f);
void	tr_frs_sort(struct frs *f);
void	tr_frs_add(struct trace *t, struct frs *f, const void *rec);
void	tr_fmrg_open(struct fmrg *m, struct frs *f, int withmem);
const void *tr_fmrg_top(struct fmrg *m);
void	tr_fmrg_pop(struct fmrg *m);
void	tr_fmrg_close(struct fmrg *m);
int	tr_getproc(struct trace *t, int64_t pid, int create);
/* Thread (pid, tid)'s index (made if create, else -1), while the trace is
 * read: its hash is freed when reading is done. */
int	tr_getthr(struct trace *t, int64_t pid, int64_t tid, int create);
/* Room for n threads; a new thread; threads from..nth-1 into hth. */
void	tr_thrroom(struct trace *t, size_t n);
void	tr_thrinit(struct thr *h, int64_t pid, int64_t tid);
void	tr_thrindex(struct trace *t, size_t from);
/* Set thread h's name (tr_thrname) to s, a string t now owns. */
void	tr_setthrname(struct trace *t, struct thr *h, char *s);
/* The process and thread metadata changed: provisional sets are stale. */
void	tr_newgen(struct trace *t);
/* put: a record for each HCCL-store task of a process in a role. */
typedef void tr_ctput(struct trace *, struct buf *, const struct ctask *,
    const char *profile, int64_t origin);
void	tr_put_ctasks(struct trace *t, FILE *fp, int role, const char *profile,
    int64_t origin, tr_ctput *put);
/* put: the X events of the device threads in start order (the kernels,
 * device_task, the devtasks ktab.c reads): tr_dev_next sets h, its thread
 * th and process p and its text s, 0 past the last. */
struct devev {
	struct mrg	 m;
	int		 started;
	const struct shdr *h;
	const struct thr *th;
	const struct proc *p;
	const char	*s;
};
void	tr_dev_open(struct trace *t, struct devev *e);
int	tr_dev_next(struct trace *t, struct devev *e);
void	tr_dev_close(struct devev *e);

/* hwwait: keep an Ascend Hardware event if its "Task Type" is Notify Wait. */
void	tr_hwwait(struct trace *t, const struct ev *ev, const struct shdr *h, struct thr *th);
/* readrules: a marker kind's prefix; is a name a step marker (its kind
 * and the length of its prefix)? */
const char *tr_mkprefix(const struct trace *t, int kind);
int	tr_ismarker(const struct trace *t, const char *s, size_t n, size_t *klen,
    int *kind);
int	tr_event(struct trace *t, const struct ev *ev, const char *at);
int	tr_mkcmp(const void *a, const void *b);
int	tr_flcmp(const void *a, const void *b);
int	tr_lkcmp(const void *a, const void *b);
int	tr_ctcmp(const void *a, const void *b);
void	tr_finish(struct trace *t);
void	tr_progress(struct trace *t, int final);
void	tr_sortstate_init(struct trace *t, size_t chunk);
/*
 * The read loop of trace.c (tr_readloop): events from t->pos on; 0 at the
 * end of the file, -1 on bad data, 1 at the second thread's start.
 */
typedef int tr_readfn(struct trace *t, struct rdst *rs);
/*
 * split.c, reading on two threads: tr_split_start() starts the second
 * thread, running the read loop it is given, at an event guessed past the
 * middle (t->split); when the first
 * thread's read loop reaches it (returns 1), tr_split_join() adds the
 * second thread's results to the first's: 0 joined (reading is done), -1
 * dropped (the first thread reads on).  tr_split_drop() stops it and
 * throws its work away (bad data, a wrong guess).
 */
void	tr_split_start(struct trace *t, tr_readfn *readloop);
int	tr_split_join(struct trace *t, struct rdst *rs);
void	tr_split_drop(struct trace *t);

/* small helpers, inline: they run per event */

static inline unsigned long
countnl(const char *p, size_t n)
{
	unsigned long k = 0;
	const char *e = p + n;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/* The string value of a span, unescaped if needed (into o). */
static inline void
spanstr(const struct span *sp, struct buf *o, const char **s, size_t *n)
{
	if (!sp->esc) {
		*s = sp->p;
		*n = sp->n;
		return;
	}
	o->len = 0;
	(void)rec_unesc(o, sp->p, sp->n);	/* validated by json.c */
	*s = o->p;
	*n = o->len;
}

/* Integer span (number or numeric string): 0, or -1. */
static inline int
spani64(const struct span *sp, int64_t *v)
{
	const char *s = sp->p, *e = sp->p + sp->n;
	uint64_t x = 0;
	int neg = 0;

	if (sp->k != 's' && sp->k != 'v')
		return -1;
	if (s < e && *s == '-')
		neg = 1, s++;
	if (s == e || e - s > 18)
		goto slow;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			goto slow;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
slow:
	return dec_parse(sp->p, sp->n, 0, v);
}

/* Microsecond text to ns; fast path for plain d{1,16}(.d{1,3})?, the
 * form of every epoch timestamp (16 integer digits). */
static inline int
spanus(const struct span *sp, int64_t *v)
{
	const char *s = sp->p, *e = sp->p + sp->n;
	uint64_t x = 0;	/* 16 digits and 3 decimals fit; INT64_MAX is checked */
	int nd = 0, fr = 0;

	if (sp->k != 's' && sp->k != 'v')
		return -1;
#ifdef ASC_SWAR	/* swar_digits8 is fast */
	while (nd <= 8 && e - s >= 8 && swar_digits8(s) == 8) {
		x = x * 100000000 + (uint64_t)swar_parse8(s);
		s += 8;
		nd += 8;
	}
#endif
	while (s < e && *s >= '0' && *s <= '9' && nd < 17) {
		x = x * 10 + (uint64_t)(*s++ - '0');
		nd++;
	}
	if (nd == 0 || nd > 16)
		goto slow;
	if (s < e) {
		if (*s != '.')
			goto slow;
		s++;
		while (s < e && fr < 3 && *s >= '0' && *s <= '9') {
			x = x * 10 + (uint64_t)(*s++ - '0');
			fr++;
		}
		if (s < e || fr == 0)
			goto slow;
	}
	for (; fr < 3; fr++)
		x *= 10;
	if (x > (uint64_t)INT64_MAX)	/* dec_us2ns refuses it with the value */
		goto slow;
	*v = (int64_t)x;
	return 0;
slow:
	return dec_us2ns(sp->p, sp->n, v);
}

static inline int
speq(const struct span *sp, const char *s)
{
	size_t n = strlen(s);

	return sp->k == 's' && !sp->esc && sp->n == n && memcmp(sp->p, s, n) == 0;
}

static inline int
rcmp(int64_t as, int64_t ad, uint64_t ao, int64_t bs, int64_t bd, uint64_t bo)
{
	if (as != bs)
		return as < bs ? -1 : 1;
	if (ad != bd)
		return ad > bd ? -1 : 1;
	if (ao != bo)
		return ao < bo ? -1 : 1;
	return 0;
}

/* A span no event has widened yet. */
static inline void
tr_span_empty(struct trace_span *s)
{
	s->min_ts = s->min_kernel_ts = INT64_MAX;
	s->max_end = INT64_MIN;
}

#endif
