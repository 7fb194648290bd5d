/* csvline: a fast RFC 4180 record reader for profiler CSVs. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simd.h"

#ifdef ASC_AVX2
#define CSV_AVX2	1	/* a second csv_next, for CPUs with AVX2 */
#endif

#include "csvline.h"

/* Overridable to test the block edges (cc -DCSV_BLOCK=16 -DCSV_MINREAD=1). */
#ifndef CSV_BLOCK
#define CSV_BLOCK	(256u << 10)	/* read size when reading on */
#endif
#ifndef CSV_MINREAD
#define CSV_MINREAD	4096u		/* first read after a seek */
#endif
#define CSV_PAD		128u		/* readable bytes after the data */

/* The added '\n', the block scanner's 64 bytes, the callers' over-read. */
_Static_assert(CSV_PAD >= 1 + 64 && CSV_PAD >= 1 + CSV_OVERREAD, "CSV_PAD");

enum { S_UNQ, S_QUO, S_AFT };	/* unquoted, in quotes, after quotes */

static void
alloc(struct csvin *c, size_t cap)
{
	c->buf = xrealloc(c->buf, cap + CSV_PAD);
	/* The padding is read, never used, by the block scanner and by
	 * callers' over-reads: keep it defined. */
	memset(c->buf + cap, 0, CSV_PAD);
	c->cap = cap;
}

void
csv_fdopen(struct csvin *c, int fd, const char *name)
{
	off_t o;

	memset(c, 0, sizeof *c);
	c->fd = fd;
	c->name = name;
	alloc(c, CSV_BLOCK);
	c->want = CSV_BLOCK;
	c->recp = c->buf;
	if ((o = lseek(fd, 0, SEEK_CUR)) > 0)
		c->boff = (unsigned long long)o;
	c->bytes = c->boff;
	c->maxrec = (size_t)1 << 28;
	if (getenv("ASC_CSV_MAXREC"))
		c->maxrec = (size_t)strtoull(getenv("ASC_CSV_MAXREC"), NULL, 10);
	c->maxf = 64;
	c->off = xreallocarray(NULL, (size_t)c->maxf, sizeof *c->off);
	c->len = xreallocarray(NULL, (size_t)c->maxf, sizeof *c->len);
}

int
csv_open(struct csvin *c, const char *path)
{
	int fd;

	if (strcmp(path, "-") == 0) {
		csv_fdopen(c, 0, "<stdin>");
		return 0;
	}
	memset(c, 0, sizeof *c);
	if ((fd = open(path, O_RDONLY)) < 0)
		return -1;
	csv_fdopen(c, fd, path);
	c->ownfd = 1;
	return 0;
}

void
csv_close(struct csvin *c)
{
	if (c->ownfd)
		close(c->fd);
	free(c->buf);
	free(c->off);
	free(c->len);
	memset(c, 0, sizeof *c);
}

/* Offset in the file of buf[pos] (the added newline is not in it). */
static inline unsigned long long
curoff(const struct csvin *c)
{
	return c->boff + c->pos - (c->sentinel && c->pos == c->end);
}

/*
 * Read more, keeping buf[keep..end), which moves to buf[0].  Returns how
 * many bytes were added, 0 at end of file.  At end of file a last line
 * without a newline gets one, so every line ends in '\n'.
 */
static size_t
fill(struct csvin *c, size_t keep)
{
	ssize_t n;
	size_t room;

	if (keep) {
		memmove(c->buf, c->buf + keep, c->end - keep);
		c->boff += keep;
		c->end -= keep;
		c->pos -= keep;
	}
	if (c->eof)
		return 0;
	if (c->cap - c->end < CSV_MINREAD) {
		/* A cell without a line end must not take all memory. */
		if (c->cap >= c->maxrec) {
			c->toolong = c->eof = 1;
			return 0;
		}
		alloc(c, c->cap * 2);
	}
	room = c->cap - c->end;
	if (room > c->want)
		room = c->want;
	do
		n = read(c->fd, c->buf + c->end, room);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		dieerr("%s", c->name);
	if (c->want < CSV_BLOCK)
		c->want *= 2;
	if (n > 0) {
		c->end += (size_t)n;
		return (size_t)n;
	}
	c->eof = 1;
	if (c->end > c->pos && c->buf[c->end - 1] != '\n') {
		c->buf[c->end++] = '\n';	/* within the padding */
		c->sentinel = 1;
		return 1;
	}
	return 0;
}

/* Bits set in v (no popcnt instruction in the baseline x86-64). */
static inline int
popcount64(uint64_t v)
{
	v = v - ((v >> 1) & 0x5555555555555555ULL);
	v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
	v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (int)((v * 0x0101010101010101ULL) >> 56);
}

/* Room for more fields. */
static void
morefields(struct csvin *c)
{
	c->maxf *= 2;
	c->off = xreallocarray(c->off, (size_t)c->maxf, sizeof *c->off);
	c->len = xreallocarray(c->len, (size_t)c->maxf, sizeof *c->len);
}

/* Skip blank lines (nothing but '\r's) and a BOM on line 1: 1 at the
 * start of a record, 0 at end of file. */
static int
recstart(struct csvin *c)
{
	for (;;) {
		size_t i;

		if (c->pos == c->end && fill(c, c->pos) == 0)
			return 0;
		if (!c->bomdone) {
			c->bomdone = 1;
			while (c->end - c->pos < 3 && fill(c, c->pos) > 0)
				;
			/* UTF-16 (Excel's "Unicode text"): every other byte
			 * is NUL; said, not read as garbled text or CR-only */
			if (c->end - c->pos >= 2 && (memcmp(c->buf + c->pos, "\xff\xfe", 2) == 0 ||
			    memcmp(c->buf + c->pos, "\xfe\xff", 2) == 0)) {
				c->utf16 = c->buf[c->pos] == '\xff' ? 'L' : 'B';
				c->pos = c->end;
				c->eof = 1;
				return 0;
			}
			if (c->end - c->pos >= 3 && memcmp(c->buf + c->pos, "\xef\xbb\xbf", 3) == 0) {
				c->pos += 3;
				/* A file of just a BOM is one (blank) line. */
				if (c->pos == c->end && fill(c, c->pos) == 0) {
					c->lineno++;
					return 0;
				}
			}
			continue;
		}
		for (i = c->pos; i < c->end && c->buf[i] == '\r'; i++)
			;
		if (i == c->end) {
			/* Only '\r's so far: the line goes on past the block
			 * (at the end of the file it ends in the added '\n'). */
			if (fill(c, c->pos) == 0)
				return 0;
			continue;
		}
		if (c->buf[i] != '\n')
			return 1;
		c->lineno++;
		c->pos = i + 1;
	}
}

/*
 * The fields of the record being split, kept in next()'s locals (the
 * helpers below are inlined into it): stores through the buffer (a char
 * pointer) would make the compiler reload them from c each time.
 */
struct fields {
	size_t *off, *len;
	int nf, maxf, keep;
};

static inline __attribute__((always_inline)) void
growfields(struct csvin *c, struct fields *f)
{
	morefields(c);
	f->off = c->off;
	f->len = c->len;
	f->maxf = c->maxf;
}

static inline __attribute__((always_inline)) void
addfield(struct csvin *c, struct fields *f, size_t o, size_t l)
{
	if (f->nf == f->maxf)
		growfields(c, f);
	f->off[f->nf] = o;
	f->len[f->nf] = l;
	f->nf++;
}

/* Unquoted: the fields ended by the commas cm (those before the next
 * quote or newline) at i in the block b; *fs is where the next begins. */
static inline __attribute__((always_inline)) void
commas(struct csvin *c, struct fields *f, char *b, size_t i, uint64_t cm, size_t *fs)
{
	size_t p;

	if (f->maxf - f->nf < 64)
		growfields(c, f);
	if (f->keep == INT_MAX)
		/* Every field: the common loop. */
		for (; cm; cm &= cm - 1) {
			p = i + (size_t)__builtin_ctzll(cm);
			f->off[f->nf] = *fs;
			f->len[f->nf] = p - *fs;
			f->nf++;
			b[p] = '\0';
			*fs = p + 1;
		}
	while (cm) {
		if (f->nf >= f->keep) {
			/* Past the fields kept: counted. */
			f->nf += popcount64(cm);
			*fs = i + (size_t)(63 - __builtin_clzll(cm)) + 1;
			break;
		}
		p = i + (size_t)__builtin_ctzll(cm);
		cm &= cm - 1;
		addfield(c, f, *fs, p - *fs);
		b[p] = '\0';
		*fs = p + 1;
	}
}

/* Unquoted: the record's last field, fs up to the newline at p (less
 * any '\r's before it). */
static inline __attribute__((always_inline)) void
lastfield(struct csvin *c, struct fields *f, char *b, size_t fs, size_t p)
{
	if (f->nf < f->keep) {
		size_t e = p;

		while (e > fs && b[e - 1] == '\r')
			e--;
		addfield(c, f, fs, e - fs);
		b[e] = '\0';
	} else
		f->nf++;
}

/* After a closing quote: the quoted field (unescaped from qs up to w)
 * ends at the comma or newline (nl) at p, and what lies from rd to p is
 * more of it. */
static inline __attribute__((always_inline)) void
quotedend(struct csvin *c, struct fields *f, char *b, size_t p, int nl,
    size_t qs, size_t w, size_t rd)
{
	if (f->nf < f->keep) {
		size_t e = p;

		if (nl)
			while (e > rd && b[e - 1] == '\r')
				e--;
		if (w != rd)
			memmove(b + w, b + rd, e - rd);
		w += e - rd;
		addfield(c, f, qs, w - qs);
		b[w] = '\0';
	} else
		f->nf++;
}

/*
 * A record is split where it lies in the buffer, 64 bytes at a time: the
 * positions of commas, quotes and newlines come as bit masks, and only
 * those are visited.  Positions are relative to the record's start, so
 * they hold when a read moves the record to the front of the buffer.
 * Unquoted fields are terminated in place; a quoted field is unescaped
 * in place (it only shrinks), with whatever follows its closing quote.
 * wide says the masks are made with AVX2: this is inlined into a function
 * for each, and csv_next calls the one the CPU can run.
 */
static inline __attribute__((always_inline)) int
next(struct csvin *c, int wide)
{
	size_t r0, i, fs = 0, qs = 0, w = 0, rd = 0, avail, endp;
	struct fields f = { c->off, c->len, 0, c->maxf, c->keep ? c->keep : INT_MAX };
	char *b;
	int st = S_UNQ;

	if (!recstart(c)) {
		c->bytes = curoff(c);
		return 0;
	}
	c->recline = c->lineno + 1;
	c->recoff = curoff(c);
	r0 = c->pos;
	i = 0;
	for (;;) {
		uint64_t mc, mq, mn, m;
		size_t lim;

		avail = c->end - r0;
		if (i >= avail) {
			if (fill(c, r0) == 0)
				goto unterminated;
			r0 = c->pos;
			continue;
		}
		b = c->buf + r0;
		lim = avail - i < 64 ? avail - i : 64;
#ifdef CSV_AVX2
		if (wide)
			simd_csv64_avx2(b + i, &mc, &mq, &mn);
		else
#endif
			simd_csv64(b + i, &mc, &mq, &mn);
		if (lim < 64) {
			uint64_t lm = (1ULL << lim) - 1;

			mc &= lm;
			mq &= lm;
			mn &= lm;
		}
		m = st == S_QUO ? mq | mn : mc | mq | mn;
		while (m) {
			int k;
			size_t p;

			if (st == S_UNQ) {
				/* The commas before the next quote or newline. */
				uint64_t oth = m & ~mc, cm = m & mc;

				if (oth)
					cm &= (oth & -oth) - 1;
				m &= ~cm;
				commas(c, &f, b, i, cm, &fs);
				if (!m)
					break;
				k = __builtin_ctzll(m);
				p = i + (size_t)k;
				m &= m - 1;
				if (mq >> k & 1) {
					/* A quote opens a field; inside one it is data. */
					if (p == fs) {
						st = S_QUO;
						qs = w = rd = p + 1;
						m &= ~mc;
					}
					continue;
				}
				lastfield(c, &f, b, fs, p);
				endp = p;
				goto done;
			}
			k = __builtin_ctzll(m);
			p = i + (size_t)k;
			m &= m - 1;
			if (st == S_QUO) {
				if (mn >> k & 1) {
					c->lineno++;
					continue;
				}
				if (p + 1 >= avail) {
					/* Is the quote doubled?  Read on to see. */
					size_t got = fill(c, r0);

					r0 = c->pos;
					b = c->buf + r0;
					avail = c->end - r0;
					if (got) {
						i = p;
						goto rescan;
					}
				}
				if (p + 1 < avail && b[p + 1] == '"') {
					size_t n = p + 1 - rd;

					if (w != rd && f.nf < f.keep)
						memmove(b + w, b + rd, n);
					w += n;
					rd = p + 2;
					if (k == 63) {
						i = p + 2;
						goto rescan;
					}
					m &= ~(1ULL << (k + 1));
				} else {
					if (w != rd && f.nf < f.keep)
						memmove(b + w, b + rd, p - rd);
					w += p - rd;
					rd = p + 1;
					st = S_AFT;
					m = (mc | mq | mn) & ~((2ULL << k) - 1);
				}
				continue;
			}
			/* After the closing quote, up to the comma, is more of
			 * the field (a quote there is data). */
			if (mq >> k & 1)
				continue;
			quotedend(c, &f, b, p, (int)(mn >> k & 1), qs, w, rd);
			if (mn >> k & 1) {
				endp = p;
				goto done;
			}
			fs = p + 1;
			st = S_UNQ;
		}
		i += lim;
rescan:
		;
	}
done:
	c->nf = f.nf;
	c->lineno++;
	c->recp = c->buf + r0;
	c->pos = r0 + endp + 1;
	c->bytes = curoff(c);
	return 1;
unterminated:
	c->nf = f.nf;
	snprintf(c->err, sizeof c->err, "unterminated quoted field");
	c->pos = c->end;
	c->bytes = curoff(c);
	return -1;
}

static int
next_plain(struct csvin *c)
{
	return next(c, 0);
}

#ifdef CSV_AVX2
__attribute__((target("avx2"))) static int
next_avx2(struct csvin *c)
{
	return next(c, 1);
}
#endif

int
csv_next(struct csvin *c)
{
	static int (*fn)(struct csvin *);

	if (fn == NULL) {
		fn = next_plain;
#ifdef CSV_AVX2
		__builtin_cpu_init();
		if (__builtin_cpu_supports("avx2"))
			fn = next_avx2;
#endif
	}
	int r = fn(c);

	if (c->utf16) {
		snprintf(c->err, sizeof c->err, "UTF-16%s text (byte-order mark %s), "
		    "not UTF-8: not read (iconv -f UTF-16 -t UTF-8 converts it)",
		    c->utf16 == 'L' ? "LE" : "BE", c->utf16 == 'L' ? "FF FE" : "FE FF");
		c->utf16 = 0;		/* said once; then end of file */
		c->recline = 1;
		return -1;
	}
	if (c->toolong) {
		snprintf(c->err, sizeof c->err, "a record longer than %zu bytes (no line end?); "
		    "the rest of the file is not read", c->maxrec);
		c->pos = c->end;
		c->toolong = 0;		/* said once; then end of file */
		return -1;
	}
	/* CR-only line ends (old Mac): the whole file is one line. */
	if (r == 1 && c->recline == 1)
		for (int i = 0; i < c->nf && i < (c->keep ? c->keep : c->nf); i++) {
			const char *p = memchr(c->recp + c->off[i], '\r', c->len[i]);

			if (p && p[1] != '\n') {
				snprintf(c->err, sizeof c->err, "line ends are CR only "
				    "(not LF or CRLF): not read");
				c->pos = c->end;
				c->eof = 1;
				return -1;
			}
		}
	return r;
}

int
csv_seek(struct csvin *c, unsigned long long off, unsigned long line)
{
	unsigned long long lo = c->boff + c->pos;
	unsigned long long hi = c->boff + c->end - (unsigned)c->sentinel;

	if (off >= lo && off <= hi) {
		/* Ahead in the block (what was read before is overwritten). */
		c->pos = (size_t)(off - c->boff);
		if (c->sentinel && off == hi)
			c->pos = c->end;
	} else {
		if (lseek(c->fd, (off_t)off, SEEK_SET) < 0)
			return -1;
		c->boff = off;
		c->pos = c->end = 0;
		c->eof = c->sentinel = 0;
		c->want = CSV_MINREAD;
	}
	c->lineno = line ? line - 1 : 0;
	c->bomdone = c->lineno > 0;
	c->bytes = off;
	return 0;
}
