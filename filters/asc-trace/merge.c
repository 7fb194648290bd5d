/* asc-trace: --merge, the original trace copied as valid JSON (trace.h). */
#define _GNU_SOURCE		/* memmem */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "jscan.h"
#include "trace.h"

/*
 * --merge: copy the original trace's events one element at a time (the
 * only memory), noting the device's pid from its process_name metadata;
 * the overlay is appended to the same array.  Every byte is read as JSON
 * and what is written is JSON whatever the input holds: control
 * characters and invalid UTF-8 in strings are escaped (U+FFFD for a bad
 * sequence), NaN and Infinity (Python's json writes them) become null, and
 * anything else that is not JSON, bytes after the trace and a second
 * "traceEvents" are refused with FILE@BYTE.
 */
#define MAXDEPTH	512


static int
cgetc(struct copier *c)
{
	if (c->pos == c->len) {
		ssize_t n;

		do
			n = read(c->fd, c->b, 1 << 20);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			dieerr("%s", c->name);
		if (n == 0)
			return EOF;
		c->pos = 0;
		c->len = (size_t)n;
	}
	c->off++;
	return (unsigned char)c->b[c->pos++];
}

/* Give back the byte just read (always in the buffer still). */
static void
cunget(struct copier *c, int ch)
{
	if (ch != EOF) {
		c->pos--;
		c->off--;
	}
}

static void cbad(struct copier *, uint64_t, const char *) __attribute__((noreturn));

static void
cbad(struct copier *c, uint64_t at, const char *msg)
{
	warnmsg("%s@%" PRIu64 ": %s", c->name, at, msg);
	exit(EX_DATA);		/* the aside file goes with the exit */
}

static int
cws(struct copier *c)
{
	int ch;

	while (js_isws(ch = cgetc(c)))
		;
	return ch;
}

static void
devpid(const char *e, size_t n)
{
	jv v, a, p;

	if (pid[0] || !memmem(e, n, "\"process_name\"", 14) || !memmem(e, n, "Ascend Hardware", 15))
		return;
	v = jv_parse_sized(e, (int)n);
	a = jv_getpath(jv_copy(v), JV_ARRAY(jv_string("args"), jv_string("name")));
	p = jv_object_get(jv_copy(v), jv_string("pid"));
	if (jv_get_kind(a) == JV_KIND_STRING && strcmp(jv_string_value(a), "Ascend Hardware") == 0 &&
	    (jv_get_kind(p) == JV_KIND_NUMBER || jv_get_kind(p) == JV_KIND_STRING)) {
		jv d = jv_dump_string(jv_copy(p), 0);

		snprintf(pid, sizeof pid, "%s", jv_string_value(d));
		jv_free(d);
	}
	jv_free(p);
	jv_free(a);
	jv_free(v);
}

/* Bytes a UTF-8 sequence led by b takes, and its second byte's range. */
static int
utf8lead(int b, int *lo, int *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b == 0xe0)
		*lo = 0xa0;
	else if (b == 0xed)
		*hi = 0x9f;	/* no surrogates */
	if (b >= 0xe0 && b <= 0xef)
		return 3;
	if (b == 0xf0)
		*lo = 0x90;
	else if (b == 0xf4)
		*hi = 0x8f;	/* nothing above U+10FFFF */
	if (b >= 0xf0 && b <= 0xf4)
		return 4;
	return 0;
}

/* A string whose opening quote was read, written to e as valid JSON. */
static void
cstring(struct copier *c, struct buf *e)
{
	static const char hex[] = "0123456789abcdef";
	int ch;

	buf_addc(e, '"');
	while ((ch = cgetc(c)) != '"') {
		if (ch == EOF)
			cbad(c, c->off, "ends inside a string");
		if (ch == '\\') {
			uint64_t at = c->off - 1;

			ch = cgetc(c);
			if (ch <= 0 || !strchr("\"\\/bfnrtu", ch))
				cbad(c, at, "a backslash escape JSON does not have");
			buf_addc(e, '\\');
			buf_addc(e, ch);
			for (int i = 0; ch == 'u' && i < 4; i++) {
				int h = cgetc(c);

				if (js_hexval(h) < 0)
					cbad(c, at, "a \\u escape without four hex digits");
				buf_addc(e, h);
			}
		} else if (ch < 0x20) {
			char u[6] = { '\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15] };

			buf_add(e, u, 6);
			c->escaped++;
		} else if (ch < 0x80)
			buf_addc(e, ch);
		else {
			int lo, hi, n = utf8lead(ch, &lo, &hi), i;
			char seq[4];

			seq[0] = (char)ch;
			for (i = 1; i < n; i++) {
				ch = cgetc(c);
				if (ch < lo || ch > hi) {
					cunget(c, ch);
					break;
				}
				seq[i] = (char)ch;
				lo = 0x80;
				hi = 0xbf;
			}
			if (n > 0 && i == n)
				buf_add(e, seq, (size_t)n);
			else {
				buf_add(e, "\xef\xbf\xbd", 3);	/* U+FFFD */
				c->escaped++;
			}
		}
	}
	buf_addc(e, '"');
}

/* A bare word: true, false, null, or Python's NaN / Infinity as null. */
static void
cword(struct copier *c, int ch, struct buf *e, int minus)
{
	static const char *const words[] = { "true", "false", "null", "NaN", "Infinity" };
	uint64_t at = c->off - 1 - (minus != 0);
	char w[16];
	size_t n = 0;

	while (ch != EOF && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) && n < sizeof w - 1) {
		w[n++] = (char)ch;
		ch = cgetc(c);
	}
	cunget(c, ch);
	w[n] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(w, words[i]) == 0 && (!minus || i == 4)) {
			if (i >= 3)
				c->nonnum++;
			buf_adds(e, i >= 3 ? "null" : w);
			return;
		}
	cbad(c, at, "not a JSON value");
}

/* A number: the bytes a number may hold, then jscan.h's grammar on them. */
static void
cnumber(struct copier *c, int ch, struct buf *e)
{
	uint64_t at = c->off - 1;
	size_t from = e->len;
	const char *end;
	int ok;

	if (ch == '-') {
		int nx = cgetc(c);

		if (nx == 'I') {
			cword(c, nx, e, 1);
			return;
		}
		buf_addc(e, '-');
		ch = nx;
	}
	while (ch > 0 && strchr("0123456789+-.eE", ch)) {
		buf_addc(e, ch);
		ch = cgetc(c);
	}
	cunget(c, ch);
	end = e->p + e->len;
	if (js_num(e->p + from, end, &ok) != end || !ok)
		cbad(c, at, "not a JSON number");
}

/* One value whose first byte ch was read, written to e as valid JSON. */
static void
cvalue(struct copier *c, int ch, struct buf *e, int depth)
{
	int close = ch == '{' ? '}' : ']';

	if (ch == '"') {
		cstring(c, e);
		return;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		cnumber(c, ch, e);
		return;
	}
	if (ch != '{' && ch != '[') {
		if (ch == EOF)
			cbad(c, c->off, "ends where a value should be");
		cword(c, ch, e, 0);
		return;
	}
	if (depth >= MAXDEPTH)
		cbad(c, c->off - 1, "nested deeper than 512 levels");
	buf_addc(e, ch);
	if ((ch = cws(c)) == close) {
		buf_addc(e, close);
		return;
	}
	for (;;) {
		if (close == '}') {
			if (ch != '"')
				cbad(c, c->off - 1, "an object key that is not a string");
			cstring(c, e);
			if (cws(c) != ':')
				cbad(c, c->off - 1, "no ':' after an object key");
			buf_addc(e, ':');
			ch = cws(c);
		}
		cvalue(c, ch, e, depth + 1);
		ch = cws(c);
		if (ch == close)
			break;
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, ch == EOF ? "ends inside an event" :
			    "neither ',' nor the end of an object or array");
		buf_addc(e, ',');
		ch = cws(c);
	}
	buf_addc(e, close);
}

/* An object key (its quote read) as written: is it "traceEvents"? */
static int
iskey(const struct buf *k)
{
	return k->len == 13 && memcmp(k->p, "\"traceEvents\"", 13) == 0;
}

/* Copy up to and including the '[' of the events; leaves the rest. */
void
copy_head(struct copier *c)
{
	struct buf k = { 0 }, v = { 0 };
	int ch;

	/* A byte order mark, then the trace. */
	while (js_isws(ch = cgetc(c)) || ch == 0xef || ch == 0xbb || ch == 0xbf)
		;
	if (ch == '[') {
		emit("[\n", 2);
		return;
	}
	if (ch != '{')
		cbad(c, ch == EOF ? c->off : c->off - 1, "not a trace: neither an array nor an object");
	c->object = 1;
	emit("{", 1);
	for (ch = cws(c); ch != '}'; ch = cws(c)) {
		if (ch != '"')
			cbad(c, ch == EOF ? c->off : c->off - 1, "an object key that is not a string");
		k.len = 0;
		cstring(c, &k);
		if (cws(c) != ':')
			cbad(c, c->off - 1, "no ':' after an object key");
		emit(k.p, k.len);
		emit(":", 1);
		ch = cws(c);
		if (iskey(&k)) {
			if (ch != '[')
				cbad(c, c->off - 1, "\"traceEvents\" is not an array");
			emit("[\n", 2);
			buf_free(&k);
			buf_free(&v);
			return;
		}
		v.len = 0;
		cvalue(c, ch, &v, 1);
		emit(v.p, v.len);
		if ((ch = cws(c)) == '}')
			break;
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, "neither ',' nor the end of the object");
		emit(",", 1);
	}
	cbad(c, c->off - 1, "no \"traceEvents\" array");
}

/* Copy each event of the array until its ']' (or the end of the file). */
void
copy_events(struct copier *c)
{
	struct buf e = { 0 };
	int ch = cws(c);

	if (ch == ']')
		return;
	for (;;) {
		if (ch == EOF) {
			if (c->object)
				cbad(c, c->off, "ends inside \"traceEvents\"");
			warnmsg("%s: no final ']' (a known torch_npu defect): closed", c->name);
			break;
		}
		if (ch != '{')
			cbad(c, c->off - 1, "an element of the event array is not an object");
		e.len = 0;
		cvalue(c, ch, &e, 1);
		devpid(e.p, e.len);
		sep();
		emit(e.p, e.len);
		c->elements++;
		ch = cws(c);
		if (ch == ']')
			break;
		if (ch == EOF)
			continue;
		if (ch != ',')
			cbad(c, c->off - 1, "neither ',' nor ']' after an event");
		/* A ',' before ']' or the end: torch_npu leaves one. */
		if ((ch = cws(c)) == ']')
			break;
	}
	buf_free(&e);
}

/* Nothing but white space may follow the trace. */
static void
copy_end(struct copier *c)
{
	int ch = cws(c);

	if (ch != EOF)
		cbad(c, c->off - 1, "bytes after the end of the trace");
}

/* The rest of a {"traceEvents":...} object, read now and written last. */
void
read_tail(struct copier *c)
{
	struct buf k = { 0 };
	int ch;

	if (!c->object) {
		copy_end(c);
		return;
	}
	while ((ch = cws(c)) != '}') {
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, "neither ',' nor the end of the object");
		buf_addc(&c->tail, ',');
		if ((ch = cws(c)) != '"')
			cbad(c, ch == EOF ? c->off : c->off - 1, "an object key that is not a string");
		k.len = 0;
		cstring(c, &k);
		if (iskey(&k))
			cbad(c, c->off - k.len, "a second \"traceEvents\"");
		buf_add(&c->tail, k.p, k.len);
		if (cws(c) != ':')
			cbad(c, c->off - 1, "no ':' after an object key");
		buf_addc(&c->tail, ':');
		cvalue(c, cws(c), &c->tail, 1);
	}
	buf_addc(&c->tail, '}');
	buf_free(&k);
	copy_end(c);
}

/* After the array: the rest of the object read by read_tail(). */
void
copy_tail(struct copier *c)
{
	emit("\n]", 2);
	if (c->object)
		emit(c->tail.p, c->tail.len);
	emit("\n", 1);
	if (c->escaped)
		warnmsg("%s: %lu control characters or invalid UTF-8 sequences in strings escaped",
		    c->name, c->escaped);
	if (c->nonnum)
		warnmsg("%s: %lu NaN or Infinity written as null", c->name, c->nonnum);
}
