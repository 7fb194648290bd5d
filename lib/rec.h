/*
 * rec: NDJSON records in and out.  One JSON object per line, "type" first.
 *
 * Reading is split in two so pass-through costs a copy: rin_next() reads a
 * line, rin_type() finds its "type" (fast for lines starting {"type":"),
 * and only a filter that consumes the record calls rin_scan(), which
 * checks the whole line as JSON and tokenises its top-level keys into
 * spans of the line.  Lines the scanner does not handle (escaped keys,
 * libjq's leniencies) are parsed by libjq, re-serialised compactly and
 * scanned again, so every valid JSON object line is accepted and every
 * invalid one refused.  Nested values are kept as raw spans.
 *
 * Nothing here exits on bad data: functions return -1 and leave a message
 * (rin_error(), read back by rin_errmsg()) for the caller to print as
 * FILE:LINE: message.
 *
 * A reader is opaque (its parts share lib/rec_int.h): a filter holds a
 * pointer from rin_new() and asks for what it needs through the functions
 * below, so the reader's buffers can change without touching the filters.
 */
#ifndef ASC_REC_H
#define ASC_REC_H

#include <stdint.h>
#include <stdio.h>

#include "util.h"

#define REC_MAXF	128

struct rfield {
	const char	*k, *v;		/* key text (unescaped), raw value */
	size_t		 klen, vlen;
};

struct rin;

/*
 * A reader of path ("-" is stdin) whose lines are at most maxline bytes
 * (0: 256 MiB).  NULL with errno set when path cannot be opened.
 */
struct rin *rin_new(const char *path, size_t maxline);
/*
 * A reader with no input whose current line is line[0..len) (not copied:
 * it must outlive the reader), for scanning a record held in memory.
 */
struct rin *rin_mem(const char *line, size_t len);
/* Close the input and free the reader (NULL: nothing). */
void	rin_free(struct rin *);
/* The current line, NUL-terminated, without its newline (valid until the
 * next rin_next), and its length in *len (len may be NULL). */
const char *rin_line(const struct rin *, size_t *len);
/* The current line's number, from 1, and the input's name for messages
 * (the path given, <stdin> for "-", until rin_setname names it otherwise). */
unsigned long rin_lineno(const struct rin *);
const char *rin_name(const struct rin *);
void	rin_setname(struct rin *, const char *name);	/* kept, not copied */
/*
 * The text a field of the last rin_scan lies in, and its length: the line,
 * or its compact form by libjq when the scanner needed libjq (f NULL: the
 * line).  For a writer that copies the record around a field.
 */
const char *rin_text(const struct rin *, const struct rfield *f, size_t *len);
/*
 * Copy as read (spool.h): the descriptor read; from rin_copyto on, every
 * byte read is also written to fd (name: for its errors); rin_copyend
 * copies the rest of the input unread, closes fd and returns name (NULL
 * when nothing was being copied).  Write errors are fatal.
 */
int	rin_fd(const struct rin *);
void	rin_copyto(struct rin *, int fd, const char *name);
const char *rin_copyend(struct rin *);
/* Next non-empty line: 1, 0 at end of input, -1 too long or bad (err set:
 * the reader is then at the next line).  Read errors are fatal. */
int	rin_next(struct rin *);
/*
 * After a record of type `type` (tlen bytes, no NUL needed) that the caller passed (or dropped)
 * unchanged: pass the lines that follow while they are the same type in
 * canonical form ({"type":"T" first, LF-terminated, within maxline),
 * written to fp as they are (fp NULL: dropped) without a copy and without
 * being returned by rin_next, which goes on with the first other line.
 * Lines are counted.  For the millions of host events most stages only
 * carry along.
 */
void	rin_bulk(struct rin *, const char *type, size_t tlen, FILE *fp);
/* The record's "type" as a span of the line.  0, or -1 (err set). */
int	rin_type(struct rin *, const char **t, size_t *n);
/*
 * A bad record of r: "prog: NAME:LINE: err" on stderr and *rc = EX_DATA.
 * Returns whether to stop (not kflag).
 */
int	rin_bad(const struct rin *r, int kflag, int *rc);
/*
 * A bad record's message (printf format), kept for the caller to print as
 * FILE:LINE: message.  Returns -1, so that a check can return it.
 */
int	rin_error(struct rin *, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last message rin_error() (or a reader function) left. */
const char *rin_errmsg(const struct rin *);
/* Check the current line as JSON whole (nested values included) and
 * tokenise its top-level object.  0, or -1 (err set). */
int	rin_scan(struct rin *);
/*
 * Field by key after rin_scan.  asc records never repeat a key; in a line
 * that does, the last wins, as in jq.
 */
const struct rfield *rin_getn(const struct rin *, const char *key, size_t klen);
/* Inline so that a literal key's length is known at compile time. */
static inline const struct rfield *
rin_get(const struct rin *r, const char *key)
{
	return rin_getn(r, key, strlen(key));
}

/* Typed access to a raw value.  All return 0, or -1 if the kind is wrong. */
int	rf_isnull(const struct rfield *);
int	rf_i64(const struct rfield *, int64_t *);	/* integral number */
int	rf_bool(const struct rfield *, int *);
int	rf_str(const struct rfield *, struct buf *);	/* unescaped into buf */
int	rec_unesc(struct buf *, const char *, size_t);	/* a JSON string body, appended */
/* Convenience: field key as int64 / string; missing or null is -1. */
int	rin_i64(const struct rin *, const char *key, int64_t *);
int	rin_str(const struct rin *, const char *key, struct buf *);

/*
 * Writing: build one record in a buf, then rec_put() it as a line.  The
 * out_* calls append ",\"key\":value"; out_begin writes {"type":"T".
 * Strings are escaped; invalid UTF-8 bytes become U+FFFD and are counted
 * in rec_badutf8.
 */
extern unsigned long rec_badutf8;
void	out_begin(struct buf *, const char *type);
void	out_cstr(struct buf *, const char *k, const char *s);	/* NULL: null */
void	out_int(struct buf *, int64_t);		/* digits only, no key */
void	out_dec(struct buf *, const char *k, int64_t v, int scale);
void	out_nsms(struct buf *, const char *k, int64_t ns);	/* k_ns and k_ms */
void	out_ratio(struct buf *, const char *k, int64_t num, int64_t den); /* 6 places; 0 when den <= 0 */
void	out_esc(struct buf *, const char *s, size_t n);	/* "..." */
/* ,"k": then the caller adds the value; k needs no escape. */
void	out_keyn(struct buf *, const char *k, size_t n);

/* Inline so that a literal key's length is known at compile time. */
static inline void
out_key(struct buf *b, const char *k)
{
	out_keyn(b, k, strlen(k));
}

static inline void
out_str(struct buf *b, const char *k, const char *s, size_t n)
{
	out_key(b, k);
	out_esc(b, s, n);
}

static inline void
out_i64(struct buf *b, const char *k, int64_t v)
{
	out_key(b, k);
	out_int(b, v);
}

static inline void
out_raw(struct buf *b, const char *k, const char *raw, size_t n)
{
	out_key(b, k);
	buf_add(b, raw, n);
}

static inline void
out_null(struct buf *b, const char *k)
{
	out_key(b, k);
	buf_add(b, "null", 4);
}

static inline void
out_bool(struct buf *b, const char *k, int v)
{
	out_key(b, k);
	if (v)
		buf_add(b, "true", 4);
	else
		buf_add(b, "false", 5);
}

/* Element i of an array of objects begun: a comma unless i is 0, then
 * {"k": (k needs no escape) for the caller to add its first value. */
static inline void
out_item(struct buf *b, size_t i, const char *k)
{
	if (i)
		buf_addc(b, ',');
	buf_add(b, "{\"", 2);
	buf_adds(b, k);
	buf_add(b, "\":", 2);
}

/*
 * The one integer formatter and UTF-8 writer of asc, for writers that
 * build records in place: the digits of v at d (room for 20 bytes), the
 * end returned (inline: several per record); code point u as UTF-8
 * appended to b.
 */
void	 rec_pututf8(struct buf *b, unsigned long u);

static const char rec_dig2[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* The one integer formatter: digits of u in place, eight at a time. */
static inline char *
rec_fmtint_u(char *d, uint64_t u)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL
	};
	unsigned n = ((unsigned)(64 - __builtin_clzll(u | 1)) * 1233) >> 12;
	uint32_t v;
	char *e, *q;

	if (u < 10) {
		*d = (char)('0' + u);
		return d + 1;
	}
	n += u >= p10[n];		/* the number of digits */
	e = q = d + n;
	while (u >= 100000000) {	/* 8 digits at a time, in 32 bits */
		uint64_t hi = u / 100000000;
		uint32_t lo = (uint32_t)(u - hi * 100000000);
		uint32_t a = lo / 10000, b = lo % 10000;

		q -= 8;
		memcpy(q, rec_dig2 + 2 * (a / 100), 2);
		memcpy(q + 2, rec_dig2 + 2 * (a % 100), 2);
		memcpy(q + 4, rec_dig2 + 2 * (b / 100), 2);
		memcpy(q + 6, rec_dig2 + 2 * (b % 100), 2);
		u = hi;
	}
	v = (uint32_t)u;
	if (v >= 10000) {
		uint32_t b = v % 10000;

		v /= 10000;
		q -= 4;
		memcpy(q, rec_dig2 + 2 * (b / 100), 2);
		memcpy(q + 2, rec_dig2 + 2 * (b % 100), 2);
	}
	while (v >= 100) {
		q -= 2;
		memcpy(q, rec_dig2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, rec_dig2 + 2 * v, 2);
	} else
		*--q = (char)('0' + v);
	return e;
}

static inline char *
rec_fmtint(char *d, int64_t v)
{
	if (v < 0) {
		*d++ = '-';
		return rec_fmtint_u(d, (uint64_t)0 - (uint64_t)v);
	}
	return rec_fmtint_u(d, (uint64_t)v);
}

/* Close the object, write it and a newline to fp, empty the buf. */
void	rec_put(struct buf *, FILE *);

/*
 * Fields that may not be known, and objects keyed by names: ,"k":v or
 * ,"k":null; out_nsms() or k_ns and k_ms both null (lib/nsms.h's
 * out_nsms_null); member i of an object begun, a comma unless i is 0,
 * then "name": (name escaped) for the caller to add the value.
 */
void	out_i64_or_null(struct buf *, const char *k, int known, int64_t v);
void	out_nsms_or_null(struct buf *, const char *k, int known, int64_t ns);
void	out_member(struct buf *, size_t i, const char *name);

#endif
