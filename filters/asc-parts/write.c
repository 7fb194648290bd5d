/*
 * asc-parts: the parts cut from the kinds of the kernels, their clocks,
 * top kernels and sides, written as part and step_parts records.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cmp.h"
#include "opkey.h"
#include "rules.h"

#include "parts.h"
#include "rules.h"

const char *const kname[K_N] = {
	"embedding", "forward_layer", "lm_head_loss", "pipeline_wait",
	"pipeline_send_receive", "backward_prologue", "backward_layer",
	"backward_epilogue", "gradient_sync", "optimizer", "input",
	"conv_stage", "classifier_layer", "loss", "backward", "prefill_pass",
	"decode_pass", "forward_pass", "between_passes", "decode_gap", "other",
	"embedding_backward", "gradient_clipping", "after_loss", "global_pool"
};
const char *const klabel[K_N] = {
	"embedding and before the first layer", "forward layer", "LM head + loss", "pipeline wait",
	"pipeline send/receive", "backward before the first layer",
	"backward layer", "backward after the last layer", "gradient sync",
	"optimizer step", "input", "convolution stage", "classifier layer",
	"loss", "backward", "prefill pass", "decode pass", "forward pass",
	"between passes", "gap between decode tokens", "other",
	"embedding backward", "gradient clipping", "after the loss",
	"global pooling"
};

/*
 * The four clocks of a set of kernels inside [lo, hi], and its gaps; for
 * a part, dbusy: the device busy inside the wall with the kernels of any
 * part, and gaps then the device's idle gaps there (no kernel running).
 */
struct clk { long n, ahead; int64_t ws, we, busy, ksum, cost, gaps, dbusy, aheadsum, gmed, glong, glongns; };

/*
 * The lengths of the gaps the last devclk counted, and a pool of the gaps
 * of a kind's parts: their median and how many reach bubbles.min_bubble_us
 * tell many short launch gaps from a few long waits (asc-judge).
 */
static int64_t	*gl, *gpool;
static size_t	 ngl, capgl, ngpool, capgpool;

static void
addgap(int64_t **v, size_t *n, size_t *cap, int64_t g)
{
	if (*n == *cap)
		*v = xreallocarray(*v, *cap = 2 * *cap + 256, sizeof **v);
	(*v)[(*n)++] = g;
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The lower median of v (sorted here) and the gaps of at least thr. */
static void
gapstats(int64_t *v, size_t n, struct clk *c)
{
	int64_t thr = rules_ns("bubbles.min_bubble_us", 1e3);

	if (n)
		qsort(v, n, sizeof *v, i64cmp);
	c->gmed = n ? v[(n - 1) / 2] : 0, c->glong = 0, c->glongns = 0;
	for (size_t i = 0; i < n; i++)
		if (v[i] >= thr)
			c->glong++, c->glongns += v[i];
}

static int
ivcmp(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int64_t	*ivbuf;
static size_t	 ivcap;

/*
 * idx[0..n) in start order.  wall: the first start to the last end, cut
 * at hi; busy: the union of the intervals inside the wall; gaps: its
 * holes.
 */
static struct clk
clocks(const size_t *idx, size_t n, int64_t lo, int64_t hi)
{
	struct clk c = { 0 };
	int64_t me = INT64_MIN, cs = 0, ce = 0;
	size_t m = 0;

	if (n == 0)
		return c;
	c.n = (long)n;
	c.ws = S.k[idx[0]].s < lo ? lo : S.k[idx[0]].s;
	for (size_t i = 0; i < n; i++) {
		const struct kern *x = &S.k[idx[i]];

		c.ksum += x->dur, c.cost += x->dur + x->wait;
		if (x->s < c.ws)
			c.ws = x->s < lo ? lo : x->s;
		if (x->e > me)
			me = x->e;
	}
	c.we = me < hi ? me : hi;
	if (c.we < c.ws)
		c.we = c.ws;
	/* compute kernels launched ahead on a side stream (a dropout mask):
	 * in the kernel sum, but in an earlier part's wall */
	for (size_t i = 0; i < n; i++)
		if (S.k[idx[i]].s < c.ws && !S.k[idx[i]].comm)
			c.ahead++, c.aheadsum += S.k[idx[i]].dur;
	if (ivcap < 2 * n)
		ivbuf = xreallocarray(ivbuf, ivcap = 2 * n, sizeof *ivbuf);
	for (size_t i = 0; i < n; i++) {
		int64_t s = S.k[idx[i]].s, e = S.k[idx[i]].e;

		s = s < c.ws ? c.ws : s, e = e > c.we ? c.we : e;
		if (e > s)
			ivbuf[2 * m] = s, ivbuf[2 * m + 1] = e, m++;
	}
	qsort(ivbuf, m, 2 * sizeof *ivbuf, ivcmp);
	for (size_t i = 0; i < m; i++) {
		if (i == 0 || ivbuf[2 * i] > ce) {
			if (i > 0)
				c.busy += ce - cs, c.gaps++;
			cs = ivbuf[2 * i], ce = ivbuf[2 * i + 1];
		} else if (ivbuf[2 * i + 1] > ce)
			ce = ivbuf[2 * i + 1];
	}
	if (m > 0)
		c.busy += ce - cs;
	return c;
}

/*
 * The device's busy time inside [ws, we] of step st from every kernel of
 * the step, whatever part holds it (a collective of the gradient sync
 * begun inside the backward runs in the backward's wall), and its idle
 * gaps there.  The step's intervals sorted by start, with the running
 * maximum of their ends, are built once per step.
 */
static int64_t	*dv, *dmax;
static size_t	 ndv, capdv;
static int	 dstep = -1;

static void
devclk(int st, struct clk *c)
{
	int64_t cs = 0, ce = 0, at;
	size_t lo = 0, hi;

	if (st != dstep) {
		ndv = 0;
		for (size_t i = 0; i < S.nk; i++)
			if (S.k[i].step == st && S.k[i].e > S.k[i].s) {
				if (capdv < 2 * ndv + 2)
					dv = xreallocarray(dv, capdv = 2 * ndv + 4096, sizeof *dv);
				dv[2 * ndv] = S.k[i].s, dv[2 * ndv + 1] = S.k[i].e, ndv++;
			}
		qsort(dv, ndv, 2 * sizeof *dv, ivcmp);
		dmax = xreallocarray(dmax, ndv ? ndv : 1, sizeof *dmax);
		for (size_t i = 0; i < ndv; i++)
			dmax[i] = i > 0 && dmax[i - 1] > dv[2 * i + 1] ? dmax[i - 1] : dv[2 * i + 1];
		dstep = st;
	}
	c->dbusy = 0, c->gaps = 0, ngl = 0;
	c->gmed = 0, c->glong = 0, c->glongns = 0;
	if (c->we <= c->ws)
		return;
	/* [lo, hi): the intervals that start before we and may end after ws */
	for (hi = ndv; hi > 0 && dv[2 * (hi - 1)] >= c->we; hi--)
		;
	for (size_t b = hi; lo < b;) {
		size_t m = lo + (b - lo) / 2;

		if (dmax[m] <= c->ws)
			lo = m + 1;
		else
			b = m;
	}
	at = c->ws;
	for (size_t i = lo; i < hi; i++) {
		int64_t s = dv[2 * i] < c->ws ? c->ws : dv[2 * i], e = dv[2 * i + 1] > c->we ? c->we : dv[2 * i + 1];

		if (e <= s)
			continue;
		if (ce > cs && s <= ce) {
			if (e > ce)
				ce = e;
			continue;
		}
		if (ce > cs)
			c->dbusy += ce - cs, at = ce;
		if (s > at)
			c->gaps++, addgap(&gl, &ngl, &capgl, s - at);
		cs = s, ce = e;
	}
	if (ce > cs)
		c->dbusy += ce - cs, at = ce;
	if (at < c->we)
		c->gaps++, addgap(&gl, &ngl, &capgl, c->we - at);
	gapstats(gl, ngl, c);
}

static void
putclk(const struct clk *c, int64_t service)
{
	out_i64(&ob, "kernels", c->n);
	out_nsms(&ob, "wall", c->we - c->ws);
	out_nsms(&ob, "busy_union", c->busy);
	if (service >= 0)
		out_nsms(&ob, "busy_others", c->dbusy - c->busy);
	out_nsms(&ob, "kernel_sum", c->ksum);
	out_nsms(&ob, "total_cost", c->cost);
	if (service >= 0) {
		out_ratio(&ob, "share", c->we - c->ws, service);
		out_i64(&ob, "bubbles", c->gaps);
		out_nsms(&ob, "bubble", c->we - c->ws - c->dbusy);
		out_nsms(&ob, "bubble_median", c->gmed);
		out_i64(&ob, "long_bubbles", c->glong);
		out_nsms(&ob, "long_bubble", c->glongns);
		out_i64(&ob, "ahead_kernels", c->ahead);
		out_nsms(&ob, "ahead_kernel_sum", c->aheadsum);
	}
}

static void	markblock(void);

struct grp { size_t at; long cnt; int64_t sum, wait; };

/* What groups() groups kernels by, for the comparators: 0 their name,
 * 1 their op key. */
static int	gbyop;

static const char *
gtext(size_t i)
{
	return S.names.p + (gbyop ? S.k[i].ko : S.k[i].no);
}

/* Kernels of idx by gtext (ties: index). */
static int
textcmp(const void *a, const void *b)
{
	const size_t *x = a, *y = b;
	int d = strcmp(gtext(*x), gtext(*y));

	return d ? d : (*x > *y) - (*x < *y);
}

/* Groups by kernel sum, then gtext. */
static int
grpcmp(const void *a, const void *b)
{
	const struct grp *x = a, *y = b;

	if (x->sum != y->sum)
		return x->sum > y->sum ? -1 : 1;
	return strcmp(gtext(x->at), gtext(y->at));
}

/* The kernels idx[0..n) grouped by name (byop 0) or op key, by kernel
 * sum (ties: by that text): *ngp groups, to free. */
static struct grp *
groups(const size_t *idx, size_t n, int byop, size_t *ngp)
{
	size_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v), ng = 0;
	struct grp *g = xreallocarray(NULL, n ? n : 1, sizeof *g);

	gbyop = byop;
	memcpy(v, idx, n * sizeof *v);
	qsort(v, n, sizeof *v, textcmp);
	for (size_t i = 0, j; i < n; i = j) {
		g[ng].at = v[i], g[ng].sum = g[ng].wait = 0;
		for (j = i; j < n && strcmp(gtext(v[j]), gtext(v[i])) == 0; j++)
			g[ng].sum += S.k[v[j]].dur, g[ng].wait += S.k[v[j]].wait;
		g[ng++].cnt = (long)(j - i);
	}
	qsort(g, ng, sizeof *g, grpcmp);
	free(v);
	*ngp = ng;
	return g;
}

/*
 * The part's kernels idx[0..n) grouped (groups()), the first `most` as
 * array k, each {item: the name or op key, kernels, kernel time}: by
 * name (byop 0) the top kernels and their kernel_sum; by op key (byop 1)
 * every op, with kernel_sum_ns and wait_ns as asc-diff sums them per
 * part, so that a kernel counts in the part this filter put it in (a
 * collective that outlasts the backward is in the gradient sync, though
 * it starts before).
 */
static void
putgroups(const char *k, const char *item, int byop, size_t most,
    const size_t *idx, size_t n)
{
	size_t ng;
	struct grp *g = groups(idx, n, byop, &ng);

	out_key(&ob, k);
	buf_addc(&ob, '[');
	for (size_t q = 0; q < ng && q < most; q++) {
		const char *t = gtext(g[q].at);

		out_item(&ob, q, item);
		out_esc(&ob, t, strlen(t));
		out_i64(&ob, "kernels", g[q].cnt);
		if (byop) {
			out_i64(&ob, "kernel_sum_ns", g[q].sum);
			out_i64(&ob, "wait_ns", g[q].wait);
		} else
			out_nsms(&ob, "kernel_sum", g[q].sum);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
	free(g);
}

struct part *P;
size_t		 np;
static size_t	 capp;
static size_t	*mem, capm;

/* A layer part: a forward or backward layer (not a pass of layers). */
static int
islayer(const struct part *q)
{
	return q->layer >= 0 && (q->kind == K_FWD || q->kind == K_BWD);
}

/* Consecutive kernels of one step with one kind and key. */
void
buildparts(void)
{
	np = 0, dstep = -1;
	markblock();
	for (size_t i = 0; i < S.nk; i++) {
		const struct kern *x = &S.k[i];
		struct part *q = np ? &P[np - 1] : NULL;

		if (x->step < 0)
			continue;
		if (q != NULL && q->step == x->step && q->kind == x->kind && q->key == x->key) {
			q->b = i + 1;
			continue;
		}
		if (np == capp)
			P = xreallocarray(P, capp = capp ? 2 * capp : 256, sizeof *P);
		P[np++] = (struct part){ i, i + 1, x->kind, x->step, x->layer, 0, x->key,
		    x->moved ? x->at : INT64_MIN };
	}
	/*
	 * Between two decode passes of a step: the gap between tokens, a part
	 * of its own (the kernels between the passes, or none).
	 */
	for (size_t i = 1; i < np; i++) {
		if (P[i].kind != K_DECODE || P[i - 1].step != P[i].step)
			continue;
		if (P[i - 1].kind == K_DECODE && P[i - 1].key != P[i].key) {
			if (np == capp)
				P = xreallocarray(P, capp *= 2, sizeof *P);
			memmove(&P[i + 1], &P[i], (np - i) * sizeof *P);
			P[i] = (struct part){ P[i + 1].a, P[i + 1].a, K_DGAP, P[i].step, -1, 0, -1, INT64_MIN };
			np++;
		} else if (P[i - 1].kind == K_BETWEEN && i >= 2 && P[i - 2].kind == K_DECODE &&
		    P[i - 2].step == P[i].step)
			P[i - 1].kind = K_DGAP;
	}
	/* Micro-batch: the layer's pass among the passes of its direction in the step. */
	int last[2] = { -1, -1 }, mb[2] = { 0, 0 }, st = -1;

	for (size_t i = 0; i < np; i++) {
		if (P[i].step != st)
			st = P[i].step, last[0] = last[1] = -1, mb[0] = mb[1] = 0;
		if (!islayer(&P[i]))
			continue;
		const struct layer *l = &S.l[P[i].layer];

		if (l->pass != last[l->bwd])
			last[l->bwd] = l->pass, mb[l->bwd]++;
		P[i].mb = mb[l->bwd];
	}
}

static size_t
members(const struct part *q, size_t *m, int role)
{
	size_t n = 0;

	for (size_t i = q->a; i < q->b; i++)
		if (S.k[i].step == q->step && (role < 0 || S.k[i].role == role))
			m[n++] = i;
	return n;
}

static void
growmem(size_t n)
{
	if (capm < n)
		mem = xreallocarray(mem, capm = n, sizeof *mem);
}

/*
 * The part's clocks: its kernels cut at the next part's first start.  A
 * gap between decode tokens starts where the token before it ends.
 */
static struct clk
partclk(size_t pi)
{
	const struct part *q = &P[pi];
	const struct step *s = &S.st[q->step];
	int64_t hi = s->have ? s->e : INT64_MAX;
	struct clk c;

	if (pi + 1 < np && P[pi + 1].step == q->step) {
		int64_t ns = S.k[P[pi + 1].a].s > P[pi + 1].lo ? S.k[P[pi + 1].a].s : P[pi + 1].lo;

		if (ns < hi)
			hi = ns;
	}
	growmem(q->b - q->a + 1);
	c = clocks(mem, members(q, mem, -1), s->have && s->s > q->lo ? s->s : q->lo, hi);
	if (q->kind == K_DGAP && pi > 0) {
		struct clk prev = partclk(pi - 1);

		if (c.n == 0)
			c.we = hi;
		c.ws = prev.we;
		growmem(q->b - q->a + 1);
	}
	devclk(q->step, &c);
	return c;
}

static int
passlayers(int pass, int bwd)
{
	int n = 0;

	for (size_t i = 0; i < S.nl; i++)
		n += S.l[i].pass == pass && S.l[i].bwd == bwd;
	return n;
}

/*
 * Backward layers are numbered by the forward layer they differentiate
 * (the backward runs from the last layer down) when every pass, forward
 * and backward, has as many layers; else in the order they run.
 */
static int
bmodel(void)
{
	for (size_t i = 1; i < S.nl; i++)
		if (passlayers(S.l[i].pass, S.l[i].bwd) != passlayers(S.l[0].pass, S.l[0].bwd))
			return 0;
	return 1;
}

static int
layerno(const struct layer *l)
{
	return l->bwd && bmodel() ? passlayers(l->pass, 1) - l->lip : l->lip + 1;
}

/* A part after the loss that holds a metric kernel (fia.metric). */
static int
ismetric(const struct part *q)
{
	if (q->kind != K_POSTLOSS)
		return 0;
	for (size_t i = q->a; i < q->b; i++)
		if (S.k[i].metric)
			return 1;
	return 0;
}

static void
partname(const struct part *q, char *d, size_t n)
{
	static const char *const where[] = { "", " (forward to backward)",
	    " (between forward micro-batches)", " (between backward micro-batches)",
	    " (backward to forward)" };

	if (islayer(q))
		snprintf(d, n, "%s %d (micro-batch %d)", klabel[q->kind], layerno(&S.l[q->layer]), q->mb);
	else if (q->kind == K_PWAIT)
		snprintf(d, n, "%s%s", klabel[q->kind], where[S.k[q->a].sub]);
	else if (q->kind == K_CONV || q->kind == K_FC)
		snprintf(d, n, "%s %ld", q->kind == K_FC && !S.conv ? "matmul layer" : klabel[q->kind], q->key);
	else if (q->kind == K_PREFILL || q->kind == K_DECODE || q->kind == K_PASS)
		snprintf(d, n, "%s %ld", klabel[q->kind], q->key / 4);
	else if (q->kind == K_DGAP && q > P)
		snprintf(d, n, "gap after decode pass %ld", q[-1].key / 4);
	else if (ismetric(q))
		snprintf(d, n, "metric (%s)", klabel[q->kind]);
	else
		snprintf(d, n, "%s", klabel[q->kind]);
}

/* A side's clocks c in one part added to its sum over the kind's parts
 * (the wall as a length). */
static void
addside(struct clk *acc, const struct clk *c)
{
	acc->n += c->n, acc->busy += c->busy, acc->ksum += c->ksum;
	acc->cost += c->cost, acc->we += c->we - c->ws;
}

/* Side `name` summed over the kind's parts, element i of its array. */
static void
putsum(size_t i, const char *name, const struct clk *a)
{
	out_item(&ob, i, "side");
	out_esc(&ob, name, strlen(name));
	out_i64(&ob, "kernels", a->n);
	out_nsms(&ob, "wall", a->we);
	out_nsms(&ob, "busy_union", a->busy);
	out_nsms(&ob, "kernel_sum", a->ksum);
	out_nsms(&ob, "total_cost", a->cost);
	buf_addc(&ob, '}');
}

/* sides: per role, the clocks of its kernels inside the part's wall. */
static void
putsides(const size_t *m, size_t n, const struct clk *pc, struct clk *acc)
{
	size_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v);
	int first = 1;

	out_key(&ob, "sides");
	buf_addc(&ob, '[');
	for (int r = 0; r < nrole; r++) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (S.k[m[i]].role == r)
				v[k++] = m[i];
		if (k == 0)
			continue;
		struct clk c = clocks(v, k, pc->ws, pc->we);

		if (acc != NULL)
			addside(&acc[r], &c);
		buf_adds(&ob, first ? "{\"side\":" : ",{\"side\":");
		out_esc(&ob, rolename[r], strlen(rolename[r]));
		putclk(&c, -1);
		buf_addc(&ob, '}');
		first = 0;
	}
	buf_addc(&ob, ']');
	free(v);
}

/*
 * block / side as asc-segment(1) splits a structure: block, the kernels
 * of the main compute chain (compute or unknown task type, on the step's
 * stream with the most compute time, at least ops.small_op_us long);
 * side, the rest (communication, AI CPU, small ops, other streams).
 */
struct bsk { int step; int64_t stream, dur; };

static CMP_FN(bskcmp, struct bsk, CMP_2(step, stream))

static void
markblock(void)
{
	struct bsk *v = xreallocarray(NULL, S.nk ? S.nk : 1, sizeof *v);
	int64_t *ms = xreallocarray(NULL, S.nst ? S.nst : 1, sizeof *ms), *best;
	int64_t small = (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5);
	size_t n = 0;

	best = xcalloc(S.nst ? S.nst : 1, sizeof *best);
	for (size_t i = 0; i < S.nst; i++)
		ms[i] = -1;
	for (size_t i = 0; i < S.nk; i++)
		if (S.k[i].step >= 0 && S.k[i].stream >= 0 &&
		    (S.k[i].cls == TT_COMPUTE || S.k[i].cls == TT_UNKNOWN))
			v[n].step = S.k[i].step, v[n].stream = S.k[i].stream, v[n++].dur = S.k[i].dur;
	qsort(v, n, sizeof *v, bskcmp);
	for (size_t i = 0, j; i < n; i = j) {
		int64_t d = 0;

		for (j = i; j < n && v[j].step == v[i].step && v[j].stream == v[i].stream; j++)
			d += v[j].dur;
		if (d > 0 && (ms[v[i].step] < 0 || d > best[v[i].step]))
			ms[v[i].step] = v[i].stream, best[v[i].step] = d;
	}
	for (size_t i = 0; i < S.nk; i++) {
		struct kern *x = &S.k[i];

		x->block = x->step >= 0 && x->stream >= 0 && x->stream == ms[x->step] &&
		    x->dur >= small && (x->cls == TT_COMPUTE || x->cls == TT_UNKNOWN);
	}
	free(v);
	free(ms);
	free(best);
}

/* block_side: the clocks of the block and side kernels inside the wall. */
static void
putblockside(const size_t *m, size_t n, const struct clk *pc, struct clk *acc)
{
	size_t *v = xreallocarray(NULL, n ? n : 1, sizeof *v);

	out_key(&ob, "block_side");
	buf_addc(&ob, '[');
	for (int b = 1, first = 1; b >= 0; b--) {
		size_t k = 0;

		for (size_t i = 0; i < n; i++)
			if (S.k[m[i]].block == (unsigned)b)
				v[k++] = m[i];
		struct clk c = clocks(v, k, pc->ws, pc->we);

		if (acc != NULL)
			addside(&acc[b], &c);
		buf_adds(&ob, first ? "{\"side\":" : ",{\"side\":");
		buf_adds(&ob, b ? "\"block\"" : "\"side\"");
		putclk(&c, -1);
		buf_addc(&ob, '}');
		first = 0;
	}
	buf_addc(&ob, ']');
	free(v);
}

static void
puthead(const char *type, const struct step *s)
{
	out_begin(&ob, type);
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_raw(&ob, "device", S.dev.len ? S.dev.p : "null", S.dev.len ? S.dev.len : 4);
	out_str(&ob, "step_id", s->id, strlen(s->id));
}

void
putpart(size_t pi, int idx)
{
	const struct part *q = &P[pi];
	const struct step *s = &S.st[q->step];
	struct clk c = partclk(pi);
	char name[96];
	size_t n;

	partname(q, name, sizeof name);
	puthead("part", s);
	out_i64(&ob, "part", idx);
	out_cstr(&ob, "kind", kname[q->kind]);
	out_cstr(&ob, "name", name);
	/* A part that is no layer has none of the layer's fields. */
	const struct layer *l = islayer(q) ? &S.l[q->layer] : NULL;

	out_cstr(&ob, "direction", l == NULL ? NULL : l->bwd ? "backward" : "forward");
	out_i64_or_null(&ob, "layer", l != NULL, l ? l->idx : 0);
	out_cstr(&ob, "layer_type", l ? l->type : NULL);
	out_i64_or_null(&ob, "micro_batch", l != NULL, q->mb);
	out_i64(&ob, "start_ns", c.ws);
	out_i64(&ob, "end_ns", c.we);
	putclk(&c, s->have ? s->service : 0);
	growmem(q->b - q->a);
	n = members(q, mem, -1);
	putgroups("top_kernels", "name", 0, TOPK, mem, n);
	putgroups("ops", "op", 1, SIZE_MAX, mem, n);
	putsides(mem, n, &c, NULL);
	putblockside(mem, n, &c, NULL);
	rec_put(&ob, stdout);
}

static int
samekind(const struct part *a, const struct part *b)
{
	if (a->kind != b->kind)
		return 0;
	if (!islayer(a) || !islayer(b))
		return 1;
	return strcmp(S.l[a->layer].type, S.l[b->layer].type) == 0;
}

static void
kindlabel(const struct part *q, long parts, int mbs, char *d, size_t n)
{
	const char *t = islayer(q) ? S.l[q->layer].type : "";
	char ty[40] = "";

	if (*t && strcmp(t, "dense") != 0 && strcmp(t, "backward") != 0)
		snprintf(ty, sizeof ty, " (%s)", t);
	const char *kl = q->kind == K_FC && !S.conv ? "matmul layer" : ismetric(q) ? "metric (after the loss)" : klabel[q->kind];

	if (mbs > 1 && parts % mbs == 0)
		snprintf(d, n, "%s%s x%ld x%d micro-batches", kl, ty, parts / mbs, mbs);
	else if (parts > 1)
		snprintf(d, n, "%s%s x%ld", kl, ty, parts);
	else
		snprintf(d, n, "%s%s", kl, ty);
}

/* One kind of part of the step [p0, p1) (the parts like P[k]), summed. */
static void
putkind(size_t p0, size_t p1, size_t k, const struct clk *pc, const struct step *s)
{
	struct clk sum = { 0 }, acc[MAXROLE];
	long parts = 0;
	int mbs = 0;
	size_t n = 0, tot = 0;
	char label[128];

	memset(acc, 0, sizeof acc);
	/* the gaps of every part of the kind, for their median (partclk
	 * uses mem: before the members are gathered there) */
	ngpool = 0;
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k])) {
			partclk(i);
			for (size_t g = 0; g < ngl; g++)
				addgap(&gpool, &ngpool, &capgpool, gl[g]);
		}
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k]))
			tot += P[i].b - P[i].a;
	growmem(tot);
	for (size_t i = p0; i < p1; i++) {
		if (!samekind(&P[i], &P[k]))
			continue;
		parts++;
		if (P[i].mb > mbs)
			mbs = P[i].mb;
		sum.n += pc[i - p0].n, sum.we += pc[i - p0].we - pc[i - p0].ws;
		sum.busy += pc[i - p0].busy, sum.ksum += pc[i - p0].ksum, sum.dbusy += pc[i - p0].dbusy;
		sum.cost += pc[i - p0].cost, sum.gaps += pc[i - p0].gaps;
		sum.ahead += pc[i - p0].ahead, sum.aheadsum += pc[i - p0].aheadsum;
		n += members(&P[i], mem + n, -1);
	}
	gapstats(gpool, ngpool, &sum);
	long nloss = 0;

	for (size_t i = 0; i < n; i++)
		nloss += S.k[mem[i]].loss;
	kindlabel(&P[k], parts, mbs, label, sizeof label);
	buf_adds(&ob, "{\"kind\":");
	out_esc(&ob, kname[P[k].kind], strlen(kname[P[k].kind]));
	out_cstr(&ob, "label", label);
	if (islayer(&P[k]))
		out_cstr(&ob, "layer_type", S.l[P[k].layer].type);
	else
		out_null(&ob, "layer_type");
	out_i64(&ob, "parts", parts);
	if (mbs > 0)
		out_i64(&ob, "micro_batches", mbs);
	else
		out_null(&ob, "micro_batches");
	putclk(&sum, s->have ? s->service : 0);
	out_i64(&ob, "loss_kernels", nloss);
	putgroups("top_kernels", "name", 0, TOPK, mem, n);
	putgroups("ops", "op", 1, SIZE_MAX, mem, n);
	/* The block / side split, summed over the parts as the sides are. */
	struct clk bs[2];

	memset(bs, 0, sizeof bs);
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k])) {
			size_t m = members(&P[i], mem, -1), len = ob.len;

			putblockside(mem, m, &pc[i - p0], bs);
			ob.len = len;
		}
	out_key(&ob, "block_side");
	buf_addc(&ob, '[');
	putsum(0, "block", &bs[1]);
	putsum(1, "side", &bs[0]);
	buf_addc(&ob, ']');
	/* The sides summed over the parts, each part's cut at its wall. */
	out_key(&ob, "sides");
	buf_addc(&ob, '[');
	for (size_t i = p0; i < p1; i++)
		if (samekind(&P[i], &P[k])) {
			/* Each part's sides are written, summed, then cut off. */
			size_t m = members(&P[i], mem, -1), len = ob.len;

			putsides(mem, m, &pc[i - p0], acc);
			ob.len = len;
		}
	for (size_t r = 0, c = 0; r < (size_t)nrole; r++)
		if (acc[r].n)
			putsum(c++, rolename[r], &acc[r]);
	buf_adds(&ob, "]}");
}

/* The step_parts record of the step of the parts [p0, p1). */
void
putstep(size_t p0, size_t p1)
{
	const struct step *s = &S.st[P[p0].step];
	struct clk *pc = xreallocarray(NULL, p1 - p0, sizeof *pc);
	int64_t wall = 0, ksum = 0;
	long kern = 0;

	int64_t gaps = 0, before = 0, after = 0;
	int hasbwd = 0;

	for (size_t i = p0; i < p1; i++) {
		pc[i - p0] = partclk(i);
		wall += pc[i - p0].we - pc[i - p0].ws, ksum += pc[i - p0].ksum, kern += pc[i - p0].n;
		if (i > p0)
			gaps += pc[i - p0].ws - pc[i - p0 - 1].we;
		hasbwd |= islayer(&P[i]) && S.l[P[i].layer].bwd;
	}
	/* The step's window less the parts: before the first, after the last, between. */
	if (s->have) {
		before = pc[0].ws - s->s;
		after = s->service - wall - gaps - before;
	}
	puthead("step_parts", s);
	out_cstr(&ob, "method", S.method[0] ? S.method : NULL);
	out_cstr(&ob, "phase", S.phase[0] ? S.phase : NULL);
	out_bool(&ob, "layers_matched", S.mismatch == 0);
	out_i64(&ob, "parts", (int64_t)(p1 - p0));
	out_i64(&ob, "kernels", kern);
	out_nsms(&ob, "service", s->have ? s->service : 0);
	out_nsms(&ob, "step_kernel_sum", s->ksum);
	out_nsms(&ob, "kernel_sum", ksum);
	out_nsms(&ob, "wall_sum", wall);
	out_nsms(&ob, "between_parts", gaps);
	out_nsms(&ob, "before_parts", before);
	out_nsms(&ob, "after_parts", after);
	out_cstr(&ob, "backward_numbering", !hasbwd ? NULL : bmodel() ? "model" : "execution");
	out_i64(&ob, "block_min_ns", (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5));
	out_key(&ob, "kinds");
	buf_addc(&ob, '[');
	for (size_t k = p0, first = 1; k < p1; k++) {
		size_t j;

		for (j = p0; j < k && !samekind(&P[j], &P[k]); j++)
			;
		if (j < k)
			continue;
		if (!first)
			buf_addc(&ob, ',');
		first = 0;
		putkind(p0, p1, k, pc, s);
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
	free(pc);
}
