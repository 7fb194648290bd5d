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
 * before and after it.  asc-judge ties each root to the model part of
 * its kernels: a part's remedy removes only its own roots' host time.
 */
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

#define RKN	16	/* kernel starts kept per root: the first ones */

struct root {
	int64_t		 pid, tid, s, e;
	uint32_t	 name, call, frame;	/* call: the first event in it with a frame */
	int64_t		 nk;
	size_t		 koff;		/* its first RKN kernel starts: K[koff..] */
	int32_t		 prev, next;	/* launching roots before and after it */
	int		 dq;		/* a Dequeue@ event: the task queue's */
};

/* An open root's kernel starts stay with its thread until it closes:
 * only the few it ends up with are kept (one open root per thread). */
struct rthr {
	int64_t		 pid, tid;
	int32_t		 cur, last;	/* its open root; scratch for the passes */
	int64_t		 k[RKN], lastk;	/* the open root's kernel starts */
};

static struct root *R;
static int64_t *emax;		/* emax[i]: the latest end of R[0..i] */
static size_t nr, capr;
static int prepared;
static struct rthr *T;
static size_t nt, capt;
static int64_t *K;		/* the closed roots' kernel starts */
static size_t nkept, capkept;

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
	T[nt] = (struct rthr){ .pid = pid, .tid = tid, .cur = -1, .last = -1 };
	return &T[nt++];
}

/* A device start once however many of the call's events link to it
 * (the SQLite export links an op and its launch to the same task). */
static void
addk(struct rthr *t, int64_t kns)
{
	struct root *r = &R[t->cur];

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

/* Thread t's open root ends: its kernel starts join K. */
static void
closeroot(struct rthr *t)
{
	struct root *r;
	size_t n;

	if (t->cur < 0)
		return;
	r = &R[t->cur];
	n = r->nk < RKN ? (size_t)r->nk : RKN;
	if (nkept + n > capkept) {
		capkept = capkept ? 2 * capkept : 1024;
		K = xreallocarray(K, capkept, sizeof *K);
	}
	r->koff = nkept;
	if (n > 0) {	/* K is still NULL when no root has launched */
		memcpy(K + nkept, t->k, n * sizeof *K);
		nkept += n;
	}
	t->cur = -1;
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
	struct root *r = t->cur >= 0 ? &R[t->cur] : NULL;

	if (r && (s >= r->e || e > r->e))
		r = NULL, closeroot(t);
	if (r == NULL && !ctx) {
		if (nr == capr) {
			capr = capr ? 2 * capr : 256;
			R = xreallocarray(R, capr, sizeof *R);
		}
		r = &R[nr];
		*r = (struct root){ .pid = pid, .tid = tid, .s = s, .e = e, .name = name,
		    .call = NOID, .frame = NOID, .prev = -1, .next = -1,
		    .dq = I.v[name].len > 9 && memcmp(I.text.p + I.v[name].off, "\"Dequeue@", 9) == 0 };
		t->cur = (int32_t)nr++;
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
		struct root *o;

		if (T[i].pid != t->pid || T[i].tid == tid || T[i].cur < 0)
			continue;
		o = &R[T[i].cur];
		if (!o->dq && o->s <= r->s && r->e <= o->e)
			addk(&T[i], kns);
	}
}

/* Each root's launching neighbours on its thread. */
static void
neighbours(void)
{
	for (size_t i = 0; i < nt; i++)
		T[i].last = -1;
	for (size_t i = 0; i < nr; i++) {
		struct rthr *t = rthr(R[i].pid, R[i].tid);

		R[i].prev = t->last;
		if (R[i].nk > 0)
			t->last = (int32_t)i;
	}
	for (size_t i = 0; i < nt; i++)
		T[i].last = -1;
	for (size_t i = nr; i-- > 0;) {
		struct rthr *t = rthr(R[i].pid, R[i].tid);

		R[i].next = t->last;
		if (R[i].nk > 0)
			t->last = (int32_t)i;
	}
}

static void
kout(const char *key, int32_t i)
{
	out_key(&ob, key);
	if (i < 0) {
		buf_adds(&ob, "null");
		return;
	}
	buf_addc(&ob, '[');
	for (int64_t j = 0; j < R[i].nk && j < RKN; j++) {
		if (j)
			buf_addc(&ob, ',');
		out_int(&ob, K[R[i].koff + j]);
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
		neighbours();
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
		kout("kernel_ns", r->nk > 0 ? (int32_t)i : -1);
		if (r->nk == 0) {
			kout("before_kernel_ns", r->prev);
			kout("after_kernel_ns", r->next);
		}
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

/* The profile ends: its roots go. */
void
rootsreset(void)
{
	nr = nt = nkept = 0;
	prepared = 0;
}
