/* asc-segment: the four clocks, dominant types and top kernels of a run of
 * kernels; the structure of each kernel and the bubbles of a step (segment.h). */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "opkey.h"

#include "segment.h"

void
clk_add(struct clocks *c, const struct sk *k)
{
	c->n++;
	c->sum += k->dur;
	c->cost += k->dur + k->wait;
	if (!c->have || k->cs < c->s)
		c->s = k->cs;
	if (!c->have || k->ce > c->e)
		c->e = k->ce;
	c->have = 1;
	if (k->empty)
		return;
	/* Kernels come in clipped-start order within a step. */
	if (c->haveu && k->cs <= c->ue) {
		if (k->ce > c->ue)
			c->ue = k->ce;
	} else {
		if (c->haveu)
			c->busy += c->ue - c->us;
		c->us = k->cs;
		c->ue = k->ce;
		c->haveu = 1;
	}
}

static int64_t
clk_busy(const struct clocks *c)
{
	return c->busy + (c->haveu ? c->ue - c->us : 0);
}

void
putclocks(struct buf *b, const struct clocks *c, int64_t wall)
{
	out_nsms(b, "wall", wall);
	out_nsms(b, "busy_union", clk_busy(c));
	out_nsms(b, "kernel_sum", c->sum);
	out_nsms(b, "total_cost", c->cost);
}

/* Dominant task type and stream by duration over kernels [from, to) passing want. */
void
dominant(struct buf *b, size_t from, size_t to, int st, int part)
{
	int64_t *tt = xcalloc((size_t)S.ntts + 1, sizeof *tt);
	int64_t *sd = xcalloc((size_t)S.nstreams + 1, sizeof *sd);
	int bt = -1, bs = -1;

	for (size_t i = from; i < to; i++) {
		const struct sk *k = &S.k[i];

		if ((st >= 0 && k->st != st) || (part >= 0 && k->block != part))
			continue;
		tt[k->tt] += k->dur;
		sd[k->stream] += k->dur;
	}
	for (int i = 0; i < S.ntts; i++)
		if (bt < 0 || tt[i] > tt[bt])
			bt = i;
	for (int i = 0; i < S.nstreams; i++)
		if (bs < 0 || sd[i] > sd[bs])
			bs = i;
	out_key(b, "dominant_task_type");
	if (bt >= 0 && tt[bt] > 0)
		nth(b, &S.tts, bt);
	else
		buf_adds(b, "null");
	out_key(b, "dominant_stream");
	if (bs >= 0 && sd[bs] > 0)
		nth(b, &S.streams, bs);
	else
		buf_adds(b, "null");
	free(tt);
	free(sd);
}

static int64_t
kval(const struct sk *k, int what)
{
	return what == 0 ? k->dur : what == 1 ? k->dur + k->wait : k->wait;
}

static int
waitheavy(const struct sk *k)
{
	return k->wait >= minbubble && k->wait >= k->dur && k->wait > 0;
}

/* Keep i, of value v, among the topk largest top[0..*tn), their values
 * in tv (ties: the one kept first stays first). */
void
topins(size_t *top, int64_t *tv, int *tn, size_t i, int64_t v)
{
	int j;

	for (j = *tn; j > 0 && tv[j - 1] < v; j--)
		if (j < topk) {
			top[j] = top[j - 1];
			tv[j] = tv[j - 1];
		}
	if (j < topk) {
		top[j] = i;
		tv[j] = v;
		if (*tn < topk)
			(*tn)++;
	}
}

/* Top kernels by duration (0), total cost (1) or wait (2, wait-heavy only). */
void
topkernels(struct buf *b, const char *key, size_t from, size_t to, int st, int what)
{
	size_t *top = xcalloc((size_t)topk + 1, sizeof *top);
	int64_t *tv = xcalloc((size_t)topk + 1, sizeof *tv);
	int n = 0;

	for (size_t i = from; i < to; i++) {
		const struct sk *k = &S.k[i];

		if (st >= 0 && k->st != st)
			continue;
		if (what == 2 && !waitheavy(k))
			continue;
		topins(top, tv, &n, i, kval(k, what));
	}
	out_key(b, key);
	buf_addc(b, '[');
	for (int j = 0; j < n; j++) {
		const struct sk *k = &S.k[top[j]];

		if (j)
			buf_addc(b, ',');
		buf_adds(b, "{\"name\":");
		out_esc(b, ap(k->name), k->namelen);
		out_key(b, "task_type");
		nth(b, &S.tts, k->tt);
		out_key(b, "stream");
		nth(b, &S.streams, k->stream);
		out_i64(b, "start_ns", k->s);
		out_nsms(b, "dur", k->dur);
		out_nsms(b, "wait", k->wait);
		out_nsms(b, "total_cost", k->dur + k->wait);
		out_raw(b, "src", ap(k->src), strlen(ap(k->src)));
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
	free(top);
	free(tv);
}

void
part(struct buf *b, const char *key, size_t from, size_t to, int st, int blk)
{
	struct clocks c = { 0 };

	for (size_t i = from; i < to; i++)
		if ((st < 0 || S.k[i].st == st) && S.k[i].block == blk)
			clk_add(&c, &S.k[i]);
	out_key(b, key);
	buf_adds(b, "{\"kernels\":");
	out_int(b, c.n);
	if (c.have) {
		out_i64(b, "start_ns", c.s);
		out_i64(b, "end_ns", c.e);
	} else {
		out_null(b, "start_ns");
		out_null(b, "end_ns");
	}
	putclocks(b, &c, c.have ? c.e - c.s : 0);
	dominant(b, from, to, st, blk);
	buf_addc(b, '}');
}

static int
typeof_(uint64_t h)
{
	for (size_t i = 0; i < S.ntypes; i++)
		if (S.types[i] == h)
			return (int)i;
	S.types = xgrow(S.types, S.ntypes, &S.captypes, 16, sizeof *S.types);
	S.types[S.ntypes] = h;
	return (int)S.ntypes++;
}

/* Structure of each kernel, templates, bubbles by place. */
void
step_measure(struct stepx *x)
{
	struct st *sv = x->sv;
	int64_t ue = 0;
	int haveu = 0, *started;

	for (size_t b = 0; b < x->nst; b++) {
		uint64_t h = FNV_INIT, ha = FNV_INIT;
		int seen = 0;

		for (size_t i = sv[b].first; i < sv[b].first + sv[b].n; i++) {
			S.k[i].st = (int)b;
			ha = fnv(ha, ap(S.k[i].key), S.k[i].keylen + 1);
			if (S.k[i].stream == x->main_stream) {
				h = fnv(h, ap(S.k[i].key), S.k[i].keylen + 1);
				seen = 1;
			}
		}
		sv[b].hash = seen ? h : ha;
		sv[b].type = typeof_(sv[b].hash);
	}
	started = xcalloc(x->nst + 1, sizeof *started);
	x->bubs = xreallocarray(NULL, x->n + 1, sizeof *x->bubs);
	x->nbub = 0;
	x->pre = x->service;
	x->bnd = x->ins = x->nbnd = x->nins = 0;
	for (size_t i = 0; i < x->n; i++) {
		const struct sk *k = &S.k[i];

		if (k->empty)
			continue;
		if (!haveu)
			x->pre = k->cs - x->ws;
		else if (k->cs > ue) {
			struct st *s = &sv[k->st];
			int boundary = !started[k->st] && k->st > 0;
			int64_t g = k->cs - ue;

			if (boundary) {
				s->gapbefore += g;
				x->bnd += g;
				x->nbnd++;
			} else {
				s->inside += g;
				s->nin++;
				if (g > s->largest)
					s->largest = g;
				x->ins += g;
				x->nins++;
			}
			x->bubs[x->nbub].s = ue;
			x->bubs[x->nbub].d = g;
			x->bubs[x->nbub].st = k->st;
			x->bubs[x->nbub++].boundary = boundary;
		}
		started[k->st] = 1;
		if (!haveu || k->ce > ue)
			ue = k->ce;
		haveu = 1;
	}
	x->tail = haveu ? x->we - ue : 0;
	free(started);
}
