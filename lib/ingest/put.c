/* put: the timeline reader's record writers. */
#include "trace_int.h"
#include "rec_out.h"

/* ---------- writers ---------- */

void
trace_put_markers(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	struct buf *b = &t->ob, *nm = &t->sc2;
	struct fmrg mg;
	const struct marker *m;

	tr_fmrg_open(&mg, &t->mko, 1);
	for (; (m = tr_fmrg_top(&mg)) != NULL; tr_fmrg_pop(&mg)) {
		const struct thr *th = &t->th[m->ti];
		size_t klen;

		nm->len = 0;
		buf_adds(nm, tr_mkprefix(t, m->kind));
		klen = nm->len;
		buf_addc(nm, '#');
		if (m->nd == MKLONG) {
			uint64_t ao, nd;

			memcpy(&ao, m->dig, 8);
			memcpy(&nd, m->dig + 8, 8);
			buf_add(nm, t->mka.p + ao, (size_t)nd);
		} else
			buf_add(nm, m->dig, m->nd);
		t->sc.len = 0;
		buf_adds(&t->sc, t->disp);
		buf_addc(&t->sc, '@');
		buf_grow(&t->sc, 24);
		t->sc.len = (size_t)(rec_fmtint_u(t->sc.p + t->sc.len, m->off) - t->sc.p);
		rec_out_marker(b, fp, profile, t->sc.p, t->sc.len, nm->p, nm->len, klen,
		    th->pid, th->tid, m->start - origin, m->dur);
	}
	tr_fmrg_close(&mg);
}

/*
 * The bulk writers build records straight into t->ob, from prefixes
 * made once with the out_* functions (so the bytes are the same), and
 * write it in large blocks.
 */
#define LIT(d, s) (memcpy((d), (s), sizeof(s) - 1), (d) += sizeof(s) - 1)

/* Room for n more bytes; the write position. */
static char *
wpos(struct buf *b, size_t n)
{
	buf_grow(b, n);
	return b->p + b->len;
}

static void
wend(struct buf *b, char *d)
{
	b->len = (size_t)(d - b->p);
}

static void
wflush(struct buf *b, FILE *fp, size_t atleast)
{
	if (b->len < atleast || b->len == 0)
		return;
	if (fwrite(b->p, 1, b->len, fp) != b->len)
		dieerr("stdout");
	b->len = 0;
}

/* {"type":TYPE,"profile":PROFILE,"src":"DISP@ (digits follow). */
static void
recprefix(struct trace *t, struct buf *pre, const char *type,
    const char *profile)
{
	t->sc.len = 0;
	buf_adds(&t->sc, t->disp);
	buf_addc(&t->sc, '@');
	rec_out_prefix(pre, type, profile, t->sc.p, t->sc.len);
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void
tr_dev_open(struct trace *t, struct devev *e)
{
	tr_mrg_open(t, &e->m, t->devsets);
	e->started = 0;
}

int
tr_dev_next(struct trace *t, struct devev *e)
{
	struct rdr *r;

	if (e->started)
		tr_mrg_pop(&e->m);
	e->started = 1;
	for (; (r = tr_mrg_top(&e->m)) != NULL; tr_mrg_pop(&e->m)) {
		e->h = r->h;
		e->th = &t->th[e->h->ti];
		if (e->th->role != T_DEV)
			continue;
		/* a device thread's role comes from its process: pi >= 0 */
		e->p = &t->pr[e->th->pi];
		e->s = rtext(e->h);
		return 1;
	}
	return 0;
}

void
tr_dev_close(struct devev *e)
{
	tr_mrg_close(&e->m);
}

void
trace_put_kernels(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	int64_t *devs = xcalloc(t->npr + 1, sizeof *devs);
	size_t nd = 0;
	struct buf *b = &t->ob, pre = { 0 };
	struct kout ko;

	for (size_t i = 0; i < t->nth; i++) {
		const struct thr *h = &t->th[i];

		if (h->role != T_DEV || h->nx == 0)
			continue;
		int64_t d = t->pr[h->pi].dev < 0 ? -1 : t->pr[h->pi].dev;
		size_t j;

		for (j = 0; j < nd && devs[j] != d; j++)
			;
		if (j == nd) {
			if (nd == t->npr)
				break;
			devs[nd++] = d;
		}
	}
	qsort(devs, nd, sizeof *devs, i64cmp);
	recprefix(t, &pre, "kernel", profile);
	/* what every kernel of a timeline has, or has not */
	memset(&ko, 0, sizeof ko);
	ko.pre = pre.p;
	ko.npre = pre.len;
	ko.step.kind = ko.op_type.kind = ko.tail[KS_WAIT].kind = KV_NULL;
	ko.name.kind = KV_STR;
	b->len = 0;
	for (size_t di = 0; di < nd; di++) {
		struct devev e;

		tr_dev_open(t, &e);
		while (tr_dev_next(t, &e)) {
			const struct shdr *h = e.h;
			const struct thr *th = e.th;
			const struct proc *p = e.p;
			const char *s = e.s;
			int x = 0;

			if ((p->dev < 0 ? -1 : p->dev) != devs[di])
				continue;
			ko.srcn = (int64_t)h->off;
			ko.device.kind = p->dev < 0 ? KV_NULL : KV_INT;
			ko.device.v = p->dev;
			ko.stream.kind = KV_INT;
			ko.stream.v = h->flags & F_STREAM ? rext(h, x++) : th->tid;
			ko.tail[KS_TASKID].kind = h->flags & F_TASKID ? KV_INT : KV_NULL;
			ko.tail[KS_TASKID].v = h->flags & F_TASKID ? rext(h, x) : 0;
			ko.name.s = s;
			ko.name.n = h->nname;
			s += h->nname + h->ncat + h->nframe;
			ko.comm = p->role == R_COMM;
			ko.task_type.kind = h->flags & F_TTYPE ? KV_STR : KV_NULL;
			ko.task_type.s = s;
			ko.task_type.n = h->flags & F_TTYPE ? h->nttype : 0;
			ko.start = h->start - origin;
			ko.dur = h->dur;
			rec_out_kernel(b, &ko);
			wflush(b, fp, OUTBUF);
		}
		tr_dev_close(&e);
	}
	wflush(b, fp, 0);
	buf_free(&pre);
	free(devs);
}

void
trace_devtasks(struct trace *t, struct trace_devtasks *d)
{
	size_t cap = 0;
	struct devev e;

	memset(d, 0, sizeof *d);
	tr_dev_open(t, &e);
	while (tr_dev_next(t, &e)) {
		const struct shdr *h = e.h;
		const char *s = e.s;
		struct trace_devtask *x;

		if (!(h->flags & (F_STREAM | F_TTYPE)))
			continue;
		if (d->n + 2 >= cap) {
			cap = cap ? 2 * cap : 1024;
			d->v = xreallocarray(d->v, cap, sizeof *d->v);
		}
		x = &d->v[d->n++];
		memset(x, 0, sizeof *x);
		x->start = h->start;
		x->has_stream = (h->flags & F_STREAM) != 0;
		x->stream = x->has_stream ? rext(h, 0) : 0;
		x->noff = d->names.len;
		x->nname = h->nname;
		buf_add(&d->names, s, h->nname);
		s += h->nname + h->ncat + h->nframe;
		if ((h->flags & F_TTYPE) && h->nttype > 0 && h->nttype < sizeof x->ttype) {
			memcpy(x->ttype, s, h->nttype);
			x->nttype = (uint8_t)h->nttype;
		}
	}
	tr_dev_close(&e);
	if (d->v)
		memset(&d->v[d->n], 0, 2 * sizeof *d->v);
}

void
trace_devtasks_free(struct trace_devtasks *d)
{
	free(d->v);
	buf_free(&d->names);
	memset(d, 0, sizeof *d);
}

struct pend {
	char		*rec;		/* the spill record, 8-aligned */
	size_t		 cap;
	int64_t		 start, end;
	int		 ti, depth, leaf, resolved, hask, mark;
	int64_t		 kns;
};

/* A host event in the deferred text whose leaf value is not known. */
struct hole {
	uint64_t	 seq;		/* its nest id, as when in memory */
	uint64_t	 off;		/* where the value goes in the text */
	int64_t		 end;
	int		 mark, resolved, leaf;
};

/*
 * Host events not written yet, in start order (seq): the oldest as
 * deferred text, formatted but with holes where a leaf value was not
 * known (a file, then a buffer), the others [mhead, tail) in memory.
 * The memory part is bounded (qmax events, qbytes of records): beyond,
 * the oldest events are formatted into the text, so that an event
 * whose end is far away on a thread that goes quiet holds back the
 * output, not memory.
 */
struct hq {
	struct pend	*q;
	uint64_t	 mhead, tail, cap;
	size_t		 bytes, qmax, qbytes;
	int		 fd;
	struct buf	 fb;		/* the end of the text, not in the file */
	uint64_t	 fend;		/* bytes of text in the file */
	uint64_t	 rpos;		/* bytes of text written out */
	struct hole	*h;
	uint64_t	 hhead, htail, hcap;
};
#define DQBUF		(256u << 10)	/* deferred text buffer */

/*
 * The process, pid and tid text of the threads whose events were written
 * last, by thread index modulo TCACHE: made when an event needs it, not
 * kept for every thread of the trace.
 */
#define TCACHE		256
struct hput {
	const struct trace *t;
	struct buf	 pre;		/* record prefix */
	struct tcache {
		uint32_t	 ti;
		int		 ok;
		struct buf	 b;
	}		 tc[TCACHE];
};

static const struct buf *
thrtext(struct hput *hp, uint32_t ti)
{
	struct tcache *c = &hp->tc[ti % TCACHE];

	if (!c->ok || c->ti != ti) {
		const struct thr *th = &hp->t->th[ti];

		c->b.len = 0;
		rec_out_thread(&c->b, th->pi >= 0 ? hp->t->pr[th->pi].name : NULL,
		    th->pid, th->tid);
		c->ti = ti;
		c->ok = 1;
	}
	return &c->b;
}

/*
 * One host record into b.  The leaf value is left out when it is not
 * known yet: its position in b is returned, else SIZE_MAX.
 */
static size_t
fmt_host(struct hput *hp, struct buf *b, int64_t origin,
    const struct pend *e)
{
	const struct shdr *h = (const void *)e->rec;
	const char *s = rtext(h);
	const struct buf *tt = thrtext(hp, (uint32_t)e->ti);
	struct hout o;

	o.pre = hp->pre.p;
	o.npre = hp->pre.len;
	o.srcn = (int64_t)h->off;
	o.name = s;
	o.nname = h->nname;
	s += h->nname;
	o.cat = h->flags & F_CAT ? s : NULL;
	o.ncat = h->flags & F_CAT ? h->ncat : 0;
	s += h->ncat;
	o.thr = tt->p;
	o.nthr = tt->len;
	o.start = h->start - origin;
	o.dur = h->dur;
	o.depth = e->depth;
	o.leaf = e->resolved ? e->leaf != 0 : -1;
	o.frame.kind = !(h->flags & F_STACK) ? KV_ABSENT : h->flags & F_FRAME ? KV_STR : KV_NULL;
	o.frame.s = s;
	o.frame.n = h->flags & F_FRAME ? h->nframe : 0;
	o.hask = e->hask;
	o.kns = e->kns - origin;
	return rec_out_host(b, &o);
}

/* The memory slot of an event leaves the queue. */
static void
hq_free1(struct hq *q, struct pend *e)
{
	q->bytes -= rlen((const void *)e->rec);
	if (e->cap > 4096) {
		free(e->rec);
		e->rec = NULL;
		e->cap = 0;
	}
}

/* The oldest event in memory to the deferred text. */
static void
hq_evict(struct trace *t, struct hq *q, struct hput *hp, int64_t origin)
{
	struct pend *e = &q->q[q->mhead & (q->cap - 1)];
	size_t at = fmt_host(hp, &q->fb, origin, e);

	if (at != SIZE_MAX) {
		struct hole *h;

		if (q->htail - q->hhead == q->hcap) {
			uint64_t nc = q->hcap ? q->hcap * 2 : 16;
			struct hole *nh = xreallocarray(NULL, nc, sizeof *nh);

			for (uint64_t i = q->hhead; i < q->htail; i++)
				nh[i & (nc - 1)] = q->h[i & (q->hcap - 1)];
			free(q->h);
			q->h = nh;
			q->hcap = nc;
		}
		h = &q->h[q->htail++ & (q->hcap - 1)];
		h->seq = q->mhead;
		h->off = q->fend + at;
		h->end = e->end;
		h->mark = e->mark;
		h->resolved = 0;
		h->leaf = 0;
	}
	hq_free1(q, e);
	q->mhead++;
	if (q->fb.len >= DQBUF) {
		if (q->fd < 0)
			q->fd = tr_tmpfd(t);
		tr_pwall(t, q->fd, q->fb.p, q->fb.len, (int64_t)q->fend);
		q->fend += q->fb.len;
		q->fb.len = 0;
	}
}

/* The deferred text up to lim, out. */
static void
hq_emit(struct trace *t, FILE *fp, struct hq *q, uint64_t lim)
{
	struct buf *b = &t->ob;

	while (q->rpos < lim) {
		size_t n;
		char *d;

		if (q->rpos < q->fend) {
			uint64_t k = (lim < q->fend ? lim : q->fend) - q->rpos;
			size_t got = 0;

			n = k > OUTBUF ? OUTBUF : (size_t)k;
			d = wpos(b, n);
			while (got < n) {
				ssize_t r = pread(q->fd, d + got, n - got,
				    (off_t)(q->rpos + got));

				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					die("spill file: %s", r < 0 ?
					    strerror(errno) : "unexpected end");
				got += (size_t)r;
			}
		} else {
			n = (size_t)(lim - q->rpos);
			d = wpos(b, n);
			memcpy(d, q->fb.p + (q->rpos - q->fend), n);
		}
		b->len += n;
		q->rpos += n;
		wflush(b, fp, OUTBUF);
	}
}

/* Write what is resolved, or can no longer get a child at now. */
static void
hq_drain(struct trace *t, FILE *fp, struct hq *q, struct hput *hp,
    int64_t origin, int64_t now)
{
	struct buf *b = &t->ob;
	char *d;

	while (q->hhead < q->htail) {
		struct hole *h = &q->h[q->hhead & (q->hcap - 1)];

		hq_emit(t, fp, q, h->off);
		if (!h->resolved) {
			if (h->end > now)
				return;
			h->leaf = !h->mark;
			h->resolved = 1;
		}
		d = wpos(b, 8);
		if (h->leaf)
			LIT(d, "true");
		else
			LIT(d, "false");
		wend(b, d);
		q->hhead++;
	}
	if (q->rpos || q->fend || q->fb.len) {
		hq_emit(t, fp, q, q->fend + q->fb.len);
		q->rpos = q->fend = 0;
		q->fb.len = 0;
	}
	while (q->mhead < q->tail) {
		struct pend *e = &q->q[q->mhead & (q->cap - 1)];

		if (!e->resolved) {
			if (e->end > now)
				break;
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		fmt_host(hp, b, origin, e);
		wflush(b, fp, OUTBUF);
		hq_free1(q, e);
		q->mhead++;
	}
}

/*
 * The hole of event seq, else NULL (its leaf value was known when it
 * left memory, or is written).  Holes are made in seq order.
 */
static struct hole *
hq_hole(struct hq *q, uint64_t seq)
{
	uint64_t lo = q->hhead, hi = q->htail;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (q->h[mid & (q->hcap - 1)].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < q->htail && q->h[lo & (q->hcap - 1)].seq == seq)
		return &q->h[lo & (q->hcap - 1)];
	return NULL;
}

/* nest's verdict: a queued event, or one waiting in a hole, is context. */
static void
hq_ctx(void *arg, uint64_t id)
{
	struct hq *q = arg;

	if (id < q->mhead) {
		struct hole *h = hq_hole(q, id);

		if (h != NULL && !h->resolved) {
			h->leaf = 0;
			h->resolved = 1;
		}
	} else if (id >= q->mhead && id < q->tail && !q->q[id & (q->cap - 1)].resolved) {
		q->q[id & (q->cap - 1)].leaf = 0;
		q->q[id & (q->cap - 1)].resolved = 1;
	}
}

/*
 * The nest state of the threads with an event that may still be open,
 * found by thread index through slot (index + 1, 0: none), and swept
 * when their number doubles: the memory follows the threads with an
 * open event, not every thread the trace had.
 */
struct live {
	struct lthr {
		struct nest_thr	 nt;
		uint32_t	 ti;
	}		*a;
	uint32_t	*slot;
	size_t		 n, cap, lim;
};

static void
live_sweep(struct live *l, int64_t now)
{
	size_t k = 0;

	if (l->n < l->lim)
		return;
	for (size_t i = 0; i < l->n; i++) {
		if (nest_idle(&l->a[i].nt, now)) {
			l->slot[l->a[i].ti] = 0;
			continue;
		}
		l->a[k] = l->a[i];
		l->slot[l->a[k].ti] = (uint32_t)k + 1;
		k++;
	}
	l->n = k;
	l->lim = k * 2 > 1024 ? k * 2 : 1024;
}

/* The nest state of thread ti, made when it has none. */
static struct nest_thr *
live_get(struct live *l, uint32_t ti)
{
	if (l->slot[ti] == 0) {
		if (l->n == l->cap) {
			l->cap = l->cap ? l->cap * 2 : 1024;
			l->a = xreallocarray(l->a, l->cap, sizeof *l->a);
		}
		memset(&l->a[l->n], 0, sizeof l->a[l->n]);
		l->a[l->n].ti = ti;
		l->slot[ti] = (uint32_t)++l->n;
	}
	return &l->a[l->slot[ti] - 1].nt;
}

void
trace_put_host(struct trace *t, FILE *fp, const char *profile, int64_t origin)
{
	struct live lv = { NULL, NULL, 0, 0, 1024 };
	struct mrg m;
	struct rdr *r;
	struct hq q;
	struct hput hp;
	struct fmrg lm;
	const struct lk *lp;
	struct lk *win = NULL;
	size_t nwin = 0, cwin = 0;
	int64_t wts = 0;
	int havew = 0;

	lv.slot = xcalloc(t->nth + 1, sizeof *lv.slot);
	memset(&q, 0, sizeof q);
	q.fd = -1;
	q.qbytes = t->runbytes / 16;
	q.qmax = q.qbytes / 256 > 4 ? q.qbytes / 256 : 4;
	t->c.host_linked = 0;
	memset(&hp, 0, sizeof hp);
	hp.t = t;
	recprefix(t, &hp.pre, "host", profile);
	t->ob.len = 0;
	q.cap = 64;
	q.q = xcalloc(q.cap, sizeof *q.q);
	tr_fmrg_open(&lm, &t->lk, 1);
	tr_mrg_open(t, &m, t->hostsets);
	for (;;) {
		r = tr_mrg_top(&m);
		int64_t now = r ? r->start : INT64_MAX;
		int ti = -1, depth = 0;

		if (r) {
			ti = (int)r->h->ti;
			if (t->th[ti].role != T_HOST) {
				tr_mrg_pop(&m);
				continue;
			}
			/* before the drain: what this event makes context is
			 * known, and can go out */
			live_sweep(&lv, now);
			depth = nest_add(live_get(&lv, (uint32_t)ti), now,
			    now + r->dur, q.tail, hq_ctx, &q);
		}
		hq_drain(t, fp, &q, &hp, origin, now);
		if (!r)
			break;
		if (q.tail - q.mhead == q.cap) {
			struct pend *nq = xcalloc(q.cap * 2, sizeof *nq);

			for (uint64_t sq = q.mhead; sq < q.mhead + q.cap; sq++)
				nq[sq & (q.cap * 2 - 1)] = q.q[sq & (q.cap - 1)];
			free(q.q);
			q.q = nq;
			q.cap *= 2;
		}
		struct pend *e = &q.q[q.tail & (q.cap - 1)];
		size_t n = rlen(r->h);
		int64_t dur = r->dur;

		if (n > e->cap) {
			free(e->rec);
			e->cap = (n + 63) & ~(size_t)63;
			e->rec = xmalloc(e->cap);
		}
		memcpy(e->rec, r->h, n);
		q.bytes += n;
		e->start = now;
		e->end = now + dur;
		e->mark = (r->h->flags & F_MARK) != 0;
		e->ti = ti;
		e->resolved = 0;
		e->leaf = 0;
		e->depth = depth;
		if (dur <= 0) {
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		/* linked kernel: s end at exactly this (thread, ts) */
		if (!havew || now != wts) {
			nwin = 0;
			while ((lp = tr_fmrg_top(&lm)) != NULL && lp->ts < now)
				tr_fmrg_pop(&lm);
			while ((lp = tr_fmrg_top(&lm)) != NULL && lp->ts == now) {
				if (nwin == cwin) {
					cwin = cwin ? cwin * 2 : 16;
					win = xreallocarray(win, cwin,
					    sizeof *win);
				}
				win[nwin++] = *lp;
				tr_fmrg_pop(&lm);
			}
			wts = now;
			havew = 1;
		}
		e->hask = 0;
		for (size_t j = 0; j < nwin; j++) {
			if (win[j].ti == (uint32_t)ti) {
				e->hask = 1;
				t->c.host_linked++;
				e->kns = win[j].kts;
				break;
			}
		}
		q.tail++;
		tr_mrg_pop(&m);
		/* memory bounded: the oldest events to the deferred text */
		while (q.mhead < q.tail &&
		    (q.tail - q.mhead > q.qmax || q.bytes > q.qbytes))
			hq_evict(t, &q, &hp, origin);
	}
	tr_mrg_close(&m);
	tr_fmrg_close(&lm);
	wflush(&t->ob, fp, 0);
	free(win);
	for (uint64_t i = 0; i < q.cap; i++)
		free(q.q[i].rec);
	free(q.q);
	free(q.h);
	buf_free(&q.fb);
	if (q.fd >= 0)
		close(q.fd);
	for (size_t i = 0; i < lv.n; i++)
		nest_free(&lv.a[i].nt);
	free(lv.a);
	free(lv.slot);
	buf_free(&hp.pre);
	for (int i = 0; i < TCACHE; i++)
		buf_free(&hp.tc[i].b);
}

void
trace_close(struct trace *t)
{
	if (t == NULL)
		return;
	if (t->fd > 0)
		close(t->fd);
	for (int s = 0; s < NSET; s++) {
		for (int i = 0; i < t->nruns[s]; i++)
			close(t->runs[s][i].fd);
		free(t->runs[s]);
	}
	tr_frs_free(&t->fs);
	tr_frs_free(&t->ff);
	tr_frs_free(&t->lk);
	for (size_t i = 0; i < t->npr; i++)
		free(t->pr[i].name);
	for (size_t i = 0; i < t->ntname; i++)
		free(t->tname[i]);
	free(t->tname);
	warns_free(&t->w);
	free(t->pr);
	free(t->th);
	free(t->hpr.slot);
	free(t->hth.slot);
	if (t->mm) {
		if (t->b)
			munmap(t->b, t->len);
	} else
		free(t->b);
	free(t->blk);
	free(t->map2);
	tr_frs_free(&t->mk);
	tr_frs_free(&t->mko);
	tr_frs_free(&t->ct);
	buf_free(&t->mka);
	buf_free(&t->sc);
	buf_free(&t->sc2);
	buf_free(&t->sc3);
	buf_free(&t->sc4);
	buf_free(&t->ob);
	free(t->path);
	free(t->disp);
	free(t->tmpdir);
	free(t->pattern);
	free(t);
}

/* A rank, size or stream: null when the task had none (-1). */
static void
ctnum(struct buf *b, const char *k, int64_t v)
{
	if (v < 0)
		out_cstr(b, k, NULL);
	else
		out_i64(b, k, v);
}

static void
cttext(struct buf *b, const char *k, const char *s, size_t n)
{
	size_t m = strnlen(s, n);

	if (m == 0)
		out_cstr(b, k, NULL);
	else {
		out_key(b, k);
		out_esc(b, s, m);
	}
}

/*
 * A record by put for each task of the HCCL tasks' store on a thread of
 * a process in the given role (R_COMM: HCCL tasks; R_HW: the device's
 * Notify Wait and SDMA tasks), in start order, then file order.
 */
void
tr_put_ctasks(struct trace *t, FILE *fp, int role, const char *profile,
    int64_t origin, tr_ctput *put)
{
	struct buf *b = &t->ob;
	struct fmrg mg;
	const struct ctask *c;

	tr_frs_sort(&t->ct);
	tr_fmrg_open(&mg, &t->ct, 1);
	for (; (c = tr_fmrg_top(&mg)) != NULL; tr_fmrg_pop(&mg)) {
		const struct thr *th = &t->th[c->ti];

		if (th->pi < 0 || t->pr[th->pi].role != role)
			continue;
		b->len = 0;
		put(t, b, c, profile, origin);
		rec_put(b, fp);
	}
	tr_fmrg_close(&mg);
}

static void
commtask(struct trace *t, struct buf *b, const struct ctask *c,
    const char *profile, int64_t origin)
{
	out_begin(b, "comm_task");
	out_cstr(b, "profile", profile);
	tr_putsrc(t, b, c->off);
	out_cstr(b, "op", NULL);
	out_cstr(b, "group", NULL);
	cttext(b, "task_type", c->ttype, sizeof c->ttype);
	out_i64(b, "start_ns", c->start - origin);
	out_i64(b, "dur_ns", c->dur);
	out_i64(b, "end_ns", c->start - origin + c->dur);
	ctnum(b, "src_rank", c->src);
	ctnum(b, "dst_rank", c->dst);
	ctnum(b, "bytes", c->bytes);
	cttext(b, "transport", c->trans, sizeof c->trans);
	out_cstr(b, "plane", tr_thrname(t, &t->th[c->ti]));
	ctnum(b, "stream", c->stream);
	cttext(b, "notify_id", c->notify, sizeof c->notify);
}

void
trace_put_comm_tasks(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	tr_put_ctasks(t, fp, R_COMM, profile, origin, commtask);
}
