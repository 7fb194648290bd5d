/*
 * source: what asc-ingest reads a profile's events from, whatever the
 * export: the text timeline (trace_view.json, msprof_*.json: trace.c),
 * the kernel tables (kernel_details.csv, op_summary: ktab.c) or the
 * SQLite export (dbread.c).  Each is opened by its own module; then one
 * interface: counts, origin, and the markers, kernels and host
 * events in stream order.  asc-ingest keeps its sources in the order
 * database, kernel table, timeline: the first with a smallest time gives
 * the origin, and the writers are called in that order.
 */
#ifndef ASC_SOURCE_H
#define ASC_SOURCE_H

#include <stdint.h>
#include <stdio.h>

/* A file of a profile, as found, with what reading it gave. */
struct src_file {
	int		 kind;
	char		*path;
	const char	*base;		/* file name, used in src and messages */
	unsigned long	 read, emitted, rejected;
	int		 unusable;	/* its reader gave up on it (bad or cut) */
	int		 extra;		/* another file of its kind is read instead */
};

/* What a source gives, for the profile record. */
struct src_counts {
	unsigned long	 kernel, marker, host, flows_linked;
};

/* Which reader a source is over. */
enum { SRC_TRACE, SRC_DB, SRC_KTAB };

struct source {
	int		 kind;		/* SRC_* */
	void		*r;		/* the reader: struct trace, dbread, ktab */
	int		 kernels;	/* its kernels are written */
	/* for the kernel table: the profile's files, named in src */
	const struct src_file *files;
	int		 nfiles;
};

struct trace;
struct dbread;
struct ktab;

/* A source over a reader opened (and read) by its module; src_close()
 * closes it.  kernels: write its kernel records (a timeline's, only when
 * the profile has no kernel table). */
void	src_trace(struct source *, struct trace *, int kernels);
void	src_db(struct source *, struct dbread *);
void	src_ktab(struct source *, struct ktab *, const struct src_file *files, int nfiles);

/* What it gives, for the profile record. */
void	src_counts(const struct source *, struct src_counts *);
/* Its smallest time for the origin and what it was, or INT64_MAX. */
int64_t	src_min_ts(const struct source *, const char **from);
/* Its records of one kind (what: SRC_*, in stream order): 0, or -1
 * with src_err() set. */
enum { SRC_MARKERS, SRC_KERNELS, SRC_HOST };
int	src_put(const struct source *, int what, FILE *, const char *profile, int64_t origin);
const char *src_err(const struct source *);
void	src_close(struct source *);

#endif
