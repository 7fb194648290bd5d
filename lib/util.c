/* util: program name, exit codes, checked allocation, stdout closing. */
#define _GNU_SOURCE		/* F_SETPIPE_SZ */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

const char *progname = "asc";

void
setprogname_(const char *argv0)
{
	const char *p = strrchr(argv0, '/');

	progname = p ? p + 1 : argv0;
}

static void
vmsg(int errnum, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

void
die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, fmt, ap);
	va_end(ap);
	exit(EX_SYS);
}

void
dieerr(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	va_start(ap, fmt);
	vmsg(e, fmt, ap);
	va_end(ap);
	exit(EX_SYS);
}

void
warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(0, fmt, ap);
	va_end(ap);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xrealloc(void *o, size_t n)
{
	void *p = realloc(o, n ? n : 1);

	if (p == NULL)
		die("out of memory");
	return p;
}

void *
xreallocarray(void *o, size_t n, size_t m)
{
	if (m && n > SIZE_MAX / m)
		die("out of memory");
	return xrealloc(o, n * m);
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

long long
xnum(const char *s, long long min, long long max, const char *what)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno)
		die("%s: not a number: %s", what, s);
	if (v < min || v > max)
		die("%s out of range [%lld, %lld]: %s", what, min, max, s);
	return v;
}

void
xclose_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout) || fclose(stdout) != 0)
		dieerr("stdout");
}

const char *
dispname(const char *path)
{
	return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

void
buf_grow_(struct buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	if (b->cap == 0)
		b->cap = 256;
	while (b->cap < need)
		b->cap *= 2;
	b->p = xrealloc(b->p, b->cap);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/*
 * Pipes between stages default to 64 KiB: a megabyte each way lets a
 * stage move its stream in fewer, larger reads and writes.  Best effort.
 */
void
pipe_widen(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
		(void)fcntl(fd, F_SETPIPE_SZ, 1 << 20);
}

/* Standard output in megabyte blocks; call before writing anything. */
void
stdout_big(void)
{
	static char b[1 << 20];

	setvbuf(stdout, b, _IOFBF, sizeof b);
	pipe_widen(1);
}

/* Temporaries of open asides, removed at exit (die() included). */
static char *pending[8];

static void
unlink_pending(void)
{
	for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void
track(char *tmp, int on)
{
	static int registered;

	if (!registered && atexit(unlink_pending) == 0)
		registered = 1;
	for (size_t i = 0; i < sizeof pending / sizeof pending[0]; i++)
		if (on ? pending[i] == NULL : pending[i] == tmp) {
			pending[i] = on ? tmp : NULL;
			return;
		}
}

int
aside_open(struct aside *a, const char *path)
{
	struct stat st;
	int fd;

	memset(a, 0, sizeof *a);
	a->path = xstrdup(path);
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return (a->fp = fopen(path, "w")) == NULL ? -1 : 0;
	a->tmp = xmalloc(strlen(path) + 8);
	sprintf(a->tmp, "%s.XXXXXX", path);
	if ((fd = mkstemp(a->tmp)) < 0)
		return -1;
	track(a->tmp, 1);
	if (fchmod(fd, 0640) != 0 || (a->fp = fdopen(fd, "w")) == NULL) {
		close(fd);
		aside_discard(a);
		return -1;
	}
	return 0;
}

int
aside_commit(struct aside *a)
{
	int bad = fflush(a->fp) != 0 || ferror(a->fp);

	bad |= fclose(a->fp) != 0;
	a->fp = NULL;
	if (!bad && (a->tmp == NULL || rename(a->tmp, a->path) == 0)) {
		if (a->tmp)
			track(a->tmp, 0);
		free(a->tmp);
		free(a->path);
		a->tmp = a->path = NULL;
		return 0;
	}
	int e = errno;

	aside_discard(a);
	errno = e;
	return -1;
}

void
aside_discard(struct aside *a)
{
	if (a->fp)
		fclose(a->fp);
	a->fp = NULL;
	if (a->tmp) {
		unlink(a->tmp);
		track(a->tmp, 0);
	}
	free(a->tmp);
	free(a->path);
	a->tmp = a->path = NULL;
}
