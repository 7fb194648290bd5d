/* dbread: comm and comm_link records (analysis.db CommAnalyzer*, else
 * COMMUNICATION_OP) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "commjson.h"
#include "dbread_int.h"
#include "rec_out.h"

/* ---------- communication ops ---------- */

/* analysis.db opened read-only, or NULL (none, or it cannot be opened). */
static sqlite3 *
openanalysis(struct dbread *d)
{
	char *path = dbi_analysispath(d), *uri;
	sqlite3 *a = NULL;

	if (path == NULL)
		return NULL;
	uri = dbi_fileuri(path);
	if (sqlite3_open_v2(uri, &a, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		sqlite3_close(a);
		a = NULL;
	}
	free(uri);
	free(path);
	return a;
}

/* Does table have column col?  (No table: no.) */
static int
ahascol(sqlite3 *a, const char *table, const char *col)
{
	char q[160];
	sqlite3_stmt *st;
	int ok;

	snprintf(q, sizeof q, "SELECT \"%s\" FROM \"%s\" LIMIT 0", col, table);
	ok = sqlite3_prepare_v2(a, q, -1, &st, NULL) == SQLITE_OK;
	sqlite3_finalize(st);
	return ok;
}

/* CommAnalyzerTime columns, in the order selected after its rowid. */
static const char *const atcol[] = {
	"hccl_op_name", "group_name", "start_timestamp", "elapse_time", "transit_time",
	"wait_time", "synchronization_time", "idle_time", "step", "type"
};
enum { A_OP = 1, A_GROUP, A_START, A_ELAPSE, A_TRANSIT, A_WAIT, A_SYNC, A_IDLE, A_STEP,
	A_TYPE, A_TRANSPORT, A_SIZE, A_TTIME, A_BW };

/* The SELECT of the analysis.db comm records; counting when count. */
static void
analysisq(sqlite3 *a, struct buf *b, int count)
{
	int bw = ahascol(a, "CommAnalyzerBandwidth", "hccl_op_name") &&
	    ahascol(a, "CommAnalyzerBandwidth", "group_name") &&
	    ahascol(a, "CommAnalyzerBandwidth", "step") &&
	    ahascol(a, "CommAnalyzerBandwidth", "transport_type") &&
	    ahascol(a, "CommAnalyzerTime", "group_name") && ahascol(a, "CommAnalyzerTime", "step");
	static const char *const bwcol[] = { "transport_type", "transit_size", "transit_time", "bandwidth" };

	b->len = 0;
	if (count) {
		buf_adds(b, "SELECT count(*), count(hccl_op_name) FROM CommAnalyzerTime");
		return;
	}
	buf_adds(b, "SELECT t.rowid");
	for (size_t i = 0; i < sizeof atcol / sizeof atcol[0]; i++)
		dbi_selcol(b, "t", ahascol(a, "CommAnalyzerTime", atcol[i]) ? atcol[i] : NULL);
	for (size_t i = 0; i < 4; i++)
		dbi_selcol(b, "b", bw && ahascol(a, "CommAnalyzerBandwidth", bwcol[i]) ? bwcol[i] : NULL);
	buf_adds(b, " FROM CommAnalyzerTime t");
	/* One row per package size repeats the transport's totals: the
	 * writer takes the first row of each transport. */
	if (bw)
		buf_adds(b, " LEFT JOIN CommAnalyzerBandwidth b ON b.hccl_op_name = t.hccl_op_name"
		    " AND b.group_name = t.group_name AND b.step = t.step");
	else
		buf_adds(b, " LEFT JOIN (SELECT 1) b ON 0");
	buf_adds(b, " WHERE t.hccl_op_name IS NOT NULL ORDER BY t.rowid");
	if (bw)
		buf_adds(b, ", b.rowid");
}

int
db_comm_scan(struct dbread *d)
{
	sqlite3 *a = openanalysis(d);
	sqlite3_stmt *st = NULL;

	d->c.comm_records = 0;
	d->c.comm_analysis = 0;
	if (a && ahascol(a, "CommAnalyzerTime", "hccl_op_name")) {
		analysisq(a, &d->sc, 1);
		if (sqlite3_prepare_v2(a, d->sc.p, -1, &st, NULL) == SQLITE_OK &&
		    sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) > 0) {
			unsigned long n = (unsigned long)sqlite3_column_int64(st, 0);
			unsigned long ok = (unsigned long)sqlite3_column_int64(st, 1);

			d->c.comm_analysis = 1;
			d->c.comm_records = ok;
			d->c.an_read += n;
			d->c.an_emitted += ok;
			d->c.an_rejected += n - ok;
			if (n > ok)
				warns_add(&d->w, "bad_communication", "analysis.db: %lu CommAnalyzerTime rows "
				    "without hccl_op_name skipped", n - ok);
		}
		sqlite3_finalize(st);
	}
	sqlite3_close(a);
	if (!d->c.comm_analysis && d->has[T_COMM])
		d->c.comm_records = d->c.comm;
	return 0;
}

/* A value of a row as comm record number text in the arena. */
struct aval {
	enum cjkind	 kind;
	size_t		 off, n;
};

static void
getval(sqlite3_stmt *st, int i, struct buf *arena, struct aval *v)
{
	char t[64];
	int n = dbi_numtext(st, i, t, sizeof t);

	v->kind = n > 0 ? CJ_NUMBER : CJ_NULL;
	v->off = arena->len;
	v->n = n > 0 ? (size_t)n : 0;
	if (n > 0)
		buf_add(arena, t, (size_t)n);
	buf_addc(arena, '\0');
}

static void
gettext_(sqlite3_stmt *st, int i, struct buf *arena, struct aval *v)
{
	v->kind = sqlite3_column_type(st, i) == SQLITE_NULL ? CJ_NULL : CJ_STRING;
	v->off = arena->len;
	v->n = v->kind == CJ_NULL ? 0 : (size_t)sqlite3_column_bytes(st, i);
	if (v->n)
		buf_add(arena, sqlite3_column_text(st, i), v->n);
	buf_addc(arena, '\0');
}

static struct cjval
cjv(const struct buf *arena, const struct aval *v)
{
	struct cjval c = { .kind = v->kind, .s = arena->p + v->off, .n = v->n };

	return c;
}

/* torch_npu files ops named hcom_send*, hcom_receive*, hcom_batchsendrecv*
 * (any case) under p2p, the rest under collective. */
static int
isp2p(const char *s, size_t n)
{
	static const char *const pre[] = { "hcom_send", "hcom_receive", "hcom_recv", "hcom_batchsendrecv" };

	for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
		size_t m = strlen(pre[i]);

		if (n >= m && strncasecmp(s, pre[i], m) == 0)
			return 1;
	}
	return 0;
}

/* ns as exact ms text. */
static struct cjval
nsms(struct buf *t, int64_t ns)
{
	char s[48];
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	int n = snprintf(s, sizeof s, "%s%llu.%06llu", ns < 0 ? "-" : "",
	    (unsigned long long)(a / 1000000), (unsigned long long)(a % 1000000));
	struct cjval v = { .kind = CJ_NUMBER };

	while (s[n - 1] == '0')
		n--;
	if (s[n - 1] == '.')
		n--;
	t->len = 0;
	buf_add(t, s, (size_t)n);
	buf_addc(t, '\0');
	v.s = t->p;
	v.n = (size_t)n;
	return v;
}

/* analysis.db's error (in table what, if not NULL) into d->err: -1. */
static int
aerr(struct dbread *d, sqlite3 *a, const char *what)
{
	snprintf(d->err, sizeof d->err, "analysis.db: %s%s%s", what ? what : "",
	    what ? ": " : "", sqlite3_errmsg(a));
	return -1;
}

static int
putanalysis(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	sqlite3 *a = openanalysis(d);
	sqlite3_stmt *st = NULL;
	struct buf arena = {0}, b = {0};
	struct aval f[A_TYPE + 1];
	struct aval (*tv)[4] = NULL;
	struct cjtransport *tr = NULL;
	int ntr, r, ret = 0;

	if (a == NULL) {
		snprintf(d->err, sizeof d->err, "analysis.db: cannot open (changed while read?)");
		return -1;
	}
	analysisq(a, &d->sc, 0);
	if (sqlite3_prepare_v2(a, d->sc.p, -1, &st, NULL) != SQLITE_OK) {
		aerr(d, a, NULL);
		sqlite3_close(a);
		return -1;
	}
	r = sqlite3_step(st);
	while (r == SQLITE_ROW) {
		int64_t rowid = sqlite3_column_int64(st, 0), ns;
		struct cjrec c = {0};
		char src[64], wr[16], sr[16];
		double w, t, s;

		arena.len = 0;
		ntr = 0;
		for (int i = A_OP; i <= A_TYPE; i++)
			if (i == A_OP || i == A_GROUP || i == A_STEP || i == A_TYPE)
				gettext_(st, i, &arena, &f[i]);
			else
				getval(st, i, &arena, &f[i]);
		c.has_start = sqlite3_column_type(st, A_START) == SQLITE_INTEGER ||
		    sqlite3_column_type(st, A_START) == SQLITE_FLOAT;
		if (c.has_start && sqlite3_column_type(st, A_START) == SQLITE_INTEGER)
			ns = sqlite3_column_int64(st, A_START) * 1000;
		else if (c.has_start && cj_us2ns(sqlite3_column_double(st, A_START), &ns) != 0)
			c.has_start = 0;
		c.start_ns = c.has_start ? ns - origin : 0;
		/* Ratios as torch_npu computes them, when both parts are there. */
		w = sqlite3_column_double(st, A_WAIT);
		t = sqlite3_column_double(st, A_TRANSIT);
		s = sqlite3_column_double(st, A_SYNC);
		wr[0] = sr[0] = '\0';
		if (f[A_WAIT].kind == CJ_NUMBER && f[A_TRANSIT].kind == CJ_NUMBER)
			cj_ratio(w, t, wr, sizeof wr);
		if (f[A_SYNC].kind == CJ_NUMBER && f[A_TRANSIT].kind == CJ_NUMBER)
			cj_ratio(s, t, sr, sizeof sr);
		do {
			const char *tn = (const char *)sqlite3_column_text(st, A_TRANSPORT);
			size_t tl = (size_t)sqlite3_column_bytes(st, A_TRANSPORT);
			int seen = tn == NULL;

			for (int i = 0; i < ntr && !seen; i++)
				seen = tv[i][0].n == tl && memcmp(arena.p + tv[i][0].off, tn, tl) == 0;
			if (!seen) {
				tv = xreallocarray(tv, (size_t)ntr + 1, sizeof *tv);
				gettext_(st, A_TRANSPORT, &arena, &tv[ntr][0]);
				for (int i = 1; i < 4; i++)
					getval(st, A_TRANSPORT + i, &arena, &tv[ntr][i]);
				ntr++;
			}
			r = sqlite3_step(st);
		} while (r == SQLITE_ROW && sqlite3_column_int64(st, 0) == rowid);
		/* The arena is complete: its pointers hold from here. */
		tr = xreallocarray(tr, (size_t)ntr + 1, sizeof *tr);
		for (int i = 0; i < ntr; i++) {
			tr[i].name = arena.p + tv[i][0].off;
			tr[i].namelen = tv[i][0].n;
			tr[i].isobj = 1;
			tr[i].size_mb = cjv(&arena, &tv[i][1]);
			tr[i].time_ms = cjv(&arena, &tv[i][2]);
			tr[i].bandwidth_gbps = cjv(&arena, &tv[i][3]);
		}
		c.op = arena.p + f[A_OP].off;
		c.oplen = f[A_OP].n;
		if (f[A_GROUP].kind != CJ_NULL) {
			c.group = arena.p + f[A_GROUP].off;
			c.grouplen = f[A_GROUP].n;
		}
		if (f[A_STEP].kind != CJ_NULL)
			c.step = cj_step(arena.p + f[A_STEP].off, f[A_STEP].n, &c.steplen);
		if (f[A_TYPE].kind != CJ_NULL && f[A_TYPE].n) {
			c.kind = arena.p + f[A_TYPE].off;
			c.kindlen = f[A_TYPE].n;
		} else {
			c.kind = isp2p(c.op, c.oplen) ? "p2p" : "collective";
			c.kindlen = strlen(c.kind);
		}
		c.elapse_ms = cjv(&arena, &f[A_ELAPSE]);
		c.transit_ms = cjv(&arena, &f[A_TRANSIT]);
		c.wait_ms = cjv(&arena, &f[A_WAIT]);
		c.sync_ms = cjv(&arena, &f[A_SYNC]);
		c.idle_ms = cjv(&arena, &f[A_IDLE]);
		c.wait_ratio.kind = wr[0] ? CJ_NUMBER : CJ_NULL;
		c.wait_ratio.s = wr;
		c.wait_ratio.n = strlen(wr);
		c.sync_ratio.kind = sr[0] ? CJ_NUMBER : CJ_NULL;
		c.sync_ratio.s = sr;
		c.sync_ratio.n = strlen(sr);
		c.ntransport = ntr;
		c.transport = tr;
		snprintf(src, sizeof src, "analysis.db:CommAnalyzerTime:%lld", (long long)rowid);
		cj_putrec(&b, profile, src, &c);
		if (fwrite(b.p, 1, b.len, fp) != b.len) {
			snprintf(d->err, sizeof d->err, "write error");
			ret = -1;
			break;
		}
	}
	if (ret == 0 && r != SQLITE_DONE)
		ret = aerr(d, a, NULL);
	sqlite3_finalize(st);
	sqlite3_close(a);
	buf_free(&arena);
	buf_free(&b);
	free(tv);
	free(tr);
	return ret;
}

/* COMMUNICATION_OP: what the profile database itself says of each op. */
static int
putcommop(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	const char *gc = dbi_anycol(d, T_COMM, "groupName", NULL);
	int cw = dbi_hascol(d, T_COMM, "waitNs");
	struct buf *q = &d->sc, b = {0}, el = {0}, wt = {0};
	size_t rg = 0;		/* step range cursor */
	sqlite3_stmt *st;
	int r;

	q->len = 0;
	dbi_commsel(q, gc, cw);
	buf_adds(q, " ORDER BY s, c.rowid");
	if ((st = dbi_prep(d, q->p)) == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
		struct cjrec c = { .has_start = 1, .start_ns = s - origin,
		    .transit_ms.kind = CJ_NULL, .sync_ms.kind = CJ_NULL, .idle_ms.kind = CJ_NULL,
		    .wait_ratio.kind = CJ_NULL, .sync_ratio.kind = CJ_NULL, .wait_ms.kind = CJ_NULL };
		const char *v;
		size_t n;
		int hasg;

		/* Copies: the next string id may evict this one from the cache. */
		b.len = 0;
		if (dbi_coltext(d, st, 3, &v, &n) == 0)
			buf_add(&b, v, n);
		c.oplen = b.len;
		hasg = dbi_coltext(d, st, 4, &v, &n) == 0;
		if (hasg)
			buf_add(&b, v, n);
		buf_addc(&b, '\0');
		c.op = b.p;
		if (hasg) {
			c.group = b.p + c.oplen;
			c.grouplen = b.len - 1 - c.oplen;
		}
		if ((c.step = dbi_stepof(d, &rg, s)) != NULL)
			c.steplen = strlen(c.step);
		c.kind = isp2p(c.op, c.oplen) ? "p2p" : "collective";
		c.kindlen = strlen(c.kind);
		c.elapse_ms = nsms(&el, e - s);
		if (cw && sqlite3_column_type(st, 5) == SQLITE_INTEGER)
			c.wait_ms = nsms(&wt, sqlite3_column_int64(st, 5));
		cj_putrec(&d->ob, profile, dbi_qstr(d, "%s:%s:%lld", d->disp, dbi_tabname[T_COMM],
		    (long long)sqlite3_column_int64(st, 0)), &c);
		if (fwrite(d->ob.p, 1, d->ob.len, fp) != d->ob.len) {
			snprintf(d->err, sizeof d->err, "write error");
			break;
		}
	}
	sqlite3_finalize(st);
	buf_free(&b);
	buf_free(&el);
	buf_free(&wt);
	if (r != SQLITE_DONE && r != SQLITE_ROW)
		return dbi_sqlerr(d, "COMMUNICATION_OP");
	return r == SQLITE_ROW ? -1 : 0;
}

/* A text column as a JSON string, or null. */
static void
putcoltext(struct buf *b, const char *key, sqlite3_stmt *st, int i)
{
	const char *s = (const char *)sqlite3_column_text(st, i);

	if (s == NULL)
		out_null(b, key);
	else
		out_str(b, key, s, (size_t)sqlite3_column_bytes(st, i));
}

/* A number column as a JSON number, or null. */
static void
putcolnum(struct buf *b, const char *key, sqlite3_stmt *st, int i)
{
	char t[40];

	if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		out_i64(b, key, sqlite3_column_int64(st, i));
	else if (sqlite3_column_type(st, i) == SQLITE_FLOAT && isfinite(sqlite3_column_double(st, i))) {
		snprintf(t, sizeof t, "%.17g", sqlite3_column_double(st, i));
		out_key(b, key);
		buf_adds(b, t);
	} else
		out_null(b, key);
}

/*
 * analysis.db's CommAnalyzerMatrix: the links of communication_matrix.json
 * (one row per op class, group and src-dst link), as comm_link records
 * of the same fields.  Absent table or columns: nothing.
 */
static int
putmatrix(struct dbread *d, FILE *fp, const char *profile)
{
	static const char *const col[] = { "hccl_op_name", "group_name", "src_rank", "dst_rank",
		"transport_type", "transit_size", "transit_time", "bandwidth", "step", "type", "op_name" };
	sqlite3 *a = openanalysis(d);
	sqlite3_stmt *st = NULL;
	struct buf q = {0}, b = {0};
	int r, ret = 0;

	if (a == NULL)
		return 0;
	for (size_t i = 0; i < sizeof col / sizeof col[0]; i++)
		if (!ahascol(a, "CommAnalyzerMatrix", col[i])) {
			sqlite3_close(a);
			return 0;
		}
	buf_adds(&q, "SELECT rowid");
	for (size_t i = 0; i < sizeof col / sizeof col[0]; i++) {
		buf_adds(&q, ", ");
		buf_adds(&q, col[i]);
	}
	buf_adds(&q, " FROM CommAnalyzerMatrix ORDER BY rowid");
	if (sqlite3_prepare_v2(a, q.p, -1, &st, NULL) != SQLITE_OK)
		ret = aerr(d, a, "CommAnalyzerMatrix");
	while (ret == 0 && (r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *step = (const char *)sqlite3_column_text(st, 9);
		const char *s = (const char *)sqlite3_column_text(st, 3), *t = (const char *)sqlite3_column_text(st, 4);
		char src[64];

		b.len = 0;
		out_begin(&b, "comm_link");
		out_cstr(&b, "profile", profile);
		snprintf(src, sizeof src, "analysis.db:CommAnalyzerMatrix:%lld", (long long)sqlite3_column_int64(st, 0));
		out_cstr(&b, "src", src);
		if (step && strncmp(step, "step", 4) == 0 && step[4])
			out_cstr(&b, "step", step + 4);
		else
			out_null(&b, "step");
		putcoltext(&b, "kind", st, 10);
		putcoltext(&b, "op_class", st, 1);
		putcoltext(&b, "group", st, 2);
		if (s && t) {
			struct buf l = {0};

			buf_adds(&l, s);
			buf_addc(&l, '-');
			buf_adds(&l, t);
			out_str(&b, "link", l.p, l.len);
			buf_free(&l);
		} else
			out_null(&b, "link");
		putcoltext(&b, "src_rank", st, 3);
		putcoltext(&b, "dst_rank", st, 4);
		putcoltext(&b, "transport", st, 5);
		putcolnum(&b, "size_mb", st, 6);
		putcolnum(&b, "time_ms", st, 7);
		putcolnum(&b, "bandwidth_gbps", st, 8);
		putcoltext(&b, "op", st, 11);
		rec_put(&b, fp);
	}
	if (ret == 0 && r != SQLITE_DONE)
		ret = aerr(d, a, "CommAnalyzerMatrix");
	sqlite3_finalize(st);
	sqlite3_close(a);
	buf_free(&q);
	buf_free(&b);
	return ret;
}

int
db_put_comm(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	if (d->c.comm_records == 0)
		return 0;
	if (d->c.comm_analysis)
		return putanalysis(d, fp, profile, origin) != 0 ? -1 : putmatrix(d, fp, profile);
	return putcommop(d, fp, profile, origin);
}

