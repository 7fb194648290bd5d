/*
 * asc-ingest: one profile read: the files it reads of each kind, the
 * SQLite export, the kernel table, the timeline, whether they meet in
 * time, the origin, the small tables and communication.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

/*
 * A profile reads one file of each kind but kernel tables (slices are
 * merged), databases and timelines (said where they are chosen): any
 * other is said, and listed with "used" false.
 */
static void
sayextra(struct profile *p, struct src_file *const *fk)
{
	for (int i = 0; i < p->nf; i++) {
		struct src_file *f = &p->f[i];

		if (f->kind == F_KERNEL || f->kind == F_DB || f->kind == F_ANALYSIS ||
		    f->kind == F_TRACE || fk[f->kind] == f)
			continue;
		f->extra = 1;
		addwarn("file_not_used", "%s: not read: %s is, as the profile's %s "
		    "(the first found, by directory and name)",
		    f->path, fk[f->kind]->path, kindname[f->kind]);
	}
}


/* The file of each kind a profile reads: the first found, but
 * kernel_details.csv and trace_view.json before their kin. */
static void
pick_files(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	for (int i = 0; i < p->nf; i++) {
		struct src_file *f = &p->f[i];

		if (fk[f->kind] == NULL)
			fk[f->kind] = f;
		else if (f->kind == F_KERNEL && strcmp(f->base, "kernel_details.csv") == 0)
			fk[f->kind] = f;
		else if (f->kind == F_TRACE && strcmp(f->base, "trace_view.json") == 0)
			fk[f->kind] = f;
	}
	sayextra(p, fk);
}

/* The SQLite export: when there is no text timeline, or with -d. */
static void
open_db(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	memset(&x->dc, 0, sizeof x->dc);
	dbused = NULL;
	anfile.base = NULL;
	if (fk[F_DB] && (dflag || (!fk[F_KERNEL] && !fk[F_TRACE]))) {
		struct db_opts dop = { .display = fk[F_DB]->base, .step_pattern = step_pattern,
		    .python = strcmp(p->framework, "mindspore") == 0 ? "MindSpore" : "Python",
		    .bad = dbbad, .nopmu = nopmu };
		const char *code, *msg;
		char err[1200];

		if (fk[F_KERNEL] || fk[F_TRACE])
			addwarn("source_db", "%s is read (-d); the text export (%s%s%s) is not",
			    fk[F_DB]->base, fk[F_KERNEL] ? fk[F_KERNEL]->base : "",
			    fk[F_KERNEL] && fk[F_TRACE] ? ", " : "", fk[F_TRACE] ? fk[F_TRACE]->base : "");
		if ((x->db = db_open(fk[F_DB]->path, &dop, err, sizeof err)) == NULL)
			die("%s", err);
		dbused = fk[F_DB];
		src_db(&x->src[x->nsrc++], x->db);
		db_counts(x->db, &x->dc);
		for (x->nw0 = 0; (code = db_warning(x->db, x->nw0, &msg)) != NULL; x->nw0++)
			addwarn(code, "%s", msg);
		dbused->read = x->dc.read;
		dbused->emitted = x->dc.kernel + x->dc.comm + x->dc.host;
		dbused->rejected = x->dc.rejected;
		fk[F_KERNEL] = fk[F_TRACE] = NULL;
	} else if (fk[F_DB] && (fk[F_KERNEL] || fk[F_TRACE]))
		addwarn("source_text", "%s is not read: the text export is (-d reads the database)",
		    fk[F_DB]->base);
	for (int i = 0; i < p->nf; i++)
		if (p->f[i].kind == F_DB && &p->f[i] != fk[F_DB])
			addwarn("file_not_used", "%s: only %s is read as the database",
			    p->f[i].base, fk[F_DB]->base);
	if (p->nf > 0xffff)
		die("%s: too many files", p->dir);
}

/* Kernel table: kernel_details.csv, else every op_summary slice. */
static void
read_ktab(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	if (fk[F_KERNEL]) {
		x->details = strcmp(fk[F_KERNEL]->base, "kernel_details.csv") == 0;
		if (!x->details)
			x->sgap = slicecheck(p);

		x->kt.nkr = p->nf;
		x->kt.kr = xcalloc((size_t)p->nf, sizeof *x->kt.kr);
		for (int i = 0; i < p->nf; i++)
			x->kt.kr[i].fd = -1;
		for (int i = 0; i < p->nf; i++) {
			struct src_file *f = &p->f[i];

			if (f->kind != F_KERNEL || (x->details && f != fk[F_KERNEL]) || f->extra)
				continue;
			if (ktab_read(&x->kt, f, i) == 0)
				x->nkfiles++;
		}
		src_ktab(&x->src[x->nsrc++], &x->kt, p->f, p->nf);
		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_KERNEL && p->f[i].read == 0 && &p->f[i] != fk[F_KERNEL] &&
			    x->details)
				addwarn("file_not_used", "%s: kernel_details.csv is read instead", p->f[i].base);
	}
}

/* The timeline, when it is read: its warnings, or why it is not. */
static void
read_trace(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	if (fk[F_TRACE]) {
		struct trace_opts to = { .tmpdir = tmpdir, .display = fk[F_TRACE]->base,
		    .step_pattern = step_pattern, .progress = progress, .bad = kflag ? tbad : NULL };

		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_TRACE && &p->f[i] != fk[F_TRACE])
				addwarn("file_not_used", "%s: only %s is read as the timeline",
				    p->f[i].base, fk[F_TRACE]->base);
		/* Present but unreadable: a system error, never "missing". */
		if ((x->tr = trace_open(fk[F_TRACE]->path, &to)) == NULL)
			dieerr("%s", fk[F_TRACE]->path);
		if (trace_read(x->tr) != 0) {
			baddata("%s", trace_err(x->tr));
			addwarn("trace_unreadable", "%s", trace_err(x->tr));
			trace_close(x->tr);
			x->tr = NULL;
		} else {
			const char *code, *msg;

			x->trace_used = 1;
			fk[F_TRACE]->read = 1;
			src_trace(&x->src[x->nsrc++], x->tr, !fk[F_KERNEL]);
			trace_counts(x->tr, &x->tc);
			fk[F_TRACE]->rejected = x->tc.rejected;
			for (int i = 0; (code = trace_warning(x->tr, i, &msg)) != NULL; i++)
				addwarn(code, "%s", msg);
		}
	}
}

/* Do the kernels and the timeline (or the capture) meet in time? */
static void
check_spans(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;
	/*
	 * A kernel table and a timeline of two captures (or one moved):
	 * their times do not meet, so every step looks idle.  Said, and the
	 * verdict's confidence drops (kernels_outside_trace).
	 */
	if (x->trace_used && x->kt.n && x->tc.host + x->tc.device > 0 &&
	    trace_span(x->tr)->min_ts != INT64_MAX) {
		int64_t t0 = trace_span(x->tr)->min_ts;
		int64_t t1 = trace_span(x->tr)->max_end;

		if (x->kt.maxend < t0 || x->kt.minstart > t1) {
			int64_t d = x->kt.maxend < t0 ? t0 - x->kt.maxend : x->kt.minstart - t1;

			x->disjoint = 1;
			addwarn("kernels_outside_trace", "%s and %s do not overlap in time: "
			    "the kernels %s %lld.%03lld s %s its events; from two captures? "
			    "Device idle and host attribution do not hold",
			    fk[F_KERNEL]->base, fk[F_TRACE]->base,
			    x->kt.maxend < t0 ? "end" : "start", (long long)(d / 1000000000),
			    (long long)(d / 1000000 % 1000),
			    x->kt.maxend < t0 ? "before the first of" : "after the last of");
		}
	}
	/* Level0's table has no Stream ID and N/A task types: the rows take
	 * them from the timeline's device tasks (ktab.c), read here, before
	 * the host writer's thread reads the same spill files. */
	if (x->trace_used && x->kt.n && !x->disjoint) {
		int nostream = 0;

		for (int i = 0; i < x->kt.nkr; i++)
			if (x->kt.kr[i].used && x->kt.kr[i].kf.idx[C_STREAM] < 0)
				nostream = 1;
		if (nostream || x->kt.na_types > 0) {
			trace_devtasks(x->tr, &x->devt);
			x->kt.dt = &x->devt;
		}
	}
	/* op_summary slices, from their rows: the timeline's span is used
	 * when it is one file, the whole capture's */
	for (int i = 0; i < p->nf; i++)
		x->ntrace += p->f[i].kind == F_TRACE;
	if (fk[F_KERNEL] && !x->details && !x->disjoint && x->kt.n)
		x->sforeign = slicespan(p, &x->kt,
		    x->trace_used && x->ntrace == 1 ? trace_span(x->tr)->min_ts : INT64_MAX,
		    x->trace_used && x->ntrace == 1 ? trace_span(x->tr)->max_end : INT64_MIN);
}

/* The origin: the first source with a smallest time. */
static void
find_origin(struct pctx *x)
{
	for (int i = 0; i < x->nsrc && x->origin == INT64_MAX; i++) {
		const char *from;

		if ((x->origin = src_min_ts(&x->src[i], &from)) != INT64_MAX)
			x->origin_from = from;
	}
}

/* profiler_info, step_trace and op_statistic; the op_summary slices
 * op_statistic says are missing. */
static void
read_tables(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	if (fk[F_INFO])
		tab_info(&x->tabc, fk[F_INFO], &x->cfg, &x->level);
	meta_read(&x->tabc, p->dir, p->name, &x->meta);
	if (fk[F_STEPTRACE])
		tab_steptrace(&x->tabc, fk[F_STEPTRACE], p->name);
	else if (x->db)
		x->dbsteps = db_steptrace(x->db, p->name, &tables) > 0;
	if (fk[F_OPSTAT])
		x->opcount = tab_opstat(&x->tabc, fk[F_OPSTAT], p->name);
	/*
	 * msprof's op_statistic counts the kernels of the whole capture (as
	 * many as its op_summary rows; torch_npu's counts fewer than its
	 * kernel_details.csv, without the communication rows): fewer rows
	 * than that is a slice missing, the last one included, which no gap
	 * in the slice numbers shows.
	 */
	if (fk[F_KERNEL] && !x->details && x->opcount >= 0) {
		int64_t nread = 0;

		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_KERNEL && !p->f[i].extra)
				nread += (int64_t)p->f[i].read;
		if (nread < x->opcount) {
			x->sgap = 1;
			addwarn("op_summary_kernels_missing", "%s counts %lld kernels, the "
			    "op_summary files hold %lld rows: %lld kernel%s not in the "
			    "analysis (a last slice missing?)", fk[F_OPSTAT]->base,
			    (long long)x->opcount, (long long)nread, (long long)(x->opcount - nread),
			    x->opcount - nread == 1 ? " is" : "s are");
		}
	}
}

/* Communication: the text files, else the database's; then what
 * analysis.db gave, and the origin when nothing else had one. */
static void
read_comm(struct pctx *x)
{
	struct src_file **fk = x->fk;

	if (fk[F_COMMX])
		tab_commx_read(&x->tabc, fk[F_COMMX]);
	if (fk[F_COMM]) {
		int64_t o = x->origin;

		tab_comm_read(&x->tabc, fk[F_COMM], &o);
		if (x->origin == INT64_MAX && o != INT64_MAX) {
			x->origin = o;
			x->origin_from = "communication";
		}
	} else if (x->db && db_comm_scan(x->db) != 0)
		die("%s", db_err(x->db));
	if (x->db && db_comm_tasks_scan(x->db) != 0)
		die("%s", db_err(x->db));
	if (x->db && db_dev_tasks_scan(x->db) != 0)
		die("%s", db_err(x->db));
	if (x->db) {
		const char *code, *msg;

		/* the database's comm records and what analysis.db gave */
		db_counts(x->db, &x->dc);
		if (!x->dc.comm_analysis)
			dbused->emitted += x->dc.comm_records;
		anfile = (struct src_file){ .kind = F_ANALYSIS, .base = x->dc.an_found ? "analysis.db" : NULL,
		    .read = x->dc.an_read, .emitted = x->dc.an_emitted, .rejected = x->dc.an_rejected };
		x->rejected += x->dc.an_rejected;
		for (int i = 0; (code = db_warning(x->db, i, &msg)) != NULL; i++)
			if (i >= x->nw0)
				addwarn(code, "%s", msg);
	}
	if (x->origin == INT64_MAX)
		x->origin = 0;
}

/* Kernels into (device, start) order; the rows rejected in all. */
static void
sort_kernels(struct pctx *x)
{
	struct profile *p = x->p;

	x->runs = ktab_sort(&x->kt);
	if (x->runs > 1) {
		if (x->nkfiles > 1 && x->runs <= (size_t)x->nkfiles)
			addwarn("kernels_merged", "%zu sorted runs from %d files merged into (device, start) order", x->runs, x->nkfiles);
		else
			addwarn("kernels_unsorted", "kernel rows are not in (device, start) order (%zu sorted runs); sorted, rows read again by seeking", x->runs);
	}
	for (int i = 0; i < p->nf; i++)
		x->rejected += p->f[i].rejected;
}

/* A profile's files read, in order: what each step needs the one before did. */
void
read_profile(struct pctx *x)
{
	pick_files(x);
	open_db(x);
	read_ktab(x);
	read_trace(x);
	check_spans(x);
	find_origin(x);
	read_tables(x);
	read_comm(x);
	sort_kernels(x);
}
