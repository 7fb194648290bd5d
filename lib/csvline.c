/* csvline: a fast RFC 4180 record reader for profiler CSVs. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "csvline.h"

int
csv_open(struct csvin *c, const char *path)
{
	memset(c, 0, sizeof *c);
	if (strcmp(path, "-") == 0) {
		c->fp = stdin;
		c->name = "<stdin>";
	} else {
		c->name = path;
		if ((c->fp = fopen(path, "r")) == NULL)
			return -1;
	}
	c->maxf = 64;
	c->off = xreallocarray(NULL, (size_t)c->maxf, sizeof *c->off);
	c->len = xreallocarray(NULL, (size_t)c->maxf, sizeof *c->len);
	return 0;
}

void
csv_close(struct csvin *c)
{
	if (c->fp && c->fp != stdin)
		fclose(c->fp);
	free(c->line);
	free(c->off);
	free(c->len);
	buf_free(&c->rec);
	memset(c, 0, sizeof *c);
}

static long
getl(struct csvin *c)
{
	ssize_t n;

	errno = 0;
	if ((n = getline(&c->line, &c->cap, c->fp)) < 0) {
		if (ferror(c->fp))
			dieerr("%s", c->name);
		return -1;
	}
	c->lineno++;
	c->bytes += (unsigned long long)n;
	if (c->lineno == 1 && n >= 3 && memcmp(c->line, "\xef\xbb\xbf", 3) == 0) {
		memmove(c->line, c->line + 3, (size_t)n - 2);
		n -= 3;
	}
	return n;
}

static inline void
endfield(struct csvin *c, size_t start)
{
	if (c->nf == c->maxf) {
		c->maxf *= 2;
		c->off = xreallocarray(c->off, (size_t)c->maxf, sizeof *c->off);
		c->len = xreallocarray(c->len, (size_t)c->maxf, sizeof *c->len);
	}
	c->off[c->nf] = start;
	c->len[c->nf] = c->rec.len - start;
	c->nf++;
	buf_addc(&c->rec, '\0');
}

int
csv_next(struct csvin *c)
{
	long n;
	const char *p, *e;
	size_t start;
	int inq = 0;

	do {
		if ((n = getl(c)) < 0)
			return 0;
		e = c->line + n;
		while (e > c->line && (e[-1] == '\n' || e[-1] == '\r'))
			e--;
	} while (e == c->line);
	c->recline = c->lineno;
	c->nf = 0;
	c->rec.len = 0;
	p = c->line;
	start = 0;
	for (;;) {
		if (inq) {
			const char *q = memchr(p, '"', (size_t)(e - p));

			if (q == NULL) {
				/* The quoted field goes on: keep the line end. */
				buf_add(&c->rec, p, (size_t)(c->line + n - p));
				if ((n = getl(c)) < 0) {
					snprintf(c->err, sizeof c->err,
					    "unterminated quoted field");
					return -1;
				}
				p = c->line;
				e = c->line + n;
				while (e > c->line && (e[-1] == '\n' || e[-1] == '\r'))
					e--;
				continue;
			}
			buf_add(&c->rec, p, (size_t)(q - p));
			if (q + 1 < e && q[1] == '"') {
				buf_addc(&c->rec, '"');
				p = q + 2;
				continue;
			}
			inq = 0;
			p = q + 1;
			continue;
		}
		if (p < e && *p == '"' && c->rec.len == start) {
			inq = 1;
			p++;
			continue;
		}
		{
			const char *q = p;

			/* Eight bytes at a time to the next comma or quote. */
			while (e - q >= 8) {
				uint64_t v = swar_load(q);
				uint64_t m = SWAR_BYTE(v, ',') | SWAR_BYTE(v, '"');

				if (m) {
					q += __builtin_ctzll(m) >> 3;
					goto found;
				}
				q += 8;
			}
			while (q < e && *q != ',' && *q != '"')
				q++;
found:
			buf_add(&c->rec, p, (size_t)(q - p));
			if (q < e && *q == '"') {
				/* A stray quote inside an unquoted field is data. */
				buf_addc(&c->rec, '"');
				p = q + 1;
				continue;
			}
			p = q;
		}
		endfield(c, start);
		if (p >= e)
			return 1;
		p++;		/* the comma */
		start = c->rec.len;
		if (p >= e) {
			endfield(c, start);
			return 1;
		}
	}
}
