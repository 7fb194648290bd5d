/* gather: collect the records of one profile by type, capped. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gather.h"
#include "util.h"

struct slot {
	jv	 list;
	long	 total;
	double	 floor;		/* GATHER_LONGEST: shortest kept after a trim */
};

struct gather {
	const struct gather_type *t;
	int		 n;
	struct slot	*s;
};

struct gather *
gather_new(const struct gather_type *t, int n)
{
	struct gather *g = xcalloc(1, sizeof *g);

	g->t = t;
	g->n = n;
	g->s = xcalloc((size_t)n, sizeof *g->s);
	for (int i = 0; i < n; i++)
		g->s[i].list = jv_array();
	return g;
}

int
gather_index(const struct gather *g, const char *t, size_t n)
{
	for (int i = 0; i < g->n; i++)
		if (strlen(g->t[i].type) == n && memcmp(g->t[i].type, t, n) == 0)
			return i;
	return -1;
}

static double
durof(jv v)
{
	jv d = jv_object_get(v, jv_string("dur_ns"));
	double x = jv_get_kind(d) == JV_KIND_NUMBER ? jv_number_value(d) : 0;

	jv_free(d);
	return x;
}

static int
bydur(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Keep the cap longest of a list at most twice the cap long. */
static void
trim(struct slot *s, size_t cap)
{
	int n = jv_array_length(jv_copy(s->list));
	double *d = xreallocarray(NULL, (size_t)n, sizeof *d);
	jv out = jv_array();
	size_t k = 0;

	for (int i = 0; i < n; i++)
		d[i] = durof(jv_array_get(jv_copy(s->list), i));
	{
		double *sorted = xreallocarray(NULL, (size_t)n, sizeof *sorted);

		memcpy(sorted, d, (size_t)n * sizeof *d);
		qsort(sorted, (size_t)n, sizeof *sorted, bydur);
		s->floor = sorted[cap - 1];
		free(sorted);
	}
	for (int i = 0; i < n && k < cap; i++)
		if (d[i] > s->floor) {
			out = jv_array_append(out, jv_array_get(jv_copy(s->list), i));
			k++;
		}
	for (int i = 0; i < n && k < cap; i++)
		if (d[i] == s->floor) {
			out = jv_array_append(out, jv_array_get(jv_copy(s->list), i));
			k++;
		}
	jv_free(s->list);
	s->list = out;
	free(d);
}

int
gather_add(struct gather *g, int i, struct rin *r)
{
	const struct gather_type *t = &g->t[i];
	struct slot *s = &g->s[i];
	const char *l;
	size_t n;
	jv v;

	if (t->significant) {
		int sig = 1;

		if (rin_scan(r) != 0)
			return -1;
		if (rf_bool(rin_get(r, "significant"), &sig) != 0)
			sig = 1;
		if (!sig)
			return 0;
	}
	s->total++;
	if (t->cap && t->mode == GATHER_FIRST && s->total > (long)t->cap)
		return 0;
	if (t->cap && t->mode == GATHER_LONGEST && s->floor > 0) {
		int64_t d;

		/* Cheap early drop: shorter than what a trim already kept. */
		if (rin_scan(r) == 0 && rin_i64(r, "dur_ns", &d) == 0 && (double)d < s->floor)
			return 0;
	}
	l = rin_line(r, &n);
	v = jv_parse_sized(l, (int)n);
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);

		rin_error(r, "invalid JSON: %s",
		    jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "?");
		jv_free(m);
		s->total--;
		return -1;
	}
	s->list = jv_array_append(s->list, v);
	if (t->cap && t->mode == GATHER_LONGEST &&
	    (size_t)jv_array_length(jv_copy(s->list)) >= 2 * t->cap)
		trim(s, t->cap);
	return 0;
}

jv
gather_take(struct gather *g)
{
	jv o = jv_object();

	for (int i = 0; i < g->n; i++) {
		struct slot *s = &g->s[i];
		char key[96];

		if (g->t[i].cap && g->t[i].mode == GATHER_LONGEST &&
		    (size_t)jv_array_length(jv_copy(s->list)) > g->t[i].cap)
			trim(s, g->t[i].cap);
		snprintf(key, sizeof key, "%s_total", g->t[i].type);
		o = jv_object_set(o, jv_string(g->t[i].type), s->list);
		o = jv_object_set(o, jv_string(key), jv_number((double)s->total));
		s->list = jv_array();
		s->total = 0;
		s->floor = 0;
	}
	return o;
}

void
gather_free(struct gather *g)
{
	if (g == NULL)
		return;
	for (int i = 0; i < g->n; i++)
		jv_free(g->s[i].list);
	free(g->s);
	free(g);
}
