/*
 * check: what the unit tests share: CHECK and its count of failures, a
 * temporary file of given bytes, and the exit status.
 */
#ifndef ASC_CHECK_H
#define ASC_CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fails;

#define CHECK(e) do { if (!(e)) { fails++; fprintf(stderr, \
	"%s:%d: check failed: %s\n", __FILE__, __LINE__, #e); } } while (0)

static char tmppath[4096] __attribute__((unused));

/* data[0..n) into a new temporary file, named in tmppath (prog's
 * messages, exit 2 on an error). */
static inline void
check_tmpfile(const char *prog, const void *data, size_t n)
{
	const char *dir = getenv("TMPDIR");
	FILE *fp;
	int fd;

	snprintf(tmppath, sizeof tmppath, "%s/%s.XXXXXX", dir && *dir ? dir : "/tmp", prog);
	if ((fd = mkstemp(tmppath)) < 0 || (fp = fdopen(fd, "w")) == NULL) {
		fprintf(stderr, "%s: mkstemp: %s\n", prog, strerror(errno));
		exit(2);
	}
	if (fwrite(data, 1, n, fp) != n || fclose(fp) != 0) {
		fprintf(stderr, "%s: write: %s\n", prog, strerror(errno));
		exit(2);
	}
}

/* The exit status: 1, said, when a check failed. */
static inline int
check_status(const char *prog)
{
	if (fails)
		fprintf(stderr, "%s: %d checks failed\n", prog, fails);
	return fails ? 1 : 0;
}

#endif
