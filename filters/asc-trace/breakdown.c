/* asc-trace: the time breakdown, busy runs drawn from the kernels in the
 * step windows (trace.h). */
#include <string.h>

#include "busy.h"
#include "dec.h"
#include "rules.h"
#include "steprec.h"

#include "trace.h"

/*
 * Busy time, named by what kind of kernels fill it: the segments of
 * asc-merge, drawn from the kernels (asc-gaps consumes the segment
 * records), clipped to the step windows: in the first pass, where a
 * step's step_metrics record comes after its kernels and before the next
 * step's.
 */
static struct {
	struct win { int64_t s, e, minb; char *id; } *w;
	size_t		 nw, capw, cur;
	struct busy	 b;
	struct buf	 step;		/* raw step_id of the buffered kernels */
	int		 have;
	/*
	 * The run being drawn: segments of one kind (compute, communication,
	 * both) apart by less than the step's min_bubble_us (idle windows
	 * that have no bubble record) are one event; -a draws each segment.
	 */
	int64_t		 minb, rs, re, rkern, rcomp, rcomm, ridle;
	long		 rfirst, rsegs;
	int		 rkind;
	struct buf	 rname0, rname1;	/* first and last kernel names, raw */
} B;

void
win_add(const struct rin *r, int64_t s, int64_t e)
{
	const struct rfield *f = rin_get(r, "step_id"), *m = rin_get(r, "min_bubble_us");
	int64_t minb;

	if (f == NULL)
		return;
	if (m == NULL || dec_us2ns(m->v, m->vlen, &minb) != 0 || minb < 0)
		minb = rules_ns("bubbles.min_bubble_us", 1e3);
	B.w = xgrow(B.w, B.nw, &B.capw, 64, sizeof *B.w);
	B.w[B.nw].s = s;
	B.w[B.nw].e = e;
	B.w[B.nw].minb = minb;
	B.w[B.nw++].id = xstrndup(f->v, f->vlen);
}

/*
 * The name of a kernel context object ({"name":...,...}, sr_ctx) as raw
 * JSON into o: a busy event names its first and last kernels, whose whole
 * contexts are on the kernels themselves in the trace beneath.
 */
static void
ctxname(struct buf *o, const struct busy *b, const struct busy_iv *v)
{
	static const char pre[] = "{\"name\":";
	const char *p = b->ctx.p + v->ctx, *e = p + v->ctxlen, *q;

	o->len = 0;
	if (v->ctxlen < sizeof pre || memcmp(p, pre, sizeof pre - 1) != 0) {
		buf_adds(o, "null");
		return;
	}
	p += sizeof pre - 1;
	q = p;
	if (*q == '"') {
		for (q++; q < e && *q != '"'; q++)
			if (*q == '\\')
				q++;
		q++;
	} else
		while (q < e && *q != ',' && *q != '}')
			q++;
	buf_add(o, p, (size_t)(q > e ? e - p : q - p));
}

/* The run drawn as one event, named by what kind of kernels fill it. */
static const char *const kindname[] = { "compute", "communication", "compute + communication" };

static void
run_out(void)
{
	const char *name = kindname[B.rkind];
	int64_t busy = B.re - B.rs - B.ridle;

	if (B.rsegs == 0)
		return;
	ev_begin(T_BREAK, name, strlen(name), NULL, B.rs, B.re - B.rs, "asc.busy");
	out_raw(&eb, "step_id", B.step.p, B.step.len);
	out_i64(&eb, "segment", B.rfirst);
	out_i64(&eb, "segments", B.rsegs);
	out_i64(&eb, "kernels", B.rkern);
	kv_us("busy_us", busy);
	kv_us("idle_inside_us", B.ridle);
	kv_us("compute_us", B.rcomp);
	kv_us("comm_us", B.rcomm);
	kv_us("comm_not_overlapped_us", busy - B.rcomp);
	out_raw(&eb, "first", B.rname0.p, B.rname0.len);
	out_raw(&eb, "last", B.rname1.p, B.rname1.len);
	ev_end();
	B.rsegs = 0;
}

/* A merged segment: the run goes on over a gap below min_bubble_us. */
static void
putbusy(const struct busy *b, const struct busy_seg *g, void *arg)
{
	int kind = g->comm == 0 ? 0 : g->compute == 0 ? 1 : 2;

	if (B.rsegs > 0 && !aflag && kind == B.rkind && g->s - B.re < B.minb) {
		B.ridle += g->s - B.re;
	} else {
		run_out();
		B.rkind = kind;
		B.rs = g->s;
		B.rfirst = g->index;
		B.rkern = B.rcomp = B.rcomm = B.ridle = 0;
		ctxname(&B.rname0, b, g->first);
	}
	B.re = g->e;
	B.rsegs++;
	B.rkern += g->kernels;
	B.rcomp += g->compute;
	B.rcomm += g->comm;
	ctxname(&B.rname1, b, g->last);
}

/* The buffered step's segments, in the window of the same step_id (steps
 * come in the order of their kernels: the search starts where it ended). */
void
busy_flush(void)
{
	if (!B.have)
		return;
	B.have = 0;
	for (size_t i = 0; i < B.nw; i++) {
		struct win *w = &B.w[(B.cur + i) % B.nw];

		if (strlen(w->id) == B.step.len && memcmp(w->id, B.step.p, B.step.len) == 0) {
			B.cur = (B.cur + i + 1) % B.nw;
			B.minb = w->minb;
			B.rsegs = 0;
			busy_merge(&B.b, w->s, w->e, putbusy, NULL);
			run_out();
			return;
		}
	}
	busy_clear(&B.b);	/* a step without metrics: nothing to draw on */
}

void
do_busy(struct rin *r)
{
	struct sr_kern k;

	if (sr_kernel(r, &k) != 0 || k.step_id == NULL || rf_isnull(k.step_id))
		return;
	if (B.have && (k.step_id->vlen != B.step.len ||
	    memcmp(k.step_id->v, B.step.p, B.step.len) != 0))
		busy_flush();
	if (!B.have) {
		B.have = 1;
		B.step.len = 0;
		buf_add(&B.step, k.step_id->v, k.step_id->vlen);
	}
	busy_add(&B.b, &k);
}
