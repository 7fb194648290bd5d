/*
 * dbread: the SQLite export of torch_npu (ascend_pytorch_profiler[_N].db),
 * MindSpore (ascend_mindspore_profiler[_N].db) and msprof (msprof_*.db),
 * written as the same records the text export gives (see schemas/).
 *
 * The database is opened read-only and immutable (no locks, no journal,
 * so a read-only file system works).  db_open() checks the schema and
 * counts rows with SQL aggregates; the writers then stream rows through
 * prepared statements in start order (kernels by (deviceId, startNs)),
 * never loading a table: memory is bounded by SQLite's page cache and
 * sorter (which spill to $TMPDIR), the string-id cache and the host
 * events still open on a thread.  Times are integer ns; TEXT time
 * columns are parsed with dec_parse.  Every record's "src" is
 * "<dbfile>:<TABLE>:<rowid>".
 *
 * db_open() returns NULL with a message in err for a file that is not a
 * usable database (corrupt, truncated, empty, being written, no
 * STRING_IDS): callers exit EX_SYS.  Bad rows (a time that is not an
 * integer, end before start) are passed to opts->bad with "FILE:TABLE:
 * ROWID: message", counted as rejected and skipped.  Writers return 0,
 * or -1 with db_err() set when SQLite fails mid-stream.
 */
#ifndef ASC_DBREAD_H
#define ASC_DBREAD_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct db_opts {
	const char	*display;	/* file name used in src and messages */
	const char	*step_pattern;	/* extra marker prefix before '#N', or NULL */
	const char	*python;	/* process name of PYTORCH_API events */
	int		 nopmu;		/* TASK_PMU_INFO left out of kernels */
	void		(*bad)(void *arg, const char *msg);
	void		*arg;
};

struct db_counts {
	unsigned long	 kernel, comm, host, markers, rejected;
	unsigned long	 read;		/* rows of the tables turned into records */
	unsigned long	 host_linked;	/* host rows with a launched kernel */
	int		 has_kernels;	/* TASK + COMPUTE_TASK_INFO or COMMUNICATION_OP */
	int		 has_host;	/* PYTORCH_API or CANN_API */
	int		 has_stacks, has_pmu, has_shapes, has_steps;
	unsigned long	 null_types;	/* kernels without a task type */
	int		 npmu;
	/* After db_comm_scan(): comm records db_put_comm() writes, and
	 * whether they come from analysis.db (else COMMUNICATION_OP). */
	unsigned long	 comm_records;
	int		 comm_analysis;
	/* After db_comm_tasks_scan(): the comm_task records it writes. */
	unsigned long	 comm_tasks;
	/* After db_dev_tasks_scan(): the device_task records it writes. */
	unsigned long	 dev_tasks;
	/* analysis.db beside the file: found, rows read, records made, rows
	 * skipped (by db_steptrace and db_comm_scan). */
	int		 an_found;
	unsigned long	 an_read, an_emitted, an_rejected;
};

struct dbread;

struct dbread	*db_open(const char *path, const struct db_opts *, char *err, size_t nerr);
const char	*db_err(const struct dbread *);
void		 db_counts(const struct dbread *, struct db_counts *);
/* Smallest kernel start, else smallest host start, else INT64_MAX. */
int64_t		 db_min_ts(const struct dbread *, int *from_kernels);
/* i-th warning as code and message, NULL past the end. */
const char	*db_warning(const struct dbread *, int i, const char **msg);
/* JSON array text of the PMU metric names, in first-seen order. */
const char	*db_pmu_names(const struct dbread *);
/*
 * "step_trace" records from the StepTraceTime table of analysis.db beside
 * the file, appended to out.  Returns the number of records (0 when there
 * is no such file or table).
 */
int		 db_steptrace(struct dbread *, const char *profile, struct buf *out);

/*
 * The communication ops as "comm" records (schemas/comm.schema.json, as
 * from communication.json): analysis.db's CommAnalyzerTime joined with
 * CommAnalyzerBandwidth when it has rows, else COMMUNICATION_OP (exact
 * start and elapse, wait when there is waitNs; no transit split, so the
 * rest is null).  db_comm_scan() chooses the source and counts; 0 or -1.
 */
int		 db_comm_scan(struct dbread *);
int		 db_put_comm(struct dbread *, FILE *, const char *profile, int64_t origin);

/*
 * The HCCL tasks as "comm_task" records (schemas/comm_task.schema.json):
 * COMMUNICATION_TASK_INFO joined to TASK by globalTaskId, with the op's
 * name from COMMUNICATION_OP by opId, in start order.  The scan counts
 * them (0 when the tables are not there); 0 or -1.
 */
int		 db_comm_tasks_scan(struct dbread *);
int		 db_put_comm_tasks(struct dbread *, FILE *, const char *profile, int64_t origin);

/*
 * The device's tasks that are not kernels as "device_task" records
 * (schemas/device_task.schema.json): the TASK rows whose task type is one
 * of the rules' attribution.device_tasks, in start order (dbdtask.c).
 * The scan counts them (0 when TASK lacks a column); 0 or -1.
 */
int		 db_dev_tasks_scan(struct dbread *);
int		 db_put_dev_tasks(struct dbread *, FILE *, const char *profile, int64_t origin);

int		 db_put_markers(struct dbread *, FILE *, const char *profile, int64_t origin);
int		 db_put_kernels(struct dbread *, FILE *, const char *profile, int64_t origin);
int		 db_put_host(struct dbread *, FILE *, const char *profile, int64_t origin);
void		 db_close(struct dbread *);

#endif
