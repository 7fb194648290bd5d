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

jv
typerec(const char *type)
{
	for (int i = 0; i < len(P.types); i++) {
		jv t = at(P.types, i);

		if (strcmp(gs(t, "layer_type"), type) == 0)
			return t;
		jv_free(t);
	}
	return jv_invalid();
}

int64_t
rolewall(jv t, const char *role)
{
	jv roles = get(t, "roles");
	int64_t w = 0;

	for (int i = 0; i < len(roles); i++) {
		jv r = at(roles, i);

		if (strcmp(gs(r, "role"), role) == 0)
			w = gi(r, "wall_ns");
		jv_free(r);
	}
	jv_free(roles);
	return w;
}

const char *
streamlabel(const char *label)
{
	static char ring[8][128];
	static int i;

	i = (i + 1) % 8;
	if (strcmp(label, "comm:hccl") == 0)
		snprintf(ring[i], sizeof ring[i], "HCCL (no stream id)");
	else if (strcmp(label, "comm:alltoall") == 0)
		snprintf(ring[i], sizeof ring[i], "all-to-all (no stream id)");
	else
		snprintf(ring[i], sizeof ring[i], "stream %s", label);
	return ring[i];
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

/* Is the field a number (not null)? */
int
isnum(jv o, const char *k)
{
	jv v = get(o, k);
	int r = jv_get_kind(v) == JV_KIND_NUMBER;

	jv_free(v);
	return r;
}

/* A comm row's "Role from": the source, and an inference's evidence. */
const char *
rolefrom(jv c)
{
	static char t[320];

	if (has(c, "role_evidence"))
		snprintf(t, sizeof t, "%s: %s", gs(c, "role_source"), gs(c, "role_evidence"));
	else
		snprintf(t, sizeof t, "%s", gs(c, "role_source"));
	return t;
}

const char *
srctext(const char *src)
{
	if (strcmp(src, "metadata_group") == 0)
		return "the kernel's communication group in profiler_metadata.json parallel_group_info";
	if (strcmp(src, "inferred") == 0)
		return "inferred, not read: the groups of profiler_metadata.json parallel_group_info "
		    "carry no HCCL group ids, so each comm group gets the named group (in the Role "
		    "column) of its size that what its ops do points to, as in asc-comm(1) (send/recv "
		    "pp, reduce-scatter / all-gather dp, 1 rank tp, a size only one name has, an "
		    "all-reduce of at least 1 MB per link embd); the Role from column gives each row's "
		    "evidence; the role is that name's";
	if (strcmp(src, "metadata_dims") == 0)
		return "profiler_metadata.json parallel_group_info: the only parallel dimension of "
		    "its kind with more than one rank";
	if (strcmp(src, "position") == 0)
		return "no parallel-group metadata: a collective after the gradient kernels of a "
		    "training step, probably data-parallel gradient buckets";
	return "op names only (fallback: no parallel-group metadata)";
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

