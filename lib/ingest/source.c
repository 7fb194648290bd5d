/* source: the three readers behind one interface. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dbread.h"
#include "ktab.h"
#include "source.h"
#include "trace.h"

/* ---- the text timeline ---- */

static void
tr_counts(struct source *s, struct src_counts *c)
{
	struct trace_counts tc;

	trace_counts(s->r, &tc);
	*c = (struct src_counts){ s->kernels ? tc.device : 0, tc.markers, tc.host, tc.flows_linked };
}

static const char *
tr_warning(struct source *s, int i, const char **msg)
{
	return trace_warning(s->r, i, msg);
}

static int64_t
tr_min_ts(struct source *s, const char **from)
{
	const struct trace_span *sp = trace_span(s->r);

	if (sp->min_kernel_ts != INT64_MAX) {
		*from = "trace_kernels";
		return sp->min_kernel_ts;
	}
	*from = "trace";
	return sp->min_ts;
}

static int
tr_markers(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	trace_put_markers(s->r, fp, profile, origin);
	return 0;
}

static int
tr_kernels(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	if (s->kernels)
		trace_put_kernels(s->r, fp, profile, origin);
	return 0;
}

static int
tr_host(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	trace_put_host(s->r, fp, profile, origin);
	return 0;
}

static const char *
tr_err(struct source *s)
{
	return trace_err(s->r);
}

static void
tr_close(struct source *s)
{
	trace_close(s->r);
}

static const struct source_ops trace_ops = {
	"trace", tr_counts, tr_warning, tr_min_ts, tr_markers, tr_kernels,
	tr_host, tr_err, tr_close
};

void
src_trace(struct source *s, struct trace *t, int kernels)
{
	*s = (struct source){ &trace_ops, t, kernels, NULL, 0 };
}

/* ---- the SQLite export ---- */

static void
db_counts_(struct source *s, struct src_counts *c)
{
	struct db_counts dc;

	db_counts(s->r, &dc);
	*c = (struct src_counts){ dc.kernel + dc.comm, dc.markers, dc.host, dc.host_linked };
}

static const char *
db_warning_(struct source *s, int i, const char **msg)
{
	return db_warning(s->r, i, msg);
}

static int64_t
db_min_ts_(struct source *s, const char **from)
{
	int kern;
	int64_t v = db_min_ts(s->r, &kern);

	*from = kern ? "kernel_table" : "trace";
	return v;
}

static int
db_markers(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	return db_put_markers(s->r, fp, profile, origin);
}

static int
db_kernels(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	return db_put_kernels(s->r, fp, profile, origin);
}

static int
db_host(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	return db_put_host(s->r, fp, profile, origin);
}

static const char *
db_err_(struct source *s)
{
	return db_err(s->r);
}

static void
db_close_(struct source *s)
{
	db_close(s->r);
}

static const struct source_ops db_ops = {
	"db", db_counts_, db_warning_, db_min_ts_, db_markers, db_kernels,
	db_host, db_err_, db_close_
};

void
src_db(struct source *s, struct dbread *d)
{
	*s = (struct source){ &db_ops, d, 1, NULL, 0 };
}

/* ---- the kernel tables ---- */

static void
kt_counts(struct source *s, struct src_counts *c)
{
	const struct ktab *kt = s->r;

	*c = (struct src_counts){ kt->n, 0, 0, 0 };
}

static const char *
kt_warning(struct source *s, int i, const char **msg)
{
	return NULL;
}

static int64_t
kt_min_ts(struct source *s, const char **from)
{
	const struct ktab *kt = s->r;

	*from = "kernel_table";
	return kt->n ? kt->minstart : INT64_MAX;
}

static int
kt_none(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	return 0;
}

static int
kt_kernels(struct source *s, FILE *fp, const char *profile, int64_t origin)
{
	struct ktab *kt = s->r;

	if (kt->n)
		ktab_put(kt, profile, s->files, s->nfiles, origin);
	return 0;
}

static const char *
kt_err(struct source *s)
{
	return "";
}

static void
kt_close(struct source *s)
{
	ktab_free(s->r);
}

static const struct source_ops ktab_ops = {
	"kernel_table", kt_counts, kt_warning, kt_min_ts, kt_none, kt_kernels,
	kt_none, kt_err, kt_close
};

void
src_ktab(struct source *s, struct ktab *kt, const struct src_file *files, int nfiles)
{
	*s = (struct source){ &ktab_ops, kt, 1, files, nfiles };
}
