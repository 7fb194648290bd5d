/*
 * source: what asc-ingest reads a profile's events from, whatever the
 * export: the text timeline (trace_view.json, msprof_*.json: trace.c),
 * the kernel tables (kernel_details.csv, op_summary: ktab.c) or the
 * SQLite export (dbread.c).  Each is opened by its own module; then one
 * interface: counts, warnings, origin, and the markers, kernels and host
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

struct source;

struct source_ops {
	const char	*name;
	void		(*counts)(struct source *, struct src_counts *);
	/* i-th warning as code and message, NULL past the end */
	const char	*(*warning)(struct source *, int i, const char **msg);
	/* smallest time for the origin and what it was, or INT64_MAX */
	int64_t		(*min_ts)(struct source *, const char **from);
	/* the records, each a writer; 0, or -1 with err() set */
	int		(*put_markers)(struct source *, FILE *, const char *profile, int64_t origin);
	int		(*put_kernels)(struct source *, FILE *, const char *profile, int64_t origin);
	int		(*put_host)(struct source *, FILE *, const char *profile, int64_t origin);
	const char	*(*err)(struct source *);
	void		(*close)(struct source *);
};

struct source {
	const struct source_ops *ops;
	void		*r;		/* the reader: struct trace, dbread, ktab */
	int		 kernels;	/* its kernels are written */
	/* for the kernel table: the profile's files, named in src */
	const struct src_file *files;
	int		 nfiles;
};

struct trace;
struct dbread;
struct ktab;

/* A source over a reader opened (and read) by its module; close() closes
 * it.  kernels: write its kernel records (a timeline's, only when the
 * profile has no kernel table). */
void	src_trace(struct source *, struct trace *, int kernels);
void	src_db(struct source *, struct dbread *);
void	src_ktab(struct source *, struct ktab *, const struct src_file *files, int nfiles);

#endif
