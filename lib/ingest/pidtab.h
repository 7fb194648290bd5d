/*
 * pidtab: an index by (pid, tid) of the caller's array of threads (or of
 * processes, tid 0): open addressing over the array's indices, an int a
 * slot and two slots an entry at most, so that with millions of threads
 * the index stays small.  The array holds the keys: key(arg, i) gives
 * entry i's.  The slots' order is never seen: only the array's is.
 */
#ifndef ASC_PIDTAB_H
#define ASC_PIDTAB_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "util.h"

struct pidkey {
	int64_t	 pid, tid;
};
typedef struct pidkey pidkey_fn(const void *arg, size_t i);

struct pidtab {
	int	*slot;		/* index + 1, 0 empty */
	size_t	 cap;		/* a power of two, or 0 */
};

static inline size_t
pidtab_hash(int64_t pid, int64_t tid)
{
	uint64_t x = (uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ (uint64_t)tid;

	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	return (size_t)(x ^ (x >> 33));
}

/* The index of (pid, tid) in the array, or -1.  Inline, so that a static
 * key() is inlined too: asc-ingest looks a thread up for each event. */
static inline int
pidtab_find(const struct pidtab *h, int64_t pid, int64_t tid, pidkey_fn *key,
    const void *arg)
{
	if (h->cap == 0)
		return -1;
	for (size_t j = pidtab_hash(pid, tid) & (h->cap - 1); h->slot[j];
	    j = (j + 1) & (h->cap - 1)) {
		struct pidkey k = key(arg, (size_t)h->slot[j] - 1);

		if (k.pid == pid && k.tid == tid)
			return h->slot[j] - 1;
	}
	return -1;
}

static inline void
pidtab_put(int *slot, size_t cap, struct pidkey k, int i)
{
	size_t j = pidtab_hash(k.pid, k.tid) & (cap - 1);

	while (slot[j])
		j = (j + 1) & (cap - 1);
	slot[j] = i + 1;
}

/* Indexes entries [from, n) of the array (none of them in yet), with
 * room made for n. */
static inline void
pidtab_index(struct pidtab *h, size_t from, size_t n, pidkey_fn *key,
    const void *arg)
{
	size_t cap = h->cap ? h->cap : 64;

	while (cap < n * 2)
		cap *= 2;
	if (cap != h->cap) {
		int *ns = xcalloc(cap, sizeof *ns);

		for (size_t i = 0; i < h->cap; i++)
			if (h->slot[i])
				pidtab_put(ns, cap, key(arg, (size_t)h->slot[i] - 1),
				    h->slot[i] - 1);
		free(h->slot);
		h->slot = ns;
		h->cap = cap;
	}
	for (size_t i = from; i < n; i++)
		pidtab_put(h->slot, h->cap, key(arg, i), (int)i);
}

#endif
