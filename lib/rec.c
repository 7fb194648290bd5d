/* rec: NDJSON records in: the read buffer, lines, pass-through in bulk.
 * The rest of the reader is in rec_scan.c (a line into fields),
 * rec_jq.c (libjq's fallback) and rec_field.c (fields into values); the
 * writer in rec_write.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "rec_int.h"

#define RBUF	((size_t)1 << 20)	/* first read buffer size */

struct rin *
rin_new(const char *path, size_t maxline)
{
	struct rin *r = xcalloc(1, sizeof *r);
	int e;

	r->maxline = maxline ? maxline : (size_t)1 << 28;
	r->name = path;
	if (strcmp(path, "-") == 0) {
		r->fd = 0;
		r->name = "<stdin>";
	} else if (strncmp(path, "/dev/fd/", 8) == 0 && path[8] >= '0' && path[8] <= '9' &&
	    strspn(path + 8, "0123456789") == strlen(path + 8)) {
		/* The open descriptor itself: opening the name again would
		 * wait for a new writer of a FIFO whose writer is gone. */
		r->fd = dup(atoi(path + 8));
	} else
		r->fd = open(path, O_RDONLY);
	if (r->fd < 0) {
		e = errno;
		free(r);
		errno = e;
		return NULL;
	}
	pipe_widen(r->fd);
	return r;
}

struct rin *
rin_mem(const char *line, size_t len)
{
	struct rin *r = xcalloc(1, sizeof *r);

	/* No input: rin_next finds its end at once. */
	r->fd = -1;
	r->eof = 1;
	r->line = (char *)line;		/* the scanner only reads it */
	r->len = len;
	return r;
}

void
rin_free(struct rin *r)
{
	if (r == NULL)
		return;
	if (r->fd > 0)
		close(r->fd);
	free(r->rb);
	buf_free(&r->norm);
	free(r);
}

const char *
rin_line(const struct rin *r, size_t *len)
{
	if (len)
		*len = r->len;
	return r->line;
}

unsigned long
rin_lineno(const struct rin *r)
{
	return r->lineno;
}

const char *
rin_name(const struct rin *r)
{
	return r->name;
}

void
rin_setname(struct rin *r, const char *name)
{
	r->name = name;
}

int
rin_fd(const struct rin *r)
{
	return r->fd;
}

void
rin_copyto(struct rin *r, int fd, const char *name)
{
	r->copyfd = fd;
	r->copyname = name;
}

const char *
rin_copyend(struct rin *r)
{
	const char *name = r->copyname;
	char *b;

	if (r->copyfd <= 0)
		return NULL;
	/* The rest, unread if the first pass stopped early. */
	b = xmalloc(1 << 20);
	for (ssize_t n, w; !r->eof; ) {
		if ((n = read(r->fd, b, 1 << 20)) == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			dieerr("%s", r->name);
		}
		for (ssize_t o = 0; o < n; o += w)
			if ((w = write(r->copyfd, b + o, (size_t)(n - o))) < 0)
				dieerr("%s", r->copyname);
	}
	free(b);
	if (close(r->copyfd) != 0)
		dieerr("%s", r->copyname);
	r->copyfd = 0;
	return name;
}

/* Read more input after rb[0..rblen); 0 at end of input. */
static size_t
refill(struct rin *r)
{
	ssize_t n;

	if (r->rblen + 1 >= r->rbcap) {
		r->rbcap = r->rbcap ? 2 * r->rbcap : RBUF;
		r->rb = xrealloc(r->rb, r->rbcap);
	}
	do
		n = read(r->fd, r->rb + r->rblen, r->rbcap - r->rblen - 1);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		dieerr("%s", r->name);
	for (ssize_t o = 0, w; r->copyfd > 0 && o < n; o += w)
		if ((w = write(r->copyfd, r->rb + r->rblen + o, (size_t)(n - o))) < 0) {
			if (errno != EINTR)
				dieerr("%s", r->copyname);
			w = 0;
		}
	r->rblen += (size_t)n;
	return (size_t)n;
}

/*
 * One physical line, pointed to in the read buffer (no copy) and
 * NUL-terminated in place; its length, -1 at EOF, or -2 for a line
 * longer than maxline (skipped without being held).
 */
static long
rawline(struct rin *r)
{
	size_t skipped = 0;

	for (;;) {
		char *s = r->rb ? r->rb + r->rbpos : NULL, *nl;	/* no NULL + 0 */
		size_t avail = r->rblen - r->rbpos, n;

		nl = avail ? memchr(s, '\n', avail) : NULL;
		if (nl && skipped) {
			r->rbpos += (size_t)(nl - s) + 1;
			r->lineno++;
			return -2;
		}
		if (nl == NULL && (skipped || avail > r->maxline)) {
			/* Too long: drop what we hold, read on to its end. */
			skipped += avail;
			r->rbpos = r->rblen = 0;
			if (r->eof || refill(r) == 0) {
				r->eof = 1;
				r->lineno++;
				return -2;
			}
			continue;
		}
		if (nl == NULL && r->eof) {
			if (avail == 0)
				return -1;
			nl = s + avail;		/* a last line without newline */
		}
		if (nl) {
			n = (size_t)(nl - s);
			r->rbpos += n + (r->rbpos + n < r->rblen);
			*nl = '\0';	/* refill() keeps a spare byte for this */
			r->lineno++;
			if (n && s[n - 1] == '\r')
				s[--n] = '\0';
			r->line = s;
			return (long)n;
		}
		/* Keep the partial line, read more behind it. */
		if (r->rbpos) {
			memmove(r->rb, s, avail);
			r->rblen = avail;
			r->rbpos = 0;
		}
		if (refill(r) == 0)
			r->eof = 1;
	}
}

/* Write n bytes straight to fp's descriptor, after what fp holds. */
static void
rawwrite(FILE *fp, const char *p, size_t n)
{
	if (fflush(fp) != 0)
		dieerr("stdout");
	while (n) {
		ssize_t w = write(fileno(fp), p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			dieerr("stdout");
		p += w;
		n -= (size_t)w;
	}
}

void
rin_bulk(struct rin *r, const char *type, size_t tlen, FILE *fp)
{
	char pre[64];
	int pn = snprintf(pre, sizeof pre, "{\"type\":\"%.*s\"", (int)tlen, type);

	if (pn < 0 || (size_t)pn >= sizeof pre)
		return;
	for (;;) {
		char *s = r->rb + r->rbpos, *e = r->rb + r->rblen, *p = s, *nl;
		unsigned long lines = 0;
		int stop = 0;

		while (p < e && (nl = memchr(p, '\n', (size_t)(e - p))) != NULL) {
			size_t n = (size_t)(nl - p);

			/* Anything unusual goes back to rin_next to judge. */
			if (n <= (size_t)pn || n > r->maxline || memcmp(p, pre, (size_t)pn) != 0 ||
			    (p[pn] != ',' && p[pn] != '}') || nl[-1] == '\r') {
				stop = 1;
				break;
			}
			p = nl + 1;
			lines++;
		}
		if (p > s && fp)
			rawwrite(fp, s, (size_t)(p - s));
		r->rbpos += (size_t)(p - s);
		r->lineno += lines;
		if (stop || r->eof)
			return;
		/* A partial line (or nothing) is left: read more behind it. */
		s = r->rb + r->rbpos;
		if (r->rbpos == 0 && r->rblen + 1 >= r->rbcap)
			return;		/* a line as long as the buffer */
		memmove(r->rb, s, r->rblen - r->rbpos);
		r->rblen -= r->rbpos;
		r->rbpos = 0;
		if (refill(r) == 0) {
			r->eof = 1;
			return;
		}
	}
}

int
rin_next(struct rin *r)
{
	long n;

	r->nf = -1;
	for (;;) {
		if ((n = rawline(r)) == -1)
			return 0;
		if (n == 0)
			continue;
		r->len = n < 0 ? r->maxline + 1 : (size_t)n;
		if (n < 0 || r->len > r->maxline) {
			rin_error(r, "line longer than %zu bytes", r->maxline);
			return -1;
		}
		return 1;
	}
}

int
rin_error(struct rin *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, sizeof r->err, fmt, ap);
	va_end(ap);
	return -1;
}

const char *
rin_errmsg(const struct rin *r)
{
	return r->err;
}
