/* dec_test: unit tests for lib/dec (exact decimal text <-> int64). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dec.h"


/* dec_parse(s, scale) == want (0) or fails (want_rc -1). */
static int
parse_is(const char *s, int scale, int64_t want)
{
	int64_t v = 12345;

	if (dec_parse(s, strlen(s), scale, &v) != 0) {
		fprintf(stderr, "  dec_parse(\"%s\", %d) failed\n", s, scale);
		return 0;
	}
	if (v != want)
		fprintf(stderr, "  dec_parse(\"%s\", %d) = %" PRId64
		    ", want %" PRId64 "\n", s, scale, v, want);
	return v == want;
}

static int
us_is(const char *s, int64_t want)
{
	return parse_is(s, 3, want);
}

static int
us_fails(const char *s)
{
	int64_t v = 777;

	if (dec_us2ns(s, strlen(s), &v) == -1 && v == 777)
		return 1;
	fprintf(stderr, "  dec_us2ns(\"%s\") did not fail as it should\n", s);
	return 0;
}

/* A formatter's text buf of length n is want, else said (call: what it
 * was asked). */
static int
text_is(const char *call, const char *buf, int n, const char *want)
{
	if (strcmp(buf, want) == 0 && n == (int)strlen(want))
		return 1;
	fprintf(stderr, "  %s = \"%s\" (%d), want \"%s\"\n", call, buf, n, want);
	return 0;
}

static int
fmt_is(int64_t v, int scale, const char *want)
{
	char buf[64], call[64];
	int n = dec_fmt(buf, v, scale);

	snprintf(call, sizeof call, "dec_fmt(%" PRId64 ", %d)", v, scale);
	return text_is(call, buf, n, want);
}

static int
ratio_is(int64_t num, int64_t den, const char *want)
{
	char buf[64], call[64];
	int n = dec_ratio(buf, num, den);

	snprintf(call, sizeof call, "dec_ratio(%" PRId64 ", %" PRId64 ")", num, den);
	return text_is(call, buf, n, want);
}

static int
isnull(const char *s)
{
	return dec_isnull(s, strlen(s));
}

/* xorshift64*: deterministic, so a failure reproduces. */
static uint64_t
rnd(void)
{
	static uint64_t x = 0x9e3779b97f4a7c15ULL;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	return x * 0x2545f4914f6cdd1dULL;
}

/* dec_us2ns: the profiles' microsecond texts and their ns. */
static const struct {
	const char *s;
	int64_t ns;
} us_good[] = {
	{ "1736408883704643.212\t", INT64_C(1736408883704643212) },
	{ "\"1736413971558972.912\t\"", INT64_C(1736413971558972912) },
	{ " \"1736413971558972.912\" \r\n", INT64_C(1736413971558972912) },
	{ "1699529622790614.8", INT64_C(1699529622790614800) },
	{ "1702866902796675", INT64_C(1702866902796675000) },
	{ "0", 0 },
	{ "-0", 0 },
	{ "+2.5", 2500 },
	{ ".5", 500 },
	{ "5.", 5000 },
	{ "007.25", 7250 },
	{ "-1.5", -1500 },
	/* More decimals than the scale: round half away from zero. */
	{ "12.77012757357446", 12770 },
	{ "0.0005", 1 },
	{ "-0.0005", -1 },
	{ "0.0004999999", 0 },
	{ "-0.0004999999", 0 },
	{ "0.0015", 2 },
	{ "2.9995", 3000 },
	{ "-2.9995", -3000 },
	{ "932.0498", 932050 },
	/* Exponents, as Python prints small floats. */
	{ "1e-05", 0 },	/* 0.01 ns */
	{ "5e-4", 1 },	/* 0.5 ns rounds away */
	{ "1.5e3", 1500000 },
	{ "1.5E+3", 1500000 },
	{ "2.5e-1", 250 },
	{ "1e-400", 0 },
	/* The largest, either sign. */
	{ "9223372036854775.807", INT64_MAX },
	{ "-9223372036854775.807", -INT64_MAX },
};

/* Texts dec_us2ns refuses. */
static const char *const us_bad[] = {
	/* Not numbers. */
	"N/A",
	"",
	"   \t",
	"\"\"",
	"\"",
	"abc",
	"1.2.3",
	"--1",
	"-",
	".",
	"1e",
	"1e+",
	"e5",
	"1 2",
	"12a",
	"0x10",
	"nan",
	"inf",
	/* Overflow is an error, never a wrapped value. */
	"99999999999999999999",
	"9223372036854775.808",
	"-9223372036854775.809",
	"1e400",
	"1e99999999999",
};

static void
test_us2ns(void)
{
	int64_t v;

	/* The spans are not NUL-terminated in callers: pass exact lengths. */
	CHECK(dec_us2ns("1736408883704643.212\tXX", 21, &v) == 0 &&
	    v == INT64_C(1736408883704643212));
	for (size_t i = 0; i < sizeof us_good / sizeof *us_good; i++)
		CHECK(us_is(us_good[i].s, us_good[i].ns));
	for (size_t i = 0; i < sizeof us_bad / sizeof *us_bad; i++)
		CHECK(us_fails(us_bad[i]));
}

static void
test_parse(void)
{
	/* ms -> ns. */
	CHECK(parse_is("79.08952021875", 6, INT64_C(79089520)));
	CHECK(parse_is("79.0895205", 6, INT64_C(79089521)));
	CHECK(parse_is("1", 6, INT64_C(1000000)));
	/* Scale 0: integers; fractions round. */
	CHECK(parse_is("12345", 0, 12345));
	CHECK(parse_is("1.5", 0, 2));
	CHECK(parse_is("-1.5", 0, -2));
	CHECK(parse_is("1.4999", 0, 1));
	CHECK(parse_is("9223372036854775807", 0, INT64_MAX));
	CHECK(parse_is("1700000000000", 0, INT64_C(1700000000000)));
	CHECK(parse_is("4294967295", 0, INT64_C(4294967295)));
	{
		int64_t v;

		CHECK(dec_parse("9223372036854775808", 19, 0, &v) == -1);
		CHECK(dec_parse("12345678901234567890", 20, 0, &v) == -1);
	}
}

static void
test_isnull(void)
{
	CHECK(isnull(""));
	CHECK(isnull("   "));
	CHECK(isnull("\t"));
	CHECK(isnull("N/A"));
	CHECK(isnull(" N/A\t"));
	CHECK(isnull("\"N/A\""));
	CHECK(isnull("\"\""));
	CHECK(isnull("NA"));
	CHECK(isnull("None"));
	CHECK(isnull("null"));
	CHECK(!isnull("0"));
	CHECK(!isnull("n/a"));
	CHECK(!isnull("N/A1"));
	CHECK(!isnull("NULL"));
	CHECK(!isnull("abc"));
	CHECK(!isnull("1.5"));
	CHECK(dec_isnull("N/Ax", 3));
}

static void
test_fmt(void)
{
	CHECK(fmt_is(17902502, 6, "17.902502"));
	CHECK(fmt_is(25744000, 6, "25.744"));
	CHECK(fmt_is(0, 6, "0"));
	CHECK(fmt_is(1, 6, "0.000001"));
	CHECK(fmt_is(-1, 6, "-0.000001"));
	CHECK(fmt_is(-17902502, 6, "-17.902502"));
	CHECK(fmt_is(-25744000, 6, "-25.744"));
	CHECK(fmt_is(-1000000, 6, "-1"));
	CHECK(fmt_is(1000000, 6, "1"));
	CHECK(fmt_is(10, 6, "0.00001"));
	CHECK(fmt_is(INT64_C(1736413971558972912), 3, "1736413971558972.912"));
	CHECK(fmt_is(INT64_C(1699529622790614800), 3, "1699529622790614.8"));
	CHECK(fmt_is(INT64_C(1702866902796675000), 3, "1702866902796675"));
	CHECK(fmt_is(12345, 0, "12345"));
	CHECK(fmt_is(-12345, 0, "-12345"));
	CHECK(fmt_is(0, 0, "0"));
	CHECK(fmt_is(INT64_MAX, 0, "9223372036854775807"));
	CHECK(fmt_is(INT64_MIN, 0, "-9223372036854775808"));
	CHECK(fmt_is(INT64_MIN, 3, "-9223372036854775.808"));
	CHECK(fmt_is(INT64_MAX, 18, "9.223372036854775807"));
	CHECK(fmt_is(5, 20, "0.00000000000000000005"));
}

static void
test_ratio(void)
{
	CHECK(ratio_is(1, 3, "0.333333"));
	CHECK(ratio_is(2, 3, "0.666667"));
	CHECK(ratio_is(0, 5, "0"));
	CHECK(ratio_is(5, 5, "1"));
	CHECK(ratio_is(1, 2, "0.5"));
	CHECK(ratio_is(7, 2, "3.5"));
	CHECK(ratio_is(1, 2000000, "0.000001"));	/* half rounds up */
	CHECK(ratio_is(1, 2000001, "0"));
	CHECK(ratio_is(-1, 3, "-0.333333"));
	CHECK(ratio_is(-2, 3, "-0.666667"));
	CHECK(ratio_is(-1, 2000000, "-0.000001"));	/* half away from zero */
	/* Big ns values must not overflow: int128 inside. */
	CHECK(ratio_is(INT64_C(1736413971558972912), INT64_C(3472827943117945824), "0.5"));
	CHECK(ratio_is(INT64_C(9000000000000), INT64_C(3), "3000000000000"));
}

/* dec_fmt(v, 3) then dec_us2ns(text) must give v back, for any v. */
static void
test_roundtrip(void)
{
	char buf[64];
	int bad = 0;

	for (int i = 0; i < 200000; i++) {
		uint64_t r = rnd();
		int64_t v, back = 0;
		int n;

		switch (i % 4) {
		case 0:		/* full int64 range */
			v = (int64_t)r;
			if (v == INT64_MIN)
				v++;
			break;
		case 1:		/* realistic timestamps */
			v = INT64_C(1600000000000000000) +
			    (int64_t)(r % UINT64_C(200000000000000000));
			break;
		case 2:		/* durations, any sign */
			v = (int64_t)(r % 2000000001) - 1000000000;
			break;
		default:	/* few digits */
			v = (int64_t)(r % 100000) * ((r >> 40) & 1 ? -1 : 1);
			break;
		}
		n = dec_fmt(buf, v, 3);
		if (dec_us2ns(buf, (size_t)n, &back) != 0 || back != v) {
			if (bad++ < 5)
				fprintf(stderr, "  round trip %" PRId64 " -> \"%s\" -> %" PRId64 "\n",
				    v, buf, back);
		}
		/* And with the msprof trailing TAB and quotes. */
		buf[n] = '\t';
		if (dec_us2ns(buf, (size_t)n + 1, &back) != 0 || back != v)
			bad++;
	}
	CHECK(bad == 0);
}

int
main(void)
{
	test_us2ns();
	test_parse();
	test_isnull();
	test_fmt();
	test_ratio();
	test_roundtrip();
	return check_status("dec_test");
}
