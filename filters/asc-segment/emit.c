/* asc-segment: the structure, step_structure and structure_drilldown
 * records (segment.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsms.h"

#include "segment.h"

static struct grp *
group_get(const char *id, size_t n)
{
	for (size_t i = 0; i < S.ng; i++)
		if (sr_is(id, n, S.g[i].id))
			return &S.g[i];
	S.g = xgrow(S.g, S.ng, &S.capg, 8, sizeof *S.g);
	S.g[S.ng] = (struct grp){ .id = xstrndup(id, n), .best = -1 };
	return &S.g[S.ng++];
}

/* What every record of a step starts with: its profile, device, step
 * and group. */
static void
stepkey(struct buf *b, const struct stepx *x)
{
	out_raw(b, "profile", S.prof.p, S.prof.len);
	out_key(b, "device");
	sr_raw(b, x->dev);
	out_key(b, "step_id");
	sr_raw(b, x->sid);
	out_key(b, "group_id");
	sr_raw(b, x->gid);
}

/* line = the step id, ':' and structure index b: a structure_id. */
static void
structid(long b)
{
	char idbuf[32];

	snprintf(idbuf, sizeof idbuf, ":%ld", b);
	line.len = 0;
	buf_add(&line, tmp.p, tmp.len);
	buf_adds(&line, idbuf);
}

/* The "structure" records of the step. */
void
emit_structures(const struct stepx *x)
{
	char idbuf[64];

	for (size_t b = 0; b < x->nst; b++) {
		const struct st *s = &x->sv[b];
		struct clocks c = { 0 };
		int64_t nmain = 0;

		for (size_t i = s->first; i < s->first + s->n; i++) {
			clk_add(&c, &S.k[i]);
			nmain += S.k[i].stream == x->main_stream;
		}
		out_begin(&ob, "structure");
		stepkey(&ob, x);
		out_i64(&ob, "structure", (int64_t)b);
		structid((long)b);
		out_str(&ob, "structure_id", line.p, line.len);
		snprintf(idbuf, sizeof idbuf, "T%d", s->type);
		out_cstr(&ob, "structure_type", idbuf);
		snprintf(idbuf, sizeof idbuf, "%016llx", (unsigned long long)s->hash);
		out_cstr(&ob, "template", idbuf);
		out_cstr(&ob, "kind", kindname[s->kind]);
		out_cstr(&ob, "source", kindname[x->source]);
		out_i64_or_null(&ob, "period", s->kind == K_REPEAT, s->period);
		out_i64_or_null(&ob, "region", s->kind == K_REPEAT, s->region);
		out_i64_or_null(&ob, "repeat", s->kind == K_REPEAT, s->rep);
		out_i64(&ob, "kernels", (int64_t)s->n);
		out_i64(&ob, "main_stream_kernels", nmain);
		out_i64(&ob, "start_ns", c.s);
		out_i64(&ob, "end_ns", c.e);
		putclocks(&ob, &c, c.e - c.s);
		out_ratio(&ob, "structure_share", c.e - c.s, x->service);
		out_nsms(&ob, "gap_before", s->gapbefore);
		out_nsms(&ob, "internal_bubble_total", s->inside);
		out_i64(&ob, "internal_bubble_count", s->nin);
		out_nsms(&ob, "largest_internal_bubble", s->largest);
		dominant(&ob, s->first, s->first + s->n, (int)b, -1);
		part(&ob, "block", s->first, s->first + s->n, (int)b, 1);
		part(&ob, "side", s->first, s->first + s->n, (int)b, 0);
		topkernels(&ob, "top_by_duration", s->first, s->first + s->n, (int)b, 0);
		topkernels(&ob, "top_by_total_cost", s->first, s->first + s->n, (int)b, 1);
		topkernels(&ob, "wait_heavy", s->first, s->first + s->n, (int)b, 2);
		rec_put(&ob, stdout);
	}
}

/* "types": the structure types of the step with their counts, in order
 * of first use. */
static void
emit_types(struct buf *sb, const struct stepx *x)
{
	const struct st *sv = x->sv;
	char idbuf[64];

	out_key(sb, "types");
	buf_addc(sb, '[');
	for (size_t b = 0, c2 = 0; b < x->nst; b++) {
		size_t cnt = 0, j;

		for (j = 0; j < b; j++)
			if (sv[j].type == sv[b].type)
				break;
		if (j < b)
			continue;
		for (j = b; j < x->nst; j++)
			cnt += sv[j].type == sv[b].type;
		if (c2++)
			buf_addc(sb, ',');
		snprintf(idbuf, sizeof idbuf, "T%d", sv[b].type);
		buf_adds(sb, "{\"structure_type\":");
		out_esc(sb, idbuf, strlen(idbuf));
		out_i64(sb, "count", (int64_t)cnt);
		out_cstr(sb, "kind", kindname[sv[b].kind]);
		if (sv[b].kind == K_REPEAT)
			out_i64(sb, "period", sv[b].period);
		else
			out_null(sb, "period");
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
}

/* "bubble_structures" (the structures holding the most bubble time, gap
 * before + inside) and "largest_bubbles" (where they sit). */
static void
emit_bubbles(struct buf *sb, const struct stepx *x)
{
	const struct st *sv = x->sv;
	size_t *top = xcalloc((size_t)topk + 1, sizeof *top);
	int64_t *tv = xcalloc((size_t)topk + 1, sizeof *tv);
	int tn = 0;
	char idbuf[64];

	for (size_t b = 0; b < x->nst; b++) {
		int64_t v = sv[b].gapbefore + sv[b].inside;

		if (v > 0)
			topins(top, tv, &tn, b, v);
	}
	out_key(sb, "bubble_structures");
	buf_addc(sb, '[');
	for (int j = 0; j < tn; j++) {
		const struct st *s = &sv[top[j]];

		if (j)
			buf_addc(sb, ',');
		structid((long)top[j]);
		buf_adds(sb, "{\"structure_id\":");
		out_esc(sb, line.p, line.len);
		snprintf(idbuf, sizeof idbuf, "T%d", s->type);
		out_cstr(sb, "structure_type", idbuf);
		out_nsms(sb, "bubble", s->gapbefore + s->inside);
		out_nsms(sb, "gap_before", s->gapbefore);
		out_nsms(sb, "internal_bubble_total", s->inside);
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
	tn = 0;
	for (size_t i = 0; i < x->nbub; i++)
		topins(top, tv, &tn, i, x->bubs[i].d);
	out_key(sb, "largest_bubbles");
	buf_addc(sb, '[');
	for (int j = 0; j < tn; j++) {
		const struct bub *u = &x->bubs[top[j]];

		if (j)
			buf_addc(sb, ',');
		buf_adds(sb, "{\"start_ns\":");
		out_int(sb, u->s);
		out_nsms(sb, "dur", u->d);
		structid((long)u->st);
		out_str(sb, "structure_id", line.p, line.len);
		out_cstr(sb, "at", u->boundary ? "boundary" : "inside");
		buf_addc(sb, '}');
	}
	buf_addc(sb, ']');
	free(top);
	free(tv);
}

/* The step's record kept for the drill-down when its group's best. */
static void
keep_drill(const struct stepx *x, const struct buf *sb)
{
	struct rfield gf;
	struct grp *g;
	int64_t bub = x->bnd + x->ins;

	if (x->gid == NULL || rf_isnull(x->gid))
		return;
	gf = *x->gid;
	line.len = 0;
	if (rf_str(&gf, &line) != 0)
		return;
	g = group_get(line.p, line.len);
	g->service += x->service;
	if (g->best < 0 || bub > g->best || (bub == g->best && x->service > g->bestsvc)) {
		g->best = bub;
		g->bestsvc = x->service;
		free(g->line);
		g->line = xmalloc(sb->len + 2);
		memcpy(g->line, sb->p, sb->len);
		memcpy(g->line + sb->len, "}", 2);
	}
}

/* The "step_structure" record of the step. */
void
emit_step_structure(const struct stepx *x)
{
	struct buf sb = { 0 };
	struct clocks c = { 0 };
	size_t n = x->n;

	for (size_t i = 0; i < n; i++)
		clk_add(&c, &S.k[i]);
	out_begin(&sb, "step_structure");
	stepkey(&sb, x);
	out_cstr(&sb, "source", kindname[x->source]);
	out_i64(&sb, "structures", (int64_t)x->nst);
	emit_types(&sb, x);
	out_key(&sb, "main_stream");
	if (x->main_stream >= 0)
		nth(&sb, &S.streams, x->main_stream);
	else
		buf_adds(&sb, "null");
	out_i64(&sb, "kernels", (int64_t)n);
	out_i64(&sb, "start_ns", x->ws);
	out_i64(&sb, "end_ns", x->we);
	putclocks(&sb, &c, x->service);
	dominant(&sb, 0, n, -1, -1);
	part(&sb, "block", 0, n, -1, 1);
	part(&sb, "side", 0, n, -1, 0);
	topkernels(&sb, "top_by_duration", 0, n, -1, 0);
	topkernels(&sb, "top_by_total_cost", 0, n, -1, 1);
	topkernels(&sb, "wait_heavy", 0, n, -1, 2);
	out_nsms_or_null(&sb, "prelaunch_gap", x->measurable, x->pre);
	out_nsms_or_null(&sb, "tail_gap", x->measurable, x->tail);
	out_nsms(&sb, "boundary_bubble_total", x->bnd);
	out_i64(&sb, "boundary_bubble_count", x->nbnd);
	out_nsms(&sb, "inside_bubble_total", x->ins);
	out_i64(&sb, "inside_bubble_count", x->nins);
	out_cstr(&sb, "bubbles_at", x->bnd + x->ins == 0 ? "none" :
	    x->bnd * 5 >= 4 * (x->bnd + x->ins) ? "boundary" :
	    x->ins * 5 >= 4 * (x->bnd + x->ins) ? "inside" : "mixed");
	emit_bubbles(&sb, x);
	/* Keep the record for the drill-down before rec_put empties it. */
	keep_drill(x, &sb);
	rec_put(&sb, stdout);
	buf_free(&sb);
}

void
drilldown(void)
{
	struct grp *d = NULL;

	if (!S.sect.active || S.drilled)
		return;
	S.drilled = 1;
	for (size_t i = 0; i < S.ng; i++) {
		if (S.domgroup.len ? (strlen(S.g[i].id) == S.domgroup.len &&
		    memcmp(S.g[i].id, S.domgroup.p, S.domgroup.len) == 0) :
		    (d == NULL || S.g[i].service > d->service))
			d = &S.g[i];
	}
	if (d == NULL || d->line == NULL)
		return;
	out_begin(&ob, "structure_drilldown");
	out_raw(&ob, "profile", S.prof.p, S.prof.len);
	out_str(&ob, "dominant_group_id", d->id, strlen(d->id));
	out_cstr(&ob, "selection", "the dominant group's step with the largest "
	    "internal bubble total (boundary + inside), then the longest");
	/* Fields of the chosen step_structure, by copy. */
	{
		struct rin *r = rin_mem(d->line, strlen(d->line));
		const struct rfield *f;
		static const char *const keys[] = { "step_id", "device", "source", "structures",
		    "boundary_bubble_total_ns", "boundary_bubble_total_ms",
		    "inside_bubble_total_ns", "inside_bubble_total_ms", "bubbles_at",
		    "bubble_structures", "largest_bubbles" };

		if (rin_scan(r) == 0)
			for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
				out_key(&ob, keys[i]);
				sr_raw(&ob, (f = rin_get(r, keys[i])));
			}
		rin_free(r);
	}
	out_raw(&ob, "step_structure", d->line, strlen(d->line));
	rec_put(&ob, stdout);
}
