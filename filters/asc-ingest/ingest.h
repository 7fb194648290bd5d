/*
 * asc-ingest's own modules (filters/asc-ingest/, linked into asc-ingest
 * alone): read.c (one profile read, source by source), slices.c (the
 * op_summary slices' checks), profile.c (the profile record and its
 * warnings), records.c (the rest of the stream, the -H host thread) and
 * msg.c (data errors and warnings).  filters/asc-ingest.c holds the
 * options and drives them.  Calls go one way: asc-ingest.c -> read.c ->
 * slices.c and asc-ingest.c -> profile.c, records.c; any of them -> msg.c,
 * which calls none.
 */
#ifndef ASC_INGEST_H
#define ASC_INGEST_H

#include <stdint.h>
#include <stdio.h>

#include "ingest/dbread.h"
#include "ingest/find.h"
#include "ingest/ktab.h"
#include "ingest/meta.h"
#include "ingest/rec_out.h"
#include "ingest/source.h"
#include "ingest/tables.h"
#include "ingest/trace.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

/* The options and the state of the run (asc-ingest.c). */
extern const char *kindname[F_NKINDS];	/* the file kinds as the profile record names them */
extern int dflag, kflag, progress;
extern int nopmu;		/* -P: PMU values left out of kernel records */
extern struct src_file *dbused;	/* the database read for this profile */
extern struct src_file anfile;	/* analysis.db beside it (base NULL: none) */
extern const char *tmpdir;
extern const char *step_pattern;
extern const char *hpath;	/* -H: the host records go to this file, not standard output */
extern FILE *hfp;
extern int hostnull;		/* -H /dev/null: the host records are not made at all */
extern const char *mpath;	/* -M: the PMU values go to this file as "pmu" records (rec_out_pmufp) */
extern struct buf ob;		/* output record being built */
extern struct buf tables;	/* buffered small-table records, written after the markers */

/* Warnings are collected per profile and written after its record. */
struct warn {
	char	*code, *msg;
};
extern struct warn *warns;
extern int nwarns;

/* One profile's reading: what process() and its steps share. */
struct pctx {
	struct profile	*p;
	struct src_file	*fk[F_NKINDS];	/* the file read of each kind */
	struct ktab	 kt;
	struct trace	*tr;
	struct trace_devtasks devt;	/* Level0's stream and task type */
	struct trace_counts tc;
	struct buf	 cfg;
	struct buf	 meta;		/* the metadata record */
	char		*level;
	const char	*deg[24], *origin_from;
	int		 ndeg, nkfiles, trace_used, disjoint;
	int		 details, ntrace, sgap, sforeign;
	int64_t		 opcount, origin;
	size_t		 runs;
	unsigned long	 rejected;
	char		 ob_us[40];
	struct dbread	*db;
	struct db_counts dc;
	int		 dbsteps, nw0;
	struct source	 src[3];	/* database, kernel table, timeline */
	struct tab_ctx	 tabc;
	struct src_counts sc, one;
	int		 nsrc;
};

/* msg.c: a data error (said; stop unless -k), a warning, and the
 * readers' reports through them. */
extern int exitcode;		/* EX_OK, or EX_DATA after a data error (-k) */
void baddata(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void addwarn(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void tbad(const char *msg);
void dbbad(void *arg, const char *msg);

/* slices.c */
int slicecheck(struct profile *p);
int slicespan(const struct profile *p, const struct ktab *kt, int64_t t0, int64_t t1);

/* read.c: the profile's files read, from picking them to sorting the kernels */
void read_profile(struct pctx *x);

/* profile.c */
void degraded(struct pctx *x);
void put_profile(struct pctx *x);

/* records.c */
void put_records(struct pctx *x);

#endif
