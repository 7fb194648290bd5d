/*
 * fuzz.h: what the libFuzzer targets share.  Readers that take a path get
 * the input through a file of their own in $TMPDIR (one per process and
 * target; rewritten for every input).
 */
#ifndef ASC_FUZZ_H
#define ASC_FUZZ_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* The input as a file; its path (static).  Exits on a system error. */
static inline const char *
fuzz_file(const char *name, const uint8_t *data, size_t size)
{
	static char path[512];
	const char *td = getenv("TMPDIR");
	int fd;

	snprintf(path, sizeof path, "%s/asc-fuzz-%ld-%s", td && *td ? td : "/tmp", (long)getpid(), name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0) {
		perror(path);
		exit(2);
	}
	while (size > 0) {
		ssize_t n = write(fd, data, size);

		if (n <= 0) {
			perror(path);
			exit(2);
		}
		data += n;
		size -= (size_t)n;
	}
	close(fd);
	return path;
}

#endif
