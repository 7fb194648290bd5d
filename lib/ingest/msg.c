/*
 * msg: the timeline reader's FILE:LINE errors and the FILE@OFFSET its
 * records cite (its warnings: t->w, warns.h).  A leaf: it calls no other
 * part of the reader, so every part may report through it.
 */
#include "trace_int.h"

/* A record's "src": FILE@OFFSET, the byte where its event starts. */
void
tr_putsrc(struct trace *t, struct buf *b, uint64_t off)
{
	char at[32];

	t->sc.len = 0;
	buf_adds(&t->sc, t->disp);
	snprintf(at, sizeof at, "@%llu", (unsigned long long)off);
	buf_adds(&t->sc, at);
	buf_addc(&t->sc, '\0');
	out_cstr(b, "src", t->sc.p);
}

/* Error at buffer position ep: FILE:LINE: byte OFFSET: what. */
int
tr_bad(struct trace *t, const char *ep, const char *what)
{
	size_t at = (size_t)(ep - t->b);
	unsigned long line = t->bline;

	if (t->nomsg)
		return -1;
	if (at > t->len)
		at = t->len;
	if (t->mm && t->boff) {
		/* lines before the window: counted now, not while reading */
		char *rb = xmalloc(1u << 20);
		uint64_t o = 0;

		line = 0;
		while (o < t->boff) {
			size_t want = t->boff - o < (1u << 20) ?
			    (size_t)(t->boff - o) : (1u << 20);
			ssize_t k = pread(t->fd, rb, want, (off_t)o);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			line += countnl(rb, (size_t)k);
			o += (uint64_t)k;
		}
		free(rb);
	}
	snprintf(t->err, sizeof t->err, "%s:%lu: byte %llu: %s", t->disp,
	    line + 1 + countnl(t->b, at),
	    (unsigned long long)(t->boff + at), what);
	return -1;
}
