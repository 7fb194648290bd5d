/*
 * asc-comm: each op's HCCL tasks, its time split exactly into moving,
 * waiting per peer and the rest, and the "comm_op" and "comm_peer"
 * records at a profile's end.
 */
#include <stdlib.h>
#include <string.h>

#include "cmp.h"

#include "comm.h"

static int
i64cmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static CMP_FN(opcmp, struct op, CMP_2(start, end))
static CMP_FN(taskcmp, struct task, CMP_2(start, end))

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

void
putops(void)
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
		out_i64_or_null(&ob, "rank", ps[j].peer >= 0, ps[j].peer);
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
}
