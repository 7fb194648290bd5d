/* dec: exact decimal text <-> integer conversions. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dec.h"

static int
isws(int c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static void
trim(const char **sp, size_t *np)
{
	const char *s = *sp;
	size_t n = *np;

	while (n && isws((unsigned char)*s))
		s++, n--;
	while (n && isws((unsigned char)s[n - 1]))
		n--;
	if (n >= 2 && s[0] == '"' && s[n - 1] == '"') {
		s++, n -= 2;
		while (n && isws((unsigned char)*s))
			s++, n--;
		while (n && isws((unsigned char)s[n - 1]))
			n--;
	}
	*sp = s;
	*np = n;
}

int
dec_isnull(const char *s, size_t n)
{
	trim(&s, &n);
	return n == 0 || (n == 3 && memcmp(s, "N/A", 3) == 0) ||
	    (n == 2 && memcmp(s, "NA", 2) == 0) ||
	    (n == 4 && (memcmp(s, "None", 4) == 0 ||
	    memcmp(s, "null", 4) == 0));
}

int
dec_parse(const char *s, size_t n, int scale, int64_t *out)
{
	char dig[64];
	size_t nd = 0, i = 0;
	int neg = 0, point = -1, exp = 0, sawdigit = 0, lead = 1;
	long shift;
	uint64_t v = 0;

	trim(&s, &n);
	if (n == 0)
		return -1;
	if (s[0] == '-' || s[0] == '+')
		neg = s[i++] == '-';
	/* Collect significant digits; remember where the point was. */
	for (; i < n; i++) {
		char c = s[i];

		if (c >= '0' && c <= '9') {
			sawdigit = 1;
			if (lead && c == '0' && point < 0)
				continue;
			lead = 0;
			if (nd >= sizeof dig)
				return -1;
			dig[nd++] = c;
		} else if (c == '.' && point < 0) {
			point = (int)nd;
			lead = 0;
		} else
			break;
	}
	if (!sawdigit)
		return -1;
	if (point < 0)
		point = (int)nd;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		int eneg = 0, ed = 0;

		i++;
		if (i < n && (s[i] == '-' || s[i] == '+'))
			eneg = s[i++] == '-';
		for (; i < n && s[i] >= '0' && s[i] <= '9'; i++, ed++) {
			if (exp > 10000)
				return -1;
			exp = exp * 10 + (s[i] - '0');
		}
		if (ed == 0)
			return -1;
		if (eneg)
			exp = -exp;
	}
	if (i != n)
		return -1;
	/* Value = 0.dig * 10^(point+exp); we want the integer part of that
	 * times 10^scale, i.e. the first point+exp+scale digits. */
	shift = (long)point + exp + scale;
	for (long k = 0; k < shift; k++) {
		int d = k < (long)nd ? dig[k] - '0' : 0;

		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)d;
	}
	if (shift >= 0 && shift < (long)nd && dig[shift] >= '5')
		v++;
	if (v > (uint64_t)INT64_MAX)
		return -1;
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

int
dec_us2ns(const char *s, size_t n, int64_t *out)
{
	return dec_parse(s, n, 3, out);
}

int
dec_fmt(char *buf, int64_t v, int scale)
{
	char tmp[32];
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
	int n = 0, len = 0;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	while (n <= scale)
		tmp[n++] = '0';
	if (v < 0)
		buf[len++] = '-';
	for (int k = n - 1; k >= scale; k--)
		buf[len++] = tmp[k];
	/* Fraction digits tmp[scale-1..0], without trailing zeros. */
	int lo = 0;

	while (lo < scale && tmp[lo] == '0')
		lo++;
	if (lo < scale) {
		buf[len++] = '.';
		for (int k = scale - 1; k >= lo; k--)
			buf[len++] = tmp[k];
	}
	buf[len] = '\0';
	return len;
}

int
dec_ratio(char *buf, int64_t num, int64_t den)
{
	__int128 q;

	if (den <= 0)
		return dec_fmt(buf, 0, 6);
	q = ((__int128)num * 2000000 + den) / (2 * (__int128)den);
	if (num < 0)
		q = -((-(__int128)num * 2000000 + den) / (2 * (__int128)den));
	return dec_fmt(buf, (int64_t)q, 6);
}
