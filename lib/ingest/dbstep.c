/* dbread: the steps: markers (STEP_TIME, PYTORCH_API K#N) and step_trace
 * (StepTraceTime of analysis.db) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "dbread_int.h"
#include "rec_out.h"
#include "rules.h"
#include "trace.h"

/* ---------- markers and steps ---------- */

int
dbi_ismarker(const struct dbread *d, const char *s, size_t n, size_t *kind)
{
	long m = trace_mkname(s, n);
	size_t k = (size_t)m;

	if (m < 0)
		return 0;
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
int
dbi_loadmarkers(struct dbread *d)
{
	const char *const *kinds = rules_list("steps.marker_kinds");
	sqlite3_stmt *st;
	int r;

	if (d->has[T_PY]) {
		d->sc.len = 0;
		buf_adds(&d->sc, "SELECT p.rowid, ");
		dbi_txspan(&d->sc, "p", ", ");
		buf_adds(&d->sc, ", p.globalTid, p.name FROM PYTORCH_API p WHERE p.name IN "
		    "(SELECT id FROM STRING_IDS WHERE "
		    "(?1 IS NOT NULL AND substr(value, 1, length(?1) + 1) = ?1 || '#')");
		/* The rules' marker kinds as ?2...; dbi_ismarker() checks the digits. */
		for (int i = 0; kinds[i]; i++) {
			char c[96];

			snprintf(c, sizeof c, " OR substr(value, 1, length(?%d) + 1) = ?%d || '#'",
			    i + 2, i + 2);
			buf_adds(&d->sc, c);
		}
		buf_addc(&d->sc, ')');
		if ((st = dbi_prep(d, d->sc.p)) == NULL)
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
			if (dbi_coltext(d, st, 4, &s, &n) != 0 || !dbi_ismarker(d, s, n, &kind))
				continue;
			addmark(d, sqlite3_column_int64(st, 1), sqlite3_column_int64(st, 2),
			    sqlite3_column_int64(st, 3), sqlite3_column_int64(st, 0), s, n, kind, 0);
		}
		sqlite3_finalize(st);
		if (r != SQLITE_DONE)
			return dbi_sqlerr(d, "PYTORCH_API");
	}
	if (d->has[T_STEP]) {
		d->sc.len = 0;
		buf_adds(&d->sc, "SELECT rowid, id, ");
		dbi_txspan(&d->sc, NULL, ", ");
		buf_adds(&d->sc, " FROM STEP_TIME ORDER BY 3, rowid");
		if ((st = dbi_prep(d, d->sc.p)) == NULL)
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
			return dbi_sqlerr(d, "STEP_TIME");
	}
	if (d->nmk == 0 && d->nrg) {
		for (size_t i = 0; i < d->nrg; i++) {
			char t[80];
			int n = snprintf(t, sizeof t, "ProfilerStep#%s", d->rg[i].step);

			addmark(d, d->rg[i].start, d->rg[i].end, 0, d->rg[i].rowid, t, (size_t)n, 12, 1);
		}
		warns_add(&d->w, "markers_from_step_time", "%s: no ProfilerStep#N rows in PYTORCH_API; "
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
			warns_add(&d->w, "nested_markers", "%s: %lu nested or overlapping step markers "
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
		buf_adds(&d->sc, dbi_tabname[m->from_step ? T_STEP : T_PY]);
		snprintf(tmp, sizeof tmp, ":%lld", (long long)m->rowid);
		buf_adds(&d->sc, tmp);
		rec_out_marker(b, fp, profile, d->sc.p, d->sc.len, m->name, n, m->kind,
		    m->pid, m->tid, m->start - origin, m->dur);
	}
	return 0;
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

	if ((path = dbi_analysispath(d)) == NULL)
		return 0;
	uri = dbi_fileuri(path);
	if (sqlite3_open_v2(uri, &a, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(a, "SELECT rowid, * FROM StepTraceTime ORDER BY rowid", -1, &st, NULL) != SQLITE_OK) {
		warns_add(&d->w, "bad_step_trace", "analysis.db: %s; StepTraceTime not used",
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
		dbi_put_int(&b, "device", st, idev);
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
		warns_add(&d->w, "bad_step_trace", "analysis.db: %s; StepTraceTime partly used",
		    sqlite3_errmsg(a));
	}
done:
	sqlite3_finalize(st);
	sqlite3_close(a);
	buf_free(&b);
	free(uri);
	free(path);
	return n;
}

