/*
 * gather: collect the records of one profile by type, for the filters that
 * judge or render a whole profile (asc-judge, asc-report).  Each type has
 * a cap: keep the first N, or the N with the longest "dur_ns"; beyond it
 * records are only counted.  Appends are in place (amortised O(1)), so
 * memory is bounded by the caps, never by the stream.
 */
#ifndef ASC_GATHER_H
#define ASC_GATHER_H

#include <jv.h>

#include "rec.h"

enum { GATHER_FIRST, GATHER_LONGEST };

struct gather_type {
	const char	*type;
	size_t		 cap;		/* 0: no cap */
	int		 mode;		/* GATHER_FIRST or GATHER_LONGEST */
	int		 significant;	/* keep only records with "significant":true */
};

struct gather;

struct gather	*gather_new(const struct gather_type *, int n);
/* Index of the type t[0..n) in the table, or -1. */
int		 gather_index(const struct gather *, const char *t, size_t n);
/* Keep the current line of r as a record of type index i.  0, or -1
 * (r's error set) when the line is not valid JSON. */
int		 gather_add(struct gather *, int i, struct rin *r);
/* The profile so far as {type: [records], type+"_total": count}; resets. */
jv		 gather_take(struct gather *);
void		 gather_free(struct gather *);

#endif
