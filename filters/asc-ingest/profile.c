/*
 * asc-ingest: the profile record (its degraded list, kernel_table, counts
 * and files), then its warnings and its metadata record.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"

#include "ingest.h"

static void
putfiles(struct buf *b, const struct profile *p, const struct trace_counts *tc, int trace_used)
{
	out_key(b, "files");
	buf_addc(b, '[');
	for (int i = 0; i < p->nf + (anfile.base != NULL); i++) {
		const struct src_file *f = i < p->nf ? &p->f[i] : &anfile;
		struct buf t = {0};

		if (i)
			buf_addc(b, ',');
		out_begin(&t, "x");
		t.len = 0;
		out_cstr(&t, "file", f->base);
		out_cstr(&t, "kind", kindname[f->kind]);
		if (f->kind == F_TRACE) {
			out_bool(&t, "used", trace_used && f->read);
			out_i64(&t, "events", (int64_t)(trace_used && f->read ? tc->events : 0));
			out_i64(&t, "x_events", (int64_t)(trace_used && f->read ? tc->x_events : 0));
			out_i64(&t, "host", (int64_t)(trace_used && f->read ? tc->host : 0));
			out_i64(&t, "input_dims", (int64_t)(trace_used && f->read ? tc->input_dims : 0));
			out_i64(&t, "device", (int64_t)(trace_used && f->read ? tc->device : 0));
			out_i64(&t, "markers", (int64_t)(trace_used && f->read ? tc->markers : 0));
			out_i64(&t, "ignored", (int64_t)(trace_used && f->read ? tc->ignored : 0));
			out_i64(&t, "rejected", (int64_t)f->rejected);
		} else {
			out_bool(&t, "used", f->kind == F_DB ? f == dbused : f->kind == F_ANALYSIS ? f->emitted > 0 :
			    !(dbused && f->kind == F_KERNEL) && !f->unusable && !f->extra);
			out_i64(&t, "read", (int64_t)f->read);
			out_i64(&t, "emitted", (int64_t)f->emitted);
			out_i64(&t, "rejected", (int64_t)f->rejected);
		}
		buf_addc(b, '{');
		buf_add(b, t.p + 1, t.len - 1);
		buf_addc(b, '}');
		buf_free(&t);
	}
	buf_addc(b, ']');
}

/* What is missing, in the codes of the evidence_gaps list. */
void
degraded(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	if (x->db ? x->dc.kernel + x->dc.comm == 0 : !fk[F_KERNEL] || (x->kt.n == 0 && x->nkfiles == 0)) {
		x->deg[x->ndeg++] = "no_kernel_table";
		if (fk[F_DB] && !fk[F_TRACE] && !x->db)
			x->deg[x->ndeg++] = "db_export_only";
	}
	/* A database stands in for the trace: its host tables are the events. */
	if (x->db ? x->dc.host == 0 : !x->trace_used)
		x->deg[x->ndeg++] = x->db ? "no_host_events" : "no_trace_view";
	else if (!x->db && x->tc.host == 0)
		x->deg[x->ndeg++] = "no_host_events";
	if ((x->trace_used && !x->tc.has_stacks) || (x->db && x->dc.host && !x->dc.has_stacks))
		x->deg[x->ndeg++] = "no_stacks";
	if ((x->trace_used && x->tc.markers == 0) || (x->db && x->dc.markers == 0))
		x->deg[x->ndeg++] = "no_step_markers";
	if (!fk[F_INFO])
		x->deg[x->ndeg++] = "no_profiler_info";
	if (strcmp(x->level, "Level0") == 0 || (x->kt.n && x->kt.na_types == x->kt.n) ||
	    (x->db && x->dc.kernel && x->dc.null_types == x->dc.kernel))
		x->deg[x->ndeg++] = "level0";
	if ((fk[F_KERNEL] && !x->kt.has_pmu) || (x->db && x->dc.kernel && !x->dc.has_pmu))
		x->deg[x->ndeg++] = "no_pmu";
	if ((fk[F_KERNEL] && !x->kt.has_shapes) || (x->db && x->dc.kernel && !x->dc.has_shapes))
		x->deg[x->ndeg++] = "no_shapes";
	if (!fk[F_COMM] && !x->dc.comm_records)
		x->deg[x->ndeg++] = "no_communication_json";
	/* comm ops whose HCCL tasks the capture does not hold */
	if ((fk[F_COMM] || x->dc.comm_records) && !(x->db ? x->dc.comm_tasks : x->tc.comm_tasks))
		x->deg[x->ndeg++] = "no_comm_tasks";
	if (!fk[F_STEPTRACE] && !x->dbsteps)
		x->deg[x->ndeg++] = "no_step_trace";
	if (x->rejected)
		x->deg[x->ndeg++] = "rows_rejected";
	if (x->disjoint || x->sforeign)
		x->deg[x->ndeg++] = "kernels_outside_trace";
	if (x->sgap)
		x->deg[x->ndeg++] = "counts_mismatch";
	for (int i = 0; i < p->nf; i++)
		if (p->f[i].unusable) {
			x->deg[x->ndeg++] = "file_unusable";
			break;
		}
}

/* The profile record's "kernel_table". */
static void
put_kernel_table(struct pctx *x)
{
	struct src_file **fk = x->fk;

	if (x->db && x->dc.has_kernels) {
		char t[32];
		int m = snprintf(t, sizeof t, "%lu", x->dc.kernel + x->dc.comm);

		buf_adds(&ob, "{\"rows\":");
		buf_add(&ob, t, (size_t)m);
		out_bool(&ob, "step_id", x->dc.has_steps);
		out_bool(&ob, "device_id", 1);
		out_bool(&ob, "shapes", x->dc.has_shapes);
		out_key(&ob, "pmu");
		buf_adds(&ob, db_pmu_names(x->db));
		out_bool(&ob, "pmu_left_out", nopmu);
		out_bool(&ob, "pmu_aside", mpath != NULL);
		out_key(&ob, "fields_left_out");
		rec_out_leftout(&ob);
		out_i64(&ob, "sorted_runs", x->dc.kernel + x->dc.comm ? 1 : 0);
		buf_addc(&ob, '}');
	} else if (fk[F_KERNEL]) {
		buf_addc(&ob, '{');
		out_esc(&ob, "rows", 4);
		buf_addc(&ob, ':');
		{
			char t[32];
			int m = snprintf(t, sizeof t, "%zu", x->kt.n);

			buf_add(&ob, t, (size_t)m);
		}
		out_bool(&ob, "step_id", x->kt.has_step);
		out_bool(&ob, "device_id", x->kt.has_device);
		out_bool(&ob, "shapes", x->kt.has_shapes);
		out_key(&ob, "pmu");
		if (x->kt.pmunames.len)
			buf_add(&ob, x->kt.pmunames.p, x->kt.pmunames.len);
		else
			buf_adds(&ob, "[]");
		out_bool(&ob, "pmu_left_out", nopmu);
		out_bool(&ob, "pmu_aside", mpath != NULL);
		out_key(&ob, "fields_left_out");
		rec_out_leftout(&ob);
		out_i64(&ob, "sorted_runs", (int64_t)(x->kt.n ? x->runs : 0));
		buf_addc(&ob, '}');
	} else
		buf_adds(&ob, "null");
}

/* The profile record's "counts", summed over the sources. */
static void
put_counts(struct pctx *x)
{
	{
		struct buf t = {0};

		out_begin(&t, "x");
		t.len = 0;
		memset(&x->sc, 0, sizeof x->sc);
		for (int i = 0; i < x->nsrc; i++) {
			src_counts(&x->src[i], &x->one);
			x->sc.kernel += x->one.kernel;
			x->sc.marker += x->one.marker;
			x->sc.host += x->one.host;
			x->sc.flows_linked += x->one.flows_linked;
		}
		out_i64(&t, "kernel", (int64_t)x->sc.kernel);
		out_i64(&t, "marker", (int64_t)x->sc.marker);
		out_i64(&t, "host", (int64_t)x->sc.host);
		out_i64(&t, "flows_linked", (int64_t)x->sc.flows_linked);
		out_i64(&t, "rejected", (int64_t)x->rejected);
		out_i64(&t, "warnings", nwarns);
		buf_addc(&ob, '{');
		buf_add(&ob, t.p + 1, t.len - 1);
		buf_addc(&ob, '}');
		buf_free(&t);
	}
}

/* The profile record, then its warnings, then its metadata record. */
void
put_profile(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	if (x->kt.n || x->origin_from[0] != 'n') {
		int neg = x->origin < 0;
		int64_t a = neg ? -x->origin : x->origin;

		snprintf(x->ob_us, sizeof x->ob_us, "%s%lld.%03lld", neg ? "-" : "",
		    (long long)(a / 1000), (long long)(a % 1000));
	}
	out_begin(&ob, "profile");
	out_cstr(&ob, "profile", p->name);
	out_cstr(&ob, "path", p->dir);
	out_cstr(&ob, "framework", p->framework);
	out_cstr(&ob, "source", x->db ? "db" : fk[F_KERNEL] || x->trace_used || fk[F_STEPTRACE] ||
	    fk[F_COMM] || fk[F_OPSTAT] ? "text" : "none");
	out_cstr(&ob, "origin_us", x->origin_from[0] != 'n' ? x->ob_us : NULL);
	out_cstr(&ob, "origin_from", x->origin_from);
	out_strv(&ob, "degraded", x->deg, x->ndeg);
	out_key(&ob, "config");
	if (x->cfg.len)
		buf_add(&ob, x->cfg.p, x->cfg.len);
	else
		buf_adds(&ob, "{\"level\":\"unknown\"}");
	out_key(&ob, "kernel_table");
	put_kernel_table(x);

	out_key(&ob, "counts");
	put_counts(x);

	putfiles(&ob, p, &x->tc, x->trace_used);
	rec_put(&ob, stdout);
	for (int i = 0; i < nwarns; i++) {
		out_begin(&ob, "warning");
		out_cstr(&ob, "profile", p->name);
		out_cstr(&ob, "code", warns[i].code);
		out_cstr(&ob, "message", warns[i].msg);
		rec_put(&ob, stdout);
		free(warns[i].code);
		free(warns[i].msg);
	}
	rec_put(&x->meta, stdout);
}
