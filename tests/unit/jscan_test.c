/*
 * jscan_test: lib/jscan.h and lib/intern.h.  The number grammar against
 * a table of JSON texts (valid, invalid, cut by the end), js_int against
 * js_num and strtoll, js_stop against
 * simd_isstop one byte at a time on random bytes at every alignment, the
 * hex digits, the FNV-1a test vectors and the intern table's ids.
 * Silent when all hold.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "jscan.h"

static int fails;

#define CHECK(e) do { if (!(e)) { fails++; fprintf(stderr, "jscan_test.c:%d: %s\n", __LINE__, #e); } } while (0)

static void
numbers(void)
{
	/* text, whole number?, where the scan stops (bytes read) */
	static const struct { const char *s; int ok; size_t stop; } t[] = {
		{ "0", 1, 1 }, { "-0", 1, 2 }, { "12", 1, 2 }, { "1.5", 1, 3 },
		{ "-1.25e+10", 1, 9 }, { "3E7", 1, 3 }, { "01", 1, 1 },
		{ "1.", 0, 2 }, { ".5", 0, 0 }, { "-", 0, 1 }, { "1e", 0, 2 },
		{ "1e+", 0, 3 }, { "+1", 0, 0 }, { "1.5x", 1, 3 }, { "", 0, 0 },
		{ "12,", 1, 2 },
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		const char *s = t[i].s, *e = s + strlen(s), *q;
		int ok;

		q = js_num(s, e, &ok);
		CHECK(ok == t[i].ok && (size_t)(q - s) == t[i].stop);
		CHECK(js_isnum(s, strlen(s)) == (t[i].ok && q == e));
		CHECK(js_numend(s, e) == (t[i].ok ? q : NULL));
	}
}

/*
 * js_int against its reference: js_num's whole number with no point or
 * exponent, at most 18 digits and no digit after it (01), valued by
 * strtoll; on a table and on
 * random runs of digits, signs, points and exponents.
 */
static void
ints(void)
{
	static const char pick[] = "0123456789-.eE+,x";
	static const char *const t[] = { "0", "-0", "7", "-12", "999999999999999999",
	    "-999999999999999999", "1000000000000000000", "01", "00", "-", "", "1.0", "1e3",
	    "12,", "12x", "-01", "123456789012345678901234" };
	char b[32];
	uint64_t x = 2463534242ULL;

	for (int round = 0; round < 200000; round++) {
		const char *s = b, *e, *q, *r;
		size_t n;
		int64_t v = 0;
		int ok;

		if (round < (int)(sizeof t / sizeof t[0]))
			s = t[round];
		else {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			n = (size_t)(x % 24);
			for (size_t i = 0; i < n; i++)
				b[i] = pick[(x >> (2 * i % 48)) % 4 ? (x >> (i + 3)) % 10 :
				    (x >> (i + 7)) % (sizeof pick - 1)];
			b[n] = '\0';
		}
		e = s + strlen(s);
		q = js_num(s, e, &ok);
		/* 01: a 0 cut short, no integer */
		r = ok && q - s - (*s == '-') <= 18 && !(q < e && *q >= '0' && *q <= '9') &&
		    !memchr(s, '.', (size_t)(q - s)) &&
		    !memchr(s, 'e', (size_t)(q - s)) && !memchr(s, 'E', (size_t)(q - s)) ? q : NULL;
		CHECK(js_int(s, e, &v) == r);
		CHECK(r == NULL || v == strtoll(s, NULL, 10));
	}
}

static void
stops(void)
{
	static const char pick[] = "\"\\\x01\x1f a\x7f\x80\xff";
	char b[80];
	uint64_t x = 88172645463325252ULL;

	for (int round = 0; round < 20000; round++) {
		size_t n, at;

		for (size_t i = 0; i < sizeof b; i++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			/* mostly plain bytes, so runs are long */
			b[i] = x % 16 ? 'a' + (char)(x % 26) : pick[(x >> 8) % (sizeof pick - 1)];
		}
		at = (size_t)(x >> 16) % 16;
		n = (size_t)(x >> 24) % (sizeof b - at);
		{
			const char *p = b + at, *e = p + n, *q = p;

			while (q < e && !simd_isstop((unsigned char)*q))
				q++;
			CHECK(js_stop(p, e) == q);
		}
	}
}

static void
hashes(void)
{
	struct intern t = { 0 };
	char s[16];

	CHECK(fnv(FNV_INIT, "", 0) == 0xcbf29ce484222325ULL);
	CHECK(fnv(FNV_INIT, "a", 1) == 0xaf63dc4c8601ec8cULL);
	CHECK(fnv(FNV_INIT, "foobar", 6) == 0x85944171f73967e8ULL);
	CHECK(fnv32("a", 1) == 0xe40c292cu);
	CHECK(fnv32("foobar", 6) == 0xbf9cf968u);
	CHECK(js_hex4("00fF") == 0xff && js_hex4("12g4") == -1);
	CHECK(js_isws('\t') && !js_isws('\v') && !js_isws(-1));
	/* ids in the order first seen, across the table's growth */
	CHECK(intern_find(&t, "x", 1) == -1);
	for (int i = 0; i < 5000; i++) {
		snprintf(s, sizeof s, "k%d", i);
		CHECK(intern_add(&t, s, strlen(s)) == (size_t)i);
	}
	for (int i = 4999; i >= 0; i--) {
		snprintf(s, sizeof s, "k%d", i);
		CHECK(intern_add(&t, s, strlen(s)) == (size_t)i);
		CHECK(intern_find(&t, s, strlen(s)) == i);
	}
	CHECK(t.n == 5000 && strcmp(t.v[4321].s, "k4321") == 0);
	CHECK(intern_find(&t, "k5000", 5) == -1);
	/* the table lives as long as a stage; the test frees it for LeakSanitizer */
	for (size_t i = 0; i < t.n; i++)
		free(t.v[i].s);
	free(t.v);
	free(t.slot);
}

int
main(void)
{
	numbers();
	ints();
	stops();
	hashes();
	return fails != 0;
}
