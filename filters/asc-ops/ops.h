/*
 * asc-ops's own modules (filters/asc-ops/, linked into asc-ops alone): the
 * op table (table.c), reading kernels (kernels.c), the per-step small-op
 * and AI CPU judgement with the "op_step" record (steps.c), the rankings
 * and the "op" records (rank.c), the "op_summary" record (summary.c), and
 * the PMU part (pmu.c, pmu.h).  filters/asc-ops.c reads the records and
 * the rules and drives them.
 */
#ifndef ASC_OPS_H
#define ASC_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "busy.h"
#include "intern.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

#include "pmu.h"

enum { V_NAME, V_TYPE, V_SHAPE, NVIEW };
extern const char *const viewname[NVIEW];
_Static_assert(NVIEW == PMU_VIEWS, "an op of each view has PMU sums");

#define MAXNAMES	3
#define MAXSHP		16

struct op {
	const char	*key;			/* in S.ops.keys */
	size_t		 keylen;
	int		 view;
	char		*optype;		/* unescaped, or NULL */
	char		*tt;			/* task type of the first call */
	int		 ttmixed, cls;
	int64_t		 calls, dur, wait, small;
	char		*names[MAXNAMES];
	int		 nnames, namesmore;
	char		*inshp, *outshp;	/* raw JSON of the first call */
	uint64_t	 shp[MAXSHP];
	int		 nshp, shpmore;
	struct pmu_sum	 pmu;
	int64_t		 polcalls, polwait, polmax;
	char		*polsrc;
	int64_t		 masked, exposedcalls, bubblecalls;
	int		 rcost, rdur, rroot, anchor;
};

/* The ops of the profile, by id of their view and key in keys. */
struct optab {
	struct intern	 keys;
	struct op	**v;
	size_t		 cap, n;
};

/* A kernel of the current step, for the per-step overlap checks. */
struct kv {
	int64_t		 s, e, dur, masked;
	struct op	*op[NVIEW];
	int		 stream;
	unsigned char	 cls, small;
	size_t		 src;			/* raw src JSON in S.arena */
};

struct group {
	char		*id;
	uint64_t	 names, shapes;
	int		 variable;
};

/* The profile being read. */
struct opsprof {
	struct sr_sect	 sect;
	int		 emitted;
	struct buf	 prof;
	struct optab	 ops;
	/* availability */
	int		 pmustatus;		/* 0 unavailable, 1 available, 2 other metrics */
	struct buf	 metrics;		/* raw JSON of config.aic_metrics */
	int		 shapes_seen;
	/* profile totals */
	int64_t		 kernels, dur, wait, small, smalldur, steps;
	int64_t		 polcalls, lbsteps, noisesteps, densesteps, smallsteps;
	int64_t		 riskn;
	struct buf	 risksteps;		/* JSON strings, comma-separated */
	/* communication windows */
	struct iv	*cw;			/* comm records */
	size_t		 ncw, capcw;
	int64_t		*cwmax;			/* max end of cw[0..i], once sorted */
	int		 cwsorted;
	struct iv	*ck;			/* comm kernels of the device pass */
	size_t		 nck, capck;
	/* the current step's kernels */
	struct kv	*k;
	size_t		 nk, capk;
	struct buf	 stepid;		/* raw step_id of the buffered kernels */
	int		 havestep;
	struct buf	 streams;		/* raw stream values, \n-separated */
	int		 nstreams;
	struct buf	 arena;
	uint64_t	 hnames, hshapes;
	/* groups, for VARIABLE_SHAPE_SAME_TEMPLATE */
	struct group	*g;
	size_t		 ng, capg;
};
extern struct opsprof S;

/* The rules, read once by main (filters/asc-ops.c). */
extern int64_t minbubble, smallns, anchordur;
extern double anchorratio, polshare, maskedr, exposedr;
extern int anchorrank, runmin, topn;
extern double rungap;
extern struct buf ob, tmp;

/* -M: the PMU values come from a file of their own (asc-ops/pmu.h). */
extern const char *mpath;
extern struct pmu_join mjoin;
extern int kflag, mrc;
extern size_t mmaxline;

/* table.c */
int64_t		 avg(int64_t, int64_t);
struct op	*op_get(int, const char *, size_t);
void		 ops_clear(void);
void		 addname(struct op *, const char *, size_t);
void		 addshape(struct op *, uint64_t);

/* kernels.c */
int		 kernelrec(struct rin *);

/* steps.c */
void		 step_flush(const struct rin *, int);
int		 steprec(struct rin *);

/* rank.c */
int		 durcmp(const void *, const void *);
int		 rootcmp(const void *, const void *);
const char	*aicpuclass(const struct op *);
void		 key_out(struct buf *, const struct op *);
void		 keylist(const char *, struct op **, size_t, int (*)(const struct op *));
int		 wantpol(const struct op *);
int		 wantcpu(const struct op *);
int		 wantvar(const struct op *);
void		 rank_ops(struct op **, size_t, const size_t *, const size_t *);

/* summary.c */
void		 profile_out(void);
void		 profile_reset(void);

#endif
