/*
 * asc-fia's own modules (filters/asc-fia/, linked into asc-fia alone):
 * the kernel-name rules (names.c), the layer engines (layers.c), passes
 * (passes.c), phase runs (phases.c), cross-checks (checks.c), comm roles
 * (roles.c), and the end of a unit: classify.c, emit.c, summary.c.
 * filters/asc-fia.c reads the records and drives them.
 */
#ifndef ASC_FIA_H
#define ASC_FIA_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

#define MAXROLE		64
#define MAXSTREAM	64
#define MAXTYPE		8
#define MAXANOM		8
/*
 * Output caps: every pass and phase run has its record (they grow with
 * the capture, as its steps do); fia_layer records are written for at
 * most the first NLREC layers; the pattern fallback finds periods of up to
 * PATMAX layers; a layer type lists at most NRANGE layer ranges.
 */
#define NLREC		4096
#define PATMAX		1024
#define NRANGE		64

/* Name flags, from the rules. */
#define F_FIA	0x01
#define F_DFC	0x02
#define F_GMM	0x04
#define F_GATE	0x08
#define F_A2A	0x10
#define F_SAMP	0x20
#define F_ANCH	0x40	/* fallback anchor (other attention kernels) */
#define F_COMMN	0x80
#define F_BWD	0x100	/* backward (gradient) kernel */
#define F_OPT	0x200	/* optimizer kernel */
#define F_LOSS	0x400	/* loss kernel */
#define F_P2P	0x800	/* point-to-point send / receive */
#define F_PFA	0x1000	/* prefill attention by name (PromptFlashAttention) */
#define F_IFA	0x2000	/* decode attention by name (IncreFlashAttention) */
#define F_EMB	0x4000	/* the embedding's lookup or gradient */
#define F_SEED	0x8000	/* the ones a backward's gradient starts from */
#define F_ONCE	0x10000	/* once-per-step work: the gradient norm (fia.grad_norm) */

enum { C_COMPUTE, C_COMM, C_AICPU };
enum { FC_NONE, FC_PREFILL, FC_DECODE, FC_AMBIG };
enum { T_DENSE, T_DFC, T_GMM, T_MOE, T_DECODE, T_BWD, NTYPE };
enum { E_FIA, E_ATT, E_PER, NENG };
enum { PH_FWD, PH_BWD, PH_OPT, NPH };
/*
 * Work between passes, not layer time: pipeline send/receive, gradient
 * sync (dp collectives after the last gradient kernel), the embedding
 * gradient all-reduce, the optimizer step, and the rest (other
 * collectives, compute before the next pass's first layer).
 */
enum { BP_PIPE, BP_GRAD, BP_EMBD, BP_OPT, BP_COMM, BP_COMP, NBP };
extern const char *const bpname[NBP];
/* Where a communication kernel's role comes from. */
enum { RS_GROUP, RS_INF, RS_DIMS, RS_POS, RS_NAME, NRS };

extern const char *const tname[NTYPE];
extern const char *const fcname[];
extern const char *const ename[NENG];
extern const char *const phname[NPH];
extern const char *const rsname[NRS];
extern const char *const clname[];

/*
 * Kernel names without their instance suffix (ops.name_strip_regex),
 * interned: as many as the model has kinds of kernels.  What the rules say
 * of a raw name is kept in a cache of RAWCACHE entries: raw names can be
 * unique per kernel (hcom_allReduce__428_1001_1).
 */
#define RAWCACHE	16384

struct rawname {
	char	*s;
	size_t	 n;
	int	 flags, role;	/* role -1: none matched */
	int	 norm;		/* the name without its instance suffix */
	int	 fam;		/* op family (fia.families), -1: none */
};

/* A union of intervals fed in start order. */
struct acc {
	int	 have;
	int64_t	 s, e, tot;
};

struct stream {
	char		*label;		/* raw stream value, or comm:hccl / comm:alltoall */
	char		*raw;		/* raw JSON value ("null" for none) */
	size_t		 llen, rlen;
	int		 fromf;		/* raw is the kernels' own value */
	int64_t		 n, sum, ncl[3], clsum[3];
	struct acc	 u, c, m;	/* own, compute on other streams, both */
	char		*first;		/* the name of the first kernel */
};

/* A kernel of the current layer (name: the normalised name). */
struct lk {
	int	 name, flags, stream, role, cls, ph;
	int64_t	 s, e;
};

struct layer {
	int64_t	 start, end, kernels, ksum, fiadur, gap;
	int	 fcls, type, dfc, gmm, gate, a2a, samp, aicpu, nfia, stepchg, pass, inpass, match;
	int	 dir, p2p;		/* backward layer; a send / receive before it */
	int	 loss;			/* loss kernels in it */
};

/* A cross-verification check of a pass, accumulated layer by layer. */
struct chk {
	int64_t	 expected, observed, kernels, mn, mx;
	int	 nlack, nextra, lackdecode;
	char	 lack[192], extra[192];	/* the first 5 layers of each */
};

/* A pass, accumulated layer by layer. */
struct pass {
	size_t	 l0, l1;		/* layer range [l0, l1) */
	int	 why;			/* boundary reasons, bits */
	int	 haves, dir;
	int64_t	 gap, s, en, k, ks, pf[4], ps[4], ptc[NTYPE], c[6];
	struct chk ck[4];
};

/* The passes of one way of cutting the layers. */
struct chain {
	struct pass	*rec;		/* the closed passes */
	size_t		 nrec, caprec, n;	/* closed; room; all, the open one included */
	struct pass	 cur;		/* the open pass */
	int		 uniform, methods;
	int64_t		 firstfia, lastfia, firstwall, lastwall;
};

#define MAXFAM	16
#define MAXCB	64
#define NSTAGE	32
#define MAXGROUP 32

/*
 * A run of kernels of one phase.  A backward run whose dp (or embedding)
 * collective no gradient kernel follows ends with its last compute kernel
 * before it: from there on is gradient sync (w*: the backward; ts: the
 * sync's start).  When a non-gradient compute kernel had to wait for the
 * run's dp collectives to end (a bucket copy behind the previous bucket),
 * the backward ends before that wait (p*: the run before the wait; x*: the
 * wait, on the collective xc), and the wait is gradient-sync time.
 */
#define NBC 256		/* backward collectives followed per run */

/* A run's kernels counted: all, communication ones (c*), and the last
 * end of a communication kernel (me). */
struct ptally {
	int64_t	 n, sum, cn, csum, me;
};

struct prun {
	int	 ph, first;	/* first: the name of its first kernel */
	int64_t	 s, e;
	struct ptally a;	/* the run's kernels */
	int	 sync;
	int64_t	 we, ts;
	struct ptally w;	/* those before the gradient sync (at we) */
	int64_t	 ce;		/* last end of a compute kernel */
	int	 mec, mer;	/* the collective ending last: name, role */
	int	 pw, xc;	/* a wait since the last gradient kernel; its collective */
	struct ptally p;	/* those before the wait */
	int64_t	 xs, xe;
	char	 mecraw[96], xcraw[96];	/* mec, xc as the kernel names them */
	/* The backward's dp collectives so far (pnbc: before the wait); mv:
	 * those ending after its last compute kernel, moved to the sync. */
	int	 nbc, pnbc, mv;
	struct bcoll { int cb; int64_t e, dur; } bc[NBC];
};

/* Communication kernels of one op, group and role. */
struct cb {
	int	 name, group, role, src;	/* group: -1 unknown */
	int64_t	 n, sum, nph[NPH];
	int64_t	 nsync, mark, wmark;	/* gradient sync; nph[PH_BWD] at its start */
};

/* A kept kernel, for the period search and its replay. */
struct pk {
	struct lk k;
	int64_t	 dur, gap;
	int	 step;		/* step serial, -1: none */
	int	 fam, ph;
};

struct tk {
	int	 name, stream, role, cls;
	int64_t	 dsum, osum;
};

struct ltype {
	int	 type, first;
	int64_t	 count, kernels, ksum, wsum, wmin, wmax, fiasum, firstwall, samp;
	double	 wsq;
	int64_t	 rn[MAXROLE], rsum[MAXROLE], rwall[MAXROLE];
	uint64_t rstreams[MAXROLE];
	struct tk *tpl;
	int	 ntpl, truncated;
	int64_t	 matched, deviating;
	char	*anom[MAXANOM];
	int	 nanom;
	/* Runs of consecutive layers of the type, as text (NRANGE at most). */
	struct buf rtext;
	int64_t	 rs, rl, nr;		/* open run [rs, rl]; runs */
};

struct eng {
	int		 open, nanch;
	/*
	 * The open layer: figures added up kernel by kernel, its first
	 * template_max kernels and its distinct names in order, so a layer
	 * as long as the capture (steps without ids) costs no more.
	 */
	struct lk	*buf;
	size_t		 nbuf, capbuf;
	struct acc	 ra[MAXROLE];	/* per role: union of intervals */
	int64_t		 rn[MAXROLE], rsum[MAXROLE];
	uint64_t	 rst[MAXROLE];
	int		*dn;		/* distinct names, first seen first */
	size_t		 ndn, capdn;
	unsigned	*stamp, serial;	/* per name: last layer holding it */
	size_t		 capst;
	struct layer	 cur;
	struct layer	*l;		/* the first NLREC layers */
	size_t		 nl, capl;	/* all layers; room in l */
	int64_t		 pro_n, pro_sum, pro_s, pro_e;
	struct ltype	 t[MAXTYPE];
	int		 nt;
	struct buf	 lstep;		/* the open layer's step, raw */
	int		 lstepk;	/* it has one */
	int		 prevfcls;	/* of the last closed layer */
	int		 prevdir, p2p;	/* of the last layer; a send / receive since */
	struct chain	 on;		/* passes from gaps, transitions, steps */
	struct chain	 pat;		/* passes from the layer-type period */
	/*
	 * Between passes: once the open layer meets a send/receive or an
	 * optimizer kernel (hard) or a gradient sync (soft: undone by a later
	 * gradient kernel or a next layer of the same pass), its figures
	 * before that kernel are kept in s*, and the kernels from it on are
	 * tallied in p* for the parts b* if the layer is cut back.
	 */
	int		 seal;		/* 0 none, 1 soft, 2 hard */
	struct layer	 scur;
	struct acc	 sra[MAXROLE];
	int64_t		 srn[MAXROLE], srsum[MAXROLE];
	uint64_t	 srst[MAXROLE];
	size_t		 snbuf, sndn;
	int64_t		 pn[NBP], psum[NBP], bn[NBP], bsum[NBP];
	size_t		 per;		/* shortest period so far; 0: none <= PATMAX */
	/* Totals over the layers. */
	int64_t		 nfia[4], fsum[4], tc[NTYPE], cnt[6], samp;
	int		 anymoe, mis, decbad;
};

/* The passes' boundary reasons, bits. */
#define B_FIRST	1
#define B_GAP	2
#define B_D2P	4
#define B_STEP	8
#define B_PAT	16
#define B_DIR	32	/* forward <-> backward */
#define B_P2P	64	/* a send / receive between the layers */

/* The cross-verification checks: kernels of a flag, one per layer of the
 * types in mask (checks.c). */
struct ckind {
	const char	*what;
	int		 flag;
	unsigned	 mask;		/* layer types expected to hold it */
};
extern const struct ckind ckind[4];

/* The profile, its unit (one device run) and the unit's figures. */
struct fia {
	int		 unit, units;
	struct sr_sect	 sect;		/* the profile: order, counts, its name */
	struct buf	 dev;
	int64_t		 origin;	/* epoch ns, if known */
	int		 haveorigin;
	/* the unit: one device run */
	int64_t		 nk, ksum, first, last, maxend;
	int		 havek;
	struct acc	 all, comm, comp;
	struct stream	 st[MAXSTREAM];
	int		 nst;
	struct eng	 e[NENG];
	struct buf	 pkstep;	/* the previous kernel's step, raw */
	int		 pkstepk, havepk;
	/* op_stat counts, for a profile without kernels */
	int64_t		 opn, opcnt[8];
	/* Phases: the current one, kernels per phase, runs of one phase. */
	int		 ph;
	int64_t		 nph[NPH], phsum[NPH], nbwd, nopt;
	/* the last kernel, when a seed (F_SEED) counted in the forward */
	struct { int on, fam; int64_t dur, pe, pce; struct lk x; } seed;
	struct prun	*runs;		/* the closed runs */
	int64_t		 nruns;		/* all, the open one included */
	size_t		 caprun;
	struct prun	 lastrun;	/* the open run, or the last one */
	/* Loss kernels: by name, and ArgMax-like ones (loss in training). */
	int64_t		 nloss, nargm;
	int64_t		 npfa, nifa;	/* FIA markers by name */
	int64_t		 nemb[2], embsum;	/* embedding kernels: forward, gradient */
	int		 lossn[4], nlossn;
	/* Op families per phase, communication by op and role, stages. */
	int64_t		 famn[MAXFAM + 1][NPH], famsum[MAXFAM + 1][NPH];
	struct cb	 cb[MAXCB];
	int		 ncb, lastcb;	/* lastcb: the last comm kernel's */
	int		 stage[NSTAGE], nstage;
	int64_t		 stagen[NSTAGE];
	/* The first kernels, kept for the period search. */
	struct pk	*pk;
	size_t		 npk, cappk;
	int64_t		 pkmore;	/* kernels past the cap */
	int		 stepser;	/* serial of the kernel's step */
	int64_t		 opt_s, opt_e;	/* the optimizer kernels' span */
	int		 opt_first;	/* the first one, -1: none */
};
extern struct fia G;

/* The capture's parallel groups (profiler_metadata.json, from the
 * metadata record). */
struct meta {
	int	 have, n, dims;		/* dims: the only collective role with > 1 rank, or -1 */
	char	*key[MAXGROUP], *name[MAXGROUP];
	int	 role[MAXGROUP], size[MAXGROUP];
	int	 ppsize, epsize;
	int	 ppstage, ppstages;	/* this rank's pp group: group_rank, size; -1 */
};
extern struct meta M;

/*
 * What the capture says of each comm group (communication.json's ops,
 * communication_matrix.json's links), to match it to a named group of
 * parallel_group_info as asc-comm does: its size (the ranks of its
 * links) and what its ops do.
 */
#define MAXCG	256
#define MAXCGR	64
struct cg {
	int	 g;			/* names[] index of the group id */
	int	 p2p, rsag, ar;		/* send/recv, reduce-scatter or
					   all-gather, all-reduce */
	double	 maxmb;			/* largest transfer on a link */
	int64_t	 rk[MAXCGR];
	int	 nrk;
	int	 meta;			/* M index, -1 */
	const char *why;		/* what inferred meta (as asc-comm) */
};
extern struct cg CG[MAXCG];
extern int ncg, cgdone;

/*
 * communication.json's ops by op name and group, for a profile without
 * device kernels: what the rank communicated is still known.
 */
#define MAXCR	64
struct cr {
	int	 name, raw, group;	/* raw: the first op's full name */
	int64_t	 n, elapse;		/* ops, their elapsed time (ns) */
};
extern struct cr CR[MAXCR];
extern int ncr;

/*
 * communication.json: op name -> group + 1, by interned name, for the
 * kernels' groups; at most OPGCAP ops are kept.
 */
#define OPGCAP	65536
extern int *opg;
extern size_t capopg, nopg;

/* The period found by the fallback without an attention anchor: kernels
 * per repeat, repeats, its first kernel, the kernels searched. */
struct per {
	size_t	 per, rep, at, n;
};
extern struct per P;

/* -n: write profile records and our own, not the input. */
extern int ownonly;
/* The unit being written is a training capture. */
extern int training;

/* names.c: the rules' names and roles, interned kernel names. */
extern struct intern NT;		/* by index: NT.v[i].s, NT.v[i].n */
extern char *roles[MAXROLE];
extern int nroles, rsmall, rother;
extern char *famname[MAXFAM];
extern int nfam;
extern char *grname[MAXGROUP];		/* fia.group_roles: role of a group name */
extern const char *const *grglob[MAXGROUP];
extern int ngr;
/* Roles the code assigns itself (-1: not in the rules). */
extern int r_samp, r_pp, r_dp, r_ep, r_embd;
extern int minbwd, minrep;
extern size_t maxpk;
extern int64_t prefill_min, decode_max, pass_gap, small_ns;
extern double warmup;
extern int tplmax;
extern struct buf ob, tmp, tb, nmb;	/* nmb: the kernel's name */

void	loadroles(void);
int	roleidx(const char *);
/* The index of an interned name, or -1. */
int	lookup(const char *, size_t);
int	intern(const char *, size_t);
/* What the rules say of a raw kernel name; valid until the next call. */
const struct rawname *kname(const char *, size_t);
const char *rolename(int);

/* layers.c: intervals, the layer engines, the period fallback. */
void	acc_add(struct acc *, int64_t, int64_t);
int64_t	acc_get(const struct acc *);
void	eng_reset(struct eng *);
void	anomaly(struct ltype *, struct buf *);
void	ranges_flush(struct ltype *);
void	layer_end(struct eng *, int ei, int cut);
void	eng_kernel(struct eng *, int ei, const struct lk *, int anchor, int64_t dur,
	    const struct rfield *step, int64_t gap, int af);
/* head.c: layers start at their head, the kernels before the anchor. */
void	head_kernel(struct eng *, int ei, const struct lk *, int anchor, int64_t dur,
	    const struct rfield *step, int64_t gap);
void	head_flush(struct eng *, int ei);
void	period_replay(void);
/* Is the step f (NULL: none) the one held in b (k: there is one)? */
int	samestep(const struct buf *, int k, const struct rfield *f);
void	keepstep(struct buf *, int *k, const struct rfield *f);

/* checks.c: a pass's checks, layer by layer, and their outcome classes. */
void	chk_add(struct chk *, int kind, const struct layer *, size_t i);

/* passes.c: layers cut into passes. */
void	chain_close(struct chain *);
/* Empty, its room for passes kept. */
void	chain_reset(struct chain *);
void	layer_pass(struct eng *, struct layer *);

/* phases.c: runs of one phase (training), families, stages, loss ops. */
void	run_close(void);
void	phase_kernel(int ph, const struct lk *, int fam, int64_t dur);
void	phase_seed(void);
void	lossname(int name, int argmax);

/* roles.c: communication groups and roles. */
int	commrole(const char *raw, size_t, int fl, int namerole, int ph, int *group, int *src);
void	comm_tally(const struct lk *, int group, int src, int ph, int64_t dur);
const char *cgwhy(int);
void	readmeta(const char *groups, size_t);
void	commrec(struct rin *);
void	linkrec(struct rin *);
void	put_comm_ops(void);

/*
 * The end of a unit: classify (classify.c) decides the method, the passes
 * and the notes; verify (checks.c) writes the cross-checks; the rest is
 * written by emit.c and summary.c.
 */
struct unit {
	struct eng	*e;
	int		 ei, fia, anymoe, mismatch, methods;
	struct chain	*ch;
	size_t		 np, nlw;	/* passes; layers written */
	const char	*notes[16];
	int		 nn;
	/* Training: forward and backward passes, micro-batches per step. */
	int64_t		 nfp, nbp, nsteps, fl1, bl1;
	int		 funi, buni, agree;
};
void	classify(struct unit *);
void	verify(const struct unit *);

/* A record of the unit begun: its type, the profile and the device.  An
 * inline, as checks.c, emit.c and summary.c each start theirs so and
 * checks.c calls nothing of emit.c. */
static inline void
head(const char *type)
{
	out_begin(&ob, type);
	out_raw(&ob, "profile", G.sect.prof.p, G.sect.prof.len);
	out_raw(&ob, "device", G.dev.p, G.dev.len);
}

/* emit.c: the records. */
void	putratio(const char *k, int64_t num, int64_t den);
void	putmean(const char *k, int64_t sum, int64_t n);
void	fmtms(struct buf *, int64_t ns);
void	putwhy(int why);
void	putnotes(const char *const *notes, int n);
void	putabs(const char *k, int64_t rel);
void	emit_passes(const struct unit *);
void	emit_layers(const struct unit *);
void	emit_types(const struct unit *);
void	emit_streams(void);
void	emit_phases(void);
void	emit_comm(void);
/* summary.c */
void	emit_summary(const struct unit *);

#endif
