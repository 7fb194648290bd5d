/*
 * asc-archmd: jv access, text and table helpers and lookups shared by the
 * sections (archmd.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "dec.h"
#include "md.h"
#include "archmd.h"

struct buf R, tb;

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

jv
at(jv a, int i)
{
	return jv_array_get(jv_copy(a), i);
}

/* Text --------------------------------------------------------------- */

void
pf(const char *fmt, ...)
{
	va_list ap;
	char s[1024];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(s, sizeof s, fmt, ap);
	va_end(ap);
	if (n >= (int)sizeof s) {
		char *big = xmalloc((size_t)n + 1);

		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		buf_adds(&R, big);
		free(big);
	} else
		buf_adds(&R, s);
}

/* Milliseconds from ns, exact, with the unit.  A ring of results. */
const char *
ms(int64_t ns)
{
	static char ring[16][48];
	static int i;
	char t[40];

	i = (i + 1) % 16;
	dec_fmt(t, ns, 6);
	snprintf(ring[i], sizeof ring[i], "%s ms", t);
	return ring[i];
}

/* 1000 num/den rounded half up, as a decimal of scale places and unit;
 * "n/a" when den <= 0.  A ring of results, shared by pct() and ratio()
 * (a report line holds a few of them). */
static const char *
permille(int64_t num, int64_t den, int scale, const char *unit)
{
	static char ring[24][48];
	static int i;
	char d[40];

	i = (i + 1) % 24;
	if (den <= 0)
		snprintf(ring[i], sizeof ring[i], "n/a");
	else {
		dec_fmt(d, (num * 1000 + den / 2) / den, scale);
		snprintf(ring[i], sizeof ring[i], "%s%s", d, unit);
	}
	return ring[i];
}

/* num/den as a percentage with one decimal. */
const char *
pct(int64_t num, int64_t den)
{
	return permille(num, den, 1, " %");
}

/* num/den with three decimals. */
const char *
ratio(int64_t num, int64_t den)
{
	return permille(num, den, 3, "");
}

/* A table row of n cells; '|' in a cell is escaped. */
void
row(int n, ...)
{
	va_list ap;

	va_start(ap, n);
	buf_addc(&R, '|');
	for (int i = 0; i < n; i++) {
		const char *c = va_arg(ap, const char *);

		buf_addc(&R, ' ');
		for (; *c; c++) {
			if (*c == '|')
				buf_addc(&R, '\\');
			if (*c == '\n')
				buf_addc(&R, ' ');
			else
				buf_addc(&R, *c);
		}
		buf_adds(&R, " |");
	}
	buf_addc(&R, '\n');
	va_end(ap);
}

/* Separator row: 'l' left, 'r' right per column. */
void
sep(const char *align)
{
	buf_addc(&R, '|');
	for (const char *a = align; *a; a++)
		buf_adds(&R, *a == 'r' ? " ---: |" : " :--- |");
	buf_addc(&R, '\n');
}

/* The layer types of asc-fia: how the report names them (asc-archmd.jq's
 * tdisplay for the sections it writes). */
static const struct {
	const char *type, *display;
} ltypes[] = {
	{ "dense", "Dense" },
	{ "moe_dfc", "MoE+DFC" },
	{ "moe_gmm", "MoE+GMM" },
	{ "moe", "MoE (gating only)" },
	{ "decode", "Decode" },
	{ "backward", "Backward" },
};

static int
ltype(const char *t)
{
	for (size_t i = 0; i < sizeof ltypes / sizeof ltypes[0]; i++)
		if (strcmp(t, ltypes[i].type) == 0)
			return (int)i;
	return -1;
}

/* A type unknown here is shown by its name. */
const char *
tdisplay(const char *t)
{
	int i = ltype(t);

	return i < 0 ? t : ltypes[i].display;
}

/* A name as a code span (row() escapes '|' in table cells). */
const char *
code(const char *s)
{
	return mdc(s, 0);
}

const char *
num(int64_t v)
{
	static char ring[32][24];
	static int i;

	i = (i + 1) % 32;
	snprintf(ring[i], sizeof ring[i], "%lld", (long long)v);
	return ring[i];
}

/* Lookups ------------------------------------------------------------ */

/* A boolean field: 1, 0, or -1 when missing or null. */
int
gb(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_TRUE ? 1 : jv_get_kind(v) == JV_KIND_FALSE ? 0 : -1;

	jv_free(v);
	return r;
}

/* Is the field a number (not null)? */
int
isnum(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_NUMBER;

	jv_free(v);
	return r;
}

/* The string items of an array, joined with ", ". */
void
joinstrs(struct buf *b, jv a)
{
	for (int i = 0; i < len(a); i++) {
		jv w = at(a, i);

		if (i)
			buf_adds(b, ", ");
		buf_adds(b, jv_string_value(w));
		jv_free(w);
	}
}

/* The string items of an array field, joined with ", " as code. */
void
joincode(struct buf *b, jv o, const char *k)
{
	jv a = get(o, k);

	for (int i = 0; i < len(a); i++) {
		jv x = at(a, i);

		if (i)
			buf_adds(b, ", ");
		buf_adds(b, code(jv_get_kind(x) == JV_KIND_STRING ? jv_string_value(x) : "?"));
		jv_free(x);
	}
	jv_free(a);
}

