/* spool: see spool.h. */
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spool.h"
#include "util.h"

static char *tmp;		/* the spool file made here, removed at exit */
static char *kept;		/* the caller's copy (spool_open keep) */

const char *
spool(const char *path)
{
	/* nothing read: all of it copied */
	return spool_again(spool_open(path, NULL), path);
}

struct rin *
spool_open(const char *path, const char *keep)
{
	struct stat st;
	const char *dir = getenv("TMPDIR");
	struct rin *r;
	size_t n;
	int fd;

	if (keep == NULL && strcmp(path, "-") != 0) {
		if (stat(path, &st) != 0)
			dieerr("%s", path);
		if (S_ISREG(st.st_mode)) {
			if ((r = rin_new(path, 0)) == NULL)
				dieerr("%s", path);
			return r;
		}
	}
	if ((r = rin_new(path, 0)) == NULL)
		dieerr("%s", dispname(path));
	if (keep) {
		struct stat ks;

		/* Truncating the input itself would lose it. */
		if (fstat(rin_fd(r), &st) == 0 && stat(keep, &ks) == 0 &&
		    st.st_dev == ks.st_dev && st.st_ino == ks.st_ino)
			die("%s: the copy would be the input itself", keep);
		kept = xstrdup(keep);
		if ((fd = open(keep, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			dieerr("%s", keep);
		rin_copyto(r, fd, kept);
	} else {
		if (dir == NULL || *dir == '\0')
			dir = "/tmp";
		n = strlen(dir) + 32;
		tmp = xmalloc(n);
		snprintf(tmp, n, "%s/asc-spool.XXXXXX", dir);
		if ((fd = mkstemp(tmp)) < 0)
			dieerr("%s", tmp);
		atexit(spool_done);
		rin_copyto(r, fd, tmp);
	}
	return r;
}

const char *
spool_again(struct rin *r, const char *path)
{
	const char *copy = rin_copyend(r);

	rin_free(r);
	return copy ? copy : path;
}

void
spool_done(void)
{
	if (tmp != NULL) {
		unlink(tmp);
		free(tmp);
		tmp = NULL;
	}
}
