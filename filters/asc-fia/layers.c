/* asc-fia: the layer engines: kernels into layers, layers closed and
 * typed, the work between passes, the period fallback (fia.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "util.h"

#include "fia.h"

struct per P;

void
acc_add(struct acc *a, int64_t s, int64_t e)
{
	if (!a->have) {
		a->have = 1;
		a->s = s;
		a->e = e;
	} else if (s <= a->e) {
		if (e > a->e)
			a->e = e;
	} else {
		a->tot += a->e - a->s;
		a->s = s;
		a->e = e;
	}
}

int64_t
acc_get(const struct acc *a)
{
	return a->tot + (a->have ? a->e - a->s : 0);
}

void
eng_reset(struct eng *e)
{
	for (int i = 0; i < e->nt; i++) {
		free(e->t[i].tpl);
		for (int j = 0; j < e->t[i].nanom; j++)
			free(e->t[i].anom[j]);
		buf_free(&e->t[i].rtext);
	}
	memset(e->t, 0, sizeof e->t);
	e->nt = 0;
	e->open = e->nanch = 0;
	e->nbuf = e->nl = 0;
	e->pro_n = e->pro_sum = 0;
	e->lstep.len = 0;
	e->lstepk = 0;
	e->prevfcls = FC_NONE;
	e->prevdir = e->p2p = 0;
	chain_reset(&e->on);
	chain_reset(&e->pat);
	e->per = 0;
	memset(e->nfia, 0, sizeof e->nfia);
	memset(e->fsum, 0, sizeof e->fsum);
	memset(e->tc, 0, sizeof e->tc);
	memset(e->cnt, 0, sizeof e->cnt);
	e->samp = 0;
	e->anymoe = e->mis = e->decbad = 0;
	e->seal = 0;
	memset(e->bn, 0, sizeof e->bn);
	memset(e->bsum, 0, sizeof e->bsum);
}

/* Is the step f (NULL: none) the one held in b (k: there is one)? */
int
samestep(const struct buf *b, int k, const struct rfield *f)
{
	if (f == NULL || !k)
		return f == NULL && !k;
	return b->len == f->vlen && memcmp(b->p, f->v, f->vlen) == 0;
}

void
keepstep(struct buf *b, int *k, const struct rfield *f)
{
	b->len = 0;
	*k = f != NULL;
	if (f)
		buf_add(b, f->v, f->vlen);
}

static struct ltype *
typeof_(struct eng *e, int type)
{
	for (int i = 0; i < e->nt; i++)
		if (e->t[i].type == type)
			return &e->t[i];
	struct ltype *t = &e->t[e->nt++];

	memset(t, 0, sizeof *t);
	t->type = type;
	t->first = (int)e->nl;
	return t;
}

void
anomaly(struct ltype *t, struct buf *b)
{
	if (t->nanom < MAXANOM)
		t->anom[t->nanom++] = xstrndup(b->p, b->len);
}

void
ranges_flush(struct ltype *t)
{
	char s[64];

	if (t->nr == 0 || t->nr > NRANGE)
		return;
	if (t->rs == t->rl)
		snprintf(s, sizeof s, "%s%lld", t->nr > 1 ? ", " : "", (long long)t->rs);
	else
		snprintf(s, sizeof s, "%s%lld-%lld", t->nr > 1 ? ", " : "", (long long)t->rs,
		    (long long)t->rl);
	buf_adds(&t->rtext, s);
}

/* A closed layer: totals, layer-type runs, passes. */
static void
layer_done(struct eng *e, struct layer *L)
{
	struct ltype *t = typeof_(e, L->type);
	int64_t i = (int64_t)e->nl;

	e->nfia[L->fcls]++;
	e->fsum[L->fcls] += L->fiadur;
	e->tc[L->type]++;
	e->anymoe |= L->type == T_DFC || L->type == T_GMM || L->type == T_MOE;
	e->cnt[0] += L->nfia;
	e->cnt[1] += L->dfc;
	e->cnt[2] += L->gmm;
	e->cnt[3] += L->gate;
	e->cnt[4] += L->a2a;
	e->cnt[5] += L->samp;
	e->samp += L->samp > 0;
	if ((L->dfc && L->type != T_DFC) || (L->gmm && L->type != T_GMM && L->type != T_DECODE))
		e->mis = 1;
	if (L->type == T_DECODE && (!L->gate || !L->gmm))
		e->decbad = 1;
	if (t->nr == 0 || t->rl != i - 1) {
		ranges_flush(t);
		t->rs = i;
		t->nr++;
	}
	t->rl = i;
	layer_pass(e, L);
	e->nl++;
}

static void
layer_close(struct eng *e, int ei)
{
	struct layer *L = &e->cur;
	struct ltype *t;
	int64_t wall;

	if (L->dir)
		L->type = T_BWD;
	else if (L->fcls == FC_DECODE)
		L->type = T_DECODE;
	else if (L->dfc)
		L->type = T_DFC;
	else if (L->gmm)
		L->type = T_GMM;
	else if (L->gate)
		L->type = T_MOE;
	else
		L->type = T_DENSE;
	t = typeof_(e, L->type);
	wall = L->end - L->start;
	if (t->count == 0) {
		t->wmin = t->wmax = wall;
		t->firstwall = wall;
	}
	t->count++;
	t->kernels += L->kernels;
	t->ksum += L->ksum;
	t->wsum += wall;
	t->wsq += (double)wall * (double)wall;
	if (wall < t->wmin)
		t->wmin = wall;
	if (wall > t->wmax)
		t->wmax = wall;
	t->fiasum += L->fiadur;
	t->samp += L->samp > 0;
	for (int r = 0; r < nroles; r++) {
		t->rwall[r] += acc_get(&e->ra[r]);
		t->rn[r] += e->rn[r];
		t->rsum[r] += e->rsum[r];
		t->rstreams[r] |= e->rst[r];
	}
	/* The template: the first layer of the type; later ones are matched. */
	if (t->count == 1) {
		t->ntpl = (int)e->nbuf;
		t->truncated = L->kernels > tplmax;
		t->tpl = xcalloc((size_t)t->ntpl + 1, sizeof *t->tpl);
		for (int i = 0; i < t->ntpl; i++) {
			const struct lk *k = &e->buf[i];

			t->tpl[i] = (struct tk){ k->name, k->stream, k->role, k->cls,
			    k->e - k->s, k->s - L->start };
		}
		t->matched = 1;
		L->match = 1;
	} else {
		int same = !t->truncated && L->kernels == t->ntpl;

		for (int i = 0; same && i < t->ntpl; i++)
			same = t->tpl[i].name == e->buf[i].name &&
			    t->tpl[i].stream == e->buf[i].stream;
		if (same) {
			for (int i = 0; i < t->ntpl; i++) {
				t->tpl[i].dsum += e->buf[i].e - e->buf[i].s;
				t->tpl[i].osum += e->buf[i].s - L->start;
			}
			t->matched++;
			L->match = 1;
		} else {
			t->deviating++;
			if (t->nanom < MAXANOM - 2) {
				int shown = 0;

				tb.len = 0;
				{
					char s[160];

					snprintf(s, sizeof s, "layer %zu: %lld kernels, the template "
					    "(layer %d) has %d", e->nl, (long long)L->kernels,
					    t->first, t->ntpl);
					buf_adds(&tb, s);
				}
				/* Names in this layer that the template lacks (the
				 * embedding's never: they end a layer, eng_kernel). */
				for (size_t i = 0; i < e->ndn && shown < 4; i++) {
					int in = 0;

					for (int j = 0; j < t->ntpl && !in; j++)
						in = t->tpl[j].name == e->dn[i];
					if (in)
						continue;
					buf_adds(&tb, shown ? ", " : "; not in the template: ");
					buf_adds(&tb, NT.v[e->dn[i]].s);
					shown++;
				}
				anomaly(t, &tb);
			}
		}
	}
	(void)ei;
	layer_done(e, L);
	e->open = 0;
	e->nbuf = 0;
}

/* The part between passes that a kernel outside every layer belongs to. */
static int
bpart(const struct lk *k)
{
	if (k->flags & F_P2P)
		return BP_PIPE;
	if (k->ph == PH_OPT)
		return BP_OPT;
	if (k->cls == C_COMM && k->role >= 0 && k->role == r_dp)
		return BP_GRAD;
	if (k->cls == C_COMM && k->role >= 0 && k->role == r_embd)
		return BP_EMBD;
	return k->cls == C_COMM ? BP_COMM : BP_COMP;
}

/*
 * How a kernel ends the open layer: 2 surely (a send / receive, the
 * optimizer step); 1 unless the pass goes on after it (a gradient sync
 * in the backward phase: overlapped with the backward it is layer time);
 * 0 not.
 */
static int
sealof(const struct lk *k)
{
	if ((k->flags & F_P2P) || k->ph == PH_OPT)
		return 2;
	if (k->ph == PH_BWD && k->cls == C_COMM && k->role >= 0 &&
	    (k->role == r_dp || k->role == r_embd))
		return 1;
	return 0;
}

/* The open layer's figures kept in s* (keep), or put back from them:
 * one list, so that the two ways stay the same. */
static void
seal_keep(struct eng *e, int keep)
{
#define SEAL(f, s) (keep ? memcpy(&e->s, &e->f, sizeof e->f) : memcpy(&e->f, &e->s, sizeof e->f))
	SEAL(cur, scur);
	SEAL(ra, sra);
	SEAL(rn, srn);
	SEAL(rsum, srsum);
	SEAL(rst, srst);
	SEAL(nbuf, snbuf);
	SEAL(ndn, sndn);
#undef SEAL
}

/* Keep the open layer's figures before its first kernel between passes. */
static void
seal_open(struct eng *e, int how)
{
	if (e->seal == 0) {
		seal_keep(e, 1);
		memset(e->pn, 0, sizeof e->pn);
		memset(e->psum, 0, sizeof e->psum);
	}
	if (how > e->seal)
		e->seal = how;
}

/*
 * Close the open layer; cut it back to its last kernel before the work
 * between passes when that is sure or a new pass follows (cut), and
 * count that work in its parts.
 */
void
layer_end(struct eng *e, int ei, int cut)
{
	if (e->seal == 2 || (e->seal == 1 && cut)) {
		seal_keep(e, 0);
		for (int j = 0; j < NBP; j++) {
			e->bn[j] += e->pn[j];
			e->bsum[j] += e->psum[j];
		}
	}
	e->seal = 0;
	layer_close(e, ei);
}

/*
 * Is name in the template of the layer type (a norm a model's layers run,
 * not the once-per-step gradient norm)?
 */
static int
intpl(const struct eng *e, int type, int name)
{
	for (int i = 0; i < e->nt; i++)
		for (int j = 0; e->t[i].type == type && j < e->t[i].ntpl; j++)
			if (e->t[i].tpl[j].name == name)
				return 1;
	return 0;
}

void
eng_kernel(struct eng *e, int ei, const struct lk *k, int anchor, int64_t dur,
    const struct rfield *step, int64_t gap, int af)
{
	int sl = sealof(k);

	if (anchor) {
		int prev = e->open, dir = ei != E_PER && (af & F_BWD);
		int stepchg = prev && e->lstepk && step && !samestep(&e->lstep, 1, step);

		/* As layer_pass cuts passes. */
		if (e->open)
			layer_end(e, ei, (gap >= pass_gap && gap >= 0) || stepchg ||
			    dir != e->cur.dir || e->p2p);
		memset(&e->cur, 0, sizeof e->cur);
		memset(e->ra, 0, sizeof e->ra);
		memset(e->rn, 0, sizeof e->rn);
		memset(e->rsum, 0, sizeof e->rsum);
		memset(e->rst, 0, sizeof e->rst);
		e->nbuf = e->ndn = 0;
		if (++e->serial == 0) {		/* wrapped: forget the stamps */
			memset(e->stamp, 0, e->capst * sizeof *e->stamp);
			e->serial = 1;
		}
		e->cur.stepchg = stepchg;
		keepstep(&e->lstep, &e->lstepk, step);
		e->open = 1;
		e->nanch++;
		e->cur.start = k->s;
		e->cur.end = k->e;
		e->cur.fiadur = dur;
		e->cur.gap = gap;
		e->cur.dir = dir;
		e->cur.p2p = e->p2p;
		e->p2p = 0;
		if (ei == E_FIA)
			e->cur.fcls = (af & F_PFA) ? FC_PREFILL : (af & F_IFA) ? FC_DECODE :
			    dur > prefill_min ? FC_PREFILL : dur < decode_max ? FC_DECODE : FC_AMBIG;
	}
	if (k->flags & F_P2P)
		e->p2p = 1;
	if (!e->open && sl == 2) {	/* before the first layer: not the prologue's */
		e->bn[bpart(k)]++;
		e->bsum[bpart(k)] += k->e - k->s;
		return;
	}
	if (!e->open) {
		if (e->pro_n == 0)
			e->pro_s = k->s;
		if (e->pro_n == 0 || k->e > e->pro_e)
			e->pro_e = k->e;
		e->pro_n++;
		e->pro_sum += k->e - k->s;
		return;
	}
	/* A gradient kernel after a gradient sync: the sync overlaps the pass. */
	if (e->seal == 1 && (k->flags & F_BWD) && !(k->flags & (F_EMB | F_ONCE)))
		e->seal = 0;
	/* The embedding's kernels and once-per-step work (the gradient norm)
	 * after a layer are not its own: the layer ends before them. */
	if ((k->flags & F_EMB) || ((k->flags & F_ONCE) && e->open && e->cur.dir &&
	    !intpl(e, T_BWD, k->name)))
		sl = 2;
	if (sl)
		seal_open(e, sl);
	if (e->seal) {
		e->pn[bpart(k)]++;
		e->psum[bpart(k)] += k->e - k->s;
		if (e->seal == 2)
			return;
	}
	/* The kernel, into the open layer. */
	struct layer *L = &e->cur;
	int fl = k->flags;

	L->kernels++;
	L->ksum += k->e - k->s;
	if (k->e > L->end)
		L->end = k->e;
	L->dfc += !!(fl & F_DFC);
	L->gmm += !!(fl & F_GMM);
	L->gate += !!(fl & F_GATE);
	L->a2a += !!(fl & F_A2A);
	L->samp += !!(fl & F_SAMP);
	L->nfia += !!(fl & F_FIA);
	L->loss += !!(fl & F_LOSS);
	L->aicpu += k->cls == C_AICPU;
	acc_add(&e->ra[k->role], k->s, k->e);
	e->rn[k->role]++;
	e->rsum[k->role] += k->e - k->s;
	e->rst[k->role] |= 1ULL << k->stream;
	if (e->nbuf < (size_t)tplmax) {
		e->buf = xgrow(e->buf, e->nbuf, &e->capbuf, 256, sizeof *e->buf);
		e->buf[e->nbuf++] = *k;
	}
	if ((size_t)k->name >= e->capst) {
		size_t nc = NT.n > 2 * e->capst ? NT.n : 2 * e->capst + 64;

		e->stamp = xreallocarray(e->stamp, nc, sizeof *e->stamp);
		memset(e->stamp + e->capst, 0, (nc - e->capst) * sizeof *e->stamp);
		e->capst = nc;
	}
	if (e->stamp[k->name] != e->serial) {
		e->stamp[k->name] = e->serial;
		e->dn = xgrow(e->dn, e->ndn, &e->capdn, 64, sizeof *e->dn);
		e->dn[e->ndn++] = k->name;
	}
}

static int
isstage(int fam)
{
	return fam >= 0 && (strcmp(famname[fam], "convolution") == 0 ||
	    strcmp(famname[fam], "matmul") == 0);
}

void
period_replay(void)
{
	size_t n = 0, best = 0, ci = 0;
	int *a = xcalloc(G.npk + 1, sizeof *a);
	size_t *ix = xcalloc(G.npk + 1, sizeof *ix);
	struct eng *e = &G.e[E_PER];

	memset(&P, 0, sizeof P);
	for (size_t i = 0; i < G.npk; i++)
		if (G.pk[i].k.cls != C_COMM && G.pk[i].ph == PH_FWD) {
			ix[n] = i;
			a[n++] = G.pk[i].k.name;
		}
	for (size_t p = 2; p <= PATMAX && p * (size_t)minrep <= n; p++) {
		size_t run = 0;

		for (size_t i = p; i < n; i++) {
			size_t rep, st;
			int distinct = 0, stage = 0;

			if (a[i] != a[i - p]) {
				run = 0;
				continue;
			}
			run++;
			rep = (run + p) / p;
			if (rep < (size_t)minrep || rep * p <= best)
				continue;
			st = i + 1 - run - p;
			for (size_t j = st; j < st + p; j++) {
				distinct |= a[j] != a[st];
				stage |= isstage(G.pk[ix[j]].fam);
			}
			if (!distinct || !stage)
				continue;
			best = rep * p;
			P.per = p;
			P.rep = rep;
			P.at = st;
		}
	}
	P.n = n;
	if (best) {
		for (size_t i = 0; i < G.npk; i++) {
			const struct pk *q = &G.pk[i];
			struct rfield sf, *sp = NULL;
			char sb[24];
			int anchor = 0;

			if (q->k.cls != C_COMM && q->ph == PH_FWD) {
				anchor = ci >= P.at && ci < P.at + P.rep * P.per && (ci - P.at) % P.per == 0;
				ci++;
			}
			if (q->step >= 0) {
				sf.k = "step";
				sf.klen = 4;
				sf.vlen = (size_t)snprintf(sb, sizeof sb, "%d", q->step);
				sf.v = sb;
				sp = &sf;
			}
			eng_kernel(e, E_PER, &q->k, anchor, q->dur, sp, q->gap, q->k.flags);
		}
	}
	free(a);
	free(ix);
}
