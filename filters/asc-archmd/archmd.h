/*
 * asc-archmd's own modules (filters/asc-archmd/, linked into asc-archmd
 * alone): jv access (access.c), what the report decides of the records
 * and the run of the template filters/asc-archmd.jq that writes the
 * Markdown (render.c), and the report's file, written aside and renamed
 * (save.c).  filters/asc-archmd.c reads the records of a profile and
 * drives them.
 */
#ifndef ASC_ARCHMD_H
#define ASC_ARCHMD_H

#include <stdint.h>

#include <jv.h>

#include "util.h"

/*
 * What is kept of a profile, as asc-fia caps what it writes: the first
 * NPREC passes and the last one, their checks, the layers of those first
 * passes up to NLREC, MAXREC layer types and streams.  Pass and check
 * records past that are counted and aggregated.
 */
#define NPREC	64
#define NLREC	4096
#define MAXREC	64

/* A layer: what the report uses of a fia_layer record. */
struct lay {
	int64_t	 pass, start;
	int64_t	 wall;
	char	 type[16];
	int	 samp;
};

/* Passes not shown one by one. */
struct omit {
	int64_t	 n, layers, kernels, wsum, wmin, wmax, mean;
	int64_t	 ck[5];		/* checks by status */
};

/* The check statuses, in the order of struct omit's ck. */
extern const char *ckst[5];

struct prof {
	int	 have;
	jv	 profile, summary, passes, checks, types, streams, phases, comms;
	jv	 last;		/* the last pass past the first NPREC, or null */
	struct lay *l;		/* layers 0 .. nl-1 */
	int	 nl, capl;
	int64_t	 droppedl;	/* layer records not kept */
	struct omit drop;	/* pass and check records not kept */
	char	*name;		/* the "profile" value, for grouping */
};

/* asc-archmd.c: the profile being read, and where its report goes. */
extern struct prof P;
extern const char *outdir, *outfile;

/* render.c: the report being written. */
extern struct buf R;

/* access.c: jv access (all borrow o). */
jv	 get(jv o, const char *k);
int	 has(jv o, const char *k);
int64_t	 gi(jv o, const char *k);
const char *gs(jv o, const char *k);
int	 gb(jv o, const char *k);
int	 len(jv a);

/* render.c: the report of P, rendered by the template, to its file. */
void	 render(void);

/* save.c: the report in R written to its file (or stdout). */
void	 save(char *dir);

#endif
