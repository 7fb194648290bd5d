/* nsms: the null form of rec.h's out_nsms(), for a duration not known. */
#include <stdio.h>

#include "nsms.h"

void
out_nsms_null(struct buf *b, const char *k)
{
	char key[64];

	snprintf(key, sizeof key, "%s_ns", k);
	out_null(b, key);
	snprintf(key, sizeof key, "%s_ms", k);
	out_null(b, key);
}
