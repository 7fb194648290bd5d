/*
 * ktab: the kernel tables of a text export (kernel_details.csv, or every
 * op_summary slice of msprof), as "kernel" records in (device, start)
 * order.  Rows are read twice: checked and indexed first (about 48 bytes
 * a row: the sort key and where the row lies), sorted, then read again
 * by seeking (a pipe is copied to $TMPDIR first) and written straight
 * from the CSV fields, each cell by the rule of cell.h.
 */
#ifndef ASC_KTAB_H
#define ASC_KTAB_H

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>

#include "csvline.h"
#include "source.h"
#include "trace.h"
#include "util.h"

/* One kernel row: sort key plus where the row lies in its file. */
struct krow {
	int64_t		 dev, start, dur;
	uint64_t	 off;		/* byte offset of the row in its file */
	uint32_t	 len;		/* its length in bytes, to check the re-read */
	uint32_t	 line;
	uint16_t	 file;
};

enum col {
	C_STEP, C_DEVICE, C_MODEL, C_TASKID, C_STREAM, C_NAME, C_OPTYPE,
	C_OPSTATE, C_TASKTYPE, C_START, C_DUR, C_WAIT, C_BLOCK, C_MIXBLOCK,
	C_HF32, C_INSHAPES, C_INDTYPES, C_INFORMATS, C_OUTSHAPES,
	C_OUTDTYPES, C_OUTFORMATS, C_CONTEXT, C_NCOLS
};

struct kfile {
	int		 idx[C_NCOLS];	/* column index or -1 */
	int		 ncols;
	int		*pmu;		/* indexes of PMU columns */
	char		**pmuname;
	struct buf	*pmukey;	/* "name": escaped once per file */
	size_t		 pmukeys;	/* their length, and a comma each */
	int		 npmu;
	int		 nopmu;	/* the values left out (asc-ingest -P) */
};

/* A kernel file: its columns, and its reader while the rows are written. */
struct kread {
	struct kfile	 kf;
	int		 used;		/* read: kf is set */
	int		 fd;		/* the $TMPDIR copy of a pipe, else -1 */
	dev_t		 dev;		/* the file read first, to be read again */
	ino_t		 ino;
	int		 open;		/* c is open */
	unsigned long	 lastuse;
	struct csvin	 c;
	struct buf	 head;		/* record text up to the line number */
};

/* Per-profile kernel state. */
struct ktab {
	/* set by the caller */
	const char	*tmpdir;	/* where a pipe is copied to be read twice */
	int		 progress;	/* progress lines on stderr */
	void		(*bad)(const char *msg);	/* a bad row or file */
	int		 nopmu;		/* PMU values left out of kernels */
	struct krow	*row;
	size_t		 n, cap;
	struct kread	*kr;		/* per file of the profile */
	int		 nkr, nopen;
	unsigned long	 uses;
	int64_t		 minstart;
	int64_t		 maxend;	/* largest start + duration */
	int		 has_step, has_device, has_shapes, has_pmu, level0;
	unsigned long	 na_types;
	struct buf	 pmunames;	/* JSON array text of PMU names */
	int		 pmu_pipe;	/* PipeUtilization ratios seen */
	/* set by the caller: the timeline's device tasks, for the stream and
	 * task type a row lacks (null-like or no column); how many were so */
	const struct trace_devtasks *dt;
	unsigned long	 filled_stream, filled_ttype;
};

/* Read file fileno_ (pf) of the profile: 0, or -1 when it is unusable
 * (said through bad). */
int	ktab_read(struct ktab *, struct src_file *pf, int fileno_);
/* Sort the rows read: the number of sorted runs they were in. */
size_t	ktab_sort(struct ktab *);
/* The kernel records, src naming file f[i].base of the nf files. */
void	ktab_put(struct ktab *, const char *profile, const struct src_file *f, int nf, int64_t origin);
void	ktab_free(struct ktab *);

#endif
