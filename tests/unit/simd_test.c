/*
 * simd_test: every primitive of lib/simd.h against its one-byte-at-a-time
 * reference, on the same inputs: random bytes drawn mostly from the bytes
 * each scan looks for, at every alignment.  In a -DASC_SCALAR build both
 * sides are the reference (make check-portable runs it so as well).
 * Silent when all agree; -v prints which versions ran.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simd.h"

static int fails;

#define CHECK(e, buf) do { if (!(e)) { if (fails++ < 10) report(__LINE__, #e, buf); } } while (0)

static void
report(int line, const char *what, const unsigned char *b)
{
	fprintf(stderr, "simd_test.c:%d: %s differs on:", line, what);
	for (int i = 0; i < 17; i++)
		fprintf(stderr, " %02x", b[i]);
	fputc('\n', stderr);
}

static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static unsigned
rnd(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (unsigned)(seed >> 32);
}

/* Bytes the scans care about, their neighbours, and anything at all. */
static const unsigned char pick[] = {
	'"', '\\', ',', '\n', '\r', '{', '}', '[', ']', '.', '0', '1', '9',
	'/', ':', 'a', 0x00, 0x01, 0x1f, 0x20, 0x7f, 0x80, 0xc3, 0xfa, 0xff,
	'0' - 1, '9' + 1, '"' + 1, '\\' - 1,
};

static void
fill(unsigned char *b, size_t n, int digitsonly)
{
	for (size_t i = 0; i < n; i++) {
		unsigned r = rnd();

		if (digitsonly && r % 8)
			b[i] = (unsigned char)('0' + r / 8 % 10);
		else if (digitsonly)
			b[i] = r / 8 % 2 ? '.' : (unsigned char)(r >> 8);
		else if (r % 4 == 0)
			b[i] = (unsigned char)(r >> 8);
		else if (r % 4 == 1)
			b[i] = 'x';
		else
			b[i] = pick[(r >> 8) % sizeof pick];
	}
}

/* A SWAR mask (noise allowed above its first match) against the exact one. */
static int
swar_ok(uint64_t m, uint64_t ref)
{
	return (m & ref) == ref && (m == 0) == (ref == 0) &&
	    (ref == 0 || swar_first(m) == swar_first(ref));
}

int
main(int argc, char *argv[])
{
	static unsigned char mem[64 + 80];
	int avx2 = 0;

#ifdef ASC_AVX2
	__builtin_cpu_init();
	avx2 = !!__builtin_cpu_supports("avx2");
#endif
	if (argc > 1 && strcmp(argv[1], "-v") == 0)
		printf("sse2 %d swar %d avx2 %d\n",
#ifdef ASC_SSE2
		    1,
#else
		    0,
#endif
#ifdef ASC_SWAR
		    1,
#else
		    0,
#endif
		    avx2);
	for (long it = 0; it < 300000; it++) {
		/* any alignment, and the bytes after the window too */
		unsigned char *b = mem + it % 16;
		int digits = it % 3 == 0;
		size_t n = 1 + it % 16;
		uint64_t a1, a2, a3, r1, r2, r3;
		char x = (char)pick[rnd() % sizeof pick], y = (char)pick[rnd() % sizeof pick];

		fill(b, 64 + 1, digits);
		if (it % 7 == 0) {
			b[rnd() % 16] = (unsigned char)x;
			b[rnd() % 16 + 1] = (unsigned char)y;
		}
		CHECK(simd_stop16(b) == simd_stop16_ref(b), b);
		CHECK(simd_esc16(b) == simd_esc16_ref(b), b);
		CHECK(simd_pair16(b, x, y) == simd_pair16_ref(b, x, y), b);
		CHECK(simd_num16((const char *)b, n) == simd_num16_ref((const char *)b, n), b);
		simd_csv64((const char *)b, &a1, &a2, &a3);
		simd_csv64_ref((const char *)b, &r1, &r2, &r3);
		CHECK(a1 == r1 && a2 == r2 && a3 == r3, b);
#ifdef ASC_AVX2
		if (avx2) {
			simd_csv64_avx2((const char *)b, &a1, &a2, &a3);
			CHECK(a1 == r1 && a2 == r2 && a3 == r3, b);
		}
#endif
		CHECK(swar_ok(swar_stop8(b), swar_stop8_ref(b)), b);
		CHECK(swar_high8(b) == swar_high8_ref(b), b);
		CHECK(swar_ok(swar_esc8(b), swar_esc8_ref(b)), b);
		CHECK(swar_ok(swar_nest8(b), swar_nest8_ref(b)), b);
		/* candidates only: every pair is in it, each is checked by the caller */
		CHECK((swar_pair8(b, x, y) & swar_pair8_ref(b, x, y)) == swar_pair8_ref(b, x, y), b);
		CHECK(swar_digits8(b) == swar_digits8_ref(b), b);
		if (swar_digits8_ref(b) == 8)
			CHECK(swar_parse8(b) == swar_parse8_ref(b), b);
	}
	/* The cases a reference must get right by itself. */
	CHECK(simd_num16_ref("0", 1) && simd_num16_ref("0.5", 3) &&
	    simd_num16_ref("1234567890123456", 16) && !simd_num16_ref("01", 2) &&
	    !simd_num16_ref(".5", 2) && !simd_num16_ref("5.", 2) &&
	    !simd_num16_ref("1.2.3", 5) && !simd_num16_ref("-1", 2), (const unsigned char *)"0123456789abcdefg");
	CHECK(swar_parse8_ref("12345678") == 12345678u, (const unsigned char *)"12345678abcdefghi");
	if (fails)
		fprintf(stderr, "simd_test: %d checks failed\n", fails);
	return fails != 0;
}
