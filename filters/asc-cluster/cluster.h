/*
 * asc-cluster's modules share these: the ranks, steps, collectives,
 * groups and waits read from the records (read.c), the jobs (jobs.c),
 * the output helpers and recommendations (out.c), and the parts of the
 * analysis (peers.c, late.c, links.c).  Linked into asc-cluster alone.
 */
#ifndef ASC_CLUSTER_H
#define ASC_CLUSTER_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jv.h>

#include "rec.h"
#include "util.h"

#define UNSET	INT64_MIN

enum dim { D_COMPUTE, D_EXPOSED, D_OVERLAP, D_FREE, D_PREP, D_TAIL, D_SERVICE, ND };

struct rstep {
	char	*step;
	int	 from_kernels;		/* else step_trace_time.csv */
	int64_t	 v[ND];			/* UNSET: not measurable */
	int64_t	 start_abs;		/* step window start, UNSET if unknown */
	int	 have_st;
	int64_t	 st[ND];		/* torch_npu's figures of the same step */
	/* host time in the preparing window by cause family (asc-attrib's
	 * prelaunch attribution); untraced UNSET: no such record */
	int	 nhc;
	struct hcause { char *fam, *head; int64_t ns; } *hc;
	int64_t	 untraced;
};

struct tbw {
	char	*name;
	double	 size_mb, time_ms;
};

struct rank {
	int	 file;			/* input index: names repeat across files */
	char	*profile, *path, *input, *sig, *parent;
	int	 rankid, device;
	int64_t	 origin;		/* absolute ns; UNSET until the profile record */
	int	 job;
	int	 nstep;
	struct rstep *steps;
	int	 nbw;
	struct tbw *bw;
	int	 seen;			/* its profile record was read */
	int	 active;		/* profiler_info schedule active steps, -1 unknown */
};

struct cinst {
	int	 rank;
	char	*group, *step, *op;
	int	 occ;			/* n-th op of that name in the step */
	int	 collective;
	int64_t	 start_abs;
	int	 from_kernel;
	double	 wait_ms;		/* -1: unknown */
	double	 elapse_ms;		/* communication.json's; -1: unknown */
	double	 xfer_ms, xfer_mb;	/* its busiest transport's bandwidth row */
};

struct link {
	int	 rank;
	char	*group, *cls, *link, *transport, *op;
	double	 size_mb, time_ms, bw;
	int	 fromdb;		/* src analysis.db CommAnalyzerMatrix */
};

/* A rank's wait for one peer of a group in one step, from its HCCL
 * tasks (asc-comm's comm_peer); and the groups each rank belongs to
 * (comm_group), with the size the capture gives. */
struct pwait {
	int	 rank;
	char	*group, *step;
	int64_t	 peer, wait, exposed;
	int64_t	 own;			/* all of its waits on that peer, UNSET unknown */
	int64_t	 ownex;			/* the part of own not under compute */
	int64_t	 local;			/* the tasks' own number of the peer */
};

/* A comm_op's waits per peer (local ranks, as its tasks number them). */
struct cop {
	int	 rank;
	char	*group, *step, *op;
	int	 n;
	int64_t	*peer, *ex, *ownex;	/* exposed_wait_ns, own_exposed_wait_ns */
	int64_t	*own;			/* own_wait_ns */
};
extern struct cop *cops;
extern size_t ncop;

/* A rank report's pipeline stages (asc-judge's pipeline_stages): this
 * stage's and the peer stage's time per micro-batch, in ns. */
struct ppst {
	int	 rank;
	char	*group, *imb;		/* imbalance: peer, here, none */
	int64_t	 here, peer, perstep;	/* perstep: imbalance_ms_per_step */
	double	 ratio;			/* slower_by_ratio */
	int	 est, spans;		/* here_estimated; spans_ms's length */
	/* what the rank report says acting could win (pipeline_stake):
	 * won_ms, of it imbalance_ms and schedule_won_ms with
	 * microbatches_advised; UNSET without it */
	int64_t	 won, wimb, wsched;
	int	 madv;
	/* the device idle (no kernel) from its last send/recv op, lastop,
	 * to nextop, the step's next communication op; UNSET unknown */
	char	*lastop, *nextop;
	int64_t	 lastidle;
	int	 ub;			/* pipeline_stake.upper_bound */
	/* pipeline_stake.rebalance_ms: what rebalancing the stages wins
	 * (wimb is won only were the peer stage as fast); UNSET unknown */
	int64_t	 rebal;
	/* the rank report's own last stretch when it ends at a once-per-step
	 * part (per_step_part) before nextop: its length, its device idle
	 * and that part's time before nextop; mbpart NULL when it does not */
	char	*mbpart;
	int64_t	 mbafter, mbidle, mbcut;
	int	 mbs;			/* microbatches, 0 unknown */
};
extern struct ppst *pps;
extern size_t npps;

struct rgroup {
	int	 rank;
	char	*group;
	int64_t	 size;
	char	*role, *kind;		/* parallel_group_info name, ops_kind */
	int64_t	 elapsed, exposed;	/* over the capture; exposed UNSET: no kernels */
	int64_t	*peer;			/* peer_global_ranks */
	int	 npeer;
	/* embd groups with kernels: from the group's gradient to its ops,
	 * and the compute in between (after_grad, after_grad_compute) */
	int64_t	 gradgap, gradcu;
};

extern struct pwait *pws;
extern size_t npw;

/* A rank report's stake for one comm group (asc-judge's stake_by_group:
 * what overlapping or shrinking its ops could win on that rank). */
struct gstake {
	int	 rank;
	char	*group, *how;
	int64_t	 stake, compute, halfxfer;	/* UNSET: not given */
	int	 ub;			/* its upper_bound */
	char	*rid;			/* the rank report's finding holding it */
	int	 rpri;			/* that finding's priority */
	int64_t	 rstake;		/* and its stake, UNSET: none */
};
extern struct gstake *gss;

/* A rank report's first finding (P0): its id, stake (UNSET: none) and
 * headline, for the cluster's pointer to it. */
struct rtop {
	int	 rank;
	char	*id, *head;
	int64_t	 stake;
	int	 ub;
};
extern struct rtop *rtops;
extern size_t nrtop;
extern size_t ngs;

/* A long Notify_Wait of a rank's HCCL tasks: on which peer (the tasks'
 * number) and when it ends, absolute. */
struct lwait {
	int	 rank;
	int64_t	 peer, end, dur;
};
extern struct lwait *lws;
extern size_t nlw;

/* A device idle window of a rank (asc-gaps' bubble), absolute ns. */
struct idle {
	int	 rank;
	int64_t	 start, end;
};
extern struct idle *ids;
extern size_t nid;
extern struct rgroup *rgs;
extern size_t nrg;

extern struct rank *ranks;
extern int nrank;
extern struct cinst *cis;
extern size_t ncis;
extern struct link *links;
extern size_t nlink;
extern int rc;

struct job {
	char	*name;
	int	 nr;
	int	*r;			/* rank indexes, by rank id */
	int	 nids;			/* distinct ranks: a rank id held twice counts once */
	int	 nwarn;
	struct jwarn *warn;
};

/* Two profiles of a job that share a name or a rank id. */
struct jwarn {
	const char *code;		/* duplicate_profile, duplicate_rank */
	char	*msg;
	int	 a, b;			/* rank indexes */
};
extern struct job *jobs;
extern int njob;
extern int quiet;		/* -q: the records and the report say it, stderr does not */

struct coll {
	size_t	 first, n;		/* span of cis */
	int	 late, early;		/* rank indexes */
	int64_t	 skew, caused, delay;	/* delay: late start - median of others */
	int64_t	 at;			/* the late rank's start, absolute */
	double	 waited_ms;		/* measured wait of the others, -1 unknown */
	int64_t	 fixed;			/* the wait it causes once no uncaptured peer covers it */
	int	 covered;		/* a longer wait on an uncaptured peer covers it */
	int	 selfwait;		/* the late rank itself waits: one not captured is later */
};

/* What the analysis of a job computes before it writes: the median
 * rank's means, the uncaptured peer every captured rank waits for, the
 * collectives and how often each rank is the late one. */
struct cres {
	int64_t	 med[ND], mstep;
	int64_t	 up, upleast;		/* up: that peer, -1 none; upleast: their least wait */
	const char *upg;		/* its group */
	struct coll *cl;
	size_t	 ncl, nsig;		/* nsig: with a skew of at least skew_min */
	int	*latecount;		/* per rank index */
	double	 skew_min;		/* cluster.skew_min_us, in ns */
};

struct reco {
	int64_t	 stake;
	char	*text;
	int	 ub;			/* an upper bound only because a figure is unmeasured */
	const char *group;		/* a group finding's group, else NULL */
};
extern struct reco *recos;
extern int nreco;

extern struct buf rb;		/* the record being written */
extern struct buf js;		/* cluster.json */
extern FILE *md;		/* cluster_report.md, or NULL */
extern const char *outdir;
extern int jsfirst;		/* the next record is the first of its array */

/* read.c: the records read */
int sameprofile(const struct rank *a, const struct rank *b);
/* The input, read by lib/filter: each operand opened, each record. */
struct rin *readopen(const char *op, size_t maxline, void *arg);
int readrec(struct rin *in, const char *t, size_t tn, void *arg);

/* jobs.c */
void makejobs(int onejob);
void jwarn(struct job *j, const char *code, int a, int b, const char *fmt,
    ...) __attribute__((format(printf, 5, 6)));
void dupcheck(void);
const char *jobconf(const struct job *j, struct buf *b);

/* out.c: output helpers */
void bvprintf(struct buf *b, const char *fmt, va_list ap);
void bprintf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void put_ns(struct buf *b, const char *k, int64_t v);
void rbegin(const char *kind, const struct job *j);
void put_rank(const struct rank *r);
void rput(void);
void jsarray(const char *name);
const char *hd(int64_t ns, char *t);
const char *rname(const struct rank *r, char *t);
int64_t median(int64_t *v, int n);
int prepfromst(const struct rank *r);
int64_t rmean(const struct rank *r, enum dim d);
int cmpci(const void *a, const void *b);
int grouppartial(int ri, const char *g, size_t n);
const char *srcname(size_t kern, size_t n);
int bycaused(const void *a, const void *b);
void addreco(int64_t stake, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int bystake(const void *a, const void *b);
void recoub(void);
void recogroup(const char *);
const char *ubwhy(int ri, char *t);
char *relpath(const char *from, const char *to);
int injob(const struct job *j, int ri);
int captured(const struct job *j, const char *g, int64_t id);

/* render.c: cluster_report.md from filters/asc-cluster.jq */
void doc_begin(void);
void doc_add(const char *p, size_t len);
void doc_view(const char *key, jv v);
jv nsjv(int64_t v);
jv rankjv(const struct rank *r);
jv urljv(const char *s);
void mdfoot(const char *version, const char *rules);
void mdsection(const char *section);

/* links.c: the slow links of a job (linkscan), then their records
 * and report (wlinks) */
struct slink {
	const struct link *l;		/* its first entry */
	double	 bw, med;		/* mean GB/s over its entries, its class's median */
	int	 steps;			/* entries averaged */
	int64_t	 stake;			/* time lost per op, ns */
};
struct lres {
	struct slink *s;
	size_t	 n;
	size_t	 entries, links, fromdb;	/* read: entries, links, from analysis.db */
};
int firstlink(size_t a);
void dropviews(void);
void linkscan(const struct job *j, struct lres *r);
void wlinks(const struct job *j, const struct lres *r);

/* peers.c */
int64_t uncaptured_worst(const struct job *j, const char **g, int64_t *least);
void peerwaits(const struct job *j);
int pairwait(int ri, const char *g, int64_t first, int64_t p, const char *step, const char *op,
    int64_t *per, int64_t *w, int64_t *ex);

/* pipeline.c */
int ppimbalance(const struct job *j, const char *g, const char *peers, int npeer, struct buf *b);
int64_t ppwon(const struct job *j, const char *g, struct buf *b, int *ub);
int nomorembs(const struct job *j, const char *g);

/* late.c */
int64_t stepv(const struct rstep *s, enum dim d);
const char *moreless(int64_t d, const char *more, const char *less, char *t);
int idlebefore(int ri, const struct cinst *me, struct buf *out);
/* the late rank's stretch from its previous comm op to the collective
 * against the others' (stretchcmp): deltas UNSET when not measurable */
struct stretch {
	int64_t	 dleave, dstretch;
	const char *text;
};
int stretchcmp(int ri, const struct coll *w, const char *against, int64_t *dleave,
    int64_t *dstretch, struct buf *out);
const char *latecause(const struct job *j, int ri, const struct rstep *ls, int64_t delay,
    const char *op, const char *against, int64_t dstart, int64_t dprep, int64_t rest,
    int64_t dfree, int64_t dcomp, const char *where, const struct stretch *st, struct buf *out);
int64_t othersextra(const struct job *j, int ri, const struct coll *cl, size_t ncl,
    double skew_min, jv *ops, struct buf *jo);
void lateranks(const struct job *j, const struct cres *x);

#endif
