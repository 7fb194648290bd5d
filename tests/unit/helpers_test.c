/*
 * helpers_test: unit tests for the small shared helpers: lib/cmp.h's
 * comparators (against a reference spelled out key by key), intern_line,
 * out_strv, out_nsms_null, strv_free and aside_save.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "cmp.h"
#include "intern.h"
#include "nsms.h"
#include "rec.h"
#include "strv.h"
#include "util.h"

struct e4 { int64_t a; int b; uint32_t c; int64_t d; };

static CMP_FN(cmp4, struct e4, CMP_4(a, b, c, d))
static CMP_FN(cmp2, struct e4, CMP_2(b, d))

/* The order cmp4 must give, spelled out key by key. */
static int
ref4(const void *p, const void *q)
{
	const struct e4 *x = p, *y = q;
	int lt[4] = { x->a < y->a, x->b < y->b, x->c < y->c, x->d < y->d };
	int gt[4] = { x->a > y->a, x->b > y->b, x->c > y->c, x->d > y->d };

	for (int i = 0; i < 4; i++)
		if (lt[i] || gt[i])
			return lt[i] ? -1 : 1;
	return 0;
}

static int
sign(int v)
{
	return (v > 0) - (v < 0);
}

static void
test_cmp(void)
{
	static const int64_t big[] = { INT64_MIN, -1, 0, 1, INT64_MAX };
	struct e4 v[64];
	unsigned long r = 12345;
	uint32_t zero = 0, most = UINT32_MAX;
	int bad = 0;

	for (int i = 0; i < 5; i++)
		for (int j = 0; j < 5; j++)
			CHECK(CMP(big[i], big[j]) == (i > j) - (i < j));
	CHECK(CMP(zero, most) == -1 && CMP(most, zero) == 1);
	/* Few distinct values, so that ties reach the last key. */
	for (int i = 0; i < 64; i++) {
		r = r * 6364136223846793005UL + 1442695040888963407UL;
		v[i].a = (int64_t)(r >> 60) - 8;
		v[i].b = (int)(r >> 58 & 1);
		v[i].c = (uint32_t)(r >> 56 & 1) * 4000000000u;
		v[i].d = (r >> 50 & 1) ? INT64_MIN : INT64_MAX;
	}
	for (int i = 0; i < 64; i++)
		for (int j = 0; j < 64; j++)
			bad += cmp4(&v[i], &v[j]) != sign(ref4(&v[i], &v[j]));
	CHECK(bad == 0);
	qsort(v, 64, sizeof *v, cmp2);
	for (int i = 1; i < 64; i++)
		CHECK(v[i - 1].b < v[i].b || (v[i - 1].b == v[i].b && v[i - 1].d <= v[i].d));
}

static void
test_intern_line(void)
{
	struct buf l = { 0 };
	int n = 0;

	CHECK(intern_line(&l, &n, "a", 1) == 0);
	CHECK(intern_line(&l, &n, "b", 1) == 1);
	CHECK(intern_line(&l, &n, "a", 1) == 0);
	CHECK(intern_line(&l, &n, "ab", 2) == 2);	/* not a prefix match */
	CHECK(intern_line(&l, &n, "", 0) == 3);
	CHECK(intern_line(&l, &n, "", 0) == 3);
	CHECK(n == 4);
	CHECK(l.len == 8 && memcmp(l.p, "a\nb\nab\n\n", 8) == 0);
	buf_free(&l);
}

static int
bufis(const struct buf *b, const char *want)
{
	if (b->len == strlen(want) && memcmp(b->p, want, b->len) == 0)
		return 1;
	fprintf(stderr, "  got %.*s, want %s\n", (int)b->len, b->p, want);
	return 0;
}

static void
test_writers(void)
{
	static const char *const v[] = { "x", "y\"z", "" };
	struct buf b = { 0 };
	char **s = xcalloc(2, sizeof *s);

	out_begin(&b, "t");
	out_strv(&b, "k", v, 3);
	out_strv(&b, "none", v, 0);
	out_nsms_null(&b, "gap");
	CHECK(bufis(&b, "{\"type\":\"t\",\"k\":[\"x\",\"y\\\"z\",\"\"],\"none\":[],"
	    "\"gap_ns\":null,\"gap_ms\":null"));
	buf_free(&b);
	s[0] = xstrdup("one");
	s[1] = xstrdup("two");
	strv_free(s, 2);	/* a leak or double free: the sanitizers */
}

static void
test_aside_save(void)
{
	char got[16] = { 0 };
	struct aside a;
	FILE *fp;

	check_tmpfile("helpers_test", "old", 3);
	CHECK(aside_open(&a, tmppath) == 0);
	aside_save(&a, tmppath, "new text", 8);
	CHECK((fp = fopen(tmppath, "r")) != NULL);
	if (fp) {
		CHECK(fread(got, 1, sizeof got, fp) == 8);
		fclose(fp);
	}
	CHECK(memcmp(got, "new text", 8) == 0);
	unlink(tmppath);
}

int
main(void)
{
	test_cmp();
	test_intern_line();
	test_writers();
	test_aside_save();
	return check_status("helpers_test");
}
