/* warns: the findings a profile reader keeps, see warns.h */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "warns.h"

void
warns_add(struct warns *ws, const char *code, const char *fmt, ...)
{
	char *m = xmalloc(ws->max);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, ws->max, fmt, ap);
	va_end(ap);
	ws->w = xreallocarray(ws->w, (size_t)ws->n + 1, sizeof *ws->w);
	ws->w[ws->n].code = xstrdup(code);
	ws->w[ws->n].msg = xstrdup(m);
	ws->n++;
	free(m);
}

const char *
warns_get(const struct warns *ws, int i, const char **msg)
{
	if (i < 0 || i >= ws->n)
		return NULL;
	if (msg)
		*msg = ws->w[i].msg;
	return ws->w[i].code;
}

void
warns_move(struct warns *to, struct warns *from)
{
	if (from->n == 0)
		return;
	to->w = xreallocarray(to->w, (size_t)to->n + (size_t)from->n,
	    sizeof *to->w);
	memcpy(to->w + to->n, from->w, (size_t)from->n * sizeof *to->w);
	to->n += from->n;
	from->n = 0;
}

void
warns_free(struct warns *ws)
{
	for (int i = 0; i < ws->n; i++) {
		free(ws->w[i].code);
		free(ws->w[i].msg);
	}
	free(ws->w);
	ws->w = NULL;
	ws->n = 0;
}
