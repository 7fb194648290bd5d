/* ktab: the kernel tables (kernel_details.csv, op_summary slices). */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cell.h"
#include "cmp.h"
#include "csvline.h"
#include "dec.h"
#include "ktab.h"
#include "rec.h"
#include "rec_out.h"
#include "simd.h"
#include "util.h"

/* A bad row or file: the caller's kt->bad() says it (and may exit). */
#define kbad(kt, ...)	sayf((kt)->bad, __VA_ARGS__)

static const struct {
	const char	*key;		/* output key */
	const char	*names[4];	/* header spellings across versions */
} cols[C_NCOLS] = {
	[C_STEP] = { "step", { "Step Id", "Step ID" } },
	[C_DEVICE] = { "device", { "Device_id" } },
	[C_MODEL] = { "model_id", { "Model ID" } },
	[C_TASKID] = { "task_id", { "Task ID" } },
	[C_STREAM] = { "stream", { "Stream ID" } },
	[C_NAME] = { "name", { "Name", "Op Name" } },
	[C_OPTYPE] = { "op_type", { "Type", "OP Type" } },
	[C_OPSTATE] = { "op_state", { "OP State" } },
	[C_TASKTYPE] = { "task_type", { "Accelerator Core", "Task Type" } },
	[C_START] = { "start", { "Start Time(us)", "Task Start Time(us)", "Task Start Time" } },
	[C_DUR] = { "dur", { "Duration(us)", "Task Duration(us)" } },
	[C_WAIT] = { "wait", { "Wait Time(us)", "Task Wait Time(us)" } },
	[C_BLOCK] = { "block_dim", { "Block Dim", "Block Num" } },
	[C_MIXBLOCK] = { "mix_block_dim", { "Mix Block Dim", "Mix Block Num" } },
	[C_HF32] = { "hf32", { "HF32 Eligible" } },
	[C_INSHAPES] = { "in_shapes", { "Input Shapes" } },
	[C_INDTYPES] = { "in_dtypes", { "Input Data Types" } },
	[C_INFORMATS] = { "in_formats", { "Input Formats" } },
	[C_OUTSHAPES] = { "out_shapes", { "Output Shapes" } },
	[C_OUTDTYPES] = { "out_dtypes", { "Output Data Types" } },
	[C_OUTFORMATS] = { "out_formats", { "Output Formats" } },
	[C_CONTEXT] = { "context_id", { "Context ID" } },
};

/* Columns we do not carry (graph-export bookkeeping). */
static const char *dropcols[] = { "Model Name", "Infer ID", NULL };



static int
mapheader(struct ktab *kt, struct csvin *c, struct kfile *kf, const char *fname)
{
	memset(kf, 0, sizeof *kf);
	for (int k = 0; k < C_NCOLS; k++)
		kf->idx[k] = -1;
	kf->ncols = c->nf;
	kf->pmu = xreallocarray(NULL, (size_t)c->nf, sizeof *kf->pmu);
	kf->pmuname = xreallocarray(NULL, (size_t)c->nf, sizeof *kf->pmuname);
	for (int i = 0; i < c->nf; i++) {
		size_t n;
		const char *h = csv_field(c, i, &n);
		int hit = 0;

		while (n && (h[n - 1] == ' ' || h[n - 1] == '\t'))
			n--;
		for (int k = 0; k < C_NCOLS && !hit; k++)
			for (int j = 0; j < 4 && cols[k].names[j]; j++)
				if (strlen(cols[k].names[j]) == n &&
				    memcmp(cols[k].names[j], h, n) == 0) {
					if (kf->idx[k] < 0)
						kf->idx[k] = i;
					hit = 1;
					break;
				}
		for (int j = 0; dropcols[j] && !hit; j++)
			if (strlen(dropcols[j]) == n && memcmp(dropcols[j], h, n) == 0)
				hit = 1;
		if (!hit) {
			kf->pmu[kf->npmu] = i;
			kf->pmuname[kf->npmu++] = xstrndup(h, n);
		}
	}
	kf->pmukey = xcalloc((size_t)kf->npmu + 1, sizeof *kf->pmukey);
	for (int i = 0; i < kf->npmu; i++) {
		out_esc(&kf->pmukey[i], kf->pmuname[i], strlen(kf->pmuname[i]));
		buf_addc(&kf->pmukey[i], ':');
		kf->pmukeys += kf->pmukey[i].len + 1;
		buf_grow(&kf->pmukey[i], 64);	/* for kcopy */
	}
	if (kf->idx[C_START] < 0) {
		kbad(kt, "%s:%lu: no start-time column (\"Start Time(us)\" or \"Task Start Time(us)\")", fname, c->recline);
		return -1;
	}
	if (kf->idx[C_DUR] < 0) {
		kbad(kt, "%s:%lu: no duration column (\"Duration(us)\")", fname, c->recline);
		return -1;
	}
	if (kf->idx[C_NAME] < 0) {
		kbad(kt, "%s:%lu: no name column (\"Name\" or \"Op Name\")", fname, c->recline);
		return -1;
	}
	return 0;
}

static void
freekfile(struct kfile *kf)
{
	for (int i = 0; i < kf->npmu; i++) {
		free(kf->pmuname[i]);
		buf_free(&kf->pmukey[i]);
	}
	free(kf->pmukey);
	free(kf->pmu);
	free(kf->pmuname);
}

static int
cell(const struct csvin *c, const struct kfile *kf, int col, const char **s, size_t *n)
{
	if (kf->idx[col] < 0)
		return 0;
	*s = csv_field(c, kf->idx[col], n);
	return 1;
}

static void
progressline(const char *name, unsigned long long bytes, struct timespec *t0, int done)
{
	struct timespec t;
	double dt;

	clock_gettime(CLOCK_MONOTONIC, &t);
	dt = (double)(t.tv_sec - t0->tv_sec) + (double)(t.tv_nsec - t0->tv_nsec) / 1e9;
	fprintf(stderr, "\r%s: %.0f MB, %.0f MB/s%s", name, (double)bytes / 1e6,
	    dt > 0 ? (double)bytes / 1e6 / dt : 0.0, done ? "\n" : "");
}

#define KINLINE	static inline __attribute__((always_inline))

/* dec_us2ns, with the common [-]digits[.ddd] form (blanks around) read
 * here. */
KINLINE int
us2ns(const char *s, size_t n, int64_t *out)
{
	const char *p = s, *e = s + n;
	uint64_t v = 0;
	int neg = 0, nd = 0, nfrac = 0;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' || e[-1] == '\n'))
		e--;
	if (p < e && *p == '-')
		neg = 1, p++;
	for (; p < e && (unsigned char)(*p - '0') <= 9 && nd < 16; p++, nd++)
		v = v * 10 + (uint64_t)(*p - '0');
	if (nd == 0)
		return dec_us2ns(s, n, out);
	if (p < e && *p == '.')
		for (p++; p < e && (unsigned char)(*p - '0') <= 9 && nfrac < 3; p++, nfrac++)
			v = v * 10 + (uint64_t)(*p - '0');
	if (p != e)
		return dec_us2ns(s, n, out);
	for (; nfrac < 3; nfrac++)
		v *= 10;
	if (v > (uint64_t)INT64_MAX)	/* 19 digits fit in 64 bits unsigned */
		return dec_us2ns(s, n, out);
	*out = neg ? -(int64_t)v : (int64_t)v;
	return 0;
}

/*
 * The fields of a kernel row before the times (device, stream, step,
 * name, op_type, task_type) for rec_out_kernel; the wait and the rest
 * by kfields_tail.  No field is converted here but the wait.
 */
static void
kfields_head(struct kout *k, const struct csvin *c, const struct kfile *kf)
{
	static const int col[] = { C_DEVICE, C_STREAM, C_STEP, C_OPTYPE, C_TASKTYPE };
	struct kval *f[] = { &k->device, &k->stream, &k->step, &k->op_type, &k->task_type };

	for (int i = 0; i < 5; i++) {
		if (kf->idx[col[i]] < 0) {
			f[i]->kind = KV_NULL;
			f[i]->n = 0;
		} else {
			f[i]->kind = i < 2 ? KV_ICELL : KV_CELL;
			f[i]->s = csv_field(c, kf->idx[col[i]], &f[i]->n);
		}
	}
	k->name.kind = KV_STR;
	k->name.s = csv_field(c, kf->idx[C_NAME], &k->name.n);
}

/*
 * The first integer column of the row whose cell is neither an integer
 * nor null (N/A, empty, 4294967295): its index (the cell in *s, *n),
 * else -1.  Written as null, such a cell (a Stream ID past 2^63, a
 * text) would be lost without a word.
 */
static int
badintcell(const struct csvin *c, const struct kfile *kf, const char **s, size_t *n)
{
	static const int icol[] = { C_DEVICE, C_STREAM, C_TASKID, C_MODEL, C_BLOCK, C_MIXBLOCK };
	int64_t v;

	for (size_t i = 0; i < sizeof icol / sizeof icol[0]; i++) {
		if (kf->idx[icol[i]] < 0)
			continue;
		*s = csv_field(c, kf->idx[icol[i]], n);
		cell_trim(s, n);
		if (cell_plainint(*s, *n) || cell_isnull(*s, *n) ||
		    (*n == 10 && memcmp(*s, "4294967295", 10) == 0) ||
		    cell_int(*s, *n, &v) == 0)
			continue;
		return icol[i];
	}
	return -1;
}

/* The columns after the times, in rec_out's order (KS_*), and their kinds. */
static const struct {
	int	 col, kind;
} tailcol[KS_N] = {
	[KS_WAIT] = { C_WAIT, KV_NULL }, [KS_TASKID] = { C_TASKID, KV_ICELL },
	[KS_MODEL] = { C_MODEL, KV_ICELL }, [KS_OPSTATE] = { C_OPSTATE, KV_CELL },
	[KS_BLOCK] = { C_BLOCK, KV_ICELL }, [KS_MIXBLOCK] = { C_MIXBLOCK, KV_ICELL },
	[KS_HF32] = { C_HF32, KV_CELL }, [KS_INSHAPES] = { C_INSHAPES, KV_SHAPE },
	[KS_INDTYPES] = { C_INDTYPES, KV_SHAPE }, [KS_INFORMATS] = { C_INFORMATS, KV_SHAPE },
	[KS_OUTSHAPES] = { C_OUTSHAPES, KV_SHAPE }, [KS_OUTDTYPES] = { C_OUTDTYPES, KV_SHAPE },
	[KS_OUTFORMATS] = { C_OUTFORMATS, KV_SHAPE }, [KS_CONTEXT] = { C_CONTEXT, KV_CELL },
};

/* The wait (checked when the row was read), the other columns after the
 * times, and the PMU values into pv (kf->npmu, their keys set). */
static void
kfields_tail(struct kout *k, const struct csvin *c, const struct kfile *kf, struct kpmu *pv)
{
	const char *s;
	size_t n;

	for (int i = 0; i < KS_N; i++) {
		struct kval *f = &k->tail[i];

		if (kf->idx[tailcol[i].col] < 0) {
			f->kind = i == KS_WAIT ? KV_NULL : KV_ABSENT;
			f->n = 0;
		} else {
			f->kind = tailcol[i].kind;
			f->s = csv_field(c, kf->idx[tailcol[i].col], &f->n);
		}
	}
	if (kf->idx[C_WAIT] >= 0) {
		int64_t v = 0;

		s = k->tail[KS_WAIT].s;
		n = k->tail[KS_WAIT].n;
		cell_trim(&s, &n);
		if (!cell_isnull(s, n) && us2ns(s, n, &v) == 0) {
			k->tail[KS_WAIT].kind = KV_INT;
			k->tail[KS_WAIT].v = v;
		} else
			k->tail[KS_WAIT].kind = KV_NULL;
	}
	k->npmu = 0;
	k->pmu = NULL;
	if (kf->nopmu)
		return;
	for (int i = 0; i < kf->npmu; i++) {
		int num;

		s = csv_field(c, kf->pmu[i], &n);
		/* Fast path: a plain number needs no trimming (a JSON
		 * number has no blanks). */
		if (!(num = cell_isnum16(s, n))) {
			cell_trim(&s, &n);
			num = cell_isnull(s, n) ? -1 : cell_isnum(s, n);
		}
		pv[i].s = s;
		pv[i].n = n;
		pv[i].num = num;
	}
	k->npmu = kf->npmu;
	k->pmu = pv;
}

/* Null-like as rec_out writes it: no column, or a null cell (cell.h). */
static int
kvnull(const struct kval *v, int integer)
{
	const char *s = v->s;
	size_t n = v->n;

	if (v->kind == KV_NULL)
		return 1;
	cell_trim(&s, &n);
	if (!integer)
		return cell_isnulltext(s, n);
	return cell_isnull(s, n) || (n == 10 && memcmp(s, "4294967295", 10) == 0);
}

/*
 * A row without a stream or task type takes them from the timeline's
 * device task of its start and name, when exactly one task matches
 * (Level0: the table has no Stream ID and its Accelerator Core is N/A).
 */
static void
kfill(struct ktab *kt, struct kout *k, int64_t start)
{
	const struct trace_devtasks *d = kt->dt;
	const struct trace_devtask *hit = NULL;
	size_t lo = 0, hi = d->n;
	int ns = kvnull(&k->stream, 1), nt = kvnull(&k->task_type, 0);

	if (!ns && !nt)
		return;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->v[mid].start < start)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < d->n && d->v[lo].start == start; lo++)
		if (d->v[lo].nname == k->name.n &&
		    memcmp(d->names.p + d->v[lo].noff, k->name.s, k->name.n) == 0) {
			if (hit)
				return;	/* two tasks: which one is not known */
			hit = &d->v[lo];
		}
	if (hit == NULL)
		return;
	if (ns && hit->has_stream) {
		k->stream.kind = KV_INT;
		k->stream.v = hit->stream;
		kt->filled_stream++;
	}
	if (nt && hit->nttype) {
		k->task_type.kind = KV_STR;
		k->task_type.s = hit->ttype;
		k->task_type.n = hit->nttype;
		kt->filled_ttype++;
	}
}

/* A pipe cannot be read twice: copy it to an unlinked file in $TMPDIR. */
static int
tmpcopy(const struct ktab *kt, int fd, const char *path)
{
	size_t np = strlen(kt->tmpdir) + 20;
	char *tp = xmalloc(np);
	static char b[1 << 16];
	int t;
	ssize_t n, w;

	snprintf(tp, np, "%s/asc-ingest.XXXXXX", kt->tmpdir);
	if ((t = mkstemp(tp)) < 0)
		dieerr("%s", tp);
	unlink(tp);
	free(tp);
	for (;;) {
		if ((n = read(fd, b, sizeof b)) < 0) {
			if (errno == EINTR)
				continue;
			dieerr("%s", path);
		}
		if (n == 0)
			break;
		for (ssize_t o = 0; o < n; o += w)
			if ((w = write(t, b + o, (size_t)(n - o))) < 0) {
				if (errno != EINTR)
					dieerr("%s: spill file", kt->tmpdir);
				w = 0;
			}
	}
	if (lseek(t, 0, SEEK_SET) != 0)
		dieerr("%s: spill file", kt->tmpdir);
	return t;
}

/* What the header says the table holds: the columns read now (the rest
 * of a row is only counted), and the PMU counters' names. */
static void
kheader_seen(struct ktab *kt, struct csvin *c, const struct kfile *kf)
{
	static const enum col need[] = { C_START, C_DUR, C_WAIT, C_DEVICE,
	    C_STREAM, C_STEP, C_NAME, C_OPTYPE, C_TASKTYPE, C_TASKID,
	    C_MODEL, C_BLOCK, C_MIXBLOCK };

	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (kf->idx[need[i]] >= c->keep)
			c->keep = kf->idx[need[i]] + 1;
	if (kf->idx[C_STEP] >= 0)
		kt->has_step = 1;
	if (kf->idx[C_DEVICE] >= 0)
		kt->has_device = 1;
	if (kf->idx[C_INSHAPES] >= 0)
		kt->has_shapes = 1;
	if (kf->npmu) {
		kt->has_pmu = 1;
		if (kt->pmunames.len == 0) {
			buf_addc(&kt->pmunames, '[');
			for (int i = 0; i < kf->npmu; i++) {
				if (i)
					buf_addc(&kt->pmunames, ',');
				out_esc(&kt->pmunames, kf->pmuname[i], strlen(kf->pmuname[i]));
				if (strstr(kf->pmuname[i], "mte2_ratio") || strstr(kf->pmuname[i], "mac_ratio") ||
				    strstr(kf->pmuname[i], "vec_ratio"))
					kt->pmu_pipe = 1;
			}
			buf_addc(&kt->pmunames, ']');
		}
	}
}

/* A row's times and device: 0, or -1 when the row is rejected (said). */
static int
krow_check(struct ktab *kt, const struct src_file *pf, struct csvin *c,
    const struct kfile *kf, struct buf *scratch, int64_t t[3], int64_t *devp)
{
	const char *s;
	size_t n;
	int64_t start, dur, end, dev = -1;
	int bi;

	s = csv_field(c, kf->idx[C_START], &n);
	if (us2ns(s, n, &start) != 0) {
		kbad(kt, "%s:%lu: field \"%s\": not a time: '%s'", pf->path, c->recline,
		    cols[C_START].names[0], cell_snip(s, n));
		return -1;
	}
	s = csv_field(c, kf->idx[C_DUR], &n);
	if (us2ns(s, n, &dur) != 0 || dur < 0) {
		kbad(kt, "%s:%lu: field \"Duration(us)\": %s: '%s'", pf->path, c->recline,
		    dur < 0 && dec_us2ns(s, n, &dur) == 0 ? "negative" : "not a number", cell_snip(s, n));
		return -1;
	}
	/* end_ns is written: start + duration must be a time */
	if (__builtin_add_overflow(start, dur, &end)) {
		kbad(kt, "%s:%lu: start + duration past the range of 64-bit ns: '%s'",
		    pf->path, c->recline, cell_snip(s, n));
		return -1;
	}
	if ((bi = badintcell(c, kf, &s, &n)) >= 0) {
		kbad(kt, "%s:%lu: field \"%s\": %s: '%s'", pf->path, c->recline,
		    cols[bi].names[0], cell_digits(*s == '-' ? s + 1 : s, *s == '-' ? n - 1 : n) ?
		    "out of the range of a 64-bit integer" : "not an integer", cell_snip(s, n));
		return -1;
	}
	if (cell(c, kf, C_DEVICE, &s, &n)) {
		int64_t v;

		cell_trim(&s, &n);
		if (cell_plainint(s, n)) {
			dev = 0;
			for (size_t i = 0; i < n; i++)
				dev = dev * 10 + (s[i] - '0');
		} else if (!cell_isnull(s, n) && dec_parse(s, n, 0, &v) == 0)
			dev = v;
	}
	if (cell(c, kf, C_TASKTYPE, &s, &n)) {
		cell_trim(&s, &n);
		if (!(n == 4 && memcmp(s, "HCCL", 4) == 0) && cell_isnull(s, n))
			kt->na_types++;
	} else
		kt->na_types++;
	if (cell(c, kf, C_WAIT, &s, &n)) {
		int64_t w;

		cell_trim(&s, &n);
		if (!cell_isnull(s, n) && (us2ns(s, n, &w) != 0 || w < 0)) {
			/* The record's first half was formatted before
			 * this check: its invalid UTF-8 counts. */
			static const char nopre[64];
			struct kout kh = { .pre = nopre, .overread = 1 };

			kfields_head(&kh, c, kf);
			scratch->len = 0;
			rec_out_kernel(scratch, &kh);
			kbad(kt, "%s:%lu: field \"Wait Time(us)\": not a non-negative number: '%s'",
			    pf->path, c->recline, cell_snip(s, n));
			return -1;
		}
	}
	t[0] = start;
	t[1] = dur;
	t[2] = end;
	*devp = dev;
	return 0;
}

/* The table's file, opened (a copy when it is not a regular file). */
static int
kopen(struct ktab *kt, struct kread *kr, const char *path)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
		dieerr("%s", path);
	kr->fd = -1;
	kr->dev = st.st_dev;
	kr->ino = st.st_ino;
	if (!S_ISREG(st.st_mode)) {
		kr->fd = tmpcopy(kt, fd, path);
		close(fd);
		fd = kr->fd;
	}
	return fd;
}

/*
 * Read one kernel CSV into kt: every row is checked, and what the sort
 * and the second reading need is kept (no text).  0, or -1 if the file
 * is unusable.
 */
int
ktab_read(struct ktab *kt, struct src_file *pf, int fileno_)
{
	struct kread *kr = &kt->kr[fileno_];
	struct kfile *kf = &kr->kf;
	struct csvin c;
	struct buf scratch = {0};
	struct timespec t0, tl;
	unsigned long long lastb = 0;
	int r;

	csv_fdopen(&c, kopen(kt, kr, pf->path), pf->path);
	c.ownfd = kr->fd < 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tl = t0;
	if ((r = csv_next(&c)) <= 0) {
		if (r == 0)
			kbad(kt, "%s:1: empty file, no header", pf->path);
		else
			kbad(kt, "%s:%lu: %s", pf->path, c.recline, c.err);
		goto unusable;
	}
	if (mapheader(kt, &c, kf, pf->path) != 0) {
		freekfile(kf);
		goto unusable;
	}
	kf->nopmu = kt->nopmu;
	kheader_seen(kt, &c, kf);
	while ((r = csv_next(&c)) != 0) {
		int64_t tm[3], dev;
		struct krow *k;

		if (kt->progress && (c.bytes - lastb) > (8u << 20)) {
			struct timespec t;

			clock_gettime(CLOCK_MONOTONIC, &t);
			lastb = c.bytes;
			if (t.tv_sec != tl.tv_sec) {
				tl = t;
				progressline(pf->base, c.bytes, &t0, 0);
			}
		}
		pf->read++;
		if (r < 0) {
			pf->rejected++;
			kbad(kt, "%s:%lu: %s", pf->path, c.recline, c.err);
			break;
		}
		if (c.nf != kf->ncols) {
			pf->rejected++;
			kbad(kt, "%s:%lu: %d fields, header has %d", pf->path, c.recline, c.nf, kf->ncols);
			continue;
		}
		if (krow_check(kt, pf, &c, kf, &scratch, tm, &dev) != 0) {
			pf->rejected++;
			continue;
		}
		if (kt->n == kt->cap) {
			kt->cap = kt->cap ? kt->cap * 2 : 4096;
			kt->row = xreallocarray(kt->row, kt->cap, sizeof *kt->row);
		}
		k = &kt->row[kt->n++];
		k->dev = dev;
		k->start = tm[0];
		k->dur = tm[1];
		k->off = c.recoff;
		k->len = c.bytes - c.recoff > UINT32_MAX ? UINT32_MAX : (uint32_t)(c.bytes - c.recoff);
		k->line = (uint32_t)c.recline;
		k->file = (uint16_t)fileno_;
		if (tm[0] < kt->minstart)
			kt->minstart = tm[0];
		if (tm[2] > kt->maxend)
			kt->maxend = tm[2];
		pf->emitted++;
	}
	if (kt->progress)
		progressline(pf->base, c.bytes, &t0, 1);
	buf_free(&scratch);
	csv_close(&c);
	kr->used = 1;
	return 0;
unusable:
	pf->unusable = 1;
	csv_close(&c);
	if (kr->fd >= 0)
		close(kr->fd);
	kr->fd = -1;
	return -1;
}

static int
krowcmp(const struct krow *x, const struct krow *y)
{
	return CMP_4(dev, start, file, line);
}

/*
 * Natural merge sort: sorted runs (one per op_summary slice, or the whole
 * file) are merged pairwise, k-way in effect; stable, so equal starts keep
 * file order.  Returns the number of runs found.
 */
size_t
ktab_sort(struct ktab *kt)
{
	size_t n = kt->n, runs = 1, nruns;
	struct krow *src = kt->row, *dst, *tmp;
	size_t *bound;

	if (n < 2)
		return n;
	for (size_t i = 1; i < n; i++)
		if (krowcmp(&src[i - 1], &src[i]) > 0)
			runs++;
	if (runs == 1)
		return 1;
	dst = xreallocarray(NULL, n, sizeof *dst);
	bound = xreallocarray(NULL, runs + 1, sizeof *bound);
	nruns = 0;
	bound[nruns++] = 0;
	for (size_t i = 1; i < n; i++)
		if (krowcmp(&src[i - 1], &src[i]) > 0)
			bound[nruns++] = i;
	bound[nruns] = n;
	while (nruns > 1) {
		size_t w = 0, nb = 0;

		for (size_t r = 0; r < nruns; r += 2) {
			size_t lo = bound[r], mid = bound[r + 1];
			size_t hi = r + 2 <= nruns ? bound[r + 2] : mid;
			size_t i = lo, j = mid;

			bound[nb++] = w;
			while (i < mid && j < hi)
				dst[w++] = krowcmp(&src[j], &src[i]) < 0 ? src[j++] : src[i++];
			while (i < mid)
				dst[w++] = src[i++];
			while (j < hi)
				dst[w++] = src[j++];
		}
		bound[nb] = n;
		nruns = nb;
		tmp = src;
		src = dst;
		dst = tmp;
	}
	if (src != kt->row) {
		free(kt->row);
		kt->row = src;
	} else
		free(dst);
	free(bound);
	return runs;
}

/* Write o: stdio's buffer first, then o straight to the descriptor. */
static void
kflush(struct buf *o)
{
	size_t off = 0;
	ssize_t n;

	if (fflush(stdout) != 0)
		dieerr("stdout");
	while (off < o->len)
		if ((n = write(fileno(stdout), o->p + off, o->len - off)) >= 0)
			off += (size_t)n;
		else if (errno != EINTR)
			dieerr("stdout");
	o->len = 0;
}

/* Files read at once while the rows are written (merged op_summary
 * slices); beyond this the least recently used is closed. */
#define KOPEN_MAX	32

/* Close the reader used least recently. */
static void
kevict(struct ktab *kt)
{
	struct kread *lru = NULL;

	for (int i = 0; i < kt->nkr; i++)
		if (kt->kr[i].open && (lru == NULL || kt->kr[i].lastuse < lru->lastuse))
			lru = &kt->kr[i];
	csv_close(&lru->c);
	lru->open = 0;
	kt->nopen--;
}

/* The reader of a kernel file, opened again for the second reading. */
static struct csvin *
kreader(struct ktab *kt, struct kread *kr, const struct src_file *pf)
{
	kr->lastuse = ++kt->uses;
	if (kr->open)
		return &kr->c;
	if (kt->nopen == KOPEN_MAX)
		kevict(kt);
	if (kr->fd >= 0)
		csv_fdopen(&kr->c, kr->fd, pf->path);
	else {
		struct stat st;
		int fd;

		/* Out of descriptors: fewer files open at once. */
		while ((fd = open(pf->path, O_RDONLY)) < 0 && (errno == EMFILE || errno == ENFILE) &&
		    kt->nopen > 0)
			kevict(kt);
		if (fd < 0 || fstat(fd, &st) != 0)
			dieerr("%s", pf->path);
		if (st.st_dev != kr->dev || st.st_ino != kr->ino)
			die("%s: replaced while being read", pf->path);
		csv_fdopen(&kr->c, fd, pf->path);
		kr->c.ownfd = 1;
	}
	kr->open = 1;
	kt->nopen++;
	return &kr->c;
}

void
ktab_free(struct ktab *kt)
{
	for (int i = 0; i < kt->nkr; i++) {
		struct kread *kr = &kt->kr[i];

		if (kr->open)
			csv_close(&kr->c);
		if (kr->fd >= 0)
			close(kr->fd);
		if (kr->used)
			freekfile(&kr->kf);
		buf_free(&kr->head);
	}
	free(kt->kr);
	free(kt->row);
	buf_free(&kt->pmunames);
	memset(kt, 0, sizeof *kt);
}

/*
 * Write the kernel records in sorted order.  Each row is read again from
 * its file at the offset kept: in a file in (device, start) order that
 * is one sequential reading; rows out of order cost a seek each.
 */
void
ktab_put(struct ktab *kt, const char *profile, const struct src_file *pf, int nf, int64_t origin)
{
	static struct buf o;
	struct kpmu **pv = xcalloc((size_t)kt->nkr + 1, sizeof *pv);

	/* File names come from the directory listing: escape-safe checked. */
	for (int i = 0; i < nf; i++)
		for (const char *c = pf[i].base; *c; c++)
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
				die("%s: file name needs escaping", pf[i].path);
	/* The record prefix is the same for every kernel of the file. */
	for (int i = 0; i < kt->nkr; i++)
		if (kt->kr[i].used) {
			struct buf stem = { 0 };

			buf_adds(&stem, pf[i].base);
			buf_addc(&stem, ':');
			rec_out_prefix(&kt->kr[i].head, "kernel", profile, stem.p, stem.len);
			buf_free(&stem);
			/* the PMU keys, the same for every row of the file */
			pv[i] = xcalloc((size_t)kt->kr[i].kf.npmu + 1, sizeof *pv[i]);
			for (int j = 0; j < kt->kr[i].kf.npmu; j++) {
				pv[i][j].key = kt->kr[i].kf.pmukey[j].p;
				pv[i][j].nkey = kt->kr[i].kf.pmukey[j].len;
			}
		}
	o.len = 0;
	for (size_t i = 0; i < kt->n; i++) {
		const struct krow *k = &kt->row[i];
		struct kread *kr = &kt->kr[k->file];
		const struct src_file *f = &pf[k->file];
		struct csvin *c = kreader(kt, kr, f);
		struct kout ko;

		if (csv_seek(c, k->off, k->line) != 0)
			dieerr("%s", f->path);
		if (csv_next(c) != 1 || c->nf != kr->kf.ncols || c->recline != k->line ||
		    (c->bytes - c->recoff > UINT32_MAX ? UINT32_MAX : (uint32_t)(c->bytes - c->recoff)) != k->len)
			die("%s:%lu: changed while being read", f->path, (unsigned long)k->line);
		ko.pre = kr->head.p;
		ko.npre = kr->head.len;
		ko.srcn = k->line;
		ko.overread = 1;
		ko.bound = (size_t)(c->bytes - c->recoff) + kr->kf.pmukeys;
		ko.comm = 0;
		ko.start = k->start - origin;
		ko.dur = k->dur;
		kfields_head(&ko, c, &kr->kf);
		kfields_tail(&ko, c, &kr->kf, pv[k->file]);
		if (kt->dt && kt->dt->n)
			kfill(kt, &ko, k->start);
		rec_out_kernel(&o, &ko);
		if (o.len >= (1u << 20))
			kflush(&o);
	}
	kflush(&o);
	for (int i = 0; i < kt->nkr; i++)
		free(pv[i]);
	free(pv);
}
