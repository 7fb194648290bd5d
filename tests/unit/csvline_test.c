/*
 * csvline_test: unit tests for lib/ingest/csvline, and a differential test
 * against libcsv (strict, no trimming) on every real CSV under REALDIR
 * (tests/data/real).  Usage: csvline_test REALDIR
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csv.h>

#include "check.h"
#include "ingest/csvline.h"


static void
openwith(struct csvin *c, const void *data, size_t n)
{
	check_tmpfile("csvline_test", data, n);
	if (csv_open(c, tmppath) != 0) {
		perror("csvline_test: csv_open");
		exit(2);
	}
}

static void
done(struct csvin *c)
{
	csv_close(c);
	unlink(tmppath);
}

#define OPENS(c, lit)	openwith((c), (lit), sizeof(lit) - 1)

/*
 * Is the current record exactly the fields given, separated by '|' in
 * want (so no field here contains '|')?
 */
static int
recis(const struct csvin *c, const char *want)
{
	int i = 0;
	const char *w = want;

	for (;;) {
		const char *bar = strchr(w, '|');
		size_t wl = bar ? (size_t)(bar - w) : strlen(w), len;
		const char *f;

		if (i >= c->nf)
			goto bad;
		f = csv_field(c, i, &len);
		if (len != wl || memcmp(f, w, wl) != 0 || f[len] != '\0')
			goto bad;
		i++;
		if (bar == NULL)
			break;
		w = bar + 1;
	}
	if (i == c->nf)
		return 1;
bad:
	fprintf(stderr, "  record at line %lu has %d fields:", c->recline, c->nf);
	for (int k = 0; k < c->nf; k++)
		fprintf(stderr, " [%s]", csv_field(c, k, NULL));
	fprintf(stderr, "; want [%s]\n", want);
	return 0;
}

/* Records as collected by either parser: each is "nf\n" then per field
 * "len:bytes", so comparing two records is one memcmp. */
struct recs {
	struct buf	*r;
	size_t		 n, cap;
	struct buf	 cur;
	int		 curnf, nfield;
};

static void
recs_field(struct recs *rs, const char *f, size_t len)
{
	char t[32];

	snprintf(t, sizeof t, "%zu:", len);
	buf_adds(&rs->cur, t);
	buf_add(&rs->cur, f, len);
	rs->curnf++;
}

static void
recs_end(struct recs *rs)
{
	char t[32];

	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 64;
		rs->r = xreallocarray(rs->r, rs->cap, sizeof *rs->r);
	}
	snprintf(t, sizeof t, "%d\n", rs->curnf);
	rs->r[rs->n] = (struct buf){ 0 };
	buf_adds(&rs->r[rs->n], t);
	buf_add(&rs->r[rs->n], rs->cur.p ? rs->cur.p : "", rs->cur.len);
	rs->n++;
	rs->cur.len = 0;
	rs->curnf = 0;
}

static void
recs_free(struct recs *rs)
{
	for (size_t i = 0; i < rs->n; i++)
		buf_free(&rs->r[i]);
	free(rs->r);
	buf_free(&rs->cur);
	memset(rs, 0, sizeof *rs);
}

static void
cb1(void *f, size_t len, void *data)
{
	recs_field(data, f ? f : "", len);
}

static void
cb2(int c, void *data)
{
	(void)c;
	recs_end(data);
}

/* libcsv trims blanks unless told not to. */
static int
nospace(unsigned char c)
{
	(void)c;
	return 0;
}

/* Parse path with libcsv; 0, or -1 on a strict parse error. */
static int
bylibcsv(const char *path, struct recs *rs, char *err, size_t errsz)
{
	struct csv_parser p;
	FILE *fp;
	char *data = NULL;
	size_t n = 0, cap = 0, m, off = 0;
	int rc = 0;

	if ((fp = fopen(path, "rb")) == NULL) {
		snprintf(err, errsz, "cannot open");
		return -1;
	}
	for (;;) {
		if (n == cap)
			data = xrealloc(data, cap = cap ? cap * 2 : 65536);
		if ((m = fread(data + n, 1, cap - n, fp)) == 0)
			break;
		n += m;
	}
	fclose(fp);
	/* libcsv has no BOM handling. */
	if (n >= 3 && memcmp(data, "\xef\xbb\xbf", 3) == 0)
		off = 3;
	if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
		fprintf(stderr, "csvline_test: csv_init failed\n");
		exit(2);
	}
	csv_set_space_func(&p, nospace);
	/* libcsv grows its field buffer by blk_size (128): quadratic on the
	 * 4 MB field, painfully so under ASan. */
	csv_set_blk_size(&p, 1 << 20);
	if (csv_parse(&p, data + off, n - off, cb1, cb2, rs) != n - off) {
		snprintf(err, errsz, "%s", csv_strerror(csv_error(&p)));
		rc = -1;
	} else if (csv_fini(&p, cb1, cb2, rs) != 0) {
		snprintf(err, errsz, "%s at EOF", csv_strerror(csv_error(&p)));
		rc = -1;
	}
	csv_free(&p);
	free(data);
	return rc;
}

static int
bycsvline(const char *path, struct recs *rs, char *err, size_t errsz)
{
	struct csvin c;
	int r;

	if (csv_open(&c, path) != 0) {
		snprintf(err, errsz, "cannot open");
		return -1;
	}
	while ((r = csv_next(&c)) == 1) {
		for (int i = 0; i < c.nf; i++) {
			size_t len;
			const char *f = csv_field(&c, i, &len);

			recs_field(rs, f, len);
		}
		recs_end(rs);
	}
	if (r == -1)
		snprintf(err, errsz, "%s", c.err);
	csv_close(&c);
	return r;
}

/* Parse path with both; 1 if they agree on every byte. */
static int
same(const char *path, const char *label)
{
	struct recs a = { 0 }, b = { 0 };
	char ea[160] = "", eb[160] = "";
	int ra = bycsvline(path, &a, ea, sizeof ea);
	int rb = bylibcsv(path, &b, eb, sizeof eb);
	int ok = 1;

	if (ra != rb) {
		fprintf(stderr, "  %s: csvline %s, libcsv %s\n", label,
		    ra ? ea : "ok", rb ? eb : "ok");
		ok = 0;
	}
	if (ra == 0 && rb == 0 && a.n != b.n) {
		fprintf(stderr, "  %s: csvline %zu records, libcsv %zu\n",
		    label, a.n, b.n);
		ok = 0;
	}
	for (size_t i = 0; ok && i < a.n && i < b.n; i++)
		if (a.r[i].len != b.r[i].len ||
		    memcmp(a.r[i].p, b.r[i].p, a.r[i].len) != 0) {
			fprintf(stderr, "  %s: record %zu differs:\n"
			    "    csvline %.200s\n    libcsv  %.200s\n",
			    label, i + 1, a.r[i].p, b.r[i].p);
			ok = 0;
		}
	recs_free(&a);
	recs_free(&b);
	return ok;
}

/* The csvline result for a literal, plus libcsv agreeing on it. */
static int
samelit(const char *data, size_t n)
{
	int ok;

	check_tmpfile("csvline_test", data, n);
	ok = same(tmppath, "literal");
	unlink(tmppath);
	return ok;
}

#define SAME(lit)	samelit((lit), sizeof(lit) - 1)

/*
 * Inputs read whole into their records (as recis() joins the fields),
 * then the end, and read alike by libcsv (SAME).
 */
static const struct {
	const char *in;
	const char *recs[3];	/* up to a NULL */
} whole[] = {
	/* CRLF. */
	{ "a,b\r\nc,d\r\n", { "a|b", "c|d" } },
	/* A quoted start time with its TAB, and an unquoted one. */
	{ "AI_CORE,\"1736413971558972.912\t\",185.504\n"
	    "AI_CORE,1736408883704643.212\t,1.5\n",
	    { "AI_CORE|1736413971558972.912\t|185.504", "AI_CORE|1736408883704643.212\t|1.5" } },
	/* Doubled quotes anywhere, commas inside quotes. */
	{ "\"a\"\"b\",\"\"\"\",\"x,y\",\"\"\"\"\"\"\n", { "a\"b|\"|x,y|\"\"" } },
	/* A quote closing at the start of a line, field ending the file. */
	{ "\"a\n\",\"b\n\"", { "a\n|b\n" } },
	/* A doubled quote just before a line end. */
	{ "\"a\"\"\nb\",c\n", { "a\"\nb|c" } },
};

static void
test_whole(void)
{
	struct csvin c;

	for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
		const char *in = whole[i].in;

		openwith(&c, in, strlen(in));
		for (size_t j = 0; j < 3 && whole[i].recs[j]; j++)
			CHECK(csv_next(&c) == 1 && recis(&c, whole[i].recs[j]));
		CHECK(csv_next(&c) == 0);
		done(&c);
		CHECK(samelit(in, strlen(in)));
	}
}

static void
test_basic(void)
{
	struct csvin c;

	/* LF, and fields are not trimmed. */
	OPENS(&c, "h1,h2,h3\n a ,b\t, c\n");
	CHECK(csv_next(&c) == 1 && c.recline == 1 && recis(&c, "h1|h2|h3"));
	CHECK(csv_next(&c) == 1 && c.recline == 2 && recis(&c, " a |b\t| c"));
	CHECK(csv_next(&c) == 0);
	CHECK(csv_next(&c) == 0);
	CHECK(c.lineno == 2);
	done(&c);
	CHECK(SAME("h1,h2,h3\n a ,b\t, c\n"));

	/* No final newline, LF and CRLF. */
	OPENS(&c, "a,b\nc,d");
	CHECK(csv_next(&c) == 1 && recis(&c, "a|b"));
	CHECK(csv_next(&c) == 1 && recis(&c, "c|d") && c.recline == 2);
	CHECK(csv_next(&c) == 0);
	done(&c);
	CHECK(SAME("a,b\nc,d"));
	CHECK(SAME("a,b\r\nc,\"d\""));

	/* BOM: stripped from line 1 only. */
	OPENS(&c, "\xef\xbb\xbfh1,h2\n\xef\xbb\xbfx,y\n");
	CHECK(csv_next(&c) == 1 && recis(&c, "h1|h2"));
	CHECK(csv_next(&c) == 1 && recis(&c, "\xef\xbb\xbfx|y"));
	done(&c);
	OPENS(&c, "\xef\xbb\xbf\"q\",h2\r\n");
	CHECK(csv_next(&c) == 1 && recis(&c, "q|h2"));
	done(&c);
	OPENS(&c, "\xef\xbb\xbf");
	CHECK(csv_next(&c) == 0);
	done(&c);
	CHECK(SAME("\xef\xbb\xbfh1,h2\n1,2\n"));

	/* Empty fields and a trailing comma. */
	OPENS(&c, "a,,b\na,b,\n,\n\"\"\n\"\",x\n");
	CHECK(csv_next(&c) == 1 && c.nf == 3 && recis(&c, "a||b"));
	CHECK(csv_next(&c) == 1 && c.nf == 3 && recis(&c, "a|b|"));
	CHECK(csv_next(&c) == 1 && c.nf == 2 && recis(&c, "|"));
	CHECK(csv_next(&c) == 1 && c.nf == 1 && recis(&c, ""));
	CHECK(csv_next(&c) == 1 && c.nf == 2 && recis(&c, "|x"));
	done(&c);
	CHECK(SAME("a,,b\na,b,\n,\n\"\"\n\"\",x\n"));
	CHECK(SAME("a,b,\r\n,,\r\n"));

	/* Blank lines are skipped but counted. */
	OPENS(&c, "\n\na\n\r\n\nb\n\n");
	CHECK(csv_next(&c) == 1 && c.recline == 3 && recis(&c, "a"));
	CHECK(csv_next(&c) == 1 && c.recline == 6 && recis(&c, "b"));
	CHECK(csv_next(&c) == 0);
	done(&c);
	CHECK(SAME("\n\na\n\r\n\nb\n\n"));
	OPENS(&c, "");
	CHECK(csv_next(&c) == 0);
	done(&c);
}

static void
test_quotes(void)
{
	struct csvin c;
	size_t len;

	/* The shapes field: doubled quotes keep literal quotes. */
	OPENS(&c, "1,\"\"\"81920,4096;8192,512\"\"\",DT_BF16\r\n");
	CHECK(csv_next(&c) == 1 && c.nf == 3);
	CHECK(strcmp(csv_field(&c, 1, &len), "\"81920,4096;8192,512\"") == 0 &&
	    len == 21);
	done(&c);
	CHECK(SAME("1,\"\"\"81920,4096;8192,512\"\"\",DT_BF16\r\n"));

	/* A quoted field spanning lines: recline is where it started. */
	OPENS(&c, "h\na,\"line1\nline2\n\nline4\",b\nc\n");
	CHECK(csv_next(&c) == 1 && c.recline == 1);
	CHECK(csv_next(&c) == 1 && c.recline == 2 && c.lineno == 5);
	CHECK(recis(&c, "a|line1\nline2\n\nline4|b"));
	CHECK(csv_next(&c) == 1 && c.recline == 6 && recis(&c, "c"));
	CHECK(csv_next(&c) == 0);
	done(&c);
	CHECK(SAME("h\na,\"line1\nline2\n\nline4\",b\nc\n"));
	/* CRLF inside quotes is data, as in libcsv. */
	OPENS(&c, "\"l1\r\nl2\",x\r\ny\r\n");
	CHECK(csv_next(&c) == 1 && recis(&c, "l1\r\nl2|x") && c.lineno == 2);
	CHECK(csv_next(&c) == 1 && recis(&c, "y") && c.recline == 3);
	done(&c);
	CHECK(SAME("\"l1\r\nl2\",x\r\ny\r\n"));

	/* Unterminated quote at EOF: -1 with a message. */
	OPENS(&c, "h\na,\"bc\nd\n");
	CHECK(csv_next(&c) == 1);
	CHECK(csv_next(&c) == -1);
	CHECK(strstr(c.err, "unterminated") != NULL);
	CHECK(c.recline == 2);
	done(&c);
	OPENS(&c, "\"abc");
	CHECK(csv_next(&c) == -1 && c.err[0] != '\0');
	done(&c);
	CHECK(SAME("h\na,\"bc\nd\n"));		/* both refuse it */

	/* A stray quote inside an unquoted field is kept as data (libcsv
	 * strict would refuse it). */
	OPENS(&c, "ab\"c,d\n");
	CHECK(csv_next(&c) == 1 && recis(&c, "ab\"c|d"));
	done(&c);
}

static void
test_sizes(void)
{
	struct csvin c;
	struct buf b = { 0 };
	char t[16];
	int ok = 1;

	/* More fields than the initial 64. */
	for (int i = 0; i < 300; i++) {
		snprintf(t, sizeof t, "%s%d", i ? "," : "", i);
		buf_adds(&b, t);
	}
	buf_adds(&b, "\n1\n");
	openwith(&c, b.p, b.len);
	CHECK(csv_next(&c) == 1 && c.nf == 300);
	for (int i = 0; i < c.nf; i++) {
		snprintf(t, sizeof t, "%d", i);
		ok &= strcmp(csv_field(&c, i, NULL), t) == 0;
	}
	CHECK(ok);
	CHECK(csv_next(&c) == 1 && c.nf == 1);
	done(&c);
	CHECK(samelit(b.p, b.len));

	/* A 4 MB quoted field with newlines in it. */
	b.len = 0;
	buf_adds(&b, "x,\"");
	for (int i = 0; i < 4096; i++) {
		buf_grow(&b, 1024);
		memset(b.p + b.len, 'a' + i % 26, 1023);
		b.len += 1023;
		buf_addc(&b, '\n');
	}
	buf_adds(&b, "\",y\n");
	openwith(&c, b.p, b.len);
	{
		size_t len;

		CHECK(csv_next(&c) == 1 && c.nf == 3);
		csv_field(&c, 1, &len);
		CHECK(len == 4096 * 1024);
		CHECK(c.lineno == 4097);
	}
	done(&c);
	CHECK(samelit(b.p, b.len));
	buf_free(&b);
}

/* A record as read: where it was, and its fields as "len:bytes". */
struct seen {
	unsigned long long off, bytes;
	unsigned long line, lineno;
	int nf;
	struct buf f;
};

static void
snap(const struct csvin *c, struct seen *s)
{
	char t[32];

	s->off = c->recoff;
	s->bytes = c->bytes;
	s->line = c->recline;
	s->lineno = c->lineno;
	s->nf = c->nf;
	s->f.len = 0;
	for (int i = 0; i < c->nf && (!c->keep || i < c->keep); i++) {
		size_t len;
		const char *f = csv_field(c, i, &len);

		snprintf(t, sizeof t, "%zu:", len);
		buf_adds(&s->f, t);
		buf_add(&s->f, f, len);
	}
	buf_addc(&s->f, '|');
}

static int
sameseen(const struct seen *a, const struct seen *b)
{
	return a->off == b->off && a->bytes == b->bytes && a->line == b->line &&
	    a->lineno == b->lineno && a->nf == b->nf && a->f.len == b->f.len &&
	    memcmp(a->f.p, b->f.p, a->f.len) == 0;
}

/* Read all records of tmppath; returns how many (at most max). */
static size_t
readall(struct seen *v, size_t max, int keep)
{
	struct csvin c;
	size_t n = 0;

	if (csv_open(&c, tmppath) != 0) {
		perror("csvline_test: csv_open");
		exit(2);
	}
	c.keep = keep;
	while (n < max && csv_next(&c) == 1)
		snap(&c, &v[n++]);
	csv_close(&c);
	return n;
}

/*
 * csv_seek: every record read again from its offset, in file order (from
 * the block), backwards and at random (seeking the descriptor), gives the
 * same fields, lines and byte counts.  The file is larger than a block,
 * with quoted fields over lines and over block edges, blank lines, CRLF,
 * a BOM and no final newline.
 */
static void
test_seek(void)
{
	enum { MAXR = 40000 };
	struct seen *v = xcalloc(MAXR, sizeof *v), *k = xcalloc(MAXR, sizeof *k), cur = { 0 };
	struct buf b = { 0 };
	struct csvin c;
	size_t n, nk, bad = 0;
	unsigned long long prevend;
	uint32_t rnd = 12345;

	buf_adds(&b, "\xef\xbb\xbfname,start,dur\r\n");
	for (int i = 0; b.len < (600u << 10); i++) {
		char t[64];

		snprintf(t, sizeof t, "op%d,%d.%03d\t,1.5", i, 1000 + i, i % 1000);
		if (i % 97 == 5) {
			/* A long quoted field with newlines and quotes. */
			buf_adds(&b, "\"");
			for (int j = 0; j < 3000; j++)
				buf_addc(&b, j % 50 == 49 ? '\n' : j % 77 == 0 ? ',' : 'a' + j % 26);
			buf_adds(&b, "\"\"end\"");
			buf_adds(&b, strchr(t, ','));
		} else if (i % 13 == 0)
			buf_adds(&b, "\"q,\"\"x\"\"\",2,3");
		else
			buf_adds(&b, t);
		buf_adds(&b, i % 31 == 0 ? "\r\n\r\n\n" : i % 2 ? "\n" : "\r\n");
	}
	buf_adds(&b, "last,1,2");
	check_tmpfile("csvline_test", b.p, b.len);
	n = readall(v, MAXR, 0);
	CHECK(n > 1000 && n < MAXR);
	CHECK(v[0].off == 3 && v[0].line == 1);
	CHECK(v[n - 1].bytes == b.len);
	/* Offsets: each record starts where the one before ended, but for
	 * blank lines between; its bytes are the file's. */
	prevend = 3;
	for (size_t i = 0; i < n; i++) {
		const char *r = b.p + v[i].off;

		if (v[i].off < prevend || v[i].bytes <= v[i].off || (i && r[-1] != '\n'))
			bad++;
		for (unsigned long long o = prevend; o < v[i].off; o++)
			if (b.p[o] != '\r' && b.p[o] != '\n')
				bad++;
		prevend = v[i].bytes;
	}
	CHECK(bad == 0);

	/* Only the first field split: the same, and nf counts all. */
	nk = readall(k, MAXR, 1);
	CHECK(nk == n);
	bad = 0;
	for (size_t i = 0; i < n && i < nk; i++) {
		const struct seen *t = &v[i];
		size_t pre = 0;

		/* The length of t's first "len:bytes" entry. */
		for (int f = 0; f < 1 && f < t->nf; f++) {
			char *colon;
			size_t len = (size_t)strtoul(t->f.p + pre, &colon, 10);

			pre = (size_t)(colon - t->f.p) + 1 + len;
		}
		if (k[i].off != t->off || k[i].bytes != t->bytes || k[i].nf != t->nf ||
		    k[i].line != t->line || k[i].lineno != t->lineno ||
		    k[i].f.len != pre + 1 || memcmp(k[i].f.p, t->f.p, pre) != 0)
			bad++;
	}
	CHECK(bad == 0);

	if (csv_open(&c, tmppath) != 0) {
		perror("csvline_test: csv_open");
		exit(2);
	}
	/* In order, skipping some (read ahead in the block). */
	bad = 0;
	for (size_t i = 0; i < n; i += 1 + i % 3) {
		if (csv_seek(&c, v[i].off, v[i].line) != 0 || csv_next(&c) != 1)
			bad++;
		snap(&c, &cur);
		bad += !sameseen(&cur, &v[i]);
	}
	CHECK(bad == 0);
	/* Backwards, then at random. */
	for (size_t i = n; i-- > 0;) {
		if (csv_seek(&c, v[i].off, v[i].line) != 0 || csv_next(&c) != 1)
			bad++;
		snap(&c, &cur);
		bad += !sameseen(&cur, &v[i]);
	}
	CHECK(bad == 0);
	for (int t = 0; t < 5000; t++) {
		size_t i;

		rnd = rnd * 1103515245u + 12345u;
		i = (rnd >> 8) % n;
		if (csv_seek(&c, v[i].off, v[i].line) != 0 || csv_next(&c) != 1)
			bad++;
		snap(&c, &cur);
		bad += !sameseen(&cur, &v[i]);
		/* And the record after it, read on. */
		if (i + 1 < n) {
			if (csv_next(&c) != 1)
				bad++;
			snap(&c, &cur);
			bad += !sameseen(&cur, &v[i + 1]);
		}
	}
	CHECK(bad == 0);
	/* The end of the file, and the header with its BOM again. */
	CHECK(csv_seek(&c, b.len, v[n - 1].lineno + 1) == 0 && csv_next(&c) == 0);
	CHECK(csv_seek(&c, 0, 1) == 0 && csv_next(&c) == 1);
	snap(&c, &cur);
	CHECK(sameseen(&cur, &v[0]));
	csv_close(&c);

	for (size_t i = 0; i < MAXR; i++) {
		buf_free(&v[i].f);
		buf_free(&k[i].f);
	}
	free(v);
	free(k);
	buf_free(&cur.f);
	buf_free(&b);
	unlink(tmppath);
}

/* csv_fdopen reads from the descriptor's offset and leaves it open; a
 * pipe reads on, but cannot go back. */
static void
test_fdopen(void)
{
	struct csvin c;
	int fd, p[2];
	static const char data[] = "a,b\nc,d\ne,f\n";

	check_tmpfile("csvline_test", data, sizeof data - 1);
	if ((fd = open(tmppath, O_RDONLY)) < 0 || lseek(fd, 4, SEEK_SET) != 4) {
		perror("csvline_test: open");
		exit(2);
	}
	csv_fdopen(&c, fd, "x");
	CHECK(csv_next(&c) == 1 && recis(&c, "c|d") && c.recoff == 4 && c.recline == 1);
	CHECK(csv_seek(&c, 8, 3) == 0 && csv_next(&c) == 1 && recis(&c, "e|f") && c.recline == 3);
	CHECK(csv_seek(&c, 4, 2) == 0 && csv_next(&c) == 1 && recis(&c, "c|d") && c.recline == 2);
	csv_close(&c);
	CHECK(fcntl(fd, F_GETFD) != -1);
	close(fd);
	unlink(tmppath);

	if (pipe(p) != 0 || write(p[1], data, sizeof data - 1) != (ssize_t)(sizeof data - 1)) {
		perror("csvline_test: pipe");
		exit(2);
	}
	close(p[1]);
	csv_fdopen(&c, p[0], "pipe");
	CHECK(csv_next(&c) == 1 && recis(&c, "a|b") && c.recoff == 0);
	CHECK(csv_seek(&c, 8, 3) == 0 && csv_next(&c) == 1 && recis(&c, "e|f"));
	errno = 0;
	CHECK(csv_seek(&c, 0, 1) == -1 && errno == ESPIPE);
	csv_close(&c);
	close(p[0]);
}

/* Every *.csv under dir, recursively. */
static void
walk(const char *dir, int *nfiles)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (d == NULL) {
		fprintf(stderr, "csvline_test: %s: cannot open directory\n", dir);
		fails++;
		return;
	}
	while ((e = readdir(d)) != NULL) {
		char path[4096];
		struct stat st;
		size_t l = strlen(e->d_name);

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode))
			walk(path, nfiles);
		else if (S_ISREG(st.st_mode) && l > 4 &&
		    strcmp(e->d_name + l - 4, ".csv") == 0) {
			(*nfiles)++;
			if (!same(path, path)) {
				fprintf(stderr, "%s:%d: check failed: csvline == libcsv on %s\n",
				    __FILE__, __LINE__, path);
				fails++;
			}
		}
	}
	closedir(d);
}

int
main(int argc, char **argv)
{
	const char *real = argc > 1 ? argv[1] : getenv("ASC_REAL");
	int nfiles = 0;

	test_basic();
	test_whole();
	test_quotes();
	test_sizes();
	test_seek();
	test_fdopen();
	if (real == NULL || *real == '\0') {
		fprintf(stderr, "usage: csvline_test REALDIR\n");
		return 2;
	}
	walk(real, &nfiles);
	CHECK(nfiles > 0);
	if (fails)
		fprintf(stderr, "csvline_test: %d checks failed (%d real CSV files)\n",
		    fails, nfiles);
	return fails ? 1 : 0;
}
