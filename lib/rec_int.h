/* rec_int.h: what the parts of rec (rec.c, rec_scan.c, rec_jq.c,
 * rec_field.c, rec_write.c) share, the reader's definition first; private
 * to them (filters use rec.h's functions; `make modules` checks). */
#ifndef ASC_REC_INT_H
#define ASC_REC_INT_H

#include "rec.h"

struct rin {
	int		 fd;
	const char	*name;		/* for messages */
	unsigned long	 lineno;
	char		*line;		/* current line, NUL-terminated, no \n;
					 * valid until the next rin_next() */
	size_t		 len, maxline;
	char		*rb;		/* read buffer: lines are spans of it */
	size_t		 rbcap, rbpos, rblen;
	int		 eof;
	int		 copyfd;	/* > 0: every byte read is also written here */
	const char	*copyname;	/* (rin_copyto), named in its errors */
	int		 nf;
	const char	*lp, *le;	/* the scan position and end */
	struct rfield	 f[REC_MAXF];
	uint8_t		 kh[2 * REC_MAXF];	/* key hash: field index + 1, 0 empty */
	struct buf	 norm;		/* the line as re-serialised by libjq */
	char		 err[256];
};

/* Parse r's line with libjq; on success r->norm holds the compact form
 * (rec_jq.c). */
int	rec_jvnorm(struct rin *);

/*
 * Fields by key in a small hash table (kh), filled as the line is
 * scanned: a record has some 30 keys and a filter asks for a dozen.  A
 * repeated key takes the slot of the earlier one: the last wins, as in jq.
 */
static inline unsigned
keyhash(const char *k, size_t n)
{
	return n ? ((unsigned)n * 31u + (unsigned char)k[0] * 7u +
	    (unsigned char)k[n - 1]) % (2 * REC_MAXF) : 0;
}

#endif
