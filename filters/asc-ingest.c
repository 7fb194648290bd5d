/*
 * asc-ingest: read Ascend profiler exports (torch_npu, MindSpore, msprof)
 * and write their facts as NDJSON records, in the stream order of asc(7).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jv.h>

#include "ingest/cell.h"
#include "ingest/commjson.h"
#include "ingest/csvline.h"
#include "ingest/dbread.h"
#include "dec.h"
#include "rec.h"
#include "simd.h"
#include "ingest/trace.h"
#include "util.h"

/* Kinds of input file a profile may hold. */
enum fkind {
	F_KERNEL,	/* kernel_details.csv or op_summary_*.csv (slices) */
	F_TRACE,	/* trace_view.json or msprof_*.json */
	F_STEPTRACE,	/* step_trace_time.csv */
	F_OPSTAT,	/* op_statistic*.csv */
	F_COMM,		/* communication.json */
	F_INFO,		/* profiler_info*.json */
	F_DB,		/* ascend_*_profiler*.db, msprof_*.db */
	F_ANALYSIS,	/* analysis.db beside a database that is read */
	F_NKINDS
};

static const char *kindname[F_NKINDS] = {
	"kernel_table", "trace", "step_trace", "op_statistic",
	"communication", "profiler_info", "db", "analysis_db"
};

struct pfile {
	enum fkind	 kind;
	char		*path;
	const char	*base;		/* file name, used in src and messages */
	unsigned long	 read, emitted, rejected;
};

struct profile {
	char		*name;
	char		*dir;
	const char	*framework;
	struct pfile	*f;
	int		 nf;
};

/* One kernel row: sort key plus where the row lies in its file. */
struct krow {
	int64_t		 dev, start, dur;
	uint64_t	 off;		/* byte offset of the row in its file */
	uint32_t	 len;		/* its length in bytes, to check the re-read */
	uint32_t	 line;
	uint16_t	 file;
};

static int dflag, kflag, lflag, qflag, progress;
static struct pfile *dbused;	/* the database read for this profile */
static struct pfile anfile;	/* analysis.db beside it (base NULL: none) */
static const char *tmpdir = "/tmp";
static const char *step_pattern;
static int exitcode = EX_OK;
static struct buf ob;		/* output record being built */

static void usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-dklq] [-p pattern] path ...\n", progname);
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

/* A bounded, printable snippet of bad input for messages. */
static const char *
snip(const char *s, size_t n)
{
	static char b[48];
	size_t i, j = 0;

	for (i = 0; i < n && j < 32; i++)
		b[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < n) {
		memcpy(b + j, "...", 3);
		j += 3;
	}
	b[j] = '\0';
	return b;
}

/* ---- discovery ---- */

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
isfile(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static char *
join(const char *a, const char *b)
{
	size_t n = strlen(a) + strlen(b) + 2;
	char *p = xmalloc(n);

	snprintf(p, n, "%s/%s", a, b);
	return p;
}

static const char *
basename_(const char *p)
{
	const char *s = strrchr(p, '/');

	return s && s[1] ? s + 1 : p;
}

static int
endswith(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);

	return a >= b && strcmp(s + a - b, suf) == 0;
}

static int
startswith(const char *s, const char *pre)
{
	return strncmp(s, pre, strlen(pre)) == 0;
}

static int
digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* Classify a file name; -1 if not one we read. */
static int
classify(const char *name)
{
	if (strcmp(name, "kernel_details.csv") == 0)
		return F_KERNEL;
	if (startswith(name, "op_summary_") && endswith(name, ".csv"))
		return F_KERNEL;
	if (strcmp(name, "trace_view.json") == 0)
		return F_TRACE;
	if (startswith(name, "msprof_") && endswith(name, ".json"))
		return F_TRACE;
	if (strcmp(name, "step_trace_time.csv") == 0)
		return F_STEPTRACE;
	if (strcmp(name, "op_statistic.csv") == 0 ||
	    (startswith(name, "op_statistic_") && endswith(name, ".csv")))
		return F_OPSTAT;
	if (strcmp(name, "communication.json") == 0)
		return F_COMM;
	if (strcmp(name, "profiler_info.json") == 0 ||
	    (startswith(name, "profiler_info_") && endswith(name, ".json") &&
	    digits(name + 14, strlen(name) - 19)))
		return F_INFO;
	if ((startswith(name, "ascend_pytorch_profiler") ||
	    startswith(name, "ascend_mindspore_profiler") ||
	    startswith(name, "msprof_")) && endswith(name, ".db"))
		return F_DB;
	return -1;
}

static void
addfile(struct profile *p, int kind, const char *path)
{
	for (int i = 0; i < p->nf; i++)
		if (strcmp(p->f[i].path, path) == 0)
			return;
	p->f = xreallocarray(p->f, (size_t)p->nf + 1, sizeof *p->f);
	memset(&p->f[p->nf], 0, sizeof p->f[0]);
	p->f[p->nf].kind = kind;
	p->f[p->nf].path = xstrdup(path);
	p->f[p->nf].base = basename_(p->f[p->nf].path);
	p->nf++;
}

static int
namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted entry names of a directory (caller frees). */
static char **
listdir(const char *dir, int *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		v = xreallocarray(v, (size_t)*n + 1, sizeof *v);
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, (size_t)*n, sizeof *v, namecmp);
	return v;
}

static void
freelist(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Add every file we read directly inside dir. */
static void
scanfiles(struct profile *p, const char *dir)
{
	int n;
	char **v = listdir(dir, &n);

	for (int i = 0; i < n; i++) {
		int k = classify(v[i]);
		char *path = join(dir, v[i]);

		if (k >= 0 && isfile(path))
			addfile(p, k, path);
		free(path);
	}
	freelist(v, n);
}

static int
isprofdir(const char *name)
{
	return startswith(name, "PROF_");
}

/* Is dir itself a profile?  Fills p if so. */
static int
profile_at(const char *dir, struct profile *p)
{
	char *apo = join(dir, "ASCEND_PROFILER_OUTPUT");
	char *mso = join(dir, "mindstudio_profiler_output");
	const char *name = basename_(dir);
	int found = 0;

	memset(p, 0, sizeof *p);
	if (isdir(apo)) {
		scanfiles(p, dir);	/* profiler_info*.json */
		scanfiles(p, apo);
		found = 1;
		p->framework = endswith(name, "_ascend_ms") ? "mindspore" : "torch_npu";
	} else if (strcmp(name, "ASCEND_PROFILER_OUTPUT") == 0) {
		char *parent = xstrdup(dir);
		char *s = strrchr(parent, '/');

		scanfiles(p, dir);
		if (s) {
			*s = '\0';
			scanfiles(p, parent);
		}
		free(parent);
		found = 1;
		p->framework = "torch_npu";
	} else if (isdir(mso) && isprofdir(name)) {
		scanfiles(p, mso);
		scanfiles(p, dir);	/* msprof_*.db */
		found = 1;
		p->framework = "msprof";
	} else if (strcmp(name, "mindstudio_profiler_output") == 0) {
		scanfiles(p, dir);
		found = 1;
		p->framework = "msprof";
	} else if (endswith(name, "_ascend_pt") || endswith(name, "_ascend_ms")) {
		scanfiles(p, dir);
		found = 1;
		p->framework = endswith(name, "_ascend_ms") ? "mindspore" : "torch_npu";
	} else {
		/* Loose exports: a directory holding a kernel table or a trace. */
		scanfiles(p, dir);
		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_KERNEL || p->f[i].kind == F_TRACE)
				found = 1;
		if (!found) {
			for (int i = 0; i < p->nf; i++)
				free(p->f[i].path);
			free(p->f);
			memset(p, 0, sizeof *p);
		} else {
			int op = 0;

			for (int i = 0; i < p->nf; i++)
				if (startswith(p->f[i].base, "op_summary_") || startswith(p->f[i].base, "msprof_"))
					op = 1;
			p->framework = op ? "msprof" : "torch_npu";
		}
	}
	if (found) {
		p->dir = xstrdup(dir);
		if (strcmp(name, "ASCEND_PROFILER_OUTPUT") == 0 ||
		    strcmp(name, "mindstudio_profiler_output") == 0) {
			char *parent = xstrdup(dir), *s = strrchr(parent, '/');

			if (s)
				*s = '\0';
			p->name = xstrdup(s ? basename_(parent) : name);
			free(parent);
		} else
			p->name = xstrdup(name);
	}
	free(apo);
	free(mso);
	return found;
}

static struct profile *profs;
static int nprofs;
static const char *curroot = "";	/* the operand being searched */

static void
addprofile(struct profile *p)
{
	/* Same directory name twice in a cluster: name them by their path
	 * below the operand, which is unique. */
	for (int i = 0; i < nprofs; i++)
		if (strcmp(profs[i].name, p->name) == 0) {
			size_t n = strlen(curroot);
			const char *rel = p->dir;

			if (strncmp(p->dir, curroot, n) == 0 && p->dir[n] == '/')
				rel = p->dir + n + 1;
			free(p->name);
			p->name = xstrdup(rel);
			/* Still taken (another operand): prefix the operand's
			 * name, else the whole path. */
			for (int j = 0; j < nprofs; j++)
				if (strcmp(profs[j].name, p->name) == 0) {
					size_t m = strlen(basename_(curroot)) + strlen(rel) + 2;
					char *q = xmalloc(m);

					snprintf(q, m, "%s/%s", basename_(curroot), rel);
					free(p->name);
					p->name = q;
					for (int k = 0; k < nprofs; k++)
						if (strcmp(profs[k].name, p->name) == 0) {
							free(p->name);
							p->name = xstrdup(p->dir);
							break;
						}
					break;
				}
			break;
		}
	profs = xreallocarray(profs, (size_t)nprofs + 1, sizeof *profs);
	profs[nprofs++] = *p;
}

/* Find profiles at or below dir (a cluster), depth-limited. */
static int
findprofiles(const char *dir, int depth)
{
	struct profile p;
	int n, found = 0;
	char **v;

	if (profile_at(dir, &p)) {
		addprofile(&p);
		return 1;
	}
	if (depth == 0)
		return 0;
	v = listdir(dir, &n);
	for (int i = 0; i < n; i++) {
		char *sub = join(dir, v[i]);
		struct stat st;

		/* Do not follow links out of the given tree. */
		if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode))
			found += findprofiles(sub, depth - 1);
		free(sub);
	}
	freelist(v, n);
	return found;
}

/* A file operand: joins the previous profile when it is the same one. */
static void
fileprofile(const char *path)
{
	int k = classify(basename_(path));
	char *dir, *s;
	const char *name;
	struct profile p;

	/* A file named explicitly: any CSV is a kernel table, any JSON a trace. */
	if (k < 0 && endswith(path, ".csv"))
		k = F_KERNEL;
	else if (k < 0 && endswith(path, ".json"))
		k = F_TRACE;
	if (k < 0)
		die("%s: not a profiler file this tool reads (.csv or .json)", path);
	dir = xstrdup(path);
	s = strrchr(dir, '/');
	if (s)
		*s = '\0';
	else
		strcpy(dir, ".");
	name = basename_(dir);
	if (strcmp(name, "ASCEND_PROFILER_OUTPUT") == 0 ||
	    strcmp(name, "mindstudio_profiler_output") == 0) {
		char *s2 = strrchr(dir, '/');

		if (s2)
			*s2 = '\0';
		else
			strcpy(dir, ".");
	}
	if (strcmp(dir, ".") == 0) {
		char cwd[PATH_MAX];

		if (getcwd(cwd, sizeof cwd) != NULL) {
			free(dir);
			dir = xstrdup(cwd);
		}
	}
	if (nprofs && strcmp(profs[nprofs - 1].dir, dir) == 0) {
		addfile(&profs[nprofs - 1], k, path);
		free(dir);
		return;
	}
	memset(&p, 0, sizeof p);
	p.dir = dir;
	p.name = xstrdup(basename_(dir));
	p.framework = endswith(p.name, "_ascend_ms") ? "mindspore" :
	    startswith(p.name, "PROF_") ? "msprof" : "torch_npu";
	addfile(&p, k, path);
	addprofile(&p);
}

/* ---- kernel tables ---- */

enum col {
	C_STEP, C_DEVICE, C_MODEL, C_TASKID, C_STREAM, C_NAME, C_OPTYPE,
	C_OPSTATE, C_TASKTYPE, C_START, C_DUR, C_WAIT, C_BLOCK, C_MIXBLOCK,
	C_HF32, C_INSHAPES, C_INDTYPES, C_INFORMATS, C_OUTSHAPES,
	C_OUTDTYPES, C_OUTFORMATS, C_CONTEXT, C_NCOLS
};

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

struct kfile {
	int		 idx[C_NCOLS];	/* column index or -1 */
	int		 ncols;
	int		*pmu;		/* indexes of PMU columns */
	char		**pmuname;
	struct buf	*pmukey;	/* "name": escaped once per file */
	size_t		 pmukeys;	/* their length, and a comma each */
	int		 npmu;
};

/* A kernel file: its columns, and its reader while the rows are written. */
struct kread {
	struct kfile	 kf;
	int		 used;		/* read: kf is set */
	int		 fd;		/* the $TMPDIR copy of a pipe, else -1 */
	dev_t		 dev;		/* the file read first, to be read again */
	ino_t		 ino;
	int		 open;		/* c is open */
	unsigned long	 lastuse;
	struct csvin	 c;
	struct buf	 head;		/* record text up to the line number */
};

/* Per-profile kernel state. */
struct ktab {
	struct krow	*row;
	size_t		 n, cap;
	struct kread	*kr;		/* per file of the profile */
	int		 nkr, nopen;
	unsigned long	 uses;
	int64_t		 minstart;
	int		 has_step, has_device, has_shapes, has_pmu, level0;
	unsigned long	 na_types;
	struct buf	 pmunames;	/* JSON array text of PMU names */
	int		 pmu_pipe;	/* PipeUtilization ratios seen */
};

static int
mapheader(struct csvin *c, struct kfile *kf, const char *fname)
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
		baddata("%s:%lu: no start-time column (\"Start Time(us)\" or \"Task Start Time(us)\")", fname, c->recline);
		return -1;
	}
	if (kf->idx[C_DUR] < 0) {
		baddata("%s:%lu: no duration column (\"Duration(us)\")", fname, c->recline);
		return -1;
	}
	if (kf->idx[C_NAME] < 0) {
		baddata("%s:%lu: no name column (\"Name\" or \"Op Name\")", fname, c->recline);
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

/* Integer cell: N/A, empty and UINT32_MAX ("invalid") are null. */
static void
put_intcell(struct buf *b, const char *key, const char *s, size_t n)
{
	int64_t v;

	cell_trim(&s, &n);
	if (cell_isnull(s, n) || (n == 10 && memcmp(s, "4294967295", 10) == 0) ||
	    dec_parse(s, n, 0, &v) != 0 || !digits(s[0] == '-' ? s + 1 : s, s[0] == '-' ? n - 1 : n))
		out_null(b, key);
	else
		out_i64(b, key, v);
}

static void
put_strcell(struct buf *b, const char *key, const char *s, size_t n, int unquote)
{
	cell_trim(&s, &n);
	if (cell_isnulltext(s, n)) {
		out_null(b, key);
		return;
	}
	/* msprof wraps shapes in one literal pair of quotes. */
	if (unquote && n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	out_str(b, key, s, n);
}

static void
put_numcell(struct buf *b, const char *key, const char *s, size_t n)
{
	cell_trim(&s, &n);
	if (cell_isnull(s, n))
		out_null(b, key);
	else if (cell_isnum(s, n))
		out_raw(b, key, s, n);
	else
		out_str(b, key, s, n);
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

/*
 * The kernel record writers.  They give the bytes put_intcell,
 * put_strcell and the out_* calls would, without their per-call costs:
 * room for the whole part is reserved once (a cell's text at most
 * sixfold when escaped), keys are literals, and the common cell forms
 * (plain digits, plain ASCII, plain numbers) are copied as they are;
 * anything else goes the general way.
 */

#define KINLINE	static inline __attribute__((always_inline))

/*
 * Reserve room for a part made from a row of rowlen bytes.  The slack
 * lets the copies below write up to 64 bytes whatever they copy.
 */
KINLINE char *
kreserve(struct buf *o, size_t rowlen, size_t extra)
{
	buf_grow(o, 6 * rowlen + extra + 1024);
	return o->p + o->len;
}

/*
 * Copy n bytes from s, which can be read 64 bytes on (a CSV field, see
 * CSV_OVERREAD, or a padded key): short copies are fixed-size moves, not
 * calls.
 */
KINLINE char *
kcopy(char *w, const char *s, size_t n)
{
	if (n <= 16)
		memcpy(w, s, 16);
	else if (n <= 32)
		memcpy(w, s, 32);
	else if (n <= 64) {
		memcpy(w, s, 32);
		memcpy(w + n - 32, s + n - 32, 32);
	} else
		memcpy(w, s, n);
	return w + n;
}

#define PUTLIT(w, lit)	(memcpy((w), (lit), sizeof(lit) - 1), (w) += sizeof(lit) - 1)

static const char digit2[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Decimal digits of v, as out_int writes them. */
KINLINE char *
putint(char *w, int64_t v)
{
	char t[24];
	int i = 24;
	uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;

	while (u >= 100) {
		unsigned d = (unsigned)(u % 100);

		u /= 100;
		i -= 2;
		memcpy(t + i, digit2 + 2 * d, 2);
	}
	if (u >= 10) {
		i -= 2;
		memcpy(t + i, digit2 + 2 * u, 2);
	} else
		t[--i] = (char)('0' + u);
	if (v < 0)
		t[--i] = '-';
	memcpy(w, t + i, (size_t)(24 - i));
	return w + (24 - i);
}

/* 1..18 digits, no leading zero (or just "0"): the value's own text. */
KINLINE int
plaincell(const char *s, size_t n)
{
	if (n == 0 || n > 18 || (s[0] == '0' && n > 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(s[i] - '0') > 9)
			return 0;
	return !(n == 10 && memcmp(s, "4294967295", 10) == 0);
}

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

/* A JSON string from a cell (over-readable): plain ASCII is copied; the
 * rest goes to out_esc. */
KINLINE char *
putesc(struct buf *o, char *w, const char *s, size_t n)
{
	size_t i = 0;

#ifdef ASC_SSE2
	/* 16 bytes at a time, the last block over-read and masked. */
	for (; i < n; i += 16) {
		unsigned m = simd_esc16(s + i);

		if (n - i < 16)
			m &= (1u << (n - i)) - 1;
		if (m)
			goto esc;
	}
#else
	for (; i + 8 <= n; i += 8)
		if (swar_esc8(s + i))
			goto esc;
	for (; i < n; i++)
		if (simd_isesc((unsigned char)s[i]))
			goto esc;
#endif
	*w++ = '"';
	w = kcopy(w, s, n);
	*w++ = '"';
	return w;
esc:
	o->len = (size_t)(w - o->p);
	out_esc(o, s, n);
	return o->p + o->len;
}

/* put_intcell: key is the bare key, lit the ,"key": text. */
KINLINE char *
kint(struct buf *o, char *w, const char *key, const char *lit, size_t litlen,
    const char *s, size_t n)
{
	if (plaincell(s, n)) {
		memcpy(w, lit, litlen);
		return kcopy(w + litlen, s, n);
	}
	if (n == 10 && memcmp(s, "4294967295", 10) == 0) {
		memcpy(w, lit, litlen);
		memcpy(w + litlen, "null", 4);
		return w + litlen + 4;
	}
	o->len = (size_t)(w - o->p);
	put_intcell(o, key, s, n);
	return o->p + o->len;
}

/* put_strcell. */
KINLINE char *
kstr(struct buf *o, char *w, const char *lit, size_t litlen, const char *s, size_t n,
    int unquote)
{
	cell_trim(&s, &n);
	memcpy(w, lit, litlen);
	w += litlen;
	if (cell_isnulltext(s, n)) {
		PUTLIT(w, "null");
		return w;
	}
	if (unquote && n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	return putesc(o, w, s, n);
}

#define KINT(key, s, n)	kint(o, w, key, ",\"" key "\":", sizeof(",\"" key "\":") - 1, s, n)
#define KSTR(key, s, n, u) kstr(o, w, ",\"" key "\":", sizeof(",\"" key "\":") - 1, s, n, u)
#define KNULL(key)	PUTLIT(w, ",\"" key "\":null")

/*
 * The first half of a kernel record (before the times): device, stream,
 * step, name, op_type, task_type.  rowlen is the row's length in bytes.
 */
static void
put_kernel_a(struct buf *o, const struct csvin *c, const struct kfile *kf, size_t rowlen)
{
	char *w = kreserve(o, rowlen, 0);
	const char *s;
	size_t n;

	if (cell(c, kf, C_DEVICE, &s, &n))
		w = KINT("device", s, n);
	else
		KNULL("device");
	if (cell(c, kf, C_STREAM, &s, &n))
		w = KINT("stream", s, n);
	else
		KNULL("stream");
	if (cell(c, kf, C_STEP, &s, &n))
		w = KSTR("step", s, n, 0);
	else
		KNULL("step");
	s = csv_field(c, kf->idx[C_NAME], &n);
	PUTLIT(w, ",\"name\":");
	w = putesc(o, w, s, n);
	if (cell(c, kf, C_OPTYPE, &s, &n))
		w = KSTR("op_type", s, n, 0);
	else
		KNULL("op_type");
	if (cell(c, kf, C_TASKTYPE, &s, &n)) {
		cell_trim(&s, &n);
		if (n == 4 && memcmp(s, "HCCL", 4) == 0)
			PUTLIT(w, ",\"task_type\":\"COMMUNICATION\"");
		else
			w = KSTR("task_type", s, n, 0);
	} else
		KNULL("task_type");
	o->len = (size_t)(w - o->p);
}

/* The second half (after the times): wait, ids, shapes, PMU values.  The
 * wait cell was checked when the row was read. */
static void
put_kernel_b(struct buf *o, const struct csvin *c, const struct kfile *kf, size_t rowlen)
{
	char *w = kreserve(o, rowlen, kf->pmukeys);
	const char *s;
	size_t n;

	if (cell(c, kf, C_WAIT, &s, &n)) {
		int64_t v = 0;

		cell_trim(&s, &n);
		if (cell_isnull(s, n) || us2ns(s, n, &v) != 0)
			KNULL("wait_ns");
		else {
			PUTLIT(w, ",\"wait_ns\":");
			w = putint(w, v);
		}
	} else
		KNULL("wait_ns");
	if (cell(c, kf, C_TASKID, &s, &n))
		w = KINT("task_id", s, n);
	if (cell(c, kf, C_MODEL, &s, &n))
		w = KINT("model_id", s, n);
	if (cell(c, kf, C_OPSTATE, &s, &n))
		w = KSTR("op_state", s, n, 0);
	if (cell(c, kf, C_BLOCK, &s, &n))
		w = KINT("block_dim", s, n);
	if (cell(c, kf, C_MIXBLOCK, &s, &n))
		w = KINT("mix_block_dim", s, n);
	if (cell(c, kf, C_HF32, &s, &n))
		w = KSTR("hf32", s, n, 0);
	if (cell(c, kf, C_INSHAPES, &s, &n))
		w = KSTR("in_shapes", s, n, 1);
	if (cell(c, kf, C_INDTYPES, &s, &n))
		w = KSTR("in_dtypes", s, n, 1);
	if (cell(c, kf, C_INFORMATS, &s, &n))
		w = KSTR("in_formats", s, n, 1);
	if (cell(c, kf, C_OUTSHAPES, &s, &n))
		w = KSTR("out_shapes", s, n, 1);
	if (cell(c, kf, C_OUTDTYPES, &s, &n))
		w = KSTR("out_dtypes", s, n, 1);
	if (cell(c, kf, C_OUTFORMATS, &s, &n))
		w = KSTR("out_formats", s, n, 1);
	if (cell(c, kf, C_CONTEXT, &s, &n))
		w = KSTR("context_id", s, n, 0);
	if (kf->npmu) {
		int any = 0;

		for (int i = 0; i < kf->npmu; i++) {
			int num;

			s = csv_field(c, kf->pmu[i], &n);
			/* Fast path: a plain number needs no trimming (a
			 * JSON number has no blanks). */
			if (!(num = cell_isnum16(s, n))) {
				cell_trim(&s, &n);
				if (cell_isnull(s, n))
					continue;
				num = cell_isnum(s, n);
			}
			if (!any)
				PUTLIT(w, ",\"pmu\":{");
			else
				*w++ = ',';
			any = 1;
			w = kcopy(w, kf->pmukey[i].p, kf->pmukey[i].len);
			if (num)
				w = kcopy(w, s, n);
			else
				w = putesc(o, w, s, n);
		}
		if (any)
			*w++ = '}';
	}
	o->len = (size_t)(w - o->p);
}

#undef KINT
#undef KSTR
#undef KNULL

/* A pipe cannot be read twice: copy it to an unlinked file in $TMPDIR. */
static int
tmpcopy(int fd, const char *path)
{
	char *tp = join(tmpdir, "asc-ingest.XXXXXX");
	static char b[1 << 16];
	int t = mkstemp(tp);
	ssize_t n, w;

	if (t < 0)
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
					dieerr("%s: spill file", tmpdir);
				w = 0;
			}
	}
	if (lseek(t, 0, SEEK_SET) != 0)
		dieerr("%s: spill file", tmpdir);
	return t;
}

/*
 * Read one kernel CSV into kt: every row is checked, and what the sort
 * and the second reading need is kept (no text).  0, or -1 if the file
 * is unusable.
 */
static int
readkernels(struct ktab *kt, struct pfile *pf, int fileno_)
{
	struct kread *kr = &kt->kr[fileno_];
	struct kfile *kf = &kr->kf;
	struct csvin c;
	struct stat st;
	struct buf scratch = {0};
	struct timespec t0, tl;
	unsigned long long lastb = 0;
	int fd, r;

	if ((fd = open(pf->path, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
		dieerr("%s", pf->path);
	kr->fd = -1;
	kr->dev = st.st_dev;
	kr->ino = st.st_ino;
	if (!S_ISREG(st.st_mode)) {
		kr->fd = tmpcopy(fd, pf->path);
		close(fd);
		fd = kr->fd;
	}
	csv_fdopen(&c, fd, pf->path);
	c.ownfd = kr->fd < 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tl = t0;
	if ((r = csv_next(&c)) <= 0) {
		if (r == 0)
			baddata("%s:1: empty file, no header", pf->path);
		else
			baddata("%s:%lu: %s", pf->path, c.recline, c.err);
		goto unusable;
	}
	if (mapheader(&c, kf, pf->path) != 0) {
		freekfile(kf);
		goto unusable;
	}
	/* The columns read now: the rest of a row is only counted. */
	{
		static const enum col need[] = { C_START, C_DUR, C_WAIT, C_DEVICE,
		    C_STREAM, C_STEP, C_NAME, C_OPTYPE, C_TASKTYPE };

		for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
			if (kf->idx[need[i]] >= c.keep)
				c.keep = kf->idx[need[i]] + 1;
	}
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
	while ((r = csv_next(&c)) != 0) {
		const char *s;
		size_t n;
		int64_t start, dur, dev = -1;
		struct krow *k;

		if (progress && (c.bytes - lastb) > (8u << 20)) {
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
			baddata("%s:%lu: %s", pf->path, c.recline, c.err);
			break;
		}
		if (c.nf != kf->ncols) {
			pf->rejected++;
			baddata("%s:%lu: %d fields, header has %d", pf->path, c.recline, c.nf, kf->ncols);
			continue;
		}
		s = csv_field(&c, kf->idx[C_START], &n);
		if (us2ns(s, n, &start) != 0) {
			pf->rejected++;
			baddata("%s:%lu: field \"%s\": not a time: '%s'", pf->path, c.recline,
			    cols[C_START].names[0], snip(s, n));
			continue;
		}
		s = csv_field(&c, kf->idx[C_DUR], &n);
		if (us2ns(s, n, &dur) != 0 || dur < 0) {
			pf->rejected++;
			baddata("%s:%lu: field \"Duration(us)\": %s: '%s'", pf->path, c.recline,
			    dur < 0 && dec_us2ns(s, n, &dur) == 0 ? "negative" : "not a number", snip(s, n));
			continue;
		}
		if (cell(&c, kf, C_DEVICE, &s, &n)) {
			int64_t v;

			cell_trim(&s, &n);
			if (plaincell(s, n)) {
				dev = 0;
				for (size_t i = 0; i < n; i++)
					dev = dev * 10 + (s[i] - '0');
			} else if (!cell_isnull(s, n) && dec_parse(s, n, 0, &v) == 0)
				dev = v;
		}
		if (cell(&c, kf, C_TASKTYPE, &s, &n)) {
			cell_trim(&s, &n);
			if (!(n == 4 && memcmp(s, "HCCL", 4) == 0) && cell_isnull(s, n))
				kt->na_types++;
		} else
			kt->na_types++;
		if (cell(&c, kf, C_WAIT, &s, &n)) {
			int64_t w;

			cell_trim(&s, &n);
			if (!cell_isnull(s, n) && (us2ns(s, n, &w) != 0 || w < 0)) {
				/* The record's first half was formatted before
				 * this check: its invalid UTF-8 counts. */
				scratch.len = 0;
				put_kernel_a(&scratch, &c, kf, (size_t)(c.bytes - c.recoff));
				pf->rejected++;
				baddata("%s:%lu: field \"Wait Time(us)\": not a non-negative number: '%s'",
				    pf->path, c.recline, snip(s, n));
				continue;
			}
		}
		if (kt->n == kt->cap) {
			kt->cap = kt->cap ? kt->cap * 2 : 4096;
			kt->row = xreallocarray(kt->row, kt->cap, sizeof *kt->row);
		}
		k = &kt->row[kt->n++];
		k->dev = dev;
		k->start = start;
		k->dur = dur;
		k->off = c.recoff;
		k->len = c.bytes - c.recoff > UINT32_MAX ? UINT32_MAX : (uint32_t)(c.bytes - c.recoff);
		k->line = (uint32_t)c.recline;
		k->file = (uint16_t)fileno_;
		if (start < kt->minstart)
			kt->minstart = start;
		pf->emitted++;
	}
	if (progress)
		progressline(pf->base, c.bytes, &t0, 1);
	buf_free(&scratch);
	csv_close(&c);
	kr->used = 1;
	return 0;
unusable:
	csv_close(&c);
	if (kr->fd >= 0)
		close(kr->fd);
	kr->fd = -1;
	return -1;
}

static int
krowcmp(const struct krow *x, const struct krow *y)
{
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * Natural merge sort: sorted runs (one per op_summary slice, or the whole
 * file) are merged pairwise, k-way in effect; stable, so equal starts keep
 * file order.  Returns the number of runs found.
 */
static size_t
sortrows(struct ktab *kt)
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
kreader(struct ktab *kt, struct kread *kr, const struct pfile *pf)
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

static void
freektab(struct ktab *kt)
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
static void
putkernels(struct ktab *kt, const struct profile *p, int64_t origin)
{
	static struct buf o;
	struct buf head = {0};

	/* File names come from the directory listing: escape-safe checked. */
	out_begin(&head, "kernel");
	out_cstr(&head, "profile", p->name);
	buf_adds(&head, ",\"src\":\"");
	for (int i = 0; i < p->nf; i++)
		for (const char *c = p->f[i].base; *c; c++)
			if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
				die("%s: file name needs escaping", p->f[i].path);
	/* The fixed head is the same for every kernel of the file. */
	for (int i = 0; i < kt->nkr; i++)
		if (kt->kr[i].used) {
			struct buf *h = &kt->kr[i].head;

			h->len = 0;
			buf_add(h, head.p, head.len);
			buf_adds(h, p->f[i].base);
			buf_addc(h, ':');
			buf_grow(h, 64);	/* for kcopy */
		}
	o.len = 0;
	for (size_t i = 0; i < kt->n; i++) {
		const struct krow *k = &kt->row[i];
		struct kread *kr = &kt->kr[k->file];
		const struct pfile *f = &p->f[k->file];
		struct csvin *c = kreader(kt, kr, f);
		size_t rowlen;
		char *w;

		if (csv_seek(c, k->off, k->line) != 0)
			dieerr("%s", f->path);
		if (csv_next(c) != 1 || c->nf != kr->kf.ncols || c->recline != k->line ||
		    (c->bytes - c->recoff > UINT32_MAX ? UINT32_MAX : (uint32_t)(c->bytes - c->recoff)) != k->len)
			die("%s:%lu: changed while being read", f->path, (unsigned long)k->line);
		rowlen = (size_t)(c->bytes - c->recoff);
		w = kreserve(&o, kr->head.len, 0);
		w = putint(kcopy(w, kr->head.p, kr->head.len), k->line);
		*w++ = '"';
		o.len = (size_t)(w - o.p);
		put_kernel_a(&o, c, &kr->kf, rowlen);
		w = kreserve(&o, 0, 0);
		PUTLIT(w, ",\"start_ns\":");
		w = putint(w, k->start - origin);
		PUTLIT(w, ",\"dur_ns\":");
		w = putint(w, k->dur);
		PUTLIT(w, ",\"end_ns\":");
		w = putint(w, k->start - origin + k->dur);
		o.len = (size_t)(w - o.p);
		put_kernel_b(&o, c, &kr->kf, rowlen);
		w = kreserve(&o, 0, 0);
		PUTLIT(w, "}\n");
		o.len = (size_t)(w - o.p);
		if (o.len >= (1u << 20))
			kflush(&o);
	}
	kflush(&o);
	buf_free(&head);
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

static int
colidx(struct csvin *c, const char *name)
{
	for (int i = 0; i < c->nf; i++) {
		size_t n;
		const char *h = csv_field(c, i, &n);

		if (strlen(name) == n && memcmp(h, name, n) == 0)
			return i;
	}
	return -1;
}

/* A µs figure as its text and exact ns: "preparing_us" and "preparing_ns". */
static void
put_us(struct buf *b, const char *key, const char *s, size_t n)
{
	char k[64];
	int64_t v;

	cell_trim(&s, &n);
	snprintf(k, sizeof k, "%s_us", key);
	put_numcell(b, k, s, n);
	snprintf(k, sizeof k, "%s_ns", key);
	if (!cell_isnull(s, n) && dec_us2ns(s, n, &v) == 0)
		out_i64(b, k, v);
	else
		out_null(b, k);
}

static void
readsteptrace(struct pfile *pf, const struct profile *p)
{
	static const struct { const char *col, *key; } m[] = {
		{ "Computing", "computing" },
		{ "Communication(Not Overlapped)", "comm_not_overlapped" },
		{ "Overlapped", "overlapped" },
		{ "Communication", "comm" },
		{ "Free", "free" },
		{ "Stage", "stage" },
		{ "Bubble", "bubble" },
		{ "Communication(Not Overlapped and Exclude Receive)", "comm_not_overlapped_exclude_receive" },
		{ "Preparing", "preparing" },
	};
	struct csvin c;
	int idx[9], istep, idev, ncols, r;
	struct buf b = {0};
	char src[300];

	if (csv_open(&c, pf->path) != 0)
		dieerr("%s", pf->path);
	if ((r = csv_next(&c)) <= 0) {
		addwarn("bad_step_trace", "%s: empty or unreadable, not used", pf->base);
		csv_close(&c);
		return;
	}
	ncols = c.nf;
	istep = colidx(&c, "Step");
	idev = colidx(&c, "Device_id");
	for (int i = 0; i < 9; i++)
		idx[i] = colidx(&c, m[i].col);
	while ((r = csv_next(&c)) != 0) {
		const char *s;
		size_t n;

		pf->read++;
		if (r < 0 || c.nf != ncols) {
			pf->rejected++;
			if (r < 0)
				baddata("%s:%lu: %s", pf->path, c.recline, c.err);
			else
				baddata("%s:%lu: %d fields, header has %d", pf->path, c.recline, c.nf, ncols);
			if (r < 0)
				break;
			continue;
		}
		out_begin(&b, "step_trace");
		out_cstr(&b, "profile", p->name);
		snprintf(src, sizeof src, "%s:%lu", pf->base, c.recline);
		out_cstr(&b, "src", src);
		if (idev >= 0) {
			s = csv_field(&c, idev, &n);
			put_intcell(&b, "device", s, n);
		} else
			out_null(&b, "device");
		if (istep >= 0) {
			s = csv_field(&c, istep, &n);
			put_strcell(&b, "step", s, n, 0);
		} else
			out_null(&b, "step");
		for (int i = 0; i < 9; i++)
			if (idx[i] >= 0) {
				s = csv_field(&c, idx[i], &n);
				put_us(&b, m[i].key, s, n);
			}
		buf_add(&b, "}\n", 2);
		buf_add(&tables, b.p, b.len);
		pf->emitted++;
	}
	buf_free(&b);
	csv_close(&c);
}

static void
readopstat(struct pfile *pf, const struct profile *p)
{
	static const struct { const char *col, *key; int num; } m[] = {
		{ "Device_id", "device", 2 },
		{ "OP Type", "op_type", 0 },
		{ "Core Type", "core_type", 0 },
		{ "Count", "count", 2 },
		{ "Total Time(us)", "total_us", 1 },
		{ "Min Time(us)", "min_us", 1 },
		{ "Avg Time(us)", "avg_us", 1 },
		{ "Max Time(us)", "max_us", 1 },
		{ "Ratio(%)", "ratio_pct", 1 },
	};
	struct csvin c;
	int idx[9], ncols, r;
	struct buf b = {0};
	char src[300];

	if (csv_open(&c, pf->path) != 0)
		dieerr("%s", pf->path);
	if (csv_next(&c) <= 0) {
		addwarn("bad_op_statistic", "%s: empty or unreadable, not used", pf->base);
		csv_close(&c);
		return;
	}
	ncols = c.nf;
	for (int i = 0; i < 9; i++)
		idx[i] = colidx(&c, m[i].col);
	while ((r = csv_next(&c)) != 0) {
		pf->read++;
		if (r < 0 || c.nf != ncols) {
			pf->rejected++;
			if (r < 0)
				baddata("%s:%lu: %s", pf->path, c.recline, c.err);
			else
				baddata("%s:%lu: %d fields, header has %d", pf->path, c.recline, c.nf, ncols);
			if (r < 0)
				break;
			continue;
		}
		out_begin(&b, "op_stat");
		out_cstr(&b, "profile", p->name);
		snprintf(src, sizeof src, "%s:%lu", pf->base, c.recline);
		out_cstr(&b, "src", src);
		for (int i = 0; i < 9; i++) {
			const char *s;
			size_t n;

			if (idx[i] < 0) {
				out_null(&b, m[i].key);
				continue;
			}
			s = csv_field(&c, idx[i], &n);
			if (m[i].num == 2)
				put_intcell(&b, m[i].key, s, n);
			else if (m[i].num == 1)
				put_numcell(&b, m[i].key, s, n);
			else
				put_strcell(&b, m[i].key, s, n, 0);
		}
		buf_add(&b, "}\n", 2);
		buf_add(&tables, b.p, b.len);
		pf->emitted++;
	}
	buf_free(&b);
	csv_close(&c);
}

/* Parse a whole small JSON file with libjq; invalid on failure. */
static jv
readjson(struct pfile *pf)
{
	FILE *fp = fopen(pf->path, "r");
	struct buf b = {0};
	char chunk[65536];
	size_t n;
	jv v;

	if (fp == NULL)
		dieerr("%s", pf->path);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(fp))
		dieerr("%s", pf->path);
	fclose(fp);
	v = b.len ? jv_parse_sized(b.p, (int)b.len) : jv_invalid_with_msg(jv_string("empty file"));
	buf_free(&b);
	if (!jv_is_valid(v)) {
		jv msg = jv_invalid_get_msg(v);
		const char *s = jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "invalid JSON";
		const char *cut = strstr(s, " (while parsing");

		addwarn("bad_json", "%s: %.*s; file not used", pf->base,
		    cut ? (int)(cut - s) : (int)strlen(s), s);
		jv_free(msg);
		return jv_invalid();
	}
	return v;
}

static jv
jget(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_invalid();
	}
	return jv_object_get(o, jv_string(k));
}

/* Write a jv scalar under key: numbers keep libjq's shortest form. */
static void
put_jv(struct buf *b, const char *key, jv v)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		out_str(b, key, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
		break;
	case JV_KIND_NUMBER:
	case JV_KIND_TRUE:
	case JV_KIND_FALSE:
	case JV_KIND_ARRAY:
	case JV_KIND_OBJECT: {
		jv s = jv_dump_string(jv_copy(v), 0);

		out_raw(b, key, jv_string_value(s), strlen(jv_string_value(s)));
		jv_free(s);
		break;
	}
	default:
		out_null(b, key);
	}
	jv_free(v);
}

/*
 * communication.json is read by the streaming lib/ingest/commjson reader, twice:
 * readcomm() checks it, counts its ops and, when the profile has no other
 * time origin, finds the smallest op start; putcomm() writes the comm
 * records straight to the output at their place in the stream.  Memory
 * stays that of one op whatever the size of the file.
 */

/* Start of one communication op in exact ns, or -1. */
static int
commstart(const struct cjop *op, int64_t *ns)
{
	/* Written by Python as a float: ~0.25 us resolution at epoch scale.
	 * Formatted from the double as before, not from the text. */
	if (!op->has_time || op->start_us.kind != CJ_NUMBER)
		return -1;
	return cj_us2ns(strtod(op->start_us.s, NULL), ns);
}

static int
istotal(const struct cjop *op)
{
	return op->keylen >= 5 && memcmp(op->key, "Total", 5) == 0;
}

struct commscan {
	struct pfile	*pf;
	int64_t		 min;
};

/* Pass 1: count the ops, find the smallest start. */
static int
commcount(const struct cjop *op, void *arg)
{
	struct commscan *cs = arg;
	int64_t ns;

	if (commstart(op, &ns) == 0 && ns < cs->min)
		cs->min = ns;
	if (istotal(op))
		return 0;
	cs->pf->read++;
	if (op->has_time)
		cs->pf->emitted++;
	else
		cs->pf->rejected++;
	return 0;
}

/*
 * Check the file and count its ops; *origin, if unknown (INT64_MAX),
 * becomes the smallest op start.  A bad file is said in a warning and not
 * used (nothing counted, nothing written by putcomm).
 */
static void
readcomm(struct pfile *pf, const struct profile *p, int64_t *origin)
{
	struct commscan cs = { .pf = pf, .min = INT64_MAX };
	char err[256];
	int r;

	(void)p;
	r = cj_read(pf->path, commcount, &cs, err, sizeof err);
	if (r == CJ_EIO)
		dieerr("%s", pf->path);
	if (r != 0) {
		pf->read = pf->emitted = pf->rejected = 0;
		if (r == CJ_ENOTOBJ)
			addwarn("bad_communication", "%s: top level is not an object; file not used", pf->base);
		else
			addwarn("bad_json", "%s: %s; file not used", pf->base, err);
		return;
	}
	if (*origin == INT64_MAX)
		*origin = cs.min;
}

struct commput {
	const struct profile *p;
	const struct pfile *pf;
	int64_t		 origin;
	struct buf	 b;
};

/* Pass 2: one comm record per op. */
static int
commput(const struct cjop *op, void *arg)
{
	struct commput *cp = arg;
	struct cjrec r = {
		.kind = op->kind, .kindlen = op->kindlen, .op = op->key, .oplen = op->keylen,
		.elapse_ms = op->elapse_ms, .transit_ms = op->transit_ms, .wait_ms = op->wait_ms,
		.sync_ms = op->sync_ms, .idle_ms = op->idle_ms, .wait_ratio = op->wait_ratio,
		.sync_ratio = op->sync_ratio, .ntransport = op->has_bw ? op->ntransport : 0,
		.transport = op->transport
	};

	if (istotal(op) || !op->has_time)
		return 0;
	if (op->step)
		r.step = cj_step(op->step, op->steplen, &r.steplen);
	/* The op name is up to the last '@', the group after it. */
	for (size_t i = op->keylen; i-- > 0; )
		if (op->key[i] == '@') {
			r.oplen = i;
			r.group = op->key + i + 1;
			r.grouplen = op->keylen - i - 1;
			break;
		}
	if (commstart(op, &r.start_ns) == 0) {
		r.has_start = 1;
		r.start_ns -= cp->origin;
	}
	cj_putrec(&cp->b, cp->p->name, cp->pf->base, &r);
	if (fwrite(cp->b.p, 1, cp->b.len, stdout) != cp->b.len)
		dieerr("stdout");
	return 0;
}

/* Write the comm records of a file readcomm() accepted. */
static void
putcomm(const struct pfile *pf, const struct profile *p, int64_t origin)
{
	struct commput cp = { .p = p, .pf = pf, .origin = origin };
	char err[256];
	int r;

	if (pf->emitted == 0)
		return;
	r = cj_read(pf->path, commput, &cp, err, sizeof err);
	if (r == CJ_EIO)
		dieerr("%s", pf->path);
	if (r != 0)
		die("%s: %s (changed while read?)", pf->path, err);
	buf_free(&cp.b);
}

/* Capture configuration from profiler_info*.json, as a JSON object text. */
static void
readinfo(struct pfile *pf, struct buf *cfg, char **level)
{
	jv doc = readjson(pf);
	jv cc, ec, v;
	struct buf b = {0};

	if (!jv_is_valid(doc))
		return;
	cc = jget(jget(jv_copy(doc), "config"), "common_config");
	ec = jget(jget(jv_copy(doc), "config"), "experimental_config");
	v = jget(jv_copy(ec), "_profiler_level");
	if (jv_get_kind(v) == JV_KIND_STRING) {
		free(*level);
		*level = xstrdup(jv_string_value(v));
	}
	put_jv(&b, "level", v);
	put_jv(&b, "record_shapes", jget(jv_copy(cc), "record_shapes"));
	put_jv(&b, "with_stack", jget(jv_copy(cc), "with_stack"));
	put_jv(&b, "with_modules", jget(jv_copy(cc), "with_modules"));
	put_jv(&b, "profile_memory", jget(jv_copy(cc), "profile_memory"));
	put_jv(&b, "schedule", jget(jv_copy(cc), "schedule"));
	put_jv(&b, "aic_metrics", jget(jv_copy(ec), "_aic_metrics"));
	put_jv(&b, "export_type", jget(jv_copy(ec), "_export_type"));
	v = jget(jv_copy(doc), "rank_id");
	if (jv_get_kind(v) == JV_KIND_STRING && digits(jv_string_value(v), strlen(jv_string_value(v)))) {
		out_i64(&b, "rank", strtoll(jv_string_value(v), NULL, 10));
		jv_free(v);
	} else
		put_jv(&b, "rank", v);
	put_jv(&b, "torch_npu_version", jget(jv_copy(doc), "torch_npu_version"));
	put_jv(&b, "cann_version", jget(jv_copy(doc), "cann_version"));
	out_cstr(&b, "file", pf->base);
	pf->read = pf->emitted = 1;
	cfg->len = 0;
	buf_addc(cfg, '{');
	buf_add(cfg, b.p + 1, b.len - 1);
	buf_addc(cfg, '}');
	buf_free(&b);
	jv_free(cc);
	jv_free(ec);
	jv_free(doc);
}

/* ---- one profile ---- */

static void
putfiles(struct buf *b, const struct profile *p, const struct trace_counts *tc, int trace_used)
{
	out_key(b, "files");
	buf_addc(b, '[');
	for (int i = 0; i < p->nf + (anfile.base != NULL); i++) {
		const struct pfile *f = i < p->nf ? &p->f[i] : &anfile;
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
			out_i64(&t, "device", (int64_t)(trace_used && f->read ? tc->device : 0));
			out_i64(&t, "markers", (int64_t)(trace_used && f->read ? tc->markers : 0));
			out_i64(&t, "ignored", (int64_t)(trace_used && f->read ? tc->ignored : 0));
		} else {
			out_bool(&t, "used", f->kind == F_DB ? f == dbused : f->kind == F_ANALYSIS ? f->emitted > 0 :
			    !(dbused && f->kind == F_KERNEL));
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
dbbad(void *arg, const char *msg)
{
	baddata("%s", msg);
}

static void
process(struct profile *p)
{
	struct ktab kt;
	struct pfile *fk[F_NKINDS] = {0};
	struct trace *tr = NULL;
	struct trace_counts tc;
	struct buf cfg = {0};
	char *level = xstrdup("unknown");
	const char *deg[24], *origin_from = "none";
	int ndeg = 0, nkfiles = 0, trace_used = 0;
	int64_t origin = INT64_MAX;
	size_t runs = 0;
	unsigned long rejected = 0;
	char ob_us[40];
	struct dbread *db = NULL;
	struct db_counts dc;
	int dbsteps = 0, nw0 = 0;

	memset(&kt, 0, sizeof kt);
	memset(&tc, 0, sizeof tc);
	kt.minstart = INT64_MAX;
	nwarns = 0;
	tables.len = 0;
	for (int i = 0; i < p->nf; i++) {
		struct pfile *f = &p->f[i];

		if (fk[f->kind] == NULL)
			fk[f->kind] = f;
		else if (f->kind == F_KERNEL && strcmp(f->base, "kernel_details.csv") == 0)
			fk[f->kind] = f;
		else if (f->kind == F_TRACE && strcmp(f->base, "trace_view.json") == 0)
			fk[f->kind] = f;
	}

	/* The SQLite export: when there is no text timeline, or with -d. */
	memset(&dc, 0, sizeof dc);
	dbused = NULL;
	anfile.base = NULL;
	if (fk[F_DB] && (dflag || (!fk[F_KERNEL] && !fk[F_TRACE]))) {
		struct db_opts dop = { .display = fk[F_DB]->base, .step_pattern = step_pattern,
		    .python = strcmp(p->framework, "mindspore") == 0 ? "MindSpore" : "Python",
		    .bad = dbbad };
		const char *code, *msg;
		char err[1200];

		if (fk[F_KERNEL] || fk[F_TRACE])
			addwarn("source_db", "%s is read (-d); the text export (%s%s%s) is not",
			    fk[F_DB]->base, fk[F_KERNEL] ? fk[F_KERNEL]->base : "",
			    fk[F_KERNEL] && fk[F_TRACE] ? ", " : "", fk[F_TRACE] ? fk[F_TRACE]->base : "");
		if ((db = db_open(fk[F_DB]->path, &dop, err, sizeof err)) == NULL)
			die("%s", err);
		dbused = fk[F_DB];
		db_counts(db, &dc);
		for (nw0 = 0; (code = db_warning(db, nw0, &msg)) != NULL; nw0++)
			addwarn(code, "%s", msg);
		dbused->read = dc.read;
		dbused->emitted = dc.kernel + dc.comm + dc.host;
		dbused->rejected = dc.rejected;
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

	/* Kernel table: kernel_details.csv, else every op_summary slice. */
	if (fk[F_KERNEL]) {
		int details = strcmp(fk[F_KERNEL]->base, "kernel_details.csv") == 0;

		kt.nkr = p->nf;
		kt.kr = xcalloc((size_t)p->nf, sizeof *kt.kr);
		for (int i = 0; i < p->nf; i++)
			kt.kr[i].fd = -1;
		for (int i = 0; i < p->nf; i++) {
			struct pfile *f = &p->f[i];

			if (f->kind != F_KERNEL || (details && f != fk[F_KERNEL]))
				continue;
			if (readkernels(&kt, f, i) == 0)
				nkfiles++;
		}
		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_KERNEL && p->f[i].read == 0 && &p->f[i] != fk[F_KERNEL] && details)
				addwarn("file_not_used", "%s: kernel_details.csv is read instead", p->f[i].base);
	}

	if (fk[F_TRACE]) {
		struct trace_opts to = { .tmpdir = tmpdir, .display = fk[F_TRACE]->base,
		    .step_pattern = step_pattern, .progress = progress };

		for (int i = 0; i < p->nf; i++)
			if (p->f[i].kind == F_TRACE && &p->f[i] != fk[F_TRACE])
				addwarn("file_not_used", "%s: only %s is read as the timeline",
				    p->f[i].base, fk[F_TRACE]->base);
		tr = trace_open(fk[F_TRACE]->path, &to);
		if (trace_read(tr) != 0) {
			baddata("%s", trace_err(tr));
			addwarn("trace_unreadable", "%s", trace_err(tr));
			trace_close(tr);
			tr = NULL;
		} else {
			const char *code, *msg;

			trace_used = 1;
			fk[F_TRACE]->read = 1;
			trace_counts(tr, &tc);
			for (int i = 0; (code = trace_warning(tr, i, &msg)) != NULL; i++)
				addwarn(code, "%s", msg);
		}
	}

	if (db && db_min_ts(db, &dbsteps) != INT64_MAX) {
		origin = db_min_ts(db, &dbsteps);
		origin_from = dbsteps ? "kernel_table" : "trace";
		dbsteps = 0;
	} else if (kt.n) {
		origin = kt.minstart;
		origin_from = "kernel_table";
	} else if (tr && trace_min_kernel_ts(tr) != INT64_MAX) {
		origin = trace_min_kernel_ts(tr);
		origin_from = "trace_kernels";
	} else if (tr && trace_min_ts(tr) != INT64_MAX) {
		origin = trace_min_ts(tr);
		origin_from = "trace";
	}

	if (fk[F_INFO])
		readinfo(fk[F_INFO], &cfg, &level);
	if (fk[F_STEPTRACE])
		readsteptrace(fk[F_STEPTRACE], p);
	else if (db)
		dbsteps = db_steptrace(db, p->name, &tables) > 0;
	if (fk[F_OPSTAT])
		readopstat(fk[F_OPSTAT], p);
	if (fk[F_COMM]) {
		int64_t o = origin;

		readcomm(fk[F_COMM], p, &o);
		if (origin == INT64_MAX && o != INT64_MAX) {
			origin = o;
			origin_from = "communication";
		}
	} else if (db && db_comm_scan(db) != 0)
		die("%s", db_err(db));
	if (db) {
		const char *code, *msg;

		/* the database's comm records and what analysis.db gave */
		db_counts(db, &dc);
		if (!dc.comm_analysis)
			dbused->emitted += dc.comm_records;
		anfile = (struct pfile){ .kind = F_ANALYSIS, .base = dc.an_found ? "analysis.db" : NULL,
		    .read = dc.an_read, .emitted = dc.an_emitted, .rejected = dc.an_rejected };
		rejected += dc.an_rejected;
		for (int i = 0; (code = db_warning(db, i, &msg)) != NULL; i++)
			if (i >= nw0)
				addwarn(code, "%s", msg);
	}
	if (origin == INT64_MAX)
		origin = 0;

	runs = sortrows(&kt);
	if (runs > 1) {
		if (nkfiles > 1 && runs <= (size_t)nkfiles)
			addwarn("kernels_merged", "%zu sorted runs from %d files merged into (device, start) order", runs, nkfiles);
		else
			addwarn("kernels_unsorted", "kernel rows are not in (device, start) order (%zu sorted runs); sorted, rows read again by seeking", runs);
	}
	for (int i = 0; i < p->nf; i++)
		rejected += p->f[i].rejected;

	/* What is missing, in the codes of the evidence_gaps list. */
	if (db ? dc.kernel + dc.comm == 0 : !fk[F_KERNEL] || (kt.n == 0 && nkfiles == 0)) {
		deg[ndeg++] = "no_kernel_table";
		if (fk[F_DB] && !fk[F_TRACE] && !db)
			deg[ndeg++] = "db_export_only";
	}
	/* A database stands in for the trace: its host tables are the events. */
	if (db ? dc.host == 0 : !trace_used)
		deg[ndeg++] = db ? "no_host_events" : "no_trace_view";
	else if (!db && tc.host == 0)
		deg[ndeg++] = "no_host_events";
	if ((trace_used && !tc.has_stacks) || (db && dc.host && !dc.has_stacks))
		deg[ndeg++] = "no_stacks";
	if ((trace_used && tc.markers == 0) || (db && dc.markers == 0))
		deg[ndeg++] = "no_step_markers";
	if (!fk[F_INFO])
		deg[ndeg++] = "no_profiler_info";
	if (strcmp(level, "Level0") == 0 || (kt.n && kt.na_types == kt.n) ||
	    (db && dc.kernel && dc.null_types == dc.kernel))
		deg[ndeg++] = "level0";
	if ((fk[F_KERNEL] && !kt.has_pmu) || (db && dc.kernel && !dc.has_pmu))
		deg[ndeg++] = "no_pmu";
	if ((fk[F_KERNEL] && !kt.has_shapes) || (db && dc.kernel && !dc.has_shapes))
		deg[ndeg++] = "no_shapes";
	if (!fk[F_COMM] && !dc.comm_records)
		deg[ndeg++] = "no_communication_json";
	if (!fk[F_STEPTRACE] && !dbsteps)
		deg[ndeg++] = "no_step_trace";
	if (rejected)
		deg[ndeg++] = "rows_rejected";

	if (kt.n || origin_from[0] != 'n') {
		int neg = origin < 0;
		int64_t a = neg ? -origin : origin;

		snprintf(ob_us, sizeof ob_us, "%s%lld.%03lld", neg ? "-" : "",
		    (long long)(a / 1000), (long long)(a % 1000));
	}
	out_begin(&ob, "profile");
	out_cstr(&ob, "profile", p->name);
	out_cstr(&ob, "path", p->dir);
	out_cstr(&ob, "framework", p->framework);
	out_cstr(&ob, "source", db ? "db" : fk[F_KERNEL] || trace_used || fk[F_STEPTRACE] || fk[F_COMM] ||
	    fk[F_OPSTAT] ? "text" : "none");
	out_cstr(&ob, "origin_us", origin_from[0] != 'n' ? ob_us : NULL);
	out_cstr(&ob, "origin_from", origin_from);
	putlist(&ob, "degraded", deg, ndeg);
	out_key(&ob, "config");
	if (cfg.len)
		buf_add(&ob, cfg.p, cfg.len);
	else
		buf_adds(&ob, "{\"level\":\"unknown\"}");
	out_key(&ob, "kernel_table");
	if (db && dc.has_kernels) {
		char t[32];
		int m = snprintf(t, sizeof t, "%lu", dc.kernel + dc.comm);

		buf_adds(&ob, "{\"rows\":");
		buf_add(&ob, t, (size_t)m);
		out_bool(&ob, "step_id", dc.has_steps);
		out_bool(&ob, "device_id", 1);
		out_bool(&ob, "shapes", dc.has_shapes);
		out_key(&ob, "pmu");
		buf_adds(&ob, db_pmu_names(db));
		out_i64(&ob, "sorted_runs", dc.kernel + dc.comm ? 1 : 0);
		buf_addc(&ob, '}');
	} else if (fk[F_KERNEL]) {
		buf_addc(&ob, '{');
		out_esc(&ob, "rows", 4);
		buf_addc(&ob, ':');
		{
			char t[32];
			int m = snprintf(t, sizeof t, "%zu", kt.n);

			buf_add(&ob, t, (size_t)m);
		}
		out_bool(&ob, "step_id", kt.has_step);
		out_bool(&ob, "device_id", kt.has_device);
		out_bool(&ob, "shapes", kt.has_shapes);
		out_key(&ob, "pmu");
		if (kt.pmunames.len)
			buf_add(&ob, kt.pmunames.p, kt.pmunames.len);
		else
			buf_adds(&ob, "[]");
		out_i64(&ob, "sorted_runs", (int64_t)(kt.n ? runs : 0));
		buf_addc(&ob, '}');
	} else
		buf_adds(&ob, "null");
	out_key(&ob, "counts");
	{
		struct buf t = {0};

		out_begin(&t, "x");
		t.len = 0;
		out_i64(&t, "kernel", (int64_t)(db ? dc.kernel + dc.comm : kt.n ? kt.n : (!fk[F_KERNEL] && tr ? tc.device : 0)));
		out_i64(&t, "marker", (int64_t)(db ? dc.markers : tr ? tc.markers : 0));
		out_i64(&t, "host", (int64_t)(db ? dc.host : tr ? tc.host : 0));
		out_i64(&t, "flows_linked", (int64_t)(db ? dc.host_linked : tr ? tc.flows_linked : 0));
		out_i64(&t, "rejected", (int64_t)rejected);
		out_i64(&t, "warnings", nwarns);
		buf_addc(&ob, '{');
		buf_add(&ob, t.p + 1, t.len - 1);
		buf_addc(&ob, '}');
		buf_free(&t);
	}
	putfiles(&ob, p, &tc, trace_used);
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
	if (tr)
		trace_put_markers(tr, stdout, p->name, origin);
	if (db && db_put_markers(db, stdout, p->name, origin) != 0)
		die("%s", db_err(db));
	if (tables.len && fwrite(tables.p, 1, tables.len, stdout) != tables.len)
		dieerr("stdout");
	if (fk[F_COMM])
		putcomm(fk[F_COMM], p, origin);
	else if (db && db_put_comm(db, stdout, p->name, origin) != 0)
		die("%s", db_err(db));
	if (db) {
		if (db_put_kernels(db, stdout, p->name, origin) != 0 ||
		    db_put_host(db, stdout, p->name, origin) != 0)
			die("%s", db_err(db));
		db_close(db);
		dbused = NULL;
	}
	if (kt.n)
		putkernels(&kt, p, origin);
	else if (tr && !fk[F_KERNEL])
		trace_put_kernels(tr, stdout, p->name, origin);
	if (tr) {
		trace_put_host(tr, stdout, p->name, origin);
		trace_close(tr);
	}
	if (ferror(stdout))
		dieerr("stdout");
	freektab(&kt);
	buf_free(&cfg);
	free(level);
}

int
main(int argc, char *argv[])
{
	int ch;
	const char *t;

	setprogname_(argv[0]);
	while ((ch = getopt(argc, argv, "dklp:q")) != -1) {
		switch (ch) {
		case 'd':
			dflag = 1;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'l':
			lflag = 1;
			break;
		case 'p':
			step_pattern = optarg;
			break;
		case 'q':
			qflag = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
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
		/* The profiles found, one per line: name TAB directory. */
		for (int i = 0; i < nprofs; i++)
			printf("%s\t%s\n", profs[i].name, profs[i].dir);
		xclose_stdout();
		return EX_OK;
	}
	/* 1 MiB output buffer: records are small and many. */
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	for (int i = 0; i < nprofs; i++)
		process(&profs[i]);
	if (rec_badutf8)
		warnmsg("invalid UTF-8: %lu byte(s) replaced by U+FFFD", rec_badutf8);
	xclose_stdout();
	return exitcode;
}
