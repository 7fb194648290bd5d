/*
 * asc-comm: communication diagnosed from its HCCL tasks.  Per profile,
 * each communication op instance (a COMMUNICATION kernel) gets the
 * comm_task records that start inside it, and its elapsed time is split
 * exactly, in ns, into moving data, waiting per peer rank and the rest
 * (asc-comm(1) gives the rule for overlapping tasks).  Writes, at the end
 * of each profile's records: "comm_group" (size and members of each
 * group), "comm_op" (per op instance) and "comm_peer" (per step, group
 * and peer).  Every record passes through.
 */
#define _GNU_SOURCE		/* strcasestr */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

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

enum { C_REST, C_WAIT, C_MOVE };

struct task {
	int64_t		 start, end, peer, src, bytes;
	int		 cls;
	char		*op;		/* the op's name when the source gives it */
	long		 oi;		/* op index, -1 none */
};

struct op {
	char		*name, *step;
	int64_t		 start, end;
	const struct cop *rec;		/* its comm record, or NULL */
};

/* A comm record: group, kind and communication.json's own figures. */
struct cop {
	char		*name, *group, *kind;
	int64_t		 elapse, wait, transit;	/* ns, -1 unknown */
};

struct link {
	char		*group;
	int64_t		 a, b;
	double		 mb;
};

struct iv {
	int64_t		 s, e;
};

/* A step's span: from its first kernel's start to its last one's end. */
struct stb {
	char		*step;
	int64_t		 s, e;
};

/* One peer's wait in one op: attributed (the parts add up to the op's
 * wait), and its own (any Notify_Wait on it running, whatever else runs:
 * concurrent waits on several peers each count), with the parts of both
 * not under compute. */
struct pw {
	int64_t		 peer, ns, exposed, own, ownex;
};

static struct {
	char		*profile;	/* raw JSON of the "profile" value */
	int64_t		 rank;		/* profiler_info's rank, -1 */
	int		 have;
	struct op	*op;
	size_t		 nop, cop;
	struct task	*t;
	size_t		 nt, ct;
	struct cop	*cr;
	size_t		 ncr, ccr;
	struct link	*lk;
	size_t		 nlk, clk;
	struct iv	*cu;		/* compute kernel intervals */
	size_t		 ncu, ccu;
	struct stb	*sb;		/* each step's first and last kernel */
	size_t		 nsb, csb;
	struct iv	*eg;		/* embedding-gradient kernels */
	size_t		 neg, ceg;
	struct iv	*nw;		/* device Notify Wait tasks (Level0) */
	size_t		 nnw, cnw;
	struct iv	*mv;		/* device SDMA tasks (Level0): data moving */
	size_t		 nmv, cmv;
	char		*nwsrc;		/* where they came from */
	char		*tsrc;		/* where the tasks came from */
	char		*groups;	/* the metadata record's "groups" (raw JSON), NULL */
	int		 meta;		/* 0: no metadata record, 1: one without the file, 2: with it */
	int64_t		 maxop;		/* the longest op */
} S;

/* A named group of profiler_metadata.json's parallel_group_info (the
 * metadata record of asc-ingest). */
struct named {
	char		*name;
	int		 n;		/* its global ranks */
	int64_t		*gr;		/* the global ranks, n of them */
	int		 taken;
};

/* A comm group matched to a named group: its global ranks, in the
 * group's own order (local rank k is gr[k]). */
static struct gmap {
	char		*group;
	int64_t		*gr;
	int		 n;
} *GM;
static size_t ngm, cgm;

/* What an op does, by its name (and the comm record's kind). */
static const char *const opkinds[] = { "send/recv", "reduce-scatter", "all-gather",
	"all-reduce", "all-to-all", "broadcast", "other" };
enum { NOPKIND = sizeof opkinds / sizeof opkinds[0] };

static int
opkind(const char *name, const char *kind)
{
	if ((kind && strcmp(kind, "p2p") == 0) || strcasestr(name, "send") || strcasestr(name, "receive") ||
	    strcasestr(name, "recv"))
		return 0;
	if (strcasestr(name, "reducescatter"))
		return 1;
	if (strcasestr(name, "allgather"))
		return 2;
	if (strcasestr(name, "allreduce"))
		return 3;
	if (strcasestr(name, "alltoall"))
		return 4;
	if (strcasestr(name, "broadcast"))
		return 5;
	return 6;
}

/* What the capture says of a comm group, to find its role. */
struct gev {
	const char	*group;
	int64_t		 size;
	int		 p2p, rs_ag, ar;	/* send/recv, reduce-scatter or
					   all-gather, all-reduce ops */
	long		 nk[NOPKIND];	/* comm records of each opkinds[] */
	double		 maxmb;		/* largest link transfer (MB) */
	char		*role;
	const char	*from;
	int64_t		 elapsed, exposed;	/* exposed -1: no kernels */
	long		 ops;
	int64_t		 gradgap, gradcu;	/* -1: no embedding gradient
						   before its ops */
};

/* The last embedding-gradient kernel's end before t, or -1. */
static int64_t
gradend(int64_t t)
{
	int64_t e = -1;

	for (size_t i = 0; i < S.neg; i++)
		if (S.eg[i].e <= t && S.eg[i].e > e)
			e = S.eg[i].e;
	return e;
}

static struct buf ob, tmp;

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-m maxline] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

#define PUSH(a, n, c) do { if ((n) == (c)) { (c) = (c) ? 2 * (c) : 64; \
	(a) = xreallocarray((a), (c), sizeof *(a)); } } while (0)

static char *
strf(const struct rin *r, const char *k)
{
	const struct rfield *f = rin_get(r, k);

	if (f == NULL || rf_str(f, &tmp) != 0)
		return NULL;
	return xstrndup(tmp.p, tmp.len);
}

static int64_t
intf(const struct rin *r, const char *k)
{
	int64_t v;

	return rin_i64(r, k, &v) == 0 ? v : -1;
}

/* A millisecond number of a comm record as exact ns, or -1. */
static int64_t
msf(const struct rin *r, const char *k)
{
	const struct rfield *f = rin_get(r, k);
	int64_t v;

	if (f == NULL || rf_isnull(f) || dec_parse(f->v, f->vlen, 6, &v) != 0)
		return -1;
	return v;
}

/* HCCL task types that move data; Notify_Wait waits; the rest signal. */
static int
taskclass(const char *tt)
{
	if (tt == NULL)
		return C_REST;
	if (strcmp(tt, "Notify_Wait") == 0)
		return C_WAIT;
	if (strstr(tt, "Memcpy") || strstr(tt, "Reduce") || strstr(tt, "RDMA") ||
	    strstr(tt, "Write") || strstr(tt, "Read"))
		return C_MOVE;
	return C_REST;
}

static void
clear(void)
{
	for (size_t i = 0; i < S.nop; i++)
		free(S.op[i].name), free(S.op[i].step);
	for (size_t i = 0; i < S.nt; i++)
		free(S.t[i].op);
	for (size_t i = 0; i < S.ncr; i++)
		free(S.cr[i].name), free(S.cr[i].group), free(S.cr[i].kind);
	for (size_t i = 0; i < S.nlk; i++)
		free(S.lk[i].group);
	for (size_t i = 0; i < S.nsb; i++)
		free(S.sb[i].step);
	S.nsb = 0;
	for (size_t i = 0; i < ngm; i++)
		free(GM[i].group), free(GM[i].gr);
	ngm = 0;
	free(S.profile);
	free(S.tsrc);
	free(S.groups);
	free(S.nwsrc);
	S.profile = S.tsrc = S.groups = S.nwsrc = NULL;
	S.meta = 0;
	S.nop = S.nt = S.ncr = S.nlk = S.ncu = S.nnw = S.nmv = 0;
	S.maxop = 0;
	S.have = 0;
	S.rank = -1;
}

static int
ivcmp(const void *a, const void *b)
{
	const struct iv *x = a, *y = b;

	return x->s < y->s ? -1 : x->s > y->s;
}

static int
i64cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static int
opcmp(const void *a, const void *b)
{
	const struct op *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

static int
taskcmp(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end < y->end ? -1 : x->end > y->end;
}

/* Sort and merge intervals into a disjoint union; returns its count. */
static size_t
mergeiv(struct iv *v, size_t n)
{
	size_t k = 0;

	sortv(v, n, sizeof *v, ivcmp);
	for (size_t i = 0; i < n; i++) {
		if (k && v[i].s <= v[k - 1].e) {
			if (v[i].e > v[k - 1].e)
				v[k - 1].e = v[i].e;
		} else
			v[k++] = v[i];
	}
	return k;
}

static void
mergecu(void)
{
	S.ncu = mergeiv(S.cu, S.ncu);
}

/* Nanoseconds of [s, e) covered by the disjoint sorted intervals v. */
static int64_t
covered(const struct iv *v, size_t nv, int64_t s, int64_t e)
{
	size_t lo = 0, hi = nv;
	int64_t n = 0;

	while (lo < hi) {	/* the first interval ending after s */
		size_t m = (lo + hi) / 2;

		if (v[m].e <= s)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i < nv && v[i].s < e; i++) {
		int64_t a = v[i].s > s ? v[i].s : s;
		int64_t b = v[i].e < e ? v[i].e : e;

		if (b > a)
			n += b - a;
	}
	return n;
}

/* Nanoseconds of [s, e) under compute. */
static int64_t
undercompute(int64_t s, int64_t e)
{
	return covered(S.cu, S.ncu, s, e);
}

static const struct cop *
findcop(const char *name)
{
	for (size_t i = 0; i < S.ncr; i++)
		if (strcmp(S.cr[i].name, name) == 0)
			return &S.cr[i];
	return NULL;
}

/* The op a task belongs to: the latest-starting op that holds its start,
 * one of the same name first when the task names its op. */
static long
ownerop(const struct task *t)
{
	long best = -1, named = -1;
	size_t lo = 0, hi = S.nop;

	while (lo < hi) {	/* ops starting at or before the task */
		size_t m = (lo + hi) / 2;

		if (S.op[m].start <= t->start)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; i-- > 0;) {
		const struct op *o = &S.op[i];

		if (t->start - o->start > S.maxop)	/* no earlier op reaches it */
			break;
		if (t->start < o->end || (o->start == o->end && t->start == o->start)) {
			if (best < 0)
				best = (long)i;
			if (t->op && named < 0 && strcmp(t->op, o->name) == 0)
				named = (long)i;
		}
		if (lo - i > 64 && best >= 0)
			break;
	}
	return named >= 0 ? named : best;
}

static struct pw *
getpw(struct pw **a, size_t *n, size_t *c, int64_t peer)
{
	for (size_t i = 0; i < *n; i++)
		if ((*a)[i].peer == peer)
			return &(*a)[i];
	PUSH(*a, *n, *c);
	(*a)[*n] = (struct pw){ peer, 0, 0, 0, 0 };
	return &(*a)[(*n)++];
}

static int
pwcmp(const void *a, const void *b)
{
	const struct pw *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	if (x->own != y->own)
		return x->own > y->own ? -1 : 1;
	return x->peer < y->peer ? -1 : x->peer > y->peer;
}

static void
putpeers(struct buf *b, const char *k, struct pw *p, size_t n)
{
	sortv(p, n, sizeof *p, pwcmp);
	out_key(b, k);
	buf_addc(b, '[');
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		buf_adds(b, "{\"rank\":");
		if (p[i].peer < 0)
			buf_adds(b, "null");
		else
			out_int(b, p[i].peer);
		out_nsms(b, "wait", p[i].ns);
		out_nsms(b, "exposed_wait", p[i].exposed);
		out_nsms(b, "own_wait", p[i].own);
		out_nsms(b, "own_exposed_wait", p[i].ownex);
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
}

/* The split of one op: tasks ts[0..n) sorted by start, clipped to it. */
struct split {
	int64_t		 move, wait, rest, bytes, exposed, exwait;
	struct pw	*pw;
	size_t		 npw, cpw;
};

static void
splitop(const struct op *o, struct task **ts, size_t n, struct split *sp)
{
	int64_t *bd = xreallocarray(NULL, 2 * n + 2, sizeof *bd);
	struct task **act = xreallocarray(NULL, n + 1, sizeof *act);
	size_t nb = 0, na = 0, next = 0;

	bd[nb++] = o->start;
	bd[nb++] = o->end;
	for (size_t i = 0; i < n; i++) {
		int64_t s = ts[i]->start < o->start ? o->start : ts[i]->start;
		int64_t e = ts[i]->end > o->end ? o->end : ts[i]->end;

		if (s < e) {
			bd[nb++] = s;
			bd[nb++] = e;
		}
		if (ts[i]->cls == C_MOVE && ts[i]->bytes > 0)
			sp->bytes += ts[i]->bytes;
	}
	sortv(bd, nb, sizeof *bd, i64cmp);
	for (size_t i = 0; i + 1 < nb; i++) {
		int64_t a = bd[i], b = bd[i + 1], under;
		const struct task *w = NULL;
		int move = 0;

		if (a >= b || a < o->start || b > o->end)
			continue;
		/* the tasks active over [a, b) */
		for (size_t j = 0; j < na;)
			if (act[j]->end <= a)
				act[j] = act[--na];
			else
				j++;
		while (next < n && ts[next]->start <= a) {
			if (ts[next]->end > a)
				act[na++] = ts[next];
			next++;
		}
		for (size_t j = 0; j < na; j++) {
			if (act[j]->cls == C_MOVE)
				move = 1;
			else if (act[j]->cls == C_WAIT && (w == NULL ||
			    act[j]->end > w->end || (act[j]->end == w->end &&
			    (unsigned long long)act[j]->peer < (unsigned long long)w->peer)))
				w = act[j];
		}
		under = undercompute(a, b);
		sp->exposed += b - a - under;
		for (size_t j = 0; j < na; j++) {	/* each waited peer once */
			size_t k;

			if (act[j]->cls != C_WAIT)
				continue;
			for (k = 0; k < j && !(act[k]->cls == C_WAIT && act[k]->peer == act[j]->peer); k++)
				;
			if (k == j) {
				struct pw *p = getpw(&sp->pw, &sp->npw, &sp->cpw, act[j]->peer);

				p->own += b - a;
				p->ownex += b - a - under;
			}
		}
		if (move)
			sp->move += b - a;
		else if (w) {
			struct pw *p = getpw(&sp->pw, &sp->npw, &sp->cpw, w->peer);

			sp->wait += b - a;
			sp->exwait += b - a - under;
			p->ns += b - a;
			p->exposed += b - a - under;
		} else
			sp->rest += b - a;
	}
	free(bd);
	free(act);
}

/* A step's waits per group and peer, for comm_peer. */
struct sp {
	const char	*step, *group;
	int64_t		 peer, ns, exposed, own, ownex;
	long		 ops;
};

static void
putsplitnums(struct buf *b, const struct op *o, const struct split *s)
{
	out_nsms(b, "elapsed", o->end - o->start);
	out_nsms(b, "exposed", s->exposed);
	out_nsms(b, "transfer", s->move);
	out_nsms(b, "wait", s->wait);
	out_nsms(b, "exposed_wait", s->exwait);
	out_nsms(b, "rest", s->rest);
	out_i64(b, "transfer_bytes", s->bytes);
	/* bytes per ns is GB/s */
	if (s->move > 0)
		out_dec(b, "transfer_gbps", s->bytes * 1000 / s->move, 3);
	else
		out_null(b, "transfer_gbps");
}

static void
putcheck(struct buf *b, const struct op *o, const struct split *s)
{
	const struct cop *c = o->rec;

	out_key(b, "comm_json");
	if (c == NULL) {
		buf_adds(b, "null");
		return;
	}
	buf_adds(b, "{\"elapse_ns\":");
	if (c->elapse < 0)
		buf_adds(b, "null");
	else
		out_int(b, c->elapse);
	if (c->wait < 0)
		out_null(b, "wait_ns");
	else
		out_i64(b, "wait_ns", c->wait);
	if (c->transit < 0)
		out_null(b, "transit_ns");
	else
		out_i64(b, "transit_ns", c->transit);
	/* theirs less ours: communication.json counts the first wait and
	 * sums transit over links */
	if (c->wait < 0)
		out_null(b, "wait_minus_tasks_ns");
	else
		out_i64(b, "wait_minus_tasks_ns", c->wait - s->wait);
	if (c->transit < 0)
		out_null(b, "transit_minus_tasks_ns");
	else
		out_i64(b, "transit_minus_tasks_ns", c->transit - s->move);
	buf_addc(b, '}');
}

/* The group's members from communication_matrix links, as local ranks. */
static size_t
members(const char *group, int64_t *m, size_t cap)
{
	size_t n = 0;

	for (size_t i = 0; i < S.nlk; i++) {
		int64_t v[2] = { S.lk[i].a, S.lk[i].b };

		if (group == NULL || S.lk[i].group == NULL || strcmp(group, S.lk[i].group) != 0)
			continue;
		for (int j = 0; j < 2; j++) {
			size_t k;

			if (v[j] < 0)
				continue;
			for (k = 0; k < n && m[k] != v[j]; k++)
				;
			if (k == n && n < cap)
				m[n++] = v[j];
		}
	}
	if (n == 0)	/* no matrix: the ranks the group's tasks name */
		for (size_t i = 0; i < S.nt; i++) {
			const struct op *o = S.t[i].oi >= 0 ? &S.op[S.t[i].oi] : NULL;
			int64_t v[2] = { S.t[i].src, S.t[i].peer };

			if (o == NULL || o->rec == NULL || o->rec->group == NULL ||
			    group == NULL || strcmp(o->rec->group, group) != 0)
				continue;
			for (int j = 0; j < 2; j++) {
				size_t k;

				if (v[j] < 0)
					continue;
				for (k = 0; k < n && m[k] != v[j]; k++)
					;
				if (k == n && n < cap)
					m[n++] = v[j];
			}
		}
	for (size_t i = 1; i < n; i++)	/* insertion sort: small */
		for (size_t j = i; j > 0 && m[j - 1] > m[j]; j--) {
			int64_t x = m[j];

			m[j] = m[j - 1];
			m[j - 1] = x;
		}
	return n;
}

static int
haslinks(const char *group)
{
	for (size_t i = 0; i < S.nlk; i++)
		if (S.lk[i].group && strcmp(S.lk[i].group, group) == 0)
			return 1;
	return 0;
}

static int
spcmp(const void *a, const void *b)
{
	const struct sp *x = a, *y = b;
	int c = strcmp(x->step ? x->step : "", y->step ? y->step : "");

	if (c)
		return c;
	if (x->ns != y->ns)
		return x->ns > y->ns ? -1 : 1;
	return x->peer < y->peer ? -1 : x->peer > y->peer;
}

/* The metadata record's groups (parallel_group_info): names and global
 * ranks. */
static size_t
readnamed(struct named *nm, size_t cap)
{
	jv pg;
	size_t n = 0;

	if (S.groups == NULL)
		return 0;
	pg = jv_parse_sized(S.groups, (int)strlen(S.groups));
	if (jv_get_kind(pg) != JV_KIND_ARRAY) {
		jv_free(pg);
		return 0;
	}
	jv_array_foreach(pg, gi, v) {
		int isobj = jv_get_kind(v) == JV_KIND_OBJECT;
		jv gn = isobj ? jv_object_get(jv_copy(v), jv_string("name")) : jv_invalid();
		jv gr = isobj ? jv_object_get(jv_copy(v), jv_string("global_ranks")) : jv_invalid();

		if (n < cap && jv_get_kind(gn) == JV_KIND_STRING && jv_get_kind(gr) == JV_KIND_ARRAY) {
			nm[n].name = xstrdup(jv_string_value(gn));
			nm[n].n = jv_array_length(jv_copy(gr));
			nm[n].gr = xcalloc((size_t)nm[n].n + 1, sizeof *nm[n].gr);
			for (int q = 0; q < nm[n].n; q++) {
				jv x = jv_array_get(jv_copy(gr), q);

				nm[n].gr[q] = jv_get_kind(x) == JV_KIND_NUMBER ? (int64_t)jv_number_value(x) : -1;
				jv_free(x);
			}
			nm[n].taken = 0;
			n++;
		}
		jv_free(gn);
		jv_free(gr);
		jv_free(v);
	}
	jv_free(pg);
	return n;
}

/* The first named group of n ranks, not yet taken, whose name starts
 * with pre ("" any); its index or -1. */
static int
pick(struct named *nm, size_t nn, int64_t n, const char *pre)
{
	for (size_t i = 0; i < nn; i++)
		if (!nm[i].taken && nm[i].n == n && strncmp(nm[i].name, pre, strlen(pre)) == 0)
			return (int)i;
	return -1;
}

static void
take(struct gev *g, struct named *nm, int i, const char *from)
{
	if (i < 0 || g->role)
		return;
	nm[i].taken = 1;
	g->role = xstrdup(nm[i].name);
	g->from = from;
	PUSH(GM, ngm, cgm);
	GM[ngm].group = xstrdup(g->group);
	GM[ngm].n = nm[i].n;
	GM[ngm].gr = xcalloc((size_t)nm[i].n + 1, sizeof *GM[ngm].gr);
	memcpy(GM[ngm].gr, nm[i].gr, (size_t)nm[i].n * sizeof *GM[ngm].gr);
	ngm++;
}

static const struct gmap *
findgm(const char *group)
{
	for (size_t i = 0; group && i < ngm; i++)
		if (strcmp(GM[i].group, group) == 0)
			return &GM[i];
	return NULL;
}

/*
 * Each comm group's role, from the named groups of its size, strongest
 * evidence first: send/recv is the pipeline (pp); reduce-scatter /
 * all-gather is data parallel (dp*); a 1-rank group does nothing across
 * ranks; a size only one name has; an all-reduce moving at least 1 MB on
 * a link is gradients (embd, then dp*), a smaller one scalars (mp).
 */
static void
roles(struct gev *g, size_t ng)
{
	struct named nm[256];
	size_t nn = readnamed(nm, sizeof nm / sizeof nm[0]);

	for (size_t i = 0; i < ng; i++)
		if (g[i].p2p)
			take(&g[i], nm, pick(nm, nn, g[i].size, "pp"), "send/recv on a group of the size of parallel_group_info's pp");
	for (size_t i = 0; i < ng; i++)
		if (g[i].rs_ag)
			take(&g[i], nm, pick(nm, nn, g[i].size, "dp"), "reduce-scatter / all-gather on a group of the size of parallel_group_info's dp");
	for (size_t i = 0; i < ng; i++)
		if (g[i].size == 1) {
			int k = pick(nm, nn, 1, "tp");

			take(&g[i], nm, k >= 0 ? k : pick(nm, nn, 1, ""), "1 rank: does nothing across ranks");
		}
	for (size_t i = 0; i < ng; i++) {
		int k = pick(nm, nn, g[i].size, ""), k2 = -1;

		for (size_t j = 0; k >= 0 && j < nn; j++)
			if ((int)j != k && !nm[j].taken && nm[j].n == g[i].size)
				k2 = (int)j;
		if (k >= 0 && k2 < 0)
			take(&g[i], nm, k, "the only name of parallel_group_info with this many ranks");
	}
	for (size_t i = 0; i < ng; i++)
		if (g[i].ar && g[i].maxmb >= 1) {
			int k = pick(nm, nn, g[i].size, "embd");

			take(&g[i], nm, k >= 0 ? k : pick(nm, nn, g[i].size, "dp"),
			    "all-reduce of at least 1 MB per link (gradients) on a group of that size");
		} else if (g[i].ar)
			take(&g[i], nm, pick(nm, nn, g[i].size, "mp"), "all-reduce of under 1 MB per link (scalars) on a group of that size");
	for (size_t i = 0; i < nn; i++)
		free(nm[i].name), free(nm[i].gr);
	if (nn == 0)
		for (size_t i = 0; i < ng; i++)
			g[i].from = S.meta == 0 ? "no metadata record in the input (asc-ingest writes it): no parallel_group_info" :
			    S.meta == 1 ? "no profiler_metadata.json beside the profile: no parallel_group_info" :
			    "no parallel_group_info in profiler_metadata.json";
}

/* The group's global ranks (parallel_group_info) and the others than
 * this profile's rank: its peers; null when no named group matched. */
static void
putglobal(struct buf *b, const char *group)
{
	const struct gmap *m = findgm(group);

	if (m == NULL) {
		out_null(b, "global_ranks");
		out_null(b, "peer_global_ranks");
		return;
	}
	for (int pass = 0; pass < 2; pass++) {
		int n = 0;

		out_key(b, pass ? "peer_global_ranks" : "global_ranks");
		buf_addc(b, '[');
		for (int k = 0; k < m->n; k++) {
			if (pass && m->gr[k] == S.rank)
				continue;
			if (n++)
				buf_addc(b, ',');
			out_int(b, m->gr[k]);
		}
		buf_addc(b, ']');
	}
}

/* "ops_kind": what the group's comm records are, the most first
 * ("3 all-reduce, 1 all-gather"). */
static void
putkinds(struct buf *b, const long *nk)
{
	struct buf t = {0};
	int done[NOPKIND] = {0};

	for (;;) {
		int best = -1;
		char n[32];

		for (int k = 0; k < NOPKIND; k++)
			if (!done[k] && nk[k] > 0 && (best < 0 || nk[k] > nk[best]))
				best = k;
		if (best < 0)
			break;
		done[best] = 1;
		snprintf(n, sizeof n, "%s%ld ", t.len ? ", " : "", nk[best]);
		buf_adds(&t, n);
		buf_adds(&t, opkinds[best]);
	}
	out_cstr(b, "ops_kind", t.p ? t.p : "");
	buf_free(&t);
}

static void
putgroups(void)
{
	int64_t m[4096];
	struct gev *ge = xcalloc(S.ncr + 1, sizeof *ge);
	size_t ng = 0;

	/* the groups and their evidence */
	for (size_t i = 0; i < S.ncr; i++) {
		const struct cop *c = &S.cr[i];
		size_t j;

		if (c->group == NULL)
			continue;
		for (j = 0; j < ng && strcmp(ge[j].group, c->group) != 0; j++)
			;
		if (j == ng) {
			ge[ng].group = c->group;
			ge[ng].size = (int64_t)members(c->group, m, sizeof m / sizeof m[0]);
			ge[ng].gradgap = ge[ng].gradcu = -1;
			for (size_t l = 0; l < S.nlk; l++)
				if (S.lk[l].group && strcmp(S.lk[l].group, c->group) == 0 &&
				    S.lk[l].a != S.lk[l].b && S.lk[l].mb > ge[ng].maxmb)
					ge[ng].maxmb = S.lk[l].mb;
			ng++;
		}
		ge[j].nk[opkind(c->name, c->kind)]++;
		if (c->kind && strcmp(c->kind, "p2p") == 0)
			ge[j].p2p = 1;
		else if (strcasestr(c->name, "reducescatter") || strcasestr(c->name, "allgather"))
			ge[j].rs_ag = 1;
		else if (strcasestr(c->name, "allreduce"))
			ge[j].ar = 1;
	}
	for (size_t i = 0; i < S.nop; i++) {
		const struct cop *c = S.op[i].rec;

		for (size_t j = 0; c && c->group && j < ng; j++)
			if (strcmp(ge[j].group, c->group) == 0) {
				int64_t g0 = gradend(S.op[i].start);

				/* from the embedding gradient to the op: the
				 * compute left to hide the op under */
				if (g0 >= 0 && ge[j].ar) {
					if (ge[j].gradgap < 0)
						ge[j].gradgap = ge[j].gradcu = 0;
					ge[j].gradgap += S.op[i].start - g0;
					ge[j].gradcu += undercompute(g0, S.op[i].start);
				}
				ge[j].elapsed += S.op[i].end - S.op[i].start;
				ge[j].exposed += S.op[i].end - S.op[i].start -
				    undercompute(S.op[i].start, S.op[i].end);
				ge[j].ops++;
			}
	}
	/* no kernels (a rank without a kernel table): the comm records' elapse */
	for (size_t j = 0; j < ng; j++)
		if (ge[j].ops == 0) {
			ge[j].exposed = -1;
			for (size_t i = 0; i < S.ncr; i++)
				if (S.cr[i].group && strcmp(S.cr[i].group, ge[j].group) == 0 &&
				    S.cr[i].elapse >= 0) {
					ge[j].elapsed += S.cr[i].elapse;
					ge[j].ops++;
				}
		}
	roles(ge, ng);

	for (size_t i = 0; i < ng; i++) {
		const char *g = ge[i].group;
		size_t n = members(g, m, sizeof m / sizeof m[0]);

		out_begin(&ob, "comm_group");
		out_raw(&ob, "profile", S.profile, strlen(S.profile));
		out_cstr(&ob, "group", g);
		if (n) {
			out_i64(&ob, "size", (int64_t)n);
			out_cstr(&ob, "size_from", haslinks(g) ? "communication_matrix" : "comm_tasks");
		} else {
			out_null(&ob, "size");
			out_null(&ob, "size_from");
		}
		out_key(&ob, "members");
		buf_addc(&ob, '[');
		for (size_t k = 0; k < n; k++) {
			if (k)
				buf_addc(&ob, ',');
			out_int(&ob, m[k]);
		}
		buf_addc(&ob, ']');
		if (S.rank < 0)
			out_null(&ob, "rank");
		else
			out_i64(&ob, "rank", S.rank);
		out_i64(&ob, "ranks_in_input", 1);
		putglobal(&ob, g);
		out_cstr(&ob, "role", ge[i].role);
		out_cstr(&ob, "role_from", ge[i].from);
		putkinds(&ob, ge[i].nk);
		out_i64(&ob, "ops", ge[i].ops);
		out_nsms(&ob, "elapsed", ge[i].elapsed);
		if (ge[i].exposed < 0) {
			out_null(&ob, "exposed_ns");
			out_null(&ob, "exposed_ms");
		} else
			out_nsms(&ob, "exposed", ge[i].exposed);
		if (ge[i].gradgap >= 0 && ge[i].role && strncmp(ge[i].role, "embd", 4) == 0) {
			out_nsms(&ob, "after_grad", ge[i].gradgap);
			out_nsms(&ob, "after_grad_compute", ge[i].gradcu);
		}
		rec_put(&ob, stdout);
		free(ge[i].role);
	}
	free(ge);
}

/* Whether op o is a send/recv of group g in step st. */
static int
ppop(const struct op *o, const char *g, const char *st)
{
	return o->rec && o->rec->kind && strcmp(o->rec->kind, "p2p") == 0 && o->rec->group &&
	    strcmp(o->rec->group, g) == 0 && o->step && strcmp(o->step, st) == 0;
}

/* One stretch of the step around a group's send/recv ops: its wall time
 * and the part of it no kernel covers (the device idle). */
static void
putseg(const char *after, const char *before, int64_t s, int64_t e, const struct iv *al, size_t nal)
{
	buf_adds(&ob, "{\"after\":");
	if (after)
		out_esc(&ob, after, strlen(after));
	else
		buf_adds(&ob, "null");
	out_cstr(&ob, "before", before);
	out_i64(&ob, "start_ns", s);
	out_i64(&ob, "end_ns", e);
	out_nsms(&ob, "wall", e - s);
	out_nsms(&ob, "idle", e - s - covered(al, nal, s, e));
	buf_addc(&ob, '}');
}

/*
 * "comm_pipeline": per group with send/recv ops and per step, the step cut
 * at those ops (from the step's first kernel to the first op, between
 * ops, from the last op to the step's last kernel) with each stretch's
 * device idle time, to tell idle that the peer stage's work hides from
 * idle it waits for.  S.op sorted by start, their records found.
 */
static void
putpipeline(void)
{
	struct iv *al = xcalloc(S.ncu + S.nop + 1, sizeof *al);
	size_t nal = 0;

	for (size_t i = 0; i < S.ncu; i++)
		al[nal++] = S.cu[i];
	for (size_t i = 0; i < S.nop; i++)
		al[nal++] = (struct iv){ S.op[i].start, S.op[i].end };
	nal = mergeiv(al, nal);
	for (size_t b = 0; b < S.nsb; b++)
		for (size_t i = 0; i < S.nop; i++) {
			const char *g = S.op[i].rec ? S.op[i].rec->group : NULL;
			const char *prev = NULL;
			int64_t t;
			size_t j, n = 0;

			if (g == NULL || !ppop(&S.op[i], g, S.sb[b].step))
				continue;
			for (j = 0; j < i && !ppop(&S.op[j], g, S.sb[b].step); j++)
				;
			if (j < i)	/* not the group's first op in the step */
				continue;
			out_begin(&ob, "comm_pipeline");
			out_raw(&ob, "profile", S.profile, strlen(S.profile));
			out_cstr(&ob, "group", g);
			out_cstr(&ob, "step", S.sb[b].step);
			out_i64(&ob, "start_ns", S.sb[b].s);
			out_i64(&ob, "end_ns", S.sb[b].e);
			out_key(&ob, "segments");
			buf_addc(&ob, '[');
			t = S.sb[b].s;
			for (j = i; j < S.nop; j++) {
				if (!ppop(&S.op[j], g, S.sb[b].step))
					continue;
				if (n++)
					buf_addc(&ob, ',');
				putseg(prev, S.op[j].name, t, S.op[j].start > t ? S.op[j].start : t, al, nal);
				prev = S.op[j].name;
				if (S.op[j].end > t)
					t = S.op[j].end;
			}
			buf_addc(&ob, ',');
			putseg(prev, NULL, t, S.sb[b].e > t ? S.sb[b].e : t, al, nal);
			buf_addc(&ob, ']');
			out_i64(&ob, "ops", (int64_t)n);
			/* the last op to the next op of another multi-rank group
			 * in the step: the end of this stage's last micro-batch */
			out_key(&ob, "to_next_op");
			for (j = 0; j < S.nop; j++) {
				const struct op *o = &S.op[j];
				int64_t mm[2];

				if (o->start >= t && o->rec && o->rec->group && strcmp(o->rec->group, g) != 0 &&
				    o->step && strcmp(o->step, S.sb[b].step) == 0 &&
				    members(o->rec->group, mm, 2) > 1)
					break;
			}
			if (j < S.nop)
				putseg(prev, S.op[j].name, t, S.op[j].start, al, nal);
			else
				buf_adds(&ob, "null");
			rec_put(&ob, stdout);
		}
	free(al);
}

/*
 * The part of the wait [a, b) that moves no data (no SDMA task runs):
 * added to *w, and its part not under compute to *ex.  As with HCCL
 * tasks, time that moves data is moving, not waiting.
 */
static void
waitpart(int64_t a, int64_t b, int64_t *w, int64_t *ex)
{
	size_t lo = 0, hi = S.nmv;
	int64_t x = a;

	while (lo < hi) {	/* the first SDMA stretch ending after a */
		size_t m = (lo + hi) / 2;

		if (S.mv[m].e <= a)
			lo = m + 1;
		else
			hi = m;
	}
	for (size_t i = lo; x < b; i++) {
		int64_t y = i < S.nmv && S.mv[i].s < b ? S.mv[i].s : b;

		if (y > x) {
			*w += y - x;
			*ex += y - x - undercompute(x, y);
		}
		if (i >= S.nmv || S.mv[i].s >= b)
			break;
		x = S.mv[i].e;
	}
}

/*
 * "comm_op_wait": without HCCL tasks (Level0), each op's time as the
 * device's tasks inside it split it: moving data (the union of its SDMA
 * tasks; null when the capture has none), waiting (the union of its
 * Notify Wait tasks less the moving, concurrent waits counted once) and
 * the rest; the wait's part not under compute, and the longest Notify
 * Wait stretch.  Which peer it waits for is not in these tasks.  S.op
 * sorted by start.
 */
static void
putopwaits(void)
{
	S.nnw = mergeiv(S.nw, S.nnw);
	S.nmv = mergeiv(S.mv, S.nmv);
	for (size_t i = 0; i < S.nop; i++) {
		const struct op *o = &S.op[i];
		int64_t w = 0, ex = 0, lg = 0, n = 0, mv;

		for (size_t j = 0; j < S.nnw && S.nw[j].s < o->end; j++) {
			int64_t a = S.nw[j].s > o->start ? S.nw[j].s : o->start;
			int64_t b = S.nw[j].e < o->end ? S.nw[j].e : o->end;

			if (b <= a)
				continue;
			waitpart(a, b, &w, &ex);
			if (b - a > lg)
				lg = b - a;
			n++;
		}
		mv = covered(S.mv, S.nmv, o->start, o->end);
		out_begin(&ob, "comm_op_wait");
		out_raw(&ob, "profile", S.profile, strlen(S.profile));
		out_cstr(&ob, "src", S.nwsrc);
		out_cstr(&ob, "step", o->step);
		out_cstr(&ob, "op", o->name);
		out_i64(&ob, "start_ns", o->start);
		out_i64(&ob, "end_ns", o->end);
		out_nsms(&ob, "elapsed", o->end - o->start);
		out_nsms(&ob, "exposed", o->end - o->start - undercompute(o->start, o->end));
		out_nsms(&ob, "wait", w);
		out_nsms(&ob, "exposed_wait", ex);
		out_nsms(&ob, "longest_wait", lg);
		out_i64(&ob, "wait_stretches", n);
		if (S.nmv) {
			out_nsms(&ob, "moving", mv);
			out_nsms(&ob, "rest", o->end - o->start - mv - w);
		} else {
			out_null(&ob, "moving_ns");
			out_null(&ob, "moving_ms");
			out_null(&ob, "rest_ns");
			out_null(&ob, "rest_ms");
		}
		rec_put(&ob, stdout);
	}
}

static void
flush(void)
{
	struct task **ts;
	size_t *first, *cnt;
	struct sp *ps = NULL;
	size_t nps = 0, cps = 0;

	if (!S.have)
		return;
	sortv(S.op, S.nop, sizeof *S.op, opcmp);
	sortv(S.t, S.nt, sizeof *S.t, taskcmp);
	mergecu();
	for (size_t i = 0; i < S.nop; i++)
		S.op[i].rec = findcop(S.op[i].name);
	first = xcalloc(S.nop + 1, sizeof *first);
	cnt = xcalloc(S.nop + 1, sizeof *cnt);
	ts = xcalloc(S.nt + 1, sizeof *ts);
	for (size_t i = 0; i < S.nt; i++)
		if ((S.t[i].oi = ownerop(&S.t[i])) >= 0)
			cnt[S.t[i].oi]++;
	for (size_t i = 1; i <= S.nop; i++)
		first[i] = first[i - 1] + cnt[i - 1];
	memset(cnt, 0, (S.nop + 1) * sizeof *cnt);
	for (size_t i = 0; i < S.nt; i++)	/* each op's tasks, in start order */
		if (S.t[i].oi >= 0)
			ts[first[S.t[i].oi] + cnt[S.t[i].oi]++] = &S.t[i];
	putgroups();
	putpipeline();
	if (S.nt == 0 && (S.nnw || S.nmv))
		putopwaits();
	for (size_t i = 0; i < S.nop; i++) {
		const struct op *o = &S.op[i];
		struct split s = { 0 };
		const char *g = o->rec ? o->rec->group : NULL;

		if (cnt[i] == 0)
			continue;
		splitop(o, ts + first[i], cnt[i], &s);
		out_begin(&ob, "comm_op");
		out_raw(&ob, "profile", S.profile, strlen(S.profile));
		out_cstr(&ob, "src", S.tsrc);
		out_cstr(&ob, "step", o->step);
		out_cstr(&ob, "op", o->name);
		out_cstr(&ob, "group", g);
		out_cstr(&ob, "kind", o->rec ? o->rec->kind : NULL);
		out_i64(&ob, "start_ns", o->start);
		out_i64(&ob, "end_ns", o->end);
		out_i64(&ob, "tasks", (int64_t)cnt[i]);
		putsplitnums(&ob, o, &s);
		putpeers(&ob, "peers", s.pw, s.npw);
		putcheck(&ob, o, &s);
		rec_put(&ob, stdout);
		for (size_t k = 0; k < s.npw; k++) {
			size_t j;

			for (j = 0; j < nps; j++)
				if (ps[j].peer == s.pw[k].peer &&
				    !strcmp(ps[j].step ? ps[j].step : "", o->step ? o->step : "") &&
				    !strcmp(ps[j].group ? ps[j].group : "", g ? g : ""))
					break;
			if (j == nps) {
				PUSH(ps, nps, cps);
				ps[nps++] = (struct sp){ o->step, g, s.pw[k].peer, 0, 0, 0, 0, 0 };
			}
			ps[j].ns += s.pw[k].ns;
			ps[j].exposed += s.pw[k].exposed;
			ps[j].own += s.pw[k].own;
			ps[j].ownex += s.pw[k].ownex;
			ps[j].ops++;
		}
		free(s.pw);
	}
	if (nps)
		sortv(ps, nps, sizeof *ps, spcmp);
	for (size_t j = 0; j < nps; j++) {
		int64_t m[4096], gl;
		size_t n = members(ps[j].group, m, sizeof m / sizeof m[0]);

		out_begin(&ob, "comm_peer");
		out_raw(&ob, "profile", S.profile, strlen(S.profile));
		out_cstr(&ob, "step", ps[j].step);
		out_cstr(&ob, "group", ps[j].group);
		if (ps[j].peer < 0)
			out_null(&ob, "rank");
		else
			out_i64(&ob, "rank", ps[j].peer);
		out_nsms(&ob, "wait", ps[j].ns);
		out_nsms(&ob, "exposed_wait", ps[j].exposed);
		out_nsms(&ob, "own_wait", ps[j].own);
		out_nsms(&ob, "own_exposed_wait", ps[j].ownex);
		{	/* the tasks' rank is local to the group */
			const struct gmap *gm = findgm(ps[j].group);

			gl = -1;
			if (gm && ps[j].peer >= 0 && ps[j].peer < gm->n)
				gl = gm->gr[ps[j].peer];
			if (gl >= 0)
				out_i64(&ob, "global_rank", gl);
			else
				out_null(&ob, "global_rank");
		}
		out_i64(&ob, "ops", ps[j].ops);
		if (n) {
			out_i64(&ob, "group_size", (int64_t)n);
		} else
			out_null(&ob, "group_size");
		/* a single profile holds one rank: its own */
		out_bool(&ob, "in_input", gl >= 0 ? gl == S.rank : ps[j].peer >= 0 && ps[j].peer == S.rank);
		rec_put(&ob, stdout);
	}
	free(ps);
	free(first);
	free(cnt);
	free(ts);
	clear();
}

static int
profilerec(struct rin *r)
{
	const struct rfield *p, *c;

	flush();
	if (rin_scan(r) != 0)
		return -1;
	if ((p = rin_get(r, "profile")) == NULL)
		return snprintf(r->err, sizeof r->err, "profile record has no \"profile\""), -1;
	S.profile = xstrndup(p->v, p->vlen);
	S.have = 1;
	S.rank = -1;
	if ((c = rin_get(r, "config")) != NULL) {
		jv cfg = jv_parse_sized(c->v, (int)c->vlen);

		if (jv_get_kind(cfg) == JV_KIND_OBJECT) {
			jv rk = jv_object_get(jv_copy(cfg), jv_string("rank"));

			if (jv_get_kind(rk) == JV_KIND_NUMBER)
				S.rank = (int64_t)jv_number_value(rk);
			jv_free(rk);
		}
		jv_free(cfg);
	}
	return 0;
}

static int
taskrec(struct rin *r)
{
	struct task t = { 0 };
	char *tt;
	const char *src;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &t.start) != 0 || rin_i64(r, "end_ns", &t.end) != 0 ||
	    t.end < t.start)
		return snprintf(r->err, sizeof r->err, "comm_task has no integer \"start_ns\" <= \"end_ns\""), -1;
	tt = strf(r, "task_type");
	t.cls = taskclass(tt);
	free(tt);
	t.peer = intf(r, "dst_rank");
	t.src = intf(r, "src_rank");
	t.bytes = intf(r, "bytes");
	t.op = strf(r, "op");
	t.oi = -1;
	if (S.tsrc == NULL && (src = (const char *)strf(r, "src")) != NULL) {
		char *s = (char *)src, *at = strrchr(s, '@'), *colon = strstr(s, ":COMMUNICATION_TASK_INFO");

		if (at)
			*at = '\0';
		if (colon)
			colon[strlen(":COMMUNICATION_TASK_INFO")] = '\0';
		S.tsrc = s;
	}
	PUSH(S.t, S.nt, S.ct);
	S.t[S.nt++] = t;
	return 0;
}

static int
nwrec(struct rin *r)
{
	struct iv v;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &v.s) != 0 || rin_i64(r, "end_ns", &v.e) != 0 || v.e < v.s)
		return snprintf(r->err, sizeof r->err, "notify_wait has no integer \"start_ns\" <= \"end_ns\""), -1;
	if (S.nwsrc == NULL && (S.nwsrc = strf(r, "src")) != NULL && strrchr(S.nwsrc, '@'))
		*strrchr(S.nwsrc, '@') = '\0';
	PUSH(S.nw, S.nnw, S.cnw);
	S.nw[S.nnw++] = v;
	return 0;
}

/* An "sdma_task" record (asc-ingest, Level0): the device moving data. */
static int
sdmarec(struct rin *r)
{
	struct iv v;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &v.s) != 0 || rin_i64(r, "end_ns", &v.e) != 0 || v.e < v.s)
		return snprintf(r->err, sizeof r->err, "sdma_task has no integer \"start_ns\" <= \"end_ns\""), -1;
	if (S.nwsrc == NULL && (S.nwsrc = strf(r, "src")) != NULL && strrchr(S.nwsrc, '@'))
		*strrchr(S.nwsrc, '@') = '\0';
	PUSH(S.mv, S.nmv, S.cmv);
	S.mv[S.nmv++] = v;
	return 0;
}

/* Widen the span of the step named s to hold [a, b). */
static void
stepspan(const char *s, int64_t a, int64_t b)
{
	size_t i;

	for (i = S.nsb; i-- > 0;)
		if (strcmp(S.sb[i].step, s) == 0)
			break;
	if (i == (size_t)-1) {
		PUSH(S.sb, S.nsb, S.csb);
		i = S.nsb++;
		S.sb[i] = (struct stb){ xstrdup(s), a, b };
	}
	if (a < S.sb[i].s)
		S.sb[i].s = a;
	if (b > S.sb[i].e)
		S.sb[i].e = b;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	const struct rfield *sid;

	if (sr_kernel(r, &k) != 0)
		return -1;
	sid = k.step_id ? k.step_id : k.step;
	if (sid && rf_str(sid, &tmp) == 0 && k.end >= k.start)
		stepspan(tmp.p, k.start, k.end);
	if (k.task_type && rf_str(k.task_type, &tmp) == 0 &&
	    (strcmp(tmp.p, "COMMUNICATION") == 0 || strcmp(tmp.p, "HCCL") == 0)) {
		struct op o = { 0 };

		o.name = k.name && rf_str(k.name, &tmp) == 0 ? xstrndup(tmp.p, tmp.len) : xstrndup("", 0);
		o.step = sid && rf_str(sid, &tmp) == 0 ? xstrndup(tmp.p, tmp.len) : NULL;
		o.start = k.start;
		o.end = k.end;
		if (o.end - o.start > S.maxop)
			S.maxop = o.end - o.start;
		PUSH(S.op, S.nop, S.cop);
		S.op[S.nop++] = o;
	} else if (k.end > k.start) {
		PUSH(S.cu, S.ncu, S.ccu);
		S.cu[S.ncu++] = (struct iv){ k.start, k.end };
		/* the word embedding's gradient (torch_npu's aclnn kernel):
		 * what the embd all-reduce waits for */
		if (k.name && rf_str(k.name, &tmp) == 0 && strstr(tmp.p, "EmbeddingDenseBackward")) {
			PUSH(S.eg, S.neg, S.ceg);
			S.eg[S.neg++] = (struct iv){ k.start, k.end };
		}
	}
	return 0;
}

static int
commrec(struct rin *r)
{
	struct cop c = { 0 };

	if (rin_scan(r) != 0)
		return -1;
	if ((c.name = strf(r, "op")) == NULL)
		return 0;
	c.group = strf(r, "group");
	c.kind = strf(r, "kind");
	c.elapse = msf(r, "elapse_ms");
	c.wait = msf(r, "wait_ms");
	c.transit = msf(r, "transit_ms");
	PUSH(S.cr, S.ncr, S.ccr);
	S.cr[S.ncr++] = c;
	return 0;
}

static int64_t
rankf(const struct rin *r, const char *k)
{
	int64_t v;
	char *s = strf(r, k);

	if (s == NULL)
		return intf(r, k);
	v = dec_parse(s, strlen(s), 0, &v) == 0 ? v : -1;
	free(s);
	return v;
}

static int
linkrec(struct rin *r)
{
	struct link l;

	if (rin_scan(r) != 0)
		return -1;
	l.group = strf(r, "group");
	l.a = rankf(r, "src_rank");
	l.b = rankf(r, "dst_rank");
	{
		const struct rfield *f = rin_get(r, "size_mb");

		l.mb = f && !rf_isnull(f) ? strtod(f->v, NULL) : 0;
	}
	PUSH(S.lk, S.nlk, S.clk);
	S.lk[S.nlk++] = l;
	return 0;
}

/* The profile's metadata record: its parallel groups. */
static int
metarec(struct rin *r)
{
	const struct rfield *g, *f;

	if (rin_scan(r) != 0)
		return -1;
	g = rin_get(r, "groups");
	f = rin_get(r, "file");
	free(S.groups);
	S.groups = g != NULL && !rf_isnull(g) ? xstrndup(g->v, g->vlen) : NULL;
	S.meta = f != NULL && !rf_isnull(f) ? 2 : 1;
	return 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	int rc = 0;

	if (sr_is(t, n, "profile"))
		rc = profilerec(r);
	else if (!S.have) {
		sr_pass(r);
		return 0;
	} else if (sr_is(t, n, "comm_task"))
		rc = taskrec(r);
	else if (sr_is(t, n, "notify_wait"))
		rc = nwrec(r);
	else if (sr_is(t, n, "sdma_task"))
		rc = sdmarec(r);
	else if (sr_is(t, n, "kernel"))
		rc = kernelrec(r);
	else if (sr_is(t, n, "comm"))
		rc = commrec(r);
	else if (sr_is(t, n, "comm_link"))
		rc = linkrec(r);
	else if (sr_is(t, n, "metadata"))
		rc = metarec(r);
	if (rc == 0)
		sr_pass(r);
	return rc;
}

static void
onend(void *arg)
{
	flush();
}

int
main(int argc, char *argv[])
{
	/* Ours, from an earlier run: a rerun replaces them. */
	static const char *const own[] = { "comm_group", "comm_op", "comm_peer", "comm_op_wait", NULL };
	struct sr_filter f = { onrec, onend, NULL, "host", 0, own };
	size_t maxline = (size_t)1 << 28;
	const char *rules = NULL;
	int c, kflag = 0, rc;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "km:r:")) != -1)
		switch (c) {
		case 'k':
			kflag = 1;
			break;
		case 'm':
			maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			rules = optarg;
			break;
		default:
			usage();
		}
	argc -= optind;
	argv += optind;
	rules_load(rules);
	S.rank = -1;
	rc = sr_run(argc, argv, maxline, kflag, &f);
	xclose_stdout();
	return rc;
}
