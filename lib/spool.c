/* spool: see spool.h. */
#include <sys/stat.h>

#include <errno.h>
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
	struct rin r;

	spool_open(&r, path, NULL);
	return spool_again(&r, path);	/* nothing read: all of it copied */
}

void
spool_open(struct rin *r, const char *path, const char *keep)
{
	struct stat st;
	const char *dir = getenv("TMPDIR");
	size_t n;
	int fd;

	if (keep == NULL && strcmp(path, "-") != 0) {
		if (stat(path, &st) != 0)
			dieerr("%s", path);
		if (S_ISREG(st.st_mode)) {
			if (rin_open(r, path, 0) != 0)
				dieerr("%s", path);
			return;
		}
	}
	if (rin_open(r, path, 0) != 0)
		dieerr("%s", dispname(path));
	if (keep) {
		struct stat ks;

		/* Truncating the input itself would lose it. */
		if (fstat(r->fd, &st) == 0 && stat(keep, &ks) == 0 &&
		    st.st_dev == ks.st_dev && st.st_ino == ks.st_ino)
			die("%s: the copy would be the input itself", keep);
		kept = xstrdup(keep);
		if ((fd = open(keep, O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			dieerr("%s", keep);
		r->copyname = kept;
	} else {
		if (dir == NULL || *dir == '\0')
			dir = "/tmp";
		n = strlen(dir) + 32;
		tmp = xmalloc(n);
		snprintf(tmp, n, "%s/asc-spool.XXXXXX", dir);
		if ((fd = mkstemp(tmp)) < 0)
			dieerr("%s", tmp);
		atexit(spool_done);
		r->copyname = tmp;
	}
	r->copyfd = fd;
}

const char *
spool_again(struct rin *r, const char *path)
{
	const char *again = r->copyfd > 0 ? r->copyname : path;

	if (r->copyfd > 0) {
		/* The rest, unread if the first pass stopped early. */
		char *b = xmalloc(1 << 20);

		for (ssize_t n, w; !r->eof; ) {
			if ((n = read(r->fd, b, 1 << 20)) == 0)
				break;
			if (n < 0) {
				if (errno == EINTR)
					continue;
				dieerr("%s", r->name);
			}
			for (ssize_t o = 0; o < n; o += w)
				if ((w = write(r->copyfd, b + o, (size_t)(n - o))) < 0)
					dieerr("%s", r->copyname);
		}
		free(b);
		if (close(r->copyfd) != 0)
			dieerr("%s", r->copyname);
		r->copyfd = 0;
	}
	rin_close(r);
	return again;
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
