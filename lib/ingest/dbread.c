/* dbread: the SQLite export of the Ascend profilers as NDJSON records. */
#define _GNU_SOURCE		/* memrchr */
#include <sys/stat.h>

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "commjson.h"
#include "dbread.h"
#include "dec.h"
#include "nest.h"
#include "rec.h"
#include "rec_out.h"
#include "rules.h"
#include "trace.h"
#include "util.h"

#define NCACHE		8192		/* string-id cache slots */
#define INVALID32	4294967295LL	/* "invalid" in the DB, as in the CSVs */

/* Tables we read, and the columns that decide what we can write. */
enum { T_TASK, T_CTI, T_COMM, T_PY, T_CANN, T_PMU, T_CONN, T_CHAIN, T_STEP,
	T_RANKDEV, T_META, T_NTAB };
static const char *const tabname[T_NTAB] = {
	"TASK", "COMPUTE_TASK_INFO", "COMMUNICATION_OP", "PYTORCH_API",
	"CANN_API", "TASK_PMU_INFO", "CONNECTION_IDS", "PYTORCH_CALLCHAINS",
	"STEP_TIME", "RANK_DEVICE_MAP", "META_DATA"
};
/* Columns a table must have to be used at all. */
static const char *const needcols[T_NTAB][7] = {
	[T_TASK] = { "startNs", "endNs", "deviceId", "globalTaskId", NULL },
	[T_CTI] = { "globalTaskId", "name", NULL },
	[T_COMM] = { "opName", "startNs", "endNs", NULL },
	[T_PY] = { "startNs", "endNs", "globalTid", "name", NULL },
	[T_CANN] = { "startNs", "endNs", "globalTid", "name", NULL },
	[T_PMU] = { "globalTaskId", "name", "value", NULL },
	[T_CONN] = { "id", "connectionId", NULL },
	[T_CHAIN] = { "id", "stack", "stackDepth", NULL },
	[T_STEP] = { "id", "startNs", "endNs", NULL },
	[T_RANKDEV] = { "deviceId", NULL },
	[T_META] = { "name", "value", NULL },
};

struct scache {
	int64_t		 id;
	char		*s;
	size_t		 n;
	int		 used;
};

struct dmark {
	int64_t		 start, dur, pid, tid, rowid;
	char		*name;
	size_t		 kind;		/* length of the name before '#' */
	int		 from_step;	/* from STEP_TIME, not PYTORCH_API */
};

struct srange {
	int64_t		 start, end, rowid;
	char		*step;
};

struct dwarn {
	char		*code, *msg;
};

struct dbread {
	sqlite3		*db;
	char		*path, *disp, *pattern, *python;
	size_t		 npattern;
	void		(*bad)(void *, const char *);
	void		*arg;
	char		 err[1024];
	int		 has[T_NTAB];
	char		**cols[T_NTAB];	/* column names, NULL-terminated */
	int		*cint[T_NTAB];	/* column has INTEGER affinity */
	struct scache	*cache;
	sqlite3_stmt	*strq;
	struct db_counts c;
	int64_t		 minkern, minhost;
	int64_t		*dev;
	int		 ndev;
	int64_t		 commdev, hostdev;
	struct dmark	*mk;
	size_t		 nmk;
	struct srange	*rg;
	size_t		 nrg;
	struct dwarn	*w;
	int		 nw;
	struct buf	 pmunames, ob, sc, q;
	int		 nopmu;		/* db_opts.nopmu */
};

/* ---------- small helpers ---------- */

static void
addwarn(struct dbread *d, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
addwarn(struct dbread *d, const char *code, const char *fmt, ...)
{
	va_list ap;
	char m[768];

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	d->w = xreallocarray(d->w, (size_t)d->nw + 1, sizeof *d->w);
	d->w[d->nw].code = xstrdup(code);
	d->w[d->nw].msg = xstrdup(m);
	d->nw++;
}

static int
sqlerr(struct dbread *d, const char *what)
{
	int c = sqlite3_errcode(d->db) & 0xff;

	snprintf(d->err, sizeof d->err, "%s: %s%s%s%s", d->path, what ? what : "",
	    what ? ": " : "", sqlite3_errmsg(d->db),
	    c == SQLITE_CORRUPT || c == SQLITE_NOTADB ? " (corrupt or truncated file)" : "");
	return -1;
}

static sqlite3_stmt *
prep(struct dbread *d, const char *sql)
{
	sqlite3_stmt *st = NULL;

	if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK) {
		sqlerr(d, NULL);
		return NULL;
	}
	return st;
}

/* Run a query whose first row's first column is an integer. */
static int
qint(struct dbread *d, const char *sql, int64_t *v)
{
	sqlite3_stmt *st = prep(d, sql);
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
		r = sqlerr(d, NULL);
	sqlite3_finalize(st);
	return r;
}

static int
hascol(const struct dbread *d, int t, const char *col)
{
	if (!d->has[t] || d->cols[t] == NULL)
		return 0;
	for (char **c = d->cols[t]; *c; c++)
		if (strcmp(*c, col) == 0)
			return 1;
	return 0;
}

/* Does column col of table t have INTEGER affinity? */
static int
intcol(const struct dbread *d, int t, const char *col)
{
	if (!d->has[t] || d->cols[t] == NULL)
		return 0;
	for (int i = 0; d->cols[t][i]; i++)
		if (strcmp(d->cols[t][i], col) == 0)
			return d->cint[t][i];
	return 0;
}

/* The first of the spellings that table t has, or NULL. */
static const char *
anycol(const struct dbread *d, int t, const char *a, const char *b)
{
	if (hascol(d, t, a))
		return a;
	if (b && hascol(d, t, b))
		return b;
	return NULL;
}

/* SQL for a time column: integers as they are, other kinds through
 * asc_ns() (exact decimal parsing), NULL when not a time.  A negative
 * time is not one (INT64_MIN would overflow every difference). */
static void
tx(struct buf *b, const char *col)
{
	char t[384];

	snprintf(t, sizeof t, "(CASE WHEN typeof(%s)='integer' AND %s >= 0 THEN %s "
	    "ELSE asc_ns(%s) END)", col, col, col, col);
	buf_adds(b, t);
}

static const char *
qstr(struct dbread *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* printf into d->q: SQL text. */
static const char *
qstr(struct dbread *d, const char *fmt, ...)
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

/* ---------- SQL functions ---------- */

/* asc_ns(x): x as exact integer ns, or NULL when it is not one. */
static void
fn_ns(sqlite3_context *cx, int argc, sqlite3_value **av)
{
	int64_t v;

	switch (sqlite3_value_type(av[0])) {
	case SQLITE_INTEGER:
		if (sqlite3_value_int64(av[0]) < 0)
			break;
		sqlite3_result_int64(cx, sqlite3_value_int64(av[0]));
		return;
	case SQLITE_TEXT: {
		const char *s = (const char *)sqlite3_value_text(av[0]);
		size_t n = (size_t)sqlite3_value_bytes(av[0]);

		if (s && !cell_isnull(s, n) && dec_parse(s, n, 0, &v) == 0 && v >= 0) {
			sqlite3_result_int64(cx, v);
			return;
		}
		break;
	}
	case SQLITE_FLOAT: {
		double f = sqlite3_value_double(av[0]);

		/* Exact only when integral and within 2^53. */
		if (f >= 0 && f < 9007199254740992.0 && f == (double)(int64_t)f) {
			sqlite3_result_int64(cx, (int64_t)f);
			return;
		}
		break;
	}
	}
	sqlite3_result_null(cx);
}

/* asc_userframe(x): 1 when the frame text is user code (trace_is_framework's rule). */
static void
fn_userframe(sqlite3_context *cx, int argc, sqlite3_value **av)
{
	const char *s = (const char *)sqlite3_value_text(av[0]);
	size_t n = s ? (size_t)sqlite3_value_bytes(av[0]) : 0;

	while (n && (s[0] == ' ' || s[0] == '\t'))
		s++, n--;
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
	    s[n - 1] == ';' || s[n - 1] == '\n'))
		n--;
	sqlite3_result_int(cx, n > 0 && !trace_is_framework(s, n));
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
		return sqlerr(d, "STRING_IDS"), e->used = 0, -1;
	sqlite3_reset(d->strq);
	if (e->s == NULL)
		return -1;
	*s = e->s;
	*n = e->n;
	return 0;
}

/* A text column: a STRING_IDS id, or the text itself.  0, or -1 (null). */
static int
coltext(struct dbread *d, sqlite3_stmt *st, int i, const char **s, size_t *n)
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
static void
put_int(struct buf *b, const char *key, sqlite3_stmt *st, int i)
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
static int
numtext(sqlite3_stmt *st, int i, char *t, size_t nt)
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

/* ---------- markers and steps ---------- */

static int
ismarker(const struct dbread *d, const char *s, size_t n, size_t *kind)
{
	const char *h = memrchr(s, '#', n);
	size_t k;

	if (h == NULL || h + 1 == s + n)
		return 0;
	for (const char *p = h + 1; p < s + n; p++)
		if (*p < '0' || *p > '9')
			return 0;
	k = (size_t)(h - s);
	if (trace_mkkind(s, k) >= 0 ||
	    (d->pattern && k == d->npattern && memcmp(s, d->pattern, k) == 0)) {
		*kind = k;
		return 1;
	}
	return 0;
}

static int
mkcmp(const void *a, const void *b)
{
	const struct dmark *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return x->rowid < y->rowid ? -1 : x->rowid > y->rowid;
}

static void
addmark(struct dbread *d, int64_t s, int64_t e, int64_t gtid, int64_t rowid,
    const char *name, size_t n, size_t kind, int from_step)
{
	struct dmark *m;

	d->mk = xreallocarray(d->mk, d->nmk + 1, sizeof *d->mk);
	m = &d->mk[d->nmk++];
	m->start = s;
	m->dur = e - s;
	m->pid = from_step ? 0 : (int64_t)((uint64_t)gtid >> 32);
	m->tid = from_step ? 0 : (int64_t)((uint64_t)gtid & 0xffffffffu);
	m->rowid = rowid;
	m->name = xstrndup(name, n);
	m->kind = kind;
	m->from_step = from_step;
}

/* Step markers: K#N rows of PYTORCH_API (K a kind of the rules, or the pattern), else
 * STEP_TIME; outermost of nested kept.  Few: kept in memory. */
static int
loadmarkers(struct dbread *d)
{
	const char *const *kinds = rules_list("steps.marker_kinds");
	sqlite3_stmt *st;
	int r;

	if (d->has[T_PY]) {
		d->sc.len = 0;
		buf_adds(&d->sc, "SELECT p.rowid, ");
		tx(&d->sc, "p.startNs");
		buf_adds(&d->sc, ", ");
		tx(&d->sc, "p.endNs");
		buf_adds(&d->sc, ", p.globalTid, p.name FROM PYTORCH_API p WHERE p.name IN "
		    "(SELECT id FROM STRING_IDS WHERE "
		    "(?1 IS NOT NULL AND substr(value, 1, length(?1) + 1) = ?1 || '#')");
		/* The rules' marker kinds as ?2...; ismarker() checks the digits. */
		for (int i = 0; kinds[i]; i++) {
			char c[96];

			snprintf(c, sizeof c, " OR substr(value, 1, length(?%d) + 1) = ?%d || '#'",
			    i + 2, i + 2);
			buf_adds(&d->sc, c);
		}
		buf_addc(&d->sc, ')');
		if ((st = prep(d, d->sc.p)) == NULL)
			return -1;
		if (d->pattern)
			sqlite3_bind_text(st, 1, d->pattern, -1, SQLITE_STATIC);
		for (int i = 0; kinds[i]; i++)
			sqlite3_bind_text(st, i + 2, kinds[i], -1, SQLITE_STATIC);
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			const char *s;
			size_t n, kind;

			if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
			    sqlite3_column_type(st, 2) != SQLITE_INTEGER ||
			    sqlite3_column_int64(st, 2) < sqlite3_column_int64(st, 1))
				continue;	/* a bad row: reported by the scan */
			if (coltext(d, st, 4, &s, &n) != 0 || !ismarker(d, s, n, &kind))
				continue;
			addmark(d, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			    sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 0), s, n, kind, 0);
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return sqlerr(d, "PYTORCH_API");
	}
	if (d->has[T_STEP]) {
		d->sc.len = 0;
		buf_adds(&d->sc, "SELECT rowid, id, ");
		tx(&d->sc, "startNs");
		buf_adds(&d->sc, ", ");
		tx(&d->sc, "endNs");
		buf_adds(&d->sc, " FROM STEP_TIME ORDER BY 3, rowid");
		if ((st = prep(d, d->sc.p)) == NULL)
			return -1;
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			char t[48];
			int64_t s, e;

			if (sqlite3_column_type(st, 2) != SQLITE_INTEGER ||
			    sqlite3_column_type(st, 3) != SQLITE_INTEGER ||
			    (e = sqlite3_column_int64(st, 3)) < (s = sqlite3_column_int64(st, 2)) ||
			    sqlite3_column_type(st, 1) != SQLITE_INTEGER)
				continue;
			snprintf(t, sizeof t, "%lld", (long long)sqlite3_column_int64(st, 1));
			d->rg = xreallocarray(d->rg, d->nrg + 1, sizeof *d->rg);
			d->rg[d->nrg].start = s;
			d->rg[d->nrg].end = e;
			d->rg[d->nrg].rowid = sqlite3_column_int64(st, 0);
			d->rg[d->nrg].step = xstrdup(t);
			d->nrg++;
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return sqlerr(d, "STEP_TIME");
	}
	if (d->nmk == 0 && d->nrg) {
		for (size_t i = 0; i < d->nrg; i++) {
			char t[80];
			int n = snprintf(t, sizeof t, "ProfilerStep#%s", d->rg[i].step);

			addmark(d, d->rg[i].start, d->rg[i].end, 0, d->rg[i].rowid, t, (size_t)n, 12, 1);
		}
		addwarn(d, "markers_from_step_time", "%s: no ProfilerStep#N rows in PYTORCH_API; "
		    "%zu step markers taken from STEP_TIME (no thread: pid and tid 0)", d->disp, d->nrg);
	}
	if (d->nmk)
		qsort(d->mk, d->nmk, sizeof *d->mk, mkcmp);
	{
		size_t k = 0;
		unsigned long merged = 0;
		int64_t end = INT64_MIN;

		for (size_t i = 0; i < d->nmk; i++) {
			if (k && d->mk[i].start < end) {
				merged++;
				free(d->mk[i].name);
				continue;
			}
			d->mk[k++] = d->mk[i];
			end = d->mk[i].start + d->mk[i].dur;
		}
		d->nmk = k;
		if (merged)
			addwarn(d, "nested_markers", "%s: %lu nested or overlapping step markers "
			    "merged into their outermost marker", d->disp, merged);
	}
	/* Kernel steps: STEP_TIME, else the markers. */
	if (d->nrg == 0)
		for (size_t i = 0; i < d->nmk; i++) {
			d->rg = xreallocarray(d->rg, d->nrg + 1, sizeof *d->rg);
			d->rg[d->nrg].start = d->mk[i].start;
			d->rg[d->nrg].end = d->mk[i].start + d->mk[i].dur;
			d->rg[d->nrg].rowid = d->mk[i].rowid;
			d->rg[d->nrg].step = xstrdup(d->mk[i].name + d->mk[i].kind + 1);
			d->nrg++;
		}
	d->c.markers = d->nmk;
	d->c.has_steps = d->nrg > 0;
	return 0;
}

/* ---------- open and scan ---------- */

static int
loadcols(struct dbread *d, int t)
{
	sqlite3_stmt *st = prep(d, qstr(d, "PRAGMA table_info(\"%s\")", tabname[t]));
	int n = 0, r;

	if (st == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *c = (const char *)sqlite3_column_text(st, 1);

		const char *ty = (const char *)sqlite3_column_text(st, 2);

		d->cols[t] = xreallocarray(d->cols[t], (size_t)n + 2, sizeof *d->cols[t]);
		d->cint[t] = xreallocarray(d->cint[t], (size_t)n + 2, sizeof *d->cint[t]);
		d->cint[t][n] = ty && strcasestr(ty, "INT") != NULL;
		d->cols[t][n++] = xstrdup(c ? c : "");
		d->cols[t][n] = NULL;
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return sqlerr(d, tabname[t]);
	return 0;
}

/* Report rows of a table whose times are not usable; count them. */
static long
badrows(struct dbread *d, int t, const char *from, const char *pre)
{
	long nbad = 0;
	sqlite3_stmt *st;
	char s0[64], e0[64];
	int r;

	snprintf(s0, sizeof s0, "%s.startNs", pre);
	snprintf(e0, sizeof e0, "%s.endNs", pre);
	d->sc.len = 0;
	buf_adds(&d->sc, "SELECT ");
	buf_adds(&d->sc, pre);
	buf_adds(&d->sc, ".rowid, ");
	tx(&d->sc, s0);
	buf_adds(&d->sc, ", ");
	tx(&d->sc, e0);
	buf_adds(&d->sc, ", ");
	buf_adds(&d->sc, s0);
	buf_adds(&d->sc, ", ");
	buf_adds(&d->sc, e0);
	buf_adds(&d->sc, t == T_TASK ? ", t.deviceId" : ", NULL");
	buf_adds(&d->sc, " FROM ");
	buf_adds(&d->sc, from);
	buf_adds(&d->sc, " WHERE NOT coalesce(");
	tx(&d->sc, e0);
	buf_adds(&d->sc, " >= ");
	tx(&d->sc, s0);
	buf_adds(&d->sc, ", 0)");
	/* A text or missing deviceId matches no device (or a second one). */
	if (t == T_TASK)
		buf_adds(&d->sc, " OR typeof(t.deviceId) <> 'integer'");
	if ((st = prep(d, d->sc.p)) == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		char m[512];
		const char *v;
		int which = sqlite3_column_type(st, 1) == SQLITE_NULL ? 3 :
		    sqlite3_column_type(st, 2) == SQLITE_NULL ? 4 : 0;

		d->c.rejected++;
		nbad++;
		if (which) {
			v = (const char *)sqlite3_column_text(st, which);
			snprintf(m, sizeof m, "%s:%s:%lld: field \"%s\": not a time (integer ns, "
			    "not negative): '%.32s'",
			    d->disp, tabname[t], (long long)sqlite3_column_int64(st, 0),
			    which == 3 ? "startNs" : "endNs", v ? v : "NULL");
		} else if (sqlite3_column_int64(st, 2) >= sqlite3_column_int64(st, 1)) {
			static const char *ty[] = { "", "integer", "real", "text", "blob", "null" };

			v = (const char *)sqlite3_column_text(st, 5);
			snprintf(m, sizeof m, "%s:%s:%lld: field \"deviceId\": not an integer: %s '%.32s'",
			    d->disp, tabname[t], (long long)sqlite3_column_int64(st, 0),
			    ty[sqlite3_column_type(st, 5)], v ? v : "NULL");
		} else
			snprintf(m, sizeof m, "%s:%s:%lld: field \"endNs\": before \"startNs\"",
			    d->disp, tabname[t], (long long)sqlite3_column_int64(st, 0));
		if (d->bad)
			d->bad(d->arg, m);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return sqlerr(d, tabname[t]);
	return nbad;
}

/* count(*) and min(valid start) of a table or join; counts read rows. */
static int
countrows(struct dbread *d, const char *from, const char *pre, unsigned long *n, int64_t *mn)
{
	sqlite3_stmt *st;
	char s0[64], e0[64];
	int r;

	snprintf(s0, sizeof s0, "%s.startNs", pre);
	snprintf(e0, sizeof e0, "%s.endNs", pre);
	d->sc.len = 0;
	buf_adds(&d->sc, "SELECT count(*), min(CASE WHEN ");
	tx(&d->sc, e0);
	buf_adds(&d->sc, " >= ");
	tx(&d->sc, s0);
	buf_adds(&d->sc, " THEN ");
	tx(&d->sc, s0);
	buf_adds(&d->sc, " END) FROM ");
	buf_adds(&d->sc, from);
	if ((st = prep(d, d->sc.p)) == NULL)
		return -1;
	r = sqlite3_step(st);
	if (r != SQLITE_ROW) {
		sqlite3_finalize(st);
		return sqlerr(d, NULL);
	}
	*n = (unsigned long)sqlite3_column_int64(st, 0);
	d->c.read += *n;
	if (sqlite3_column_type(st, 1) == SQLITE_INTEGER && sqlite3_column_int64(st, 1) < *mn)
		*mn = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

static const char *kjoin = "TASK t CROSS JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";

static int
scan(struct dbread *d)
{
	int64_t v;
	unsigned long n;
	long nb;

	if (qint(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &v) != 0)
		return -1;
	if (v == 0 || v == INT64_MAX) {
		snprintf(d->err, sizeof d->err, "%s: empty database (no tables): not a profiler export", d->path);
		return -1;
	}
	if (qint(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'STRING_IDS'", &v) != 0)
		return -1;
	if (v != 1) {
		snprintf(d->err, sizeof d->err, "%s: no STRING_IDS table: names cannot be resolved "
		    "(not a profiler export, or a damaged one)", d->path);
		return -1;
	}
	if ((d->strq = prep(d, "SELECT value FROM STRING_IDS WHERE id = ?1")) == NULL)
		return -1;
	int absent[T_NTAB] = { 0 };

	for (int t = 0; t < T_NTAB; t++) {
		if (qint(d, qstr(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
		    tabname[t]), &v) != 0)
			return -1;
		absent[t] = v != 1;
		if (v != 1)
			continue;
		d->has[t] = 1;
		if (loadcols(d, t) != 0)
			return -1;
		for (int i = 0; needcols[t][i]; i++)
			if (!hascol(d, t, needcols[t][i])) {
				addwarn(d, "db_table_unusable", "%s: table %s has no column \"%s\" "
				    "(unknown schema); not read", d->disp, tabname[t], needcols[t][i]);
				d->has[t] = 0;
				break;
			}
	}
	if (d->has[T_META]) {
		sqlite3_stmt *st = prep(d, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'");
		int r;

		if (st == NULL)
			return -1;
		if ((r = sqlite3_step(st)) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(st, 0);

			if (s == NULL || strncmp(s, "1.", 2) != 0)
				addwarn(d, "db_schema_version", "%s: schema version %.32s is not one this "
				    "tool knows (1.x); read by table and column names", d->disp,
				    s ? s : "NULL");
		} else if (r != SQLITE_DONE) {
			sqlite3_finalize(st);
			return sqlerr(d, "META_DATA");
		}
		sqlite3_finalize(st);
	}
	/* An export with part of its tables: name what is missing. */
	for (int t = T_TASK; t <= T_CTI; t++)
		if (absent[t] && (!absent[T_TASK] || !absent[T_CTI] || d->has[T_COMM]))
			addwarn(d, "db_table_missing", "%s: no table %s: no compute kernels read",
			    d->disp, tabname[t]);
	if (absent[T_PY] && d->has[T_CANN])
		addwarn(d, "db_table_missing", "%s: no table PYTORCH_API: host events of CANN_API "
		    "only (no framework ops)", d->disp);
	if (!(d->has[T_TASK] && d->has[T_CTI]))
		d->has[T_TASK] = d->has[T_CTI] = d->has[T_PMU] = 0;
	if (d->has[T_CANN] && !hascol(d, T_CANN, "type"))
		addwarn(d, "db_table_unusable", "%s: CANN_API has no \"type\": names without their "
		    "AscendCL/Node/Hccl prefix", d->disp);
	d->c.has_kernels = d->has[T_TASK] || d->has[T_COMM];
	d->c.has_host = d->has[T_PY] || d->has[T_CANN];
	d->minkern = d->minhost = INT64_MAX;
	/* rows: count, report the unusable ones, smallest start */
	/* Counts are of records: bad rows are reported and skipped. */
	if (d->has[T_TASK]) {
		if (countrows(d, kjoin, "t", &n, &d->minkern) != 0 || (nb = badrows(d, T_TASK, kjoin, "t")) < 0)
			return -1;
		d->c.kernel = n - (unsigned long)nb;
	}
	if (d->has[T_COMM]) {
		if (countrows(d, "COMMUNICATION_OP c", "c", &n, &d->minkern) != 0 ||
		    (nb = badrows(d, T_COMM, "COMMUNICATION_OP c", "c")) < 0)
			return -1;
		d->c.comm = n - (unsigned long)nb;
	}
	if (d->has[T_PY]) {
		if (countrows(d, "PYTORCH_API p", "p", &n, &d->minhost) != 0 ||
		    (nb = badrows(d, T_PY, "PYTORCH_API p", "p")) < 0)
			return -1;
		d->c.host += n - (unsigned long)nb;
	}
	if (d->has[T_CANN]) {
		if (countrows(d, "CANN_API c", "c", &n, &d->minhost) != 0 ||
		    (nb = badrows(d, T_CANN, "CANN_API c", "c")) < 0)
			return -1;
		d->c.host += n - (unsigned long)nb;
	}
	/* Host rows that launched a kernel (the flows of the text timeline). */
	if (d->has[T_CANN] && hascol(d, T_CANN, "connectionId") &&
	    ((d->has[T_TASK] && hascol(d, T_TASK, "connectionId")) ||
	    (d->has[T_COMM] && hascol(d, T_COMM, "connectionId")))) {
		int tk = d->has[T_TASK] && hascol(d, T_TASK, "connectionId");
		int cm = d->has[T_COMM] && hascol(d, T_COMM, "connectionId");

		if (qint(d, qstr(d, "SELECT count(*) FROM CANN_API WHERE connectionId IN (%s%s%s)",
		    tk ? "SELECT connectionId FROM TASK" : "", tk && cm ? " UNION ALL " : "",
		    cm ? "SELECT connectionId FROM COMMUNICATION_OP" : ""), &v) != 0)
			return -1;
		d->c.host_linked += (unsigned long)v;
	}
	if (d->has[T_PY] && d->has[T_CONN] && hascol(d, T_PY, "connectionId") &&
	    (d->has[T_TASK] || d->has[T_COMM])) {
		int both = d->has[T_TASK] && d->has[T_COMM] && hascol(d, T_COMM, "connectionId");

		if (qint(d, qstr(d, "SELECT count(*) FROM PYTORCH_API WHERE connectionId IN "
		    "(SELECT id FROM CONNECTION_IDS WHERE connectionId IN (SELECT connectionId FROM %s%s))",
		    d->has[T_TASK] ? "TASK" : "COMMUNICATION_OP",
		    both ? " UNION ALL SELECT connectionId FROM COMMUNICATION_OP" : ""), &v) != 0)
			return -1;
		d->c.host_linked += (unsigned long)v;
	}
	if (d->has[T_PMU]) {
		sqlite3_stmt *st = prep(d, "SELECT s.value FROM (SELECT DISTINCT name FROM TASK_PMU_INFO) x "
		    "LEFT JOIN STRING_IDS s ON s.id = x.name ORDER BY x.name");
		int r;

		if (st == NULL)
			return -1;
		buf_addc(&d->pmunames, '[');
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(st, 0);

			if (s == NULL)
				continue;
			if (d->c.npmu++)
				buf_addc(&d->pmunames, ',');
			out_esc(&d->pmunames, s, (size_t)sqlite3_column_bytes(st, 0));
		}
		buf_addc(&d->pmunames, ']');
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return sqlerr(d, "TASK_PMU_INFO");
		d->c.has_pmu = d->c.npmu > 0;
	}
	d->c.has_shapes = hascol(d, T_CTI, "inputShapes");
	if (d->has[T_TASK] && hascol(d, T_CTI, "taskType")) {
		if (qint(d, qstr(d, "SELECT count(*) FROM %s WHERE c.taskType IS NULL OR c.taskType IN "
		    "(SELECT id FROM STRING_IDS WHERE value IN ('N/A', ''))", kjoin), &v) != 0)
			return -1;
		d->c.null_types = (unsigned long)v;
	} else
		d->c.null_types = d->c.kernel;
	if (d->has[T_PY] && d->has[T_CHAIN] && hascol(d, T_PY, "callchainId")) {
		if (qint(d, "SELECT 1 FROM PYTORCH_API WHERE callchainId IS NOT NULL LIMIT 1", &v) != 0)
			return -1;
		d->c.has_stacks = v == 1;
	}
	/* devices */
	if (d->has[T_TASK]) {
		sqlite3_stmt *st = prep(d, "SELECT DISTINCT deviceId FROM TASK WHERE typeof(deviceId) = 'integer' ORDER BY 1");
		int r;

		if (st == NULL)
			return -1;
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			d->dev = xreallocarray(d->dev, (size_t)d->ndev + 1, sizeof *d->dev);
			d->dev[d->ndev++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return sqlerr(d, "TASK");
	}
	d->hostdev = d->ndev ? d->dev[0] : 0;
	if (d->has[T_RANKDEV]) {
		if (qint(d, "SELECT deviceId FROM RANK_DEVICE_MAP ORDER BY rowid LIMIT 1", &v) != 0)
			return -1;
		if (v != INT64_MAX)
			d->hostdev = v;
	}
	d->commdev = d->hostdev;
	if (d->has[T_COMM] && d->c.comm && !hascol(d, T_COMM, "deviceId")) {
		int i;

		for (i = 0; i < d->ndev && d->dev[i] != d->commdev; i++)
			;
		if (i == d->ndev) {
			d->dev = xreallocarray(d->dev, (size_t)d->ndev + 1, sizeof *d->dev);
			d->dev[d->ndev++] = d->commdev;
			for (int j = d->ndev - 1; j > 0 && d->dev[j] < d->dev[j - 1]; j--) {
				int64_t x = d->dev[j];

				d->dev[j] = d->dev[j - 1];
				d->dev[j - 1] = x;
			}
		}
	} else if (d->has[T_COMM] && d->c.comm) {
		sqlite3_stmt *st = prep(d, "SELECT DISTINCT deviceId FROM COMMUNICATION_OP WHERE deviceId IS NOT NULL");
		int r;

		if (st == NULL)
			return -1;
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			int64_t x = sqlite3_column_int64(st, 0);
			int i;

			for (i = 0; i < d->ndev && d->dev[i] != x; i++)
				;
			if (i < d->ndev)
				continue;
			d->dev = xreallocarray(d->dev, (size_t)d->ndev + 1, sizeof *d->dev);
			d->dev[d->ndev++] = x;
			for (int j = d->ndev - 1; j > 0 && d->dev[j] < d->dev[j - 1]; j--) {
				int64_t y = d->dev[j];

				d->dev[j] = d->dev[j - 1];
				d->dev[j - 1] = y;
			}
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return sqlerr(d, "COMMUNICATION_OP");
	}
	return loadmarkers(d);
}

/* Percent-encode what a file: URI path cannot hold as is. */
static char *
fileuri(const char *path)
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
static void
srcprefix(struct dbread *d, struct buf *pre, const char *type, const char *profile, int table)
{
	d->sc.len = 0;
	buf_adds(&d->sc, d->disp);
	buf_addc(&d->sc, ':');
	buf_adds(&d->sc, tabname[table]);
	buf_addc(&d->sc, ':');
	rec_out_prefix(pre, type, profile, d->sc.p, d->sc.len);
}

struct dbread *
db_open(const char *path, const struct db_opts *o, char *err, size_t nerr)
{
	struct dbread *d = xcalloc(1, sizeof *d);
	struct stat sb;
	char *uri, *side;
	const char *sfx[] = { "-wal", "-journal", NULL };

	d->path = xstrdup(path);
	d->disp = xstrdup(o->display ? o->display : path);
	trace_rules();
	d->pattern = o->step_pattern ? xstrdup(o->step_pattern) : NULL;
	d->npattern = d->pattern ? strlen(d->pattern) : 0;
	d->python = xstrdup(o->python ? o->python : "Python");
	d->bad = o->bad;
	d->arg = o->arg;
	d->nopmu = o->nopmu;
	d->cache = xcalloc(NCACHE, sizeof *d->cache);
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		snprintf(err, nerr, "%s: not a readable file", path);
		db_close(d);
		return NULL;
	}
	/* immutable=1 ignores a writer: refuse a file that is being written. */
	for (int i = 0; sfx[i]; i++) {
		size_t n = strlen(path) + strlen(sfx[i]) + 1;

		side = xmalloc(n);
		snprintf(side, n, "%s%s", path, sfx[i]);
		if (stat(side, &sb) == 0 && sb.st_size > 0) {
			snprintf(err, nerr, "%s: database is locked or was not closed (%s exists); "
			    "wait for the writer to finish", path, basename(side));
			free(side);
			db_close(d);
			return NULL;
		}
		free(side);
	}
	uri = fileuri(path);
	if (sqlite3_open_v2(uri, &d->db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
		snprintf(err, nerr, "%s: %s", path, d->db ? sqlite3_errmsg(d->db) : "cannot open");
		free(uri);
		db_close(d);
		return NULL;
	}
	free(uri);
	sqlite3_extended_result_codes(d->db, 1);
	sqlite3_create_function(d->db, "asc_ns", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL, fn_ns, NULL, NULL);
	sqlite3_create_function(d->db, "asc_userframe", 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
	    fn_userframe, NULL, NULL);
	sqlite3_exec(d->db, "PRAGMA cache_size = -16384", NULL, NULL, NULL);
	/* Memory stays bounded whatever the database size: past this, SQLite
	 * frees cache pages and spills sorters and temporary tables. */
	sqlite3_soft_heap_limit64((sqlite3_int64)64 << 20);
	if (scan(d) != 0) {
		snprintf(err, nerr, "%s", d->err);
		db_close(d);
		return NULL;
	}
	return d;
}

const char *
db_err(const struct dbread *d)
{
	return d->err;
}

void
db_counts(const struct dbread *d, struct db_counts *c)
{
	*c = d->c;
}

int64_t
db_min_ts(const struct dbread *d, int *from_kernels)
{
	*from_kernels = d->minkern != INT64_MAX;
	return d->minkern != INT64_MAX ? d->minkern : d->minhost;
}

const char *
db_warning(const struct dbread *d, int i, const char **msg)
{
	if (i < 0 || i >= d->nw)
		return NULL;
	*msg = d->w[i].msg;
	return d->w[i].code;
}

const char *
db_pmu_names(const struct dbread *d)
{
	return d->pmunames.len ? d->pmunames.p : "[]";
}

/* ---------- writers ---------- */

int
db_put_markers(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct buf *b = &d->ob;

	for (size_t i = 0; i < d->nmk; i++) {
		const struct dmark *m = &d->mk[i];
		size_t n = strlen(m->name);
		char tmp[32];

		d->sc.len = 0;
		buf_adds(&d->sc, d->disp);
		buf_addc(&d->sc, ':');
		buf_adds(&d->sc, tabname[m->from_step ? T_STEP : T_PY]);
		snprintf(tmp, sizeof tmp, ":%lld", (long long)m->rowid);
		buf_adds(&d->sc, tmp);
		rec_out_marker(b, fp, profile, d->sc.p, d->sc.len, m->name, n, m->kind,
		    m->pid, m->tid, m->start - origin, m->dur);
	}
	return 0;
}

/* Kernel statement columns. */
enum { K_ROWID, K_S, K_E, K_STREAM, K_TASKID, K_MODEL, K_CTX, K_NAME, K_OPTYPE,
	K_TTYPE, K_OPSTATE, K_BLOCK, K_MIXBLOCK, K_HF32, K_SHAPES, K_WAIT = K_SHAPES + 6,
	K_PNAME, K_PVAL, K_NCOL };
enum { C_ROWID, C_S, C_E, C_NAME, C_OPTYPE, C_WAIT };

static const char *const shapecol[6] = {
	"inputShapes", "inputDataTypes", "inputFormats", "outputShapes",
	"outputDataTypes", "outputFormats"
};

struct kq {
	sqlite3_stmt	*k, *c;
	int		 kr, cr;	/* last step result */
	int		 has[K_NCOL];	/* which optional fields exist */
	int		 cwait;		/* COMMUNICATION_OP has waitNs */
	size_t		 rg;		/* step range cursor */
	struct buf	 pre[2];	/* record prefixes: TASK, COMMUNICATION_OP */
	struct buf	 a;		/* a row's texts, copied */
	struct kpmu	*pmu;
	size_t		 npmu, cpmu;
};

static void
selcol(struct buf *b, const char *alias, const char *col)
{
	buf_adds(b, ", ");
	if (col) {
		buf_adds(b, alias);
		buf_addc(b, '.');
		buf_adds(b, col);
	} else
		buf_adds(b, "NULL");
}

static const char *
stepof(struct dbread *d, struct kq *q, int64_t s)
{
	/* Kernels come in start order per device: the cursor moves forward,
	 * and back to the first range for the next device. */
	while (q->rg > 0 && s < d->rg[q->rg].start)
		q->rg--;
	while (q->rg + 1 < d->nrg && s >= d->rg[q->rg + 1].start)
		q->rg++;
	if (q->rg < d->nrg && s >= d->rg[q->rg].start && s <= d->rg[q->rg].end)
		return d->rg[q->rg].step;
	return NULL;
}

/*
 * The writer's fields from a row.  Texts are copied to q->a at once (the
 * next string id may evict one from the cache, the next step ends the
 * row's), by offset (in v, s NULL) until kpin() points them there.
 */
static void
kint(struct kval *f, sqlite3_stmt *st, int i)
{
	f->n = 0;
	if (i < 0 || sqlite3_column_type(st, i) != SQLITE_INTEGER ||
	    (f->v = sqlite3_column_int64(st, i)) == INVALID32)
		f->kind = KV_NULL;
	else
		f->kind = KV_INT;
}

static void
kcopy(struct kq *q, struct kval *f, int kind, const char *s, size_t n)
{
	f->kind = kind;
	f->s = NULL;
	f->n = n;
	f->v = (int64_t)q->a.len;
	buf_add(&q->a, s, n);
}

/* A text by the cell rule (kind KV_CELL or KV_SHAPE). */
static void
ktext(struct dbread *d, struct kq *q, struct kval *f, sqlite3_stmt *st, int i, int kind)
{
	const char *s;
	size_t n;

	if (i < 0 || coltext(d, st, i, &s, &n) != 0) {
		f->kind = KV_NULL;
		f->n = 0;
	} else
		kcopy(q, f, kind, s, n);
}

static void
kpin(struct kq *q, struct kout *k)
{
	struct kval *f[] = { &k->device, &k->stream, &k->step, &k->name, &k->op_type, &k->task_type };

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i]->kind >= KV_STR && f[i]->s == NULL)
			f[i]->s = q->a.p + f[i]->v;
	for (int i = 0; i < KS_N; i++)
		if (k->tail[i].kind >= KV_STR && k->tail[i].s == NULL)
			k->tail[i].s = q->a.p + k->tail[i].v;
	for (size_t i = 0; i < q->npmu; i++) {
		q->pmu[i].key = q->a.p + (size_t)q->pmu[i].key;
		q->pmu[i].s = q->a.p + (size_t)q->pmu[i].s;
	}
	k->pmu = q->pmu;
	k->npmu = (int)q->npmu;
}

/* The fields after the wait. */
static void
ktail(struct dbread *d, struct kq *q, struct kout *k, sqlite3_stmt *st, int comp)
{
	struct kval *t = k->tail;

	for (int i = KS_TASKID; i < KS_N; i++)
		t[i].kind = KV_ABSENT;
	kint(&t[KS_TASKID], st, comp ? K_TASKID : -1);
	if (q->has[K_MODEL])
		kint(&t[KS_MODEL], st, comp ? K_MODEL : -1);
	if (q->has[K_OPSTATE])
		ktext(d, q, &t[KS_OPSTATE], st, comp ? K_OPSTATE : -1, KV_CELL);
	if (q->has[K_BLOCK]) {
		kint(&t[KS_BLOCK], st, comp ? K_BLOCK : -1);
		if (!comp) {
			t[KS_BLOCK].kind = KV_INT;	/* as torch_npu writes HCCL rows */
			t[KS_BLOCK].v = 0;
		}
	}
	if (q->has[K_MIXBLOCK])
		kint(&t[KS_MIXBLOCK], st, comp ? K_MIXBLOCK : -1);
	if (q->has[K_HF32])
		ktext(d, q, &t[KS_HF32], st, comp ? K_HF32 : -1, KV_CELL);
	for (int i = 0; i < 6; i++)
		if (q->has[K_SHAPES + i])
			ktext(d, q, &t[KS_INSHAPES + i], st, comp ? K_SHAPES + i : -1, KV_SHAPE);
	if (q->has[K_CTX]) {
		if (comp && sqlite3_column_type(st, K_CTX) == SQLITE_INTEGER &&
		    sqlite3_column_int64(st, K_CTX) != INVALID32) {
			char c[32];
			int n = snprintf(c, sizeof c, "%lld", (long long)sqlite3_column_int64(st, K_CTX));

			kcopy(q, &t[KS_CONTEXT], KV_STR, c, (size_t)n);
		} else
			ktext(d, q, &t[KS_CONTEXT], st,
			    comp && sqlite3_column_type(st, K_CTX) == SQLITE_TEXT ? K_CTX : -1, KV_CELL);
	}
}

/* One device: merge compute tasks and communication ops by start. */
static int
putdev(struct dbread *d, FILE *fp, const char *profile, int64_t origin, int64_t dev,
    struct kq *q)
{
	struct buf *b = &d->ob;
	int64_t prev_end = INT64_MIN;
	int first = 1;

	if (q->k) {
		sqlite3_reset(q->k);
		sqlite3_bind_int64(q->k, 1, dev);
		q->kr = sqlite3_step(q->k);
	} else
		q->kr = SQLITE_DONE;
	if (q->c) {
		sqlite3_reset(q->c);
		sqlite3_bind_int64(q->c, 1, dev);
		q->cr = sqlite3_step(q->c);
	} else
		q->cr = SQLITE_DONE;
	q->rg = 0;
	for (;;) {
		int comp;
		sqlite3_stmt *st;
		int64_t s, e, rowid;
		const char *stp, *t;
		size_t n;
		struct kout k;

		if (q->kr != SQLITE_ROW && q->kr != SQLITE_DONE)
			return sqlerr(d, "TASK");
		if (q->cr != SQLITE_ROW && q->cr != SQLITE_DONE)
			return sqlerr(d, "COMMUNICATION_OP");
		if (q->kr == SQLITE_DONE && q->cr == SQLITE_DONE)
			break;
		/* ties: compute tasks first */
		comp = q->cr == SQLITE_DONE || (q->kr == SQLITE_ROW &&
		    sqlite3_column_int64(q->k, K_S) <= sqlite3_column_int64(q->c, C_S));
		st = comp ? q->k : q->c;
		s = sqlite3_column_int64(st, comp ? K_S : C_S);
		e = sqlite3_column_int64(st, comp ? K_E : C_E);
		rowid = sqlite3_column_int64(st, 0);
		q->a.len = 0;
		q->npmu = 0;
		k.pre = q->pre[!comp].p;
		k.npre = q->pre[!comp].len;
		k.srcn = rowid;
		k.overread = 0;
		k.bound = 0;
		k.device.kind = KV_INT;
		k.device.v = dev;
		k.device.n = 0;
		kint(&k.stream, st, comp ? K_STREAM : -1);
		stp = stepof(d, q, s);
		k.step.kind = stp ? KV_STR : KV_NULL;
		k.step.s = stp;
		k.step.n = stp ? strlen(stp) : 0;
		if (coltext(d, st, comp ? K_NAME : C_NAME, &t, &n) == 0)
			kcopy(q, &k.name, KV_STR, t, n);
		else
			kcopy(q, &k.name, KV_STR, "", 0);
		ktext(d, q, &k.op_type, st, comp ? K_OPTYPE : C_OPTYPE, KV_CELL);
		k.comm = !comp;
		ktext(d, q, &k.task_type, st, comp && q->has[K_TTYPE] ? K_TTYPE : -1, KV_CELL);
		k.start = s - origin;
		k.dur = e - s;
		{
			int wi = comp ? K_WAIT : C_WAIT;
			int hasw = comp ? q->has[K_WAIT] : q->cwait;

			k.tail[KS_WAIT].n = 0;
			if (hasw) {
				k.tail[KS_WAIT].kind = sqlite3_column_type(st, wi) == SQLITE_INTEGER ?
				    KV_INT : KV_NULL;
				k.tail[KS_WAIT].v = sqlite3_column_int64(st, wi);
			} else {
				/* kernel_details' Wait Time: gap to the previous task's end */
				k.tail[KS_WAIT].kind = KV_INT;
				k.tail[KS_WAIT].v = first ? 0 : s - prev_end > 0 ? s - prev_end : 0;
			}
		}
		first = 0;
		prev_end = e;
		ktail(d, q, &k, st, comp);
		if (comp) {
			/* PMU rows of this task follow as rows with the same rowid */
			for (;;) {
				if (q->has[K_PNAME] && sqlite3_column_type(st, K_PNAME) != SQLITE_NULL &&
				    coltext(d, st, K_PNAME, &t, &n) == 0) {
					char num[40];
					int m = numtext(st, K_PVAL, num, sizeof num);

					if (m > 0 || (sqlite3_column_type(st, K_PVAL) == SQLITE_TEXT &&
					    !cell_isnull((const char *)sqlite3_column_text(st, K_PVAL),
					    (size_t)sqlite3_column_bytes(st, K_PVAL)))) {
						struct kpmu *p;

						if (q->npmu == q->cpmu) {
							q->cpmu = q->cpmu ? 2 * q->cpmu : 16;
							q->pmu = xreallocarray(q->pmu, q->cpmu, sizeof *q->pmu);
						}
						p = &q->pmu[q->npmu++];
						/* offsets into q->a until kpin() */
						p->key = (const char *)q->a.len;
						out_esc(&q->a, t, n);
						buf_addc(&q->a, ':');
						p->nkey = q->a.len - (size_t)p->key;
						p->s = (const char *)q->a.len;
						p->num = m > 0;
						if (m > 0)
							buf_add(&q->a, num, (size_t)m);
						else
							buf_add(&q->a, (const char *)sqlite3_column_text(st, K_PVAL),
							    (size_t)sqlite3_column_bytes(st, K_PVAL));
						p->n = q->a.len - (size_t)p->s;
					}
				}
				q->kr = sqlite3_step(q->k);
				if (q->kr != SQLITE_ROW || !q->has[K_PNAME] ||
				    sqlite3_column_int64(q->k, K_ROWID) != rowid)
					break;
			}
		} else
			q->cr = sqlite3_step(q->c);
		kpin(q, &k);
		b->len = 0;
		rec_out_kernel(b, &k);
		if (fwrite_unlocked(b->p, 1, b->len, fp) != b->len)
			dieerr("stdout");
	}
	return 0;
}

int
db_put_kernels(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct kq q;
	struct buf *b = &d->sc;
	int r = 0;

	memset(&q, 0, sizeof q);
	if (d->has[T_TASK]) {
		const char *bl = anycol(d, T_CTI, "blockNum", "blockDim");
		const char *mb = anycol(d, T_CTI, "mixBlockNum", "mixBlockDim");
		const char *hf = anycol(d, T_CTI, "hf32Eligible", NULL);
		const char *os = anycol(d, T_CTI, "opState", NULL);
		const char *mo = anycol(d, T_TASK, "modelId", NULL);
		const char *cx = anycol(d, T_TASK, "contextId", NULL);
		const char *wt = anycol(d, T_CTI, "waitNs", NULL);
		const char *ot = anycol(d, T_CTI, "opType", NULL);
		const char *tt = anycol(d, T_CTI, "taskType", NULL);

		q.has[K_MODEL] = mo != NULL;
		q.has[K_CTX] = cx != NULL;
		q.has[K_OPSTATE] = os != NULL;
		q.has[K_BLOCK] = bl != NULL;
		q.has[K_MIXBLOCK] = mb != NULL;
		q.has[K_HF32] = hf != NULL;
		q.has[K_WAIT] = wt != NULL;
		q.has[K_TTYPE] = tt != NULL;
		q.has[K_PNAME] = d->c.has_pmu && !d->nopmu;
		b->len = 0;
		buf_adds(b, "SELECT t.rowid, ");
		tx(b, "t.startNs");
		buf_adds(b, " AS s, ");
		tx(b, "t.endNs");
		selcol(b, "t", anycol(d, T_TASK, "streamId", NULL));
		selcol(b, "t", anycol(d, T_TASK, "taskId", NULL));
		selcol(b, "t", mo);
		selcol(b, "t", cx);
		selcol(b, "c", "name");
		selcol(b, "c", ot);
		selcol(b, "c", tt);
		selcol(b, "c", os);
		selcol(b, "c", bl);
		selcol(b, "c", mb);
		selcol(b, "c", hf);
		for (int i = 0; i < 6; i++) {
			const char *sc = anycol(d, T_CTI, shapecol[i], NULL);

			q.has[K_SHAPES + i] = sc != NULL;
			selcol(b, "c", sc);
		}
		selcol(b, "c", wt);
		if (q.has[K_PNAME])
			buf_adds(b, ", p.name, p.value");
		else
			buf_adds(b, ", NULL, NULL");
		buf_adds(b, " FROM ");
		buf_adds(b, kjoin);
		if (q.has[K_PNAME])
			buf_adds(b, " LEFT JOIN TASK_PMU_INFO p ON p.globalTaskId = t.globalTaskId");
		buf_adds(b, " WHERE t.deviceId = ?1 AND ");
		tx(b, "t.endNs");
		buf_adds(b, " >= ");
		tx(b, "t.startNs");
		/* An INTEGER column holds only integers where a row is valid:
		 * order by it as is, so SQLite can walk TaskIndex. */
		buf_adds(b, intcol(d, T_TASK, "startNs") ? " ORDER BY t.startNs" : " ORDER BY s");
		/* A task's PMU rows come from SQLite's automatic index on
		 * TASK_PMU_INFO(globalTaskId): in name-id order, no sort. */
		buf_adds(b, ", t.globalTaskId, t.rowid");
		if ((q.k = prep(d, b->p)) == NULL)
			return -1;
	}
	if (d->has[T_COMM] && d->c.comm) {
		const char *dv = anycol(d, T_COMM, "deviceId", NULL);

		q.cwait = hascol(d, T_COMM, "waitNs");
		b->len = 0;
		buf_adds(b, "SELECT c.rowid, ");
		tx(b, "c.startNs");
		buf_adds(b, " AS s, ");
		tx(b, "c.endNs");
		selcol(b, "c", "opName");
		selcol(b, "c", anycol(d, T_COMM, "opType", NULL));
		selcol(b, "c", q.cwait ? "waitNs" : NULL);
		buf_adds(b, " FROM COMMUNICATION_OP c WHERE ");
		tx(b, "c.endNs");
		buf_adds(b, " >= ");
		tx(b, "c.startNs");
		if (dv)
			buf_adds(b, " AND c.deviceId = ?1");
		else {
			char t[64];

			snprintf(t, sizeof t, " AND ?1 = %lld", (long long)d->commdev);
			buf_adds(b, t);
		}
		buf_adds(b, " ORDER BY s, c.rowid");
		if ((q.c = prep(d, b->p)) == NULL) {
			sqlite3_finalize(q.k);
			return -1;
		}
	}
	for (int t = 0; t < 2; t++)
		srcprefix(d, &q.pre[t], "kernel", profile, t ? T_COMM : T_TASK);
	for (int i = 0; i < d->ndev && r == 0; i++)
		r = putdev(d, fp, profile, origin, d->dev[i], &q);
	sqlite3_finalize(q.k);
	sqlite3_finalize(q.c);
	buf_free(&q.pre[0]);
	buf_free(&q.pre[1]);
	buf_free(&q.a);
	free(q.pmu);
	return r;
}

/* ---------- host events: depth and leaf by nest.c, as from the text ---------- */

struct hpend {
	struct buf	 text;		/* the record, less its leaf value ... */
	size_t		 at;		/* ... that goes here (SIZE_MAX: in it) */
	int64_t		 start, dur;
	int		 ti, depth, leaf, resolved, mark;
};

struct hthr {
	int64_t		 pid, tid;
	struct nest_thr	 nt;
};

struct hstate {
	struct hpend	*q;
	uint64_t	 head, tail, cap;
	struct hthr	*th;
	size_t		 nth;
	int		*slot;
	size_t		 nslot;
};

static int
getthr(struct hstate *h, int64_t pid, int64_t tid)
{
	uint64_t k = ((uint64_t)pid * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)tid * 0xC2B2AE3D27D4EB4FULL;
	size_t i;

	if (h->nth * 2 >= h->nslot) {
		size_t ns = h->nslot ? h->nslot * 2 : 64;
		int *sl = xcalloc(ns, sizeof *sl);

		for (size_t j = 0; j < h->nth; j++) {
			uint64_t kk = ((uint64_t)h->th[j].pid * 0x9E3779B97F4A7C15ULL) ^
			    (uint64_t)h->th[j].tid * 0xC2B2AE3D27D4EB4FULL;

			for (i = kk & (ns - 1); sl[i]; i = (i + 1) & (ns - 1))
				;
			sl[i] = (int)j + 1;
		}
		free(h->slot);
		h->slot = sl;
		h->nslot = ns;
	}
	for (i = k & (h->nslot - 1); h->slot[i]; i = (i + 1) & (h->nslot - 1)) {
		struct hthr *t = &h->th[h->slot[i] - 1];

		if (t->pid == pid && t->tid == tid)
			return h->slot[i] - 1;
	}
	h->th = xreallocarray(h->th, h->nth + 1, sizeof *h->th);
	memset(&h->th[h->nth], 0, sizeof h->th[0]);
	h->th[h->nth].pid = pid;
	h->th[h->nth].tid = tid;
	h->slot[i] = (int)h->nth + 1;
	return (int)h->nth++;
}

static void
put_pend(FILE *fp, struct buf *ob, struct hpend *e)
{
	ob->len = 0;
	if (e->at == SIZE_MAX)
		buf_add(ob, e->text.p, e->text.len);
	else {
		buf_add(ob, e->text.p, e->at);
		buf_adds(ob, e->leaf ? "true" : "false");
		buf_add(ob, e->text.p + e->at, e->text.len - e->at);
	}
	if (fwrite_unlocked(ob->p, 1, ob->len, fp) != ob->len)
		dieerr("stdout");
}

/* nest's verdict: queued event id is context. */
static void
hctx(void *arg, uint64_t id)
{
	struct hstate *h = arg;
	struct hpend *e = &h->q[id & (h->cap - 1)];

	if (id >= h->head && id < h->tail && !e->resolved) {
		e->leaf = 0;
		e->resolved = 1;
	}
}

/* Write what is resolved, or can no longer get a child, before now. */
static void
flushq(struct hstate *h, FILE *fp, struct buf *ob, int64_t now)
{
	while (h->head < h->tail) {
		struct hpend *e = &h->q[h->head & (h->cap - 1)];

		if (!e->resolved) {
			if (e->start + e->dur > now)
				break;
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		put_pend(fp, ob, e);
		h->head++;
	}
}

/* Host statement columns. */
enum { H_S, H_E, H_SRC, H_ROWID, H_GTID, H_NAME, H_TYPE, H_STACK, H_FRAME, H_KNS };

static const char *
cannprefix(int64_t type)
{
	switch (type) {
	case 20000: return "AscendCL";
	case 15000: return "Model";
	case 10000: return "Node";
	case 5500: return "Hccl";
	case 5000: return "Runtime";
	}
	return NULL;
}

int
db_put_host(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct buf *b = &d->sc, hpre[2] = { { 0 } }, nm = { 0 }, thr = { 0 };
	struct hout o = {0};
	struct hstate h;
	sqlite3_stmt *st;
	int r, py = d->has[T_PY], cann = d->has[T_CANN];
	int links = d->has[T_TASK] || d->has[T_COMM];

	if (!py && !cann)
		return 0;
	b->len = 0;
	buf_adds(b, "SELECT * FROM (");
	if (py) {
		int chain = d->c.has_stacks;
		int conn = d->has[T_CONN] && hascol(d, T_PY, "connectionId") && links;

		buf_adds(b, "SELECT ");
		tx(b, "p.startNs");
		buf_adds(b, " AS s, ");
		tx(b, "p.endNs");
		buf_adds(b, " AS e, 0 AS src, p.rowid AS rid, p.globalTid, p.name");
		buf_adds(b, hascol(d, T_PY, "type") ? ", p.type" : ", NULL");
		buf_adds(b, chain ? ", p.callchainId IS NOT NULL, f.fstack" : ", 0, NULL");
		buf_adds(b, conn ? ", k.kns" : ", NULL");
		buf_adds(b, " FROM PYTORCH_API p");
		if (chain)
			buf_adds(b, " LEFT JOIN (SELECT c.id AS fid, c.stack AS fstack, min(c.stackDepth) "
			    "FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s ON s.id = c.stack "
			    "WHERE asc_userframe(s.value) GROUP BY c.id) f ON f.fid = p.callchainId");
		if (conn) {
			buf_adds(b, " LEFT JOIN (SELECT ci.id AS kid, min(x.xs) AS kns FROM CONNECTION_IDS ci "
			    "JOIN (");
			if (d->has[T_TASK])
				buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM TASK");
			if (d->has[T_TASK] && d->has[T_COMM] && hascol(d, T_COMM, "connectionId"))
				buf_adds(b, " UNION ALL ");
			if (d->has[T_COMM] && hascol(d, T_COMM, "connectionId"))
				buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM COMMUNICATION_OP");
			else if (!d->has[T_TASK])
				buf_adds(b, "SELECT NULL AS xc, NULL AS xs");
			buf_adds(b, ") x ON x.xc = ci.connectionId GROUP BY ci.id) k ON k.kid = p.connectionId");
		}
	}
	if (py && cann)
		buf_adds(b, " UNION ALL ");
	if (cann) {
		int tk = d->has[T_TASK] && hascol(d, T_TASK, "connectionId");
		int cm = d->has[T_COMM] && hascol(d, T_COMM, "connectionId");
		int conn = (tk || cm) && hascol(d, T_CANN, "connectionId");

		buf_adds(b, "SELECT ");
		tx(b, "c.startNs");
		buf_adds(b, " AS s, ");	/* named: CANN_API may be the only part */
		tx(b, "c.endNs");
		buf_adds(b, " AS e, 1 AS src, c.rowid AS rid, c.globalTid, c.name");
		buf_adds(b, hascol(d, T_CANN, "type") ? ", c.type" : ", NULL");
		buf_adds(b, ", 0, NULL");
		buf_adds(b, conn ? ", k.kns" : ", NULL");
		buf_adds(b, " FROM CANN_API c");
		if (conn) {
			buf_adds(b, " LEFT JOIN (SELECT xc AS kc, min(xs) AS kns FROM (");
			if (tk)
				buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM TASK");
			if (tk && cm)
				buf_adds(b, " UNION ALL ");
			if (cm)
				buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM COMMUNICATION_OP");
			buf_adds(b, ") GROUP BY xc) k ON k.kc = c.connectionId");
		}
	}
	buf_adds(b, ") WHERE e >= s ORDER BY s, e - s DESC, src, rid");
	if ((st = prep(d, b->p)) == NULL)
		return -1;
	for (int i = 0; i < 2; i++)
		srcprefix(d, &hpre[i], "host", profile, i ? T_CANN : T_PY);
	memset(&h, 0, sizeof h);
	h.cap = 64;
	h.q = xcalloc(h.cap, sizeof *h.q);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t now = sqlite3_column_int64(st, H_S);
		int64_t e = sqlite3_column_int64(st, H_E);
		int64_t gtid = sqlite3_column_int64(st, H_GTID);
		int64_t pid = (int64_t)((uint64_t)gtid >> 32), tid = (int64_t)((uint64_t)gtid & 0xffffffffu);
		int iscann = sqlite3_column_int(st, H_SRC) == 1;
		int ti;
		struct hthr *x;
		struct hpend *p;
		const char *s;
		size_t n, kind;
		int mark = 0, depth;

		if (iscann)	/* the pid the text timeline gives CANN: pid<<10 | 7<<5 | device */
			pid = (int64_t)(((uint64_t)pid << 10) | (7u << 5) | ((uint64_t)d->hostdev & 31));
		ti = getthr(&h, pid, tid);
		x = &h.th[ti];
		depth = nest_add(&x->nt, now, e, h.tail, hctx, &h);
		flushq(&h, fp, &d->ob, now);
		if (h.tail - h.head == h.cap) {
			struct hpend *nq = xcalloc(h.cap * 2, sizeof *nq);

			for (uint64_t sq = h.head; sq < h.head + h.cap; sq++)
				nq[sq & (h.cap * 2 - 1)] = h.q[sq & (h.cap - 1)];
			free(h.q);
			h.q = nq;
			h.cap *= 2;
		}
		p = &h.q[h.tail & (h.cap - 1)];
		p->start = now;
		p->dur = e - now;
		p->ti = ti;
		p->resolved = 0;
		p->leaf = 0;
		/* the record, its leaf value left out until known */
		o.pre = hpre[iscann].p;
		o.npre = hpre[iscann].len;
		o.srcn = sqlite3_column_int64(st, H_ROWID);
		if (coltext(d, st, H_NAME, &s, &n) != 0)
			s = "", n = 0;
		/* copied: the frame's string id may evict the name's */
		nm.len = 0;
		if (iscann) {
			const char *pre = sqlite3_column_type(st, H_TYPE) == SQLITE_INTEGER ?
			    cannprefix(sqlite3_column_int64(st, H_TYPE)) : NULL;

			if (pre) {
				buf_adds(&nm, pre);
				buf_addc(&nm, '@');
			}
			buf_add(&nm, s, n);
			o.cat = NULL;
			thr.len = 0;
			rec_out_thread(&thr, "CANN", pid, tid);
		} else {
			int64_t ty = sqlite3_column_type(st, H_TYPE) == SQLITE_INTEGER ?
			    sqlite3_column_int64(st, H_TYPE) : -1;

			mark = ismarker(d, s, n, &kind);
			buf_add(&nm, s, n);
			o.cat = ty == 50001 ? "cpu_op" : ty == 50003 ? "python_function" :
			    ty == 50004 ? "mstx" : ty == 50002 ? (n >= 7 && memcmp(s, "Dequeue", 7) == 0 ?
			    "dequeue" : "enqueue") : NULL;
			thr.len = 0;
			rec_out_thread(&thr, d->python, pid, tid);
		}
		o.name = nm.p ? nm.p : "";
		o.nname = nm.len;
		o.ncat = o.cat ? strlen(o.cat) : 0;
		o.thr = thr.p;
		o.nthr = thr.len;
		o.start = now - origin;
		o.dur = e - now;
		o.depth = depth;
		o.leaf = e - now <= 0 ? !mark : -1;
		o.frame.kind = KV_ABSENT;
		if (sqlite3_column_int(st, H_STACK)) {
			o.frame.kind = KV_NULL;
			if (coltext(d, st, H_FRAME, &s, &n) == 0) {
				while (n && (s[0] == ' ' || s[0] == '\t'))
					s++, n--;
				while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
				    s[n - 1] == ';' || s[n - 1] == '\n'))
					n--;
				o.frame.kind = KV_STR;
				o.frame.s = s;
				o.frame.n = n;
			}
		}
		/* The linked task's start: a negative one (refused in TASK) is
		 * no link, and never overflows the subtraction. */
		o.hask = sqlite3_column_type(st, H_KNS) == SQLITE_INTEGER &&
		    sqlite3_column_int64(st, H_KNS) >= 0;
		o.kns = o.hask ? sqlite3_column_int64(st, H_KNS) - origin : 0;
		p->text.len = 0;
		p->at = rec_out_host(&p->text, &o);
		p->mark = mark;
		p->depth = depth;
		if (p->dur <= 0) {
			p->leaf = !mark;
			p->resolved = 1;
		}
		h.tail++;
	}
	if (r == SQLITE_DONE)
		flushq(&h, fp, &d->ob, INT64_MAX);
	sqlite3_finalize(st);
	for (uint64_t i = 0; i < h.cap; i++)
		buf_free(&h.q[i].text);
	for (int i = 0; i < 2; i++)
		buf_free(&hpre[i]);
	buf_free(&nm);
	buf_free(&thr);
	free(h.q);
	for (size_t i = 0; i < h.nth; i++)
		nest_free(&h.th[i].nt);
	free(h.th);
	free(h.slot);
	if (r != SQLITE_DONE)
		return sqlerr(d, "PYTORCH_API/CANN_API");
	return 0;
}

/* ---------- analysis.db ---------- */

/* analysis.db beside the database (caller frees), or NULL if none. */
static char *
analysispath(struct dbread *d)
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

int
db_steptrace(struct dbread *d, const char *profile, struct buf *out)
{
	static const struct { const char *col, *key; } m[] = {
		{ "computing", "computing" },
		{ "communication_not_overlapped", "comm_not_overlapped" },
		{ "overlapped", "overlapped" },
		{ "communication", "comm" },
		{ "free", "free" },
		{ "stage", "stage" },
		{ "bubble", "bubble" },
		{ "communication_not_overlapped_and_exclude_receive", "comm_not_overlapped_exclude_receive" },
		{ "preparing", "preparing" },
	};
	char *path, *uri;
	sqlite3 *a = NULL;
	sqlite3_stmt *st = NULL;
	struct buf b = {0};
	int idx[9], idev = -1, istep = -1, ncol, n = 0, r;

	if ((path = analysispath(d)) == NULL)
		return 0;
	uri = fileuri(path);
	if (sqlite3_open_v2(uri, &a, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a, "SELECT rowid, * FROM StepTraceTime ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) {
		addwarn(d, "bad_step_trace", "analysis.db: %s; StepTraceTime not used",
		    a ? sqlite3_errmsg(a) : "cannot open");
		goto done;
	}
	ncol = sqlite3_column_count(st);
	for (int i = 0; i < 9; i++)
		idx[i] = -1;
	for (int c = 1; c < ncol; c++) {
		const char *nm = sqlite3_column_name(st, c);

		if (strcmp(nm, "deviceId") == 0)
			idev = c;
		else if (strcmp(nm, "step") == 0)
			istep = c;
		for (int i = 0; i < 9; i++)
			if (strcmp(nm, m[i].col) == 0)
				idx[i] = c;
	}
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		char src[64], k[80];

		out_begin(&b, "step_trace");
		out_cstr(&b, "profile", profile);
		snprintf(src, sizeof src, "analysis.db:StepTraceTime:%lld",
		    (long long)sqlite3_column_int64(st, 0));
		out_cstr(&b, "src", src);
		put_int(&b, "device", st, idev);
		if (istep >= 0 && sqlite3_column_type(st, istep) != SQLITE_NULL)
			out_str(&b, "step", (const char *)sqlite3_column_text(st, istep),
			    (size_t)sqlite3_column_bytes(st, istep));
		else
			out_null(&b, "step");
		for (int i = 0; i < 9; i++) {
			const char *s;
			size_t sn;
			int64_t v;

			if (idx[i] < 0)
				continue;
			snprintf(k, sizeof k, "%s_us", m[i].key);
			if (sqlite3_column_type(st, idx[i]) == SQLITE_NULL) {
				out_null(&b, k);
				snprintf(k, sizeof k, "%s_ns", m[i].key);
				out_null(&b, k);
				continue;
			}
			s = (const char *)sqlite3_column_text(st, idx[i]);
			sn = (size_t)sqlite3_column_bytes(st, idx[i]);
			if (dec_parse(s, sn, 3, &v) == 0) {
				out_raw(&b, k, s, sn);
				snprintf(k, sizeof k, "%s_ns", m[i].key);
				out_i64(&b, k, v);
			} else {
				out_str(&b, k, s, sn);
				snprintf(k, sizeof k, "%s_ns", m[i].key);
				out_null(&b, k);
			}
		}
		buf_add(&b, "}\n", 2);
		buf_add(out, b.p, b.len);
		n++;
	}
	d->c.an_read += (unsigned long)n;
	d->c.an_emitted += (unsigned long)n;
	if (r != SQLITE_DONE) {
		addwarn(d, "bad_step_trace", "analysis.db: %s; StepTraceTime partly used", sqlite3_errmsg(a));
	}
done:
	sqlite3_finalize(st);
	sqlite3_close(a);
	buf_free(&b);
	free(uri);
	free(path);
	return n;
}

/* ---------- communication ops ---------- */

/* analysis.db opened read-only, or NULL (none, or it cannot be opened). */
static sqlite3 *
openanalysis(struct dbread *d)
{
	char *path = analysispath(d), *uri;
	sqlite3 *a = NULL;

	if (path == NULL)
		return NULL;
	uri = fileuri(path);
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
		selcol(b, "t", ahascol(a, "CommAnalyzerTime", atcol[i]) ? atcol[i] : NULL);
	for (size_t i = 0; i < 4; i++)
		selcol(b, "b", bw && ahascol(a, "CommAnalyzerBandwidth", bwcol[i]) ? bwcol[i] : NULL);
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
				addwarn(d, "bad_communication", "analysis.db: %lu CommAnalyzerTime rows "
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
	int n = numtext(st, i, t, sizeof t);

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
		snprintf(d->err, sizeof d->err, "analysis.db: %s", sqlite3_errmsg(a));
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
	if (ret == 0 && r != SQLITE_DONE) {
		snprintf(d->err, sizeof d->err, "analysis.db: %s", sqlite3_errmsg(a));
		ret = -1;
	}
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
	const char *gc = anycol(d, T_COMM, "groupName", NULL);
	int cw = hascol(d, T_COMM, "waitNs");
	struct buf *q = &d->sc, b = {0}, el = {0}, wt = {0};
	struct kq k;
	sqlite3_stmt *st;
	int r;

	q->len = 0;
	buf_adds(q, "SELECT c.rowid, ");
	tx(q, "c.startNs");
	buf_adds(q, " AS s, ");
	tx(q, "c.endNs");
	selcol(q, "c", "opName");
	selcol(q, "c", gc);
	selcol(q, "c", cw ? "waitNs" : NULL);
	buf_adds(q, " FROM COMMUNICATION_OP c WHERE ");
	tx(q, "c.endNs");
	buf_adds(q, " >= ");
	tx(q, "c.startNs");
	buf_adds(q, " ORDER BY s, c.rowid");
	if ((st = prep(d, q->p)) == NULL)
		return -1;
	memset(&k, 0, sizeof k);
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
		if (coltext(d, st, 3, &v, &n) == 0)
			buf_add(&b, v, n);
		c.oplen = b.len;
		hasg = coltext(d, st, 4, &v, &n) == 0;
		if (hasg)
			buf_add(&b, v, n);
		buf_addc(&b, '\0');
		c.op = b.p;
		if (hasg) {
			c.group = b.p + c.oplen;
			c.grouplen = b.len - 1 - c.oplen;
		}
		if ((c.step = stepof(d, &k, s)) != NULL)
			c.steplen = strlen(c.step);
		c.kind = isp2p(c.op, c.oplen) ? "p2p" : "collective";
		c.kindlen = strlen(c.kind);
		c.elapse_ms = nsms(&el, e - s);
		if (cw && sqlite3_column_type(st, 5) == SQLITE_INTEGER)
			c.wait_ms = nsms(&wt, sqlite3_column_int64(st, 5));
		cj_putrec(&d->ob, profile, qstr(d, "%s:%s:%lld", d->disp, tabname[T_COMM],
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
		return sqlerr(d, "COMMUNICATION_OP");
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
	if (sqlite3_prepare_v2(a, q.p, -1, &st, NULL) != SQLITE_OK) {
		snprintf(d->err, sizeof d->err, "analysis.db: CommAnalyzerMatrix: %s", sqlite3_errmsg(a));
		ret = -1;
	}
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
	if (ret == 0 && r != SQLITE_DONE) {
		snprintf(d->err, sizeof d->err, "analysis.db: CommAnalyzerMatrix: %s", sqlite3_errmsg(a));
		ret = -1;
	}
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

void
db_close(struct dbread *d)
{
	if (d == NULL)
		return;
	sqlite3_finalize(d->strq);
	if (d->db)
		sqlite3_close(d->db);
	for (int t = 0; t < T_NTAB; t++) {
		if (d->cols[t])
			for (char **c = d->cols[t]; *c; c++)
				free(*c);
		free(d->cols[t]);
		free(d->cint[t]);
	}
	for (size_t i = 0; i < NCACHE && d->cache; i++)
		free(d->cache[i].s);
	free(d->cache);
	for (size_t i = 0; i < d->nmk; i++)
		free(d->mk[i].name);
	free(d->mk);
	for (size_t i = 0; i < d->nrg; i++)
		free(d->rg[i].step);
	free(d->rg);
	for (int i = 0; i < d->nw; i++) {
		free(d->w[i].code);
		free(d->w[i].msg);
	}
	free(d->w);
	free(d->dev);
	buf_free(&d->pmunames);
	buf_free(&d->ob);
	buf_free(&d->sc);
	buf_free(&d->q);
	free(d->path);
	free(d->disp);
	free(d->pattern);
	free(d->python);
	free(d);
}

/* ---------- communication tasks ---------- */

/* Does the database have table name with column col? */
static int
tabcol(struct dbread *d, const char *name, const char *col)
{
	int64_t v = 0;

	if (qint(d, qstr(d, "SELECT count(*) FROM pragma_table_info('%s') "
	    "WHERE name = '%s'", name, col), &v) != 0)
		return 0;
	return v > 0;
}

/* The tasks' query: COMMUNICATION_TASK_INFO joined to TASK (and to
 * COMMUNICATION_OP for the op's name, to the transport enum for its
 * name when there is one), in start order. */
static void
ctquery(struct dbread *d, struct buf *q, int count)
{
	int hasop = d->has[T_COMM] && tabcol(d, "COMMUNICATION_TASK_INFO", "opId") &&
	    tabcol(d, "COMMUNICATION_OP", "opId");
	int hastr = tabcol(d, "ENUM_HCCL_TRANSPORT_TYPE", "name");

	q->len = 0;
	if (count) {
		buf_adds(q, "SELECT count(*), sum(t.endNs >= t.startNs) "
		    "FROM COMMUNICATION_TASK_INFO i JOIN TASK t ON t.globalTaskId = i.globalTaskId");
		return;
	}
	buf_adds(q, "SELECT i.rowid, t.startNs, t.endNs, i.taskType, i.planeId, "
	    "i.notifyId, i.srcRank, i.dstRank, i.size, t.streamId, ");
	buf_adds(q, hasop ? "o.opName, " : "NULL, ");
	buf_adds(q, hastr ? "e.name " : "i.transportType ");
	buf_adds(q, "FROM COMMUNICATION_TASK_INFO i JOIN TASK t ON t.globalTaskId = i.globalTaskId ");
	if (hasop)
		buf_adds(q, "LEFT JOIN COMMUNICATION_OP o ON o.opId = i.opId ");
	if (hastr)
		buf_adds(q, "LEFT JOIN ENUM_HCCL_TRANSPORT_TYPE e ON e.id = i.transportType ");
	buf_adds(q, "WHERE t.endNs >= t.startNs ORDER BY t.startNs, i.rowid");
}

int
db_comm_tasks_scan(struct dbread *d)
{
	static const char *const need[] = { "globalTaskId", "taskType", "planeId",
	    "notifyId", "srcRank", "dstRank", "size", NULL };
	sqlite3_stmt *st;

	d->c.comm_tasks = 0;
	if (!d->has[T_TASK] || !tabcol(d, "TASK", "streamId"))
		return 0;
	for (int i = 0; need[i]; i++)
		if (!tabcol(d, "COMMUNICATION_TASK_INFO", need[i]))
			return 0;
	ctquery(d, &d->q, 1);
	if ((st = prep(d, d->q.p)) == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		unsigned long n = (unsigned long)sqlite3_column_int64(st, 0);
		unsigned long ok = (unsigned long)sqlite3_column_int64(st, 1);

		d->c.comm_tasks = ok;
		if (n > ok)
			addwarn(d, "bad_comm_task", "%s: %lu COMMUNICATION_TASK_INFO rows "
			    "end before they start: skipped", d->disp, n - ok);
	}
	sqlite3_finalize(st);
	return 0;
}

/* A text column of a task row: a STRING_IDS id or text, as a string;
 * an integer that is no string id as its digits; else null. */
static void
cttextcol(struct dbread *d, struct buf *b, const char *k, sqlite3_stmt *st, int i)
{
	const char *s;
	size_t n;

	if (coltext(d, st, i, &s, &n) == 0) {
		out_key(b, k);
		out_esc(b, s, n);
	} else if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		out_i64(b, k, sqlite3_column_int64(st, i));
	else
		out_null(b, k);
}

int
db_put_comm_tasks(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct buf *b = &d->ob;
	sqlite3_stmt *st;
	int r;

	if (d->c.comm_tasks == 0)
		return 0;
	ctquery(d, &d->q, 0);
	if ((st = prep(d, d->q.p)) == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
		char t[64];

		b->len = 0;
		out_begin(b, "comm_task");
		out_cstr(b, "profile", profile);
		snprintf(t, sizeof t, ":COMMUNICATION_TASK_INFO:%lld",
		    (long long)sqlite3_column_int64(st, 0));
		d->sc.len = 0;
		buf_adds(&d->sc, d->disp);
		buf_adds(&d->sc, t);
		buf_addc(&d->sc, '\0');
		out_cstr(b, "src", d->sc.p);
		cttextcol(d, b, "op", st, 10);
		out_null(b, "group");
		cttextcol(d, b, "task_type", st, 3);
		out_i64(b, "start_ns", s - origin);
		out_i64(b, "dur_ns", e - s);
		out_i64(b, "end_ns", e - origin);
		put_int(b, "src_rank", st, 6);
		put_int(b, "dst_rank", st, 7);
		put_int(b, "bytes", st, 8);
		cttextcol(d, b, "transport", st, 11);
		if (sqlite3_column_type(st, 4) == SQLITE_INTEGER) {
			snprintf(t, sizeof t, "Plane %lld", (long long)sqlite3_column_int64(st, 4));
			out_cstr(b, "plane", t);
		} else
			out_null(b, "plane");
		put_int(b, "stream", st, 9);
		if (sqlite3_column_type(st, 5) == SQLITE_INTEGER) {
			snprintf(t, sizeof t, "%lld", (long long)sqlite3_column_int64(st, 5));
			out_cstr(b, "notify_id", t);
		} else
			out_null(b, "notify_id");
		rec_put(b, fp);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return sqlerr(d, "COMMUNICATION_TASK_INFO");
	return 0;
}
