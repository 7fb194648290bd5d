/* rec: NDJSON records in and out. */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "rec.h"
#include "simd.h"

unsigned long rec_badutf8;

#define RBUF	((size_t)1 << 20)	/* first read buffer size */

int
rin_open(struct rin *r, const char *path, size_t maxline)
{
	memset(r, 0, sizeof *r);
	r->maxline = maxline ? maxline : (size_t)1 << 28;
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
		r->name = "<stdin>";
	} else if (strncmp(path, "/dev/fd/", 8) == 0 && path[8] >= '0' && path[8] <= '9' &&
	    strspn(path + 8, "0123456789") == strlen(path + 8)) {
		/* The open descriptor itself: opening the name again would
		 * wait for a new writer of a FIFO whose writer is gone. */
		r->name = path;
		if ((r->fd = dup(atoi(path + 8))) < 0)
			return -1;
	} else {
		r->name = path;
		if ((r->fd = open(path, O_RDONLY)) < 0)
			return -1;
	}
	pipe_widen(r->fd);
	return 0;
}

void
rin_close(struct rin *r)
{
	if (r->fd > 0)
		close(r->fd);
	free(r->rb);
	buf_free(&r->norm);
	r->rb = r->line = NULL;
	r->fd = -1;
}

/* Read more input after rb[0..rblen); 0 at end of input. */
static size_t
refill(struct rin *r)
{
	ssize_t n;

	if (r->rblen + 1 >= r->rbcap) {
		r->rbcap = r->rbcap ? 2 * r->rbcap : RBUF;
		r->rb = xrealloc(r->rb, r->rbcap);
	}
	do
		n = read(r->fd, r->rb + r->rblen, r->rbcap - r->rblen - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		dieerr("%s", r->name);
	for (ssize_t o = 0, w; r->copyfd > 0 && o < n; o += w)
		if ((w = write(r->copyfd, r->rb + r->rblen + o, (size_t)(n - o))) < 0) {
			if (errno != EINTR)
				dieerr("%s", r->copyname);
			w = 0;
		}
	r->rblen += (size_t)n;
	return (size_t)n;
}

/*
 * One physical line, pointed to in the read buffer (no copy) and
 * NUL-terminated in place; its length, -1 at EOF, or -2 for a line
 * longer than maxline (skipped without being held).
 */
static long
rawline(struct rin *r)
{
	size_t skipped = 0;

	for (;;) {
		char *s = r->rb ? r->rb + r->rbpos : NULL, *nl;	/* no NULL + 0 */
		size_t avail = r->rblen - r->rbpos, n;

		nl = avail ? memchr(s, '\n', avail) : NULL;
		if (nl && skipped) {
			r->rbpos += (size_t)(nl - s) + 1;
			r->lineno++;
			return -2;
		}
		if (nl == NULL && (skipped || avail > r->maxline)) {
			/* Too long: drop what we hold, read on to its end. */
			skipped += avail;
			r->rbpos = r->rblen = 0;
			if (r->eof || refill(r) == 0) {
				r->eof = 1;
				r->lineno++;
				return -2;
			}
			continue;
		}
		if (nl == NULL && r->eof) {
			if (avail == 0)
				return -1;
			nl = s + avail;		/* a last line without newline */
		}
		if (nl) {
			n = (size_t)(nl - s);
			r->rbpos += n + (r->rbpos + n < r->rblen);
			*nl = '\0';	/* refill() keeps a spare byte for this */
			r->lineno++;
			if (n && s[n - 1] == '\r')
				s[--n] = '\0';
			r->line = s;
			return (long)n;
		}
		/* Keep the partial line, read more behind it. */
		if (r->rbpos) {
			memmove(r->rb, s, avail);
			r->rblen = avail;
			r->rbpos = 0;
		}
		if (refill(r) == 0)
			r->eof = 1;
	}
}

/* Write n bytes straight to fp's descriptor, after what fp holds. */
static void
rawwrite(FILE *fp, const char *p, size_t n)
{
	if (fflush(fp) != 0)
		dieerr("stdout");
	while (n) {
		ssize_t w = write(fileno(fp), p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			dieerr("stdout");
		p += w;
		n -= (size_t)w;
	}
}

void
rin_bulk(struct rin *r, const char *type, size_t tlen, FILE *fp)
{
	char pre[64];
	int pn = snprintf(pre, sizeof pre, "{\"type\":\"%.*s\"", (int)tlen, type);

	if (pn < 0 || (size_t)pn >= sizeof pre)
		return;
	for (;;) {
		char *s = r->rb + r->rbpos, *e = r->rb + r->rblen, *p = s, *nl;
		unsigned long lines = 0;
		int stop = 0;

		while (p < e && (nl = memchr(p, '\n', (size_t)(e - p))) != NULL) {
			size_t n = (size_t)(nl - p);

			/* Anything unusual goes back to rin_next to judge. */
			if (n <= (size_t)pn || n > r->maxline || memcmp(p, pre, (size_t)pn) != 0 ||
			    (p[pn] != ',' && p[pn] != '}') || nl[-1] == '\r') {
				stop = 1;
				break;
			}
			p = nl + 1;
			lines++;
		}
		if (p > s && fp)
			rawwrite(fp, s, (size_t)(p - s));
		r->rbpos += (size_t)(p - s);
		r->lineno += lines;
		if (stop || r->eof)
			return;
		/* A partial line (or nothing) is left: read more behind it. */
		s = r->rb + r->rbpos;
		if (r->rbpos == 0 && r->rblen + 1 >= r->rbcap)
			return;		/* a line as long as the buffer */
		memmove(r->rb, s, r->rblen - r->rbpos);
		r->rblen -= r->rbpos;
		r->rbpos = 0;
		if (refill(r) == 0) {
			r->eof = 1;
			return;
		}
	}
}

int
rin_next(struct rin *r)
{
	long n;

	r->nf = -1;
	for (;;) {
		if ((n = rawline(r)) == -1)
			return 0;
		if (n == 0)
			continue;
		r->len = n < 0 ? r->maxline + 1 : (size_t)n;
		if (n < 0 || r->len > r->maxline) {
			snprintf(r->err, sizeof r->err,
			    "line longer than %zu bytes", r->maxline);
			return -1;
		}
		return 1;
	}
}

static inline const char *
skipws(const char *p, const char *e)
{
	/* Records are compact: the next byte is almost never a blank. */
	if (p < e && (unsigned char)*p > ' ')
		return p;
	while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/* p at an opening quote: return the position after the closing quote. */
static const char *
skipstr(const char *p, const char *e, int *escaped)
{
	for (p++; p < e; p++) {
#ifdef ASC_SSE2
		/* Sixteen bytes at a time to the next quote, backslash or control. */
		while (e - p >= 16) {
			unsigned m = simd_stop16(p);

			if (m) {
				p += __builtin_ctz(m);
				goto found;
			}
			p += 16;
		}
#endif
		/* Eight bytes at a time to the next quote, backslash or control. */
		while (e - p >= 8) {
			uint64_t m = swar_stop8(p);

			if (m) {
				p += swar_first(m);
				break;
			}
			p += 8;
		}
#ifdef ASC_SSE2
found:
#endif
		if (p >= e)
			break;
		if (*p == '\\') {
			*escaped = 1;
			/* An invalid escape sends the line to libjq to report. */
			if (++p >= e || memchr("\"\\/bfnrtu", *p, 9) == NULL)
				return NULL;
			for (int i = 1; *p == 'u' && i <= 4; i++)
				if (p + i >= e || !isxdigit((unsigned char)p[i]))
					return NULL;
		} else if (*p == '"')
			return p + 1;
		else if ((unsigned char)*p < 0x20)
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

static inline const char *numend(const char *, const char *);
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
			q = numend(p, e);
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
			if ((q = numend(p, e)) == NULL) {
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

/* Is v[0..n) a number by the JSON grammar? */
static int
isnumber(const char *v, size_t n)
{
	size_t i = 0, d;

	if (i < n && v[i] == '-')
		i++;
	if (i < n && v[i] == '0')
		i++;
	else {
		for (d = i; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && v[i] == '.') {
		for (d = ++i; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	if (i < n && (v[i] == 'e' || v[i] == 'E')) {
		if (++i < n && (v[i] == '+' || v[i] == '-'))
			i++;
		for (d = i; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			;
		if (i == d)
			return 0;
	}
	return i == n;
}

/* The end of a JSON number at p, or NULL if p does not start one. */
static inline const char *
numend(const char *p, const char *e)
{
	const char *d;

	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else {
		for (d = p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return NULL;
	}
	if (p < e && *p == '.') {
		for (d = ++p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return NULL;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		for (d = p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return NULL;
	}
	return p;
}

static int
validscalar(const char *v, size_t n)
{
	if (v[0] == '"' || v[0] == '{' || v[0] == '[')
		return 1;
	if ((n == 4 && (memcmp(v, "true", 4) == 0 || memcmp(v, "null", 4) == 0)) ||
	    (n == 5 && memcmp(v, "false", 5) == 0))
		return 1;
	return isnumber(v, n);
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

/* Parse with libjq; on success r->norm holds the compact form. */
static int
jvnorm(struct rin *r)
{
	jv v = jv_parse_sized(r->line, (int)r->len);

	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		const char *s = jv_get_kind(m) == JV_KIND_STRING ?
		    jv_string_value(m) : "invalid JSON";
		const char *cut = strstr(s, " (while parsing");

		snprintf(r->err, sizeof r->err, "invalid JSON: %.*s",
		    cut ? (int)(cut - s) : (int)strlen(s), s);
		jv_free(m);
		return -1;
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		snprintf(r->err, sizeof r->err, "record is a %s, not an object",
		    jv_kind_name(jv_get_kind(v)));
		jv_free(v);
		return -1;
	}
	jv d = jv_dump_string(v, 0);

	r->norm.len = 0;
	buf_add(&r->norm, jv_string_value(d), (size_t)jv_string_length_bytes(jv_copy(d)));
	jv_free(d);
	return 0;
}

/*
 * Fields by key in a small hash table (kh), filled as the line is
 * scanned: a record has some 30 keys and a filter asks for a dozen.  A
 * repeated key takes the slot of the earlier one: the last wins, as in jq.
 */
static inline unsigned
keyhash(const char *k, size_t n)
{
	return n ? ((unsigned)n * 31u + (unsigned char)k[0] * 7u +
	    (unsigned char)k[n - 1]) % (2 * REC_MAXF) : 0;
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
	    (q = numend(p, e)) != NULL && (q == e || *q == ',' || *q == ' ')) {
		f->v = p;
		f->vlen = (size_t)(q - p);
		goto next;
	}
	if ((q = skipval(p, e, &bad)) == NULL) {
		if (bad == NULL)
			return -1;
		snprintf(r->err, sizeof r->err, "field \"%.*s\": %.*s is not JSON",
		    (int)(f->klen > 40 ? 40 : f->klen), f->k,
		    (int)((size_t)(e - bad) > 12 ? 12 : (size_t)(e - bad)), bad);
		return -2;
	}
	f->v = p;
	f->vlen = (size_t)(q - p);
	/* libjq 1.6 reads NaN, Infinity and +5; JSON has none of them. */
	if (!(f->vlen == 4 && memcmp(f->v, "null", 4) == 0) &&
	    (nonfinite(f->v, f->vlen) || f->v[0] == '+')) {
		snprintf(r->err, sizeof r->err, "field \"%.*s\": %.*s is not JSON",
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

	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
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
	if (rc == -2 || jvnorm(r) != 0)
		return -1;
	if (fastscan(r, r->norm.p, r->norm.len) == 0)
		return 0;
	r->nf = 0;
	/* Escaped keys: libjq keeps them escaped in its output too. */
	snprintf(r->err, sizeof r->err, "record keys with escapes or over %d keys are not supported", REC_MAXF);
	return -1;
}

int
rin_bad(const struct rin *r, int kflag, int *rc)
{
	warnmsg("%s:%lu: %s", r->name, r->lineno, r->err);
	*rc = EX_DATA;
	return !kflag;
}

int
rin_type(struct rin *r, const char **t, size_t *n)
{
	static const char pre[] = "{\"type\":\"";
	const struct rfield *f;

	if (r->len > sizeof pre && memcmp(r->line, pre, sizeof pre - 1) == 0) {
		const char *s = r->line + sizeof pre - 1;
		const char *q = memchr(s, '"', r->len - (sizeof pre - 1));

		if (q && memchr(s, '\\', (size_t)(q - s)) == NULL) {
			*t = s;
			*n = (size_t)(q - s);
			return 0;
		}
	}
	if (rin_scan(r) != 0)
		return -1;
	if ((f = rin_get(r, "type")) == NULL || f->v[0] != '"') {
		snprintf(r->err, sizeof r->err, "record has no string \"type\"");
		return -1;
	}
	*t = f->v + 1;
	*n = f->vlen - 2;
	return 0;
}

/* Duplicate keys: the last wins, as in jq (asc(7)). */
const struct rfield *
rin_getn(const struct rin *r, const char *key, size_t kl)
{
	if (r->nf == 0)
		return NULL;	/* a failed scan leaves kh as it was */
	for (unsigned h = keyhash(key, kl); r->kh[h]; h = (h + 1) % (2 * REC_MAXF)) {
		const struct rfield *f = &r->f[r->kh[h] - 1];

		if (f->klen == kl && memcmp(f->k, key, kl) == 0)
			return f;
	}
	return NULL;
}

int
rf_isnull(const struct rfield *f)
{
	return f == NULL || (f->vlen == 4 && memcmp(f->v, "null", 4) == 0);
}

/* Has the number v[0..n) a nonzero digit below the units (1.5, 15e-1)? */
static int
hasfraction(const char *v, size_t n)
{
	size_t i = 0, i0, i1, f0, f1;
	long ex = 0;
	int eneg = 0;

	if (i < n && v[i] == '-')
		i++;
	for (i0 = i; i < n && v[i] >= '0' && v[i] <= '9'; i++)
		;
	i1 = f0 = f1 = i;
	if (i < n && v[i] == '.') {
		for (f0 = ++i; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			;
		f1 = i;
	}
	if (i < n && (v[i] == 'e' || v[i] == 'E')) {
		if (++i < n && (v[i] == '+' || v[i] == '-'))
			eneg = v[i++] == '-';
		for (; i < n && v[i] >= '0' && v[i] <= '9'; i++)
			if (ex < 100000)
				ex = ex * 10 + (v[i] - '0');
	}
	if (eneg)
		ex = -ex;
	/* Fraction digit j has weight 10^(ex-j-1); integer digit k from the
	 * right has weight 10^(ex+k). */
	for (size_t j = 0; j < f1 - f0; j++)
		if ((long)j >= ex && v[f0 + j] != '0')
			return 1;
	for (size_t k = 0; k < i1 - i0; k++)
		if ((long)k < -ex && v[i1 - 1 - k] != '0')
			return 1;
	return 0;
}

int
rf_i64(const struct rfield *f, int64_t *out)
{
	int64_t v;

	/* JSON has no "+5": a sign is only "-". */
	if (f == NULL || f->vlen == 0 || f->v[0] == '"' || f->v[0] == '+' || rf_isnull(f))
		return -1;
	/* Plain digits, the common case, inline. */
	if (f->vlen <= 18) {
		const char *p = f->v, *e = f->v + f->vlen;
		int neg = *p == '-';

		p += neg;
		for (v = 0; p < e && *p >= '0' && *p <= '9'; p++)
			v = v * 10 + (*p - '0');
		if (p == e && e > f->v + neg) {
			*out = neg ? -v : v;
			return 0;
		}
	}
	/* Exact: dec_parse rounds a fraction, so require none. */
	if (dec_parse(f->v, f->vlen, 0, &v) != 0 || hasfraction(f->v, f->vlen))
		return -1;
	*out = v;
	return 0;
}

int
rf_bool(const struct rfield *f, int *out)
{
	if (f && f->vlen == 4 && memcmp(f->v, "true", 4) == 0)
		return *out = 1, 0;
	if (f && f->vlen == 5 && memcmp(f->v, "false", 5) == 0)
		return *out = 0, 0;
	return -1;
}

static int
hexval(const char *p, unsigned *u)
{
	*u = 0;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		*u <<= 4;
		if (c >= '0' && c <= '9')
			*u |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			*u |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			*u |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	return 0;
}

void
rec_pututf8(struct buf *b, unsigned long u)
{
	char s[4];

	if (u < 0x80) {
		buf_addc(b, (int)u);
		return;
	}
	if (u < 0x800) {
		s[0] = (char)(0xc0 | (u >> 6));
		s[1] = (char)(0x80 | (u & 0x3f));
		buf_add(b, s, 2);
	} else if (u < 0x10000) {
		s[0] = (char)(0xe0 | (u >> 12));
		s[1] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[2] = (char)(0x80 | (u & 0x3f));
		buf_add(b, s, 3);
	} else {
		s[0] = (char)(0xf0 | (u >> 18));
		s[1] = (char)(0x80 | ((u >> 12) & 0x3f));
		s[2] = (char)(0x80 | ((u >> 6) & 0x3f));
		s[3] = (char)(0x80 | (u & 0x3f));
		buf_add(b, s, 4);
	}
}

int
rf_str(const struct rfield *f, struct buf *b)
{
	const char *p, *e;

	b->len = 0;
	buf_grow(b, 0);
	b->p[0] = '\0';
	if (f == NULL || f->vlen < 2 || f->v[0] != '"')
		return -1;
	p = f->v + 1;
	e = f->v + f->vlen - 1;
	while (p < e) {
		const char *bs = memchr(p, '\\', (size_t)(e - p));

		if (bs == NULL) {
			buf_add(b, p, (size_t)(e - p));
			break;
		}
		buf_add(b, p, (size_t)(bs - p));
		p = bs + 1;
		if (p >= e)
			return -1;
		switch (*p) {
		case 'n': buf_addc(b, '\n'); break;
		case 't': buf_addc(b, '\t'); break;
		case 'r': buf_addc(b, '\r'); break;
		case 'b': buf_addc(b, '\b'); break;
		case 'f': buf_addc(b, '\f'); break;
		case 'u': {
			unsigned u, lo;

			if (e - p < 5 || hexval(p + 1, &u))
				return -1;
			p += 4;
			if (u >= 0xd800 && u < 0xdc00 && e - p >= 7 &&
			    p[1] == '\\' && p[2] == 'u' && hexval(p + 3, &lo) == 0 &&
			    lo >= 0xdc00 && lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			rec_pututf8(b, u);
			break;
		}
		default: buf_addc(b, *p); break;
		}
		p++;
	}
	return 0;
}

int
rin_i64(const struct rin *r, const char *key, int64_t *out)
{
	return rf_i64(rin_get(r, key), out);
}

int
rin_str(const struct rin *r, const char *key, struct buf *b)
{
	return rf_str(rin_get(r, key), b);
}

void
out_begin(struct buf *b, const char *type)
{
	b->len = 0;
	buf_adds(b, "{\"type\":");
	out_esc(b, type, strlen(type));
}

/* Keys are the filters' own literals: written without escaping. */
void
out_keyn(struct buf *b, const char *k, size_t n)
{
	buf_grow(b, n + 4);
	b->p[b->len++] = ',';
	b->p[b->len++] = '"';
	memcpy(b->p + b->len, k, n);
	b->len += n;
	b->p[b->len++] = '"';
	b->p[b->len++] = ':';
	b->p[b->len] = '\0';
}

/* Length of a valid UTF-8 sequence at p (1..4), or 0. */
static int
u8len(const unsigned char *p, const unsigned char *e)
{
	unsigned c = p[0];
	int n;

	if (c < 0xc2 || c > 0xf4)
		return 0;
	n = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if (e - p < n)
		return 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if (c == 0xe0 && p[1] < 0xa0)
		return 0;
	if (c == 0xed && p[1] >= 0xa0)
		return 0;
	if (c == 0xf0 && p[1] < 0x90)
		return 0;
	if (c == 0xf4 && p[1] >= 0x90)
		return 0;
	return n;
}

void
out_esc(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s, *e = p + n;
	static const char hex[] = "0123456789abcdef";

	buf_grow(b, n + 2);
	b->p[b->len++] = '"';
	/* Most names are plain ASCII: one scan, one copy. */
	{
		const unsigned char *q = p;

		while (e - q >= 8) {
			uint64_t m = swar_esc8(q);

			if (m) {
				q += swar_first(m);
				goto found;
			}
			q += 8;
		}
		while (q < e && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
			q++;
found:
		memcpy(b->p + b->len, p, (size_t)(q - p));
		b->len += (size_t)(q - p);
		p = q;
	}
	while (p < e) {
		const unsigned char *q = p;

		while (q < e && *q >= 0x20 && *q < 0x80 && *q != '"' && *q != '\\')
			q++;
		if (q > p) {
			buf_add(b, p, (size_t)(q - p));
			p = q;
			continue;
		}
		if (*p >= 0x80) {
			int l = u8len(p, e);

			if (l) {
				buf_add(b, p, (size_t)l);
				p += l;
			} else {
				buf_adds(b, "\\ufffd");
				__atomic_fetch_add(&rec_badutf8, 1, __ATOMIC_RELAXED);	/* asc-ingest -H: two writers */
				p++;
			}
			continue;
		}
		switch (*p) {
		case '"': buf_adds(b, "\\\""); break;
		case '\\': buf_adds(b, "\\\\"); break;
		case '\n': buf_adds(b, "\\n"); break;
		case '\r': buf_adds(b, "\\r"); break;
		case '\t': buf_adds(b, "\\t"); break;
		default: {
			char u[7] = { '\\', 'u', '0', '0', hex[*p >> 4], hex[*p & 15], 0 };

			buf_adds(b, u);
		}
		}
		p++;
	}
	buf_addc(b, '"');
}


void
out_cstr(struct buf *b, const char *k, const char *s)
{
	if (s == NULL)
		out_null(b, k);
	else
		out_str(b, k, s, strlen(s));
}

/* Decimal digits of v, no printf: this runs several times per record. */
void
out_int(struct buf *b, int64_t v)
{
	buf_grow(b, 24);
	b->len = (size_t)(rec_fmtint(b->p + b->len, v) - b->p);
	b->p[b->len] = '\0';	/* as buf_add leaves it */
}


void
out_dec(struct buf *b, const char *k, int64_t v, int scale)
{
	char t[40];
	int n = dec_fmt(t, v, scale);

	out_key(b, k);
	buf_add(b, t, (size_t)n);
}

void
out_nsms(struct buf *b, const char *k, int64_t v)
{
	char key[64];

	snprintf(key, sizeof key, "%s_ns", k);
	out_i64(b, key, v);
	snprintf(key, sizeof key, "%s_ms", k);
	out_dec(b, key, v, 6);
}

void
out_ratio(struct buf *b, const char *k, int64_t num, int64_t den)
{
	char t[40];
	int n = dec_ratio(t, num, den);

	out_key(b, k);
	buf_add(b, t, (size_t)n);
}

void
rec_put(struct buf *b, FILE *fp)
{
	buf_add(b, "}\n", 2);
	if (fwrite_unlocked(b->p, 1, b->len, fp) != b->len)
		dieerr("stdout");
	b->len = 0;
}
