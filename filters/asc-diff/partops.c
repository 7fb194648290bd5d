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

#include "intern.h"
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

/* An op of a part of a step: its key in keys is the step, the part and
 * the op's name (opkey.h), its sums in cells by the key's id. */
struct cell {
	int	 step, part;
	char	*type;
	int64_t	 calls, dur, wait;
};

static struct pstep *steps;
static int nsteps;
static struct intern keys;
static struct cell *cells;
static size_t ncells, cap;

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

/* The cell of key k[0..n) (see struct cell) of the step and part. */
static struct cell *
cell_get(int step, int part, const char *k, size_t n)
{
	size_t id = intern_add(&keys, k, n);

	if (id == ncells) {
		cells = xgrow(cells, ncells, &cap, 1024, sizeof *cells);
		cells[ncells++] = (struct cell){ .step = step, .part = part };
	}
	return &cells[id];
}

/* One kernel line: summed into its part's op, if it is in a part. */
static int
add_kernel(struct rin *r, struct buf *tmp, struct buf *key)
{
	const struct rfield *f;
	int64_t t, dur = 0, wait = 0;
	struct pstep *s = NULL;
	struct cell *c;
	int step, part;

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
	step = (int)(s - steps);
	key->len = 0;
	buf_add(key, &step, sizeof step);
	buf_add(key, &part, sizeof part);
	opkey(tmp->p, tmp->len, key);
	c = cell_get(step, part, key->p, key->len);
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

	for (size_t i = 0; i < ncells; i++) {
		struct cell *c = &cells[i];
		const char *op = keys.v[i].s + 2 * sizeof(int);
		jv o;

		o = jv_object_set(jv_object(), jv_string("step_id"), jv_string(steps[c->step].id));
		o = jv_object_set(o, jv_string("part"), jv_number(c->part));
		o = jv_object_set(o, jv_string("op"), jv_string(op));
		o = jv_object_set(o, jv_string("op_type"), c->type ? jv_string(c->type) : jv_null());
		o = jv_object_set(o, jv_string("calls"), jv_number((double)c->calls));
		o = jv_object_set(o, jv_string("dur_ns"), jv_number((double)c->dur));
		o = jv_object_set(o, jv_string("wait_ns"), jv_number((double)c->wait));
		out = jv_array_append(out, o);
		free(c->type);
	}
	intern_free(&keys);
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
