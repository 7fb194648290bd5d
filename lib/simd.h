/*
 * simd: the byte-class scans that make the readers and writers fast, in
 * one place.  Each primitive has a plain C reference (the _ref function,
 * one byte at a time) that tests/unit/simd_test.c runs against it on the
 * same inputs; nothing else in asc uses intrinsics.
 *
 * Builds: SSE2 and word-at-a-time (SWAR) code where the target has them;
 * cc -DASC_SCALAR turns both off (every primitive is its reference),
 * -DASC_NOAVX2 leaves out the AVX2 variant of the CSV scan (chosen at run
 * time when the CPU has it).  `make check-portable` runs the tests in both.
 *
 * Masks: the 16-byte (SSE2) and 64-byte (CSV) scans set bit i for byte i,
 * exactly.  The 8-byte SWAR scans set the high bit of a matching byte
 * (0x80 << 8i); only the first match is exact: bits above it may be noise
 * (a caller takes the lowest, or checks each candidate), never below;
 * swar_pair8's, an AND of two such masks, is a set of candidates that
 * holds every pair, to be checked one by one.
 */
#ifndef ASC_SIMD_H
#define ASC_SIMD_H

#include <stdint.h>
#include <string.h>

#if !defined(ASC_SCALAR) && defined(__SSE2__)
#define ASC_SSE2	1
#include <emmintrin.h>
#endif
#if !defined(ASC_SCALAR) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ASC_SWAR	1
#endif
#if defined(ASC_SSE2) && !defined(ASC_NOAVX2) && defined(__x86_64__) && \
    defined(__GNUC__)
#define ASC_AVX2	1
#include <immintrin.h>
#endif

/* ---- references: one byte at a time ---- */

/* A byte that ends the plain run of a JSON string: '"', '\\', control. */
static inline int
simd_isstop(unsigned char c)
{
	return c == '"' || c == '\\' || c < 0x20;
}

/* A byte out_esc() does not copy as it is: also any byte >= 0x80. */
static inline int
simd_isesc(unsigned char c)
{
	return simd_isstop(c) || c >= 0x80;
}

/* Bit i: is(p[i]), of 16 bytes (is, a constant, is inlined). */
static inline __attribute__((always_inline)) unsigned
simd_mask16_ref(const void *p, int (*is)(unsigned char))
{
	const unsigned char *s = p;
	unsigned m = 0;

	for (int i = 0; i < 16; i++)
		m |= (unsigned)is(s[i]) << i;
	return m;
}

static inline unsigned
simd_stop16_ref(const void *p)
{
	return simd_mask16_ref(p, simd_isstop);
}

static inline unsigned
simd_esc16_ref(const void *p)
{
	return simd_mask16_ref(p, simd_isesc);
}

/* Bit i: p[i] == a and p[i + 1] == b (17 bytes are read). */
static inline unsigned
simd_pair16_ref(const void *p, char a, char b)
{
	const char *s = p;
	unsigned m = 0;

	for (int i = 0; i < 16; i++)
		m |= (unsigned)(s[i] == a && s[i + 1] == b) << i;
	return m;
}

/*
 * 1 when the n bytes at s (1 <= n <= 16; 16 are read) are digits with at
 * most one point, not first or last, and no leading zero but in "0" and
 * "0.x": a JSON number as written.  0 says only "not this short form".
 */
static inline int
simd_num16_ref(const char *s, size_t n)
{
	int dots = 0;

	if (n == 0 || n > 16)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.')
			dots++;
		else if (s[i] < '0' || s[i] > '9')
			return 0;
	return dots <= 1 && s[0] != '.' && s[n - 1] != '.' &&
	    (s[0] != '0' || n == 1 || s[1] == '.');
}

/* Bit i of *mc, *mq, *mn: p[i] is ',', '"', '\n' (i < 64). */
static inline void
simd_csv64_ref(const char *p, uint64_t *mc, uint64_t *mq, uint64_t *mn)
{
	uint64_t a = 0, q = 0, n = 0;

	for (int k = 0; k < 64; k++) {
		a |= (uint64_t)(p[k] == ',') << k;
		q |= (uint64_t)(p[k] == '"') << k;
		n |= (uint64_t)(p[k] == '\n') << k;
	}
	*mc = a;
	*mq = q;
	*mn = n;
}

/* The 8-byte masks, exact (0x80 in each matching byte). */
static inline uint64_t
swar_mask8_ref(const void *p, int (*is)(unsigned char))
{
	const unsigned char *s = p;
	uint64_t m = 0;

	for (int i = 0; i < 8; i++)
		if (is(s[i]))
			m |= 0x80ULL << (8 * i);
	return m;
}

static inline int
simd_isnest(unsigned char c)
{
	return c == '"' || c == '{' || c == '}' || c == '[' || c == ']';
}

static inline int
simd_ishigh(unsigned char c)
{
	return c >= 0x80;
}

static inline uint64_t swar_stop8_ref(const void *p) { return swar_mask8_ref(p, simd_isstop); }
static inline uint64_t swar_high8_ref(const void *p) { return swar_mask8_ref(p, simd_ishigh); }
static inline uint64_t swar_esc8_ref(const void *p) { return swar_mask8_ref(p, simd_isesc); }
static inline uint64_t swar_nest8_ref(const void *p) { return swar_mask8_ref(p, simd_isnest); }

static inline uint64_t
swar_pair8_ref(const void *p, char a, char b)
{
	const char *s = p;
	uint64_t m = 0;

	for (int i = 0; i < 8; i++)
		if (s[i] == a && s[i + 1] == b)
			m |= 0x80ULL << (8 * i);
	return m;
}

/* The number of leading ASCII digits in the 8 bytes at p. */
static inline unsigned
swar_digits8_ref(const void *p)
{
	const unsigned char *s = p;
	unsigned i = 0;

	while (i < 8 && s[i] >= '0' && s[i] <= '9')
		i++;
	return i;
}

/* The value of the 8 ASCII digits at p. */
static inline uint32_t
swar_parse8_ref(const void *p)
{
	const unsigned char *s = p;
	uint32_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v * 10 + (uint32_t)(s[i] - '0');
	return v;
}

/* ---- the fast versions ---- */

#ifdef ASC_SSE2
static inline unsigned
simd_stop16(const void *p)
{
	__m128i x = _mm_loadu_si128((const __m128i *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\'))),
	    _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(0x1f)), x)));
}

/* A signed compare finds controls and bytes >= 0x80 at once. */
static inline unsigned
simd_esc16(const void *p)
{
	__m128i v = _mm_loadu_si128((const __m128i *)p);

	return (unsigned)_mm_movemask_epi8(_mm_or_si128(
	    _mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
	    _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
	    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\')))));
}

static inline unsigned
simd_pair16(const void *p, char a, char b)
{
	__m128i x = _mm_loadu_si128((const __m128i *)p);
	__m128i y = _mm_loadu_si128((const __m128i *)(const void *)((const char *)p + 1));

	return (unsigned)_mm_movemask_epi8(_mm_and_si128(
	    _mm_cmpeq_epi8(x, _mm_set1_epi8(a)), _mm_cmpeq_epi8(y, _mm_set1_epi8(b))));
}

/* Few branches: the two forms alternate in PMU columns. */
static inline int
simd_num16(const char *s, size_t n)
{
	if (n == 0 || n > 16)
		return 0;
	__m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i t = _mm_sub_epi8(v, _mm_set1_epi8('0'));
	unsigned lm = (1u << n) - 1;
	unsigned dig = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(t, _mm_set1_epi8(9)), t));
	unsigned dot = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))) & lm;

	return (((dig | dot) & lm) == lm) & ((dot & (dot - 1)) == 0) &
	    ((dot & (1u | 1u << (n - 1))) == 0) & ((s[0] != '0') | (n == 1) | (dot == 2));
}

static inline void
simd_csv64(const char *p, uint64_t *mc, uint64_t *mq, uint64_t *mn)
{
	const __m128i cc = _mm_set1_epi8(','), cq = _mm_set1_epi8('"'),
	    cn = _mm_set1_epi8('\n');
	const __m128i *q = (const void *)p;
	__m128i v0 = _mm_loadu_si128(q), v1 = _mm_loadu_si128(q + 1),
	    v2 = _mm_loadu_si128(q + 2), v3 = _mm_loadu_si128(q + 3);

#define SIMD_M(v, c)	((uint64_t)(unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8((v), (c))))
#define SIMD_M64(c)	(SIMD_M(v0, c) | SIMD_M(v1, c) << 16 | SIMD_M(v2, c) << 32 | SIMD_M(v3, c) << 48)
	*mc = SIMD_M64(cc);
	*mq = SIMD_M64(cq);
	*mn = SIMD_M64(cn);
#undef SIMD_M
#undef SIMD_M64
}
#else
#define simd_stop16	simd_stop16_ref
#define simd_esc16	simd_esc16_ref
#define simd_pair16	simd_pair16_ref
#define simd_num16	simd_num16_ref
#define simd_csv64	simd_csv64_ref
#endif

#ifdef ASC_AVX2
/* simd_csv64, 32 bytes at a time, for a function built for AVX2. */
__attribute__((target("avx2"))) static inline void
simd_csv64_avx2(const char *p, uint64_t *mc, uint64_t *mq, uint64_t *mn)
{
	const __m256i cc = _mm256_set1_epi8(','), cq = _mm256_set1_epi8('"'),
	    cn = _mm256_set1_epi8('\n');
	const __m256i *q = (const void *)p;
	__m256i v0 = _mm256_loadu_si256(q), v1 = _mm256_loadu_si256(q + 1);

#define SIMD_M(v, c)	((uint64_t)(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8((v), (c))))
	*mc = SIMD_M(v0, cc) | SIMD_M(v1, cc) << 32;
	*mq = SIMD_M(v0, cq) | SIMD_M(v1, cq) << 32;
	*mn = SIMD_M(v0, cn) | SIMD_M(v1, cn) << 32;
#undef SIMD_M
}
#endif

#ifdef ASC_SWAR
#define SIMD_ONES	0x0101010101010101ULL
#define SIMD_HIGHS	0x8080808080808080ULL
#define SIMD_ZERO(v)	(((v) - SIMD_ONES) & ~(v) & SIMD_HIGHS)
#define SIMD_BYTE(v, c)	SIMD_ZERO((v) ^ (SIMD_ONES * (unsigned char)(c)))
#define SIMD_LESS(v, n)	(((v) - SIMD_ONES * (n)) & ~(v) & SIMD_HIGHS)

static inline uint64_t
simd_load8(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

static inline uint64_t
swar_stop8(const void *p)
{
	uint64_t v = simd_load8(p);

	return SIMD_BYTE(v, '"') | SIMD_BYTE(v, '\\') | SIMD_LESS(v, 0x20);
}

/* Exact: every byte >= 0x80. */
static inline uint64_t
swar_high8(const void *p)
{
	return simd_load8(p) & SIMD_HIGHS;
}

static inline uint64_t
swar_esc8(const void *p)
{
	uint64_t v = simd_load8(p);

	return SIMD_LESS(v, 0x20) | (v & SIMD_HIGHS) | SIMD_BYTE(v, '"') | SIMD_BYTE(v, '\\');
}

static inline uint64_t
swar_nest8(const void *p)
{
	uint64_t v = simd_load8(p);

	return SIMD_BYTE(v, '"') | SIMD_BYTE(v, '{') | SIMD_BYTE(v, '}') |
	    SIMD_BYTE(v, '[') | SIMD_BYTE(v, ']');
}

static inline uint64_t
swar_pair8(const void *p, char a, char b)
{
	return SIMD_BYTE(simd_load8(p), a) &
	    SIMD_BYTE(simd_load8((const char *)p + 1), b);
}

static inline unsigned
swar_digits8(const void *p)
{
	uint64_t w = simd_load8(p), a, b, m;

	/* a carry out of a byte >= 0xfa only reaches later bytes */
	a = w & 0xf0f0f0f0f0f0f0f0ULL;
	b = (w + 0x0606060606060606ULL) & 0xf0f0f0f0f0f0f0f0ULL;
	m = (a ^ 0x3030303030303030ULL) | (b ^ 0x3030303030303030ULL);
	return m ? (unsigned)__builtin_ctzll(m) >> 3 : 8;
}

static inline uint32_t
swar_parse8(const void *p)
{
	uint64_t v = simd_load8(p);

	v -= 0x3030303030303030ULL;
	v = v * 10 + (v >> 8);
	v = ((v & 0x000000ff000000ffULL) * 0x000f424000000064ULL +
	    ((v >> 16) & 0x000000ff000000ffULL) * 0x0000271000000001ULL) >> 32;
	return (uint32_t)v;
}
#else
#define swar_stop8	swar_stop8_ref
#define swar_high8	swar_high8_ref
#define swar_esc8	swar_esc8_ref
#define swar_nest8	swar_nest8_ref
#define swar_pair8	swar_pair8_ref
#define swar_digits8	swar_digits8_ref
#define swar_parse8	swar_parse8_ref
#endif

/* The byte index of the lowest match in an 8-byte mask. */
static inline unsigned
swar_first(uint64_t m)
{
	return (unsigned)__builtin_ctzll(m) >> 3;
}

#endif
