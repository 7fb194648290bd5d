/*
 * asc-attrib: soft host attribution of bubbles.  Per profile, hold the
 * "bubble" windows, sweep the "host" events once in start order against
 * them, and at the end of the profile write an "attribution" record per
 * bubble (host coverage, sync / comm marker overlap, host parallelism,
 * named host causes, candidate labels with their evidence, the nearest
 * host op), an "attribution_step" record per step (COMM_SYNC_RISK) and an
 * "attribution_summary" record.
 *
 * Leafness is decided here, not taken from the records: an event is
 * context only when another event of its thread (pid, tid) lies wholly
 * inside it; a partial overlap does not make it context.  Python and
 * CANN record the same OS thread under two pids: keeping them apart
 * keeps a Python op's own time as evidence when a CANN call lies inside
 * it.  An event waits in a queue until its leafness is known (a
 * contained event arrives, or the sweep passes its end); the queue is
 * processed in start order.
 *
 * Causes come from the call chain instead: on one OS thread (tid, any
 * pid) an event's parent is the latest-starting earlier event that
 * wholly contains it, and its family is the first in the rules' order
 * among its own and its parent's (so a sync inside aten::to is a copy).
 * Every event counts for the families and for the host-covered time,
 * whatever its depth, except the step's context: step markers and the
 * events around a marker or a step window (the training loop's frames),
 * which would cover every bubble.  Time such a frame covers and no other
 * event does is that frame's own code (frame_self), not untraced: only
 * time no event of any depth covers (step markers aside) is untraced.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dec.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

/* qsort, which may not be passed the null pointer of an empty array. */
static void
sortv(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#define EVN	5		/* evidence events kept per label */
#define CHN	6		/* chain names kept: the outermost and the 5 deepest */
#define MAXFAM	15		/* named host cause families; one more: "other" */
#define NOFAM	255
#define PPM	1000000
#define NOID	UINT32_MAX

enum { L_SYNC, L_COMM, L_UNTRACED, L_LAUNCH, L_SERIAL, L_INSUFF, NLABEL };
static const char *lname[NLABEL] = {
	"possible_sync_or_h2d", "possible_comm_wait",
	"possible_untraced_host_blocking", "possible_host_launch_lag",
	"possible_python_serialization_or_lock", "insufficient_evidence",
};

enum { S_PRELAUNCH, S_INTERNAL, S_TAIL, S_GLOBAL, NSCOPE };
static const char *scopename[NSCOPE] = { "prelaunch", "step_internal", "tail", "global" };

/*
 * Interned strings: host event names and frames as raw JSON text, with
 * the name's class (1 sync marker, 2 comm marker, 4 step marker, 8
 * dispatch op).  Held for the whole run: bounded by
 * the distinct names, not by the events.
 */
struct istr {
	size_t		 off;
	uint32_t	 len;
	int		 cls;
	unsigned char	 nfam, cfam;	/* family as a name, as a category */
};

static struct {
	struct istr	*v;
	uint32_t	 n, cap;
	uint32_t	*slot;		/* open addressing: id + 1, 0 empty */
	size_t		 nslot;
	struct buf	 text;
} I;

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
struct fbest {
	uint64_t	 ser;
	int64_t		 treeov, ov;
	int64_t		 s, e;		/* the deepest event's span */
	struct chain	 ch;
	uint32_t	 frame;
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
	int64_t		 pid, tid, s, e;
	uint64_t	 ser, pser;	/* its serial number, its parent's (0: none) */
	int		 cls, state, depth, tally;
	int		 serial;	/* inside a serialisation point */
	int		 ctx;		/* a frame of the step's context */
	unsigned char	 fam;
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
	unsigned char	 fam;
	struct chain	 ch;		/* python frames left out */
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

static struct {
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
} P;

/* Host cause families in priority order; index nfam is "other". */
static int nfam;
static const char *famname[MAXFAM + 1];
static const char *const *famnames[MAXFAM], *const *famcats[MAXFAM];

static int64_t syncppm, commppm, untrppm, launchppm, serialppm, shareppm;
static int64_t serialmin;
/*
 * An op_compile event shorter than this is a lookup in the compiled-op
 * cache, not a compile: it takes its parent's family (the dispatch that
 * called it).  famcompile: op_compile's index, -1 when the rules have none.
 */
static int64_t compilemin;
static int famcompile = -1;
static int famh2d = -1;		/* h2d_copy's index, -1 when the rules have none */
static const char *const *stepmarks, *const *syncmarks, *const *commmarks;
static const char *const *dispops;
static unsigned char famsync[MAXFAM + 1];	/* attribution.serial_families */
static int famlaunch = -1;		/* the family whose ops are named */
static struct buf ob, tmp;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-kn] [-H hostfile] [-m maxline] [-r rules] [file ...]\n",
	    progname);
	exit(EX_SYS);
}

static int
globs(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (fnmatch(*l, s, 0) == 0)
			return 1;
	return 0;
}

static uint64_t
hash(const char *s, size_t n)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ULL;
	return h;
}

/* The id of raw JSON string text s[0..n), added when new. */
static uint32_t
intern(const char *s, size_t n)
{
	size_t i;

	if (2 * ((size_t)I.n + 1) > I.nslot) {
		size_t ns = I.nslot ? 2 * I.nslot : 1024;

		free(I.slot);
		I.slot = xcalloc(ns, sizeof *I.slot);
		I.nslot = ns;
		for (uint32_t id = 0; id < I.n; id++) {
			i = hash(I.text.p + I.v[id].off, I.v[id].len) & (ns - 1);
			while (I.slot[i])
				i = (i + 1) & (ns - 1);
			I.slot[i] = id + 1;
		}
	}
	for (i = hash(s, n) & (I.nslot - 1); I.slot[i]; i = (i + 1) & (I.nslot - 1)) {
		const struct istr *e = &I.v[I.slot[i] - 1];

		if (e->len == n && memcmp(I.text.p + e->off, s, n) == 0)
			return I.slot[i] - 1;
	}
	if (I.n == I.cap) {
		I.cap = I.cap ? 2 * I.cap : 1024;
		I.v = xreallocarray(I.v, I.cap, sizeof *I.v);
	}
	I.v[I.n].off = I.text.len;
	I.v[I.n].len = (uint32_t)n;
	buf_add(&I.text, s, n);
	{
		struct rfield f = { NULL, s, 0, n };

		I.v[I.n].cls = 0;
		I.v[I.n].nfam = I.v[I.n].cfam = NOFAM;
		if (rf_str(&f, &tmp) == 0) {
			I.v[I.n].cls = (globs(syncmarks, tmp.p) ? 1 : 0) |
			    (globs(commmarks, tmp.p) ? 2 : 0) |
			    (globs(stepmarks, tmp.p) ? 4 : 0) |
			    (globs(dispops, tmp.p) ? 8 : 0);
			for (int k = nfam - 1; k >= 0; k--) {
				if (globs(famnames[k], tmp.p))
					I.v[I.n].nfam = (unsigned char)k;
				if (globs(famcats[k], tmp.p))
					I.v[I.n].cfam = (unsigned char)k;
			}
		}
	}
	I.slot[i] = I.n + 1;
	return I.n++;
}

static void
putistr(uint32_t id)
{
	if (id == NOID)
		buf_adds(&ob, "null");
	else
		buf_add(&ob, I.text.p + I.v[id].off, I.v[id].len);
}

/* num / den >= ppm / 10^6, exactly. */
static int
atleast(int64_t num, int64_t den, int64_t ppm)
{
	return (__int128)num * PPM >= (__int128)ppm * den;
}

static void
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

static int64_t
run_len(const struct run *r)
{
	return r->tot + (r->have ? r->ce - r->cs : 0);
}

/* Keep the EVN largest overlaps, earlier events first among equals. */
static void
top_add(struct top *t, uint32_t name, int64_t tid, int64_t ov)
{
	int i = t->n;

	if (t->n == EVN) {
		if (ov <= t->v[EVN - 1].ov)
			return;
		i = EVN - 1;
	} else
		t->n++;
	for (; i > 0 && t->v[i - 1].ov < ov; i--)
		t->v[i] = t->v[i - 1];
	t->v[i].name = name;
	t->v[i].tid = tid;
	t->v[i].ov = ov;
}

static void
reset(void)
{
	for (size_t i = 0; i < P.nw; i++) {
		struct wst *st = P.w[i].st;

		if (st) {
			free(st->th);
			free(st->tsync);
			free(st->tcomm);
			for (int f = 0; f <= MAXFAM; f++)
				free(st->fb[f]);
			free(st);
		}
	}
	P.nw = P.nst = P.nopen = P.nact = 0;
	for (size_t i = 0; i < P.nct; i++) {
		free(P.ct[i].v);
		P.ct[i].v = NULL;
		P.ct[i].n = P.ct[i].cap = 0;
	}
	P.nct = P.lastct = 0;
	P.nsw = P.nmk = P.nsr = P.ncx = P.ndt = 0;
	if (P.capops)
		memset(P.opns, 0, P.capops * sizeof *P.opns);
	P.nhost = P.nleaf = 0;
	P.ncomp = P.compns = P.complong = P.ncompiles = P.ndequeue = 0;
	P.ncp = 0;
	P.cpsorted = 0;
	P.qhead = P.qtail = 0;
	for (size_t i = 0; i < P.nth; i++)
		free(P.th[i].open);
	P.nth = P.lastth = 0;
	P.sorted = 0;
	P.last.name = NOID;
	P.arena.len = 0;
}

/* The step (device, step_id) by raw values, added when new. */
static uint32_t
stepof(const struct rfield *dev, const struct rfield *sid, const struct rfield *gid,
    int real)
{
	const char *dv = dev ? dev->v : "null", *gv = gid ? gid->v : "null";
	size_t dn = dev ? dev->vlen : 4, gn = gid ? gid->vlen : 4;
	struct step *s;

	for (size_t i = P.nst; i-- > 0;) {
		s = &P.st[i];
		if (s->devn == dn && s->sidn == sid->vlen &&
		    memcmp(P.arena.p + s->dev, dv, dn) == 0 &&
		    memcmp(P.arena.p + s->sid, sid->v, sid->vlen) == 0) {
			s->real |= real;
			return (uint32_t)i;
		}
	}
	if (P.nst == P.capst) {
		P.capst = P.capst ? 2 * P.capst : 64;
		P.st = xreallocarray(P.st, P.capst, sizeof *P.st);
	}
	s = &P.st[P.nst];
	memset(s, 0, sizeof *s);
	s->real = real;
	s->dev = P.arena.len;
	buf_add(&P.arena, dv, dn);
	s->devn = (uint32_t)dn;
	s->sid = P.arena.len;
	buf_add(&P.arena, sid->v, sid->vlen);
	s->sidn = (uint32_t)sid->vlen;
	s->gid = P.arena.len;
	buf_add(&P.arena, gv, gn);
	s->gidn = (uint32_t)gn;
	return (uint32_t)P.nst++;
}

static void
spanadd(struct span **v, size_t *n, size_t *cap, int64_t s, int64_t e, int64_t tid,
    uint32_t step)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 64;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[*n].s = s;
	(*v)[*n].e = e;
	(*v)[*n].tid = tid;
	(*v)[*n].step = step;
	(*n)++;
}

static int
spancmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* The first span starting at or after s. */
static size_t
spanfrom(const struct span *v, size_t n, int64_t s)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (v[m].s < s)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/* Does [s, e] hold a whole span (of thread tid, when the span has one)? */
static int
holds(const struct span *v, size_t n, int64_t s, int64_t e, int64_t tid)
{
	for (size_t i = spanfrom(v, n, s); i < n && v[i].s <= e; i++)
		if (v[i].e <= e && (v[i].tid < 0 || v[i].tid == tid))
			return 1;
	return 0;
}

static int
steprec(struct rin *r)
{
	const struct rfield *sid;
	int64_t s, e;
	uint32_t st;

	if (rin_scan(r) != 0)
		return -1;
	if ((sid = rin_get(r, "step_id")) == NULL || sid->v[0] != '"') {
		snprintf(r->err, sizeof r->err, "step has no string \"step_id\"");
		return -1;
	}
	st = stepof(rin_get(r, "device"), sid, rin_get(r, "group_id"), 1);
	/* A step without a window (an older stream) only lacks the context test. */
	if (rin_i64(r, "start_ns", &s) == 0 && rin_i64(r, "end_ns", &e) == 0 && e >= s) {
		spanadd(&P.sw, &P.nsw, &P.capsw, s, e, -1, st);
		P.st[st].s0 = s;
	}
	return 0;
}

/* A step marker: the events around it are the step's context. */
static int
markrec(struct rin *r)
{
	int64_t s, e, tid;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) == 0 && rin_i64(r, "end_ns", &e) == 0 && e >= s) {
		if (rin_i64(r, "tid", &tid) != 0)
			tid = 0;
		spanadd(&P.mk, &P.nmk, &P.capmk, s, e, tid, NOID);
	}
	return 0;
}

/* A "device_task" record (asc-ingest): kept for the windows it lies in. */
static int
dtaskrec(struct rin *r)
{
	const struct rfield *nm, *tt;
	struct dtask *d;
	int64_t s, e, st;

	if (rin_scan(r) != 0)
		return -1;
	if ((nm = rin_get(r, "name")) == NULL || nm->v[0] != '"' ||
	    rin_i64(r, "start_ns", &s) != 0 || rin_i64(r, "end_ns", &e) != 0 || e < s) {
		snprintf(r->err, sizeof r->err, "device_task has no string \"name\" or no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	if (P.ndt == P.capdt) {
		P.capdt = P.capdt ? 2 * P.capdt : 64;
		P.dt = xreallocarray(P.dt, P.capdt, sizeof *P.dt);
		P.dtmax = xreallocarray(P.dtmax, P.capdt, sizeof *P.dtmax);
	}
	d = &P.dt[P.ndt++];
	d->s = s;
	d->e = e;
	d->stream = rin_i64(r, "stream", &st) == 0 ? st : -1;
	d->name = intern(nm->v, nm->vlen);
	tt = rin_get(r, "task_type");
	d->tt = tt && tt->v[0] == '"' ? intern(tt->v, tt->vlen) : NOID;
	return 0;
}

static int
dtcmp(const void *a, const void *b)
{
	const struct dtask *x = a, *y = b;

	if (x->s != y->s)
		return x->s < y->s ? -1 : 1;
	return (x->e > y->e) - (x->e < y->e);
}

/* Sort the device tasks and make their running latest end, once. */
static void
dtprep(void)
{
	sortv(P.dt, P.ndt, sizeof *P.dt, dtcmp);
	for (size_t i = 0; i < P.ndt; i++)
		P.dtmax[i] = i && P.dtmax[i - 1] > P.dt[i].e ? P.dtmax[i - 1] : P.dt[i].e;
}

/*
 * The device tasks in window w: their union ("device_task_ns") and the
 * five that overlap it most, longest first.  Only tasks starting before
 * the window's end whose run of latest ends still reaches its start are
 * looked at.
 */
static void
dtaskout(const struct win *w)
{
	size_t lo = 0, hi = P.ndt, top[EVN];
	int64_t ov[EVN], tot = 0, cs = 0, ce = 0;
	int n = 0, have = 0;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.dt[m].s < w->e)
			lo = m + 1;
		else
			hi = m;
	}
	/* [0, lo) start before the window's end; walk back while one can reach it */
	size_t first = lo;
	while (first > 0 && P.dtmax[first - 1] > w->s)
		first--;
	for (size_t i = first; i < lo; i++) {
		const struct dtask *d = &P.dt[i];
		int64_t a = d->s > w->s ? d->s : w->s, b = d->e < w->e ? d->e : w->e;
		int j;

		if (b <= a)
			continue;
		/* union: starts come in order */
		if (!have || a > ce) {
			tot += have ? ce - cs : 0;
			cs = a;
			ce = b;
			have = 1;
		} else if (b > ce)
			ce = b;
		if (n < EVN)
			n++;
		else if (b - a <= ov[EVN - 1])
			continue;
		for (j = n - 1; j > 0 && ov[j - 1] < b - a; j--) {
			ov[j] = ov[j - 1];
			top[j] = top[j - 1];
		}
		ov[j] = b - a;
		top[j] = i;
	}
	tot += have ? ce - cs : 0;
	out_i64(&ob, "device_task_ns", tot);
	out_key(&ob, "device_tasks");
	buf_addc(&ob, '[');
	for (int i = 0; i < n; i++) {
		const struct dtask *d = &P.dt[top[i]];

		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(d->name);
		out_key(&ob, "task_type");
		putistr(d->tt);
		if (d->stream >= 0)
			out_i64(&ob, "stream", d->stream);
		else
			out_null(&ob, "stream");
		out_i64(&ob, "start_ns", d->s);
		out_i64(&ob, "offset_ns", d->s - P.st[w->step].s0);
		out_i64(&ob, "dur_ns", d->e - d->s);
		out_i64(&ob, "overlap_ns", ov[i]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* Does the raw tags array hold the quoted tag? */
static int
hastag(const struct rfield *f, const char *q)
{
	size_t n = strlen(q);

	for (size_t i = 0; i + n <= f->vlen; i++)
		if (memcmp(f->v + i, q, n) == 0)
			return 1;
	return 0;
}

static int
bubblerec(struct rin *r)
{
	const struct rfield *sid, *sc, *tags, *bid;
	struct win *w;
	int64_t s, e;
	int sig, scope;

	if (P.sect.sec == SR_HOST) {
		snprintf(r->err, sizeof r->err, "bubble after the profile's \"host\" records");
		return -1;
	}
	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) != 0 || rin_i64(r, "end_ns", &e) != 0 || e < s) {
		snprintf(r->err, sizeof r->err, "bubble has no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	sid = rin_get(r, "step_id");
	bid = rin_get(r, "bubble_id");
	if (sid == NULL || sid->v[0] != '"' || bid == NULL || bid->v[0] != '"') {
		snprintf(r->err, sizeof r->err, "bubble has no string \"step_id\" and \"bubble_id\"");
		return -1;
	}
	sc = rin_get(r, "scope");
	if (sc == NULL || rf_str(sc, &tmp) != 0)
		tmp.len = 0;
	for (scope = 0; scope < NSCOPE; scope++)
		if (tmp.len && strcmp(tmp.p, scopename[scope]) == 0)
			break;
	if (scope == NSCOPE) {
		snprintf(r->err, sizeof r->err, "bubble \"scope\" is not prelaunch, "
		    "step_internal, tail or global");
		return -1;
	}
	if (rf_bool(rin_get(r, "significant"), &sig) != 0)
		sig = e - s >= rules_ns("bubbles.min_bubble_us", 1e3);
	if (P.nw == P.capw) {
		P.capw = P.capw ? 2 * P.capw : 64;
		P.w = xreallocarray(P.w, P.capw, sizeof *P.w);
	}
	w = &P.w[P.nw];
	memset(w, 0, sizeof *w);
	w->s = s;
	w->e = e;
	w->sig = (unsigned char)sig;
	w->scope = (unsigned char)scope;
	tags = rin_get(r, "tags");
	w->partial = tags && hastag(tags, "\"PARTIAL_CAPTURE_BOUNDARY\"");
	w->step = stepof(rin_get(r, "device"), sid, rin_get(r, "group_id"),
	    scope != S_GLOBAL);
	w->bid = P.arena.len;
	buf_add(&P.arena, bid->v, bid->vlen);
	w->bidn = (uint32_t)bid->vlen;
	w->before.name = NOID;
	P.nw++;
	return 0;
}

static int
bystart(const void *a, const void *b)
{
	size_t i = *(const size_t *)a, j = *(const size_t *)b;

	if (P.w[i].s != P.w[j].s)
		return P.w[i].s < P.w[j].s ? -1 : 1;
	return i < j ? -1 : i > j;
}

static void
sortwins(void)
{
	if (P.sorted)
		return;
	P.ord = xreallocarray(P.ord, P.nw + 1, sizeof *P.ord);
	for (size_t i = 0; i < P.nw; i++)
		P.ord[i] = i;
	sortv(P.ord, P.nw, sizeof *P.ord, bystart);
	P.sorted = 1;
}

/*
 * Windows starting at or before t (all: every window) become active.
 * Every event seen so far started before them: the latest-ending one is
 * the op before a window unless it overlaps it.
 */
static void
openupto(int64_t t, int all)
{
	while (P.nopen < P.nw && (all || P.w[P.ord[P.nopen]].s <= t)) {
		struct win *w = &P.w[P.ord[P.nopen++]];

		if (P.last.name != NOID && P.last.e <= w->s)
			w->before = P.last;
		if (P.nact == P.capact) {
			P.capact = P.capact ? 2 * P.capact : 16;
			P.act = xreallocarray(P.act, P.capact, sizeof *P.act);
		}
		P.act[P.nact++] = (size_t)(w - P.w);
	}
}

/* The family's chain in a window: see struct fbest. */
static void
fbestadd(struct wst *st, const struct qev *h, int64_t ov)
{
	struct fbest *b = st->fb[h->fam];

	if (b == NULL) {
		b = st->fb[h->fam] = xcalloc(1, sizeof *b);
		b->treeov = -1;
	}
	if (h->pser != 0 && h->pser == b->ser) {
		if (2 * ov < b->treeov)
			return;
	} else if (ov <= b->treeov)
		return;
	else
		b->treeov = ov;
	b->ser = h->ser;
	b->ov = ov;
	b->s = h->s;
	b->e = h->e;
	b->ch = h->ch;
	b->frame = h->cframe;
}

/* Before h's [a, b) joins the window's coverage: is the gap it ends the longest? */
static void
gapadd(const struct win *w, struct wst *st, const struct qev *h, int64_t a, int64_t b)
{
	const struct run *u = &st->fam[nfam];
	int64_t from = u->have ? u->ce : w->s;

	if (a > from && a - from > st->gap.e - st->gap.s) {
		st->gap.s = from;
		st->gap.e = a;
		st->gap.before = u->have ? st->lastname : NOID;
		st->gap.after = h->name;
	}
	if (!u->have || b > st->lastend) {
		st->lastend = b;
		st->lastname = h->name;
	}
}

/*
 * Event h covers [a, b) of window w.  Every event counts for the cause
 * families (by its chain's family) and sync and comm markers for theirs
 * at any depth; coverage, threads, evidence and the top op count leaves.
 */
static struct wst *
wstof(struct win *w)
{
	struct wst *st = w->st;

	if (st == NULL) {
		st = w->st = xcalloc(1, sizeof *st);
		st->best.name = NOID;
		st->gap.before = st->gap.after = NOID;
		st->cxname = st->cxframe = NOID;
	}
	return st;
}

/*
 * A frame of the step's context covers [a, b) of w: no cause, but the
 * time it covers alone is its own code.  Events come in start order, so
 * the last one named is the innermost of nested frames.
 */
static void
ctxtouch(struct win *w, const struct qev *h, int64_t a, int64_t b)
{
	struct wst *st;

	if (b <= a)
		return;
	st = wstof(w);
	run_add(&st->all, a, b);
	st->cxname = h->name;
	st->cxframe = h->frame;
}

static void
touch(struct win *w, const struct qev *h, int64_t a, int64_t b, int leaf)
{
	struct wst *st;
	struct thr *t = NULL;

	if (b <= a)
		return;
	st = wstof(w);
	run_add(&st->all, a, b);
	if (h->cls & 1) {
		if (st->tsync == NULL)
			st->tsync = xcalloc(1, sizeof *st->tsync);
		run_add(&st->sync, a, b);
		top_add(st->tsync, h->name, h->tid, b - a);
	}
	if (h->cls & 2) {
		if (st->tcomm == NULL)
			st->tcomm = xcalloc(1, sizeof *st->tcomm);
		run_add(&st->comm, a, b);
		top_add(st->tcomm, h->name, h->tid, b - a);
	}
	gapadd(w, st, h, a, b);
	/* A serialisation point waits on the device: it causes no bubble. */
	if (h->serial)
		run_add(&st->ser, a, b);
	for (int f = h->serial ? 0 : h->fam; f <= nfam; f++)
		run_add(&st->fam[f], a, b);
	if (!h->serial)
		fbestadd(st, h, b - a);
	if (h->tally && w->sig && w->scope != S_GLOBAL)
		P.opns[h->name] += b - a;
	if (!leaf)
		return;
	run_add(&st->any, a, b);
	top_add(&st->tany, h->name, h->tid, b - a);
	for (int i = 0; i < st->nth; i++)
		if (st->th[i].tid == h->tid && st->th[i].pid == h->pid) {
			t = &st->th[i];
			break;
		}
	if (t == NULL) {
		if (st->nth == st->capth) {
			st->capth = st->capth ? 2 * st->capth : 2;
			st->th = xreallocarray(st->th, (size_t)st->capth, sizeof *st->th);
		}
		t = &st->th[st->nth++];
		memset(t, 0, sizeof *t);
		t->pid = h->pid;
		t->tid = h->tid;
	}
	run_add(&t->u, a, b);
	if (st->best.name == NOID || b - a > st->best.ov) {
		st->best.name = h->name;
		st->best.frame = h->frame;
		st->best.tid = h->tid;
		st->best.s = h->s;
		st->best.e = h->e;
		st->best.ov = b - a;
	}
}

/*
 * Host records as asc-ingest writes them, read without the general
 * scanner: the keys in their fixed order, plain strings (no escapes) and
 * plain integers.  Anything else returns -1 and takes the general path,
 * which gives the same result for any valid record.  Six million host
 * events make this the hottest loop of the filter.
 */
struct hraw {
	const char		*name, *cat;	/* raw JSON strings; cat NULL: none */
	size_t			 namelen, catlen;
	const struct rfield	*frame;		/* NULL: none */
	struct rfield		 fr;		/* the fast path's frame */
	int64_t			 pid, tid, s, e;
	int64_t			 kns;		/* linked device task's start */
	int			 hask;
};

static const char *
cstr(const char *p, const char *e, const char *key, size_t kn, const char **v, size_t *vn)
{
	const char *q;

	if ((size_t)(e - p) < kn + 2 || memcmp(p, key, kn) != 0 || p[kn] != '"')
		return NULL;
	p += kn;
	/* One pass to the closing quote; escapes and controls are not plain. */
	for (q = p + 1; q < e && *q != '"'; q++)
		if (*q == '\\' || (unsigned char)*q < 0x20)
			return NULL;
	if (q >= e)
		return NULL;
	*v = p;
	*vn = (size_t)(q + 1 - p);
	return q + 1;
}

static const char *
cint(const char *p, const char *e, const char *key, size_t kn, int64_t *v)
{
	const char *d;
	int neg;
	int64_t x = 0;

	if ((size_t)(e - p) < kn + 1 || memcmp(p, key, kn) != 0)
		return NULL;
	p += kn;
	neg = *p == '-';
	p += neg;
	for (d = p; p < e && *p >= '0' && *p <= '9'; p++)
		x = x * 10 + (*p - '0');
	if (p == d || p - d > 18 || (*d == '0' && p - d > 1))
		return NULL;
	*v = neg ? -x : x;
	return p;
}

#define CSTR(k, v, n)	if ((p = cstr(p, e, k, sizeof k - 1, v, n)) == NULL) return -1
#define CINT(k, v)	if ((p = cint(p, e, k, sizeof k - 1, v)) == NULL) return -1

static int
hostfast(const struct rin *r, struct hraw *h)
{
	const char *p = r->line, *e = r->line + r->len, *v;
	size_t n;
	int64_t x;

	if (r->len < 16 || memcmp(p, "{\"type\":\"host\"", 14) != 0 || e[-1] != '}')
		return -1;
	p += 14;
	e--;
	CSTR(",\"profile\":", &v, &n);
	CSTR(",\"src\":", &v, &n);
	CSTR(",\"name\":", &h->name, &h->namelen);
	h->cat = NULL;
	if ((size_t)(e - p) >= 11 && memcmp(p, ",\"cat\":null", 11) == 0)
		p += 11;	/* CANN API events have no category */
	else
		CSTR(",\"cat\":", &h->cat, &h->catlen);
	CSTR(",\"process\":", &v, &n);
	CINT(",\"pid\":", &h->pid);
	CINT(",\"tid\":", &h->tid);
	CINT(",\"start_ns\":", &h->s);
	CINT(",\"dur_ns\":", &x);
	CINT(",\"end_ns\":", &h->e);
	CINT(",\"depth\":", &x);
	/* ingest's leaf value is not used: leafness is decided here */
	if ((size_t)(e - p) >= 12 && memcmp(p, ",\"leaf\":true", 12) == 0)
		p += 12;
	else if ((size_t)(e - p) >= 13 && memcmp(p, ",\"leaf\":false", 13) == 0)
		p += 13;
	else
		return -1;
	h->frame = NULL;
	if (p < e) {
		const char *q = cstr(p, e, ",\"frame\":", 9, &h->fr.v, &h->fr.vlen);

		if (q != NULL) {
			h->frame = &h->fr;
			p = q;
		}
	}
	h->hask = 0;
	if (p < e) {
		CINT(",\"kernel_ns\":", &h->kns);
		h->hask = 1;
	}
	return p == e ? 0 : -1;
}

/* Any valid spelling of a host record, through the scanner. */
static int
hostgeneral(struct rin *r, struct hraw *h)
{
	const struct rfield *name, *cat;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &h->s) != 0) {
		snprintf(r->err, sizeof r->err, "host has no integer \"start_ns\"");
		return -1;
	}
	if (rin_i64(r, "end_ns", &h->e) != 0) {
		int64_t d;

		if (rin_i64(r, "dur_ns", &d) != 0 || d < 0) {
			snprintf(r->err, sizeof r->err, "host has no integer \"end_ns\" or \"dur_ns\"");
			return -1;
		}
		h->e = h->s + d;
	}
	if (h->e < h->s) {
		snprintf(r->err, sizeof r->err, "host \"end_ns\" %lld before \"start_ns\" %lld",
		    (long long)h->e, (long long)h->s);
		return -1;
	}
	if (P.sect.sec == SR_HOST && h->s < P.lasthost) {
		snprintf(r->err, sizeof r->err, "host records out of order (start_ns %lld "
		    "after %lld)", (long long)h->s, (long long)P.lasthost);
		return -1;
	}
	name = rin_get(r, "name");
	if (name == NULL || name->v[0] != '"') {
		snprintf(r->err, sizeof r->err, "host has no string \"name\"");
		return -1;
	}
	h->name = name->v;
	h->namelen = name->vlen;
	cat = rin_get(r, "cat");
	h->cat = cat && cat->v[0] == '"' ? cat->v : NULL;
	h->catlen = cat ? cat->vlen : 0;
	if (rin_i64(r, "tid", &h->tid) != 0)
		h->tid = 0;
	if (rin_i64(r, "pid", &h->pid) != 0)
		h->pid = 0;
	h->frame = rin_get(r, "frame");
	h->hask = rin_i64(r, "kernel_ns", &h->kns) == 0;
	return 0;
}

/* A copy call by its name: "memcpy" in any case (aclrtMemcpyAsync,
 * acl_memcpy_host_to_device). */
static int
hasmemcpy(const char *s, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++)
		if (strncasecmp(s + i, "memcpy", 6) == 0)
			return 1;
	return 0;
}

/* The thread (pid, tid), added when new. */
static struct othr *
othr(int64_t pid, int64_t tid)
{
	struct othr *t;

	if (P.lastth < P.nth && P.th[P.lastth].tid == tid && P.th[P.lastth].pid == pid)
		return &P.th[P.lastth];
	for (size_t i = 0; i < P.nth; i++)
		if (P.th[i].tid == tid && P.th[i].pid == pid)
			return &P.th[P.lastth = i];
	if (P.nth == P.capth) {
		P.capth = P.capth ? 2 * P.capth : 16;
		P.th = xreallocarray(P.th, P.capth, sizeof *P.th);
	}
	t = &P.th[P.lastth = P.nth++];
	memset(t, 0, sizeof *t);
	t->pid = pid;
	t->tid = tid;
	return t;
}

/* The OS thread tid's open events, added when new. */
static struct cthr *
cthr(int64_t tid)
{
	struct cthr *t;

	if (P.lastct < P.nct && P.ct[P.lastct].tid == tid)
		return &P.ct[P.lastct];
	for (size_t i = 0; i < P.nct; i++)
		if (P.ct[i].tid == tid)
			return &P.ct[P.lastct = i];
	if (P.nct == P.capct) {
		P.capct = P.capct ? 2 * P.capct : 16;
		P.ct = xreallocarray(P.ct, P.capct, sizeof *P.ct);
		memset(P.ct + P.nct, 0, (P.capct - P.nct) * sizeof *P.ct);
	}
	t = &P.ct[P.lastct = P.nct++];
	t->tid = tid;
	t->n = 0;
	return t;
}

/* Append a name; a full chain keeps its outermost name and the deepest. */
static void
chainadd(struct chain *c, uint32_t id)
{
	if (c->n == CHN) {
		memmove(c->id + 1, c->id + 2, (CHN - 2) * sizeof *c->id);
		c->n--;
	}
	c->id[c->n++] = id;
}

static int64_t idleov(int64_t, int64_t);

/* A long sync's outermost event starts a serialisation candidate. */
static int32_t
serialnew(const struct qev *h)
{
	struct serial *c;

	if (P.nsr == P.capsr) {
		P.capsr = P.capsr ? 2 * P.capsr : 16;
		P.sr = xreallocarray(P.sr, P.capsr, sizeof *P.sr);
	}
	c = &P.sr[P.nsr];
	c->s = h->s;
	c->e = h->e;
	c->bs = h->s;
	c->blocked = h->e - h->s;
	c->frame = h->cframe;
	c->fam = h->fam;
	c->ch = h->ch;
	c->step = NOID;
	c->point = 2 * idleov(h->s, h->e) <= h->e - h->s;
	return (int32_t)P.nsr++;
}

/*
 * Place h in its OS thread's call tree.  Its parent is the latest-
 * starting open event that wholly contains it: events that end by its
 * start, or before its end, contain neither it nor anything after it
 * that a later-starting event would not contain too.
 */
static void
chainof(struct qev *h, int python)
{
	struct cthr *t = cthr(h->tid);
	struct cent *par, *c;
	int32_t cand;
	int isop = 0;

	while (t->n > 0 && (t->v[t->n - 1].e <= h->s || t->v[t->n - 1].e < h->e))
		t->n--;
	par = t->n > 0 ? &t->v[t->n - 1] : NULL;
	h->ser = ++P.serialno;
	h->pser = par ? par->ser : 0;
	h->depth = par ? par->depth + 1 : 0;
	if (par && par->fam < h->fam)
		h->fam = par->fam;
	if (par)
		h->ch = par->ch;
	else
		h->ch.n = 0;
	chainadd(&h->ch, h->name);
	h->cframe = h->frame != NOID ? h->frame : par ? par->frame : NOID;
	h->op = par ? par->op : NOID;
	if (h->op == NOID && (I.v[h->name].cls & 8)) {
		h->op = h->name;
		isop = 1;
	}
	/* Dispatch time is named by the outermost op (children included). */
	h->tally = h->fam == famlaunch && isop;
	cand = par ? par->cand : -1;
	if (famsync[h->fam] && !(par && famsync[par->fam]) && h->e - h->s >= serialmin)
		cand = serialnew(h);
	else if (cand >= 0 && (h->cls & 1) && 2 * (h->e - h->s) >= P.sr[cand].e - P.sr[cand].s) {
		/* a deeper synchronising call: how long the host was blocked */
		P.sr[cand].bs = h->s;
		P.sr[cand].blocked = h->e - h->s;
		P.sr[cand].ch = h->ch;
	}
	h->serial = cand >= 0 && P.sr[cand].point;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 16;
		t->v = xreallocarray(t->v, t->cap, sizeof *t->v);
		par = t->n > 0 ? &t->v[t->n - 1] : NULL;
	}
	c = &t->v[t->n++];
	c->s = h->s;
	c->e = h->e;
	c->ser = h->ser;
	c->frame = h->cframe;
	c->op = h->op;
	c->depth = h->depth;
	c->cand = cand;
	c->serial = h->serial;
	c->fam = h->fam;
	if (!python)
		c->ch = h->ch;
	else if (par)
		c->ch = par->ch;
	else
		c->ch.n = 0;
}

static struct qev *
qat(uint64_t i)
{
	return &P.q[i & (P.qcap - 1)];
}

/* One event, its leafness known, against the windows. */
static void
process(const struct qev *h)
{
	int leaf = h->state == Q_LEAF;
	size_t k = 0;

	if (leaf)
		P.nleaf++;
	openupto(h->s, 0);
	/* Active windows: drop those that ended, clip to the others. */
	for (size_t i = 0; i < P.nact; i++) {
		struct win *w = &P.w[P.act[i]];

		if (w->e <= h->s)
			continue;
		P.act[k++] = P.act[i];
		if (h->ctx)
			ctxtouch(w, h, h->s, h->e < w->e ? h->e : w->e);
		else
			touch(w, h, h->s, h->e < w->e ? h->e : w->e, leaf);
	}
	P.nact = k;
	/* Windows not yet open that the event reaches. */
	for (size_t i = P.nopen; i < P.nw && P.w[P.ord[i]].s < h->e; i++) {
		struct win *w = &P.w[P.ord[i]];

		if (h->ctx)
			ctxtouch(w, h, w->s, h->e < w->e ? h->e : w->e);
		else
			touch(w, h, w->s, h->e < w->e ? h->e : w->e, leaf);
	}
	if (h->ctx)
		return;
	if (leaf && (P.last.name == NOID || h->e >= P.last.e)) {
		P.last.name = h->name;
		P.last.frame = h->frame;
		P.last.tid = h->tid;
		P.last.s = h->s;
		P.last.e = h->e;
		P.last.ov = 0;
	}
}

/*
 * Process the queue's head while its leafness is known.  Nothing that
 * starts at or after now can lie inside an event that ends by now.
 */
static void
drain(int64_t now)
{
	while (P.qhead < P.qtail) {
		struct qev *h = qat(P.qhead);

		if (h->state == Q_PENDING) {
			if (h->e > now)
				return;
			h->state = Q_LEAF;
		}
		process(h);
		P.qhead++;
	}
}

/* Host records read, and read by hostfast: $ASC_ATTRIB_STATS prints them
 * so that a test sees the fast path taken. */
static unsigned long nhostrec, nfast;

static int
hostrec(struct rin *r)
{
	struct qev h;
	struct hraw hr;
	struct othr *t;
	size_t k = 0;

	/* Errors and unusual spellings are the general reader's to judge. */
	nhostrec++;
	if (hostfast(r, &hr) == 0 && hr.e >= hr.s && !(P.sect.sec == SR_HOST && hr.s < P.lasthost))
		nfast++;
	else if (hostgeneral(r, &hr) != 0)
		return -1;
	if (sr_sect_host(&P.sect)) {
		sortwins();
			sortv(P.sw, P.nsw, sizeof *P.sw, spancmp);
			sortv(P.mk, P.nmk, sizeof *P.mk, spancmp);
		P.firsthost = hr.s;
	}
	P.lasthost = hr.s;
	P.nhost++;
	h.name = intern(hr.name, hr.namelen);
	h.cls = I.v[h.name].cls;
	h.fam = I.v[h.name].nfam;
	if (h.fam == famcompile && famcompile >= 0) {
		P.ncomp++;
		P.compns += hr.e - hr.s;
		if (hr.e - hr.s > P.complong)
			P.complong = hr.e - hr.s;
		if (hr.e - hr.s < compilemin)
			h.fam = NOFAM;
		else
			P.ncompiles++;
	}
	if (hr.namelen > 9 && memcmp(hr.name, "\"Dequeue@", 9) == 0) {
		if ((size_t)P.ndequeue == P.capdq) {
			P.capdq = P.capdq ? 2 * P.capdq : 64;
			P.dq = xreallocarray(P.dq, P.capdq, sizeof *P.dq);
		}
		P.dq[P.ndequeue].s = hr.s;
		P.dq[P.ndequeue++].e = hr.e;
	}
	if (hr.hask && hasmemcpy(hr.name, hr.namelen)) {
		if (P.ncp == P.capcp) {
			P.capcp = P.capcp ? 2 * P.capcp : 64;
			P.cp = xreallocarray(P.cp, P.capcp, sizeof *P.cp);
		}
		P.cp[P.ncp++] = hr.kns;
	}
	if (hr.cat) {
		uint32_t c = intern(hr.cat, hr.catlen);

		if (I.v[c].cfam < h.fam)
			h.fam = I.v[c].cfam;
	}
	if (h.fam == NOFAM)
		h.fam = (unsigned char)nfam;
	h.s = hr.s;
	h.e = hr.e;
	h.tid = hr.tid;
	h.pid = hr.pid;
	h.frame = hr.frame ? intern(hr.frame->v, hr.frame->vlen) : NOID;
	h.state = h.e > h.s ? Q_PENDING : Q_LEAF;
	if (I.cap > P.capops) {
		P.opns = xreallocarray(P.opns, I.cap, sizeof *P.opns);
		memset(P.opns + P.capops, 0, (I.cap - P.capops) * sizeof *P.opns);
		P.capops = I.cap;
	}
	/* Does h lie wholly inside an open event of its thread? */
	t = othr(h.pid, h.tid);
	for (size_t i = 0; i < t->n; i++) {
		struct qev *a;

		if (t->open[i] < P.qhead || (a = qat(t->open[i]))->state != Q_PENDING)
			continue;
		if (a->e <= h.s)
			a->state = Q_LEAF;
		else if (h.e > h.s && h.e <= a->e)
			a->state = Q_CONTEXT;
		else
			t->open[k++] = t->open[i];
	}
	t->n = k;
	/*
	 * The step's context never counts for a cause: markers, and the
	 * frames around one (kept apart: their own code is not untraced).
	 */
	h.ctx = !(h.cls & 4) && (holds(P.sw, P.nsw, h.s, h.e, -1) ||
	    holds(P.mk, P.nmk, h.s, h.e, h.tid));
	if (h.ctx) {
		h.state = Q_CONTEXT;
		spanadd(&P.cx, &P.ncx, &P.capcx, h.s, h.e, h.tid, h.name);
	}
	if (!(h.cls & 4)) {
		if (!h.ctx)
			chainof(&h, hr.cat && hr.catlen == 17 && memcmp(hr.cat, "\"python_function\"", 17) == 0);
		if (P.qtail - P.qhead == P.qcap) {
			uint64_t nc = P.qcap ? 2 * P.qcap : 256;
			struct qev *nq = xreallocarray(NULL, nc, sizeof *nq);

			for (uint64_t i = P.qhead; i < P.qtail; i++)
				nq[i & (nc - 1)] = *qat(i);
			free(P.q);
			P.q = nq;
			P.qcap = nc;
		}
		*qat(P.qtail) = h;
		if (h.state == Q_PENDING && !h.ctx) {
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 8;
				t->open = xreallocarray(t->open, t->cap, sizeof *t->open);
			}
			t->open[t->n++] = P.qtail;
		}
		P.qtail++;
	}
	drain(h.s);
	return 0;
}

static void
share(const char *k, int64_t num, int64_t den)
{
	if (den > 0)
		out_ratio(&ob, k, num, den);
	else
		out_null(&ob, k);
}

static void
evlist(const struct top *t)
{
	buf_addc(&ob, '[');
	for (int i = 0; t && i < t->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(t->v[i].name);
		out_i64(&ob, "tid", t->v[i].tid);
		out_i64(&ob, "overlap_ns", t->v[i].ov);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
hopout(const struct hop *h, const char *rel)
{
	out_key(&ob, "top_host_op");
	if (h->name == NOID) {
		buf_adds(&ob, "null");
		return;
	}
	buf_adds(&ob, "{\"name\":");
	putistr(h->name);
	out_i64(&ob, "tid", h->tid);
	out_i64(&ob, "start_ns", h->s);
	out_i64(&ob, "end_ns", h->e);
	out_i64(&ob, "overlap_ns", h->ov);
	out_cstr(&ob, "relation", rel);
	out_key(&ob, "frame");
	putistr(h->frame);
	buf_addc(&ob, '}');
}

/* A window's figures: union lengths and the sum of per-thread unions. */
struct fig {
	int64_t		 len, cov, anyd, wait, sync, comm, busy;
	int64_t		 self;		/* under a loop frame alone */
	int64_t		 cause[MAXFAM + 1];
	int		 nth, covered, top;	/* top: named family with most time, -1 none */
};

static void
figures(const struct win *w, struct fig *f)
{
	const struct wst *st = w->st;

	memset(f, 0, sizeof *f);
	f->len = w->e - w->s;
	/* The recording began at or before the window: its host side was seen. */
	f->covered = P.nhost > 0 && P.firsthost <= w->s;
	f->top = -1;
	if (st == NULL)
		return;
	for (int i = 0; i <= nfam; i++) {
		f->cause[i] = run_len(&st->fam[i]) - (i ? run_len(&st->fam[i - 1]) : run_len(&st->ser));
		/* "other" names no cause: it is never the top one */
		if (i < nfam && f->cause[i] > 0 && (f->top < 0 || f->cause[i] > f->cause[f->top]))
			f->top = i;
	}
	f->cov = run_len(&st->any);
	f->anyd = run_len(&st->fam[nfam]);
	f->self = run_len(&st->all) - f->anyd;
	f->wait = run_len(&st->ser);
	f->sync = run_len(&st->sync);
	f->comm = run_len(&st->comm);
	f->nth = st->nth;
	for (int i = 0; i < st->nth; i++)
		f->busy += run_len(&st->th[i].u);
}

struct lab {
	int		 l[NLABEL], n;
	const char	*reason;
};

static void
chainout(const struct chain *c)
{
	buf_addc(&ob, '[');
	for (int i = 0; i < c->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		putistr(c->id[i]);
	}
	buf_addc(&ob, ']');
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * A copy chain's device side: its deepest event's duration (the
 * synchronising call, or at Level0 aten::copy_) and the time from that
 * event's start to the start of the latest device copy starting inside
 * it (null: none).  A long time before the transfer starts is host work
 * (staging pageable memory), not the transfer.
 */
static void
copystart(const struct fbest *b)
{
	size_t lo = 0, hi;

	out_i64(&ob, "call_ns", b->e - b->s);
	if (P.ncp == 0) {
		out_key(&ob, "copy_start_ns");
		buf_adds(&ob, "null");
		return;
	}
	if (!P.cpsorted) {
		sortv(P.cp, P.ncp, sizeof *P.cp, i64cmp);
		P.cpsorted = 1;
	}
	/* the first copy starting at or after the event's end */
	hi = P.ncp;
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.cp[m] < b->e)
			lo = m + 1;
		else
			hi = m;
	}
	if (lo == 0 || P.cp[lo - 1] < b->s) {
		out_key(&ob, "copy_start_ns");
		buf_adds(&ob, "null");
		return;
	}
	out_i64(&ob, "copy_start_ns", P.cp[lo - 1] - b->s);
}

/* Each family's chain in the window, the family with most time first. */
static void
chains(const struct wst *st, const struct fig *f, int hosts)
{
	int ord[MAXFAM + 1], n = 0;

	out_key(&ob, "host_chains");
	if (!hosts) {
		buf_adds(&ob, "null");
		return;
	}
	for (int i = 0; st && i <= nfam; i++)
		if (f->cause[i] > 0 && st->fb[i]) {
			int j = n++;

			for (; j > 0 && f->cause[ord[j - 1]] < f->cause[i]; j--)
				ord[j] = ord[j - 1];
			ord[j] = i;
		}
	buf_addc(&ob, '[');
	for (int k = 0; k < n; k++) {
		const struct fbest *b = st->fb[ord[k]];

		if (k)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"family\":");
		out_esc(&ob, famname[ord[k]], strlen(famname[ord[k]]));
		out_i64(&ob, "ns", f->cause[ord[k]]);
		out_key(&ob, "chain");
		chainout(&b->ch);
		out_key(&ob, "frame");
		putistr(b->frame);
		out_i64(&ob, "overlap_ns", b->ov);
		if (ord[k] == famh2d)
			copystart(b);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* {family: ns} in priority order; null when the profile has no host events. */
static void
causes(const char *k, const int64_t *ns, int hosts)
{
	out_key(&ob, k);
	if (!hosts) {
		buf_adds(&ob, "null");
		return;
	}
	buf_addc(&ob, '{');
	for (int i = 0; i <= nfam; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, famname[i], strlen(famname[i]));
		buf_addc(&ob, ':');
		out_int(&ob, ns[i]);
	}
	buf_addc(&ob, '}');
}

/* The spec's label rules, in order; thresholds compared exactly. */
static void
labels(const struct win *w, const struct fig *f, int hosts, struct lab *lb)
{
	lb->n = 0;
	lb->reason = NULL;
	/* A boundary window is an artefact only where the capture missed it. */
	if (!hosts || (w->partial && !f->covered)) {
		lb->l[lb->n++] = L_INSUFF;
		lb->reason = hosts ? "partial_capture_boundary" : "no_host_events";
		return;
	}
	if (f->len > 0 && atleast(f->sync, f->len, syncppm))
		lb->l[lb->n++] = L_SYNC;
	if (f->len > 0 && atleast(f->comm, f->len, commppm))
		lb->l[lb->n++] = L_COMM;
	if (f->len > 0 && !atleast(f->cov, f->len, untrppm))
		lb->l[lb->n++] = L_UNTRACED;
	if (lb->n == 0 && f->len > 0 && atleast(f->cov, f->len, launchppm))
		lb->l[lb->n++] = L_LAUNCH;
	if (lb->n == 0 && f->cov > 0 && !atleast(f->busy, f->cov, serialppm))
		lb->l[lb->n++] = L_SERIAL;
	if (lb->n == 0) {
		lb->l[lb->n++] = L_INSUFF;
		lb->reason = "no_cause_family";
	}
}

static void
attribution(const struct win *w, const struct fig *f, int hosts, const struct lab *lb)
{
	const struct step *s = &P.st[w->step];
	const struct wst *st = w->st;

	out_begin(&ob, "attribution");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_raw(&ob, "device", P.arena.p + s->dev, s->devn);
	out_raw(&ob, "step_id", P.arena.p + s->sid, s->sidn);
	out_raw(&ob, "group_id", P.arena.p + s->gid, s->gidn);
	out_raw(&ob, "bubble_id", P.arena.p + w->bid, w->bidn);
	out_cstr(&ob, "scope", scopename[w->scope]);
	out_i64(&ob, "start_ns", w->s);
	out_i64(&ob, "end_ns", w->e);
	out_i64(&ob, "dur_ns", f->len);
	out_bool(&ob, "significant", w->sig);
	out_bool(&ob, "partial_capture_boundary", w->partial);
	out_bool(&ob, "capture_covered", f->covered);
	out_bool(&ob, "host_evidence", hosts);
	if (hosts) {
		out_i64(&ob, "host_visible_ns", f->cov);
		out_ratio(&ob, "host_visible_coverage_ratio", f->cov, f->len);
		out_i64(&ob, "sync_marker_ns", f->sync);
		out_ratio(&ob, "sync_marker_overlap_ratio", f->sync, f->len);
		out_i64(&ob, "comm_marker_ns", f->comm);
		out_ratio(&ob, "comm_marker_overlap_ratio", f->comm, f->len);
		out_i64(&ob, "host_threads", f->nth);
		out_i64(&ob, "thread_busy_ns", f->busy);
		out_i64(&ob, "host_any_ns", f->anyd);
		out_i64(&ob, "frame_self_ns", f->self);
		out_key(&ob, "frame_self");
		if (f->self > 0)
			putistr(st->cxname);
		else
			buf_adds(&ob, "null");
		out_i64(&ob, "untraced_ns", f->len - f->anyd - f->self);
		out_i64(&ob, "serial_wait_ns", f->wait);
	} else {
		static const char *nul[] = { "host_visible_ns",
		    "host_visible_coverage_ratio", "sync_marker_ns",
		    "sync_marker_overlap_ratio", "comm_marker_ns",
		    "comm_marker_overlap_ratio", "host_threads", "thread_busy_ns",
		    "host_any_ns", "frame_self_ns", "frame_self", "untraced_ns",
		    "serial_wait_ns" };

		for (size_t i = 0; i < sizeof nul / sizeof *nul; i++)
			out_null(&ob, nul[i]);
	}
	if (f->cov > 0)
		out_ratio(&ob, "host_parallelism", f->busy, f->cov);
	else
		out_null(&ob, "host_parallelism");
	causes("host_causes", f->cause, hosts);
	if (f->top >= 0)
		out_cstr(&ob, "host_cause_top", famname[f->top]);
	else
		out_null(&ob, "host_cause_top");
	chains(st, f, hosts);
	out_key(&ob, "labels");
	buf_addc(&ob, '[');
	for (int i = 0; i < lb->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, lname[lb->l[i]], strlen(lname[lb->l[i]]));
	}
	buf_addc(&ob, ']');
	out_cstr(&ob, "reason", lb->reason);
	out_key(&ob, "evidence");
	buf_addc(&ob, '{');
	for (int i = 0; i < lb->n; i++) {
		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, lname[lb->l[i]], strlen(lname[lb->l[i]]));
		buf_addc(&ob, ':');
		evlist(st == NULL ? NULL : lb->l[i] == L_SYNC ? st->tsync :
		    lb->l[i] == L_COMM ? st->tcomm : &st->tany);
	}
	buf_addc(&ob, '}');
	if (st && st->best.name != NOID)
		hopout(&st->best, "overlaps");
	else
		hopout(&w->before, "before");
	dtaskout(w);
	rec_put(&ob, stdout);
}

/*
 * Time in windows by host coverage: covered by a host event of any depth
 * below the loop's frames (of it, the host blocked in a serialisation
 * point), by a loop frame alone (its own code, named by selfname), or by
 * none.  Not measurable without host events.
 */
static void
coverage(int64_t covered, int64_t self, uint32_t selfname, int64_t untraced,
    int64_t wait, int64_t sig, int hosts)
{
	static const char *nul[] = { "host_covered_ns", "host_covered_ms",
	    "host_covered_share", "frame_self_ns", "frame_self_ms",
	    "frame_self_share", "frame_self", "untraced_ns", "untraced_ms",
	    "untraced_share", "serial_wait_ns", "serial_wait_ms" };

	if (!hosts) {
		for (size_t i = 0; i < sizeof nul / sizeof *nul; i++)
			out_null(&ob, nul[i]);
		return;
	}
	out_nsms(&ob, "host_covered", covered);
	share("host_covered_share", covered, sig);
	out_nsms(&ob, "frame_self", self);
	share("frame_self_share", self, sig);
	out_key(&ob, "frame_self");
	putistr(self > 0 ? selfname : NOID);
	out_nsms(&ob, "untraced", untraced);
	share("untraced_share", untraced, sig);
	out_nsms(&ob, "serial_wait", wait);
}

/* Device-idle time in [s, e): the step windows' gaps (global ones repeat them). */
static int64_t
idleov(int64_t s, int64_t e)
{
	size_t lo = 0, hi = P.nw;
	int64_t t = 0;

	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (P.w[P.ord[m]].s < s)
			lo = m + 1;
		else
			hi = m;
	}
	/* Step windows are disjoint: only the last one starting before s reaches it. */
	while (lo > 0 && P.w[P.ord[--lo]].scope == S_GLOBAL)
		;
	for (size_t i = lo; i < P.nw && P.w[P.ord[i]].s < e; i++) {
		const struct win *w = &P.w[P.ord[i]];
		int64_t a = w->s > s ? w->s : s, b = w->e < e ? w->e : e;

		if (w->scope != S_GLOBAL && b > a)
			t += b - a;
	}
	return t;
}

/* The window's longest untraced stretch, its trailing edge included. */
static struct gap
wingap(const struct win *w)
{
	const struct wst *st = w->st;
	struct gap g = { w->s, w->e, NOID, NOID };

	if (st == NULL)
		return g;
	g = st->gap;
	if (st->fam[nfam].have && w->e - st->fam[nfam].ce > g.e - g.s) {
		g.s = st->fam[nfam].ce;
		g.e = w->e;
		g.before = st->lastname;
		g.after = NOID;
	}
	return g;
}

/*
 * The innermost loop frame holding [s, e) whole (the latest-starting),
 * NOID when none: the stretch is then untraced.  Loop frames are few
 * (a handful a step), searched once per profile.
 */
static uint32_t
inside(int64_t s, int64_t e)
{
	uint32_t id = NOID;
	int64_t best = INT64_MIN;

	for (size_t i = 0; i < P.ncx; i++)
		if (P.cx[i].s <= s && P.cx[i].e >= e && P.cx[i].s >= best) {
			best = P.cx[i].s;
			id = P.cx[i].step;
		}
	return id;
}

static void
gapout(const struct gap *g, const struct win *w)
{
	out_key(&ob, "untraced_longest");
	if (w == NULL) {
		buf_adds(&ob, "null");
		return;
	}
	buf_adds(&ob, "{\"bubble_id\":");
	buf_add(&ob, P.arena.p + w->bid, w->bidn);
	out_i64(&ob, "start_ns", g->s);
	out_i64(&ob, "end_ns", g->e);
	out_i64(&ob, "dur_ns", g->e - g->s);
	out_i64(&ob, "offset_ns", g->s - P.st[w->step].s0);
	out_key(&ob, "before");
	putistr(g->before);
	out_key(&ob, "after");
	putistr(g->after);
	out_key(&ob, "inside");
	putistr(inside(g->s, g->e));
	buf_addc(&ob, '}');
}

/* Serialisation candidates by step, the longest block first. */
static size_t *srord;
static size_t srcur;

static int
bystepblock(const void *a, const void *b)
{
	const struct serial *x = &P.sr[*(const size_t *)a], *y = &P.sr[*(const size_t *)b];

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

/*
 * A candidate is a serialisation point when the device was busy for at
 * least half of it: the host waited on work it had queued, and could
 * queue nothing more meanwhile.  A sync that lies in idle windows is a
 * bubble cause instead, counted in the windows.
 */
static void
serialprep(void)
{
	size_t k = 0;

	srord = xreallocarray(srord, P.nsr + 1, sizeof *srord);
	for (size_t i = 0; i < P.nsr; i++) {
		struct serial *c = &P.sr[i];
		size_t j = spanfrom(P.sw, P.nsw, c->s + 1);

		if (j == 0 || c->s >= P.sw[j - 1].e)
			continue;
		c->step = P.sw[j - 1].step;
		if (!c->point)
			continue;
		srord[k++] = i;
	}
	sortv(srord, k, sizeof *srord, bystepblock);
	srord[k] = SIZE_MAX;
	srcur = 0;
}

/*
 * Task-queue time in [s, e): the queue's thread dequeues one op at a
 * time, so its Dequeue@ events do not overlap and their clipped lengths
 * add up.
 */
static int64_t
dequeueov(int64_t s, int64_t e)
{
	int64_t t = 0;

	for (int64_t i = 0; i < P.ndequeue; i++) {
		int64_t a = P.dq[i].s > s ? P.dq[i].s : s;
		int64_t b = P.dq[i].e < e ? P.dq[i].e : e;

		if (b > a)
			t += b - a;
	}
	return t;
}

static void
pointout(const struct serial *c, int withstep)
{
	buf_adds(&ob, "{\"family\":");
	out_esc(&ob, famname[c->fam], strlen(famname[c->fam]));
	if (withstep)
		out_raw(&ob, "step_id", P.arena.p + P.st[c->step].sid, P.st[c->step].sidn);
	out_i64(&ob, "start_ns", c->s);
	out_i64(&ob, "end_ns", c->e);
	out_i64(&ob, "offset_ns", c->s - P.st[c->step].s0);
	out_i64(&ob, "dur_ns", c->e - c->s);
	out_i64(&ob, "blocked_ns", c->blocked);
	/* Before the blocking call: the host waits for the task queue. */
	out_i64(&ob, "blocked_offset_ns", c->bs - P.st[c->step].s0);
	out_i64(&ob, "before_block_dequeue_ns", dequeueov(c->s, c->bs));
	out_i64(&ob, "device_idle_ns", idleov(c->s, c->e));
	out_key(&ob, "chain");
	chainout(&c->ch);
	out_key(&ob, "frame");
	putistr(c->frame);
	buf_addc(&ob, '}');
}

static int
byblock(const void *a, const void *b)
{
	const struct serial *x = &P.sr[*(const size_t *)a], *y = &P.sr[*(const size_t *)b];

	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

/* The profile's longest serialisation points, at most 10. */
static void
serialtop(void)
{
	size_t n = 0, *v = xreallocarray(NULL, P.nsr + 1, sizeof *v);

	for (size_t i = 0; srord[i] != SIZE_MAX; i++)
		if (P.st[P.sr[srord[i]].step].real)
			v[n++] = srord[i];
	sortv(v, n, sizeof *v, byblock);
	out_key(&ob, "serialisation_points");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < n && i < 10; i++) {
		if (i)
			buf_addc(&ob, ',');
		pointout(&P.sr[v[i]], 1);
	}
	buf_addc(&ob, ']');
	free(v);
}

static void
serialout(uint32_t step)
{
	int n = 0;

	out_key(&ob, "serialisation_points");
	buf_addc(&ob, '[');
	for (; srord[srcur] != SIZE_MAX && P.sr[srord[srcur]].step <= step; srcur++) {
		const struct serial *c = &P.sr[srord[srcur]];

		if (c->step < step || n == EVN)
			continue;
		if (n++)
			buf_addc(&ob, ',');
		pointout(c, 0);
	}
	buf_addc(&ob, ']');
}

static void
stepout(const struct step *s, uint32_t idx)
{
	out_begin(&ob, "attribution_step");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_raw(&ob, "device", P.arena.p + s->dev, s->devn);
	out_raw(&ob, "step_id", P.arena.p + s->sid, s->sidn);
	out_raw(&ob, "group_id", P.arena.p + s->gid, s->gidn);
	out_nsms(&ob, "significant_bubble", s->sig);
	out_nsms(&ob, "partial_boundary", s->partial);
	out_nsms(&ob, "comm_sync", s->commsync);
	share("comm_sync_share", s->commsync, s->sig);
	coverage(s->covered, s->self, s->selfname, s->untraced, s->wait, s->sig, P.nhost > 0);
	causes("host_causes", s->cause, P.nhost > 0);
	serialout(idx);
	out_key(&ob, "tags");
	buf_adds(&ob, s->sig > 0 && atleast(s->commsync, s->sig, shareppm) ?
	    "[\"COMM_SYNC_RISK\"]" : "[]");
	rec_put(&ob, stdout);
}

/* The ops whose dispatch filled the significant windows, most time first. */
static void
dispatchout(void)
{
	uint32_t top[10];
	int n = 0;

	for (uint32_t id = 0; id < I.n && id < P.capops; id++) {
		int j;

		if (P.opns[id] <= 0)
			continue;
		if (n < 10)
			n++;
		else if (P.opns[id] <= P.opns[top[9]])
			continue;
		for (j = n - 1; j > 0 && P.opns[top[j - 1]] < P.opns[id]; j--)
			top[j] = top[j - 1];
		top[j] = id;
	}
	out_key(&ob, "dispatch_ops");
	buf_addc(&ob, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(top[i]);
		out_i64(&ob, "ns", P.opns[top[i]]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

static void
profile_end(void)
{
	int64_t lw[NLABEL] = { 0 }, lsw[NLABEL] = { 0 }, lns[NLABEL] = { 0 };
	int64_t sig = 0, partial = 0, commsync = 0, covered = 0, untraced = 0, wait = 0;
	int64_t self = 0, selfmax = 0;
	uint32_t selfname = NOID;
	int64_t nsig = 0, nrisk = 0, nsteps = 0, cause[MAXFAM + 1] = { 0 };
	int hosts;
	struct lab lb;
	struct fig f;
	struct gap lg = { 0, 0, NOID, NOID };
	const struct win *lgw = NULL;

	if (!P.sect.active)
		return;
	hosts = P.nhost > 0;
	drain(INT64_MAX);
	sortwins();
	dtprep();
	openupto(0, 1);
	for (size_t i = 0; i < P.nw; i++) {
		const struct win *w = &P.w[i];
		int cs = 0;

		figures(w, &f);
		labels(w, &f, hosts, &lb);
		attribution(w, &f, hosts, &lb);
		nsig += w->sig;
		for (int j = 0; j < lb.n; j++) {
			lw[lb.l[j]]++;
			lsw[lb.l[j]] += w->sig;
			if (w->sig && w->scope != S_GLOBAL)
				lns[lb.l[j]] += f.len;
			cs |= lb.l[j] == L_SYNC || lb.l[j] == L_COMM;
		}
		if (!w->sig || w->scope == S_GLOBAL)
			continue;
		struct step *s = &P.st[w->step];

		s->sig += f.len;
		if (w->partial && !f.covered) {
			s->partial += f.len;
			continue;
		}
		for (int j = 0; j <= nfam; j++)
			s->cause[j] += f.cause[j];
		if (cs)
			s->commsync += f.len;
		if (hosts) {
			struct gap g = wingap(w);

			s->covered += f.anyd;
			s->self += f.self;
			if (f.self > s->selfmax) {
				s->selfmax = f.self;
				s->selfname = w->st->cxname;
			}
			s->untraced += f.len - f.anyd - f.self;
			s->wait += f.wait;
			if (s->real && f.len > f.anyd && (lgw == NULL || g.e - g.s > lg.e - lg.s)) {
				lg = g;
				lgw = w;
			}
		}
	}
	serialprep();
	for (size_t i = 0; i < P.nst; i++) {
		const struct step *s = &P.st[i];

		if (!s->real)
			continue;
		stepout(s, (uint32_t)i);
		nsteps++;
		sig += s->sig;
		partial += s->partial;
		commsync += s->commsync;
		covered += s->covered;
		self += s->self;
		if (s->selfmax > selfmax) {
			selfmax = s->selfmax;
			selfname = s->selfname;
		}
		untraced += s->untraced;
		wait += s->wait;
		for (int j = 0; j <= nfam; j++)
			cause[j] += s->cause[j];
		nrisk += s->sig > 0 && atleast(s->commsync, s->sig, shareppm);
	}
	out_begin(&ob, "attribution_summary");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_bool(&ob, "host_evidence", hosts);
	out_i64(&ob, "host_events", P.nhost);
	out_i64(&ob, "leaf_host_events", P.nleaf);
	out_i64(&ob, "windows", (int64_t)P.nw);
	out_i64(&ob, "significant_windows", nsig);
	out_key(&ob, "labels");
	buf_addc(&ob, '{');
	for (int j = 0; j < NLABEL; j++) {
		if (j)
			buf_addc(&ob, ',');
		out_esc(&ob, lname[j], strlen(lname[j]));
		buf_adds(&ob, ":{\"windows\":");
		out_int(&ob, lw[j]);
		out_i64(&ob, "significant_windows", lsw[j]);
		out_nsms(&ob, "significant_bubble", lns[j]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, '}');
	out_nsms(&ob, "significant_bubble", sig);
	out_nsms(&ob, "partial_boundary", partial);
	out_nsms(&ob, "comm_sync", commsync);
	share("comm_sync_share", commsync, sig);
	coverage(covered, self, selfname, untraced, wait, sig, hosts);
	gapout(&lg, lgw);
	causes("host_causes", cause, hosts);
	dispatchout();
	out_key(&ob, "op_compile_events");
	buf_adds(&ob, "{\"calls\":");
	out_int(&ob, P.ncomp);
	out_i64(&ob, "ns", P.compns);
	out_i64(&ob, "longest_ns", P.complong);
	out_i64(&ob, "compiles", P.ncompiles);
	buf_addc(&ob, '}');
	out_i64(&ob, "dequeue_events", P.ndequeue);
	serialtop();
	out_i64(&ob, "steps", nsteps);
	out_i64(&ob, "comm_sync_risk_steps", nrisk);
	rec_put(&ob, stdout);
	reset();
	sr_sect_end(&P.sect, SR_CHECK_HOST, stdout);
	P.sect.active = 0;
}

/*
 * -H: the host records of the input's one profile are in a file of their
 * own (asc-ingest -H), read whole when the profile's other records end.
 * They are consumed here, not written on.
 */
static const char *hpath;
static int hdone, kflag, hrc = EX_OK;
static int ownonly;	/* -n: the profile records and ours, not the rest */
static size_t hmaxline;

static void
hostfile(void)
{
	struct rin h;
	struct buf pre = { 0 };
	int st;

	if (hdone++)
		die("-H %s: the input holds more than one profile: -H takes one", hpath);
	if (rin_open(&h, hpath, hmaxline) != 0)
		dieerr("%s", hpath);
	while ((st = sr_aside_next(&h, "-H", "host", P.prof.p, P.prof.len, &pre)) != 0) {
		if (st > 0 && sr_sect_need(&P.sect, &h, "host") == 0 && hostrec(&h) == 0)
			continue;
		warnmsg("%s:%lu: %s", h.name, h.lineno, h.err);
		if (!kflag)
			exit(EX_DATA);
		hrc = EX_DATA;
	}
	rin_close(&h);
	buf_free(&pre);
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	const struct rfield *f;

	if (sr_is(t, n, "profile")) {
		if (rin_scan(r) != 0)
			return -1;
		if (hpath && P.sect.active)
			hostfile();
		profile_end();
		sr_sect_profile(&P.sect, r);
		P.prof.len = 0;
		if ((f = rin_get(r, "profile")) != NULL)
			buf_add(&P.prof, f->v, f->vlen);
		else
			buf_adds(&P.prof, "null");
	} else if (sr_is(t, n, "marker")) {
		if (markrec(r) != 0)
			return -1;
	} else if (sr_is(t, n, "device_task")) {
		if (dtaskrec(r) != 0)
			return -1;
	} else if (sr_is(t, n, "bubble") || sr_is(t, n, "host") || sr_is(t, n, "step")) {
		int rc;

		if (sr_sect_need(&P.sect, r, t[0] == 'b' ? "bubble" : t[0] == 'h' ? "host" : "step") != 0)
			return -1;
		rc = t[0] == 'b' ? bubblerec(r) : t[0] == 'h' ? hostrec(r) : steprec(r);
		if (rc != 0)
			return -1;
	}
	if (!ownonly || sr_is(t, n, "profile"))
		sr_pass(r);
	return 0;
}

static void
onend(void *arg)
{
	if (hpath && P.sect.active)
		hostfile();
	profile_end();
}

/* The index of a family a rules key names. */
static int
famindex(const char *key, const char *name)
{
	for (int i = 0; i < nfam; i++)
		if (strcmp(famname[i], name) == 0)
			return i;
	die("rules: \"%s\": %s is not in \"attribution.host_cause_order\"", key, name);
	return -1;
}

/* The host cause families, from the rules, in priority order. */
static void
famrules(void)
{
	const char *const *ord = rules_list("attribution.host_cause_order");
	const char *const *sf = rules_list("attribution.serial_families");
	const char *lf = rules_str("attribution.dispatch_family");
	char key[256];

	for (nfam = 0; ord[nfam]; nfam++) {
		if (nfam == MAXFAM)
			die("rules: more than %d families in \"attribution.host_cause_order\"",
			    MAXFAM);
		if (strcmp(ord[nfam], "other") == 0)
			die("rules: \"other\" is implicit in \"attribution.host_cause_order\"");
		famname[nfam] = ord[nfam];
		snprintf(key, sizeof key, "attribution.host_causes.%s.names", ord[nfam]);
		famnames[nfam] = rules_list(key);
		snprintf(key, sizeof key, "attribution.host_causes.%s.cats", ord[nfam]);
		famcats[nfam] = rules_list(key);
	}
	famname[nfam] = "other";
	for (; *sf; sf++)
		famsync[famindex("attribution.serial_families", *sf)] = 1;
	famlaunch = famindex("attribution.dispatch_family", lf);
	for (int i = 0; i < nfam; i++)
		if (strcmp(famname[i], "op_compile") == 0)
			famcompile = i;
		else if (strcmp(famname[i], "h2d_copy") == 0)
			famh2d = i;
}

static int64_t
ppm(const char *key)
{
	return llround(rules_num(key) * PPM);
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "attribution", "attribution_step", "attribution_summary", NULL };
	struct sr_filter f = { onrec, onend, NULL, NULL, 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rfile = NULL;
	int c, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "H:km:nr:")) != -1)
		switch (c) {
		case 'H':
			hpath = optarg;
			break;
		case 'n':
			/* The kernels, most of the input, are dropped unread. */
			ownonly = 1;
			f.bulk = "kernel";
			f.bulk_drop = 1;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			rfile = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rfile);
	P.last.name = NOID;
	syncppm = ppm("attribution.sync_ratio");
	commppm = ppm("attribution.comm_ratio");
	untrppm = ppm("attribution.untraced_coverage");
	launchppm = ppm("attribution.launch_coverage");
	serialppm = ppm("attribution.serial_parallelism");
	shareppm = ppm("bubbles.evidence_time_share");
	stepmarks = rules_list("attribution.step_markers");
	syncmarks = rules_list("attribution.sync_markers");
	commmarks = rules_list("attribution.comm_markers");
	dispops = rules_list("attribution.dispatch_ops");
	serialmin = rules_ns("attribution.serial_min_us", 1e3);
	compilemin = rules_ns("attribution.compile_min_us", 1e3);
	famrules();
	hmaxline = maxline;
	rc = sr_run(argc, argv, maxline, kflag, &f);
	if (rc == EX_OK)
		rc = hrc;
	if (getenv("ASC_ATTRIB_STATS"))
		fprintf(stderr, "%s: host records %lu, by the fast reader %lu\n", progname, nhostrec, nfast);
	xclose_stdout();
	return rc;
}
