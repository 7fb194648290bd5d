/* strv: a list of strings: written as one JSON array field, freed. */
#include <stdlib.h>
#include <string.h>

#include "strv.h"

void
out_strv(struct buf *b, const char *k, const char *const *v, int n)
{
	out_key(b, k);
	buf_addc(b, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(b, ',');
		out_esc(b, v[i], strlen(v[i]));
	}
	buf_addc(b, ']');
}

void
strv_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}
