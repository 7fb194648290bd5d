/*
 * asc-ops's PMU part: the profile's PMU status, the kernels' PMU values
 * parsed, summed per op (also joined from an -M file, asc-ingest -M), and
 * each op judged (its bound class, asc-ops(1) PMU judgements).  Linked
 * into asc-ops alone.
 */
#ifndef ASC_OPS_PMU_H
#define ASC_OPS_PMU_H

#include <stddef.h>
#include <stdint.h>

#include "rec.h"
#include "util.h"

/* PMU ratio columns, prefixed (aic_ cube side, aiv_ vector side) and not. */
enum {
	P_AIC_MAC, P_AIC_SCALAR, P_AIC_MTE1, P_AIC_MTE2, P_AIC_FIXPIPE,
	P_AIV_VEC, P_AIV_SCALAR, P_AIV_MTE2, P_AIV_MTE3,
	P_MAC, P_SCALAR, P_MTE1, P_MTE2, P_FIXPIPE, P_VEC, P_MTE3,
	P_CUBE_UTIL, P_AIC_ICACHE, P_AIV_ICACHE, P_ICACHE, NPMU
};
extern const char *const pmu_col[NPMU];

/* An op's PMU sums: ratio x duration and duration per column, and the
 * calls that had values. */
struct pmu_sum {
	double		 pw[NPMU];
	int64_t		 pd[NPMU];
	int64_t		 pk;
};

/* What the judgement reads of an op besides its sums: its key, its first
 * kernel name (or NULL) and the task type of its first call (or NULL). */
struct pmu_who {
	const char	*key, *name, *tt;
};

struct pmu_judge {
	const char	*bound;
	const char	*rule;		/* column of the winner */
	double		 value, threshold;
	const char	*cond;		/* and-condition of the winner, or NULL */
	double		 cthr;
	int		 side;		/* evaluated columns: bit per P_* */
	int		 cols[NPMU];
	int		 ncols;
};

/* Once, before any scan. */
void	pmu_init(void);
/* The flat object of numbers [p, e) into val / has (has[i]: column i was
 * there).  0: exactly that shape; -1: another, the values before the first
 * one not understood kept. */
int	pmu_scan(const char *p, const char *e, double *val, int *has);
/* A pmu record line in asc-ingest's layout (pre: its {"type":"pmu",
 * "profile":... prefix): src's raw span and the pmu value's [*v, *e).
 * 0, or -1 for any other shape (the caller then scans it whole). */
int	pmu_fast(const char *line, size_t len, const struct buf *pre, struct rfield *src,
	    const char **v, const char **e);
/* One call's values into an op's sums. */
void	pmu_add(struct pmu_sum *, const double *val, const int *has, int64_t dur);
void	pmu_judge(const struct pmu_sum *, const struct pmu_who *, struct pmu_judge *);
/* The profile's PMU status text (status: 0 unavailable, 1 available, 2
 * other metrics, 3 left out), metrics the raw JSON of config.aic_metrics. */
void	pmu_status(struct buf *, int status, const struct buf *metrics);
/* The profile's status from its record line, its config.aic_metrics (raw
 * JSON) appended to metrics; joined: the values come from an -M file. */
int	pmu_profile(const char *line, size_t len, int joined, struct buf *metrics);
/* "pmu": the op's judgement with its evidence (null unless compute). */
void	pmu_put(struct buf *ob, const struct pmu_sum *, const struct pmu_who *, int compute,
	    int status, const struct buf *metrics);

/*
 * -M: the values of the input's one profile are in a file of their own,
 * one "pmu" record per kernel with values, in kernel order.  Each kernel
 * leaves what adding its values takes (pmu_join_kernel: the sums of its
 * PMU_VIEWS ops, NULL for none); the file is read whole, in lockstep with
 * them, when the profile's kernels end (pmu_join_file), so each op's sums
 * are made in the order the one-stream form makes them.
 */
#define PMU_VIEWS	3
struct pmu_join {
	struct pmu_mk	*mk;
	size_t		 n, cap;
	int		 done;
};
void	pmu_join_kernel(struct pmu_join *, struct pmu_sum *const sum[PMU_VIEWS], int64_t dur,
	    const struct rfield *src, int compute);
/* Reads path (records of profile prof); EX_OK, or EX_DATA for bad records
 * when keep (else it exits). */
int	pmu_join_file(struct pmu_join *, const char *path, size_t maxline, const char *prof,
	    size_t nprof, int keep);
/* A kernel's values: left for the join jn (-M) or scanned from its record
 * into val / has.  1: values to add, 0: none, -1: an error, in r. */
int	pmu_kernel(struct rin *r, struct pmu_join *jn, struct pmu_sum *const sum[PMU_VIEWS],
	    int64_t dur, const struct rfield *src, int compute, double *val, int *has);

#endif
