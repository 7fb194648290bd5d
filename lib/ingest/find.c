/* find: the profiles under asc-ingest's operands. */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cell.h"
#include "find.h"
#include "strv.h"
#include "util.h"

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
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
	if (strcmp(name, "communication_matrix.json") == 0)
		return F_COMMX;
	if (strcmp(name, "profiler_info.json") == 0 ||
	    (startswith(name, "profiler_info_") && endswith(name, ".json") &&
	    cell_digits(name + 14, strlen(name) - 19)))
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

/* Sorted entry names of a directory (caller frees).  must 1: a
 * profile's own directory, which cannot be unreadable; 0 (searching a
 * tree for profiles): an unreadable directory is said and skipped; -1:
 * skipped (it is said when the search goes into it). */
static char **
listdir(const char *dir, int *n, int must)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **v = NULL;

	*n = 0;
	/* Unreadable is a system error, never "missing". */
	if (d == NULL && errno != ENOENT && errno != ENOTDIR) {
		if (must > 0)
			dieerr("%s", dir);
		if (must == 0)
			warnmsg("%s: %s; not searched", dir, strerror(errno));
	}
	if (d == NULL)
		return NULL;
	while ((e = readdir(d)) != NULL) {
		/* a tree search sees hidden entries, to say them */
		if (e->d_name[0] == '.' && (must != 0 || e->d_name[1] == '\0' ||
		    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		v = xreallocarray(v, (size_t)*n + 1, sizeof *v);
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, (size_t)*n, sizeof *v, namecmp);
	return v;
}

/* Add every file we read directly inside dir (must: see listdir). */
static void
scanfilesm(struct profile *p, const char *dir, int must)
{
	int n;
	char **v = listdir(dir, &n, must);

	for (int i = 0; i < n; i++) {
		int k = classify(v[i]);
		char *path = join(dir, v[i]);
		struct stat st;

		/* A file we read that is not one (a FIFO would block, a
		 * directory, a symlink loop) is not "missing": exit 2.
		 * stat, never open: opening a FIFO waits for a writer. */
		if (k >= 0) {
			if (stat(path, &st) != 0)
				dieerr("%s", path);
			if (!S_ISREG(st.st_mode))
				die("%s: %s, not a regular file", path, S_ISDIR(st.st_mode) ? "a directory" :
				    S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
			addfile(p, k, path);
		}
		free(path);
	}
	strv_free(v, n);
}

static void
scanfiles(struct profile *p, const char *dir)
{
	scanfilesm(p, dir, 1);
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
	char *apo, *mso, *real = NULL;
	const char *name = basename_(dir);
	int found = 0;

	/* ".", ".." and "x/" name no profile: the directory's own path does. */
	if ((strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strchr(name, '/')) &&
	    (real = realpath(dir, NULL)) != NULL && strcmp(real, "/") != 0) {
		dir = real;
		name = basename_(real);
	}
	apo = join(dir, "ASCEND_PROFILER_OUTPUT");
	mso = join(dir, "mindstudio_profiler_output");
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
		/* Loose exports: a directory holding a kernel table or a trace
		 * (any directory of a tree: it may be unreadable). */
		scanfilesm(p, dir, -1);
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
			/* The directory above it names the profile. */
			char *parent = realpath(dir, NULL), *s;

			if (parent == NULL)
				parent = xstrdup(dir);
			if ((s = strrchr(parent, '/')) != NULL && s > parent)
				*s = '\0';
			else
				s = NULL;
			p->name = xstrdup(s ? basename_(parent) : name);
			free(parent);
		} else
			p->name = xstrdup(name);
	}
	free(apo);
	free(mso);
	free(real);
	return found;
}

struct profile *profs;
int nprofs;
const char *curroot = "";	/* the operand being searched */

/* The directories of profs, to know one reached by two paths. */
static struct { dev_t dev; ino_t ino; } *profid;

/* The identity of p's directory: the profile directory above an
 * ASCEND_PROFILER_OUTPUT or mindstudio_profiler_output named itself. */
static int
profstat(const struct profile *p, struct stat *st)
{
	const char *b = basename_(p->dir);
	int r;

	if (strcmp(b, "ASCEND_PROFILER_OUTPUT") == 0 ||
	    strcmp(b, "mindstudio_profiler_output") == 0) {
		char *up = join(p->dir, "..");

		r = stat(up, st);
		free(up);
		return r;
	}
	return stat(p->dir, st);
}

/* Is p's directory one of profs' already (reached by another path)?
 * Then say so and free p. */
static int
listed(struct profile *p)
{
	struct stat st;

	if (profstat(p, &st) != 0)
		return 0;
	for (int i = 0; i < nprofs; i++)
		if (profid[i].dev == st.st_dev && profid[i].ino == st.st_ino) {
			warnmsg("%s: the same profile as %s; analysed once", p->dir, profs[i].dir);
			for (int j = 0; j < p->nf; j++)
				free(p->f[j].path);
			free(p->f);
			free(p->name);
			free(p->dir);
			return 1;
		}
	return 0;
}

static void
addprofile(struct profile *p)
{
	struct stat st;

	if (profstat(p, &st) != 0)
		st.st_dev = 0, st.st_ino = 0;
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
	profid = xreallocarray(profid, (size_t)nprofs + 1, sizeof *profid);
	profid[nprofs].dev = st.st_dev;
	profid[nprofs].ino = st.st_ino;
	profs[nprofs++] = *p;
}

/*
 * The directories searched under the current operand, by device and
 * inode: a symbolic link is followed (a rank directory linked into a
 * cluster is what the user means) but a directory is searched once, so
 * that a link loop or a second link to one directory is said, not read
 * again.
 */
static struct seen {
	dev_t		 dev;
	ino_t		 ino;
	char		*path;
}		*seen;
static size_t	 nseen;

/* The path that searched the directory of st before, else NULL. */
static const char *
seen_before(const struct stat *st, const char *path)
{
	for (size_t i = 0; i < nseen; i++)
		if (seen[i].dev == st->st_dev && seen[i].ino == st->st_ino)
			return seen[i].path;
	seen = xreallocarray(seen, nseen + 1, sizeof *seen);
	seen[nseen].dev = st->st_dev;
	seen[nseen].ino = st->st_ino;
	seen[nseen].path = xstrdup(path);
	nseen++;
	return NULL;
}

/* A hidden directory is not searched: said when it is a profile. */
static void
hidden(const char *sub)
{
	struct profile p;

	if (!profile_at(sub, &p))
		return;
	warnmsg("%s: a hidden directory, not read (name it without the "
	    "leading \".\" to analyse it)", sub);
	for (int i = 0; i < p.nf; i++)
		free(p.f[i].path);
	free(p.f);
	free(p.name);
	free(p.dir);
}

static int
search(const char *dir, int depth)
{
	struct profile p;
	int n, found = 0;
	char **v;

	if (profile_at(dir, &p)) {
		if (!listed(&p))
			addprofile(&p);
		return 1;
	}
	if (depth == 0)
		return 0;
	v = listdir(dir, &n, 0);
	for (int i = 0; i < n; i++) {
		char *sub = join(dir, v[i]);
		struct stat st, lst;
		const char *prev;

		if (stat(sub, &st) != 0) {
			if (lstat(sub, &lst) == 0 && S_ISLNK(lst.st_mode))
				warnmsg("%s: a symbolic link to nothing (%s), "
				    "skipped", sub, strerror(errno));
		} else if (!S_ISDIR(st.st_mode))
			;
		else if (v[i][0] == '.')
			hidden(sub);
		else if ((prev = seen_before(&st, sub)) != NULL)
			warnmsg("%s: the same directory as %s (a symbolic "
			    "link), read once", sub, prev);
		else
			found += search(sub, depth - 1);
		free(sub);
	}
	strv_free(v, n);
	return found;
}

/* Find profiles at or below dir (a cluster), depth-limited. */
int
findprofiles(const char *dir, int depth)
{
	struct stat st;
	int found;

	if (stat(dir, &st) == 0)
		(void)seen_before(&st, dir);
	found = search(dir, depth);
	for (size_t i = 0; i < nseen; i++)
		free(seen[i].path);
	free(seen);
	seen = NULL;
	nseen = 0;
	return found;
}

/* A file operand: joins the previous profile when it is the same one. */
void
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
