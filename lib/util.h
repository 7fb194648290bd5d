/* util: program name, exit codes, checked allocation, stdout closing. */
#ifndef ASC_UTIL_H
#define ASC_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define EX_OK	0
#define EX_DATA	1	/* bad input data; -k reports each and goes on */
#define EX_SYS	2	/* usage, unreadable input, write failure, no memory */

extern const char *progname;

void	 setprogname_(const char *argv0);

/* Fatal system errors: print "progname: msg[: strerror]" and exit EX_SYS. */
void	 die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void	 dieerr(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "progname: msg" on stderr. */
void	 warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xrealloc(void *, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);

/* Parse a decimal option argument in [min, max] or exit EX_SYS naming it. */
long long xnum(const char *s, long long min, long long max, const char *what);

/* Flush and close stdout; on failure "progname: stdout: ..." and EX_SYS. */
void	 xclose_stdout(void);

/* Name for messages: "<stdin>" for "-", else the path. */
const char *dispname(const char *path);

/* Growable byte buffer. */
struct buf {
	char	*p;
	size_t	 len, cap;
};
void	 buf_grow(struct buf *, size_t extra);
void	 buf_add(struct buf *, const void *, size_t);
void	 buf_adds(struct buf *, const char *);
void	 buf_addc(struct buf *, int);
void	 buf_free(struct buf *);

#endif
