/* nsms: the null form of rec.h's out_nsms(), for a duration not known. */
#ifndef ASC_NSMS_H
#define ASC_NSMS_H

#include "rec.h"

/* ,"k_ns":null,"k_ms":null */
void	out_nsms_null(struct buf *b, const char *k);

#endif
