/*
 * dbread: device_task records (TASK), the SQLite side of devtask.c: the
 * device's tasks that are not kernels (MEMCPY_ASYNC, EVENT_WAIT ...),
 * chosen by their task type, which TASK names through STRING_IDS, with
 * the rules' attribution.device_tasks as the timeline's are by name.
 * The export keeps no SQE type (trace_view.json's "Task Type"), so
 * task_type is null.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dbread_int.h"
#include "rec_out.h"
#include "rules.h"

/* Does TASK hold every column the records need? */
static int
dtcols(const struct dbread *d)
{
	static const char *const need[] = { "startNs", "endNs", "taskType",
	    "streamId", "deviceId", NULL };

	if (!d->has[T_TASK])
		return 0;
	for (int i = 0; need[i]; i++)
		if (!dbi_hascol(d, T_TASK, need[i]))
			return 0;
	return 1;
}

/* The task types TASK holds that the rules name, as an SQL list in
 * d->dtin ("" when none): ids as digits, texts quoted. */
static int
dtypes(struct dbread *d)
{
	sqlite3_stmt *st;
	int r;

	d->dtin.len = 0;
	if ((st = dbi_prep(d, "SELECT DISTINCT taskType FROM TASK")) == NULL)
		return -1;
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		const char *s;
		size_t n;
		char *z;

		if (dbi_coltext(d, st, 0, &s, &n) != 0 || memchr(s, '\0', n))
			continue;
		d->sc.len = 0;
		buf_add(&d->sc, s, n);
		buf_addc(&d->sc, '\0');
		if (!rules_match("attribution.device_tasks", d->sc.p))
			continue;
		if (d->dtin.len)
			buf_addc(&d->dtin, ',');
		if (sqlite3_column_type(st, 0) == SQLITE_INTEGER)
			z = sqlite3_mprintf("%lld", (long long)sqlite3_column_int64(st, 0));
		else
			z = sqlite3_mprintf("%Q", d->sc.p);
		buf_adds(&d->dtin, z);
		sqlite3_free(z);
	}
	sqlite3_finalize(st);
	if (r != SQLITE_DONE)
		return dbi_sqlerr(d, "TASK");
	buf_addc(&d->dtin, '\0');
	d->dtin.len--;
	return 0;
}

/* The rows' query, in start order; count: how many. */
static void
dtquery(struct dbread *d, int count)
{
	struct buf *q = &d->q;

	q->len = 0;
	buf_adds(q, count ? "SELECT count(*) FROM TASK " :
	    "SELECT rowid, startNs, endNs, taskType, deviceId, streamId FROM TASK ");
	buf_adds(q, "WHERE taskType IN (");
	buf_add(q, d->dtin.p, d->dtin.len);
	buf_adds(q, ") AND typeof(startNs) = 'integer' AND typeof(endNs) = 'integer' "
	    "AND endNs >= startNs");
	if (!count)
		buf_adds(q, " ORDER BY startNs, rowid");
	buf_addc(q, '\0');
	q->len--;
}

int
db_dev_tasks_scan(struct dbread *d)
{
	int64_t v = 0;

	d->c.dev_tasks = 0;
	if (!dtcols(d))
		return 0;
	if (dtypes(d) != 0)
		return -1;
	if (d->dtin.len == 0)
		return 0;
	dtquery(d, 1);
	if (dbi_qint(d, d->q.p, &v) != 0)
		return -1;
	d->c.dev_tasks = (unsigned long)v;
	return 0;
}

/* A TASK row's "device_task" record. */
static void
dtrow(struct dbread *d, struct buf *b, sqlite3_stmt *st, const struct dbi_put *a)
{
	int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
	const char *nm;
	size_t n;

	out_begin(b, "device_task");
	out_cstr(b, "profile", a->profile);
	dbi_putsrc(d, b, "TASK", (long long)sqlite3_column_int64(st, 0));
	out_key(b, "name");
	if (dbi_coltext(d, st, 3, &nm, &n) == 0)
		out_esc(b, nm, n);
	else
		buf_adds(b, "null");
	out_null(b, "task_type");
	dbi_put_int(b, "device", st, 4);
	dbi_put_int(b, "stream", st, 5);
	out_i64(b, "start_ns", s - a->origin);
	out_i64(b, "dur_ns", e - s);
	out_i64(b, "end_ns", e - a->origin);
}

int
db_put_dev_tasks(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	const struct dbi_put a = { .fp = fp, .profile = profile, .origin = origin };

	if (d->c.dev_tasks == 0)
		return 0;
	dtquery(d, 0);
	return dbi_put_rows(d, d->q.p, "TASK", &a, dtrow);
}
