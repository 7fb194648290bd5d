/*
 * asc-archmd: jv access for what the C part reads and decides of the
 * records (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "archmd.h"

/* jv access (all borrow o) ------------------------------------------- */

jv
get(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT)
		return jv_null();
	return jv_object_get(jv_copy(o), jv_string(k));
}

int
has(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_NUMBER || jv_get_kind(v) == JV_KIND_STRING;

	jv_free(v);
	return r;
}

int64_t
gi(jv o, const char *k)
{
	jv v = get(o, k);
	int64_t r = jv_get_kind(v) == JV_KIND_NUMBER ? (int64_t)jv_number_value(v) : 0;

	jv_free(v);
	return r;
}

/* A string field, copied into a ring of buffers ("" when missing). */
const char *
gs(jv o, const char *k)
{
	static char *ring[16];
	static int at;
	jv v = get(o, k);
	char *s;

	if (jv_get_kind(v) == JV_KIND_STRING)
		s = xstrdup(jv_string_value(v));
	else if (jv_get_kind(v) == JV_KIND_NUMBER || jv_get_kind(v) == JV_KIND_TRUE ||
	    jv_get_kind(v) == JV_KIND_FALSE) {
		jv d = jv_dump_string(jv_copy(v), 0);

		s = xstrdup(jv_string_value(d));
		jv_free(d);
	} else
		s = xstrdup("");
	jv_free(v);
	at = (at + 1) % 16;
	free(ring[at]);
	ring[at] = s;
	return s;
}

int
len(jv a)
{
	return jv_get_kind(a) == JV_KIND_ARRAY ? jv_array_length(jv_copy(a)) : 0;
}

/* A boolean field: 1, 0, or -1 when missing or null. */
int
gb(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_TRUE ? 1 : jv_get_kind(v) == JV_KIND_FALSE ? 0 : -1;

	jv_free(v);
	return r;
}
