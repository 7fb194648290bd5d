/* strv: a list of strings: written as one JSON array field, freed. */
#ifndef ASC_STRV_H
#define ASC_STRV_H

#include "rec.h"

/* ,"k":["v0","v1",...] (n strings, each escaped as out_esc does). */
void	out_strv(struct buf *b, const char *k, const char *const *v, int n);
/* Frees the n strings of v and v. */
void	strv_free(char **v, int n);

#endif
