/*
 * asc-attrib: the host's top calls and the device work they launch.  A
 * root is a call no other event of its OS thread (tid, any pid) holds, the
 * step's context aside (the training loop's frames, the markers): one
 * statement of the loop, such as a metric's update, the optimizer's
 * zero_grad or loss.backward().  Its kernels are the device starts
 * (kernel_ns: the host-to-device link) of the events inside it, and of
 * the events of its process's other threads whose top call it holds
 * whole (the autograd engine's calls launch the backward while
 * loss.backward() waits for them).
 * A root that launches nothing is placed by its thread's launching roots
 * before and after it.  Only the roots that overlap a window are kept,
 * each with its own kernel starts and its neighbours' copied in when it
 * closes (or when its thread's next launching root does): the memory
 * follows the windows, not the host calls.  asc-judge ties each root to the model part of
 * its kernels: a part's remedy removes only its own roots' host time.
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

#define RKN	16	/* kernel starts kept per root: the first ones */

/* A list of kernel starts in K: the first RKN of a root's. */
struct klist {
	size_t		 off;
	int32_t		 n;		/* -1: none (null) */
};

struct root {
	int64_t		 pid, tid, s, e;
	uint32_t	 name, call, frame;	/* call: the first event in it with a frame */
	int64_t		 nk;
	struct klist	 own, before, after;	/* after: of a root that launches nothing */
	int32_t		 waitnext;	/* the next kept root of its thread waiting for "after" */
	int		 dq;		/* a Dequeue@ event: the task queue's */
};

/*
 * An OS thread and its open root (one at a time): the root's kernel
 * starts stay here until it closes, with those of the thread's latest
 * launching root (a neighbour to copy) and the kept roots that wait for
 * the next one.
 */
struct rthr {
	int64_t		 pid, tid;
	struct root	 open;
	int		 isopen;
	int32_t		 slot;		/* the open root's place in R; -1: not kept */
	int64_t		 k[RKN], lastk;	/* the open root's kernel starts */
	int64_t		 lk[RKN];	/* the latest launching root's */
	int32_t		 lkn;		/* -1: none yet */
	int32_t		 waithead, waittail;	/* kept roots waiting for "after" */
};

static struct root *R;		/* the kept roots, in the order they opened */
static int64_t *emax;		/* emax[i]: the latest end of R[0..i] */
static size_t nr, capr;
static int prepared;
static struct rthr *T;
static size_t nt, capt;
static int64_t *K;		/* the kept roots' kernel starts */
static size_t nkept, capkept;
static int64_t *wmax;		/* wmax[i]: the latest end of the windows P.ord[0..i] */
static int wready;

/* An OS thread, whatever the pid (Python and CANN record one thread
 * under two), with the pid it was first seen under. */
static struct rthr *
rthr(int64_t pid, int64_t tid)
{
	for (size_t i = 0; i < nt; i++)
		if (T[i].tid == tid)
			return &T[i];
	if (nt == capt) {
		capt = capt ? 2 * capt : 16;
		T = xreallocarray(T, capt, sizeof *T);
	}
	T[nt] = (struct rthr){ .pid = pid, .tid = tid, .slot = -1, .lkn = -1,
	    .waithead = -1, .waittail = -1 };
	return &T[nt++];
}

/* Does [s, e) overlap a window?  The windows by start, with the latest
 * end so far: the last one starting before e decides. */
static int
inwindow(int64_t s, int64_t e)
{
	size_t n;

	if (!wready) {
		sortwins();
		wmax = xreallocarray(wmax, P.nw + 1, sizeof *wmax);
		for (size_t i = 0; i < P.nw; i++) {
			int64_t we = P.w[P.ord[i]].e;

			wmax[i] = i && wmax[i - 1] > we ? wmax[i - 1] : we;
		}
		wready = 1;
	}
	n = winsbefore(e);
	return n > 0 && wmax[n - 1] > s;
}

/* A device start once however many of the call's events link to it
 * (the SQLite export links an op and its launch to the same task). */
static void
addk(struct rthr *t, int64_t kns)
{
	struct root *r = &t->open;

	if (r->nk > 0 && kns == t->lastk)
		return;
	for (int64_t j = 0; j < r->nk && j < RKN; j++)
		if (t->k[j] == kns)
			return;
	t->lastk = kns;
	if (r->nk < RKN)
		t->k[r->nk] = kns;
	r->nk++;
}

/* n kernel starts (-1: none) copied into K. */
static struct klist
keep(const int64_t *k, int32_t n)
{
	struct klist l = { .off = nkept, .n = n };

	if (n <= 0)
		return l;
	if (nkept + (size_t)n > capkept) {
		capkept = capkept ? 2 * capkept : 1024;
		K = xreallocarray(K, capkept, sizeof *K);
	}
	memcpy(K + nkept, k, (size_t)n * sizeof *K);
	nkept += (size_t)n;
	return l;
}

/*
 * Thread t's open root ends.  One that launches becomes its thread's
 * latest launching root, the "after" of the kept roots waiting; a kept
 * one that launches nothing takes the latest as its "before" and waits.
 */
static void
closeroot(struct rthr *t)
{
	struct root *r = &t->open;
	int32_t n = r->nk < RKN ? (int32_t)r->nk : RKN;

	if (!t->isopen)
		return;
	t->isopen = 0;
	if (n > 0) {
		memcpy(t->lk, t->k, (size_t)n * sizeof *t->k);
		t->lkn = n;
		if (t->waithead >= 0) {
			struct klist l = keep(t->lk, n);

			for (int32_t i = t->waithead; i >= 0; i = R[i].waitnext)
				R[i].after = l;
			t->waithead = t->waittail = -1;
		}
	}
	if (t->slot < 0)
		return;
	r->own = keep(t->k, n);
	if (n == 0) {
		r->before = keep(t->lk, t->lkn);
		if (t->waittail >= 0)
			R[t->waittail].waitnext = t->slot;
		else
			t->waithead = t->slot;
		t->waittail = t->slot;
	}
	R[t->slot] = *r;
}

/*
 * A host event in start order (not a step marker); link: 0 none, 1 to a
 * device task starting at kns, 2 a host-to-device copy's (its own
 * thread's alone: another thread's input copies are not launched by a
 * call that waits); ctx: the step's context.
 */
void
rootev(int64_t pid, int64_t tid, int64_t s, int64_t e, uint32_t name, uint32_t frame,
    int link, int64_t kns, int ctx)
{
	struct rthr *t = rthr(pid, tid);
	struct root *r = t->isopen ? &t->open : NULL;

	if (r && (s >= r->e || e > r->e))
		r = NULL, closeroot(t);
	if (r == NULL && !ctx) {
		r = &t->open;
		*r = (struct root){ .pid = pid, .tid = tid, .s = s, .e = e, .name = name,
		    .call = NOID, .frame = NOID, .before = { .n = -1 }, .after = { .n = -1 },
		    .waitnext = -1,
		    .dq = I.names.v[name].n > 9 && memcmp(I.names.v[name].s, "\"Dequeue@", 9) == 0 };
		t->isopen = 1;
		t->slot = -1;
		if (inwindow(s, e)) {	/* its place now: R stays in opening order */
			R = xgrow(R, nr, &capr, 256, sizeof *R);
			t->slot = (int32_t)nr++;
		}
	}
	if (r == NULL)
		return;
	if (r->frame == NOID && frame != NOID)
		r->call = name, r->frame = frame;
	if (!link)
		return;
	addk(t, kns);
	if (link == 2)
		return;
	/* a call of the same process that holds the whole call of another
	 * thread that launches: it waits on it (loss.backward() on the
	 * autograd engine's calls); the task queue's thread (Dequeue@) runs
	 * the queued launches and waits on no other thread */
	for (size_t i = 0; i < nt; i++) {
		struct root *o = &T[i].open;

		if (T[i].pid != t->pid || T[i].tid == tid || !T[i].isopen)
			continue;
		if (!o->dq && o->s <= r->s && r->e <= o->e)
			addk(&T[i], kns);
	}
}

static void
kout(const char *key, struct klist l)
{
	out_key(&ob, key);
	if (l.n < 0) {
		buf_adds(&ob, "null");
		return;
	}
	buf_addc(&ob, '[');
	for (int32_t j = 0; j < l.n; j++) {
		if (j)
			buf_addc(&ob, ',');
		out_int(&ob, K[l.off + (size_t)j]);
	}
	buf_addc(&ob, ']');
}

/* The first root that may overlap a window from s on. */
static size_t
firstroot(int64_t s)
{
	size_t lo = 0, hi = nr;

	if (!prepared) {
		for (size_t i = 0; i < nt; i++)
			closeroot(&T[i]);
		emax = xreallocarray(emax, nr + 1, sizeof *emax);
		for (size_t i = 0; i < nr; i++)
			emax[i] = i && emax[i - 1] > R[i].e ? emax[i - 1] : R[i].e;
		prepared = 1;
	}
	while (lo < hi) {
		size_t m = lo + (hi - lo) / 2;

		if (emax[m] <= s)
			lo = m + 1;
		else
			hi = m;
	}
	return lo;
}

/*
 * host_roots: the roots overlapping window w with the time they hold
 * there, their kernels (the first RKN device starts, kernels the count),
 * and for one that launches nothing the kernels of its thread's
 * launching roots before and after it.
 */
void
rootsout(const struct win *w)
{
	int n = 0;

	out_key(&ob, "host_roots");
	buf_addc(&ob, '[');
	for (size_t i = firstroot(w->s); i < nr && R[i].s < w->e; i++) {
		const struct root *r = &R[i];
		int64_t a = r->s > w->s ? r->s : w->s, b = r->e < w->e ? r->e : w->e;

		if (b <= a)
			continue;
		buf_adds(&ob, n++ ? ",{\"root\":" : "{\"root\":");
		putistr(r->name);
		out_key(&ob, "call");
		putistr(r->call);
		out_key(&ob, "frame");
		putistr(r->frame);
		out_i64(&ob, "tid", r->tid);
		out_i64(&ob, "ns", b - a);
		out_i64(&ob, "kernels", r->nk);
		kout("kernel_ns", r->nk > 0 ? r->own : (struct klist){ .n = -1 });
		if (r->nk == 0) {
			kout("before_kernel_ns", r->before);
			kout("after_kernel_ns", r->after);
		}
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* The profile ends: its roots and windows go. */
void
rootsreset(void)
{
	nr = nt = nkept = 0;
	prepared = wready = 0;
}
