/*
 * asc-diff: what changed between two runs.  Each operand is a profile
 * (analysed first by asc-analyze into a temporary directory), a result
 * directory of asc-analyze or a saved records.ndjson, with the model
 * parts of asc-parts in it (else asc-fia and asc-parts are run on it)
 * and their kernels summed by op (partops.c).  The comparison and the
 * reports are the jq program asc-diff.jq, built in.
 */
#define _XOPEN_SOURCE 700	/* nftw */
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "gather.h"
#include "jqprog.h"
#include "opkey.h"
#include "asc-diff/partops.h"
#include "rec.h"
#include "rules.h"
#include "strv.h"
#include "util.h"

static const char asc_diff_jq[] =
#include "asc-diff.jq.inc"
;

/* What the comparison reads; the kernels are skipped unparsed. */
static const struct gather_type kept[] = {
	{ .type = "profile", .cap = 1 },
	{ .type = "anomaly_discovery", .cap = 1 },
	{ .type = "step_metrics" },
	{ .type = "step_trace" },
	{ .type = "op" },
	{ .type = "bubble" },
	{ .type = "attribution" },
	{ .type = "comm_op" },
	{ .type = "comm_op_wait" },
	{ .type = "comm_group" },
	{ .type = "part" },
	{ .type = "step_parts" },
};
#define NKEPT	(int)(sizeof kept / sizeof kept[0])

static char *tmpdir;		/* profiles analysed, streams given parts */
static int ntmp;

static void usage(void) __attribute__((noreturn));
static char *xfmt(const char *, ...) __attribute__((format(printf, 1, 2)));

static char *
xfmt(const char *fmt, ...)
{
	va_list ap;
	char *p, c;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(&c, 1, fmt, ap);
	va_end(ap);
	p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-o dir] A B\n       %s --cluster [-o dir] dir\n",
	    progname, progname);
	exit(EX_SYS);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	return remove(p);
}

static void
cleanup(void)
{
	if (tmpdir)
		nftw(tmpdir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(tmpdir);
	tmpdir = NULL;
}

static const char *
tmp(void)
{
	if (!tmpdir) {
		const char *t = getenv("TMPDIR");
		char *p;

		p = xfmt("%s/asc-diff.XXXXXX", t && *t ? t : "/tmp");
		if (mkdtemp(p) == NULL)
			dieerr("%s", p);
		tmpdir = p;
		atexit(cleanup);
	}
	return tmpdir;
}

/* Run argv with stdout to outpath (NULL: /dev/null); its exit status. */
static int
run_cmd(char *const argv[], const char *outpath)
{
	pid_t pid;
	int st;

	fflush(NULL);
	if ((pid = fork()) < 0)
		dieerr("fork");
	if (pid == 0) {
		int fd = open(outpath ? outpath : "/dev/null",
		    outpath ? O_WRONLY | O_CREAT | O_TRUNC : O_WRONLY, 0600);

		if (fd < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "%s: %s: %s\n", progname, argv[0], strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			dieerr("waitpid");
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* A line that is not a record: bad data, status 1 as in every filter. */
static void baddata(const char *, struct rin *) __attribute__((noreturn));

static void
baddata(const char *name, struct rin *r)
{
	warnmsg("%s:%lu: %s", name, rin_lineno(r), rin_errmsg(r));
	exit(EX_DATA);
}

static int
isfile(const char *dir, const char *name)
{
	char *p = xfmt("%s/%s", dir, name);
	struct stat st;
	int ok = stat(p, &st) == 0 && S_ISREG(st.st_mode);

	free(p);
	return ok;
}

/* The records files of a result directory: its own, else one per
 * subdirectory (the ranks of a run of asc-analyze), sorted by name. */
static int
results(const char *dir, char ***out)
{
	struct dirent **ents;
	int n, k = 0;
	char **v;

	if (isfile(dir, "records.ndjson")) {
		v = xcalloc(1, sizeof *v);
		v[0] = xfmt("%s/records.ndjson", dir);
		*out = v;
		return 1;
	}
	if ((n = scandir(dir, &ents, NULL, alphasort)) < 0)
		dieerr("%s", dir);
	v = xcalloc((size_t)n + 1, sizeof *v);
	for (int i = 0; i < n; i++) {
		char *sub = xfmt("%s/%s", dir, ents[i]->d_name);

		if (ents[i]->d_name[0] != '.' && strcmp(ents[i]->d_name, "cluster") != 0 &&
		    isfile(sub, "records.ndjson"))
			v[k++] = xfmt("%s/records.ndjson", sub);
		free(sub);
		free(ents[i]);
	}
	free(ents);
	*out = v;
	return k;
}

/* A records file of several profiles (the stream of one asc-ingest over
 * a job) is split into one file per profile: the ranks of a cluster.
 * The number of profiles; with one, nothing is written. */
static int
split(const char *path, char ***out)
{
	struct rin *r;
	const char *t;
	size_t tn;
	FILE *fp = NULL;
	int n = 0, cap = 0;
	char **v = NULL;

	if ((r = rin_new(path, 0)) == NULL)
		dieerr("%s", path);
	for (int pass = 0; pass < 2; pass++) {
		for (;;) {
			int k = rin_next(r);

			if (k == 0)
				break;
			if (k < 0 || rin_type(r, &t, &tn) != 0)
				baddata(path, r);
			if (tn == 7 && memcmp(t, "profile", 7) == 0) {
				if (pass == 0) {
					n++;
					continue;
				}
				if (fp && fclose(fp) != 0)
					dieerr("%s", v[cap - 1]);
				if (cap == n)
					die("%s: changed while read", path);
				v[cap] = xfmt("%s/rank%d.ndjson", tmp(), cap);
				if ((fp = fopen(v[cap++], "w")) == NULL)
					dieerr("%s", v[cap - 1]);
			}
			if (pass == 0) {
				rin_bulk(r, t, tn, NULL);
				continue;
			}
			if (fp) {
				fprintf(fp, "%s\n", rin_line(r, NULL));
				rin_bulk(r, t, tn, fp);
			}
		}
		rin_free(r);
		if (pass == 0) {
			if (n < 2)
				return n;
			v = xcalloc((size_t)n + 1, sizeof *v);
			if ((r = rin_new(path, 0)) == NULL)
				dieerr("%s", path);
		}
	}
	if (fp && fclose(fp) != 0)
		dieerr("%s", v[cap - 1]);
	*out = v;
	return cap;
}

/* The records files an operand stands for: a saved stream, a result
 * directory (one or several ranks) or a profile, analysed here. */
static int
resolve(const char *path, char ***out)
{
	struct stat st;
	int n, s;
	char *dir;

	if (stat(path, &st) != 0)
		dieerr("%s", path);
	if (S_ISREG(st.st_mode)) {
		if (access(path, R_OK) != 0)
			dieerr("%s", path);
		if ((n = split(path, out)) > 1)
			return n;
		*out = xcalloc(1, sizeof **out);
		(*out)[0] = xstrdup(path);
		return 1;
	}
	if (!S_ISDIR(st.st_mode))
		die("%s: not a profile, a result directory of asc-analyze or a records file", path);
	if (access(path, R_OK | X_OK) != 0)
		dieerr("%s", path);
	if ((n = results(path, out)) > 0)
		return n;
	free(*out);
	dir = xfmt("%s/p%d", tmp(), ntmp++);
	{
		char *argv[] = { "asc-analyze", "-q", "--no-pictures", "-o", dir,
		    (char *)path, NULL };

		if ((s = run_cmd(argv, NULL)) != 0)
			die("%s: not a profile or a result directory of asc-analyze (asc-analyze: status %d)",
			    path, s);
	}
	if ((n = results(dir, out)) == 0)
		die("%s: asc-analyze left no records.ndjson", path);
	free(dir);
	return n;
}

static void
gather_file(struct gather *g, const char *path, const char *shown)
{
	struct rin *r;
	const char *t;
	size_t tn;

	if ((r = rin_new(path, 0)) == NULL)
		dieerr("%s", shown);
	for (;;) {
		int n = rin_next(r), k;

		if (n == 0)
			break;
		if (n < 0 || rin_type(r, &t, &tn) != 0)
			baddata(shown, r);
		if ((k = gather_index(g, t, tn)) < 0) {
			rin_bulk(r, t, tn, NULL);
			continue;
		}
		if (gather_add(g, k, r) != 0)
			baddata(shown, r);
	}
	rin_free(r);
}


/*
 * The ops of each part as asc-parts counted them (its part records'
 * "ops"), as partops() gives them; invalid when a part record has none
 * (a stream of an older asc-parts): partops() then places the kernels.
 */
static jv
ownops(jv parts)
{
	jv out = jv_array();

	jv_array_foreach(parts, i, p) {
		jv ops = jv_object_get(jv_copy(p), jv_string("ops"));

		if (jv_get_kind(ops) != JV_KIND_ARRAY) {
			jv_free(ops);
			jv_free(p);
			jv_free(out);
			jv_free(parts);
			return jv_invalid();
		}
		jv_array_foreach(ops, j, o) {
			jv c = jv_object();

			c = jv_object_set(c, jv_string("step_id"), jv_object_get(jv_copy(p), jv_string("step_id")));
			c = jv_object_set(c, jv_string("part"), jv_object_get(jv_copy(p), jv_string("part")));
			c = jv_object_set(c, jv_string("op"), jv_object_get(jv_copy(o), jv_string("op")));
			c = jv_object_set(c, jv_string("op_type"), jv_null());
			c = jv_object_set(c, jv_string("calls"), jv_object_get(jv_copy(o), jv_string("kernels")));
			c = jv_object_set(c, jv_string("dur_ns"), jv_object_get(jv_copy(o), jv_string("kernel_sum_ns")));
			c = jv_object_set(c, jv_string("wait_ns"), jv_object_get(o, jv_string("wait_ns")));
			out = jv_array_append(out, c);
		}
		jv_free(ops);
		jv_free(p);
	}
	jv_free(parts);
	return out;
}
/* One side: the records of its file, its model parts (a stream saved
 * before asc-parts ran in asc-analyze gets them here, from asc-fia and
 * asc-parts) and their kernels by op. */
static jv
load(const char *path)
{
	struct gather *g = gather_new(kept, NKEPT);
	char *fo = NULL;
	jv v, p, ops;

	gather_file(g, path, path);
	v = gather_take(g);
	p = jv_object_get(jv_copy(v), jv_string("profile"));
	if (jv_array_length(p) == 0)
		die("%s: not a records stream of asc (no profile record)", path);
	/* (no step_metrics: a capture without a kernel table; asc-diff.jq
	 * says what cannot be compared) */
	if (jv_array_length(jv_object_get(jv_copy(v), jv_string("part"))) == 0 &&
	    jv_array_length(jv_object_get(jv_copy(v), jv_string("step_metrics"))) > 0) {
		char *argv[] = { "sh", "-c", "asc-fia \"$1\" | asc-parts", "sh", (char *)path, NULL };
		int s;

		fo = xfmt("%s/parts%d.ndjson", tmp(), ntmp++);
		if ((s = run_cmd(argv, fo)) != 0)
			die("%s: asc-fia | asc-parts failed (status %d)", path, s);
		jv_free(v);
		gather_file(g, fo, "asc-parts output");
		v = gather_take(g);
	}
	gather_free(g);
	ops = ownops(jv_object_get(jv_copy(v), jv_string("part")));
	v = jv_object_set(v, jv_string("part_op"), jv_is_valid(ops) ? ops :
	    partops(fo ? fo : path, jv_object_get(jv_copy(v), jv_string("part"))));
	if (fo) {
		unlink(fo);
		free(fo);
	}
	return jv_object_set(v, jv_string("file"), jv_string(path));
}

static void
collect(jv o, void *arg)
{
	jv *acc = arg;

	*acc = jv_array_append(*acc, o);
}

static jv
runprog(struct jqprog *prog, jv in)
{
	char err[512];
	jv acc = jv_array();

	if (jqprog_run(prog, in, collect, &acc, err, sizeof err) != 0)
		die("%s", err);
	return acc;
}

static void
writefile(const char *dir, const char *name, jv text)
{
	struct aside a;
	char *p = xfmt("%s/%s", dir, name);

	if (aside_open(&a, p) != 0)
		dieerr("%s", p);
	fputs(jv_string_value(text), a.fp);
	if (aside_commit(&a) != 0)
		dieerr("%s", p);
	free(p);
	jv_free(text);
}

/* --cluster: the slowest rank's file and the median rank's, chosen by
 * asc-diff.jq on their step records alone. */
static void
pick(struct jqprog *prog, char **files, int n, const char **a, const char **b)
{
	static const struct gather_type one[] = {
		{ .type = "profile", .cap = 1 },
		{ .type = "step_metrics" },
	};
	jv ranks = jv_array(), r;

	if (n < 2)
		die("--cluster: %d rank(s) in the input; it takes two or more", n);
	for (int i = 0; i < n; i++) {
		struct gather *g = gather_new(one, 2);

		gather_file(g, files[i], files[i]);
		ranks = jv_array_append(ranks,
		    jv_object_set(gather_take(g), jv_string("file"), jv_string(files[i])));
		gather_free(g);
	}
	r = runprog(prog, jv_object_set(jv_object_set(jv_object(), jv_string("mode"),
	    jv_string("pick")), jv_string("ranks"), ranks));
	r = jv_array_get(r, 0);
	if (jv_get_kind(r) == JV_KIND_NUMBER)
		die("--cluster: ranks with step metrics (a kernel table): %d"
		    " of %d; it takes two", (int)jv_number_value(r), n);
	if (jv_get_kind(r) != JV_KIND_ARRAY || jv_array_length(jv_copy(r)) != 2)
		die("--cluster: no rank has step records");
	*a = xstrdup(jv_string_value(jv_array_get(jv_copy(r), 0)));
	*b = xstrdup(jv_string_value(jv_array_get(jv_copy(r), 1)));
	jv_free(r);
}

int
main(int argc, char *argv[])
{
	static const struct option lo[] = {
		{ "cluster", no_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outdir = NULL, *fa, *fb;
	char **va, **vb = NULL, *pa = NULL, *pb = NULL;
	int ch, cluster = 0, na, nb = 0;
	struct jqprog *prog;
	jv in, recs, rep;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((ch = getopt_long(argc, argv, "co:", lo, NULL)) != -1) {
		switch (ch) {
		case 'c':
			cluster = 1;
			break;
		case 'o':
			outdir = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2 && !(argc == 1))
		usage();
	rules_load(NULL);
	opkey_init();
	prog = jqprog_new("asc-diff.jq", asc_diff_jq);
	if (outdir) {
		struct stat st;

		if (mkdir(outdir, 0750) != 0 && (errno != EEXIST ||
		    stat(outdir, &st) != 0 || !S_ISDIR(st.st_mode)))
			dieerr("%s", outdir);
	}
	na = resolve(argv[0], &va);
	if (argc == 1 || cluster) {
		if (argc != 1)
			usage();
		if (na < 2)
			die("%s: one profile: give two operands, or one that holds several ranks (a result directory of asc-analyze, a records stream)", argv[0]);
		pick(prog, va, na, &fa, &fb);
		pa = (char *)fa;
		pb = (char *)fb;
		cluster = 1;
	} else {
		nb = resolve(argv[1], &vb);
		if (na != 1 || nb != 1)
			die("%s: holds %d ranks: give one rank's directory, or one operand with --cluster",
			    na != 1 ? argv[0] : argv[1], na != 1 ? na : nb);
		fa = va[0];
		fb = vb[0];
	}
	in = jv_object();
	in = jv_object_set(in, jv_string("mode"), jv_string("diff"));
	in = jv_object_set(in, jv_string("cluster"), jv_bool(cluster));
	in = jv_object_set(in, jv_string("ranks"), jv_number(cluster ? na : 0));
	in = jv_object_set(in, jv_string("a_input"), jv_string(argv[0]));
	in = jv_object_set(in, jv_string("b_input"), jv_string(cluster ? argv[0] : argv[1]));
	in = jv_object_set(in, jv_string("a"), load(fa));
	in = jv_object_set(in, jv_string("b"), load(fb));
	recs = runprog(prog, in);
	jv_array_foreach(recs, i, r) {
		jv s = jv_dump_string(r, 0);

		fputs(jv_string_value(s), stdout);
		fputc('\n', stdout);
		jv_free(s);
	}
	if (outdir) {
		in = jv_object_set(jv_object(), jv_string("mode"), jv_string("report"));
		rep = runprog(prog, jv_object_set(in, jv_string("records"), jv_copy(recs)));
		jv_array_foreach(rep, i, f) {
			jv name = jv_object_get(jv_copy(f), jv_string("file"));

			writefile(outdir, jv_string_value(name), jv_object_get(f, jv_string("text")));
			jv_free(name);
		}
		jv_free(rep);
	}
	jv_free(recs);
	jqprog_free(prog);
	strv_free(va, na);
	if (vb)
		strv_free(vb, nb);
	free(pa);
	free(pb);
	xclose_stdout();
	return EX_OK;
}
