/* source: the three readers behind one interface, by the source's kind. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "dbread.h"
#include "ktab.h"
#include "source.h"
#include "trace.h"

void
src_trace(struct source *s, struct trace *t, int kernels)
{
	*s = (struct source){ .kind = SRC_TRACE, .r = t, .kernels = kernels };
}

void
src_db(struct source *s, struct dbread *d)
{
	*s = (struct source){ .kind = SRC_DB, .r = d, .kernels = 1 };
}

void
src_ktab(struct source *s, struct ktab *kt, const struct src_file *files, int nfiles)
{
	*s = (struct source){ .kind = SRC_KTAB, .r = kt, .kernels = 1,
	    .files = files, .nfiles = nfiles };
}

void
src_counts(const struct source *s, struct src_counts *c)
{
	struct trace_counts tc;
	struct db_counts dc;
	const struct ktab *kt = s->r;

	switch (s->kind) {
	case SRC_TRACE:
		trace_counts(s->r, &tc);
		*c = (struct src_counts){ .kernel = s->kernels ? tc.device : 0,
		    .marker = tc.markers, .host = tc.host, .flows_linked = tc.flows_linked };
		break;
	case SRC_DB:
		db_counts(s->r, &dc);
		*c = (struct src_counts){ .kernel = dc.kernel + dc.comm,
		    .marker = dc.markers, .host = dc.host, .flows_linked = dc.host_linked };
		break;
	default:
		*c = (struct src_counts){ .kernel = kt->n };
	}
}

int64_t
src_min_ts(const struct source *s, const char **from)
{
	const struct trace_span *sp;
	const struct ktab *kt = s->r;
	int64_t v;
	int kern;

	switch (s->kind) {
	case SRC_TRACE:
		sp = trace_span(s->r);
		*from = sp->min_kernel_ts != INT64_MAX ? "trace_kernels" : "trace";
		return sp->min_kernel_ts != INT64_MAX ? sp->min_kernel_ts : sp->min_ts;
	case SRC_DB:
		v = db_min_ts(s->r, &kern);
		*from = kern ? "kernel_table" : "trace";
		return v;
	default:
		*from = "kernel_table";
		return kt->n ? kt->minstart : INT64_MAX;
	}
}

int
src_put(const struct source *s, int what, FILE *fp, const char *profile, int64_t origin)
{
	struct ktab *kt = s->r;

	switch (s->kind) {
	case SRC_TRACE:
		if (what == SRC_MARKERS)
			trace_put_markers(s->r, fp, profile, origin);
		else if (what == SRC_HOST)
			trace_put_host(s->r, fp, profile, origin);
		else if (s->kernels)
			trace_put_kernels(s->r, fp, profile, origin);
		return 0;
	case SRC_DB:
		return what == SRC_MARKERS ? db_put_markers(s->r, fp, profile, origin) :
		    what == SRC_HOST ? db_put_host(s->r, fp, profile, origin) :
		    db_put_kernels(s->r, fp, profile, origin);
	default:
		if (what == SRC_KERNELS && kt->n)
			ktab_put(kt, profile, s->files, s->nfiles, origin);
		return 0;
	}
}

const char *
src_err(const struct source *s)
{
	return s->kind == SRC_TRACE ? trace_err(s->r) : s->kind == SRC_DB ? db_err(s->r) : "";
}

void
src_close(struct source *s)
{
	if (s->kind == SRC_TRACE)
		trace_close(s->r);
	else if (s->kind == SRC_DB)
		db_close(s->r);
	else
		ktab_free(s->r);
}
