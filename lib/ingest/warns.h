/*
 * warns: the non-fatal findings a profile reader keeps for the profile
 * (the timeline's msg.c, the SQLite export's dbread.c), a code and a
 * message each, read back in the order added.
 */
#ifndef ASC_WARNS_H
#define ASC_WARNS_H

#include <stddef.h>

struct warns {
	struct warns_one {
		char	*code, *msg;
	}	*w;
	int	 n;
	size_t	 max;	/* a message's bytes with its NUL: each reader's own */
};

/* Add code and the message fmt makes, cut to max - 1 bytes; both copied. */
void		 warns_add(struct warns *, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The i-th warning's code (and its message in *msg when msg is not
 * NULL), or NULL past the end. */
const char	*warns_get(const struct warns *, int i, const char **msg);
/* Move from's warnings to the end of to's. */
void		 warns_move(struct warns *to, struct warns *from);
void		 warns_free(struct warns *);

#endif
