/*
 * asc-comm: the device's view of comm ops: "comm_pipeline" (a step cut at
 * a group's send/recv ops, with each stretch's idle time) and, without
 * HCCL tasks, "comm_op_wait" (an op split by the device's own tasks).
 */
#include <stdlib.h>
#include <string.h>

#include "busy.h"
#include "nsms.h"

#include "comm.h"

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
	out_nsms(&ob, "idle", e - s - iv_covered(al, nal, s, e));
	buf_addc(&ob, '}');
}

/*
 * "comm_pipeline": per group with send/recv ops and per step, the step cut
 * at those ops (from the step's first kernel to the first op, between
 * ops, from the last op to the step's last kernel) with each stretch's
 * device idle time, to tell idle that the peer stage's work hides from
 * idle it waits for.  S.op sorted by start, their records found.
 */
void
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
void
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
		mv = iv_covered(S.mv, S.nmv, o->start, o->end);
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
			out_nsms_null(&ob, "moving");
			out_nsms_null(&ob, "rest");
		}
		rec_put(&ob, stdout);
	}
}
