/*
 * asc-archmd's own modules (filters/asc-archmd/, linked into asc-archmd
 * alone): the jv access, text and table helpers (fmt.c), the report's
 * sections 1-3 (evidence.c), the run of the template
 * filters/asc-archmd.jq, which writes the head, the notes and sections
 * 4-10 around them (render.c), a test of the comm records section 1
 * makes (comm.c), and the report's file, written aside and renamed
 * (save.c).  filters/asc-archmd.c reads the
 * records of a profile and drives them.
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

/* fmt.c: the report being written; scratch. */
extern struct buf R, tb;

/* render.c: what the sections share of the profile being rendered. */
extern const char *method;
extern int fia;
extern int train;		/* a training capture */
extern int determ;		/* the layer structure was determined */
extern struct omit O;		/* passes omitted: asc-fia's and ours */
extern int onpass;		/* index in P.passes before which they go */

/* fmt.c: jv access (all borrow o). */
jv	 get(jv o, const char *k);
int	 has(jv o, const char *k);
int64_t	 gi(jv o, const char *k);
const char *gs(jv o, const char *k);
int	 gb(jv o, const char *k);
int	 isnum(jv o, const char *k);
int	 len(jv a);
jv	 at(jv a, int i);

/* fmt.c: text, appended to R. */
void	 pf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
const char *ms(int64_t ns);
const char *pct(int64_t num, int64_t den);
const char *ratio(int64_t num, int64_t den);
void	 row(int n, ...);
void	 sep(const char *align);
const char *tdisplay(const char *t);
const char *code(const char *s);
const char *num(int64_t v);

/* fmt.c: lookups. */
void	 joinstrs(struct buf *b, jv a);
void	 joincode(struct buf *b, jv o, const char *k);

/* render.c */
int64_t	 npasses(void);
void	 render(void);

/* evidence.c: sections 1-3 and the texts later sections share. */
void	 s1_config(void);
void	 s2_evidence(void);
void	 s3_passes(void);
const char *methodtext(void);
const char *permb(int64_t n);
void	 typecounts(struct buf *b, jv obj);
void	 phasetext(struct buf *b);
void	 commtext(struct buf *b, int bucketsonly);
const char *stagetext(int64_t layers);
int	 notypes(void);
void	 betweentext(struct buf *b, int64_t *sum);

/* comm.c */
int	 commgrad(void);

/* save.c: the report in R written to its file (or stdout). */
void	 save(char *dir);

#endif
