/*
 * csvline: a fast RFC 4180 record reader for profiler CSVs.  Handles
 * quoted fields with doubled quotes, fields and records spanning lines,
 * CRLF or LF endings, a UTF-8 BOM, and a last line without a newline.
 * Fields are not trimmed (the TAB after start times is the caller's to
 * strip).  libcsv (strict, no trimming) is the reference this reader is
 * tested against on every real CSV; it runs at a fraction of the speed.
 *
 * The file is read in blocks with read(2); a record is split where it
 * lies in the block (fields are terminated in place, quoted fields are
 * unescaped in place), so nothing is copied per field.  Each record's
 * byte offset is known, and csv_seek() goes back to it: a caller can
 * keep only offsets and read the rows again later.
 */
#ifndef ASC_CSVLINE_H
#define ASC_CSVLINE_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

struct csvin {
	int		 fd;
	int		 ownfd;		/* csv_close closes fd */
	const char	*name;
	unsigned long	 lineno;	/* physical lines read so far */
	unsigned long	 recline;	/* line the current record started on */
	unsigned long long bytes;	/* bytes read so far (offset after the record) */
	unsigned long long recoff;	/* byte offset of the current record */
	char		*buf;		/* block buffer: cap bytes and padding */
	size_t		 cap, pos, end;	/* consumed up to pos, data up to end */
	size_t		 want;		/* how much the next read asks for */
	unsigned long long boff;	/* file offset of buf[0] */
	const char	*recp;		/* the current record's first byte */
	size_t		*off, *len;	/* fields: offset from recp, length */
	int		 nf, maxf;
	int		 keep;		/* fields split (0: all); see below */
	int		 eof;		/* read(2) said end of file */
	int		 sentinel;	/* a '\n' was added after a last line without one */
	int		 bomdone;	/* the BOM test of line 1 was made */
	int		 toolong;	/* a record grew past maxrec */
	int		 utf16;		/* 'L' or 'B': a UTF-16 BOM on line 1 */
	size_t		 maxrec;	/* 256 MiB ($ASC_CSV_MAXREC in tests) */
	char		 err[160];
};

/* Open path ("-" is stdin).  0, or -1 with errno. */
int	csv_open(struct csvin *, const char *path);
/* Read from an open descriptor, named name in messages; csv_close leaves
 * it open unless ownfd is set.  Reading starts at the descriptor's
 * offset, taken as line 1. */
void	csv_fdopen(struct csvin *, int fd, const char *name);
void	csv_close(struct csvin *);
/* Next record (blank lines are skipped): 1, 0 at EOF, -1 on an
 * unterminated quote, a record over maxrec bytes (the rest of the file
 * is not read), a first line with CR-only line ends or a UTF-16 byte-order mark (err set).  Read errors are fatal.  The fields stay
 * valid until the next call. */
int	csv_next(struct csvin *);
/*
 * Go to byte offset off, where a record seen before (its recoff) starts
 * on line line (its recline): the next csv_next reads it again.  Reading
 * ahead within the block is served from it; anything else seeks the
 * descriptor.  0, or -1 with errno (a pipe cannot go back).
 */
int	csv_seek(struct csvin *, unsigned long long off, unsigned long line);
/*
 * Field i of the current record (NUL-terminated) and its length.  The
 * CSV_OVERREAD bytes after a field's end can be read (the buffer is
 * padded), for fixed-size copies and block compares.  A reader that needs
 * only the first fields sets keep: nf still counts every field of the
 * record, but fields keep and later are not split (not available).
 */
#define CSV_OVERREAD	64
static inline const char *
csv_field(const struct csvin *c, int i, size_t *len)
{
	if (len)
		*len = c->len[i];
	return c->recp + c->off[i];
}

#endif
