/*
 * commjson_int.h: what the parts of the communication.json reader share
 * (commjson_tok.c: the JSON tokenizer; commjson.c: the ops in it;
 * commjson_rec.c: the comm record); private to them.  Syntax errors
 * longjmp back to cj_read().
 */
#ifndef ASC_COMMJSON_INT_H
#define ASC_COMMJSON_INT_H

#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>

#include "commjson.h"
#include "jscan.h"
#include "util.h"

#define CHUNK		65536
#define MAXDEPTH	256	/* libjq's parser stack limit */
#define MAXLIT		4096

/* A captured value: offsets into the op's arena. */
struct slot {
	enum cjkind	 kind;
	size_t		 off, n;
	int		 null;		/* raw text over CJ_MAXRAW */
};

struct tslot {
	size_t		 name, namelen;
	int		 isobj;
	struct slot	 v[3];
};

enum { T_START, T_ELAPSE, T_TRANSIT, T_WAIT, T_SYNC, T_IDLE, T_WRATIO, T_SRATIO, T_N };

struct cj {
	FILE		*fp;
	unsigned char	*b;
	size_t		 pos, len;
	uint64_t	 off;		/* file offset of b[0] */
	int		 eof;
	int		 depth;	/* open arrays and objects */
	int		 slots;	/* libjq's parser stack: 1 per array, 2 per object */
	struct buf	*cap;		/* raw capture of the value being skipped */
	int		 capover;
	jmp_buf		 jb;
	int		 code, eno;
	uint64_t	 erroff;
	char		 emsg[160];

	/* Keys of the levels above the op, and scratch. */
	struct buf	 k1, k2, k3, k4, k5, k6, tok, raw;
	const char	*field;		/* the figure being read, for messages */
	/* The op being read. */
	struct buf	 arena;
	struct slot	 t[T_N];
	int		 has_time, has_bw, isobj;
	struct tslot	*tr;
	int		 ntr, trcap;
	struct cjtransport *out;
	int		 outcap;
};

void	cj_fail(struct cj *, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
void	cj_unexpected(struct cj *, const char *what) __attribute__((noreturn));
int	cj_fill(struct cj *);
void	cj_push(struct cj *);
void	cj_pop(struct cj *, int open);
void	cj_str(struct cj *, struct buf *out);
enum cjkind cj_lit(struct cj *);
void	cj_skipvalue(struct cj *);
int	cj_member(struct cj *, int *first, struct buf *kb);

/* The byte reader, inlined where it is read. */
static inline uint64_t
here(const struct cj *r)
{
	return r->off + r->pos;
}

static inline int
peekc(struct cj *r)
{
	if (r->pos < r->len || cj_fill(r))
		return r->b[r->pos];
	return EOF;
}

static inline void
advance(struct cj *r)
{
	if (r->cap) {
		if (r->cap->len < CJ_MAXRAW)
			buf_addc(r->cap, r->b[r->pos]);
		else
			r->capover = 1;
	}
	r->pos++;
}

/* Skip white space; the next byte (not consumed) or EOF. */
static inline int
ws(struct cj *r)
{
	int c;

	while (js_isws(c = peekc(r)))
		advance(r);
	return c;
}

#endif
