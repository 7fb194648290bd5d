/* dbread: the schema check and the counts of db_open() */
#define _GNU_SOURCE		/* strcasestr */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dbread_int.h"
#include "rec_out.h"

/* ---------- open and scan ---------- */

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


static int
loadcols(struct dbread *d, int t)
{
	sqlite3_stmt *st = dbi_prep(d, dbi_qstr(d, "PRAGMA table_info(\"%s\")", dbi_tabname[t]));
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
		return dbi_sqlerr(d, dbi_tabname[t]);
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
	dbi_txspan(&d->sc, pre, ", ");
	buf_adds(&d->sc, ", ");
	buf_adds(&d->sc, s0);
	buf_adds(&d->sc, ", ");
	buf_adds(&d->sc, e0);
	buf_adds(&d->sc, t == T_TASK ? ", t.deviceId" : ", NULL");
	buf_adds(&d->sc, " FROM ");
	buf_adds(&d->sc, from);
	buf_adds(&d->sc, " WHERE NOT coalesce(");
	dbi_txvalid(&d->sc, pre);
	buf_adds(&d->sc, ", 0)");
	/* A text or missing deviceId matches no device (or a second one). */
	if (t == T_TASK)
		buf_adds(&d->sc, " OR typeof(t.deviceId) <> 'integer'");
	if ((st = dbi_prep(d, d->sc.p)) == NULL)
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
			    d->disp, dbi_tabname[t], (long long)sqlite3_column_int64(st, 0),
			    which == 3 ? "startNs" : "endNs", v ? v : "NULL");
		} else if (sqlite3_column_int64(st, 2) >= sqlite3_column_int64(st, 1)) {
			static const char *ty[] = { "", "integer", "real", "text", "blob", "null" };

			v = (const char *)sqlite3_column_text(st, 5);
			snprintf(m, sizeof m, "%s:%s:%lld: field \"deviceId\": not an integer: %s '%.32s'",
			    d->disp, dbi_tabname[t], (long long)sqlite3_column_int64(st, 0),
			    ty[sqlite3_column_type(st, 5)], v ? v : "NULL");
		} else
			snprintf(m, sizeof m, "%s:%s:%lld: field \"endNs\": before \"startNs\"",
			    d->disp, dbi_tabname[t], (long long)sqlite3_column_int64(st, 0));
		if (d->bad)
			d->bad(d->arg, m);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return dbi_sqlerr(d, dbi_tabname[t]);
	return nbad;
}

/* count(*) and min(valid start) of a table or join; counts read rows. */
static int
countrows(struct dbread *d, const char *from, const char *pre, unsigned long *n, int64_t *mn)
{
	sqlite3_stmt *st;
	char s0[64];
	int r;

	snprintf(s0, sizeof s0, "%s.startNs", pre);
	d->sc.len = 0;
	buf_adds(&d->sc, "SELECT count(*), min(CASE WHEN ");
	dbi_txvalid(&d->sc, pre);
	buf_adds(&d->sc, " THEN ");
	dbi_tx(&d->sc, s0);
	buf_adds(&d->sc, " END) FROM ");
	buf_adds(&d->sc, from);
	if ((st = dbi_prep(d, d->sc.p)) == NULL)
		return -1;
	r = sqlite3_step(st);
	if (r != SQLITE_ROW) {
		sqlite3_finalize(st);
		return dbi_sqlerr(d, NULL);
	}
	*n = (unsigned long)sqlite3_column_int64(st, 0);
	d->c.read += *n;
	if (sqlite3_column_type(st, 1) == SQLITE_INTEGER && sqlite3_column_int64(st, 1) < *mn)
		*mn = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	return 0;
}

const char dbi_kjoin[] = "TASK t CROSS JOIN COMPUTE_TASK_INFO c ON c.globalTaskId = t.globalTaskId";

/* The tables and their columns: which can be read, and warnings for the
 * missing and unknown. */
static int
scan_tables(struct dbread *d)
{
	int64_t v;

	if (dbi_qint(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table'", &v) != 0)
		return -1;
	if (v == 0 || v == INT64_MAX) {
		snprintf(d->err, sizeof d->err, "%s: empty database (no tables): not a profiler export", d->path);
		return -1;
	}
	if (dbi_qint(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'STRING_IDS'", &v) != 0)
		return -1;
	if (v != 1) {
		snprintf(d->err, sizeof d->err, "%s: no STRING_IDS table: names cannot be resolved "
		    "(not a profiler export, or a damaged one)", d->path);
		return -1;
	}
	if ((d->strq = dbi_prep(d, "SELECT value FROM STRING_IDS WHERE id = ?1")) == NULL)
		return -1;
	int absent[T_NTAB] = { 0 };

	for (int t = 0; t < T_NTAB; t++) {
		if (dbi_qint(d, dbi_qstr(d, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = '%s'",
		    dbi_tabname[t]), &v) != 0)
			return -1;
		absent[t] = v != 1;
		if (v != 1)
			continue;
		d->has[t] = 1;
		if (loadcols(d, t) != 0)
			return -1;
		for (int i = 0; needcols[t][i]; i++)
			if (!dbi_hascol(d, t, needcols[t][i])) {
				warns_add(&d->w, "db_table_unusable", "%s: table %s has no column \"%s\" "
				    "(unknown schema); not read", d->disp, dbi_tabname[t], needcols[t][i]);
				d->has[t] = 0;
				break;
			}
	}
	if (d->has[T_META]) {
		sqlite3_stmt *st = dbi_prep(d, "SELECT value FROM META_DATA WHERE name = 'SCHEMA_VERSION'");
		int r;

		if (st == NULL)
			return -1;
		if ((r = sqlite3_step(st)) == SQLITE_ROW) {
			const char *s = (const char *)sqlite3_column_text(st, 0);

			if (s == NULL || strncmp(s, "1.", 2) != 0)
				warns_add(&d->w, "db_schema_version", "%s: schema version %.32s is not one this "
				    "tool knows (1.x); read by table and column names", d->disp,
				    s ? s : "NULL");
		} else if (r != SQLITE_DONE) {
			sqlite3_finalize(st);
			return dbi_sqlerr(d, "META_DATA");
		}
		sqlite3_finalize(st);
	}
	/* An export with part of its tables: name what is missing. */
	for (int t = T_TASK; t <= T_CTI; t++)
		if (absent[t] && (!absent[T_TASK] || !absent[T_CTI] || d->has[T_COMM]))
			warns_add(&d->w, "db_table_missing", "%s: no table %s: no compute kernels read",
			    d->disp, dbi_tabname[t]);
	if (absent[T_PY] && d->has[T_CANN])
		warns_add(&d->w, "db_table_missing", "%s: no table PYTORCH_API: host events of CANN_API "
		    "only (no framework ops)", d->disp);
	if (!(d->has[T_TASK] && d->has[T_CTI]))
		d->has[T_TASK] = d->has[T_CTI] = d->has[T_PMU] = 0;
	if (d->has[T_CANN] && !dbi_hascol(d, T_CANN, "type"))
		warns_add(&d->w, "db_table_unusable", "%s: CANN_API has no \"type\": names without their "
		    "AscendCL/Node/Hccl prefix", d->disp);
	d->c.has_kernels = d->has[T_TASK] || d->has[T_COMM];
	d->c.has_host = d->has[T_PY] || d->has[T_CANN];
	return 0;
}

/* Rows: count, report the unusable ones, smallest start; the host rows
 * that launched a kernel. */
static int
scan_rows(struct dbread *d)
{
	int64_t v;
	unsigned long n;
	long nb;

	d->minkern = d->minhost = INT64_MAX;
	/* rows: count, report the unusable ones, smallest start */
	/* Counts are of records: bad rows are reported and skipped. */
	if (d->has[T_TASK]) {
		if (countrows(d, dbi_kjoin, "t", &n, &d->minkern) != 0 || (nb = badrows(d, T_TASK, dbi_kjoin, "t")) < 0)
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
	if (d->has[T_CANN] && dbi_hascol(d, T_CANN, "connectionId") &&
	    ((d->has[T_TASK] && dbi_hascol(d, T_TASK, "connectionId")) ||
	    (d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId")))) {
		int tk = d->has[T_TASK] && dbi_hascol(d, T_TASK, "connectionId");
		int cm = d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId");

		if (dbi_qint(d, dbi_qstr(d, "SELECT count(*) FROM CANN_API WHERE connectionId IN (%s%s%s)",
		    tk ? "SELECT connectionId FROM TASK" : "", tk && cm ? " UNION ALL " : "",
		    cm ? "SELECT connectionId FROM COMMUNICATION_OP" : ""), &v) != 0)
			return -1;
		d->c.host_linked += (unsigned long)v;
	}
	if (d->has[T_PY] && d->has[T_CONN] && dbi_hascol(d, T_PY, "connectionId") &&
	    (d->has[T_TASK] || d->has[T_COMM])) {
		int both = d->has[T_TASK] && d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId");

		if (dbi_qint(d, dbi_qstr(d, "SELECT count(*) FROM PYTORCH_API WHERE connectionId IN "
		    "(SELECT id FROM CONNECTION_IDS WHERE connectionId IN (SELECT connectionId FROM %s%s))",
		    d->has[T_TASK] ? "TASK" : "COMMUNICATION_OP",
		    both ? " UNION ALL SELECT connectionId FROM COMMUNICATION_OP" : ""), &v) != 0)
			return -1;
		d->c.host_linked += (unsigned long)v;
	}
	return 0;
}

/* What the rows hold: PMU metric names, shapes, task types, stacks. */
static int
scan_kinds(struct dbread *d)
{
	int64_t v;

	if (d->has[T_PMU]) {
		sqlite3_stmt *st = dbi_prep(d, "SELECT s.value FROM (SELECT DISTINCT name FROM TASK_PMU_INFO) x "
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
			return dbi_sqlerr(d, "TASK_PMU_INFO");
		d->c.has_pmu = d->c.npmu > 0;
	}
	d->c.has_shapes = dbi_hascol(d, T_CTI, "inputShapes");
	if (d->has[T_TASK] && dbi_hascol(d, T_CTI, "taskType")) {
		if (dbi_qint(d, dbi_qstr(d, "SELECT count(*) FROM %s WHERE c.taskType IS NULL OR c.taskType IN "
		    "(SELECT id FROM STRING_IDS WHERE value IN ('N/A', ''))", dbi_kjoin), &v) != 0)
			return -1;
		d->c.null_types = (unsigned long)v;
	} else
		d->c.null_types = d->c.kernel;
	if (d->has[T_PY] && d->has[T_CHAIN] && dbi_hascol(d, T_PY, "callchainId")) {
		if (dbi_qint(d, "SELECT 1 FROM PYTORCH_API WHERE callchainId IS NOT NULL LIMIT 1", &v) != 0)
			return -1;
		d->c.has_stacks = v == 1;
	}
	return 0;
}

/* The devices, in order; the one of host events and communication ops. */
static int
scan_devices(struct dbread *d)
{
	int64_t v;

	if (d->has[T_TASK]) {
		sqlite3_stmt *st = dbi_prep(d, "SELECT DISTINCT deviceId FROM TASK WHERE typeof(deviceId) = 'integer' ORDER BY 1");
		int r;

		if (st == NULL)
			return -1;
		while ((r = sqlite3_step(st)) == SQLITE_ROW) {
			d->dev = xreallocarray(d->dev, (size_t)d->ndev + 1, sizeof *d->dev);
			d->dev[d->ndev++] = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return dbi_sqlerr(d, "TASK");
	}
	d->hostdev = d->ndev ? d->dev[0] : 0;
	if (d->has[T_RANKDEV]) {
		if (dbi_qint(d, "SELECT deviceId FROM RANK_DEVICE_MAP ORDER BY rowid LIMIT 1", &v) != 0)
			return -1;
		if (v != INT64_MAX)
			d->hostdev = v;
	}
	d->commdev = d->hostdev;
	if (d->has[T_COMM] && d->c.comm && !dbi_hascol(d, T_COMM, "deviceId")) {
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
		sqlite3_stmt *st = dbi_prep(d, "SELECT DISTINCT deviceId FROM COMMUNICATION_OP WHERE deviceId IS NOT NULL");
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
			return dbi_sqlerr(d, "COMMUNICATION_OP");
	}
	return 0;
}

int
dbi_scan(struct dbread *d)
{
	if (scan_tables(d) != 0 || scan_rows(d) != 0 || scan_kinds(d) != 0 ||
	    scan_devices(d) != 0)
		return -1;
	return dbi_loadmarkers(d);
}

