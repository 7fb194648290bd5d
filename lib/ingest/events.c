/* events: the Ascend logic of the timeline reader. */
#include "trace_int.h"

#include <limits.h>

#include "intern.h"
#include "rules.h"

/* ---------- the processes and threads, indexed by (pid, tid) ---------- */

static struct pidkey
prkey(const void *arg, size_t i)
{
	const struct trace *t = arg;

	return (struct pidkey){ t->pr[i].pid, 0 };
}

static struct pidkey
thkey(const void *arg, size_t i)
{
	const struct trace *t = arg;

	return (struct pidkey){ t->th[i].pid, t->th[i].tid };
}

int
tr_getproc(struct trace *t, int64_t pid, int create)
{
	int i = pidtab_find(&t->hpr, pid, 0, prkey, t);

	if (i >= 0 || !create)
		return i;
	if (t->npr == t->cpr) {
		t->cpr = t->cpr ? t->cpr * 2 : 16;
		t->pr = xreallocarray(t->pr, t->cpr, sizeof *t->pr);
	}
	memset(&t->pr[t->npr], 0, sizeof t->pr[0]);
	t->pr[t->npr].pid = pid;
	t->pr[t->npr].dev = -2;
	t->npr++;
	pidtab_index(&t->hpr, t->npr - 1, t->npr, prkey, t);
	return (int)t->npr - 1;
}

int
tr_getthr(struct trace *t, int64_t pid, int64_t tid, int create)
{
	int i;

	if (t->lastth >= 0 && t->lastpid == pid && t->lasttid == tid)
		return t->lastth;
	if ((i = pidtab_find(&t->hth, pid, tid, thkey, t)) < 0) {
		if (!create)
			return -1;
		tr_thrroom(t, t->nth + 1);
		tr_thrinit(&t->th[t->nth++], pid, tid);
		tr_thrindex(t, t->nth - 1);
		i = (int)t->nth - 1;
	}
	t->lastth = i;
	t->lastpid = pid;
	t->lasttid = tid;
	return i;
}

void
tr_thrroom(struct trace *t, size_t n)
{
	if (n > INT_MAX - 1)
		die("%s: more than %d threads", t->disp, INT_MAX - 1);
	if (n > t->cth) {
		while (t->cth < n)
			t->cth = t->cth ? t->cth * 2 : 64;
		t->th = xreallocarray(t->th, t->cth, sizeof *t->th);
	}
}

void
tr_thrinit(struct thr *h, int64_t pid, int64_t tid)
{
	memset(h, 0, sizeof *h);
	h->pid = pid;
	h->tid = tid;
	h->pi = -1;
	h->minx = INT64_MAX;
	h->maxx = INT64_MIN;
}

void
tr_thrindex(struct trace *t, size_t from)
{
	pidtab_index(&t->hth, from, t->nth, thkey, t);
}

static const char *const hostnames[] = {
	"Python", "CANN", "Python GC", "MindSpore", "CPU OP", "Scope Layer",
	"OS Runtime API", NULL
};

static int
prole(const struct proc *p)
{
	if (p->name) {
		for (int i = 0; hostnames[i]; i++)
			if (strcmp(p->name, hostnames[i]) == 0)
				return R_HOST;
		if (strcmp(p->name, "Ascend Hardware") == 0)
			return R_HW;
		if (strcmp(p->name, "HCCL") == 0 ||
		    strcmp(p->name, "Communication") == 0)
			return R_COMM;
	}
	return p->cpu ? R_HOST : R_IGN;
}

/* ---------- events ---------- */

/* First non-framework frame of a call stack (innermost first). */
static int
topframe(const char *s, size_t n, const char **fs, size_t *fn)
{
	const char *e = s + n;

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *q = nl ? nl : e;

		while (q > s && (q[-1] == '\r' || q[-1] == ';' ||
		    q[-1] == ' ' || q[-1] == '\t'))
			q--;
		while (s < q && (*s == ' ' || *s == '\t'))
			s++;
		if (q > s && !trace_is_framework(s, (size_t)(q - s))) {
			*fs = s;
			*fn = (size_t)(q - s);
			return 1;
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

/* The spill set of a thread's events, from what is known now. */
static int
provset(struct trace *t, struct thr *h)
{
	if (!h->provok || h->gen != (uint32_t)t->gen) {
		int pi = tr_getproc(t, h->pid, 0);

		if (pi < 0)
			h->prov = SET_O;
		else
			switch (prole(&t->pr[pi])) {
			case R_HOST:
				h->prov = SET_H;
				break;
			case R_HW:
			case R_COMM:
				h->prov = SET_D;
				break;
			default:
				h->prov = SET_I;
				break;
			}
		h->gen = (uint32_t)t->gen;
		h->provok = 1;
	}
	return h->prov;
}

static int
evid(struct trace *t, const struct ev *ev, const struct span *sp, int64_t *v)
{
	if (sp->k == 0 || spani64(sp, v) == 0)
		return 0;
	if (sp->k == 's') {
		/* a non-numeric id: a stable value from its text */
		*v = (int64_t)(fnv(FNV_INIT, sp->p, sp->n) |
		    (1ULL << 63));
		return 0;
	}
	return -1;
}

/* tr_bad() naming the field and its value: bad "ts": "9736408883690507.080". */
static int
badval(struct trace *t, const char *at, const char *key, const struct span *v)
{
	char m[120];
	int n = v->n > 48 ? 48 : (int)v->n;

	snprintf(m, sizeof m, "bad \"%s\": %s%.*s%s%s", key, v->k == 's' ? "\"" : "",
	    n, v->p ? v->p : "", v->n > 48 ? "..." : "", v->k == 's' ? "\"" : "");
	return tr_bad(t, at, m);
}

/* With -k (opts.bad) an X event refused before it touched any state is
 * reported, counted and skipped; the second reader of a split fails
 * instead (nomsg), so the first reports it in order. */
static int
xbad(struct trace *t, int r)
{
	if (t->bad == NULL || t->nomsg)
		return r;
	t->bad(t->err);
	t->c.rejected++;
	return 0;
}

/* An HCCL rank arg: -1 when absent, not an integer or HCCL's "none". */
static int64_t
crank(const struct span *sp)
{
	int64_t v;

	if (sp->k == 0 || spani64(sp, &v) != 0 || v < 0 || v == 4294967295LL)
		return -1;
	return v;
}

/* Copy a text arg into a fixed field, cut to fit and NUL-padded. */
static void
ctext(struct trace *t, const struct span *sp, char *dst, size_t n)
{
	const char *s;
	size_t k;

	memset(dst, 0, n);
	if (sp->k != 's' && sp->k != 'v')
		return;
	spanstr(sp, &t->sc3, &s, &k);
	memcpy(dst, s, k < n - 1 ? k : n - 1);
}

/*
 * An HCCL task (its args name a "task type"): kept with its peers, size
 * and transport for trace_put_comm_tasks(), which writes those of the
 * HCCL process's threads once the processes are known.
 */
static void
ctevent(struct trace *t, const struct ev *ev, const struct shdr *h,
    struct thr *th)
{
	struct ctask c;
	int64_t v;

	memset(&c, 0, sizeof c);
	c.start = h->start;
	c.dur = h->dur;
	c.off = h->off;
	c.ti = h->ti;
	c.src = crank(&ev->csrc);
	c.dst = crank(&ev->cdst);
	c.bytes = ev->csize.k && spani64(&ev->csize, &v) == 0 && v >= 0 ? v : -1;
	c.stream = ev->cstream.k && spani64(&ev->cstream, &v) == 0 &&
	    v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
	ctext(t, &ev->ctt, c.ttype, sizeof c.ttype);
	ctext(t, &ev->ctrans, c.trans, sizeof c.trans);
	ctext(t, &ev->cnotify, c.notify, sizeof c.notify);
	th->nct++;
	tr_frs_add(t, &t->ct, &c);
}

static int
xevent(struct trace *t, const struct ev *ev, const char *at, uint64_t off)
{
	struct shdr h;
	struct thr *th;
	const char *name, *cat = "", *frame = "", *tt = "";
	size_t nname, ncat = 0, nframe = 0, ntt = 0, klen;
	int64_t pid, tid, stream = 0, taskid = 0, xend = 0;
	int set, ti, kind;

	memset(&h, 0, sizeof h);
	if (ev->ts.k == 0)
		return xbad(t, tr_bad(t, at, "X event without \"ts\""));
	if (spanus(&ev->ts, &h.start) < 0)
		return xbad(t, badval(t, at, "ts", &ev->ts));
	if (ev->dur.k == 0)
		return xbad(t, tr_bad(t, at, "X event without \"dur\""));
	if (spanus(&ev->dur, &h.dur) < 0 || h.dur < 0)
		return xbad(t, badval(t, at, "dur", &ev->dur));
	/* the end is written, and nested on: it must be a time too */
	if (__builtin_add_overflow(h.start, h.dur, &xend))
		return xbad(t, tr_bad(t, at, "\"ts\" + \"dur\" past the "
		    "range of 64-bit ns"));
	if (evid(t, ev, &ev->pid, &pid) < 0)
		return xbad(t, tr_bad(t, at, "bad \"pid\""));
	if (evid(t, ev, &ev->tid, &tid) < 0)
		return xbad(t, tr_bad(t, at, "bad \"tid\""));
	h.off = off;
	if (ev->name.k == 's')
		spanstr(&ev->name, &t->sc, &name, &nname);
	else
		name = "", nname = 0;
	ti = tr_getthr(t, pid, tid, 1);
	th = &t->th[ti];
	h.ti = (uint32_t)ti;
	th->seen = 1;
	th->nx++;
	if (h.start < th->minx)
		th->minx = h.start;
	if (xend > th->maxx)
		th->maxx = xend;
	if (ev->ctt.k == 's')
		ctevent(t, ev, &h, th);
	else if (ev->ttype.k == 's')
		tr_hwwait(t, ev, &h, th);
	if (ev->cat.k == 's') {
		spanstr(&ev->cat, &t->sc2, &cat, &ncat);
		h.flags |= F_CAT;
	}
	if (tr_ismarker(t, name, nname, &klen, &kind)) {
		struct marker m;
		const char *dg = name + klen + 1;
		uint64_t nd = nname - klen - 1, ao = t->mka.len;

		h.flags |= F_MARK;
		memset(&m, 0, sizeof m);
		m.start = h.start;
		m.dur = h.dur;
		m.off = off;
		m.ti = (uint32_t)ti;
		m.kind = (uint8_t)kind;
		if (nd <= sizeof m.dig) {
			m.nd = (uint8_t)nd;
			memcpy(m.dig, dg, nd);
		} else {
			m.nd = MKLONG;
			memcpy(m.dig, &ao, 8);
			memcpy(m.dig + 8, &nd, 8);
			buf_add(&t->mka, dg, nd);
		}
		tr_frs_add(t, &t->mk, &m);
	}
	if (ev->stack.k == 's') {
		const char *s;
		size_t n;

		h.flags |= F_STACK;
		th->stack = 1;
		spanstr(&ev->stack, &t->sc4, &s, &n);
		if (topframe(s, n, &frame, &nframe))
			h.flags |= F_FRAME;
	}
	if ((ev->pstream.k && spani64(&ev->pstream, &stream) == 0) ||
	    (ev->stream.k && spani64(&ev->stream, &stream) == 0))
		h.flags |= F_STREAM;
	if (ev->taskid.k && spani64(&ev->taskid, &taskid) == 0)
		h.flags |= F_TASKID;
	if (ev->ttype.k == 's') {
		spanstr(&ev->ttype, &t->sc3, &tt, &ntt);
		h.flags |= F_TTYPE;
	}
	h.nname = (uint32_t)nname;
	h.ncat = (uint32_t)ncat;
	h.nframe = (uint32_t)nframe;
	h.nttype = (uint32_t)ntt;
	if (ev->dims.k)
		t->c.input_dims++;
	set = provset(t, th);
	th->sets |= 1u << set;
	tr_spill(t, set, &h, stream, taskid, name, cat, frame, tt);
	return 0;
}

static void
setname(char **dst, const struct span *sp, struct buf *sc)
{
	const char *s;
	size_t n;

	if (sp->k != 's')
		return;
	spanstr(sp, sc, &s, &n);
	free(*dst);
	*dst = xstrndup(s, n);
}

static int
mevent(struct trace *t, const struct ev *ev, const char *at)
{
	int64_t pid = 0, tid = 0;
	struct proc *p;

	if (evid(t, ev, &ev->pid, &pid) < 0)
		return tr_bad(t, at, "bad \"pid\"");
	if (evid(t, ev, &ev->tid, &tid) < 0)
		return tr_bad(t, at, "bad \"tid\"");
	if (speq(&ev->name, "process_name")) {
		int pi = tr_getproc(t, pid, 1);

		p = &t->pr[pi];
		setname(&p->name, &ev->aname, &t->sc);
	} else if (speq(&ev->name, "process_labels")) {
		const char *s;
		size_t n;

		int pi = tr_getproc(t, pid, 1);

		p = &t->pr[pi];
		if (ev->labels.k != 's')
			return 0;
		spanstr(&ev->labels, &t->sc, &s, &n);
		if (n == 3 && memcmp(s, "CPU", 3) == 0)
			p->cpu = 1;
		else if (n >= 3 && memcmp(s, "NPU", 3) == 0) {
			int64_t d;
			struct span sp = { s + 3, n - 3, 'v', 0 };

			while (sp.n && *sp.p == ' ')
				sp.p++, sp.n--;
			if (sp.n && spani64(&sp, &d) == 0 && d >= 0 &&
			    d < INT32_MAX)
				p->dev = (int)d;
			else
				p->dev = -1;
		}
	} else if (speq(&ev->name, "thread_name")) {
		int ti = tr_getthr(t, pid, tid, 1);
		struct thr *h = &t->th[ti];

		h->seen = 1;
		if (ev->aname.k == 's') {
			const char *s;
			size_t n;

			spanstr(&ev->aname, &t->sc, &s, &n);
			tr_setthrname(t, h, xstrndup(s, n));
		}
	} else
		return 0;
	tr_newgen(t);
	return 0;
}

void
tr_setthrname(struct trace *t, struct thr *h, char *s)
{
	if (h->name) {
		free(t->tname[h->name - 1]);
		t->tname[h->name - 1] = s;
		return;
	}
	if (t->ntname == UINT32_MAX)
		die("%s: more than %u thread names", t->disp, UINT32_MAX - 1);
	if (t->ntname == t->ctname) {
		t->ctname = t->ctname ? t->ctname * 2 : 64;
		t->tname = xreallocarray(t->tname, t->ctname, sizeof *t->tname);
	}
	t->tname[t->ntname++] = s;
	h->name = (uint32_t)t->ntname;
}

/* A thread's cached set is valid for the low 32 bits of gen: when they
 * wrap, every cache is dropped. */
void
tr_newgen(struct trace *t)
{
	if ((uint32_t)++t->gen == 0)
		for (size_t i = 0; i < t->nth; i++)
			t->th[i].provok = 0;
}

static int
flowkind(const struct ev *ev)
{
	if (speq(&ev->cat, "async_npu") ||
	    (ev->cat.k == 0 && speq(&ev->name, "torch_to_npu")))
		return 1;
	if (speq(&ev->cat, "HostToDevice"))
		return 2;
	return 0;
}

static int
fevent(struct trace *t, const struct ev *ev, const char *at, int isstart)
{
	int64_t ts;
	uint64_t id = 0;
	const char *s;
	size_t n, i;
	int kind = flowkind(ev);
	struct fl f;

	if (kind == 0 || ev->id.k == 0 || ev->ts.k == 0)
		return 0;
	if (spanus(&ev->ts, &ts) < 0)
		return badval(t, at, "ts", &ev->ts);
	spanstr(&ev->id, &t->sc, &s, &n);
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (id > (UINT64_MAX - 9) / 10)
			break;
		id = id * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n || n == 0) {
		id = fnv(FNV_INIT, s, n);
		kind |= 0x80;
	}
	f.id = id;
	f.ts = ts;
	f.kind = (uint32_t)kind;
	f.ti = 0;
	if (isstart) {
		int64_t pid, tid;

		if (evid(t, ev, &ev->pid, &pid) < 0 ||
		    evid(t, ev, &ev->tid, &tid) < 0)
			return tr_bad(t, at, "bad \"pid\" or \"tid\"");
		f.ti = (uint32_t)tr_getthr(t, pid, tid, 1);
		tr_frs_add(t, &t->fs, &f);
	} else
		tr_frs_add(t, &t->ff, &f);
	return 0;
}

int
tr_event(struct trace *t, const struct ev *ev, const char *at)
{
	uint64_t off = t->boff + (uint64_t)(at - t->b);

	t->c.events++;
	if (ev->ph.k != 's' || ev->ph.n != 1) {
		t->c.other++;
		return 0;
	}
	switch (ev->ph.p[0]) {
	case 'X':
		t->c.x_events++;
		return xevent(t, ev, at, off);
	case 'M':
		t->c.meta++;
		return mevent(t, ev, at);
	case 's':
	case 'f':
	case 't':
		t->c.flows++;
		if (ev->ph.p[0] == 't')
			return 0;
		return fevent(t, ev, at, ev->ph.p[0] == 's');
	case 'C':
		t->c.counters++;
		return 0;
	default:
		t->c.other++;
		return 0;
	}
}

/* ---------- finishing ---------- */

/*
 * Link every host s end to the earliest f end of the same id and kind:
 * a merge join of the two sorted streams.  The links, sorted by
 * (ts, thread, kts), keep the first of each (ts, thread); they end in
 * t->lk as one sorted source (in memory, or one run).
 */
static void
linkflows(struct trace *t)
{
	struct fmrg ms, mf;
	const struct fl *s, *f;
	unsigned long k = 0;

	tr_frs_sort(&t->fs);
	tr_frs_sort(&t->ff);
	tr_fmrg_open(&ms, &t->fs, 1);
	tr_fmrg_open(&mf, &t->ff, 1);
	f = tr_fmrg_top(&mf);
	for (; (s = tr_fmrg_top(&ms)) != NULL; tr_fmrg_pop(&ms)) {
		const struct thr *h = &t->th[s->ti];
		struct lk l;

		if (h->role != T_HOST || !h->seen)
			continue;
		while (f && (f->id < s->id || (f->id == s->id &&
		    f->kind < s->kind))) {
			tr_fmrg_pop(&mf);
			f = tr_fmrg_top(&mf);
		}
		if (f == NULL)
			break;
		if (f->id != s->id || f->kind != s->kind)
			continue;
		l.ts = s->ts;
		l.kts = f->ts;
		l.ti = s->ti;
		l.pad = 0;
		tr_frs_add(t, &t->lk, &l);
	}
	tr_fmrg_close(&ms);
	tr_fmrg_close(&mf);
	tr_frs_free(&t->fs);
	tr_frs_free(&t->ff);
	tr_frs_sort(&t->lk);
	if (t->lk.nruns == 0) {
		struct lk *a = (struct lk *)(void *)t->lk.m;

		for (size_t i = 0; i < t->lk.n; i++) {
			if (k && a[k - 1].ts == a[i].ts && a[k - 1].ti == a[i].ti)
				continue;
			a[k++] = a[i];
		}
		t->lk.n = k;
	} else {
		/* one deduplicated run for the host pass */
		struct fmrg m;
		const struct lk *l;
		struct lk last = { 0, 0, 0, 0 };
		struct frs g;
		int fd = tr_tmpfd(t);
		char *wb = xmalloc(sizeof *l * 4096);
		size_t wn = 0;

		tr_fmrg_open(&m, &t->lk, 1);
		for (; (l = tr_fmrg_top(&m)) != NULL; tr_fmrg_pop(&m)) {
			if (k && last.ts == l->ts && last.ti == l->ti)
				continue;
			last = *l;
			k++;
			memcpy(wb + wn * sizeof *l, l, sizeof *l);
			if (++wn == 4096) {
				tr_wall(t, fd, wb, wn * sizeof *l);
				wn = 0;
			}
		}
		tr_wall(t, fd, wb, wn * sizeof *l);
		free(wb);
		tr_fmrg_close(&m);
		tr_frs_init(&g, sizeof *l, 0, tr_lkcmp, 1);
		tr_frs_free(&t->lk);
		t->lk = g;
		t->lk.fd = fd;
		t->lk.end = k * sizeof *l;
		t->lk.runs = xcalloc(1, sizeof *t->lk.runs);
		t->lk.runs[0].n = k;
		t->lk.nruns = 1;
	}
	t->c.flows_linked = k;
}

/* Widen the span by a thread's X events: host and device ones for the
 * start and end, device ones alone for the first kernel. */
static void
span_widen(struct trace_span *s, const struct thr *h)
{
	if (h->role == T_IGN || h->nx == 0)
		return;
	if (h->minx < s->min_ts)
		s->min_ts = h->minx;
	if (h->maxx > s->max_end)
		s->max_end = h->maxx;
	if (h->role == T_DEV && h->minx < s->min_kernel_ts)
		s->min_kernel_ts = h->minx;
}

void
tr_finish(struct trace *t)
{
	size_t k;

	tr_flushrun(t);
	free(t->blk);
	t->blk = NULL;
	for (size_t i = 0; i < t->npr; i++) {
		struct proc *p = &t->pr[i];

		p->role = prole(p);
		if (p->name && strcmp(p->name, "Python") == 0)
			t->c.has_python = 1;
		if (p->name && strcmp(p->name, "CANN") == 0)
			t->c.has_cann = 1;
	}
	tr_span_empty(&t->span);
	t->hostsets = t->devsets = 0;
	for (size_t i = 0; i < t->nth; i++) {
		struct thr *h = &t->th[i];
		int r = R_IGN;
		size_t n;
		const char *name;

		h->pi = tr_getproc(t, h->pid, 0);
		if (h->pi >= 0)
			r = t->pr[h->pi].role;
		if (r == R_HOST)
			h->role = T_HOST;
		else if (r == R_HW)
			h->role = T_DEV;
		else if (r == R_COMM && (name = tr_thrname(t, h)) != NULL &&
		    (n = strlen(name)) >= 13 &&
		    strcmp(name + n - 13, "Communication") == 0)
			h->role = T_DEV;
		else
			h->role = T_IGN;
		if (r == R_COMM)
			t->c.comm_tasks += h->nct;
		else if (r == R_HW)
			t->c.notify_waits += h->nct;
		if (h->role == T_HOST) {
			t->c.host += h->nx;
			t->hostsets |= h->sets;
			if (h->stack)
				t->c.has_stacks = 1;
		} else if (h->role == T_DEV) {
			t->c.device += h->nx;
			t->devsets |= h->sets;
		} else
			t->c.ignored += h->nx;
		span_widen(&t->span, h);
	}
	/* the runs no thread written needs */
	for (int s = 0; s < NSET; s++) {
		if ((t->hostsets | t->devsets) & (1u << s))
			continue;
		for (int i = 0; i < t->nruns[s]; i++)
			close(t->runs[s][i].fd);
		t->nruns[s] = 0;
	}
	/* markers: host processes only, outermost of nested kept */
	k = 0;
	{
		unsigned long merged = 0;
		int64_t end = INT64_MIN;
		struct fmrg m;
		const struct marker *x;

		tr_frs_sort(&t->mk);
		tr_fmrg_open(&m, &t->mk, 1);
		for (; (x = tr_fmrg_top(&m)) != NULL; tr_fmrg_pop(&m)) {
			if (t->th[x->ti].role != T_HOST)
				continue;
			if (k && x->start < end) {
				merged++;
				continue;
			}
			tr_frs_add(t, &t->mko, x);
			k++;
			end = x->start + x->dur;
		}
		tr_fmrg_close(&m);
		tr_frs_free(&t->mk);
		if (merged)
			warns_add(&t->w, "nested_markers",
			    "%s: %lu nested or overlapping step markers merged "
			    "into their outermost marker", t->disp, merged);
	}
	t->c.markers = k;
	linkflows(t);
	/* no thread is looked up by (pid, tid) any more */
	free(t->hth.slot);
	t->hth = (struct pidtab){ 0 };
	t->lastth = -1;
	t->done = 1;
}
