/*
 * rec_out: the one writer of each record type asc-ingest's sources give
 * (kernel, host, marker), whatever the export they were read from: the
 * kernel tables (ktab.c), the text timeline (put.c) or SQLite (dbread.c).
 * A source says what it has for each field; the key order, the cell rule
 * (cell.h) and the shared value rules (HCCL is COMMUNICATION, end_ns is
 * start_ns + dur_ns) are here alone.  A new field is added here, then
 * given by each source.
 */
#ifndef ASC_REC_OUT_H
#define ASC_REC_OUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "rec.h"

/* What a source has for a field. */
enum {
	KV_ABSENT,	/* the source has no such field: the key is left out */
	KV_NULL,	/* null */
	KV_INT,		/* v */
	KV_STR,		/* s[0..n) as a string, as it is */
	KV_CELL,	/* a text cell (cell.h): trimmed, null when null-like */
	KV_SHAPE,	/* KV_CELL, less one literal pair of quotes around it */
	KV_ICELL	/* an integer cell: null-like or 4294967295 is null */
};

struct kval {
	int		 kind;
	size_t		 n;
	const char	*s;
	int64_t		 v;
};

/* A PMU value: key is JSON text ("name":), the value a number as
 * written (num 1), a string (num 0), or left out (num -1: null). */
struct kpmu {
	const char	*key;
	size_t		 nkey;
	const char	*s;
	size_t		 n;
	int		 num;
};

enum { KS_WAIT, KS_TASKID, KS_MODEL, KS_OPSTATE, KS_BLOCK, KS_MIXBLOCK,
	KS_HF32, KS_INSHAPES, KS_INDTYPES, KS_INFORMATS, KS_OUTSHAPES,
	KS_OUTDTYPES, KS_OUTFORMATS, KS_CONTEXT, KS_N };

struct kout {
	/* {"type":"kernel","profile":P,"src":"STEM from rec_out_prefix();
	 * the src ends with srcn (a line, a row id, an offset) */
	const char	*pre;
	size_t		 npre;
	int64_t		 srcn;
	/* the texts can be read 64 bytes past their end (CSV fields, see
	 * CSV_OVERREAD): short copies are then fixed-size moves */
	int		 overread;
	/* 0, or at least the bytes of all texts and PMU keys together (the
	 * row's length): room is then reserved without summing them */
	size_t		 bound;
	struct kval	 device, stream, step, name, op_type, task_type;
	int		 comm;		/* a communication task */
	int64_t		 start, dur;	/* start from the origin */
	/* after the times, in this order: wait_ns (never absent), task_id,
	 * model_id, op_state, block_dim, mix_block_dim, hf32, the six
	 * shape fields, context_id */
	struct kval	 tail[KS_N];
	const struct kpmu *pmu;		/* "pmu", when one is not left out */
	int		 npmu;
};

struct hout {
	const char	*pre;		/* as for struct kout */
	size_t		 npre;
	int64_t		 srcn;
	const char	*name, *cat;	/* cat NULL: null */
	size_t		 nname, ncat;
	const char	*thr;		/* rec_out_thread()'s text */
	size_t		 nthr;
	int64_t		 start, dur;	/* start from the origin */
	int		 depth;
	int		 leaf;		/* 0, 1, or -1: not known yet */
	struct kval	 frame;		/* KV_ABSENT, KV_NULL or KV_STR */
	int		 hask;		/* kernel_ns (from the origin) */
	int64_t		 kns;
};

/* b = {"type":TYPE,"profile":PROFILE,"src":"STEM (the stem escaped). */
void	rec_out_prefix(struct buf *b, const char *type, const char *profile,
	    const char *stem, size_t nstem);
/* b = ,"process":P,"pid":PID,"tid":TID: a host thread, made once. */
void	rec_out_thread(struct buf *b, const char *process, int64_t pid, int64_t tid);

/*
 * asc-ingest -M: when set, each kernel's "pmu" object is written to this
 * file as a record of its own, {"type":"pmu","profile":P,"src":S,"pmu":
 * {...}}, in kernel order, and left out of the kernel record (write
 * errors: see ferror).
 */
extern FILE *rec_out_pmufp;

/*
 * asc-ingest -L: the tail fields (bit 1 << KS_x) left out of every kernel
 * record; REC_OUT_LEAN are those no stage of asc reads.
 */
extern unsigned rec_out_leave;
#define REC_OUT_LEAN	(1u << KS_TASKID | 1u << KS_MODEL | 1u << KS_OPSTATE | \
	1u << KS_BLOCK | 1u << KS_MIXBLOCK | 1u << KS_HF32 | 1u << KS_INDTYPES | \
	1u << KS_INFORMATS | 1u << KS_OUTDTYPES | 1u << KS_OUTFORMATS | 1u << KS_CONTEXT)
/* The names of the fields left out, as a JSON array. */
void	rec_out_leftout(struct buf *);

/* Append one kernel record, with its newline. */
void	rec_out_kernel(struct buf *b, const struct kout *);
/*
 * Append one host record, with its newline.  With leaf -1 the leaf value
 * is left out: its place in b is returned (the caller writes true or
 * false there later), else SIZE_MAX.
 */
size_t	rec_out_host(struct buf *b, const struct hout *);
/* Write one marker record to fp (b is scratch): name is KIND#STEP, the
 * kind its first klen bytes; start from the origin. */
void	rec_out_marker(struct buf *b, FILE *fp, const char *profile, const char *src,
	    size_t nsrc, const char *name, size_t nname, size_t klen, int64_t pid,
	    int64_t tid, int64_t start, int64_t dur);

#endif
