/* split: reading a timeline on two threads. */
#include "trace_int.h"

/* ---------- reading on two threads ---------- */

/*
 * A file of at least splitmin bytes is read by two threads: the second
 * from a guessed event start S past the middle (",{\"" after a "}"), the
 * first from the start.  When the first reaches S as the start of an
 * event, the guess is confirmed and the second thread's state (threads,
 * processes, runs, markers, flows, counts, warnings) is joined as if the
 * first had read on; events keep their file offsets, which order equal
 * starts, so the result is the sequential one.  If the first passes S
 * otherwise, or the second fails, the second's work is dropped and the
 * first reads on alone (and reports any error itself).
 */
struct split {
	pthread_t	 th;
	struct trace	*u;		/* the second reader */
	struct rdst	 rs;		/* its state at the end */
	tr_readfn	*readloop;	/* trace.c's, given by tr_split_start() */
	int		 r;		/* its readloop() result */
	_Atomic int	 cancel;
};

static void *
splitmain(void *a)
{
	struct split *sp = a;
	struct trace *u = sp->u;

	sp->r = sp->readloop(u, &sp->rs);
	if (sp->r == 0) {
		tr_flushrun(u);
		free(u->blk);
		u->blk = NULL;
	}
	return NULL;
}

/* Offset of a likely event start ('{' after "}," and before '"') at
 * or past from, or 0. */
static uint64_t
splitguess(struct trace *t, uint64_t from)
{
	size_t bsz = 1u << 20;
	char *b = xmalloc(bsz);
	uint64_t o = from, found = 0;

	while (found == 0 && o < t->fsize && o - from < SPLITSCAN) {
		ssize_t k = pread(t->fd, b, bsz, (off_t)o);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (size_t i = 0; i + 1 < (size_t)k; i++) {
			size_t j = i;

			if (b[i] != '{' || b[i + 1] != '"')
				continue;
			while (j > 0 && js_isws((unsigned char)b[j - 1]))
				j--;
			if (j == 0 || b[j - 1] != ',')
				continue;
			j--;
			while (j > 0 && js_isws((unsigned char)b[j - 1]))
				j--;
			if (j == 0 || b[j - 1] != '}')
				continue;
			found = o + i;
			break;
		}
		if ((size_t)k < bsz)
			break;
		o += (uint64_t)k - 256;	/* overlap the whitespace before */
	}
	free(b);
	return found;
}

void
tr_split_start(struct trace *t, tr_readfn *readloop)
{
	char h[64];
	ssize_t k = pread(t->fd, h, sizeof h, 0);
	size_t i = 0;
	int inobj;
	uint64_t s;
	struct trace *u;
	struct split *sp;

	if (k <= 0)
		return;
	if (k >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < (size_t)k && js_isws((unsigned char)h[i]))
		i++;
	if (i == (size_t)k || (h[i] != '[' && h[i] != '{'))
		return;
	inobj = h[i] == '{';
	if ((s = splitguess(t, t->fsize / 2)) == 0)
		return;
	u = xcalloc(1, sizeof *u);
	u->w.max = t->w.max;
	if ((u->fd = dup(t->fd)) < 0)
		dieerr("%s", t->disp);
	u->path = xstrdup(t->path);
	u->disp = xstrdup(t->disp);
	u->tmpdir = xstrdup(t->tmpdir);
	if (t->pattern) {
		u->pattern = xstrdup(t->pattern);
		u->npattern = t->npattern;
	}
	u->runbytes = t->runbytes / 2 < 1024 ? 1024 : t->runbytes / 2;
	tr_sortstate_init(u, t->chunk);
	u->mm = 1;
	u->fsize = t->fsize;
	u->win = t->win;
	u->maxev = t->maxev;
	u->boff = s;
	u->nomsg = 1;
	sp = xcalloc(1, sizeof *sp);
	atomic_init(&sp->cancel, 0);
	u->cancel = &sp->cancel;
	sp->u = u;
	sp->readloop = readloop;
	sp->rs.st = ST_ARRELEM;
	sp->rs.inobj = inobj;
	sp->rs.sawarr = inobj;	/* it is in the traceEvents array */
	if (pthread_create(&sp->th, NULL, splitmain, sp) != 0) {
		trace_close(u);
		free(sp);
		return;
	}
	t->sp = sp;
	t->split = s;
}

/* Stop the second thread and drop its work. */
void
tr_split_drop(struct trace *t)
{
	struct split *sp = t->sp;

	t->split = 0;
	if (sp == NULL)
		return;
	atomic_store(&sp->cancel, 1);
	pthread_join(sp->th, NULL);
	t->splitres = -1;
	trace_close(sp->u);
	free(sp);
	t->sp = NULL;
}

/* Add the second reader's fixed-size records, thread indices mapped. */
static void
splitfrs(struct trace *t, struct frs *dst, struct frs *src, const uint32_t *map,
    size_t tioff, uint64_t mkbase)
{
	struct fmrg m;
	const char *r;
	char x[FRSMAX];

	tr_frs_sort(src);
	tr_fmrg_open(&m, src, 1);
	for (; (r = tr_fmrg_top(&m)) != NULL; tr_fmrg_pop(&m)) {
		memcpy(x, r, src->rsz);
		if (map) {
			uint32_t ti;

			memcpy(&ti, x + tioff, 4);
			ti = map[ti];
			memcpy(x + tioff, &ti, 4);
		}
		if (mkbase && ((struct marker *)(void *)x)->nd == MKLONG) {
			uint64_t ao;

			memcpy(&ao, ((struct marker *)(void *)x)->dig, 8);
			ao += mkbase;
			memcpy(((struct marker *)(void *)x)->dig, &ao, 8);
		}
		tr_frs_add(t, dst, x);
	}
	tr_fmrg_close(&m);
}

/*
 * At the second thread's start: wait for it, and take its results as
 * if read here.  0 joined (rs is the state at the end), -1 dropped.
 */
int
tr_split_join(struct trace *t, struct rdst *rs)
{
	struct split *sp = t->sp;
	struct trace *u = sp->u;
	uint32_t *map;
	uint64_t mkbase;
	size_t n1, nnew = 0;

	t->split = 0;
	tr_flushrun(t);		/* while the second thread may still run */
	pthread_join(sp->th, NULL);
	if (sp->r != 0) {
		t->splitres = -1;
		trace_close(u);
		free(sp);
		t->sp = NULL;
		return -1;
	}
	for (size_t i = 0; i < u->npr; i++) {
		struct proc *q = &u->pr[i], *p;
		int pi = tr_getproc(t, q->pid, 1);

		p = &t->pr[pi];
		if (q->name) {
			free(p->name);
			p->name = q->name;
			q->name = NULL;
		}
		if (q->dev != -2)
			p->dev = q->dev;
		if (q->cpu)
			p->cpu = 1;
	}
	/*
	 * u's threads: those new to t take the next indices, in u's order;
	 * then u's table is merged into t's from its end, and shrunk as it
	 * goes, so that with millions of threads the two tables are not
	 * held whole at once.
	 */
	free(u->hth.slot);
	u->hth = (struct pidtab){ 0 };
	map = xreallocarray(NULL, u->nth + 1, sizeof *map);
	n1 = t->nth;
	for (size_t i = 0; i < u->nth; i++) {
		int ti = tr_getthr(t, u->th[i].pid, u->th[i].tid, 0);

		map[i] = ti >= 0 ? (uint32_t)ti : (uint32_t)(n1 + nnew++);
	}
	tr_thrroom(t, n1 + nnew);
	for (size_t i = u->nth; i-- > 0;) {
		struct thr *q = &u->th[i], *h = &t->th[map[i]];

		if (map[i] >= n1)
			tr_thrinit(h, q->pid, q->tid);
		if (i % 65536 == 0 && i > 0)
			u->th = xreallocarray(u->th, i + 1, sizeof *u->th);
		q = &u->th[i];
		if (q->name) {
			tr_setthrname(t, h, u->tname[q->name - 1]);
			u->tname[q->name - 1] = NULL;
		}
		h->seen |= q->seen;
		h->stack |= q->stack;
		h->sets |= q->sets;
		h->nx += q->nx;
		h->nct += q->nct;
		if (q->minx < h->minx)
			h->minx = q->minx;
		if (q->maxx > h->maxx)
			h->maxx = q->maxx;
	}
	free(u->th);
	u->th = NULL;
	u->nth = u->cth = 0;
	t->nth = n1 + nnew;
	tr_thrindex(t, n1);
	tr_newgen(t);
	for (int s = 0; s < NSET; s++) {
		for (int i = 0; i < u->nruns[s]; i++) {
			tr_addrun(t, s, u->runs[s][i].fd, u->runs[s][i].n);
			t->runs[s][t->nruns[s] - 1].map = map;
		}
		u->nruns[s] = 0;
		if (t->nruns[s] >= MAXRUNS)
			tr_consolidate(t, s);
	}
	mkbase = t->mka.len;
	if (u->mka.len)
		buf_add(&t->mka, u->mka.p, u->mka.len);
	splitfrs(t, &t->mk, &u->mk, map, offsetof(struct marker, ti), mkbase);
	splitfrs(t, &t->fs, &u->fs, map, offsetof(struct fl, ti), 0);
	splitfrs(t, &t->ff, &u->ff, NULL, 0, 0);
	splitfrs(t, &t->ct, &u->ct, map, offsetof(struct ctask, ti), 0);
	t->c.events += u->c.events;
	t->c.x_events += u->c.x_events;
	t->c.input_dims += u->c.input_dims;
	t->c.meta += u->c.meta;
	t->c.flows += u->c.flows;
	t->c.counters += u->c.counters;
	t->c.other += u->c.other;
	warns_move(&t->w, &u->w);
	free(t->map2);
	t->map2 = map;
	*rs = sp->rs;
	t->splitres = 1;
	trace_close(u);
	free(sp);
	t->sp = NULL;
	return 0;
}
