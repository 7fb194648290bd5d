/* rec_test: unit tests for lib/rec (NDJSON records in and out). */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "check.h"
#include "dec.h"
#include "rec.h"
#include "rec_int.h"	/* a scan's field count (nf) */


/* Write data to a fresh temp file and open it with rin (into *rp). */
static int
openwith(struct rin **rp, const void *data, size_t n, size_t maxline)
{
	check_tmpfile("rec_test", data, n);
	if ((*rp = rin_new(tmppath, maxline)) == NULL) {
		perror("rec_test: rin_new");
		exit(2);
	}
	return 0;
}

static void
done(struct rin *r)
{
	rin_free(r);
	unlink(tmppath);
}

/* Open a one-line input, read it and scan it (the whole line checked). */
static int
scanone(struct rin **rp, const char *line)
{
	openwith(rp, line, strlen(line), 0);
	if (rin_next(*rp) != 1)
		return -2;
	return rin_scan(*rp) != 0 ? -1 : 0;
}

static int
typeis(struct rin *r, const char *want)
{
	const char *t;
	size_t n;

	return rin_type(r, &t, &n) == 0 && n == strlen(want) &&
	    memcmp(t, want, n) == 0;
}

static int
rawis(const struct rfield *f, const char *want)
{
	return f != NULL && f->vlen == strlen(want) &&
	    memcmp(f->v, want, f->vlen) == 0;
}

static int
i64is(const struct rin *r, const char *key, int64_t want)
{
	int64_t v = -12345;

	return rin_i64(r, key, &v) == 0 && v == want;
}

static int
i64fails(const struct rin *r, const char *key)
{
	int64_t v = -12345;

	return rin_i64(r, key, &v) == -1 && v == -12345;
}

static int
strbytes(const struct rin *r, const char *key, const char *want, size_t n)
{
	struct buf b = { 0 };
	int ok = rin_str(r, key, &b) == 0 && b.len == n &&
	    memcmp(b.p, want, n) == 0 && b.p[n] == '\0';

	buf_free(&b);
	return ok;
}

static int
strfails(const struct rin *r, const char *key)
{
	struct buf b = { 0 };
	int rc = rin_str(r, key, &b);

	buf_free(&b);
	return rc == -1;
}

static int
stris(const struct rin *r, const char *key, const char *want)
{
	return strbytes(r, key, want, strlen(want));
}

static int
errhas(const struct rin *r, const char *s)
{
	if (strstr(rin_errmsg(r), s) == NULL) {
		fprintf(stderr, "  err \"%s\" lacks \"%s\"\n", rin_errmsg(r), s);
		return 0;
	}
	return 1;
}

static void
test_fast(void)
{
	struct rin *r;
	size_t ln;

	openwith(&r, "{\"type\":\"kernel\",\"start_ns\":5}\n", 31, 0);
	CHECK(rin_next(r) == 1);
	CHECK(rin_lineno(r) == 1);
	CHECK(rin_line(r, &ln) != NULL && ln == 30 && strlen(rin_line(r, NULL)) == 30);
	CHECK(typeis(r, "kernel"));
	CHECK(rin_scan(r) == 0);
	CHECK(r->nf == 2);
	CHECK(rawis(rin_get(r, "type"), "\"kernel\""));
	CHECK(rawis(rin_get(r, "start_ns"), "5"));
	CHECK(i64is(r, "start_ns", 5));
	CHECK(rin_get(r, "start") == NULL);
	CHECK(rin_get(r, "start_ns_") == NULL);
	CHECK(i64fails(r, "missing"));
	CHECK(stris(r, "type", "kernel"));
	CHECK(strfails(r, "start_ns"));
	/* A stage's message, formatted, and -1 to return. */
	CHECK(rin_error(r, "kernel \"%s\" of %d bytes", "name", 70000) == -1);
	CHECK(strcmp(rin_errmsg(r), "kernel \"name\" of 70000 bytes") == 0);
	CHECK(rin_next(r) == 0);
	CHECK(rin_next(r) == 0);
	done(r);

	/*
	 * Absent keys are found absent without tokenising the rest (a text
	 * search for "key"), and the search never hides a key that is there:
	 * a key spelled inside a string or a nested object, a key behind an
	 * escape, keys at every offset of the eight-byte search steps.
	 */
	{
		static const char *const lines[] = {
			"{\"type\":\"a\",\"x\":1,\"kk\":2,\"s\":\"k\"}\n",
			"{\"type\":\"a\",\"o\":{\"k\":1},\"z\":\"\\\"k\\\"\"}\n",
			"{\"type\":\"a\",\"s\":\"\\u0041\",\"k\":3}\n",
		};
		static const int want[] = { -1, -1, 3 };
		char line[160];

		for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
			int64_t v;

			openwith(&r, lines[i], strlen(lines[i]), 0);
			CHECK(rin_next(r) == 1 && rin_scan(r) == 0);
			if (want[i] < 0)
				CHECK(rin_get(r, "k") == NULL);
			else
				CHECK(rin_i64(r, "k", &v) == 0 && v == want[i]);
			if (i == 0)
				CHECK(i64is(r, "kk", 2) && rin_get(r, "x") != NULL);
			done(r);
		}
		for (int pad = 0; pad < 72; pad++) {
			int n = snprintf(line, sizeof line, "{\"type\":\"a\",\"%.*s\":0,\"k\":%d}\n",
			    pad, "pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp", pad);
			int64_t v;

			openwith(&r, line, (size_t)n, 0);
			CHECK(rin_next(r) == 1 && rin_scan(r) == 0);
			CHECK(rin_i64(r, "k", &v) == 0 && v == pad);
			done(r);
		}
	}

	/* Empty type, and every scalar kind on the fast path. */
	CHECK(scanone(&r, "{\"type\":\"\",\"t\":true,\"f\":false,\"z\":null,"
	    "\"n\":-12.5e-1,\"s\":\"x\"}") == 0);
	CHECK(typeis(r, ""));
	{
		int b = 7;

		CHECK(rf_bool(rin_get(r, "t"), &b) == 0 && b == 1);
		CHECK(rf_bool(rin_get(r, "f"), &b) == 0 && b == 0);
		CHECK(rf_bool(rin_get(r, "z"), &b) == -1);
		CHECK(rf_bool(rin_get(r, "s"), &b) == -1);
		CHECK(rf_isnull(rin_get(r, "z")));
		CHECK(rf_isnull(rin_get(r, "nope")));
		CHECK(!rf_isnull(rin_get(r, "f")));
		CHECK(i64fails(r, "z"));
		CHECK(i64fails(r, "t"));
		CHECK(i64fails(r, "s"));
		CHECK(i64fails(r, "n"));
		CHECK(rawis(rin_get(r, "n"), "-12.5e-1"));
	}
	done(r);

	/* {} has no type. */
	CHECK(scanone(&r, "{}") == 0);
	CHECK(r->nf == 0);
	CHECK(!typeis(r, ""));
	CHECK(errhas(r, "type"));
	done(r);
	CHECK(scanone(&r, "{\"type\":5}") == 0);
	CHECK(!typeis(r, "5"));
	done(r);
}

static void
test_fallback(void)
{
	struct rin *r;

	/* type not first. */
	CHECK(scanone(&r, "{\"a\":1,\"type\":\"x\"}") == 0);
	CHECK(typeis(r, "x"));
	CHECK(i64is(r, "a", 1));
	done(r);
	openwith(&r, "{\"a\":1,\"type\":\"x\"}", 18, 0);
	CHECK(rin_next(r) == 1);
	CHECK(typeis(r, "x"));		/* rin_type scans by itself */
	done(r);

	/* Blanks everywhere. */
	CHECK(scanone(&r, " \t {  \"type\" :\t\"y\" , \"n\" : -3 ,\"s\": \"a b\" } \t") == 0);
	CHECK(typeis(r, "y"));
	CHECK(i64is(r, "n", -3));
	CHECK(stris(r, "s", "a b"));
	done(r);

	/*
	 * Escaped keys: libjq decodes "t\u0079pe" and re-serialises it as
	 * "type", so the record is accepted; a key that stays escaped after
	 * libjq ("a\"b") is refused with a message.  Neither crashes.
	 */
	CHECK(scanone(&r, "{\"t\\u0079pe\":\"x\",\"n\":2}") == 0);
	CHECK(typeis(r, "x"));
	CHECK(i64is(r, "n", 2));
	done(r);
	CHECK(scanone(&r, "{\"type\":\"x\",\"a\\\"b\":1}") == -1);
	CHECK(errhas(r, "escape"));
	done(r);
	/* An escaped type value: rin_type gives the raw (escaped) span. */
	CHECK(scanone(&r, "{\"type\":\"a\\\"b\"}") == 0);
	CHECK(typeis(r, "a\\\"b"));
	CHECK(stris(r, "type", "a\"b"));
	done(r);

	/* Nested values are skipped as raw spans, strings and all. */
	{
		const char *o = "{\"s\":\"}\\\"{]\",\"a\":[1,{\"x\":\"]\"},[]],\"e\":{}}";
		char line[256];

		snprintf(line, sizeof line,
		    "{\"type\":\"n\",\"o\":%s,\"z\":\"\\\"}\",\"l\":[\"[\"],\"k\":3}", o);
		CHECK(scanone(&r, line) == 0);
		CHECK(r->nf == 5);
		CHECK(rawis(rin_get(r, "o"), o));
		CHECK(rawis(rin_get(r, "l"), "[\"[\"]"));
		CHECK(stris(r, "z", "\"}"));
		CHECK(i64is(r, "k", 3));
		CHECK(strfails(r, "o"));
		CHECK(i64fails(r, "o"));
		done(r);
	}

	/* More keys than REC_MAXF: refused with a message, no overrun. */
	{
		struct buf b = { 0 };
		char kv[32];

		buf_adds(&b, "{\"type\":\"many\"");
		for (int i = 0; i < REC_MAXF + 5; i++) {
			snprintf(kv, sizeof kv, ",\"k%d\":%d", i, i);
			buf_adds(&b, kv);
		}
		buf_addc(&b, '}');
		CHECK(scanone(&r, b.p) == -1);
		CHECK(rin_errmsg(r)[0] != '\0');
		CHECK(typeis(r, "many"));	/* the fast type path still works */
		done(r);
		buf_free(&b);
	}
}

/* Each libjq 1.6 surprise, as it reaches asc. */
static void
test_jq16(void)
{
	struct rin *r;
	int64_t v;

	/* Above 2^63: never silently rounded (jq 1.6 would give ...67000). */
	CHECK(scanone(&r, "{\"type\":\"x\",\"v\":12345678901234567890}") == 0);
	CHECK(rawis(rin_get(r, "v"), "12345678901234567890"));
	CHECK(i64fails(r, "v"));
	CHECK(dec_parse("12345678901234567890", 20, 0, &v) == -1);
	done(r);
	/* Between 2^53 and 2^63: exact. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"v\":9007199254740993,\"w\":-9223372036854775807}") == 0);
	CHECK(i64is(r, "v", INT64_C(9007199254740993)));
	CHECK(i64is(r, "w", -INT64_MAX));
	done(r);
	/* Same through the libjq fallback (leading blank): must fail, not be
	 * rounded by the double. */
	CHECK(scanone(&r, " {\"type\":\"x\",\"v\":12345678901234567890}") == 0);
	CHECK(i64fails(r, "v"));
	done(r);

	/* Above INT_MAX: jq 1.6's jv_is_integer says no; we say yes. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"v\":1700000000000,\"u\":4294967295}") == 0);
	CHECK(i64is(r, "v", INT64_C(1700000000000)));
	CHECK(i64is(r, "u", INT64_C(4294967295)));
	done(r);
	CHECK(scanone(&r, " {\"type\":\"x\",\"v\":1700000000000}") == 0);
	CHECK(i64is(r, "v", INT64_C(1700000000000)));
	done(r);

	/* 1.10: the fast path keeps the text; not an integer. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"v\":1.10,\"w\":1.0,\"e\":1e3,\"f\":15e-1,\"g\":1.9999,\"h\":1.0001}") == 0);
	CHECK(rawis(rin_get(r, "v"), "1.10"));
	CHECK(i64fails(r, "v"));
	CHECK(i64is(r, "w", 1));
	CHECK(i64is(r, "e", 1000));
	CHECK(i64fails(r, "f"));
	CHECK(i64fails(r, "g"));	/* was rounded to 2 before the fix */
	CHECK(i64fails(r, "h"));	/* was truncated to 1 */
	{
		const struct rfield *f = rin_get(r, "v");

		CHECK(f && dec_parse(f->v, f->vlen, 2, &v) == 0 && v == 110);
	}
	done(r);

	/* 1e400: jq 1.6 makes it DBL_MAX; rf_i64 must refuse both forms. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"v\":1e400}") == 0);
	CHECK(i64fails(r, "v"));
	done(r);
	CHECK(scanone(&r, " {\"type\":\"x\",\"v\":1e400}") == 0);
	CHECK(i64fails(r, "v"));
	done(r);

	/* NaN / Infinity: libjq 1.6 accepts them; JSON has none: rejected. */
	{
		static const char *nans[] = {
			"{\"type\":\"x\",\"v\":NaN}", "{\"type\":\"x\",\"v\":nan}",
			"{\"type\":\"x\",\"v\":-nan}", "{\"type\":\"x\",\"v\":Infinity}",
			"{\"type\":\"x\",\"v\":-inf}",
		};

		for (size_t i = 0; i < sizeof nans / sizeof *nans; i++) {
			CHECK(scanone(&r, nans[i]) == -1);
			CHECK(strstr(rin_errmsg(r), "is not JSON") != NULL);
			done(r);
		}
	}

	/* libjq 1.6 leniencies the fallback inherits: .5, 1., 01 are
	 * accepted and normalised; a leading + is refused. */
	CHECK(scanone(&r, "{\"a\":+1}") == -1);
	CHECK(strstr(rin_errmsg(r), "is not JSON") != NULL);
	done(r);
	CHECK(scanone(&r, "{\"b\":.5,\"c\":1.,\"d\":01}") == 0);
	CHECK(i64is(r, "c", 1) && i64is(r, "d", 1));
	CHECK(rawis(rin_get(r, "b"), "0.5"));
	done(r);
}

/* Nested values: checked whole, as libjq does. */
static void
test_nested(void)
{
	struct rin *r;

	/* A record consumed is checked whole: a broken
	 * nested value that no filter asks for is refused, with libjq's
	 * message, and the line has no fields. */
	CHECK(scanone(&r, "{\"type\":\"k\",\"start_ns\":5,\"pmu\":{\"a\":1,]}}") == -1);
	CHECK(strstr(rin_errmsg(r), "invalid JSON") != NULL);
	CHECK(r->nf == 0 && rin_get(r, "start_ns") == NULL);
	done(r);
	/* A line not closed by } */
	CHECK(scanone(&r, "{\"type\":\"k\",\"a\":1") == -1);
	done(r);
	/* The nested check against libjq, value by value: each is put in a
	 * record's "v" and the scan must agree with jv_parse.  (One known
	 * difference, kept: a lone high surrogate escape, "\ud800", is JSON
	 * by the grammar and read as U+FFFD below; libjq 1.6 refuses it.) */
	{
		static const char *const vals[] = {
			"{}", "[]", "[1,2]", "{\"a\":[true,false,null,-0.5e+3]}",
			" [ 1 , { \"b\" : \"x\\u00e9\" } ] ", "[[[[[]]]]]",
			"{\"a\":1,}", "[1,]", "[,1]", "{\"a\"}", "{\"a\":}", "{1:2}",
			"[tru]", "[nul]", "[falsey]", "[1x]", "[\"a\\x\"]", "[\"a\tb\"]",
			"{\"a\":1", "[1}", "{\"a\":1]", "[1 2]", "{\"a\":1 \"b\":2}",
			"[-]", "[1.]", "[01]", "[.5]", "[1e]",
			/* flat objects of numbers and strings (flatobj), keys past 16 and 32 bytes */
			"{\"a\":1,\"b\":\"x\"}", "{\"a\":-1.5e3,\"b\":0}", "{\"a\":1,\"b\":}", "{\"a\":01}",
			"{\"a\":-}", "{\"a\":1,\"b\":2,}", "{\"a\":1.}", "{\"a\":\"\\u00e9\",\"b\":2}",
			"{\"aic_scalar_time(us)\":78.442,\"a key of more than thirty-two bytes\":\"v\"}",
			"{\"aic_scalar_time(us)\":78.442,\"a key of more than thirty-two bytes:1}",
			"{\"a\":1,\"b\":[2]}", "{\"a\":1,\"b\":null}", "{\"a\":1}}",
			"[\"\\udc00\"]", "[\"\\uD83D\\uDE00\"]", "[\"\\ud800\\udc0\"]", "[[]][]", "{\"a\":{\"b\":{\"c\":[1,{\"d\":[]}]}}}",
		};

		for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
			char line[256];
			jv pv;
			int ok;

			snprintf(line, sizeof line, "{\"type\":\"k\",\"v\":%s,\"z\":1}", vals[i]);
			pv = jv_parse(line);
			ok = jv_is_valid(pv);
			jv_free(pv);
			if (scanone(&r, line) != (ok ? 0 : -1)) {
				fprintf(stderr, "  nested check differs from libjq on %s (libjq: %s)\n",
				    vals[i], ok ? "valid" : "invalid");
				CHECK(0);
			} else if (ok)
				CHECK(i64is(r, "z", 1));
			done(r);
		}
	}
	/* NaN, Infinity and +5 nested: libjq reads them, JSON has none. */
	{
		static const char *const nf[] = { "[NaN]", "[nan]", "{\"a\":-Infinity}", "[1,+5]", "[inf]" };

		for (size_t i = 0; i < sizeof nf / sizeof nf[0]; i++) {
			char line[128];

			snprintf(line, sizeof line, "{\"type\":\"k\",\"v\":%s}", nf[i]);
			CHECK(scanone(&r, line) == -1);
			CHECK(strstr(rin_errmsg(r), "field \"v\": ") && strstr(rin_errmsg(r), "is not JSON"));
			done(r);
		}
	}
	/* Nesting: libjq 1.6 reads 254 containers inside a record, not 255. */
	{
		char line[700];
		int n;

		for (int depth = 254; depth <= 255; depth++) {
			n = snprintf(line, sizeof line, "{\"type\":\"k\",\"v\":");
			for (int i = 0; i < depth; i++)
				line[n++] = '[';
			for (int i = 0; i < depth; i++)
				line[n++] = ']';
			snprintf(line + n, sizeof line - (size_t)n, "}");
			CHECK(scanone(&r, line) == (depth == 254 ? 0 : -1));
			done(r);
		}
	}
}

/* Keys and strings: duplicates, invalid UTF-8, escapes. */
static void
test_strings(void)
{
	struct rin *r;

	/* Duplicate keys: the last wins, as in jq, on the fast path and on
	 * libjq's (asc(7)). */
	CHECK(scanone(&r, "{\"type\":\"x\",\"dup\":1,\"dup\":2}") == 0);
	CHECK(i64is(r, "dup", 2));
	done(r);
	CHECK(scanone(&r, " {\"dup\":1,\"type\":\"x\",\"dup\":2}") == 0);
	CHECK(i64is(r, "dup", 2));
	CHECK(typeis(r, "x"));
	done(r);

	/* Invalid UTF-8 in a string: the fast path passes the bytes through;
	 * the writer repairs them. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"s\":\"a\xff" "b\"}") == 0);
	CHECK(strbytes(r, "s", "a\xff" "b", 3));
	{
		struct buf b = { 0 }, o = { 0 };
		unsigned long bad = rec_badutf8;

		CHECK(rin_str(r, "s", &b) == 0);
		out_esc(&o, b.p, b.len);
		CHECK(strcmp(o.p, "\"a\\ufffdb\"") == 0);
		CHECK(rec_badutf8 == bad + 1);
		buf_free(&b);
		buf_free(&o);
	}
	done(r);

	/* \u escapes: a lone surrogate becomes U+FFFD, pairs combine. */
	CHECK(scanone(&r, "{\"type\":\"x\",\"a\":\"\\ud800\",\"b\":\"<\\udc00>\","
	    "\"c\":\"\\ud800x\",\"d\":\"\\ud83d\\ude00\",\"e\":\"\\u00e9\\u4E2D\","
	    "\"f\":\"\\n\\t\\r\\b\\f\\/\\\\\\\"\",\"g\":\"\\u0000\"}") == 0);
	CHECK(stris(r, "a", "\xef\xbf\xbd"));
	CHECK(stris(r, "b", "<\xef\xbf\xbd>"));
	CHECK(stris(r, "c", "\xef\xbf\xbdx"));
	CHECK(stris(r, "d", "\xf0\x9f\x98\x80"));
	CHECK(stris(r, "e", "\xc3\xa9\xe4\xb8\xad"));
	CHECK(stris(r, "f", "\n\t\r\b\f/\\\""));
	CHECK(strbytes(r, "g", "", 1));
	done(r);
}

/* Lines that are not JSON objects. */
static void
test_notjson(void)
{
	struct rin *r;

	/* Not objects. */
	CHECK(scanone(&r, "[1]") == -1);
	CHECK(errhas(r, "not an object"));
	CHECK(!typeis(r, ""));
	done(r);
	CHECK(scanone(&r, "\"str\"") == -1);
	CHECK(errhas(r, "not an object"));
	done(r);
	CHECK(scanone(&r, "null") == -1);
	done(r);

	/* Invalid JSON: refused, with libjq's message minus the echoed line. */
	{
		static const char *bad[] = {
			"{\"a\":1", "{\"a\":1,}", "{\"a\":1}x", "{\"a\":1} {\"b\":2}",
			"{\"a\":1.2.3}", "{\"a\":-}", "{\"a\":eee}", "{\"a\":1e}",
			"{\"a\":\"\\q\"}", "{\"a\":\"\\u12\"}",
			"{\"a\":\"x\ty\"}", "{\"a\":tru}", "{a:1}", "{\"a\" 1}", "   ",
			"{\"a\":[1,2}", "{\"a\":1}}",
		};

		for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
			int rc = scanone(&r, bad[i]);

			if (rc != -1)
				fprintf(stderr, "  accepted: %s\n", bad[i]);
			CHECK(rc == -1);
			CHECK(rin_errmsg(r)[0] != '\0');
			CHECK(strstr(rin_errmsg(r), "while parsing") == NULL);
			done(r);
		}
	}
}

static void
test_lines(void)
{
	struct rin *r;
	static const char good_bad_good[] =
	    "{\"type\":\"a\"}\n{\"type\":\n[1]\n{\"type\":\"b\"}\n";
	static const char crlf[] = "{\"type\":\"a\",\"n\":1}\r\n\r\n{\"type\":\"b\"}\r\n";
	char big[80];
	size_t ln;

	/* A bad line leaves the reader at the next one (-k). */
	openwith(&r, good_bad_good, sizeof good_bad_good - 1, 0);
	CHECK(rin_next(r) == 1 && rin_scan(r) == 0 && typeis(r, "a"));
	CHECK(rin_next(r) == 1 && rin_scan(r) == -1 && rin_lineno(r) == 2);
	CHECK(rin_next(r) == 1 && rin_scan(r) == -1 && rin_lineno(r) == 3);
	CHECK(errhas(r, "not an object"));
	CHECK(rin_next(r) == 1 && rin_scan(r) == 0 && typeis(r, "b"));
	CHECK(rin_lineno(r) == 4);
	CHECK(rin_next(r) == 0);
	done(r);

	/* A line over maxline: -1, and the next line is still read. */
	memset(big, 'x', sizeof big);
	snprintf(big, sizeof big, "{\"type\":\"a\"}\n{\"type\":\"long long long\"}\n{\"t\":1}\n");
	openwith(&r, big, strlen(big), 16);
	CHECK(rin_next(r) == 1 && typeis(r, "a"));
	CHECK(rin_next(r) == -1 && rin_lineno(r) == 2);
	CHECK(errhas(r, "longer than 16 bytes"));
	CHECK(rin_next(r) == 1 && rin_lineno(r) == 3 && rin_scan(r) == 0);
	CHECK(i64is(r, "t", 1));
	CHECK(rin_next(r) == 0);
	done(r);
	/* Exactly maxline is fine. */
	openwith(&r, "{\"type\":\"abcde\"}\n", 17, 16);
	CHECK(rin_next(r) == 1 && typeis(r, "abcde"));
	done(r);

	/* Empty lines are skipped but counted. */
	openwith(&r, "\n\n{\"type\":\"a\"}\n\n\n", 17, 0);
	CHECK(rin_next(r) == 1 && rin_lineno(r) == 3 && typeis(r, "a"));
	CHECK(rin_next(r) == 0);
	done(r);
	openwith(&r, "", 0, 0);
	CHECK(rin_next(r) == 0);
	done(r);

	/* CRLF. */
	openwith(&r, crlf, sizeof crlf - 1, 0);
	CHECK(rin_next(r) == 1 && rin_line(r, &ln) != NULL && ln == 18 && rin_line(r, NULL)[17] == '}');
	CHECK(typeis(r, "a") && rin_scan(r) == 0 && i64is(r, "n", 1));
	CHECK(rin_next(r) == 1 && rin_lineno(r) == 3 && typeis(r, "b"));
	CHECK(rin_next(r) == 0);
	done(r);

	/* No newline at EOF. */
	openwith(&r, "{\"type\":\"a\"}\n{\"type\":\"b\",\"n\":7}", 31, 0);
	CHECK(rin_next(r) == 1 && typeis(r, "a"));
	CHECK(rin_next(r) == 1 && typeis(r, "b"));
	CHECK(rin_scan(r) == 0 && i64is(r, "n", 7));
	CHECK(rin_next(r) == 0);
	done(r);

	/* A 10 MB line under a 16 MB maxline; the reader is reused after it. */
	{
		size_t n = 10u << 20;
		char *s = xmalloc(n + 64), *p = s;

		p += sprintf(p, "{\"type\":\"big\",\"s\":\"");
		memset(p, 'a', n);
		p += n;
		p += sprintf(p, "\",\"n\":9}\n{\"type\":\"small\"}\n");
		openwith(&r, s, (size_t)(p - s), 16u << 20);
		CHECK(rin_next(r) == 1 && typeis(r, "big"));
		CHECK(rin_scan(r) == 0 && i64is(r, "n", 9));
		{
			struct buf b = { 0 };

			CHECK(rin_str(r, "s", &b) == 0 && b.len == n &&
			    b.p[0] == 'a' && b.p[n - 1] == 'a');
			buf_free(&b);
		}
		CHECK(rin_next(r) == 1 && typeis(r, "small"));
		CHECK(rin_next(r) == 0);
		done(r);
		/* And the same line is refused under a 1 MiB limit. */
		openwith(&r, s, (size_t)(p - s), 1 << 20);
		CHECK(rin_next(r) == -1);
		CHECK(rin_next(r) == 1 && typeis(r, "small"));
		done(r);
		free(s);
	}

	/*
	 * Lines are spans of a read buffer refilled in blocks: 5 MB of lines
	 * of varying length cross every block boundary; each comes back whole.
	 */
	{
		size_t cap = 5u << 20, len = 0;
		char *s = xmalloc(cap + 256);
		long i = 0, got = 0, bad = 0;
		const char *l;

		while (len < cap)
			len += (size_t)sprintf(s + len, "{\"type\":\"k\",\"i\":%ld,\"pad\":\"%.*s\"}\n",
			    i, (int)(i % 97), "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"), i++;
		openwith(&r, s, len, 0);
		while (rin_next(r) == 1) {
			int64_t v;

			if (rin_scan(r) != 0 || rin_i64(r, "i", &v) != 0 || v != got ||
			    (l = rin_line(r, &ln)) == NULL || ln != strlen(l) || l[ln - 1] != '}')
				bad++;
			got++;
		}
		CHECK(got == i && bad == 0 && rin_lineno(r) == (unsigned long)i);
		done(r);
		/* A too-long last line without a newline is refused, then EOF. */
		memset(s, 'y', 3u << 20);
		memcpy(s, "{\"type\":\"a\"}\n", 13);
		openwith(&r, s, 3u << 20, 1 << 20);
		CHECK(rin_next(r) == 1 && typeis(r, "a"));
		CHECK(rin_next(r) == -1 && rin_lineno(r) == 2);
		CHECK(rin_next(r) == 0);
		done(r);
		free(s);
	}
}

static void
test_write(void)
{
	struct buf b = { 0 };
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp = open_memstream(&mem, &memlen);
	unsigned long bad;
	int ok;

	CHECK(fp != NULL);
	if (fp == NULL)
		return;

	/* A full record. */
	out_begin(&b, "kernel");
	out_i64(&b, "n", -5);
	out_i64(&b, "max", INT64_MAX);
	out_i64(&b, "min", INT64_MIN);
	out_dec(&b, "ts", INT64_C(1736413971558972912), 3);
	out_dec(&b, "dur", 25744000, 6);
	out_dec(&b, "z", 0, 3);
	out_str(&b, "s", "a\"b\\c\x01\x1f\n\t\r\x7f/", 12);
	out_cstr(&b, "c", "x");
	out_cstr(&b, "nul", NULL);
	out_null(&b, "nn");
	out_bool(&b, "t", 1);
	out_bool(&b, "f", 0);
	out_raw(&b, "o", "{\"k\":[1]}", 9);
	out_key(&b, "q");
	buf_adds(&b, "1");
	rec_put(&b, fp);
	CHECK(b.len == 0);
	/* The buf is reusable. */
	out_begin(&b, "t\"2");
	rec_put(&b, fp);
	fflush(fp);
	ok = strcmp(mem,
	    "{\"type\":\"kernel\",\"n\":-5,\"max\":9223372036854775807,"
	    "\"min\":-9223372036854775808,\"ts\":1736413971558972.912,"
	    "\"dur\":25.744,\"z\":0,\"s\":\"a\\\"b\\\\c\\u0001\\u001f\\n\\t\\r\x7f/\","
	    "\"c\":\"x\",\"nul\":null,\"nn\":null,\"t\":true,\"f\":false,"
	    "\"o\":{\"k\":[1]},\"q\":1}\n"
	    "{\"type\":\"t\\\"2\"}\n") == 0;
	CHECK(ok);
	if (!ok)
		fprintf(stderr, "  got: %s", mem);

	/* Every line written is valid JSON that reads back the same. */
	{
		char *nl = strchr(mem, '\n');
		jv v = jv_parse_sized(mem, (int)(nl - mem));

		CHECK(jv_get_kind(v) == JV_KIND_OBJECT);
		jv_free(v);
	}
	{
		struct rin *r;

		openwith(&r, mem, memlen, 0);
		CHECK(rin_next(r) == 1 && rin_scan(r) == 0);
		CHECK(typeis(r, "kernel"));
		CHECK(strbytes(r, "s", "a\"b\\c\x01\x1f\n\t\r\x7f/", 12));
		CHECK(i64is(r, "min", INT64_MIN) || i64fails(r, "min"));
		CHECK(i64is(r, "max", INT64_MAX));
		{
			const struct rfield *f = rin_get(r, "ts");
			int64_t v;

			CHECK(f && dec_us2ns(f->v, f->vlen, &v) == 0 &&
			    v == INT64_C(1736413971558972912));
		}
		CHECK(rin_next(r) == 1 && rin_scan(r) == 0);
		CHECK(stris(r, "type", "t\"2"));
		done(r);
	}

	/* out_esc: valid UTF-8 kept, each invalid byte one U+FFFD. */
	b.len = 0;
	bad = rec_badutf8;
	out_esc(&b, "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xef\xbf\xbd", 12);
	CHECK(strcmp(b.p, "\"\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80\xef\xbf\xbd\"") == 0);
	CHECK(rec_badutf8 == bad);
	b.len = 0;
	out_esc(&b, "a\xff" "b\x80" "c", 5);
	CHECK(strcmp(b.p, "\"a\\ufffdb\\ufffdc\"") == 0);
	CHECK(rec_badutf8 == bad + 2);
	b.len = 0;
	bad = rec_badutf8;
	/* Overlong, surrogate, above U+10FFFF, truncated at the end. */
	out_esc(&b, "\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe4\xb8", 14);
	CHECK(strcmp(b.p, "\"\\ufffd\\ufffd|\\ufffd\\ufffd\\ufffd|"
	    "\\ufffd\\ufffd\\ufffd\\ufffd|\\ufffd\\ufffd\"") == 0);
	CHECK(rec_badutf8 == bad + 11);
	b.len = 0;
	out_esc(&b, "a\0b", 3);
	CHECK(b.len == 10 && memcmp(b.p, "\"a\\u0000b\"", 10) == 0);
	b.len = 0;
	out_esc(&b, "", 0);
	CHECK(strcmp(b.p, "\"\"") == 0);
	b.len = 0;
	/* Keys are the filters' literals, written as they are. */
	out_key(&b, "start_ns");
	CHECK(strcmp(b.p, ",\"start_ns\":") == 0);
	b.len = 0;
	out_int(&b, INT64_MIN);
	CHECK(strcmp(b.p, "-9223372036854775808") == 0);
	b.len = 0;
	out_int(&b, 0);
	CHECK(strcmp(b.p, "0") == 0);

	buf_free(&b);
	fclose(fp);
	free(mem);
}

int
main(void)
{
	test_fast();
	test_fallback();
	test_jq16();
	test_nested();
	test_strings();
	test_notjson();
	test_lines();
	test_write();
	return check_status("rec_test");
}
