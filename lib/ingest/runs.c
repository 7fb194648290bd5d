/* runs: external sorts of the timeline reader. */
#include "cmp.h"
#include "trace_int.h"

/* ---------- spill runs ---------- */

static int
ixcmp(const void *a, const void *b)
{
	const struct ridx *x = a, *y = b;

	return rcmp(x->start, x->dur, x->off, y->start, y->dur, y->off);
}

/* Stable LSD radix sort of a[0..n) by start (tmp: n entries), then an
 * insertion sort of equal starts by the full order. */
static void
radixix(struct ridx *a, size_t n, struct ridx *tmp)
{
	size_t cnt[2048], i;
	struct ridx *src = a, *dst = tmp, *x;
	int64_t mn = INT64_MAX, mx = INT64_MIN;
	uint64_t range;

	for (i = 0; i < n; i++) {
		if (a[i].start < mn)
			mn = a[i].start;
		if (a[i].start > mx)
			mx = a[i].start;
	}
	range = (uint64_t)mx - (uint64_t)mn;
	for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[(((uint64_t)src[i].start - (uint64_t)mn) >> sh) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(((uint64_t)src[i].start - (uint64_t)mn) >> sh) &
			    2047]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	for (i = 1; i < n; i++) {
		if (a[i].start != a[i - 1].start || ixcmp(&a[i - 1], &a[i]) <= 0)
			continue;
		struct ridx v = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1].start == v.start &&
		    ixcmp(&a[j - 1], &v) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/*
 * Sort a[0..n) by (start asc, dur desc, off asc); tmp has room for n.
 * Events come nearly in order (a thread writes an event when it ends,
 * so a parent follows its children; a few threads interleave): the
 * entries in order are kept in place, the others set aside in tmp,
 * sorted the same way (with a[m..n) as their spare room), and the two
 * merged from the back.  Deep recursion falls back to a radix sort.
 */
static void
sortrange(struct ridx *a, size_t n, struct ridx *tmp, int depth)
{
	size_t m = 1, s = 0, i, j, k;

	if (n < 2)
		return;
	if (depth > 8 || n < 16) {
		if (n < 16) {
			for (i = 1; i < n; i++) {
				struct ridx v = a[i];

				for (j = i; j > 0 && ixcmp(&a[j - 1], &v) > 0; j--)
					a[j] = a[j - 1];
				a[j] = v;
			}
		} else
			radixix(a, n, tmp);
		return;
	}
	for (i = 1; i < n; i++) {
		if (ixcmp(&a[m - 1], &a[i]) <= 0)
			a[m++] = a[i];
		else
			tmp[s++] = a[i];
	}
	if (s == 0)
		return;
	sortrange(tmp, s, a + m, depth + 1);
	/* merge a[0..m) and tmp[0..s) into a[0..n), from the back */
	i = m;
	j = s;
	k = n;
	while (j > 0) {
		if (i > 0 && ixcmp(&a[i - 1], &tmp[j - 1]) > 0)
			a[--k] = a[--i];
		else
			a[--k] = tmp[--j];
	}
}

/* The index entries at the top of the block, newest first. */
static struct ridx *
ixtop(const struct trace *t)
{
	return (struct ridx *)(void *)(t->blk + t->blkcap);
}

/*
 * Sort the run index: grouped by set (each set is its own run), each
 * group in start order.  The sorted index is built in the free room
 * between the records and the index (tr_spill() keeps room for it); the
 * index itself is the scratch space of the sort.
 */
static struct ridx *
sortix(struct trace *t)
{
	size_t n = t->nix, cnt[NSET + 1] = { 0 }, pos[NSET];
	struct ridx *a = ixtop(t) - n;
	struct ridx *b = (struct ridx *)(void *)(t->blk + t->alen);

	for (size_t i = 0; i < n; i++)
		cnt[IXSET(&a[i]) + 1]++;
	for (int s = 0; s < NSET; s++) {
		cnt[s + 1] += cnt[s];
		pos[s] = cnt[s];
	}
	for (size_t i = n; i-- > 0;)	/* oldest first */
		b[pos[IXSET(&a[i])]++] = a[i];
	for (int s = 0; s < NSET; s++)
		sortrange(b + cnt[s], cnt[s + 1] - cnt[s], a + cnt[s], 0);
	return b;
}

/* An unlinked temporary file for spill data. */
int
tr_tmpfd(struct trace *t)
{
	struct buf p = { 0 };
	int fd;

	buf_adds(&p, t->tmpdir);
	buf_adds(&p, "/asc-trace-XXXXXX");
	buf_addc(&p, 0);
	if ((fd = mkstemp(p.p)) < 0)
		dieerr("%s", p.p);
	unlink(p.p);
	buf_free(&p);
	return fd;
}

void
tr_pwall(struct trace *t, int fd, const void *p, size_t n, int64_t off)
{
	const char *s = p;

	while (n) {
		ssize_t k = off < 0 ? write(fd, s, n) : pwrite(fd, s, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			dieerr("%s: spill file", t->tmpdir);
		s += k;
		n -= (size_t)k;
		if (off >= 0)
			off += k;
	}
}

void
tr_wall(struct trace *t, int fd, const void *p, size_t n)
{
	tr_pwall(t, fd, p, n, -1);
}

void
tr_addrun(struct trace *t, int set, int fd, uint64_t n)
{
	t->runs[set] = xreallocarray(t->runs[set], (size_t)t->nruns[set] + 1,
	    sizeof *t->runs[set]);
	t->runs[set][t->nruns[set]].fd = fd;
	t->runs[set][t->nruns[set]].n = n;
	t->runs[set][t->nruns[set]].map = NULL;
	t->nruns[set]++;
}


/* Gathered writes of arena records to one run file. */
#define IOVN		1024	/* IOV_MAX: a run is written in few calls */
struct wv {
	int		 fd;
	int		 n;
	struct iovec	 v[IOVN];
};

static void
wv_flush(struct trace *t, struct wv *w)
{
	struct iovec *v = w->v;
	int n = w->n;

	while (n > 0) {
		ssize_t k = writev(w->fd, v, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			dieerr("%s: spill file", t->tmpdir);
		while (n > 0 && (size_t)k >= v->iov_len) {
			k -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + k;
			v->iov_len -= (size_t)k;
		}
	}
	w->n = 0;
}

static void
wv_add(struct trace *t, struct wv *w, const void *p, size_t len)
{
	if (w->n && (const char *)w->v[w->n - 1].iov_base +
	    w->v[w->n - 1].iov_len == (const char *)p) {
		w->v[w->n - 1].iov_len += len;	/* next in the arena */
		return;
	}
	if (w->n == IOVN)
		wv_flush(t, w);
	w->v[w->n].iov_base = (void *)(uintptr_t)p;
	w->v[w->n].iov_len = len;
	w->n++;
}

void
tr_flushrun(struct trace *t)
{
	struct wv *w[NSET] = { NULL };
	uint64_t n[NSET] = { 0 };
	const struct ridx *ix;

	if (t->nix == 0)
		return;
	ix = sortix(t);
	for (size_t i = 0; i < t->nix; i++) {
		const struct ridx *x = &ix[i];
		const struct shdr *h = (const void *)(t->blk + x->pos);
		int s = IXSET(x);
		size_t len = x->set & ~(uint32_t)7;

		if (w[s] == NULL) {
			w[s] = xcalloc(1, sizeof *w[s]);
			w[s]->fd = tr_tmpfd(t);
		}
		wv_add(t, w[s], h, len ? len : rlen(h));
		n[s]++;
	}
	for (int s = 0; s < NSET; s++) {
		if (w[s]) {
			wv_flush(t, w[s]);
			tr_addrun(t, s, w[s]->fd, n[s]);
			free(w[s]);
			if (t->nruns[s] >= MAXRUNS)
				tr_consolidate(t, s);
		}
	}
	t->nix = 0;
	t->alen = 0;
}

/* Append one record (header, stream and task id, text) to the run. */
void
tr_spill(struct trace *t, int set, const struct shdr *h, int64_t stream,
    int64_t taskid, const char *name, const char *cat, const char *frame,
    const char *ttype)
{
	size_t len = rlen(h), pos;
	struct ridx *x;

	/* room for the record, its index entry and the sorted index */
	if (t->nix && (t->alen + len + (t->nix + 1) * 2 * sizeof *x >
	    t->blkcap || t->alen + len > UINT32_MAX))
		tr_flushrun(t);
	if (t->nix == 0) {
		/* run_bytes, or more for a record larger than that */
		size_t want = t->runbytes & ~(size_t)7;

		if (len + 2 * sizeof *x > want)
			want = len + 2 * sizeof *x;
		if (want != t->blkcap) {
			free(t->blk);
			t->blk = NULL;
			t->blkcap = want;
		}
	}
	if (t->blk == NULL)
		t->blk = xmalloc(t->blkcap);
	pos = t->alen;			/* records keep 8-byte alignment */
	{
		char *d = t->blk + pos, *e = d + len;
		const char *hs = (const char *)h;

		/* word by word: a small memcpy here became rep movs */
		for (size_t i = 0; i < sizeof *h; i += 8)
			memcpy(d + i, hs + i, 8);
		d += sizeof *h;
		if (h->flags & F_STREAM) {
			memcpy(d, &stream, 8);
			d += 8;
		}
		if (h->flags & F_TASKID) {
			memcpy(d, &taskid, 8);
			d += 8;
		}
		memcpy(d, name, h->nname);
		d += h->nname;
		memcpy(d, cat, h->ncat);
		d += h->ncat;
		memcpy(d, frame, h->nframe);
		d += h->nframe;
		memcpy(d, ttype, h->nttype);
		d += h->nttype;
		memset(d, 0, (size_t)(e - d));
	}
	t->alen = pos + len;
	x = ixtop(t) - 1 - t->nix;
	x->start = h->start;
	x->dur = h->dur;
	x->off = h->off;
	x->pos = (uint32_t)pos;
	x->set = (uint32_t)set | (len < ((size_t)1 << 32) ?
	    (uint32_t)len : 0);
	t->nix++;
}

/* At least n bytes of the current record in the buffer. */
static void
rd_need(struct rdr *r, size_t n)
{
	if (r->len - r->pos >= n)
		return;
	memmove(r->b, r->b + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	if (n > r->cap) {
		r->cap = (n + RDMIN) & ~(size_t)7;
		r->b = xrealloc(r->b, r->cap);
	}
	while (r->len < n) {
		ssize_t k = read(r->fd, r->b + r->len, r->cap - r->len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			die("spill file: %s", k < 0 ? strerror(errno) :
			    "unexpected end");
		r->len += (size_t)k;
	}
}

static int
rd_next(struct rdr *r)
{
	const struct shdr *h;
	size_t n;

	if (r->left == 0)
		return 0;
	r->left--;
	rd_need(r, sizeof *h);
	h = (const void *)(r->b + r->pos);
	n = rlen(h);
	if (r->len - r->pos < n) {
		rd_need(r, n);
		h = (const void *)(r->b + r->pos);
	}
	if (r->map)
		((struct shdr *)(void *)(r->b + r->pos))->ti = r->map[h->ti];
	r->pos += n;
	r->h = h;
	r->start = h->start;
	r->dur = h->dur;
	r->off = h->off;
	return 1;
}

/*
 * The one heap of both merges: run indices hp[0..nh), the least on top by
 * less(ctx, a, b).  Inlined with a constant less, so each merge gets its
 * own sift with its comparison inside.
 */
static inline __attribute__((always_inline)) void
heap_sift(int *hp, int nh, int i, int (*less)(const void *, int, int), const void *ctx)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i, tmp;

		if (l < nh && less(ctx, hp[l], hp[s]))
			s = l;
		if (r < nh && less(ctx, hp[r], hp[s]))
			s = r;
		if (s == i)
			return;
		tmp = hp[i];
		hp[i] = hp[s];
		hp[s] = tmp;
		i = s;
	}
}

/* Spilled events: start order, the longer first, then file order. */
static inline int
hless(const void *ctx, int a, int b)
{
	const struct mrg *m = ctx;
	const struct rdr *x = &m->r[a], *y = &m->r[b];

	if (x->start != y->start)
		return x->start < y->start;
	if (x->dur != y->dur)
		return x->dur > y->dur;
	return x->off < y->off;
}

static void
siftdown(struct mrg *m, int i)
{
	heap_sift(m->hp, m->nh, i, hless, m);
}

/* The buffer of each of n readers sharing total bytes, in [lo, hi]. */
static size_t
rdsize(size_t total, size_t n, size_t lo, size_t hi)
{
	size_t k = n ? total / n : hi;

	k = k < lo ? lo : k > hi ? hi : k;
	return k & ~(size_t)7;
}

void
tr_mrg_open(struct trace *t, struct mrg *m, unsigned mask)
{
	int n = 0;
	size_t bsz;

	for (int s = 0; s < NSET; s++)
		if (mask & (1u << s))
			n += t->nruns[s];
	bsz = rdsize(RDTOTAL, (size_t)n, RDMIN, RDBUF);
	m->r = xcalloc((size_t)n + 1, sizeof *m->r);
	m->hp = xcalloc((size_t)n + 1, sizeof *m->hp);
	m->n = m->nh = 0;
	for (int s = 0; s < NSET; s++) {
		if (!(mask & (1u << s)))
			continue;
		for (int i = 0; i < t->nruns[s]; i++) {
			struct rdr *r = &m->r[m->n];

			r->fd = t->runs[s][i].fd;
			if (lseek(r->fd, 0, SEEK_SET) < 0)
				dieerr("spill file");
			r->left = t->runs[s][i].n;
			r->map = t->runs[s][i].map;
			r->cap = bsz;
			r->b = xmalloc(r->cap);
			if (rd_next(r))
				m->hp[m->nh++] = m->n;
			m->n++;
		}
	}
	for (int i = m->nh / 2 - 1; i >= 0; i--)
		siftdown(m, i);
}

struct rdr *
tr_mrg_top(struct mrg *m)
{
	return m->nh ? &m->r[m->hp[0]] : NULL;
}

void
tr_mrg_pop(struct mrg *m)
{
	if (!rd_next(&m->r[m->hp[0]]))
		m->hp[0] = m->hp[--m->nh];
	siftdown(m, 0);
}

void
tr_mrg_close(struct mrg *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->r[i].b);
	free(m->r);
	free(m->hp);
	memset(m, 0, sizeof *m);
}

/* Merge all runs of a set into one, to bound open files and readers. */
void
tr_consolidate(struct trace *t, int set)
{
	struct mrg m;
	struct rdr *r;
	int fd = tr_tmpfd(t);
	uint64_t n = 0;
	char *wb = xmalloc(WRBUF);
	size_t wl = 0;

	tr_mrg_open(t, &m, 1u << set);
	while ((r = tr_mrg_top(&m)) != NULL) {
		size_t len = rlen(r->h);

		if (wl + len > WRBUF) {
			tr_wall(t, fd, wb, wl);
			wl = 0;
		}
		if (len > WRBUF)
			tr_wall(t, fd, r->h, len);
		else {
			memcpy(wb + wl, r->h, len);
			wl += len;
		}
		n++;
		tr_mrg_pop(&m);
	}
	tr_wall(t, fd, wb, wl);
	free(wb);
	tr_mrg_close(&m);
	for (int i = 0; i < t->nruns[set]; i++)
		close(t->runs[set][i].fd);
	t->nruns[set] = 0;
	tr_addrun(t, set, fd, n);
}

/* ---------- sorted runs of fixed-size records ---------- */

#define FRBUF		(64u << 10)	/* reader buffer, at most */
#define FRMIN		(4u << 10)	/* reader buffer, at least */
#define FRTOTAL		((size_t)2 << 20)	/* all readers of one merge */
#define FMAXRUNS	64

void
tr_frs_init(struct frs *f, size_t rsz, size_t bytes,
    int (*cmp)(const void *, const void *), int sgn)
{
	if (rsz > FRSMAX)	/* the sorts and the join copy one record aside */
		abort();
	memset(f, 0, sizeof *f);
	f->rsz = rsz;
	f->cap = bytes / rsz;
	if (f->cap < 64)
		f->cap = 64;
	f->cmp = cmp;
	f->sgn = sgn;
	f->fd = -1;
}

void
tr_frs_free(struct frs *f)
{
	free(f->m);
	f->m = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->runs);
	f->runs = NULL;
	f->n = 0;
	f->nruns = 0;
}

_Static_assert(offsetof(struct fl, id) == 0 && offsetof(struct lk, ts) == 0 &&
    offsetof(struct marker, start) == 0, "first keys of sorted records");

/* The first key of a record, in unsigned order. */
static uint64_t
frs_key(const struct frs *f, const char *r)
{
	uint64_t k;

	memcpy(&k, r, sizeof k);
	return f->sgn ? k ^ (1ULL << 63) : k;
}

/* Stable LSD radix sort of m by the first key, then an insertion sort
 * of equal first keys by cmp. */
static void
frs_radix(struct frs *f)
{
	size_t n = f->n, sz = f->rsz, cnt[2048], i;
	char *tmp = xreallocarray(NULL, n, sz), *src = f->m, *dst = tmp, *x;
	uint64_t mn = UINT64_MAX, mx = 0, range;
	char v[FRSMAX];

	for (i = 0; i < n; i++) {
		uint64_t k = frs_key(f, src + i * sz);

		if (k < mn)
			mn = k;
		if (k > mx)
			mx = k;
	}
	range = mx - mn;
	for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[((frs_key(f, src + i * sz) - mn) >> sh) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			memcpy(dst + sz * cnt[((frs_key(f, src + i * sz) - mn) >>
			    sh) & 2047]++, src + i * sz, sz);
		x = src;
		src = dst;
		dst = x;
	}
	if (src != f->m)
		memcpy(f->m, src, n * sz);
	free(tmp);
	x = f->m;
	for (i = 1; i < n; i++) {
		size_t j = i;
		uint64_t k = frs_key(f, x + i * sz);

		if (k != frs_key(f, x + (i - 1) * sz) ||
		    f->cmp(x + (i - 1) * sz, x + i * sz) <= 0)
			continue;
		memcpy(v, x + i * sz, sz);
		while (j > 0 && frs_key(f, x + (j - 1) * sz) == k &&
		    f->cmp(x + (j - 1) * sz, v) > 0)
			j--;
		memmove(x + (j + 1) * sz, x + j * sz, (i - j) * sz);
		memcpy(x + j * sz, v, sz);
	}
}

/* Sort m: insertion sort while it is cheap (input nearly in order),
 * else a radix sort. */
void
tr_frs_sort(struct frs *f)
{
	size_t n = f->n, sz = f->rsz, moved = 0, i;
	char *a = f->m, x[FRSMAX];

	for (i = 1; i < n; i++) {
		size_t j = i;

		if (f->cmp(a + (i - 1) * sz, a + i * sz) <= 0)
			continue;
		memcpy(x, a + i * sz, sz);
		while (j > 0 && f->cmp(a + (j - 1) * sz, x) > 0)
			j--;
		memmove(a + (j + 1) * sz, a + j * sz, (i - j) * sz);
		memcpy(a + j * sz, x, sz);
		moved += i - j;
		if (moved > 4 * n + 4096) {
			frs_radix(f);
			return;
		}
	}
}


static void
frs_writerun(struct trace *t, struct frs *f, const void *p, uint64_t n)
{
	if (f->fd < 0)
		f->fd = tr_tmpfd(t);
	tr_wall(t, f->fd, p, (size_t)n * f->rsz);
	f->runs = xreallocarray(f->runs, (size_t)f->nruns + 1, sizeof *f->runs);
	f->runs[f->nruns].off = f->end;
	f->runs[f->nruns].n = n;
	f->nruns++;
	f->end += n * f->rsz;
}

/* Merge every run (not m) into one in a new file. */
static void
frs_consolidate(struct trace *t, struct frs *f)
{
	struct fmrg m;
	struct frs g = *f;
	const void *r;
	char *wb = xmalloc(f->rsz * 4096);
	size_t wn = 0;

	g.n = 0;
	g.fd = -1;
	g.end = 0;
	g.runs = NULL;
	g.nruns = 0;
	tr_fmrg_open(&m, f, 0);
	while ((r = tr_fmrg_top(&m)) != NULL) {
		memcpy(wb + wn * f->rsz, r, f->rsz);
		if (++wn == 4096) {
			if (g.fd < 0)
				g.fd = tr_tmpfd(t);
			tr_wall(t, g.fd, wb, wn * f->rsz);
			g.end += wn * f->rsz;
			wn = 0;
		}
		tr_fmrg_pop(&m);
	}
	tr_fmrg_close(&m);
	if (g.fd < 0)
		g.fd = tr_tmpfd(t);
	tr_wall(t, g.fd, wb, wn * f->rsz);
	g.end += wn * f->rsz;
	free(wb);
	close(f->fd);
	free(f->runs);
	f->fd = g.fd;
	f->end = g.end;
	f->runs = xcalloc(1, sizeof *f->runs);
	f->runs[0].off = 0;
	f->runs[0].n = g.end / f->rsz;
	f->nruns = 1;
}

void
tr_frs_add(struct trace *t, struct frs *f, const void *rec)
{
	if (f->n == f->cap) {
		tr_frs_sort(f);
		frs_writerun(t, f, f->m, f->n);
		f->n = 0;
		if (f->nruns >= FMAXRUNS)
			frs_consolidate(t, f);
	}
	if (f->m == NULL)
		f->m = xreallocarray(NULL, f->cap, f->rsz);
	memcpy(f->m + f->n * f->rsz, rec, f->rsz);
	f->n++;
}

static int
fs_next(struct fmrg *m, struct fsrc *s)
{
	if (s->left == 0)
		return 0;
	s->left--;
	if (s->mp) {
		s->cur = s->mp;
		s->mp += m->rsz;
		return 1;
	}
	if (s->bpos == s->blen) {
		uint64_t n = s->left + 1;
		size_t want, got = 0;

		if (n > s->bcap / m->rsz)
			n = s->bcap / m->rsz;
		want = (size_t)n * m->rsz;
		while (got < want) {
			ssize_t k = pread(s->fd, s->b + got, want - got,
			    (off_t)s->off);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				die("spill file: %s", k < 0 ? strerror(errno) :
				    "unexpected end");
			got += (size_t)k;
			s->off += (uint64_t)k;
		}
		s->bpos = 0;
		s->blen = want;
	}
	s->cur = s->b + s->bpos;
	s->bpos += m->rsz;
	return 1;
}

static inline int
fless(const void *ctx, int a, int b)
{
	const struct fmrg *m = ctx;

	return m->cmp(m->s[a].cur, m->s[b].cur) < 0;
}

static void
fsift(struct fmrg *m, int i)
{
	heap_sift(m->hp, m->nh, i, fless, m);
}

/* Merge the runs of f, and its sorted m when withmem. */
void
tr_fmrg_open(struct fmrg *m, struct frs *f, int withmem)
{
	int n = f->nruns + 1;
	size_t bsz = rdsize(FRTOTAL, (size_t)f->nruns, FRMIN, FRBUF);

	bsz -= bsz % f->rsz;
	m->s = xcalloc((size_t)n, sizeof *m->s);
	m->hp = xcalloc((size_t)n, sizeof *m->hp);
	m->n = m->nh = 0;
	m->cmp = f->cmp;
	m->rsz = f->rsz;
	for (int i = 0; i < f->nruns; i++) {
		struct fsrc *s = &m->s[m->n];

		s->fd = f->fd;
		s->off = f->runs[i].off;
		s->left = f->runs[i].n;
		s->bcap = bsz;
		s->b = xmalloc(bsz);
		if (fs_next(m, s))
			m->hp[m->nh++] = m->n;
		m->n++;
	}
	if (withmem && f->n) {
		struct fsrc *s = &m->s[m->n];

		s->mp = f->m;
		s->left = f->n;
		if (fs_next(m, s))
			m->hp[m->nh++] = m->n;
		m->n++;
	}
	for (int i = m->nh / 2 - 1; i >= 0; i--)
		fsift(m, i);
}

const void *
tr_fmrg_top(struct fmrg *m)
{
	return m->nh ? m->s[m->hp[0]].cur : NULL;
}

void
tr_fmrg_pop(struct fmrg *m)
{
	if (!fs_next(m, &m->s[m->hp[0]]))
		m->hp[0] = m->hp[--m->nh];
	fsift(m, 0);
}

void
tr_fmrg_close(struct fmrg *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->s[i].b);
	free(m->s);
	free(m->hp);
	memset(m, 0, sizeof *m);
}

/* ---------- the runs of a reader ---------- */

/* Markers by start, longer first, then file order. */
int
tr_mkcmp(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	return rcmp(x->start, x->dur, x->off, y->start, y->dur, y->off);
}

/* Flow ends by (id, kind, ts): the first of an id is its earliest. */
CMP_FN(tr_flcmp, struct fl, CMP_4(id, kind, ts, ti))

/* HCCL tasks in start order, then file order. */
CMP_FN(tr_ctcmp, struct ctask, CMP_2(start, off))

/* Links in host pass order: (ts, thread, kernel ts). */
CMP_FN(tr_lkcmp, struct lk, CMP_3(ts, ti, kts))

/* The empty sorted-run state of a reader (or of a split half). */
void
tr_sortstate_init(struct trace *t, size_t chunk)
{
	t->lastth = -1;
	t->chunk = chunk;
	tr_span_empty(&t->span);
	tr_frs_init(&t->fs, sizeof(struct fl), t->runbytes / 32, tr_flcmp, 0);
	tr_frs_init(&t->ff, sizeof(struct fl), t->runbytes / 32, tr_flcmp, 0);
	tr_frs_init(&t->lk, sizeof(struct lk), t->runbytes / 8, tr_lkcmp, 1);
	tr_frs_init(&t->mk, sizeof(struct marker), t->runbytes / 64, tr_mkcmp, 1);
	tr_frs_init(&t->mko, sizeof(struct marker), t->runbytes / 64, tr_mkcmp, 1);
	tr_frs_init(&t->ct, sizeof(struct ctask), t->runbytes / 64, tr_ctcmp, 1);
}
