/*
 * asc-tee: copy standard input to standard output and to each named file,
 * in blocks of up to 1 MiB.  coreutils tee moves 8 KiB per call, so every
 * reader after it wakes once per 8 KiB: on a million-kernel stream some
 * 300 k system calls between the stages of asc-analyze.  Pipes and FIFOs
 * at either end are widened to 1 MiB.  The bytes are not looked at.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

int
main(int argc, char *argv[])
{
	int fd[MAXOUT + 1], nout = 0, c;
	const char *name[MAXOUT + 1];
	char *b;

	setprogname_(argv[0]);
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
		if ((fd[nout] = open(argv[i], O_WRONLY | O_CREAT | O_TRUNC, 0666)) < 0)
			dieerr("%s", argv[i]);
		name[nout++] = argv[i];
	}
	pipe_widen(0);
	for (int i = 0; i < nout; i++)
		pipe_widen(fd[i]);
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
	for (int i = 1; i < nout; i++)
		if (close(fd[i]) != 0)
			dieerr("%s", name[i]);
	free(b);
	return EX_OK;
}
