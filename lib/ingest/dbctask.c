/* dbread: comm_task records (COMMUNICATION_TASK_INFO) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "dbread_int.h"
#include "rec_out.h"

/* ---------- communication tasks ---------- */

/* Does the database have table name with column col? */
static int
tabcol(struct dbread *d, const char *name, const char *col)
{
	int64_t v = 0;

	if (dbi_qint(d, dbi_qstr(d, "SELECT count(*) FROM pragma_table_info('%s') "
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
	if ((st = dbi_prep(d, d->q.p)) == NULL)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		unsigned long n = (unsigned long)sqlite3_column_int64(st, 0);
		unsigned long ok = (unsigned long)sqlite3_column_int64(st, 1);

		d->c.comm_tasks = ok;
		if (n > ok)
			warns_add(&d->w, "bad_comm_task", "%s: %lu COMMUNICATION_TASK_INFO rows "
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

	if (dbi_coltext(d, st, i, &s, &n) == 0) {
		out_key(b, k);
		out_esc(b, s, n);
	} else if (sqlite3_column_type(st, i) == SQLITE_INTEGER)
		out_i64(b, k, sqlite3_column_int64(st, i));
	else
		out_null(b, k);
}

/* A COMMUNICATION_TASK_INFO row's "comm_task" record. */
static void
ctrow(struct dbread *d, struct buf *b, sqlite3_stmt *st, const struct dbi_put *a)
{
	int64_t s = sqlite3_column_int64(st, 1), e = sqlite3_column_int64(st, 2);
	char t[64];

	out_begin(b, "comm_task");
	out_cstr(b, "profile", a->profile);
	dbi_putsrc(d, b, "COMMUNICATION_TASK_INFO", (long long)sqlite3_column_int64(st, 0));
	cttextcol(d, b, "op", st, 10);
	out_null(b, "group");
	cttextcol(d, b, "task_type", st, 3);
	out_i64(b, "start_ns", s - a->origin);
	out_i64(b, "dur_ns", e - s);
	out_i64(b, "end_ns", e - a->origin);
	dbi_put_int(b, "src_rank", st, 6);
	dbi_put_int(b, "dst_rank", st, 7);
	dbi_put_int(b, "bytes", st, 8);
	cttextcol(d, b, "transport", st, 11);
	if (sqlite3_column_type(st, 4) == SQLITE_INTEGER) {
		snprintf(t, sizeof t, "Plane %lld", (long long)sqlite3_column_int64(st, 4));
		out_cstr(b, "plane", t);
	} else
		out_null(b, "plane");
	dbi_put_int(b, "stream", st, 9);
	if (sqlite3_column_type(st, 5) == SQLITE_INTEGER) {
		snprintf(t, sizeof t, "%lld", (long long)sqlite3_column_int64(st, 5));
		out_cstr(b, "notify_id", t);
	} else
		out_null(b, "notify_id");
}

int
db_put_comm_tasks(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	const struct dbi_put a = { .fp = fp, .profile = profile, .origin = origin };

	if (d->c.comm_tasks == 0)
		return 0;
	ctquery(d, &d->q, 0);
	return dbi_put_rows(d, d->q.p, "COMMUNICATION_TASK_INFO", &a, ctrow);
}

