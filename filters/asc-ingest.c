/*
 * asc-ingest: read Ascend profiler exports (torch_npu, MindSpore, msprof)
 * and write their facts as NDJSON records, in the stream order of asc(7).
 * This file holds the options and the loop over profiles; the modules of
 * filters/asc-ingest/ (ingest.h) read and write each profile, and say
 * its data errors and keep its warnings (msg.c).
 */
#include <sys/stat.h>

#include <fcntl.h>
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
#include "filter.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

#include "asc-ingest/ingest.h"

/* The file kinds as the profile record names them. */
const char *kindname[F_NKINDS] = {
	"kernel_table", "trace", "step_trace", "op_statistic",
	"communication", "communication_matrix", "profiler_info", "db", "analysis_db"
};

int dflag, kflag, progress, nopmu, hostnull;
static int lflag, nulflag, qflag;
struct src_file *dbused;
struct src_file anfile;
const char *tmpdir = "/tmp";
const char *step_pattern;
const char *hpath, *mpath;
FILE *hfp;
/* The asides' stdio buffers: setvbuf() with a null buffer keeps glibc's
 * 4 KiB one whatever size is asked, a write(2) per 4 KiB. */
static char hbuf[1 << 20], mbuf[1 << 20];
struct buf ob;

/* The common -k and -r (no -m: asc-ingest reads profiles, not records). */
static struct filter_opts opts = {
	.common = "kr:",
	.usage = "[-0dklLPq] [-H hostfile] [-M pmufile] [-p pattern] [-r rules] path ...",
	.args = FILTER_ARGS({ .letter = 'H', .to = &hpath }, { .letter = 'M', .to = &mpath },
	    { .letter = 'p', .to = &step_pattern }),
	.flags = FILTER_FLAGS({ .letter = '0', .to = &nulflag }, { .letter = 'd', .to = &dflag },
	    { .letter = 'l', .to = &lflag }, { .letter = 'P', .to = &nopmu },
	    { .letter = 'q', .to = &qflag }),
};

/* Buffered small-table records, written after the markers. */
struct buf tables;

/* The small files' readers report through these. */
static void
twarn(const char *code, const char *msg)
{
	addwarn(code, "%s", msg);
}

static void
ktbad(const char *msg)
{
	baddata("%s", msg);
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
	read_profile(x);
	degraded(x);
	put_profile(x);
	put_records(x);
	for (int i = 0; i < x->nsrc; i++)
		src_close(&x->src[i]);
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
	const char *t;

	while ((ch = filter_getopt(argc, argv, "0dH:lLM:Pp:q", &opts)) != -1) {
		/* -L, the one letter that sets no switch of its own */
		if (ch != 'L')
			filter_usage(&opts);
		rec_out_leave = REC_OUT_LEAN;
	}
	kflag = opts.kflag;
	argc -= optind;
	argv += optind;
	if (argc == 0)
		filter_usage(&opts);
	rules_load(opts.rules);
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
