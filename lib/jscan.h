/*
 * jscan: the JSON scanning that the record reader (rec_scan.c) and the
 * profile readers (lib/ingest: json.c, commjson_tok.c) share: blanks, hex
 * digits, the number grammar, a plain integer and the run of a string to
 * its next quote, backslash or control byte; and asc-ops' and asc-attrib's
 * pre-scans of the records asc-ingest writes.  Each reader keeps its own
 * fast path for the common short string; the run below is built of
 * simd.h's scans, each tested against its plain reference (`make
 * check-portable`).
 */
#ifndef ASC_JSCAN_H
#define ASC_JSCAN_H

#include <stddef.h>
#include <stdint.h>

#include "simd.h"

static inline int
js_isws(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The first byte of [p, e) that is no blank, or e. */
static inline const char *
js_ws(const char *p, const char *e)
{
	while (p < e && js_isws(*p))
		p++;
	return p;
}

/* The value of a hex digit, or -1. */
static inline int
js_hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* The value of the four hex digits at p (all there), or -1. */
static inline long
js_hex4(const char *p)
{
	long v = 0;

	for (int i = 0; i < 4; i++) {
		int h = js_hexval((unsigned char)p[i]);

		if (h < 0)
			return -1;
		v = v << 4 | h;
	}
	return v;
}

/*
 * A JSON number at p (-?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?):
 * where the scan stopped, *ok set when what it read is a whole number.
 * A scan that stops at e may have been cut by the end of a buffer.
 */
static inline const char *
js_num(const char *p, const char *e, int *ok)
{
	const char *d;

	*ok = 0;
	if (p < e && *p == '-')
		p++;
	if (p < e && *p == '0')
		p++;
	else {
		for (d = p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return p;
	}
	if (p < e && *p == '.') {
		for (d = ++p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return p;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		if (++p < e && (*p == '+' || *p == '-'))
			p++;
		for (d = p; p < e && *p >= '0' && *p <= '9'; p++)
			;
		if (p == d)
			return p;
	}
	*ok = 1;
	return p;
}

/* The end of a JSON number at p, or NULL if p does not start one. */
static inline const char *
js_numend(const char *p, const char *e)
{
	int ok;

	p = js_num(p, e, &ok);
	return ok ? p : NULL;
}

/* Is s[0..n) a number by the JSON grammar? */
static inline int
js_isnum(const char *s, size_t n)
{
	int ok;

	return js_num(s, s + n, &ok) == s + n && ok;
}

/*
 * A JSON number at p that is a plain integer of at most 18 digits (an
 * int64_t holds it): its value in *v and where it ends.  NULL for any
 * other number (a fraction, an exponent, more digits) or none, which the
 * caller then reads the long way (rf_i64).
 */
static inline const char *
js_int(const char *p, const char *e, int64_t *v)
{
	const char *d;
	uint64_t x = 0;
	int neg = p < e && *p == '-';

	for (d = p += neg; p < e && *p >= '0' && *p <= '9'; p++)
		x = x * 10 + (uint64_t)(*p - '0');
	if (p == d || p - d > 18 || (*d == '0' && p - d > 1) ||
	    (p < e && (*p == '.' || *p == 'e' || *p == 'E')))
		return NULL;
	*v = neg ? -(int64_t)x : (int64_t)x;
	return p;
}

/* The first '"', '\\' or control byte of [p, e) (simd_isstop), or e. */
static inline const char *
js_stop(const char *p, const char *e)
{
#ifdef ASC_SSE2
	while (e - p >= 16) {
		unsigned m = simd_stop16(p);

		if (m)
			return p + __builtin_ctz(m);
		p += 16;
	}
#endif
	while (e - p >= 8) {
		uint64_t m = swar_stop8(p);

		if (m)
			return p + swar_first(m);
		p += 8;
	}
	while (p < e && !simd_isstop((unsigned char)*p))
		p++;
	return p;
}

#endif
