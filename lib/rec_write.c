/* rec_write: records out: keys and values appended to a buffer, escaped
 * as JSON, and the line written. */
#include <stdio.h>
#include <string.h>

#include "dec.h"
#include "nsms.h"
#include "rec.h"
#include "rec_int.h"
#include "simd.h"

unsigned long rec_badutf8;

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

	out_raw(b, k, t, (size_t)dec_fmt(t, v, scale));
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

	out_raw(b, k, t, (size_t)dec_ratio(t, num, den));
}

void
rec_put(struct buf *b, FILE *fp)
{
	buf_add(b, "}\n", 2);
	if (fwrite_unlocked(b->p, 1, b->len, fp) != b->len)
		dieerr("stdout");
	b->len = 0;
}

void
out_i64_or_null(struct buf *b, const char *k, int known, int64_t v)
{
	out_key(b, k);
	if (known)
		out_int(b, v);
	else
		buf_add(b, "null", 4);
}

void
out_nsms_or_null(struct buf *b, const char *k, int known, int64_t ns)
{
	if (known)
		out_nsms(b, k, ns);
	else
		out_nsms_null(b, k);
}

void
out_member(struct buf *b, size_t i, const char *name)
{
	if (i)
		buf_addc(b, ',');
	out_esc(b, name, strlen(name));
	buf_addc(b, ':');
}
