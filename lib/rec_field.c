/* rec_field: a scanned record's fields by key, and their values as
 * integers, booleans and unescaped strings. */
#include <stdio.h>
#include <string.h>

#include "dec.h"
#include "rec.h"
#include "rec_int.h"
#include "jscan.h"

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
		rin_error(r, "record has no string \"type\"");
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

const char *
rin_text(const struct rin *r, const struct rfield *f, size_t *len)
{
	/* norm has no buffer until a record needed one (NULL + 0 is undefined). */
	if (f && r->norm.p && f->v >= r->norm.p && f->v < r->norm.p + r->norm.len) {
		*len = r->norm.len;
		return r->norm.p;
	}
	*len = r->len;
	return r->line;
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

/*
 * The body s[0..n) of a JSON string, unescaped, appended to b; -1 at an
 * escape cut short or a bad \u (b then holds what came before).  The
 * profile reader's strings (lib/ingest/json.c) are unescaped here too.
 */
int
rec_unesc(struct buf *b, const char *s, size_t n)
{
	const char *p = s, *e = s + n;

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
			long u, lo;

			if (e - p < 5 || (u = js_hex4(p + 1)) < 0)
				return -1;
			p += 4;
			if (u >= 0xd800 && u < 0xdc00 && e - p >= 7 &&
			    p[1] == '\\' && p[2] == 'u' && (lo = js_hex4(p + 3)) >= 0xdc00 &&
			    lo < 0xe000) {
				u = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
				p += 6;
			} else if (u >= 0xd800 && u < 0xe000)
				u = 0xfffd;
			rec_pututf8(b, (unsigned long)u);
			break;
		}
		default: buf_addc(b, *p); break;
		}
		p++;
	}
	return 0;
}

int
rf_str(const struct rfield *f, struct buf *b)
{
	b->len = 0;
	buf_grow(b, 0);
	b->p[0] = '\0';
	if (f == NULL || f->vlen < 2 || f->v[0] != '"')
		return -1;
	return rec_unesc(b, f->v + 1, f->vlen - 2);
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
