/* dbread: the helpers its parts share (dbread_int.h): statements and
 * errors, the schema's columns, SQL text, text columns through STRING_IDS,
 * numbers and the records' "src".  A leaf: the parts call these, and
 * these call no part. */
#include <sys/stat.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dbread_int.h"
#include "rec_out.h"

const char *const dbi_tabname[T_NTAB] = {
	"TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP", "PYTORCH_API",
	"CANN_API", "TASK_PMU_INFO", "CONNECTION_IDS", "PYTORCH_CALLCHAINS",
	"STEP_TIME", "RANK_DEVICE_MAP", "META_DATA"
};

/* ---------- small helpers ---------- */

int
dbi_sqlerr(struct dbread *d, const char *what)
{
	int c = sqlite3_errcode(d->db) & 0xff;

	snprintf(d->err, sizeof d->err, "%s: %s%s%s%s", d->path, what ? what : "",
	    what ? ": " : "", sqlite3_errmsg(d->db),
	    c == SQLITE_CORRUPT || c == SQLITE_NOTADB ? " (corrupt or truncated file)" : "");
	return -1;
}

sqlite3_stmt *
dbi_prep(struct dbread *d, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		dbi_sqlerr(d, NULL);
		return NULL;
	}
	return st;
}

/*
 * A record by put for each row of sql, into d->ob and then fp; the
 * statement is finalized after.  0, or -1 with the error (of table what).
 */
int
dbi_put_rows(struct dbread *d, const char *sql, const char *what,
    const struct dbi_put *a, dbi_rowput *put)
{
	sqlite3_stmt *st;
	int r;

	if ((st = dbi_prep(d, sql)) == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		d->ob.len = 0;
		put(d, &d->ob, st, a);
		rec_put(&d->ob, a->fp);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return dbi_sqlerr(d, what);
	return 0;
}

/* Run a query whose first row's first column is an integer. */
int
dbi_qint(struct dbread *d, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = dbi_prep(d, sql);
	int r;

	if (st == NULL)
		return -1;
	r = sqlite3_step(st);
	if (r == SQLITE_ROW) {
		*v = sqlite3_column_type(st, 0) == SQLITE_NULL ? INT64_MAX :
		    sqlite3_column_int64(st, 0);
		r = 0;
	} else if (r == SQLITE_DONE) {
		*v = INT64_MAX;
		r = 0;
	} else
		r = dbi_sqlerr(d, NULL);
	sqlite3_finalize(st);
	return r;
}

int
dbi_hascol(const struct dbread *d, int t, const char *col)
{
	if (!d->has[t] || d->cols[t] == NULL)
		return 0;
	for (char **c = d->cols[t]; *c; c++)
		if (strcmp(*c, col) == 0)
			return 1;
	return 0;
}

/* Does column col of table t have INTEGER affinity? */
int
dbi_intcol(const struct dbread *d, int t, const char *col)
{
	if (!d->has[t] || d->cols[t] == NULL)
		return 0;
	for (int i = 0; d->cols[t][i]; i++)
		if (strcmp(d->cols[t][i], col) == 0)
			return d->cint[t][i];
	return 0;
}

/* The first of the spellings that table t has, or NULL. */
const char *
dbi_anycol(const struct dbread *d, int t, const char *a, const char *b)
{
	if (dbi_hascol(d, t, a))
		return a;
	if (b && dbi_hascol(d, t, b))
		return b;
	return NULL;
}

/* SQL for a time column: integers as they are, other kinds through
 * asc_ns() (exact decimal parsing), NULL when not a time.  A negative
 * time is not one (INT64_MIN would overflow every difference). */
void
dbi_tx(struct buf *b, const char *col)
{
	char t[384];

	snprintf(t, sizeof t, "(CASE WHEN typeof(%s)='integer' AND %s >= 0 THEN %s "
	    "ELSE asc_ns(%s) END)", col, col, col, col);
	buf_adds(b, t);
}

/* A row's two times, PRE.startNs SEP PRE.endNs (the bare columns when
 * pre is NULL), each read by dbi_tx: what every query of rows selects. */
void
dbi_txspan(struct buf *b, const char *pre, const char *sep)
{
	char t[64];

	snprintf(t, sizeof t, "%s%sstartNs", pre ? pre : "", pre ? "." : "");
	dbi_tx(b, t);
	buf_adds(b, sep);
	snprintf(t, sizeof t, "%s%sendNs", pre ? pre : "", pre ? "." : "");
	dbi_tx(b, t);
}

/* A row's times are valid: PRE.endNs >= PRE.startNs, each read by dbi_tx. */
void
dbi_txvalid(struct buf *b, const char *pre)
{
	char t[64];

	snprintf(t, sizeof t, "%s.endNs", pre);
	dbi_tx(b, t);
	buf_adds(b, " >= ");
	snprintf(t, sizeof t, "%s.startNs", pre);
	dbi_tx(b, t);
}

/*
 * The valid rows of COMMUNICATION_OP c: rowid, start (AS s), end, opName,
 * the column col (NULL when missing) and waitNs when wait, up to WHERE's
 * condition; the caller adds more and the order.
 */
void
dbi_commsel(struct buf *b, const char *col, int wait)
{
	buf_adds(b, "SELECT c.rowid, ");
	dbi_txspan(b, "c", " AS s, ");
	dbi_selcol(b, "c", "opName");
	dbi_selcol(b, "c", col);
	dbi_selcol(b, "c", wait ? "waitNs" : NULL);
	buf_adds(b, " FROM COMMUNICATION_OP c WHERE ");
	dbi_txvalid(b, "c");
}

/* printf into d->q: SQL text. */
const char *
dbi_qstr(struct dbread *d, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	d->q.len = 0;
	buf_grow(&d->q, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(d->q.p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	d->q.len = (size_t)n;
	return d->q.p;
}

/* ", alias.col", or ", NULL" when there is no such column. */
void
dbi_selcol(struct buf *b, const char *alias, const char *col)
{
	buf_adds(b, ", ");
	if (col) {
		buf_adds(b, alias);
		buf_addc(b, '.');
		buf_adds(b, col);
	} else
		buf_adds(b, "NULL");
}

/* ---------- strings ---------- */

/* STRING_IDS value of id (cached).  0, or -1 when there is none. */
static int
strid(struct dbread *d, int64_t id, const char **s, size_t *n)
{
	struct scache *e = &d->cache[(uint64_t)id * 0x9E3779B97F4A7C15ULL >> 51];
	int r;

	if (e->used && e->id == id) {
		if (e->s == NULL)
			return -1;
		*s = e->s;
		*n = e->n;
		return 0;
	}
	sqlite3_reset(d->strq);
	sqlite3_bind_int64(d->strq, 1, id);
	free(e->s);
	e->s = NULL;
	e->used = 1;
	e->id = id;
	r = sqlite3_step(d->strq);
	if (r == SQLITE_ROW && sqlite3_column_type(d->strq, 0) != SQLITE_NULL) {
		const char *t = (const char *)sqlite3_column_text(d->strq, 0);

		e->n = (size_t)sqlite3_column_bytes(d->strq, 0);
		e->s = xstrndup(t ? t : "", e->n);
	} else if (r != SQLITE_ROW && r != SQLITE_DONE)
		return dbi_sqlerr(d, "STRING_IDS"), e->used = 0, -1;
	sqlite3_reset(d->strq);
	if (e->s == NULL)
		return -1;
	*s = e->s;
	*n = e->n;
	return 0;
}

/* A text column: a STRING_IDS id, or the text itself.  0, or -1 (null). */
int
dbi_coltext(struct dbread *d, sqlite3_stmt *st, int i, const char **s, size_t *n)
{
	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		return strid(d, sqlite3_column_int64(st, i), s, n);
	case SQLITE_TEXT:
		*s = (const char *)sqlite3_column_text(st, i);
		*n = (size_t)sqlite3_column_bytes(st, i);
		return 0;
	default:
		return -1;
	}
}

/* Integer field: NULL and 4294967295 (invalid) are null. */
void
dbi_put_int(struct buf *b, const char *key, sqlite3_stmt *st, int i)
{
	int64_t v;

	if (i < 0 || sqlite3_column_type(st, i) != SQLITE_INTEGER ||
	    (v = sqlite3_column_int64(st, i)) == INVALID32)
		out_null(b, key);
	else
		out_i64(b, key, v);
}

/* A number value exactly as JSON text: integers as digits, reals in the
 * shortest form that reads back the same. */
int
dbi_numtext(sqlite3_stmt *st, int i, char *t, size_t nt)
{
	if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		return snprintf(t, nt, "%lld", (long long)sqlite3_column_int64(st, i));
	if (sqlite3_column_type(st, i) == SQLITE_FLOAT) {
		double v = sqlite3_column_double(st, i);
		int64_t m;

		if (v != v || v - v != 0)
			return -1;
		/* Fast path: at most 6 decimals read back exactly (below 1e9 a
		 * double tells such decimals apart, so this is the shortest). */
		if (v > -1e9 && v < 1e9 && (double)(m = llround(v * 1e6)) / 1e6 == v) {
			int64_t a = m < 0 ? -m : m, f = a % 1000000;
			int n = snprintf(t, nt, "%s%lld", m < 0 ? "-" : "", (long long)(a / 1000000));

			if (f) {
				int w = 6;

				while (f % 10 == 0)
					f /= 10, w--;
				n += snprintf(t + n, nt - (size_t)n, ".%0*lld", w, (long long)f);
			}
			return n;
		}
		for (int p = 15; p <= 17; p++) {
			snprintf(t, nt, "%.*g", p, v);
			if (strtod(t, NULL) == v)
				break;
		}
		/* "1e+20" is JSON; "inf" was excluded above. */
		return (int)strlen(t);
	}
	return -1;
}

/* Percent-encode what a file: URI path cannot hold as is. */
char *
dbi_fileuri(const char *path)
{
	struct buf b = {0};

	buf_adds(&b, "file:");
	for (const char *p = path; *p; p++) {
		if (*p == '%' || *p == '?' || *p == '#') {
			char t[4];

			snprintf(t, sizeof t, "%%%02X", (unsigned char)*p);
			buf_adds(&b, t);
		} else
			buf_addc(&b, *p);
	}
	buf_adds(&b, "?immutable=1");
	return b.p;
}

/* The start of every record of a table: "src" is FILE:TABLE:rowid. */
void
dbi_srcprefix(struct dbread *d, struct buf *pre, const char *type, const char *profile, int table)
{
	d->sc.len = 0;
	buf_adds(&d->sc, d->disp);
	buf_addc(&d->sc, ':');
	buf_adds(&d->sc, dbi_tabname[table]);
	buf_addc(&d->sc, ':');
	rec_out_prefix(pre, type, profile, d->sc.p, d->sc.len);
}

/* A record's "src" for one row: FILE:TABLE:rowid. */
void
dbi_putsrc(struct dbread *d, struct buf *b, const char *table, long long rowid)
{
	char t[64];

	snprintf(t, sizeof t, ":%s:%lld", table, rowid);
	d->sc.len = 0;
	buf_adds(&d->sc, d->disp);
	buf_adds(&d->sc, t);
	buf_addc(&d->sc, '\0');
	out_cstr(b, "src", d->sc.p);
}

/* ---------- analysis.db ---------- */

/* analysis.db beside the database (caller frees), or NULL if none. */
char *
dbi_analysispath(struct dbread *d)
{
	char *dir = xstrdup(d->path), *sl = strrchr(dir, '/'), *path;
	struct stat sb;

	if (sl)
		*sl = '\0';
	else
		strcpy(dir, ".");
	path = xmalloc(strlen(dir) + 16);
	sprintf(path, "%s/analysis.db", dir);
	free(dir);
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		free(path);
		return NULL;
	}
	d->c.an_found = 1;
	return path;
}
