/*
 * intern: the hashes and the intern table the stages share.  fnv() is
 * FNV-1a, 64 bits: the hash of every printed id and digest, whose values
 * must never change; fnv32() is its 32-bit form; hash64() is for
 * in-memory tables only.  An intern table gives each distinct string an
 * id, 0, 1, 2, ... in the order first seen.
 */
#ifndef ASC_INTERN_H
#define ASC_INTERN_H

#include <stddef.h>
#include <stdint.h>

#define FNV_INIT	0xcbf29ce484222325ULL
uint64_t fnv(uint64_t h, const void *p, size_t n);
uint32_t fnv32(const void *p, size_t n);
uint64_t hash64(uint64_t seed, const void *p, size_t n);

/* A string of the table: s[n] is '\0'; s stays put while the table grows. */
struct iname {
	char	*s;
	size_t	 n;
};

struct intern {
	struct iname	*v;	/* by id */
	size_t		 n, cap;
	size_t		*slot;	/* open addressing: id + 1, 0 empty */
	size_t		 nslot;
};

/* The id of s[0..n), added when new. */
size_t	intern_add(struct intern *, const char *s, size_t n);
/* The id of s[0..n), or -1 when it is not in the table. */
long	intern_find(const struct intern *, const char *s, size_t n);
/* Empties the table, its room kept: ids start again at 0. */
void	intern_clear(struct intern *);
void	intern_free(struct intern *);

/*
 * A handful of strings (streams, task types) kept as the lines of l, *n
 * of them, searched in order: the index of s[0..len) (no newline), added
 * as line *n when new.
 */
struct buf;
int	intern_line(struct buf *l, int *n, const char *s, size_t len);

#endif
