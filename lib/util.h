/* util: program name, version, exit codes, checked allocation, stdout closing. */
#ifndef ASC_UTIL_H
#define ASC_UTIL_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define EX_OK	0
#define EX_DATA	1	/* bad input data; -k reports each and goes on */
#define EX_SYS	2	/* usage, unreadable input, write failure, no memory */

extern const char *progname;

void	 setprogname_(const char *argv0);

/* "0.3.0 (abc1234)": the Makefile's VERSION and, when built from a git
 * checkout, its commit. */
const char *asc_version(void);
/* With --version as the first argument: "progname (asc) VERSION" on
 * stdout and exit 0, before any other option is looked at. */
void	 version_opt(int argc, char **argv);
/* The rules file a filter merged over the built-in rules: the -r path
 * given, else $ASC_RULES, else "built-in". */
const char *rules_file(const char *given);

/* Fatal system errors: print "progname: msg[: strerror]" and exit EX_SYS. */
void	 die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void	 dieerr(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "progname: msg" on stderr. */
void	 warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message (cut to 2047 bytes) to say: a reader's caller's sink. */
void	 sayf(void (*say)(const char *), const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
/*
 * An array v of *cap elements of size bytes that grows one element at a
 * time: room for element n, *cap doubled (first: its first size) when n
 * reaches it.  Returns v, moved or not.
 */
void	*xgrow(void *v, size_t n, size_t *cap, size_t first, size_t size);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);

/* Widen a pipe to 1 MiB (best effort); stdout in 1 MiB blocks. */
void	 pipe_widen(int fd);
void	 stdout_big(void);

/* Parse a decimal option argument in [min, max] or exit EX_SYS naming it. */
long long xnum(const char *s, long long min, long long max, const char *what);

/* Flush and close stdout; on failure "progname: stdout: ..." and EX_SYS. */
void	 xclose_stdout(void);

/*
 * A file written aside and renamed into place when it is complete, so a
 * failed run (a full disk, a bad record, die()) never leaves a truncated
 * file: aside_open() creates PATH.XXXXXX, mode 0640, or opens a device or
 * FIFO path in place.  aside_commit() flushes, closes and renames: 0, or
 * -1 with errno set and the temporary removed.  aside_discard() removes
 * it.  Temporaries still open at exit are removed.
 */
struct aside {
	FILE	*fp;
	char	*path, *tmp;	/* tmp NULL: written in place */
};
int	 aside_open(struct aside *, const char *path);
int	 aside_commit(struct aside *);
void	 aside_discard(struct aside *);
/* text[0..n) into the open a, committed as path; a failure removes the
 * temporary and dies naming path. */
void	 aside_save(struct aside *a, const char *path, const char *text, size_t n);

/* Name for messages: "<stdin>" for "-", else the path. */
const char *dispname(const char *path);

/* Growable byte buffer. */
struct buf {
	char	*p;
	size_t	 len, cap;
};
void	 buf_grow_(struct buf *, size_t extra);
void	 buf_adds(struct buf *, const char *);
void	 buf_free(struct buf *);

/* Inline: the record writers call these per field on the hot path. */
static inline void
buf_grow(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 > b->cap)
		buf_grow_(b, extra);
}

static inline void
buf_add(struct buf *b, const void *s, size_t n)
{
	buf_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

static inline void
buf_addc(struct buf *b, int c)
{
	buf_grow(b, 1);
	b->p[b->len++] = (char)c;
	b->p[b->len] = '\0';
}

#endif
