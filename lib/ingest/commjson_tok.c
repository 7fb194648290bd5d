/*
 * commjson_tok: the JSON tokenizer of the communication.json reader:
 * strings, literals, members of an object and skipped values, validated
 * as libjq would; on the byte reader of commjson_int.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commjson.h"
#include "commjson_int.h"
#include "jscan.h"
#include "rec.h"
#include "simd.h"
#include "util.h"

void
cj_fail(struct cj *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->emsg, sizeof r->emsg, fmt, ap);
	va_end(ap);
	r->erroff = off;
	r->code = CJ_ESYNTAX;
	longjmp(r->jb, 1);
}

int
cj_fill(struct cj *r)
{
	if (r->pos < r->len)
		return 1;
	if (r->eof)
		return 0;
	r->off += r->len;
	r->pos = 0;
	r->len = fread(r->b, 1, CHUNK, r->fp);
	if (r->len == 0) {
		if (ferror(r->fp)) {
			r->eno = errno;
			r->code = CJ_EIO;
			longjmp(r->jb, 1);
		}
		r->eof = 1;
		return 0;
	}
	return 1;
}

void
cj_unexpected(struct cj *r, const char *what)
{
	int c = peekc(r);

	if (c == EOF)
		cj_fail(r, here(r), "unexpected end of file, expected %s", what);
	if (c >= 0x20 && c < 0x7f)
		cj_fail(r, here(r), "unexpected '%c', expected %s", c, what);
	cj_fail(r, here(r), "unexpected byte 0x%02x, expected %s", c, what);
}

void
cj_push(struct cj *r)
{
	if (r->slots >= MAXDEPTH)
		cj_fail(r, here(r), "nested too deeply (over %d levels)", MAXDEPTH);
	r->slots += r->b[r->pos] == '{' ? 2 : 1;
	r->depth++;
	advance(r);
}

void
cj_pop(struct cj *r, int open)
{
	r->slots -= open == '{' ? 2 : 1;
	r->depth--;
	advance(r);
}

static unsigned
hex4(struct cj *r)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int c = peekc(r), h = js_hexval(c);

		if (h < 0) {
			if (c == EOF)
				cj_fail(r, here(r), "unexpected end of file in a \\u escape");
			cj_fail(r, here(r), "invalid \\uXXXX escape");
		}
		advance(r);
		v = v << 4 | (unsigned)h;
	}
	return v;
}

/*
 * Length of the UTF-8 sequence at p (at least 1), *ok set when it is
 * valid.  Invalid sequences are cut as libjq's jvp_utf8_next() cuts them,
 * so each becomes one U+FFFD as it would in a libjq string.
 */
static size_t
u8next(const unsigned char *p, const unsigned char *e, int *ok)
{
	static const unsigned long first[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	unsigned c = p[0];
	size_t len, i;
	unsigned long cp;

	*ok = 0;
	if (c < 0x80) {
		*ok = 1;
		return 1;
	}
	if (c < 0xc0 || c >= 0xf8)
		return 1;
	len = c < 0xe0 ? 2 : c < 0xf0 ? 3 : 4;
	if ((size_t)(e - p) < len)
		return (size_t)(e - p);
	cp = c & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return i;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if (cp < first[len] || (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return len;
	*ok = 1;
	return len;
}

/* Replace invalid UTF-8 in b->p[from..len) by U+FFFD, as libjq does. */
static void
utf8fix(struct buf *b, size_t from)
{
	const unsigned char *p = (unsigned char *)b->p + from, *e = (unsigned char *)b->p + b->len;
	struct buf t = {0};
	int ok, bad = 0;

	for (const unsigned char *q = p; q < e; ) {
		size_t l = u8next(q, e, &ok);

		if (!ok) {
			bad = 1;
			break;
		}
		q += l;
	}
	if (!bad)
		return;
	while (p < e) {
		size_t l = u8next(p, e, &ok);

		if (ok)
			buf_add(&t, p, l);
		else
			buf_add(&t, "\xef\xbf\xbd", 3);
		p += l;
	}
	b->len = from;
	buf_add(b, t.p, t.len);
	buf_free(&t);
}

/*
 * A string at '"' (peeked).  Unescaped into out (appended) unless out is
 * NULL; the escapes and control characters are checked either way.
 */
void
cj_str(struct cj *r, struct buf *out)
{
	size_t from = out ? out->len : 0;
	uint64_t hi = 0;	/* a byte >= 0x80 was copied */

	advance(r);
	for (;;) {
		const unsigned char *p, *q, *e;
		int c;

		if (r->pos >= r->len && !cj_fill(r))
			cj_fail(r, here(r), "unexpected end of file in a string");
		p = q = r->b + r->pos;
		e = r->b + r->len;
		while (e - q >= 8) {
			uint64_t m = swar_stop8(q);

			hi |= swar_high8(q);	/* maybe bytes past the end: harmless */
			if (m) {
				q += swar_first(m);
				goto found;
			}
			q += 8;
		}
		while (q < e && *q != '"' && *q != '\\' && *q >= 0x20)
			hi |= *q++ & 0x80;
found:
		if (q > p) {
			if (out)
				buf_add(out, p, (size_t)(q - p));
			if (r->cap) {
				while (r->pos < (size_t)(q - r->b))
					advance(r);
			} else
				r->pos = (size_t)(q - r->b);
		}
		if (q == e)
			continue;
		c = *q;
		if (c == '"') {
			advance(r);
			break;
		}
		if (c != '\\')
			cj_fail(r, here(r), "control character 0x%02x in a string", c);
		advance(r);
		c = peekc(r);
		if (c == EOF)
			cj_fail(r, here(r), "unexpected end of file in a string");
		advance(r);
		switch (c) {
		case '"': case '\\': case '/':
			if (out)
				buf_addc(out, c);
			break;
		case 'b': if (out) buf_addc(out, '\b'); break;
		case 'f': if (out) buf_addc(out, '\f'); break;
		case 'n': if (out) buf_addc(out, '\n'); break;
		case 'r': if (out) buf_addc(out, '\r'); break;
		case 't': if (out) buf_addc(out, '\t'); break;
		case 'u': {
			uint64_t at = here(r) - 2;
			unsigned long cp = hex4(r);

			if (cp >= 0xd800 && cp <= 0xdbff) {
				unsigned lo;

				if (peekc(r) != '\\')
					cj_fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				advance(r);
				if (peekc(r) != 'u')
					cj_fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				advance(r);
				lo = hex4(r);
				if (lo < 0xdc00 || lo > 0xdfff)
					cj_fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				cp = 0x10000 + ((cp - 0xd800) << 10 | (lo - 0xdc00));
			} else if (cp >= 0xdc00 && cp <= 0xdfff)
				cp = 0xfffd;	/* libjq keeps it, then replaces it */
			if (out)
				rec_pututf8(out, cp);
			break;
		}
		default:
			cj_fail(r, here(r) - 1, "invalid escape '\\%c' in a string", c >= 0x20 && c < 0x7f ? c : '?');
		}
	}
	if (out && hi)
		utf8fix(out, from);
}

/* Bytes that end a literal, as libjq classifies them. */
static const unsigned char delim[256] = {
	[' '] = 1, ['\t'] = 1, ['\n'] = 1, ['\r'] = 1, ['"'] = 1, ['['] = 1,
	[']'] = 1, ['{'] = 1, ['}'] = 1, [','] = 1, [':'] = 1
};

/*
 * A literal (number, true, false, null) into r->tok, checked as libjq
 * checks it: true/false/null exactly, else whatever its strtod takes in
 * full (so also 01, .5, 1., +1, NaN, Infinity; never hexadecimal).
 */
enum cjkind
cj_lit(struct cj *r)
{
	uint64_t at = here(r);
	const char *s;
	size_t n;
	char *end;
	int c;

	r->tok.len = 0;
	buf_grow(&r->tok, 0);
	while ((c = peekc(r)) != EOF && !delim[c]) {
		const unsigned char *p = r->b + r->pos, *q = p, *e = r->b + r->len;

		while (q < e && !delim[*q])
			q++;
		if (r->tok.len + (size_t)(q - p) > MAXLIT)
			cj_fail(r, at, "literal longer than %d bytes", MAXLIT);
		buf_add(&r->tok, p, (size_t)(q - p));
		if (r->cap) {
			while (r->pos < (size_t)(q - r->b))
				advance(r);
		} else
			r->pos = (size_t)(q - r->b);
	}
	s = r->tok.p, n = r->tok.len;
	if (n == 0)
		cj_unexpected(r, "a value");
	if (js_isnum(s, n))
		return CJ_NUMBER;
	switch (s[0]) {
	case 't':
		if (n == 4 && memcmp(s, "true", 4) == 0)
			return CJ_TRUE;
		goto bad;
	case 'f':
		if (n == 5 && memcmp(s, "false", 5) == 0)
			return CJ_FALSE;
		goto bad;
	case 'n':
		if (n == 4 && memcmp(s, "null", 4) == 0)
			return CJ_NULL;
		if (n != 3)
			goto bad;
		break;
	}
	if (memchr(s, 'x', n) == NULL && memchr(s, 'X', n) == NULL && strlen(s) == n) {
		(void)strtod(s, &end);
		if (end == s + n)
			return CJ_NUMBER;
	}
bad:
	{
		char shown[41];
		size_t i;

		/* Printable ASCII only: the message goes into a record. */
		for (i = 0; i < n && i < sizeof shown - 1; i++)
			shown[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
		shown[i] = '\0';
		if (r->field)
			cj_fail(r, at, "\"%s\": invalid literal '%s%s' (not a JSON number)",
			    r->field, shown, n > i ? "..." : "");
		cj_fail(r, at, "invalid literal '%s%s'", shown, n > i ? "..." : "");
	}
}

/* Skip one value, at its first byte (white space skipped). */
void
cj_skipvalue(struct cj *r)
{
	int base = r->depth, c = peekc(r);
	unsigned char stack[MAXDEPTH + 1];

	for (;;) {
		/* A value starts at c. */
		if (c == '{' || c == '[') {
			stack[r->depth] = (unsigned char)c;
			cj_push(r);
			c = ws(r);
			if (c == (stack[r->depth - 1] == '{' ? '}' : ']')) {
				cj_pop(r, stack[r->depth - 1]);
				goto after;
			}
			if (stack[r->depth - 1] == '[')
				continue;
			goto key;
		}
		if (c == '"')
			cj_str(r, NULL);
		else
			(void)cj_lit(r);
after:
		while (r->depth > base) {
			int open = stack[r->depth - 1], close = open == '{' ? '}' : ']';

			c = ws(r);
			if (c == close) {
				cj_pop(r, open);
				continue;
			}
			if (c != ',')
				cj_unexpected(r, open == '{' ? "',' or '}'" : "',' or ']'");
			advance(r);
			c = ws(r);
			if (open == '[')
				goto value;
			goto key;
		}
		return;
key:
		if (c != '"')
			cj_unexpected(r, "a string key");
		cj_str(r, NULL);
		if (ws(r) != ':')
			cj_unexpected(r, "':'");
		advance(r);
		c = ws(r);
value:
		;
	}
}

/*
 * Members of the object just opened (push done): the next key into kb
 * (emptied first), ':' and white space consumed.  0 at the closing '}'.
 */
int
cj_member(struct cj *r, int *first, struct buf *kb)
{
	int c = ws(r);

	if (c == '}') {
		cj_pop(r, '{');
		return 0;
	}
	if (!*first) {
		if (c != ',')
			cj_unexpected(r, "',' or '}'");
		advance(r);
		c = ws(r);
	}
	*first = 0;
	if (c != '"')
		cj_unexpected(r, "a string key");
	kb->len = 0;
	buf_grow(kb, 0);
	cj_str(r, kb);
	if (ws(r) != ':')
		cj_unexpected(r, "':'");
	advance(r);
	ws(r);
	return 1;
}
