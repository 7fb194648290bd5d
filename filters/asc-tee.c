/*
 * asc-tee: copy standard input to standard output and to each named file,
 * in blocks of up to 1 MiB.  coreutils tee moves 8 KiB per call, so every
 * reader after it wakes once per 8 KiB: on a million-kernel stream some
 * 300 k system calls between the stages of asc-analyze.  Pipes and FIFOs
 * at either end are widened to 1 MiB.  The bytes are not looked at.
 *
 * On Linux, from a pipe to pipes (and at most one other file), the bytes
 * are not copied at all: tee(2) and splice(2) hand the pipe's pages on.
 * Copying them through a buffer was 0.4 to 0.6 s of system time per
 * asc-tee on a million-kernel stream, three of them in asc-analyze.
 */
#ifdef __linux__
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "util.h"

#define BLOCK	(1u << 20)
#define MAXOUT	16

static void
usage(void)
{
	fprintf(stderr, "usage: %s [file ...]\n", progname);
	exit(EX_SYS);
}

static void
writeall(int fd, const char *name, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			dieerr("%s", name);
		p += w;
		n -= (size_t)w;
	}
}

#ifdef __linux__
/*
 * The zero-copy path.  Each round duplicates the head of standard input
 * (tee) into an empty staging pipe per pipe output, then moves (splice)
 * that many bytes of the input to one output and each staging pipe's
 * bytes to its output.  tee(2) always starts at the head of its input, so
 * it cannot resume a partial duplicate into a full output pipe; into an
 * empty staging pipe of the input's size it takes all n bytes at once.
 * 0: done; -1: not possible here (nothing moved yet: copy instead).
 */
static int
zerocopy(int nout, const int *fd, const char *const *name)
{
	int stage[MAXOUT + 1][2], nst = 0, dest = -1, first = 1, rc = -1;
	int to[MAXOUT + 1];
	struct stat st;
	long size;

	if (fstat(0, &st) != 0 || !S_ISFIFO(st.st_mode) ||
	    (size = fcntl(0, F_GETPIPE_SZ)) <= 0)
		return -1;
	/* One output takes the input's own pages; it may be a file. */
	for (int i = 0; i < nout; i++) {
		if (fstat(fd[i], &st) != 0)
			return -1;
		if (!S_ISFIFO(st.st_mode)) {
			if (dest >= 0 || !S_ISREG(st.st_mode))
				return -1;
			dest = i;
		}
	}
	if (dest < 0)
		dest = 0;
	for (int i = 0; i < nout; i++) {
		if (i == dest)
			continue;
		if (pipe(stage[nst]) != 0)
			goto out;
		to[nst++] = i;
		if (fcntl(stage[nst - 1][1], F_SETPIPE_SZ, size) < size)
			goto out;
	}
	for (;;) {
		ssize_t n = 0, k;

		for (int j = 0; j < nst; j++) {
			while ((k = tee(0, stage[j][1], j ? (size_t)n : (size_t)size, 0)) < 0 &&
			    errno == EINTR)
				;
			if (k < 0 && first)
				goto out;
			if (k < 0)
				dieerr("stdin");
			if (j == 0)
				n = k;
			else if (k != n)
				die("internal error: tee(2) duplicated %zd of %zd bytes", k, n);
		}
		/* With no staging pipe, splice learns the round's size. */
		for (size_t left = nst ? (size_t)n : (size_t)size; left > 0; left -= (size_t)k) {
			while ((k = splice(0, NULL, fd[dest], NULL, left, SPLICE_F_MOVE)) < 0 &&
			    errno == EINTR)
				;
			if (k < 0 && first)
				goto out;
			if (k < 0)
				dieerr("%s", name[dest]);
			first = 0;
			if (nst == 0)
				n = k;
			if (k == 0 || nst == 0)
				break;
		}
		if (n == 0) {
			rc = 0;
			break;
		}
		for (int j = 0; j < nst; j++)
			for (size_t left = (size_t)n; left > 0; left -= (size_t)k) {
				while ((k = splice(stage[j][0], NULL, fd[to[j]], NULL, left,
				    SPLICE_F_MOVE)) < 0 && errno == EINTR)
					;
				if (k <= 0)
					dieerr("%s", name[to[j]]);
			}
	}
out:
	for (int j = 0; j < nst; j++) {
		close(stage[j][0]);
		close(stage[j][1]);
	}
	return rc;
}
#endif

/*
 * A regular file is 0640 whatever the umask, as every output of asc; one
 * of another owner that we may write keeps its mode.
 */
static void
regular_0640(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) != 0)
		dieerr("%s", path);
	if (S_ISREG(st.st_mode) && (st.st_mode & 07777) != 0640 &&
	    fchmod(fd, 0640) != 0 && errno != EPERM)
		dieerr("%s", path);
}

int
main(int argc, char *argv[])
{
	int fd[MAXOUT + 1], nout = 0, c;
	const char *name[MAXOUT + 1];
	char *b = NULL;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((c = getopt(argc, argv, "")) != -1)
		usage();
	argc -= optind;
	argv += optind;
	if (argc > MAXOUT)
		die("at most %d files", MAXOUT);
	fd[nout] = 1;
	name[nout++] = "stdout";
	for (int i = 0; i < argc; i++) {
		/* O_CREAT | O_TRUNC as tee; a FIFO opens for a reader. */
		if ((fd[nout] = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0640)) < 0)
			dieerr("%s", argv[i]);
		regular_0640(fd[nout], argv[i]);
		name[nout++] = argv[i];
	}
	pipe_widen(0);
	for (int i = 0; i < nout; i++)
		pipe_widen(fd[i]);
#ifdef __linux__
	if (zerocopy(nout, fd, name) == 0)
		goto done;
#endif
	b = xmalloc(BLOCK);
	for (;;) {
		ssize_t n = read(0, b, BLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			dieerr("stdin");
		if (n == 0)
			break;
		for (int i = 0; i < nout; i++)
			writeall(fd[i], name[i], b, (size_t)n);
	}
	free(b);
#ifdef __linux__
done:
#endif
	for (int i = 1; i < nout; i++)
		if (close(fd[i]) != 0)
			dieerr("%s", name[i]);
	return EX_OK;
}
