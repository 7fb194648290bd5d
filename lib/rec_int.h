/* rec_int.h: what the parts of rec (rec.c, rec_scan.c, rec_jq.c,
 * rec_field.c, rec_write.c) share; private to them. */
#ifndef ASC_REC_INT_H
#define ASC_REC_INT_H

#include "rec.h"

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
