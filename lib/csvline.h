/*
 * csvline: a fast RFC 4180 record reader for profiler CSVs.  Handles
 * quoted fields with doubled quotes, fields and records spanning lines,
 * CRLF or LF endings, a UTF-8 BOM, and a last line without a newline.
 * Fields are not trimmed (the TAB after start times is the caller's to
 * strip).  libcsv (strict, no trimming) is the reference this reader is
 * tested against on every real CSV; it runs at a fraction of the speed.
 */
#ifndef ASC_CSVLINE_H
#define ASC_CSVLINE_H

#include <stdio.h>

#include "util.h"

struct csvin {
	FILE		*fp;
	const char	*name;
	unsigned long	 lineno;	/* physical lines read so far */
	unsigned long	 recline;	/* line the current record started on */
	char		*line;
	size_t		 cap;
	struct buf	 rec;		/* field bytes, each NUL-terminated */
	size_t		*off, *len;
	int		 nf, maxf;
	unsigned long long bytes;	/* bytes read so far */
	char		 err[160];
};

/* Open path ("-" is stdin).  0, or -1 with errno. */
int	csv_open(struct csvin *, const char *path);
void	csv_close(struct csvin *);
/* Next record (blank lines are skipped): 1, 0 at EOF, -1 on an
 * unterminated quote (err set).  Read errors are fatal. */
int	csv_next(struct csvin *);
/* Field i of the current record (NUL-terminated) and its length. */
static inline const char *
csv_field(const struct csvin *c, int i, size_t *len)
{
	if (len)
		*len = c->len[i];
	return c->rec.p + c->off[i];
}

#endif
