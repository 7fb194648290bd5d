/*
 * find: the profiles under the operands of asc-ingest, and their files.
 * A directory is searched (10 levels deep at most) for profile
 * directories (ASCEND_PROFILER_OUTPUT, *_ascend_pt, *_ascend_ms, PROF_*);
 * a file operand is a profile of that one file.  Found profiles are
 * appended to profs, in operand order, files sorted by name.
 */
#ifndef ASC_FIND_H
#define ASC_FIND_H

#include "source.h"

/* Kinds of input file a profile may hold. */
enum fkind {
	F_KERNEL,	/* kernel_details.csv or op_summary_*.csv (slices) */
	F_TRACE,	/* trace_view.json or msprof_*.json */
	F_STEPTRACE,	/* step_trace_time.csv */
	F_OPSTAT,	/* op_statistic*.csv */
	F_COMM,		/* communication.json */
	F_COMMX,	/* communication_matrix.json */
	F_INFO,		/* profiler_info*.json */
	F_DB,		/* ascend_*_profiler*.db, msprof_*.db */
	F_ANALYSIS,	/* analysis.db beside a database that is read */
	F_NKINDS
};


struct profile {
	char		*name;
	char		*dir;
	const char	*framework;
	struct src_file	*f;
	int		 nf;
};

extern struct profile *profs;
extern int nprofs;
extern const char *curroot;	/* the operand being searched, for messages */

/* Profiles at or under dir: how many were found. */
int	findprofiles(const char *dir, int depth);
/* The profile of one file operand (exits on a file this does not read). */
void	fileprofile(const char *path);

#endif
