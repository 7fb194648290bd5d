/*
 * asc-attrib's own modules (filters/asc-attrib/, linked into asc-attrib
 * alone): the interned names (names.c), the step context and the bubble
 * windows (context.c), reading host events (host.c), the call-tree index
 * (tree.c), the sweep of each event against the windows (sweep.c), the
 * cause and label rules (causes.c), the attribution record (out.c), and
 * the stakes per step and profile with the end of a profile (stakes.c),
 * the host's top calls and the kernels they launch (roots.c).
 * filters/asc-attrib.c reads the records and the rules and drives them.
 */
#ifndef ASC_ATTRIB_H
#define ASC_ATTRIB_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "rec.h"
#include "steprec.h"
#include "util.h"

#define EVN	5		/* evidence events kept per label */
#define CHN	6		/* chain names kept: the outermost and the 5 deepest */
#define MAXFAM	15		/* named host cause families; one more: "other" */
#define NOFAM	255
#define PPM	1000000
#define NOID	UINT32_MAX

enum { L_SYNC, L_COMM, L_UNTRACED, L_LAUNCH, L_SERIAL, L_INSUFF, NLABEL };
extern const char *const lname[NLABEL];

enum { S_PRELAUNCH, S_INTERNAL, S_TAIL, S_GLOBAL, NSCOPE };
extern const char *const scopename[NSCOPE];

/*
 * Interned strings: host event names and frames as raw JSON text, with
 * the name's class (1 sync marker, 2 comm marker, 4 step marker, 8
 * dispatch op, 16 copy call, 32 a copy's evidence, 64 a copy to the
 * device by its name, 128 a Python frame of user code naming its
 * source line, 256 the profiler's own code).  Held for the whole run: bounded by
 * the distinct names, not by the events.
 */
struct istr {
	int		 cls;
	unsigned char	 nfam, cfam;	/* family as a name, as a category */
};

/* The names (their text: names.v[id].s, .n) and what each is, by id. */
struct istrtab {
	struct intern	 names;
	struct istr	*v;
	uint32_t	 n, cap;
};
extern struct istrtab I;

/* Names of a call chain, outermost first (python frames left out). */
struct chain {
	uint32_t	 id[CHN];
	int		 n;
};

/* A running union of intervals whose starts never decrease. */
struct run {
	int64_t		 cs, ce, tot;
	int		 have;
};

struct thr {
	int64_t		 pid, tid;
	struct run	 u;
};

struct ev {
	uint32_t	 name;
	int64_t		 tid, ov;
};

struct top {
	struct ev	 v[EVN];
	int		 n;
};

/* A host op; name NOID: none; frame NOID: the event had no "frame". */
struct hop {
	uint32_t	 name, frame;
	int64_t		 tid, s, e, ov;
};

/*
 * The chain that stands for a family in a window: the event of that
 * family overlapping the window most, replaced by its child that still
 * overlaps at least half as much, and so on down, so that the chain
 * reaches the runtime call under an aten op.
 */
/*
 * Calls with no frame of their own, by the nearest enclosing Python
 * frame of user code (f, NOID none) and the outermost call under it (c):
 * gl holds the group's calls and the window's events of the families
 * before this one (and serialisation points), l those alone, so the
 * family's time in the group is |gl| - |l|.  own set: the frame f's own
 * lines (c NOID), its l holding the family's other events too.  f = c =
 * NOID and over set: the groups past PGN.  tid, s, e: the group's first
 * event, whose enclosing loop frame a group of no frame names.
 */
#define PGN	16
struct pyg {
	uint32_t	 f, c;
	int		 over, own;
	int64_t		 tid, s, e;
	struct run	 gl, l;
};

struct fbest {
	uint64_t	 ser;
	int64_t		 treeov, ov;
	int64_t		 s, e;		/* the deepest event's span */
	struct chain	 ch;
	uint32_t	 frame;
	struct pyg	 pg[PGN];
	int		 npg;
};

/*
 * What the host did in a window: allocated when an event first touches
 * it.  fam[f] is the union of the events of families 0..f (the priority
 * order, "other" last), so family f alone holds |fam[f]| - |fam[f-1]|.
 * The events of serialisation points come first (ser, also in every
 * fam[f]): a thread blocked on the device leaves the device's own gaps,
 * which its enclosing frames do not explain either.  fam[nfam] is the
 * time any host event covers.
 */
/*
 * The longest stretch of a window that no host event of any depth covers
 * (untraced), with the events that end before it and start after it
 * (NOID: the window's edge).
 */
struct gap {
	int64_t		 s, e;
	uint32_t	 before, after;
};

struct wst {
	struct run	 any, sync, comm, ser, fam[MAXFAM + 1];
	struct run	 all;		/* fam[nfam] and the loop's frames */
	uint32_t	 cxname, cxframe;	/* the latest-starting loop frame in it */
	struct gap	 gap;
	uint32_t	 lastname;	/* the event reaching furthest so far */
	int64_t		 lastend;
	struct thr	*th;
	int		 nth, capth;
	int		 todev;		/* an h2d_copy call names the device as target */
	struct top	 tany, *tsync, *tcomm;
	struct hop	 best;
	struct fbest	*fb[MAXFAM + 1];
};

struct win {
	int64_t		 s, e;
	uint32_t	 step;		/* index in P.st */
	unsigned char	 sig, partial, scope;
	size_t		 bid;		/* raw "bubble_id" in P.arena */
	uint32_t	 bidn;
	struct wst	*st;
	struct hop	 before;	/* the latest op ending by s */
};

struct step {
	size_t		 dev, sid, gid;		/* raw values in P.arena */
	uint32_t	 devn, sidn, gidn;
	int		 real;			/* a step, not only a global window's holder */
	int64_t		 sig, partial, commsync, covered, untraced, wait;
	int64_t		 self, selfmax;		/* frame self time; the window's most */
	uint32_t	 selfname;		/* that window's loop frame */
	int64_t		 cause[MAXFAM + 1];
	int64_t		 s0;			/* window start, from the step record */
};

/* An interval of the step's context: a step window or a step marker. */
struct span {
	int64_t		 s, e, tid;	/* tid -1: any thread (a step window) */
	uint32_t	 step;		/* index in P.st; NOID for a marker */
};

/*
 * A long host synchronisation (a sync family's outermost event of at
 * least attribution.serial_min_us): where it lies, how long the deepest
 * synchronising call in it blocked (from bs), and its chain down to
 * that call.
 */
struct serial {
	int64_t		 s, e, bs, blocked;
	uint32_t	 step, frame;
	unsigned char	 fam;
	int		 point;		/* a serialisation point, not a bubble cause */
	struct chain	 ch;
	struct chain	 fch;		/* its enclosing Python user frames */
};

/*
 * A device task that is no kernel (attribution.device_tasks: an input
 * copy, an event wait): the kernel table leaves it out, so a window
 * between kernels may hold it.  Names are interned raw JSON; tt NOID:
 * no task type.
 */
struct dtask {
	int64_t		 s, e, stream;
	uint32_t	 name, tt;
};

/* A host event waiting for its leafness. */
enum { Q_PENDING, Q_LEAF, Q_CONTEXT };
struct qev {
	uint32_t	 name, frame;	/* frame NOID: none */
	uint32_t	 op;		/* outermost dispatch op of the chain; NOID: none */
	uint32_t	 cframe;	/* the chain's user frame; NOID: none */
	/* nearest enclosing Python user frame (NOID: none), the outermost
	 * call under it (pyc; pyent: this event is that call), the user
	 * frames down to pyf (fch) */
	uint32_t	 pyf, pyc;
	int		 pyent;
	struct chain	 fch;
	int64_t		 pid, tid, s, e;
	uint64_t	 ser, pser;	/* its serial number, its parent's (0: none) */
	int		 cls, state, depth, tally;
	int		 serial;	/* inside a serialisation point */
	int		 ctx;		/* a frame of the step's context */
	int		 isop;		/* the chain's outermost dispatch op */
	unsigned char	 fam;
	/* Under a copy call the chain has not yet shown to be a copy (see
	 * copyres): troot its serial number (0: none), pqi the queue index
	 * of the parent, own the family it takes from itself. */
	uint64_t	 troot, pqi;
	unsigned char	 own;
	struct chain	 ch;		/* the chain down to this event */
};

/* An open event of an OS thread, a parent for the events inside it. */
struct cent {
	int64_t		 s, e;
	uint64_t	 ser;
	uint32_t	 frame, op;
	int		 depth;
	int32_t		 cand;		/* its serial candidate, -1 none */
	int		 serial;	/* the candidate is a serialisation point */
	int		 cls;
	unsigned char	 fam, own;
	uint64_t	 troot, qi;	/* as struct qev's; qi: its queue index */
	struct chain	 ch;		/* python frames left out */
	uint32_t	 pyf, pyc;	/* as struct qev's */
	struct chain	 fch;
};

struct cthr {
	int64_t		 tid;
	struct cent	*v;
	size_t		 n, cap;
};

/* A thread: its queued events that may still contain another. */
struct othr {
	int64_t		 pid, tid;
	uint64_t	*open;		/* queue positions */
	size_t		 n, cap;
};

/* The profile being read. */
struct prof {
	struct sr_sect	 sect;		/* sect.sec SR_HOST: host events began */
	int		 sorted;
	struct buf	 prof, arena;
	struct win	*w;
	size_t		 nw, capw;
	size_t		*ord, nopen;
	size_t		*act, nact, capact;
	struct step	*st;
	size_t		 nst, capst;
	int64_t		 nhost, nleaf, lasthost, firsthost;
	/* The leaf op with the latest end so far. */
	struct hop	 last;
	struct qev	*q;		/* ring: [qhead, qtail) by start */
	uint64_t	 qhead, qtail, qcap;
	struct othr	*th;
	size_t		 nth, capth, lastth;
	struct cthr	*ct;
	size_t		 nct, capct, lastct;
	struct span	*sw, *mk;	/* step windows, step markers: by start */
	size_t		 nsw, capsw, nmk, capmk;
	struct serial	*sr;
	size_t		 nsr, capsr;
	int64_t		*opns;		/* dispatch host time by name id */
	/* Events named as op_compile: all, those that compile (compile_min_us). */
	int64_t		 ncomp, compns, complong, ncompiles;
	int64_t		 ndequeue;	/* task queue: Dequeue@ events */
	struct span	*dq;		/* the Dequeue@ events */
	size_t		 capdq;
	/* The step's context frames (not markers): step = name id. */
	struct span	*cx;
	size_t		 ncx, capcx;
	/* Device tasks by start; dtmax[i]: the latest end of dt[0..i]. */
	struct dtask	*dt;
	int64_t		*dtmax;
	size_t		 ndt, capdt;
	/* Device starts of host-to-device copies (a memcpy host event
	 * linked to its device task, "kernel_ns"), sorted when first read. */
	int64_t		*cp;
	size_t		 ncp, capcp;
	int		 cpsorted;
	size_t		 capops;
	uint64_t	 serialno;
};
extern struct prof P;

/* A window's figures: union lengths and the sum of per-thread unions. */
struct fig {
	int64_t		 len, cov, anyd, wait, sync, comm, busy;
	int64_t		 self;		/* under a loop frame alone */
	int64_t		 cause[MAXFAM + 1];
	int		 nth, covered, top;	/* top: named family with most time, -1 none */
};

struct lab {
	int		 l[NLABEL], n;
	const char	*reason;
};

/*
 * The rules, read once by main (filters/asc-attrib.c).  Host cause
 * families in priority order; index nfam is "other".
 */
extern int nfam;
extern const char *famname[MAXFAM + 1];
extern const char *const *famnames[MAXFAM], *const *famcats[MAXFAM];

extern int64_t syncppm, commppm, untrppm, launchppm, serialppm, shareppm;
extern int64_t serialmin;
/*
 * An op_compile event shorter than this is a lookup in the compiled-op
 * cache, not a compile: it takes its parent's family (the dispatch that
 * called it).  famcompile: op_compile's index, -1 when the rules have none.
 */
extern int64_t compilemin;
extern int famcompile;
extern int famh2d;		/* h2d_copy's index, -1 when the rules have none */
extern const char *const *stepmarks, *const *syncmarks, *const *commmarks;
extern const char *const *dispops;
extern unsigned char famsync[MAXFAM + 1];	/* attribution.serial_families */
extern unsigned char famhold[MAXFAM + 1];	/* attribution.holding_families */
extern const char *const *copycalls, *const *copyev, *const *todevcalls;
extern int famlaunch;		/* the family whose ops are named */
extern struct buf ob, tmp;
/* Host records read, and read by hostfast: $ASC_ATTRIB_STATS prints them. */
extern unsigned long nhostrec, nfast;

/* num / den >= ppm / 10^6, exactly. */
static inline int
atleast(int64_t num, int64_t den, int64_t ppm)
{
	return (__int128)num * PPM >= (__int128)ppm * den;
}

static inline void
run_add(struct run *r, int64_t a, int64_t b)
{
	if (!r->have) {
		r->have = 1;
		r->cs = a;
		r->ce = b;
	} else if (a > r->ce) {
		r->tot += r->ce - r->cs;
		r->cs = a;
		r->ce = b;
	} else if (b > r->ce)
		r->ce = b;
}

static inline int64_t
run_len(const struct run *r)
{
	return r->tot + (r->have ? r->ce - r->cs : 0);
}

/* The queued event at position i of the ring. */
static inline struct qev *
qat(uint64_t i)
{
	return &P.q[i & (P.qcap - 1)];
}

/* names.c */
void		 sortv(void *, size_t, size_t, int (*)(const void *, const void *));
uint32_t	 intern(const char *, size_t);
void		 putistr(uint32_t);

/* context.c: steps, step markers, device tasks, bubble windows */
int		 steprec(struct rin *);
int		 markrec(struct rin *);
int		 dtaskrec(struct rin *);
int		 bubblerec(struct rin *);
void		 spanadd(struct span **, size_t *, size_t *, int64_t, int64_t, int64_t,
		    uint32_t);
int		 spancmp(const void *, const void *);
size_t		 spanfrom(const struct span *, size_t, int64_t);
int		 holds(const struct span *, size_t, int64_t, int64_t, int64_t);
void		 dtprep(void);
void		 sortwins(void);
size_t		 winsbefore(int64_t);
void		 openupto(int64_t, int);
int64_t		 idleov(int64_t, int64_t);
uint32_t	 inside(int64_t, int64_t);
uint32_t	 userctx(int64_t, int64_t, int64_t);

/* host.c */
int		 hostrec(struct rin *);

/* tree.c */
struct othr	*othr(int64_t, int64_t);
void		 chainof(struct qev *, int);
void		 copyres(uint64_t, int);

/* sweep.c */
void		 drain(int64_t);

/* causes.c */
void		 figures(const struct win *, struct fig *);
void		 labels(const struct win *, const struct fig *, int, struct lab *);
struct gap	 wingap(const struct win *);

/* out.c */
void		 share(const char *, int64_t, int64_t);
void		 chainout(const struct chain *);
void		 causes(const char *, const int64_t *, int);
void		 attribution(const struct win *, const struct fig *, int, const struct lab *);
void		 coverage(int64_t, int64_t, uint32_t, int64_t, int64_t, int64_t, int);
void		 gapout(const struct gap *, const struct win *);

/* stakes.c */
void		 profile_end(void);

/* roots.c: the host's top calls and the kernels they launch */
void		 rootev(int64_t, int64_t, int64_t, int64_t, uint32_t, uint32_t, int, int64_t,
		    int);
void		 rootsout(const struct win *);
void		 rootsreset(void);

#endif
