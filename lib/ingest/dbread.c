/* dbread: the SQLite export of the Ascend profilers as NDJSON records:
 * opening (the SQL functions, then dbscan.c's schema and counts), what
 * it found, closing.  The parts' shared helpers are dbutil.c's. */
#define _GNU_SOURCE		/* basename */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "dbread_int.h"
#include "trace.h"

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

struct dbread *
db_open(const char *path, const struct db_opts *o, char *err, size_t nerr)
{
	struct dbread *d = xcalloc(1, sizeof *d);
	struct stat sb;

	d->w.max = 768;		/* a warning's message, with its NUL */
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
	uri = dbi_fileuri(path);
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
	if (dbi_scan(d) != 0) {
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
	return warns_get(&d->w, i, msg);
}

const char *
db_pmu_names(const struct dbread *d)
{
	return d->pmunames.len ? d->pmunames.p : "[]";
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
	warns_free(&d->w);
	free(d->dev);
	buf_free(&d->pmunames);
	buf_free(&d->ob);
	buf_free(&d->sc);
	buf_free(&d->q);
	buf_free(&d->dtin);
	free(d->path);
	free(d->disp);
	free(d->pattern);
	free(d->python);
	free(d);
}

