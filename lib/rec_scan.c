/* rec_scan: a record's line checked as JSON and cut into its top-level
 * fields (spans of the line); what it does not handle goes to libjq. */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "rec.h"
#include "rec_int.h"
#include "jscan.h"
#include "simd.h"

static inline const char *
skipws(const char *p, const char *e)
{
	/* Records are compact: the next byte is almost never a blank. */
	if (p < e && (unsigned char)*p > ' ')
		return p;
	return js_ws(p, e);
}

/* p at an opening quote: return the position after the closing quote. */
static const char *
skipstr(const char *p, const char *e, int *escaped)
{
	for (p++; (p = js_stop(p, e)) < e; p++) {
		if (*p == '\\') {
			*escaped = 1;
			/* An invalid escape sends the line to libjq to report. */
			if (++p >= e || memchr("\"\\/bfnrtu", *p, 9) == NULL)
				return NULL;
			if (*p == 'u' && (e - p < 5 || js_hex4(p + 1) < 0))
				return NULL;
		} else if (*p == '"')
			return p + 1;
		else
			return NULL;
	}
	return NULL;
}

/*
 * skipstr for the common short string, inline: the closing quote among the
 * next 16 (8) bytes with no escape or control byte before it; else skipstr.
 * Most keys and values of a record are such strings.
 */
static inline const char *
skipshort(const char *p, const char *e, int *escaped)
{
#ifdef ASC_SSE2
	if (e - p > 32) {
		unsigned m = simd_stop16(p + 1);

		/* Keys such as "aic_scalar_time(us)" need the second 16. */
		if (m == 0 && (m = simd_stop16(p + 17)) != 0)
			p += 16;
		if (m && p[1 + __builtin_ctz(m)] == '"')
			return p + 2 + __builtin_ctz(m);
	} else if (e - p > 16) {
		unsigned m = simd_stop16(p + 1);

		if (m && p[1 + __builtin_ctz(m)] == '"')
			return p + 2 + __builtin_ctz(m);
	}
#else
	if (e - p > 8) {
		uint64_t m = swar_stop8(p + 1);

		if (m && p[1 + swar_first(m)] == '"')
			return p + 2 + swar_first(m);
	}
#endif
	return skipstr(p, e, escaped);
}

static int nonfinite(const char *, size_t);

/*
 * The common nested value, a compact object of numbers and short strings
 * ({"aicore_time(us)":373.535,...}: a kernel's "pmu"), in one loop; NULL
 * for anything else (blanks, nesting, literals, an escape, a bad number),
 * which skipval then reads the long way from the same start.
 */
static const char *
flatobj(const char *p, const char *e)
{
	const char *q;
	int esc = 0;

	if (++p < e && *p == '}')
		return p + 1;
	for (;;) {
		if (p >= e || *p != '"' || (p = skipshort(p, e, &esc)) == NULL)
			return NULL;
		if (p >= e || *p++ != ':' || p >= e)
			return NULL;
		if (*p == '"')
			q = skipshort(p, e, &esc);
		else if ((*p >= '0' && *p <= '9') || *p == '-')
			q = js_numend(p, e);
		else
			return NULL;
		if (q == NULL || q >= e || esc)
			return NULL;
		p = q + 1;
		if (*q == '}')
			return p;
		if (*q != ',')
			return NULL;
	}
}

/*
 * The end of the JSON value at p, its grammar checked whole: the values a
 * filter never asks for are checked too, by structure
 * only (strings by skipstr, numbers by numend, literals by name).  NULL
 * if it is not JSON by the grammar, or nested deeper than libjq reads (254
 * containers inside the record): libjq then gives the verdict, except
 * for a nested NaN, Infinity or +5, which libjq reads and JSON does not
 * have (*bad is set to it).  A top-level scalar is only delimited here;
 * validscalar() checks it.
 */
static const char *
skipval(const char *p, const char *e, const char **bad)
{
	char stk[254];		/* the open containers, '{' or '[' */
	const char *q;
	int d = 0, esc;

	if (p >= e)
		return NULL;
	if (*p == '"')
		return skipstr(p, e, &esc);
	if (*p != '{' && *p != '[') {
		const char *s = p;

		while (p < e && *p != ',' && *p != '}' && *p != ']' &&
		    *p != ' ' && *p != '\t')
			p++;
		if (p == s)
			return NULL;
		return p;
	}
	if (*p == '{' && (q = flatobj(p, e)) != NULL)
		return q;
	for (;;) {
		/* At a value. */
		p = skipws(p, e);
		if (p >= e)
			return NULL;
		switch (*p) {
		case '{':
		case '[':
			if (d == (int)sizeof stk)
				return NULL;
			stk[d++] = *p;
			p = skipws(p + 1, e);
			if (p < e && *p == (stk[d - 1] == '{' ? '}' : ']')) {
				p++;
				d--;
				goto after;
			}
			if (stk[d - 1] == '{')
				goto key;
			continue;
		case '"':
			if ((p = skipshort(p, e, &esc)) == NULL)
				return NULL;
			goto after;
		case 't':
			if (e - p < 4 || memcmp(p, "true", 4) != 0)
				return NULL;
			p += 4;
			goto after;
		case 'f':
			if (e - p < 5 || memcmp(p, "false", 5) != 0)
				return NULL;
			p += 5;
			goto after;
		case 'n':
			if (e - p < 4 || memcmp(p, "null", 4) != 0) {
				if (nonfinite(p, (size_t)(e - p)))
					*bad = p;
				return NULL;
			}
			p += 4;
			goto after;
		default:
			if ((q = js_numend(p, e)) == NULL) {
				/* libjq would read these; JSON has none of them. */
				if (*p == '+' || nonfinite(p, (size_t)(e - p)))
					*bad = p;
				return NULL;
			}
			p = q;
			goto after;
		}
key:
		/* At a key of an object (p past blanks). */
		if (p >= e || *p != '"' || (p = skipshort(p, e, &esc)) == NULL)
			return NULL;
		p = skipws(p, e);
		if (p >= e || *p != ':')
			return NULL;
		p++;
		continue;
after:
		/* After a value: a comma, or the end of containers. */
		while (d > 0) {
			p = skipws(p, e);
			if (p >= e)
				return NULL;
			if (*p == ',') {
				p = skipws(p + 1, e);
				if (stk[d - 1] == '{')
					goto key;
				break;
			}
			if (*p != (stk[d - 1] == '{' ? '}' : ']'))
				return NULL;
			p++;
			d--;
		}
		if (d == 0)
			return p;
	}
}

static int
validscalar(const char *v, size_t n)
{
	if (v[0] == '"' || v[0] == '{' || v[0] == '[')
		return 1;
	if ((n == 4 && (memcmp(v, "true", 4) == 0 || memcmp(v, "null", 4) == 0)) ||
	    (n == 5 && memcmp(v, "false", 5) == 0))
		return 1;
	return js_isnum(v, n);
}

/* A bare NaN, nan, Infinity, inf, with or without a sign? */
static int
nonfinite(const char *v, size_t n)
{
	if (n && (v[0] == '-' || v[0] == '+'))
		v++, n--;
	/* Cheap first test: this runs on every number of every record. */
	if (n < 3 || (v[0] | 0x20) < 'i' || ((v[0] | 0x20) != 'i' && (v[0] | 0x20) != 'n'))
		return 0;
	return strncasecmp(v, "nan", 3) == 0 || strncasecmp(v, "inf", 3) == 0;
}

static void
keyadd(struct rin *r, const struct rfield *f)
{
	unsigned h = keyhash(f->k, f->klen);

	for (;; h = (h + 1) % (2 * REC_MAXF)) {
		const struct rfield *o;

		if (r->kh[h] == 0)
			break;
		o = &r->f[r->kh[h] - 1];
		if (o->klen == f->klen && memcmp(o->k, f->k, f->klen) == 0)
			break;
	}
	r->kh[h] = (uint8_t)(f - r->f + 1);
}

/*
 * One more field of a lazily scanned line: 1 added, 0 at the end, -1 the
 * line needs the full path, -2 bad (err set).
 */
static int
scannext(struct rin *r)
{
	const char *p = r->lp, *e = r->le, *q, *bad = NULL;
	struct rfield *f;
	int esc = 0;

	if (p >= e)
		return 0;
	if (*p != '"' || r->nf >= REC_MAXF)
		return -1;
	if ((q = skipshort(p, e, &esc)) == NULL || esc)
		return -1;
	f = &r->f[r->nf];
	f->k = p + 1;
	f->klen = (size_t)(q - p - 2);
	p = skipws(q, e);
	if (p >= e || *p != ':')
		return -1;
	p = skipws(p + 1, e);
	/* Strings and plain numbers, the bulk of every record, in one step. */
	if (p < e && *p == '"') {
		if ((q = skipshort(p, e, &esc)) == NULL)
			return -1;
		f->v = p;
		f->vlen = (size_t)(q - p);
		goto next;
	}
	if (p < e && ((*p >= '0' && *p <= '9') || *p == '-') &&
	    (q = js_numend(p, e)) != NULL && (q == e || *q == ',' || *q == ' ')) {
		f->v = p;
		f->vlen = (size_t)(q - p);
		goto next;
	}
	if ((q = skipval(p, e, &bad)) == NULL) {
		if (bad == NULL)
			return -1;
		rin_error(r, "field \"%.*s\": %.*s is not JSON",
		    (int)(f->klen > 40 ? 40 : f->klen), f->k,
		    (int)((size_t)(e - bad) > 12 ? 12 : (size_t)(e - bad)), bad);
		return -2;
	}
	f->v = p;
	f->vlen = (size_t)(q - p);
	/* libjq 1.6 reads NaN, Infinity and +5; JSON has none of them. */
	if (!(f->vlen == 4 && memcmp(f->v, "null", 4) == 0) &&
	    (nonfinite(f->v, f->vlen) || f->v[0] == '+')) {
		rin_error(r, "field \"%.*s\": %.*s is not JSON",
		    (int)(f->klen > 40 ? 40 : f->klen), f->k,
		    (int)(f->vlen > 12 ? 12 : f->vlen), f->v);
		return -2;
	}
	if (!validscalar(f->v, f->vlen))
		return -1;
next:
	keyadd(r, f);
	r->nf++;
	p = skipws(q, e);
	if (p < e && *p == ',') {
		p = skipws(p + 1, e);
		if (p >= e)
			return -1;	/* a trailing comma: let libjq say so */
	} else if (p != e)
		return -1;
	r->lp = p;
	return 1;
}

/*
 * Tokenise a whole {...} text (blanks around allowed) with scannext; 0 ok,
 * -1 unsure (the caller falls back to libjq), -2 bad.
 */
static int
fastscan(struct rin *r, const char *s, size_t len)
{
	const char *p = skipws(s, s + len), *e = s + len;
	int rc;

	while (e > p && js_isws((unsigned char)e[-1]))
		e--;
	r->nf = 0;
	memset(r->kh, 0, sizeof r->kh);
	if (e - p < 2 || *p != '{' || e[-1] != '}')
		return -1;
	r->lp = skipws(p + 1, e - 1);
	r->le = e - 1;
	while ((rc = scannext(r)) == 1)
		;
	return rc;
}

/*
 * Tokenise the whole line, every value checked (skipval), so that a
 * record a filter consumes is JSON whole, as jq would read it.  What the
 * scanner does not handle (escapes in keys, leniencies, a bad value) goes
 * to libjq, which says what is wrong or gives a compact form to scan.
 */
int
rin_scan(struct rin *r)
{
	int rc = fastscan(r, r->line, r->len);

	if (rc == 0)
		return 0;
	r->nf = 0;
	if (rc == -2 || rec_jvnorm(r) != 0)
		return -1;
	if (fastscan(r, r->norm.p, r->norm.len) == 0)
		return 0;
	r->nf = 0;
	/* Escaped keys: libjq keeps them escaped in its output too. */
	rin_error(r, "record keys with escapes or over %d keys are not supported", REC_MAXF);
	return -1;
}

int
rin_bad(const struct rin *r, int kflag, int *rc)
{
	warnmsg("%s:%lu: %s", r->name, r->lineno, r->err);
	*rc = EX_DATA;
	return !kflag;
}
