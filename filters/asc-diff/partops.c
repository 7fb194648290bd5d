/*
 * partops: which part of asc-parts each kernel is in, summed by op.  A
 * part is a run of consecutive kernels of its step in start order, so a
 * kernel is in the step's last part that starts at or before it; the
 * calls summed per part are checked against the part's "kernels" by
 * asc-diff.jq, which says so when they differ.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opkey.h"
#include "rec.h"
#include "util.h"
#include "partops.h"

struct pstep {
	char	*id;
	int64_t	*start;		/* the parts' starts, ascending */
	int	*part;		/* their "part" index */
	int	 n;
};

struct cell {
	int	 step, part;
	char	*op, *type;
	int64_t	 calls, dur, wait;
};

static struct pstep *steps;
static int nsteps;
static struct cell *cells;
static size_t ncells, cap;	/* cap: a power of two, open addressing */

static int
cmp64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

/* The steps and the parts' starts, from the part records. */
static void
index_parts(jv parts)
{
	steps = xcalloc((size_t)jv_array_length(jv_copy(parts)) + 1, sizeof *steps);
	jv_array_foreach(parts, i, p) {
		jv id = jv_object_get(jv_copy(p), jv_string("step_id"));
		jv st = jv_object_get(jv_copy(p), jv_string("start_ns"));
		jv ix = jv_object_get(p, jv_string("part"));
		struct pstep *s = NULL;

		if (jv_get_kind(id) == JV_KIND_STRING && jv_get_kind(st) == JV_KIND_NUMBER &&
		    jv_get_kind(ix) == JV_KIND_NUMBER) {
			for (int k = 0; k < nsteps && !s; k++)
				if (strcmp(steps[k].id, jv_string_value(id)) == 0)
					s = &steps[k];
			if (!s) {
				s = &steps[nsteps++];
				s->id = xstrdup(jv_string_value(id));
				s->start = xcalloc((size_t)jv_array_length(jv_copy(parts)), 2 * sizeof(int64_t));
				s->part = xcalloc((size_t)jv_array_length(jv_copy(parts)), sizeof(int));
			}
			/* starts and indexes together: sorted as pairs below */
			s->start[2 * s->n] = (int64_t)jv_number_value(st);
			s->start[2 * s->n + 1] = (int64_t)jv_number_value(ix);
			s->n++;
		}
		jv_free(id);
		jv_free(st);
		jv_free(ix);
	}
	jv_free(parts);
	for (int k = 0; k < nsteps; k++) {
		struct pstep *s = &steps[k];

		qsort(s->start, (size_t)s->n, 2 * sizeof(int64_t), cmp64);
		for (int j = 0; j < s->n; j++) {
			s->part[j] = (int)s->start[2 * j + 1];
			s->start[j] = s->start[2 * j];
		}
	}
}

/* The part of a kernel of step s starting at t, or -1 (before the first). */
static int
find_part(const struct pstep *s, int64_t t)
{
	int lo = 0, hi = s->n;	/* the first start > t */

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (s->start[mid] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo == 0 ? -1 : s->part[lo - 1];
}

static struct cell *
cell_get(int step, int part, const char *op, size_t n)
{
	uint64_t h;
	size_t i;

	if (2 * (ncells + 1) > cap) {
		struct cell *old = cells;
		size_t oc = cap;

		cap = cap ? 2 * cap : 1024;
		cells = xcalloc(cap, sizeof *cells);
		for (size_t j = 0; j < oc; j++)
			if (old[j].op) {
				h = hash64((uint64_t)old[j].step << 32 | (uint32_t)old[j].part,
				    old[j].op, strlen(old[j].op));
				for (i = h & (cap - 1); cells[i].op; i = (i + 1) & (cap - 1))
					;
				cells[i] = old[j];
			}
		free(old);
	}
	h = hash64((uint64_t)step << 32 | (uint32_t)part, op, n);
	for (i = h & (cap - 1); cells[i].op; i = (i + 1) & (cap - 1))
		if (cells[i].step == step && cells[i].part == part &&
		    strlen(cells[i].op) == n && memcmp(cells[i].op, op, n) == 0)
			return &cells[i];
	cells[i].step = step;
	cells[i].part = part;
	cells[i].op = xmalloc(n + 1);
	memcpy(cells[i].op, op, n);
	cells[i].op[n] = '\0';
	ncells++;
	return &cells[i];
}

/* One kernel line: summed into its part's op, if it is in a part. */
static int
add_kernel(struct rin *r, struct buf *tmp, struct buf *key)
{
	const struct rfield *f;
	int64_t t, dur = 0, wait = 0;
	struct pstep *s = NULL;
	struct cell *c;
	int part;

	if (rin_scan(r) != 0)
		return -1;
	f = rin_get(r, "step_id");
	tmp->len = 0;
	if (f == NULL || rf_str(f, tmp) != 0 || rin_i64(r, "start_ns", &t) != 0)
		return 0;	/* outside the steps */
	for (int k = 0; k < nsteps && !s; k++)
		if (strcmp(steps[k].id, tmp->p) == 0)
			s = &steps[k];
	if (s == NULL || (part = find_part(s, t)) < 0)
		return 0;
	rin_i64(r, "dur_ns", &dur);
	rin_i64(r, "wait_ns", &wait);
	tmp->len = 0;
	if ((f = rin_get(r, "name")) == NULL || rf_str(f, tmp) != 0)
		return 0;
	key->len = 0;
	opkey(tmp->p, tmp->len, key);
	c = cell_get((int)(s - steps), part, key->p, key->len);
	if (c->type == NULL && (f = rin_get(r, "op_type")) != NULL && !rf_isnull(f)) {
		tmp->len = 0;
		if (rf_str(f, tmp) == 0)
			c->type = xstrdup(tmp->p);
	}
	c->calls++;
	c->dur += dur > 0 ? dur : 0;
	c->wait += wait > 0 ? wait : 0;
	return 0;
}

static jv
cells_take(void)
{
	jv out = jv_array();

	for (size_t i = 0; i < cap; i++) {
		struct cell *c = &cells[i];
		jv o;

		if (!c->op)
			continue;
		o = jv_object_set(jv_object(), jv_string("step_id"), jv_string(steps[c->step].id));
		o = jv_object_set(o, jv_string("part"), jv_number(c->part));
		o = jv_object_set(o, jv_string("op"), jv_string(c->op));
		o = jv_object_set(o, jv_string("op_type"), c->type ? jv_string(c->type) : jv_null());
		o = jv_object_set(o, jv_string("calls"), jv_number((double)c->calls));
		o = jv_object_set(o, jv_string("dur_ns"), jv_number((double)c->dur));
		o = jv_object_set(o, jv_string("wait_ns"), jv_number((double)c->wait));
		out = jv_array_append(out, o);
		free(c->op);
		free(c->type);
	}
	free(cells);
	cells = NULL;
	ncells = cap = 0;
	for (int k = 0; k < nsteps; k++) {
		free(steps[k].id);
		free(steps[k].start);
		free(steps[k].part);
	}
	free(steps);
	steps = NULL;
	nsteps = 0;
	return out;
}

jv
partops(const char *path, jv parts)
{
	struct buf tmp = { 0 }, key = { 0 };
	struct rin *r;
	const char *t;
	size_t tn;

	index_parts(parts);
	if ((r = rin_new(path, 0)) == NULL)
		dieerr("%s", path);
	for (;;) {
		int n = rin_next(r);

		if (n == 0)
			break;
		if (n < 0 || rin_type(r, &t, &tn) != 0 ||
		    (tn == 6 && memcmp(t, "kernel", 6) == 0 && add_kernel(r, &tmp, &key) != 0))
			die("%s:%lu: %s", path, rin_lineno(r), rin_errmsg(r));
		if (!(tn == 6 && memcmp(t, "kernel", 6) == 0))
			rin_bulk(r, t, tn, NULL);
	}
	rin_free(r);
	buf_free(&tmp);
	buf_free(&key);
	return cells_take();
}
