/*
 * trace: streaming reader of Chrome-trace-style profiler timelines
 * (torch_npu trace_view.json, msprof msprof_*.json, Kineto's
 * {"traceEvents":[...]}).  The file is read once, never slurped (a
 * regular file is mapped a window at a time): process/thread metadata
 * is kept in memory (it is small); X events are spilled to sorted runs
 * under tmpdir, grouped by what their process was known to be when
 * read, and merged back in start order when written; step markers and
 * flow ends are spilled to sorted runs too, and host events held back
 * by a long event are written to a spill file, so memory does not grow
 * with the file: one block of run_bytes for X events and their index
 * while reading, small fixed buffers besides, reader buffers of a merge
 * sharing a fixed budget whatever the number of runs.  Processes are
 * classified only from process_name metadata.
 *
 * Times are absolute integer nanoseconds until written; the writers
 * subtract the profile's origin.  Functions return -1 on bad data with
 * a message "FILE:LINE: ..." in trace_err(); they exit only on system
 * errors (EX_SYS).
 */
#ifndef ASC_TRACE_H
#define ASC_TRACE_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

struct trace_opts {
	const char	*tmpdir;	/* spill directory ($TMPDIR or /tmp) */
	const char	*display;	/* file name used in src and messages */
	const char	*step_pattern;	/* extra marker prefix before '#N', or NULL */
	size_t		 run_bytes;	/* spill run size; 0 = default 40 MiB
					   (flow ends: 1/32 each; links: 1/8;
					   markers: 1/64; held-back host
					   events: 1/16) */
	int		 progress;	/* progress line on stderr */
	/* -k: an X event with a bad ts, dur, pid or tid is given to bad()
	 * as "FILE:LINE: ..." and skipped (counted in rejected) instead of
	 * failing the read; NULL: it fails the read. */
	void		(*bad)(const char *msg);
};

struct trace_counts {
	unsigned long	 events;	/* every event object read */
	unsigned long	 x_events, meta, flows, counters, other;
	unsigned long	 host, device, markers, ignored;	/* X events by role */
	unsigned long	 rejected;	/* X events skipped (opts.bad) */
	unsigned long	 flows_linked;	/* distinct host (pid,tid,ts) flow
					   starts linked to a kernel */
	unsigned long	 host_linked;	/* host records written with
					   kernel_ns (after trace_put_host) */
	int		 has_stacks;	/* any host event carried a call stack */
	int		 has_python, has_cann;	/* such processes exist */
	unsigned long	 comm_tasks;	/* HCCL task events of the HCCL process */
	unsigned long	 input_dims;	/* X events with args "Input Dims" (host
					   ops, when record_shapes was on) */
	unsigned long	 notify_waits;	/* Ascend Hardware Notify Wait and SDMA tasks */
};

/* The times the X events span. */
struct trace_span {
	int64_t		 min_ts;	/* smallest ts of any host or device X
					   event, or INT64_MAX */
	int64_t		 max_end;	/* largest end of one, or INT64_MIN */
	int64_t		 min_kernel_ts;	/* smallest ts of a device (kernel)
					   X event, or INT64_MAX */
};

struct trace;

struct trace	*trace_open(const char *path, const struct trace_opts *);
/*
 * read() size (default 8 MiB); tests use tiny ones to split events.  A
 * regular file is mapped instead, in windows of 4 MiB, or of n when n
 * is a multiple of the page size other than the default.
 */
void		 trace_set_chunk(struct trace *, size_t);
/*
 * Read the whole file (one pass).  0, or -1: bad data (trace_err).  A
 * mapped file of at least 64 MiB ($ASC_TRACE_SPLIT bytes if set, 0 =
 * never) is read on two threads, from the start and from an event
 * start guessed past the middle, joined when the first thread reaches
 * it; the results are those of one thread.
 */
int		 trace_read(struct trace *);
/* After trace_read: 0 read on one thread, 1 on two, -1 the second
 * thread's work dropped (a wrong guess or bad data past it). */
int		 trace_split(const struct trace *);
const char	*trace_err(const struct trace *);
/* The times the X events read span (after trace_read). */
const struct trace_span *trace_span(const struct trace *);
void		 trace_counts(const struct trace *, struct trace_counts *);
/* Non-fatal findings: i-th warning as code and message, NULL past end. */
const char	*trace_warning(const struct trace *, int i, const char **msg);

/*
 * Writers: NDJSON records (see schemas/) to out, every record carrying
 * "profile":profile, times relative to origin_ns.
 *   markers: "marker" records in start order (outermost of nested kept,
 *	nested ones counted in a warning).
 *   kernels: device X events as "kernel" records in (device, start)
 *	order, for profiles without a kernel table.
 *   host: host X events as "host" records in start order with depth,
 *	leaf, top user frame and linked kernel.
 */
void		 trace_put_markers(struct trace *, FILE *, const char *profile, int64_t origin_ns);
void		 trace_put_kernels(struct trace *, FILE *, const char *profile, int64_t origin_ns);
void		 trace_put_host(struct trace *, FILE *, const char *profile, int64_t origin_ns);
/*
 *   comm tasks: the HCCL process's task events (args "task type", "src
 *	rank", "dst rank", "size(Byte)", "transport type", ...) as
 *	"comm_task" records in start order; their op is left to asc-comm.
 */
void		 trace_put_comm_tasks(struct trace *, FILE *, const char *profile, int64_t origin_ns);
/*
 *   device tasks: the Ascend Hardware tasks named in the rules'
 *	attribution.device_tasks (input copies, event waits), which the
 *	kernel table leaves out, as "device_task" records in start order.
 */
void		 trace_put_dev_tasks(struct trace *, FILE *, const char *profile, int64_t origin_ns);
/*
 * The device tasks' stream (args "Physic Stream Id" or "Stream Id") and
 * task type (args "Task Type"), in start order, for a kernel table that
 * lacks them (Level0's kernel_details.csv has neither): a kernel row takes
 * them from the one task of its start and name (ktab.c).  A task type
 * longer than ttype holds is left out.  Read before any writer runs: the
 * host writer may read the same spill files on another thread.
 */
struct trace_devtask {
	int64_t		 start, stream;
	uint64_t	 noff;		/* its name in the pool */
	uint32_t	 nname;
	uint8_t		 has_stream, nttype;
	char		 ttype[34];
};
struct trace_devtasks {
	struct trace_devtask *v;	/* 2 more, zeroed: read past the end */
	size_t		 n;
	struct buf	 names;
};
void		 trace_devtasks(struct trace *, struct trace_devtasks *);
void		 trace_devtasks_free(struct trace_devtasks *);
/*
 *   notify waits (hwwait.c): the Ascend Hardware process's "Notify Wait"
 *	and "SDMA" tasks as "notify_wait" and "sdma_task" records, in start
 *	order.
 */
void		 trace_put_notify_waits(struct trace *, FILE *, const char *profile, int64_t origin_ns);
void		 trace_close(struct trace *);
/* Read the rules both readers share, once, before any reader thread:
 * trace_open and db_open call it. */
void		 trace_rules(void);
/* Is one call-stack frame framework code (a glob of the rules'
 * attribution.framework_frames)?  The rule that picks the top user frame;
 * dbread.c shares it. */
int		 trace_is_framework(const char *s, size_t n);
/* A step marker's form, NAME#N (N digits): the length of NAME, or -1. */
long		 trace_mkname(const char *s, size_t n);
/* The index of s[0..n) in the rules' steps.marker_kinds, or -1. */
int		 trace_mkkind(const char *s, size_t n);

#endif
