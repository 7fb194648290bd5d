/*
 * pmu_test: asc-ops' PMU scanners (filters/asc-ops/pmu.c) held to the
 * record reader.  pmu_scan, the flat-object scanner, must give what
 * rin_scan and strtod give on every flat object of numbers and nulls,
 * and refuse anything else; pmu_fast, the pmu record pre-scan, must give
 * rin_scan's src and pmu whenever -M's fast path takes a record.  Inputs:
 * a table, random objects and records (escapes, \u, blanks, numbers with
 * exponents and long fractions, nesting, bad numbers, keys out of order)
 * and the NDJSON files named as arguments (asc-ingest's kernel and pmu
 * records of the real captures).  Silent when all hold.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jscan.h"
#include "rec.h"
#include "rec_int.h"	/* the fields of a scan (nf, f) */
#include "../../filters/asc-ops/pmu.h"

static int fails;
static unsigned long nfast;

#define CHECK(e, s, n) do { if (!(e)) { fails++; fprintf(stderr, "pmu_test.c:%d: %s: %.*s\n", \
	__LINE__, #e, (int)((n) > 300 ? 300 : (n)), (s)); } } while (0)

/*
 * The reference: [s, s + n) read by rin_scan, each column's number by
 * strtod.  0: a flat object of numbers and nulls that the reader took as
 * it is; 1: one it took through libjq (blanks its scanner leaves to
 * libjq, or libjq's leniencies: 01, .5, escaped keys), which pmu_scan
 * may refuse; -1: anything else.
 */
static int
refscan(const char *s, size_t n, double *val, int *has)
{
	struct rin *r = rin_mem(s, n);
	size_t len;
	int rc = 0;

	memset(has, 0, NPMU * sizeof *has);
	if (rin_scan(r) != 0) {
		rin_free(r);
		return -1;
	}
	if (r->nf > 0 && rin_text(r, &r->f[0], &len) != s)
		rc = 1;
	for (int i = 0; i < r->nf; i++)
		if (!rf_isnull(&r->f[i]) && !js_isnum(r->f[i].v, r->f[i].vlen))
			rc = -1;
	for (int i = 0; i < NPMU; i++) {
		const struct rfield *f = rin_get(r, pmu_col[i]);

		if (f != NULL && !rf_isnull(f) && js_isnum(f->v, f->vlen)) {
			has[i] = 1;
			val[i] = strtod(f->v, NULL);
		}
	}
	rin_free(r);
	return rc;
}

static void
same(const char *s, size_t n, const double *v, const int *h, const double *rv, const int *rh)
{
	for (int i = 0; i < NPMU; i++)
		if (h[i] != rh[i] || (h[i] && memcmp(&v[i], &rv[i], sizeof v[i]) != 0)) {
			fails++;
			fprintf(stderr, "pmu_test: %s: %d %.17g, the reader %d %.17g: %.*s\n", pmu_col[i],
			    h[i], v[i], rh[i], rv[i], (int)(n > 300 ? 300 : n), s);
		}
}

/* pmu_scan against the reference on the object [s, s + n). */
static void
checkobj(const char *s, size_t n)
{
	double v[NPMU], rv[NPMU];
	int h[NPMU], rh[NPMU];
	int rc = pmu_scan(s, s + n, v, h), ref = refscan(s, n, rv, rh);

	CHECK(rc == 0 ? ref >= 0 : ref != 0, s, n);
	if (rc == 0 && ref == 0)
		same(s, n, v, h, rv, rh);
}

/* pmu_fast on a pmu record: when -M's fast path takes it (pmu_join_file),
 * rin_scan must read it and find the same src and values. */
static void
checkrec(const char *line, size_t len, const struct buf *pre)
{
	const struct rfield *f, *g;
	struct rfield src;
	const char *v, *ve;
	double pv[NPMU], rv[NPMU];
	int ph[NPMU], rh[NPMU], isnull;
	struct rin *r;

	if (pmu_fast(line, len, pre, &src, &v, &ve) != 0)
		return;
	isnull = ve - v == 4 && memcmp(v, "null", 4) == 0;
	if (!isnull && pmu_scan(v, ve, pv, ph) != 0)
		return;
	nfast++;
	r = rin_mem(line, len);
	CHECK(rin_scan(r) == 0, line, len);
	f = rin_get(r, "src");
	g = rin_get(r, "pmu");
	CHECK(f && f->vlen == src.vlen && memcmp(f->v, src.v, f->vlen) == 0, line, len);
	CHECK(g && rf_isnull(g) == isnull, line, len);
	if (g && !isnull && !rf_isnull(g) && pmu_scan(g->v, g->v + g->vlen, rv, rh) == 0)
		same(line, len, pv, ph, rv, rh);
	rin_free(r);
}

static uint64_t rnd = 88172645463325252ULL;
static int noisy;	/* this record may hold blanks, odd keys and values */

static unsigned
pick(unsigned n)
{
	rnd ^= rnd << 13, rnd ^= rnd >> 7, rnd ^= rnd << 17;
	return (unsigned)(rnd >> 11) % n;
}

static void
blank(struct buf *b)
{
	static const char *const w[] = { " ", "\t", "\r\n", " \t " };

	if (noisy && pick(8) == 0)
		buf_adds(b, w[pick(4)]);
}

/* A number: mostly JSON (long fractions, exponents), some not. */
static void
number(struct buf *b)
{
	static const char *const odd[] = { "0", "-0", "1e5", "1.5E-3", "-2.25e+10", "1E400",
	    "12345678901234567", "0.1234567890123456789", "9007199254740993", "5e-324",
	    "01", "1.", ".5", "+1", "1e", "-", "NaN", "-Infinity", "0x10", "1.2.3", "1.5x",
	    "-.5", "00", "1e+", "\"0.5\"", "true", "nul", "{\"a\":1}", "[1,2]", "{}" };

	if (noisy && pick(4) == 0) {
		buf_adds(b, odd[pick(sizeof odd / sizeof odd[0])]);
		return;
	}
	if (pick(3) == 0)
		buf_addc(b, '-');
	int nd = 1 + (int)pick(19), pt = (int)pick((unsigned)nd + 1);

	for (int i = 0; i < nd; i++) {
		if (i == pt && i > 0)
			buf_addc(b, '.');
		buf_addc(b, (char)('0' + (i == 0 && pt != 1 ? 1 + pick(9) : pick(10))));
	}
	if (pick(10) == 0)
		buf_adds(b, pick(2) ? "e-7" : "E+2");
}

static void
key(struct buf *b, const char *const *order, int norder, int i)
{
	static const char *const odd[] = { "aicore_time(us)", "total_cycles", "x_ratio", "",
	    "a\\\"b_ratio", "\\u0061ic_mac_ratio", "aic_mac\\u005fratio", "k\001_rate",
	    "\xc3\xa9_ratio", "aic_mac_ratio ", "mac_ratio\\n" };

	buf_addc(b, '"');
	buf_adds(b, i < norder && pick(20) ? order[i] : !noisy || pick(2) ? pmu_col[pick(NPMU)] :
	    odd[pick(sizeof odd / sizeof odd[0])]);
	buf_addc(b, '"');
}

/* A pmu object of n columns, mostly in the order of order[] (a file's). */
static void
object(struct buf *b, const char *const *order, int norder, int n)
{
	blank(b);
	buf_addc(b, '{');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		blank(b);
		key(b, order, norder, i);
		blank(b);
		buf_addc(b, ':');
		blank(b);
		if (pick(10) == 0)
			buf_adds(b, "null");
		else
			number(b);
		blank(b);
	}
	if (pick(30) == 0)
		buf_addc(b, ',');
	buf_addc(b, '}');
	blank(b);
}

static void
randoms(void)
{
	static const char *const src[] = { "\"k1\"", "\"a\\\"b\"", "\"\\u00e9\"", "\"x\001\"",
	    "\"\xc3\xa9 op\"", "\"\"", "null", "1" };
	struct buf b = { 0 }, pre = { 0 };
	const char *order[32];
	size_t from;

	buf_adds(&pre, "{\"type\":\"pmu\",\"profile\":\"p1\"");
	for (int file = 0; file < 400; file++) {
		int n = (int)pick(32);

		for (int i = 0; i < n; i++)
			order[i] = pmu_col[pick(NPMU)];
		for (int rec = 0; rec < 100; rec++) {
			noisy = pick(2);
			b.len = 0;
			buf_add(&b, pre.p, pre.len);
			buf_adds(&b, pick(20) ? ",\"src\":" : ", \"src\":");
			buf_adds(&b, src[pick(8) ? 0 : pick(sizeof src / sizeof src[0])]);
			buf_adds(&b, ",\"pmu\":");
			from = b.len;
			if (pick(20) == 0)
				buf_adds(&b, "null");
			else
				object(&b, order, n, pick(10) ? n : (int)pick(32));
			checkobj(b.p + from, b.len - from);
			buf_adds(&b, pick(30) ? "}" : ",\"x\":1}");
			checkrec(b.p, b.len, &pre);
		}
	}
	buf_free(&b);
	buf_free(&pre);
}

static void
table(void)
{
	static const char *const t[] = {
		"{}", " { } ", "{\"aic_mac_ratio\":0.5}", "{\"aic_mac_ratio\":0.5 }",
		"{\"aic_mac_ratio\" : 1e-3 , \"mac_ratio\":null}", "{\"aic_mac_ratio\":01}",
		"{\"aic_mac_ratio\":0.5,}", "{,}", "{\"aic_mac_ratio\":0.5", "{\"aic_mac_ratio\":0.5}}",
		"{\"aic_mac_ratio\":-inf}", "{\"aic_mac_ratio\":.5}", "{\"aic_mac_ratio\":0.1,\"aic_mac_ratio\":0.2}",
		"{\"aic_mac_ratio\":\"0.5\"}", "{\"a\":{\"b\":1}}", "{\"aic_mac_ratio\":1.7976931348623157e308}",
		"{\"vec_ratio\":0.333333333333333333333}", "{\r\n\"vec_ratio\":\t0.25\r\n}",
		"{\"cube_utilization(%)\":99.99,\"aic_icache_miss_rate\":0.000001}", "[1]", "",
	};

	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		checkobj(t[i], strlen(t[i]));
}

/* The kernel and pmu records of an NDJSON file, as asc-ingest writes them. */
static void
file(const char *path)
{
	FILE *fp = fopen(path, "r");
	struct buf pre = { 0 };
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (fp == NULL) {
		perror(path);
		exit(2);
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		struct rin *r;
		const struct rfield *f, *p;

		if (line[n - 1] == '\n')
			line[--n] = '\0';
		r = rin_mem(line, (size_t)n);
		if (rin_scan(r) == 0 && (f = rin_get(r, "pmu")) != NULL && !rf_isnull(f)) {
			checkobj(f->v, f->vlen);
			if (strncmp(line, "{\"type\":\"pmu\",", 14) == 0 &&
			    (p = rin_get(r, "profile")) != NULL) {
				pre.len = 0;
				buf_adds(&pre, "{\"type\":\"pmu\",\"profile\":");
				buf_add(&pre, p->v, p->vlen);
				checkrec(line, (size_t)n, &pre);
			}
		}
		rin_free(r);
	}
	free(line);
	buf_free(&pre);
	fclose(fp);
}

int
main(int argc, char **argv)
{
	pmu_init();
	table();
	randoms();
	/* most random records have the fast shape: the check is not vacuous */
	CHECK(nfast > 10000, "", 0);
	nfast = 0;
	for (int i = 1; i < argc; i++)
		file(argv[i]);
	if (argc > 1)
		CHECK(nfast > 0, "", 0);
	return fails != 0;
}
