/* intern: hashes and the intern table (intern.h). */
#include <stdlib.h>
#include <string.h>

#include "intern.h"
#include "util.h"

uint64_t
fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 0x100000001b3ULL;
	}
	return h;
}

uint32_t
fnv32(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ s[i]) * 16777619u;
	return h;
}

/*
 * Eight bytes per multiply where fnv takes one byte, for the intern
 * tables, which in asc-ops and asc-segment hash some 200 bytes of keys
 * per kernel.  Never printed: its values may change.
 */
uint64_t
hash64(uint64_t seed, const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = seed ^ (0x9e3779b97f4a7c15ULL * (n + 1)), w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n > 0) {
		w = 0;
		memcpy(&w, s, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 32);
}

/* The slot of s[0..n): its own, or the empty one where it would go. */
static size_t
slotof(const struct intern *t, const char *s, size_t n)
{
	size_t i = hash64(0, s, n) & (t->nslot - 1);

	for (; t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
		const struct iname *e = &t->v[t->slot[i] - 1];

		if (e->n == n && memcmp(e->s, s, n) == 0)
			break;
	}
	return i;
}

long
intern_find(const struct intern *t, const char *s, size_t n)
{
	size_t i;

	if (t->nslot == 0)
		return -1;
	i = slotof(t, s, n);
	return t->slot[i] ? (long)t->slot[i] - 1 : -1;
}

size_t
intern_add(struct intern *t, const char *s, size_t n)
{
	size_t i;

	if (2 * (t->n + 1) > t->nslot) {
		size_t ns = t->nslot ? 2 * t->nslot : 1024;

		free(t->slot);
		t->slot = xcalloc(ns, sizeof *t->slot);
		t->nslot = ns;
		for (size_t id = 0; id < t->n; id++)
			t->slot[slotof(t, t->v[id].s, t->v[id].n)] = id + 1;
	}
	i = slotof(t, s, n);
	if (t->slot[i])
		return t->slot[i] - 1;
	t->v = xgrow(t->v, t->n, &t->cap, 256, sizeof *t->v);
	t->v[t->n].s = xstrndup(s, n);
	t->v[t->n].n = n;
	t->slot[i] = ++t->n;
	return t->n - 1;
}

int
intern_line(struct buf *l, int *n, const char *s, size_t len)
{
	/* An empty list has no buffer: NULL + 0 is undefined. */
	const char *p = l->p, *e = p ? p + l->len : p;
	int i = 0;

	while (p && p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if ((size_t)(q - p) == len && memcmp(p, s, len) == 0)
			return i;
		p = q + 1;
		i++;
	}
	buf_add(l, s, len);
	buf_addc(l, '\n');
	return (*n)++;
}

void
intern_clear(struct intern *t)
{
	for (size_t id = 0; id < t->n; id++)
		free(t->v[id].s);
	t->n = 0;
	if (t->nslot > 0)
		memset(t->slot, 0, t->nslot * sizeof *t->slot);
}

void
intern_free(struct intern *t)
{
	intern_clear(t);
	free(t->v);
	free(t->slot);
	*t = (struct intern){ 0 };
}
