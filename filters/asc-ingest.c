/*
 * asc-ingest: read Ascend profiler exports (torch_npu, MindSpore, msprof)
 * and write their facts as NDJSON records, in the stream order of asc(7).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/dbread.h"
#include "ingest/find.h"
#include "ingest/ktab.h"
#include "ingest/meta.h"
#include "ingest/rec_out.h"
#include "ingest/source.h"
#include "ingest/tables.h"
#include "ingest/trace.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

/* The file kinds as the profile record names them. */
static const char *kindname[F_NKINDS] = {
	"kernel_table", "trace", "step_trace", "op_statistic",
	"communication", "communication_matrix", "profiler_info", "db", "analysis_db"
};

static int dflag, kflag, lflag, nulflag, qflag, progress;
static struct src_file *dbused;	/* the database read for this profile */
static struct src_file anfile;	/* analysis.db beside it (base NULL: none) */
static const char *tmpdir = "/tmp";
static const char *step_pattern;
/* -H: the host records go to this file, not standard output. */
static const char *hpath;
static int nopmu;		/* -P: PMU values left out of kernel records */
static FILE *hfp;
static int hostnull;	/* -H /dev/null: the host records are not made at all */
/* -M: the PMU values go to this file as "pmu" records (rec_out_pmufp). */
static const char *mpath;
/* The asides' stdio buffers: setvbuf() with a null buffer keeps glibc's
 * 4 KiB one whatever size is asked, a write(2) per 4 KiB. */
static char hbuf[1 << 20], mbuf[1 << 20];
static int exitcode = EX_OK;
static struct buf ob;		/* output record being built */

static void usage(void) __attribute__((noreturn));

/* The host writers of a profile, run beside the kernel writers (-H). */
struct hostjob {
	struct source	*src;
	int		 nsrc;
	FILE		*fp;
	const char	*name;
	int64_t		 origin;
};

static void *
hostmain(void *arg)
{
	const struct hostjob *j = arg;

	for (int i = 0; i < j->nsrc; i++)
		if (j->src[i].ops->put_host(&j->src[i], j->fp, j->name, j->origin) != 0)
			die("%s", j->src[i].ops->err(&j->src[i]));
	if (fflush(j->fp) != 0)
		dieerr("%s", hpath);
	return NULL;
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-0dklLPq] [-H hostfile] [-M pmufile] [-p pattern] [-r rules] path ...\n", progname);
	exit(EX_SYS);
}

/* A data error: report; stop unless -k. */
static void
baddata(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
baddata(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exitcode = EX_DATA;
	if (!kflag) {
		xclose_stdout();
		exit(EX_DATA);
	}
}

/* ---- small tables ---- */

/* Warnings are collected per profile and written after its record. */
struct warn {
	char	*code, *msg;
};
static struct warn *warns;
static int nwarns;

static void
addwarn(const char *code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
addwarn(const char *code, const char *fmt, ...)
{
	va_list ap;
	char m[512];

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	warns = xreallocarray(warns, (size_t)nwarns + 1, sizeof *warns);
	warns[nwarns].code = xstrdup(code);
	warns[nwarns].msg = xstrdup(m);
	nwarns++;
}

/* Buffered small-table records, written after the markers. */
static struct buf tables;

/* The small files' readers report through these. */
static void
tbad(const char *msg)
{
	baddata("%s", msg);
}

static void
twarn(const char *code, const char *msg)
{
	addwarn(code, "%s", msg);
}

/* ---- one profile ---- */

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

static void
putlist(struct buf *b, const char *key, const char **v, int n)
{
	out_key(b, key);
	buf_addc(b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		out_esc(b, v[i], strlen(v[i]));
	}
	buf_addc(b, ']');
}

static void
ktbad(const char *msg)
{
	baddata("%s", msg);
}

static void
dbbad(void *arg, const char *msg)
{
	baddata("%s", msg);
}

/*
 * The slice number and capture timestamp of an op_summary file name:
 * op_summary_slice_N_TS.csv (msprof's slices), op_summary_TS_N.csv, or
 * op_summary_TS.csv (*n -1: not sliced).  0, or -1 for another name.
 */
static int
slicename(const char *base, long *n, char *ts, size_t nts)
{
	const char *s = base + sizeof "op_summary_" - 1, *e = strrchr(base, '.');
	char *end;

	if (strncmp(base, "op_summary_", sizeof "op_summary_" - 1) != 0 || e == NULL)
		return -1;
	*n = -1;
	if (strncmp(s, "slice_", 6) == 0) {
		*n = strtol(s + 6, &end, 10);
		if (end == s + 6 || *end != '_')
			return -1;
		s = end + 1;
	}
	if ((size_t)(e - s) >= nts)
		return -1;
	memcpy(ts, s, (size_t)(e - s));
	ts[e - s] = '\0';
	if (*n < 0 && (end = strrchr(ts, '_')) != NULL && end[1] != '\0' &&
	    strspn(end + 1, "0123456789") == strlen(end + 1)) {
		*n = strtol(end + 1, NULL, 10);
		*end = '\0';
	}
	return 0;
}

/* Do files a and b hold the same bytes? */
static int
samebytes(const char *a, const char *b)
{
	static char ba[65536], bb[65536];
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int same = fa && fb;

	while (same) {
		size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);

		if (na != nb || memcmp(ba, bb, na) != 0)
			same = 0;
		else if (na == 0)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * msprof op_summary slices, before they are merged: a copy of another
 * slice (same bytes) is not read; a gap in the slice numbers, and files
 * of two captures (two timestamps), are said.
 */
static int
slicecheck(struct profile *p)
{
	char ts0[64] = "", ts[64], first[64] = "";
	long lo = -1, hi = -1, n, cnt = 0;
	const char *other = NULL;

	for (int i = 0; i < p->nf; i++) {
		struct src_file *f = &p->f[i];
		struct stat sa, sb;

		if (f->kind != F_KERNEL || slicename(f->base, &n, ts, sizeof ts) != 0)
			continue;
		for (int j = 0; j < i; j++)
			if (p->f[j].kind == F_KERNEL && !p->f[j].extra &&
			    stat(f->path, &sa) == 0 && stat(p->f[j].path, &sb) == 0 &&
			    sa.st_size == sb.st_size && samebytes(f->path, p->f[j].path)) {
				f->extra = 1;
				addwarn("op_summary_duplicate", "%s: the same rows as %s: not read "
				    "(a copied slice would count its kernels twice)", f->base, p->f[j].base);
				break;
			}
		if (f->extra)
			continue;
		if (ts0[0] == '\0') {
			snprintf(ts0, sizeof ts0, "%s", ts);
			snprintf(first, sizeof first, "%.63s", f->base);
		} else if (strcmp(ts, ts0) != 0 && other == NULL)
			other = f->base;
		if (n >= 0 && strcmp(ts, ts0) == 0) {
			lo = lo < 0 || n < lo ? n : lo;
			hi = n > hi ? n : hi;
			cnt++;
		}
	}
	if (other)
		addwarn("op_summary_foreign", "%s and %s are of two captures (their "
		    "timestamps differ): their kernels are merged; check that they "
		    "belong together", first, other);
	if (cnt && hi - lo + 1 > cnt) {
		addwarn("op_summary_slice_missing", "op_summary slices %ld..%ld of %s: "
		    "%ld of %ld found, the kernels of the missing ones are not in "
		    "the analysis", lo, hi, ts0, cnt, hi - lo + 1);
		return 1;
	}
	return 0;
}

/* s seconds with ms, for a distance in ns. */
static const char *
secs(uint64_t d, char *t, size_t n)
{
	snprintf(t, n, "%llu.%03llu s", (unsigned long long)(d / 1000000000),
	    (unsigned long long)(d / 1000000 % 1000));
	return t;
}

/* The kernels of one device in one kernel file: their smallest and
 * largest start. */
struct dspan {
	int64_t	 dev, lo, hi;
};

/* What slicespan() learns of one kernel file from its rows. */
struct fspan {
	size_t	 rows, out;	/* rows; those outside the timeline */
	uint64_t far;		/* the distance of the farthest of those */
	size_t	 d0, nd;	/* its device spans */
	int	 unsorted;	/* a device's starts go back in time */
	long	 n;		/* slice number of the capture, or -1 */
};

/* The kernel files' spans, from the rows read (in file order). */
static struct dspan *
spans(const struct ktab *kt, struct fspan *fs, int64_t t0, int64_t t1, size_t *nds)
{
	struct dspan *ds = NULL;
	size_t nd = 0, cap = 0, last = 0;
	int cur = -1;

	for (size_t i = 0; i < kt->n; i++) {
		const struct krow *k = &kt->row[i];
		struct fspan *f = &fs[k->file];

		if (k->file != cur) {
			cur = k->file;
			f->d0 = last = nd;
		}
		f->rows++;
		if (k->start < t0 || k->start > t1) {
			uint64_t d = k->start < t0 ? (uint64_t)t0 - (uint64_t)k->start :
			    (uint64_t)k->start - (uint64_t)t1;

			f->out++;
			f->far = d > f->far ? d : f->far;
		}
		if (last >= nd || ds[last].dev != k->dev)
			for (last = f->d0; last < nd && ds[last].dev != k->dev; last++)
				;
		if (last == nd) {
			if (nd == cap) {
				cap = cap ? cap * 2 : 16;
				ds = xreallocarray(ds, cap, sizeof *ds);
			}
			ds[nd++] = (struct dspan){ k->dev, k->start, k->start };
			f->nd++;
		} else if (k->start < ds[last].hi)
			f->unsorted = 1;
		else
			ds[last].hi = k->start;
	}
	*nds = nd;
	return ds;
}

/*
 * A slice of another capture renamed to this one's timestamp, found from
 * its rows: its kernels start outside the span of the profile's timeline
 * (when it has one, unsliced, file), or before the last start of a
 * lower-numbered slice on the same device, when every slice is in time
 * order on each device (msprof cuts one time-ordered table into
 * consecutive slices).  Real kernels are device events of the timeline:
 * 1 ms of slack is left for rounding.  1 when one is found.
 */
#define SLACK	1000000		/* ns: 1 ms */

static int
slicespan(const struct profile *p, const struct ktab *kt, int64_t t0, int64_t t1)
{
	struct fspan *fs = xcalloc((size_t)p->nf, sizeof *fs);
	int *ord = xcalloc((size_t)p->nf, sizeof *ord);
	char ts0[64] = "", ts[64], a[40];
	int no = 0, found = 0, sorted = 1, over = 0;
	size_t nds, nlast = 0;
	struct dspan *ds, *last;
	int *lastf;

	if (t0 == INT64_MAX || t1 == INT64_MIN) {	/* no timeline: no bounds */
		t0 = INT64_MIN;
		t1 = INT64_MAX;
	} else {
		t0 = t0 < INT64_MIN + SLACK ? INT64_MIN : t0 - SLACK;
		t1 = t1 > INT64_MAX - SLACK ? INT64_MAX : t1 + SLACK;
	}
	ds = spans(kt, fs, t0, t1, &nds);
	for (int i = 0; i < p->nf; i++) {
		const struct src_file *f = &p->f[i];
		long n;

		fs[i].n = -1;
		if (f->kind != F_KERNEL || f->extra || fs[i].rows == 0 ||
		    slicename(f->base, &n, ts, sizeof ts) != 0 || n < 0)
			continue;
		if (fs[i].out) {
			found = 1;
			addwarn("op_summary_slice_foreign", "%s: %zu of its %zu kernels start "
			    "outside the timeline's span (up to %s away): a slice of another "
			    "capture? Its kernels are merged; device idle and host attribution "
			    "do not hold", f->base, fs[i].out, fs[i].rows, secs(fs[i].far, a, sizeof a));
			continue;
		}
		if (ts0[0] == '\0')
			snprintf(ts0, sizeof ts0, "%s", ts);
		if (strcmp(ts, ts0) != 0)
			continue;
		fs[i].n = n;
		sorted &= !fs[i].unsorted;
		ord[no++] = i;
	}
	last = xreallocarray(NULL, nds + 1, sizeof *last);
	lastf = xreallocarray(NULL, nds + 1, sizeof *lastf);
	/* by slice number (a few files: insertion) */
	for (int j = 1; j < no; j++)
		for (int k = j; k > 0 && fs[ord[k - 1]].n > fs[ord[k]].n; k--) {
			int x = ord[k];

			ord[k] = ord[k - 1];
			ord[k - 1] = x;
		}
	/*
	 * Each device's starts, slice after slice, never go back in time:
	 * last[] holds each device's latest start so far and its file.  The
	 * first slice that goes back is said.
	 */
	for (int j = 0; sorted && j < no && !over; j++) {
		const struct fspan *f = &fs[ord[j]];

		for (size_t d = f->d0; d < f->d0 + f->nd && !over; d++) {
			size_t e;

			for (e = 0; e < nlast && last[e].dev != ds[d].dev; e++)
				;
			if (e < nlast && ds[d].lo < last[e].hi) {
				found = over = 1;
				addwarn("op_summary_slice_foreign", "%s and %s overlap in time: "
				    "kernels of the first start %s before the last of the second, "
				    "though a capture's slices are consecutive pieces of one "
				    "time-ordered table: one of them is of another capture? Their "
				    "kernels are merged; device idle does not hold",
				    p->f[ord[j]].base, p->f[lastf[e]].base,
				    secs((uint64_t)last[e].hi - (uint64_t)ds[d].lo, a, sizeof a));
			} else if (e == nlast) {
				last[nlast] = ds[d];
				lastf[nlast++] = ord[j];
			} else if (ds[d].hi > last[e].hi) {
				last[e].hi = ds[d].hi;
				lastf[e] = ord[j];
			}
		}
	}
	free(last);
	free(lastf);
	free(ds);
	free(ord);
	free(fs);
	return found;
}

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

/* One profile's reading: what process() and its steps share. */
struct pctx {
	struct profile	*p;
	struct src_file	*fk[F_NKINDS];	/* the file read of each kind */
	struct ktab	 kt;
	struct trace	*tr;
	struct trace_devtasks devt;	/* Level0's stream and task type */
	struct trace_counts tc;
	struct buf	 cfg;
	struct buf	 meta;		/* the metadata record */
	char		*level;
	const char	*deg[24], *origin_from;
	int		 ndeg, nkfiles, trace_used, disjoint;
	int		 details, ntrace, sgap, sforeign;
	int64_t		 opcount, origin;
	size_t		 runs;
	unsigned long	 rejected;
	char		 ob_us[40];
	struct dbread	*db;
	struct db_counts dc;
	int		 dbsteps, nw0;
	struct source	 src[3];	/* database, kernel table, timeline */
	struct tab_ctx	 tabc;
	struct src_counts sc, one;
	int		 nsrc;
};

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
	if (x->trace_used && x->kt.n && x->tc.host + x->tc.device > 0 && trace_min_ts(x->tr) != INT64_MAX) {
		int64_t t0 = trace_min_ts(x->tr), t1 = trace_max_end(x->tr);

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
		    x->trace_used && x->ntrace == 1 ? trace_min_ts(x->tr) : INT64_MAX,
		    x->trace_used && x->ntrace == 1 ? trace_max_end(x->tr) : INT64_MIN);
}

/* The origin: the first source with a smallest time. */
static void
find_origin(struct pctx *x)
{
	for (int i = 0; i < x->nsrc && x->origin == INT64_MAX; i++) {
		const char *from;

		if ((x->origin = x->src[i].ops->min_ts(&x->src[i], &from)) != INT64_MAX)
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

/* What is missing, in the codes of the evidence_gaps list. */
static void
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
			x->src[i].ops->counts(&x->src[i], &x->one);
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
static void
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
	putlist(&ob, "degraded", x->deg, x->ndeg);
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

/* Every other record of the profile, in stream order. */
static void
put_records(struct pctx *x)
{
	struct profile *p = x->p;
	struct src_file **fk = x->fk;

	for (int i = 0; i < x->nsrc; i++)
		if (x->src[i].ops->put_markers(&x->src[i], stdout, p->name, x->origin) != 0)
			die("%s", x->src[i].ops->err(&x->src[i]));
	if (tables.len && fwrite(tables.p, 1, tables.len, stdout) != tables.len)
		dieerr("stdout");
	if (fk[F_COMM])
		tab_comm_put(fk[F_COMM], p->name, x->origin);
	else if (x->db && db_put_comm(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	if (fk[F_COMMX])
		tab_commx_put(fk[F_COMMX], p->name);
	if (x->tr && x->tc.comm_tasks)
		trace_put_comm_tasks(x->tr, stdout, p->name, x->origin);
	else if (x->tr && x->tc.notify_waits)	/* Level0: the ops' waits */
		trace_put_notify_waits(x->tr, stdout, p->name, x->origin);
	else if (x->db && db_put_comm_tasks(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	if (x->tr)
		trace_put_dev_tasks(x->tr, stdout, p->name, x->origin);
	else if (x->db && db_put_dev_tasks(x->db, stdout, p->name, x->origin) != 0)
		die("%s", db_err(x->db));
	/*
	 * -H: the host events (the timeline's, millions in a large capture)
	 * are written to their file by a second thread while the kernels go
	 * to standard output, when no reader writes both: the merge of their
	 * sorted runs no longer holds back the end of the stream.
	 */
	struct hostjob hj = { x->src, x->nsrc, hfp, p->name, x->origin };
	pthread_t hth;
	int apart = hfp != NULL;

	for (int i = 0; i < x->nsrc; i++)
		if (x->src[i].kernels && strcmp(x->src[i].ops->name, "kernel_table") != 0)
			apart = 0;
	if (apart && (errno = pthread_create(&hth, NULL, hostmain, &hj)) != 0)
		dieerr("pthread_create");
	for (int i = 0; i < x->nsrc; i++)
		if (x->src[i].ops->put_kernels(&x->src[i], stdout, p->name, x->origin) != 0)
			die("%s", x->src[i].ops->err(&x->src[i]));
	/* asc-ops -M reads the file at the first host record on stdout. */
	if (rec_out_pmufp && (fflush(rec_out_pmufp) != 0 || ferror(rec_out_pmufp)))
		dieerr("%s", mpath);
	if (hostnull)
		;	/* the merge and the writing would go to nothing */
	else if (apart) {
		if ((errno = pthread_join(hth, NULL)) != 0)
			dieerr("pthread_join");
	} else if (hfp)
		hostmain(&hj);
	else
		for (int i = 0; i < x->nsrc; i++)
			if (x->src[i].ops->put_host(&x->src[i], stdout, p->name, x->origin) != 0)
				die("%s", x->src[i].ops->err(&x->src[i]));
}

static void
process(struct profile *p)
{
	struct pctx *x = xcalloc(1, sizeof *x);

	x->p = p;
	x->level = xstrdup("unknown");
	x->origin_from = "none";
	x->opcount = -1;
	x->origin = INT64_MAX;
	x->tabc = (struct tab_ctx){ tbad, twarn, &tables };
	x->kt.minstart = INT64_MAX;
	x->kt.maxend = INT64_MIN;
	x->kt.tmpdir = tmpdir;
	x->kt.progress = progress;
	x->kt.bad = ktbad;
	x->kt.nopmu = nopmu;
	nwarns = 0;
	tables.len = 0;
	pick_files(x);
	open_db(x);
	read_ktab(x);
	read_trace(x);
	check_spans(x);
	find_origin(x);
	read_tables(x);
	read_comm(x);
	sort_kernels(x);
	degraded(x);
	put_profile(x);
	put_records(x);
	for (int i = 0; i < x->nsrc; i++)
		x->src[i].ops->close(&x->src[i]);
	dbused = NULL;
	if (ferror(stdout))
		dieerr("stdout");
	if (!x->fk[F_KERNEL])
		ktab_free(&x->kt);
	buf_free(&x->cfg);
	buf_free(&x->meta);
	free(x->level);
	trace_devtasks_free(&x->devt);
	free(x);
}

/*
 * -H and -M files: a regular file is 0640 whatever the umask, as the
 * other outputs of asc are; a device or FIFO is written as it is.
 */
static FILE *
outfile(const char *path)
{
	struct stat st;
	FILE *fp;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0640)) < 0)
		dieerr("%s", path);
	if (fstat(fd, &st) != 0 || (S_ISREG(st.st_mode) && fchmod(fd, 0640) != 0))
		dieerr("%s", path);
	if ((fp = fdopen(fd, "w")) == NULL)
		dieerr("%s", path);
	return fp;
}

int
main(int argc, char *argv[])
{
	int ch;
	const char *t, *rfile = NULL;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((ch = getopt(argc, argv, "0dH:klLM:Pp:qr:")) != -1) {
		switch (ch) {
		case '0':
			nulflag = 1;
			break;
		case 'H':
			hpath = optarg;
			break;
		case 'd':
			dflag = 1;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'l':
			lflag = 1;
			break;
		case 'L':
			rec_out_leave = REC_OUT_LEAN;
			break;
		case 'M':
			mpath = optarg;
			break;
		case 'P':
			nopmu = 1;
			break;
		case 'p':
			step_pattern = optarg;
			break;
		case 'q':
			qflag = 1;
			break;
		case 'r':
			rfile = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	rules_load(rfile);
	if ((t = getenv("TMPDIR")) != NULL && *t)
		tmpdir = t;
	progress = !qflag && isatty(2);
	for (int i = 0; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0)
			dieerr("%s", argv[i]);
		if (S_ISDIR(st.st_mode)) {
			curroot = argv[i];
			if (findprofiles(argv[i], 10) == 0)
				die("%s: no profile found (no ASCEND_PROFILER_OUTPUT, *_ascend_pt, *_ascend_ms or PROF_* directory)", argv[i]);
		} else
			fileprofile(argv[i]);
	}
	if (lflag) {
		/* The profiles found, one per line: name TAB directory; with
		 * -0, name NUL directory NUL, for names holding any byte. */
		for (int i = 0; i < nprofs; i++)
			if (nulflag)
				printf("%s%c%s%c", profs[i].name, 0, profs[i].dir, 0);
			else
				printf("%s\t%s\n", profs[i].name, profs[i].dir);
		xclose_stdout();
		return EX_OK;
	}
	/*
	 * -H: one profile, so that its reader (asc-attrib -H) can take the
	 * whole file as that profile's host records; the file is complete
	 * before standard output is closed.
	 */
	if (hpath) {
		if (nprofs != 1)
			die("-H %s: %d profiles found: -H takes one profile", hpath, nprofs);
		struct stat hs, ns;

		if (stat(hpath, &hs) == 0 && S_ISCHR(hs.st_mode) && stat("/dev/null", &ns) == 0 &&
		    hs.st_rdev == ns.st_rdev)
			hostnull = 1;
		else {
			hfp = outfile(hpath);
			setvbuf(hfp, hbuf, _IOFBF, sizeof hbuf);
		}
	}
	/* -M: the same, for asc-ops -M.  -P leaves the values out: both
	 * cannot hold. */
	if (mpath) {
		if (nopmu)
			die("-M and -P: the PMU values go to a file or nowhere, not both");
		if (nprofs != 1)
			die("-M %s: %d profiles found: -M takes one profile", mpath, nprofs);
		rec_out_pmufp = outfile(mpath);
		setvbuf(rec_out_pmufp, mbuf, _IOFBF, sizeof mbuf);
	}
	/* 1 MiB output buffer: records are small and many. */
	stdout_big();
	for (int i = 0; i < nprofs; i++)
		process(&profs[i]);
	if (hfp && fclose(hfp) != 0)
		dieerr("%s", hpath);
	if (rec_out_pmufp && (ferror(rec_out_pmufp) | fclose(rec_out_pmufp)) != 0)
		dieerr("%s", mpath);
	if (rec_badutf8)
		warnmsg("invalid UTF-8: %lu byte(s) replaced by U+FFFD", rec_badutf8);
	xclose_stdout();
	return exitcode;
}
