/*
 * commjson: a streaming reader of communication.json (see commjson.h).
 *
 * A recursive descent over the fixed shape of the file, on a byte reader
 * that refills a 64 KiB chunk; values nobody asked for are skipped by an
 * iterative scanner.  Syntax errors longjmp back to cj_read(), which then
 * finds the line of the error by counting newlines up to its offset.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "commjson.h"
#include "dec.h"
#include "rec.h"
#include "simd.h"
#include "util.h"

#define CHUNK		65536
#define MAXDEPTH	256	/* libjq's parser stack limit */
#define MAXLIT		4096

/* A captured value: offsets into the op's arena. */
struct slot {
	enum cjkind	 kind;
	size_t		 off, n;
	int		 null;		/* raw text over CJ_MAXRAW */
};

struct tslot {
	size_t		 name, namelen;
	int		 isobj;
	struct slot	 v[3];
};

enum { T_START, T_ELAPSE, T_TRANSIT, T_WAIT, T_SYNC, T_IDLE, T_WRATIO, T_SRATIO, T_N };

static const char *const timekey[T_N] = {
	"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
	"Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio",
	"Synchronization Time Ratio"
};

static const char *const bwkey[3] = {
	"Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)"
};

struct cj {
	FILE		*fp;
	unsigned char	*b;
	size_t		 pos, len;
	uint64_t	 off;		/* file offset of b[0] */
	int		 eof;
	int		 depth;	/* open arrays and objects */
	int		 slots;	/* libjq's parser stack: 1 per array, 2 per object */
	struct buf	*cap;		/* raw capture of the value being skipped */
	int		 capover;
	jmp_buf		 jb;
	int		 code, eno;
	uint64_t	 erroff;
	char		 emsg[160];

	/* Keys of the levels above the op, and scratch. */
	struct buf	 k1, k2, k3, k4, k5, k6, tok, raw;
	const char	*field;		/* the figure being read, for messages */
	/* The op being read. */
	struct buf	 arena;
	struct slot	 t[T_N];
	int		 has_time, has_bw, isobj;
	struct tslot	*tr;
	int		 ntr, trcap;
	struct cjtransport *out;
	int		 outcap;
};

static void fail(struct cj *, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));

static void
fail(struct cj *r, uint64_t off, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->emsg, sizeof r->emsg, fmt, ap);
	va_end(ap);
	r->erroff = off;
	r->code = CJ_ESYNTAX;
	longjmp(r->jb, 1);
}

static int
fill(struct cj *r)
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

static inline uint64_t
here(const struct cj *r)
{
	return r->off + r->pos;
}

static inline int
peekc(struct cj *r)
{
	if (r->pos < r->len || fill(r))
		return r->b[r->pos];
	return EOF;
}

static inline void
advance(struct cj *r)
{
	if (r->cap) {
		if (r->cap->len < CJ_MAXRAW)
			buf_addc(r->cap, r->b[r->pos]);
		else
			r->capover = 1;
	}
	r->pos++;
}

static inline int
isws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Skip white space; the next byte (not consumed) or EOF. */
static inline int
ws(struct cj *r)
{
	int c;

	while (isws(c = peekc(r)))
		advance(r);
	return c;
}

static void __attribute__((noreturn))
unexpected(struct cj *r, const char *what)
{
	int c = peekc(r);

	if (c == EOF)
		fail(r, here(r), "unexpected end of file, expected %s", what);
	if (c >= 0x20 && c < 0x7f)
		fail(r, here(r), "unexpected '%c', expected %s", c, what);
	fail(r, here(r), "unexpected byte 0x%02x, expected %s", c, what);
}

static void
push(struct cj *r)
{
	if (r->slots >= MAXDEPTH)
		fail(r, here(r), "nested too deeply (over %d levels)", MAXDEPTH);
	r->slots += r->b[r->pos] == '{' ? 2 : 1;
	r->depth++;
	advance(r);
}

static void
pop(struct cj *r, int open)
{
	r->slots -= open == '{' ? 2 : 1;
	r->depth--;
	advance(r);
}

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned
hex4(struct cj *r)
{
	unsigned v = 0;

	for (int i = 0; i < 4; i++) {
		int c = peekc(r), h = hexval(c);

		if (h < 0) {
			if (c == EOF)
				fail(r, here(r), "unexpected end of file in a \\u escape");
			fail(r, here(r), "invalid \\uXXXX escape");
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
static void
str(struct cj *r, struct buf *out)
{
	size_t from = out ? out->len : 0;
	uint64_t hi = 0;	/* a byte >= 0x80 was copied */

	advance(r);
	for (;;) {
		const unsigned char *p, *q, *e;
		int c;

		if (r->pos >= r->len && !fill(r))
			fail(r, here(r), "unexpected end of file in a string");
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
			fail(r, here(r), "control character 0x%02x in a string", c);
		advance(r);
		c = peekc(r);
		if (c == EOF)
			fail(r, here(r), "unexpected end of file in a string");
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
					fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				advance(r);
				if (peekc(r) != 'u')
					fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				advance(r);
				lo = hex4(r);
				if (lo < 0xdc00 || lo > 0xdfff)
					fail(r, at, "invalid \\uXXXX\\uXXXX surrogate pair escape");
				cp = 0x10000 + ((cp - 0xd800) << 10 | (lo - 0xdc00));
			} else if (cp >= 0xdc00 && cp <= 0xdfff)
				cp = 0xfffd;	/* libjq keeps it, then replaces it */
			if (out)
				rec_pututf8(out, cp);
			break;
		}
		default:
			fail(r, here(r) - 1, "invalid escape '\\%c' in a string", c >= 0x20 && c < 0x7f ? c : '?');
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

/* Strict JSON number grammar: the common case, no strtod needed. */
static int
jsonnum(const char *s, size_t n)
{
	size_t i = 0, d;

	if (i < n && s[i] == '-')
		i++;
	if (i < n && s[i] == '0')
		i++;
	else if (i < n && s[i] >= '1' && s[i] <= '9')
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	else
		return 0;
	if (i < n && s[i] == '.') {
		d = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		d = i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == d)
			return 0;
	}
	return i == n;
}

/*
 * A literal (number, true, false, null) into r->tok, checked as libjq
 * checks it: true/false/null exactly, else whatever its strtod takes in
 * full (so also 01, .5, 1., +1, NaN, Infinity; never hexadecimal).
 */
static enum cjkind
lit(struct cj *r)
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
			fail(r, at, "literal longer than %d bytes", MAXLIT);
		buf_add(&r->tok, p, (size_t)(q - p));
		if (r->cap) {
			while (r->pos < (size_t)(q - r->b))
				advance(r);
		} else
			r->pos = (size_t)(q - r->b);
	}
	s = r->tok.p, n = r->tok.len;
	if (n == 0)
		unexpected(r, "a value");
	if (jsonnum(s, n))
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
			fail(r, at, "\"%s\": invalid literal '%s%s' (not a JSON number)",
			    r->field, shown, n > i ? "..." : "");
		fail(r, at, "invalid literal '%s%s'", shown, n > i ? "..." : "");
	}
}

/* Skip one value, at its first byte (white space skipped). */
static void
skipvalue(struct cj *r)
{
	int base = r->depth, c = peekc(r);
	unsigned char stack[MAXDEPTH + 1];

	for (;;) {
		/* A value starts at c. */
		if (c == '{' || c == '[') {
			stack[r->depth] = (unsigned char)c;
			push(r);
			c = ws(r);
			if (c == (stack[r->depth - 1] == '{' ? '}' : ']')) {
				pop(r, stack[r->depth - 1]);
				goto after;
			}
			if (stack[r->depth - 1] == '[')
				continue;
			goto key;
		}
		if (c == '"')
			str(r, NULL);
		else
			(void)lit(r);
after:
		while (r->depth > base) {
			int open = stack[r->depth - 1], close = open == '{' ? '}' : ']';

			c = ws(r);
			if (c == close) {
				pop(r, open);
				continue;
			}
			if (c != ',')
				unexpected(r, open == '{' ? "',' or '}'" : "',' or ']'");
			advance(r);
			c = ws(r);
			if (open == '[')
				goto value;
			goto key;
		}
		return;
key:
		if (c != '"')
			unexpected(r, "a string key");
		str(r, NULL);
		if (ws(r) != ':')
			unexpected(r, "':'");
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
static int
member(struct cj *r, int *first, struct buf *kb)
{
	int c = ws(r);

	if (c == '}') {
		pop(r, '{');
		return 0;
	}
	if (!*first) {
		if (c != ',')
			unexpected(r, "',' or '}'");
		advance(r);
		c = ws(r);
	}
	*first = 0;
	if (c != '"')
		unexpected(r, "a string key");
	kb->len = 0;
	buf_grow(kb, 0);
	str(r, kb);
	if (ws(r) != ':')
		unexpected(r, "':'");
	advance(r);
	ws(r);
	return 1;
}

static int
keyis(const struct buf *k, const char *s)
{
	return strlen(s) == k->len && memcmp(k->p, s, k->len) == 0;
}

/* Capture the value of figure name here into the op's arena. */
static void
capture(struct cj *r, struct slot *v, const char *name)
{
	int c = peekc(r);

	r->field = name;
	v->null = 0;
	v->off = r->arena.len;
	if (c == '"') {
		v->kind = CJ_STRING;
		str(r, &r->arena);
	} else if (c == '{' || c == '[') {
		v->kind = c == '{' ? CJ_OBJECT : CJ_ARRAY;
		r->raw.len = 0;
		r->cap = &r->raw;
		r->capover = 0;
		skipvalue(r);
		r->cap = NULL;
		if (r->capover)
			v->null = 1;
		else
			buf_add(&r->arena, r->raw.p, r->raw.len);
	} else {
		v->kind = lit(r);
		if (v->kind == CJ_NUMBER)
			buf_add(&r->arena, r->tok.p, r->tok.len);
	}
	v->n = r->arena.len - v->off;
	buf_addc(&r->arena, '\0');
	r->field = NULL;
}

static void
timeinfo(struct cj *r)
{
	int first = 1, i;

	for (i = 0; i < T_N; i++)
		r->t[i].kind = CJ_ABSENT;
	r->has_time = peekc(r) == '{';
	if (!r->has_time) {
		skipvalue(r);
		return;
	}
	push(r);
	while (member(r, &first, &r->k5)) {
		for (i = 0; i < T_N; i++)
			if (keyis(&r->k5, timekey[i]))
				break;
		if (i < T_N)
			capture(r, &r->t[i], timekey[i]);
		else
			skipvalue(r);
	}
}

static void
bwinfo(struct cj *r)
{
	int first = 1;

	r->ntr = 0;
	r->has_bw = peekc(r) == '{';
	if (!r->has_bw) {
		skipvalue(r);
		return;
	}
	push(r);
	while (member(r, &first, &r->k5)) {
		struct tslot *t = NULL;
		int f2 = 1, i;

		/* A repeated key replaces the value in place, as in libjq. */
		for (i = 0; i < r->ntr; i++)
			if (r->tr[i].namelen == r->k5.len &&
			    memcmp(r->arena.p + r->tr[i].name, r->k5.p, r->k5.len) == 0)
				t = &r->tr[i];
		if (t == NULL) {
			if (r->ntr == r->trcap) {
				r->trcap = r->trcap ? 2 * r->trcap : 8;
				r->tr = xreallocarray(r->tr, (size_t)r->trcap, sizeof *r->tr);
			}
			t = &r->tr[r->ntr++];
			t->name = r->arena.len;
			t->namelen = r->k5.len;
			buf_add(&r->arena, r->k5.p, r->k5.len);
			buf_addc(&r->arena, '\0');
		}
		for (i = 0; i < 3; i++)
			t->v[i].kind = CJ_ABSENT;
		t->isobj = peekc(r) == '{';
		if (!t->isobj) {
			skipvalue(r);
			continue;
		}
		push(r);
		while (member(r, &f2, &r->k6)) {
			for (i = 0; i < 3; i++)
				if (keyis(&r->k6, bwkey[i]))
					break;
			if (i < 3)
				capture(r, &t->v[i], bwkey[i]);
			else
				skipvalue(r);
		}
	}
}

static void
opbegin(struct cj *r)
{
	r->arena.len = 0;
	buf_grow(&r->arena, 0);
	for (int i = 0; i < T_N; i++)
		r->t[i].kind = CJ_ABSENT;
	r->has_time = r->has_bw = 0;
	r->ntr = 0;
}

/* One member of an op object: the key in kb, at its value. */
static void
opmember(struct cj *r, const struct buf *kb)
{
	if (keyis(kb, "Communication Time Info"))
		timeinfo(r);
	else if (keyis(kb, "Communication Bandwidth Info"))
		bwinfo(r);
	else
		skipvalue(r);
}

static void
setval(const struct cj *r, struct cjval *v, const struct slot *s)
{
	v->kind = s->kind;
	v->s = s->kind == CJ_ABSENT || s->null ? NULL : r->arena.p + s->off;
	v->n = v->s ? s->n : 0;
}

static void
opend(struct cj *r, const struct buf *step, const char *kind, size_t kindlen,
    const struct buf *key, cj_fn fn, void *arg)
{
	struct cjop op;
	struct cjval *tv[T_N] = { &op.start_us, &op.elapse_ms, &op.transit_ms, &op.wait_ms,
	    &op.sync_ms, &op.idle_ms, &op.wait_ratio, &op.sync_ratio };

	if (fn == NULL)
		return;
	memset(&op, 0, sizeof op);
	op.step = step ? step->p : NULL;
	op.steplen = step ? step->len : 0;
	op.kind = kind;
	op.kindlen = kindlen;
	op.key = key->p;
	op.keylen = key->len;
	op.isobj = r->isobj;
	op.has_time = r->has_time;
	for (int i = 0; i < T_N; i++)
		setval(r, tv[i], &r->t[i]);
	op.has_bw = r->has_bw;
	if (r->ntr > r->outcap) {
		r->outcap = r->ntr;
		r->out = xreallocarray(r->out, (size_t)r->outcap, sizeof *r->out);
	}
	for (int i = 0; i < r->ntr; i++) {
		struct cjtransport *t = &r->out[i];

		t->name = r->arena.p + r->tr[i].name;
		t->namelen = r->tr[i].namelen;
		t->isobj = r->tr[i].isobj;
		setval(r, &t->size_mb, &r->tr[i].v[0]);
		setval(r, &t->time_ms, &r->tr[i].v[1]);
		setval(r, &t->bandwidth_gbps, &r->tr[i].v[2]);
	}
	op.ntransport = r->ntr;
	op.transport = r->out;
	if (fn(&op, arg) != 0) {
		r->code = CJ_ESTOP;
		longjmp(r->jb, 1);
	}
}

static void
document(struct cj *r, cj_fn fn, void *arg)
{
	int c, f1 = 1;

	/* A byte order mark, as libjq skips it. */
	if (peekc(r) == 0xef && r->len - r->pos >= 3 && memcmp(r->b + r->pos, "\xef\xbb\xbf", 3) == 0)
		r->pos += 3;
	c = ws(r);
	if (c == EOF)
		fail(r, here(r), here(r) ? "no JSON value" : "empty file");
	if (c != '{') {
		skipvalue(r);
		if (ws(r) != EOF)
			unexpected(r, "end of file after the JSON value");
		r->code = CJ_ENOTOBJ;
		return;
	}
	push(r);
	while (member(r, &f1, &r->k1)) {
		int f2 = 1;

		if (peekc(r) != '{') {
			skipvalue(r);
			continue;
		}
		push(r);
		if (!member(r, &f2, &r->k2))
			continue;
		if (keyis(&r->k2, "Communication Time Info") ||
		    keyis(&r->k2, "Communication Bandwidth Info")) {
			/* msprof: k1 is the op. */
			opbegin(r);
			r->isobj = 1;
			do
				opmember(r, &r->k2);
			while (member(r, &f2, &r->k2));
			opend(r, NULL, "collective", strlen("collective"), &r->k1, fn, arg);
			continue;
		}
		/* torch_npu: k1 is the step, k2 the kind, k3 the op. */
		do {
			int f3 = 1;

			if (peekc(r) != '{') {
				skipvalue(r);
				continue;
			}
			push(r);
			while (member(r, &f3, &r->k3)) {
				int f4 = 1;

				opbegin(r);
				r->isobj = peekc(r) == '{';
				if (!r->isobj)
					skipvalue(r);
				else {
					push(r);
					while (member(r, &f4, &r->k4))
						opmember(r, &r->k4);
				}
				opend(r, &r->k1, r->k2.p, r->k2.len, &r->k3, fn, arg);
			}
		} while (member(r, &f2, &r->k2));
	}
	if (ws(r) != EOF)
		unexpected(r, "end of file after the JSON value");
}

/* Line of byte offset off in path (1-based), by counting newlines. */
static unsigned long
lineof(const char *path, uint64_t off)
{
	FILE *fp = fopen(path, "r");
	unsigned long line = 1;
	char b[CHUNK];
	size_t n;

	if (fp == NULL)
		return 0;
	while (off > 0 && (n = fread(b, 1, off < sizeof b ? (size_t)off : sizeof b, fp)) > 0) {
		for (const char *p = b; (p = memchr(p, '\n', n - (size_t)(p - b))) != NULL; p++)
			line++;
		off -= n;
	}
	fclose(fp);
	return line;
}

int
cj_read(const char *path, cj_fn fn, void *arg, char *err, size_t errlen)
{
	struct cj *r = xcalloc(1, sizeof *r);
	int code, e;

	if ((r->fp = fopen(path, "r")) == NULL) {
		e = errno;
		snprintf(err, errlen, "%s", strerror(e));
		free(r);
		errno = e;
		return CJ_EIO;
	}
	r->b = xmalloc(CHUNK);
	if (setjmp(r->jb) == 0)
		document(r, fn, arg);
	code = r->code;
	e = r->eno ? r->eno : EIO;
	if (code == CJ_ESYNTAX) {
		snprintf(err, errlen, "line %lu, byte %llu: %s", lineof(path, r->erroff),
		    (unsigned long long)r->erroff, r->emsg);
	} else if (code == CJ_ENOTOBJ)
		snprintf(err, errlen, "top level is not an object");
	else if (code == CJ_ESTOP)
		snprintf(err, errlen, "stopped");
	else if (code == CJ_EIO)
		snprintf(err, errlen, "%s", strerror(e));
	fclose(r->fp);
	free(r->b);
	buf_free(&r->k1), buf_free(&r->k2), buf_free(&r->k3), buf_free(&r->k4);
	buf_free(&r->k5), buf_free(&r->k6), buf_free(&r->tok), buf_free(&r->raw), buf_free(&r->arena);
	free(r->tr);
	free(r->out);
	free(r);
	if (code == CJ_EIO)
		errno = e;
	return code;
}

/* ---------- the comm record ---------- */

/* Is the number text n digits that libjq prints back unchanged? */
static int
plainint(const char *s, size_t n)
{
	if (n == 0 || n > 15 || (s[0] == '0' && n > 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* A value under key, numbers in libjq's shortest form of the double. */
static void
putval(struct buf *b, const char *key, const struct cjval *v)
{
	jv x, t;

	switch (v->kind) {
	case CJ_STRING:
		out_str(b, key, v->s, v->n);
		break;
	case CJ_NUMBER:
	case CJ_ARRAY:
	case CJ_OBJECT:
		if (v->kind == CJ_NUMBER && plainint(v->s, v->n)) {
			out_raw(b, key, v->s, v->n);
			break;
		}
		x = v->s ? jv_parse_sized(v->s, (int)v->n) : jv_invalid();
		if (!jv_is_valid(x)) {
			jv_free(x);
			out_null(b, key);
			break;
		}
		t = jv_dump_string(x, 0);
		out_raw(b, key, jv_string_value(t), strlen(jv_string_value(t)));
		jv_free(t);
		break;
	case CJ_TRUE:
		out_raw(b, key, "true", 4);
		break;
	case CJ_FALSE:
		out_raw(b, key, "false", 5);
		break;
	default:
		out_null(b, key);
	}
}

void
cj_putrec(struct buf *b, const char *profile, const char *src, const struct cjrec *r)
{
	static const struct cjval absent = { .kind = CJ_ABSENT };
	struct buf t = {0};

	b->len = 0;
	out_begin(b, "comm");
	out_cstr(b, "profile", profile);
	out_cstr(b, "src", src);
	if (r->step)
		out_str(b, "step", r->step, r->steplen);
	else
		out_null(b, "step");
	out_str(b, "kind", r->kind, r->kindlen);
	out_str(b, "op", r->op, r->oplen);
	if (r->group)
		out_str(b, "group", r->group, r->grouplen);
	else
		out_null(b, "group");
	if (r->has_start)
		out_i64(b, "start_ns", r->start_ns);
	else
		out_null(b, "start_ns");
	putval(b, "elapse_ms", &r->elapse_ms);
	putval(b, "transit_ms", &r->transit_ms);
	putval(b, "wait_ms", &r->wait_ms);
	putval(b, "sync_ms", &r->sync_ms);
	putval(b, "idle_ms", &r->idle_ms);
	putval(b, "wait_ratio", &r->wait_ratio);
	putval(b, "sync_ratio", &r->sync_ratio);
	out_key(b, "bandwidth");
	buf_addc(b, '{');
	for (int i = 0; i < r->ntransport; i++) {
		const struct cjtransport *tr = &r->transport[i];

		if (i > 0)
			buf_addc(b, ',');
		out_esc(b, tr->name, tr->namelen);
		buf_addc(b, ':');
		/* out_* lead with a comma: the object's first one becomes '{' */
		t.len = 0;
		putval(&t, "size_mb", tr->isobj ? &tr->size_mb : &absent);
		putval(&t, "time_ms", tr->isobj ? &tr->time_ms : &absent);
		putval(&t, "bandwidth_gbps", tr->isobj ? &tr->bandwidth_gbps : &absent);
		buf_addc(b, '{');
		buf_add(b, t.p + 1, t.len - 1);
		buf_addc(b, '}');
	}
	buf_addc(b, '}');
	buf_add(b, "}\n", 2);
	buf_free(&t);
}

const char *
cj_step(const char *key, size_t n, size_t *len)
{
	if (n == 4 && memcmp(key, "step", 4) == 0)
		return NULL;
	if (n >= 4 && memcmp(key, "step", 4) == 0)
		key += 4, n -= 4;
	*len = n;
	return key;
}

int
cj_us2ns(double us, int64_t *ns)
{
	char t[64];

	snprintf(t, sizeof t, "%.3f", us);
	return dec_us2ns(t, strlen(t), ns);
}

void
cj_ratio(double part, double transit, char *t, size_t nt)
{
	double den = part + transit;
	size_t n;

	snprintf(t, nt, "%.4f", den != 0 ? part / den : 0.0);
	/* "0.5000" -> "0.5", "1.0000" -> "1" */
	n = strlen(t);
	while (n > 0 && t[n - 1] == '0')
		t[--n] = '\0';
	if (n > 0 && t[n - 1] == '.')
		t[--n] = '\0';
}
