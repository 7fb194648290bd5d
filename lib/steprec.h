/*
 * steprec: the stream protocol of a profile's records (struct sr_sect,
 * which lib/filter.c drives at each profile record), the kernel fields
 * the stages read, the (device, start) order check, the kernel context
 * object that segments and bubbles carry, pass-through and the reader of
 * an aside file.
 *
 * Field pointers (struct rfield) borrow the reader's current line: they
 * are valid until the next rin_next().  Nothing here exits on bad data:
 * functions return -1 with a message (rin_error()).
 */
#ifndef ASC_STEPREC_H
#define ASC_STEPREC_H

#include <stdint.h>

#include "rec.h"

/* A kernel record's fields (after rin_scan).  Missing fields are NULL. */
struct sr_kern {
	int64_t			 start, end, dur, wait;
	int			 haswait;
	const struct rfield	*profile, *device, *stream, *step, *step_id;
	const struct rfield	*name, *task_type, *src;
};

/* The longest kernel name the stages accept (bytes of its JSON text). */
#define SR_NAME_MAX	65536

/* Scan r's line as a kernel.  0, or -1 (err set) without integer times
 * or with a name longer than SR_NAME_MAX. */
int	sr_kernel(struct rin *r, struct sr_kern *k);

/*
 * Order of kernels inside one profile: (device, start).  A device run is a
 * "pass".  sr_order() returns 0 for the next kernel of the current pass,
 * 1 for the first kernel of a new pass (first kernel or a new device), -1
 * with r's error set when a start goes backwards on a device or a device
 * comes back after another one.  sr_order_reset() at each profile.
 */
struct sr_order {
	int		 have;
	int64_t		 last;
	struct buf	 dev;		/* raw device value of the current pass */
	struct buf	 seen;		/* raw values of earlier passes, \n-separated */
};
void	sr_order_reset(struct sr_order *);
int	sr_order(struct sr_order *, struct rin *, const struct sr_kern *);
void	sr_order_free(struct sr_order *);

/*
 * The stream protocol of one profile: its "profile" record first, then
 * its other records, then its kernels in (device, start) order, then its
 * host events.  A stage keeps one struct sr_sect and reports every
 * violation with the same words.
 */
enum { SR_BEFORE, SR_KERNELS, SR_HOST };
struct sr_sect {
	int		 active;	/* a "profile" record was seen */
	int		 sec;		/* SR_BEFORE, SR_KERNELS or SR_HOST */
	struct sr_order	 ord;
	unsigned long	 nkernel, nhost;	/* seen in this profile */
	/* From the profile record: its name (raw JSON) and its counts of
	 * kernel and host records (-1: not given, or "filtered": true). */
	struct buf	 prof;
	long long	 wantkernel, wanthost;
};
/*
 * At a "profile" record: a new profile starts.  r may be NULL (no counts
 * are checked then).
 */
void	sr_sect_profile(struct sr_sect *, struct rin *r);
/*
 * At the end of a profile's records (the next profile or the end of
 * input): compare the kernel (SR_CHECK_KERNEL) and host (SR_CHECK_HOST)
 * records seen with the profile's counts.  A difference is a "warning"
 * record, code counts_mismatch, on out and a message on stderr: a
 * truncated or filtered stream is never presented as complete.  Returns
 * the number of mismatches.
 */
enum { SR_CHECK_KERNEL = 1, SR_CHECK_HOST = 2 };
int	sr_sect_end(struct sr_sect *, int what, FILE *out);
/* A record of type what that needs a profile: 0, or -1 with r's error set. */
int	sr_sect_need(struct sr_sect *, struct rin *r, const char *what);
/*
 * A kernel, after sr_kernel(): it needs a profile, must come before the
 * host events and in (device, start) order.  Returns sr_order()'s 0 or 1
 * (1: the first kernel of a device run), or -1 with r's error set.
 */
int	sr_sect_kernel(struct sr_sect *, struct rin *r, const struct sr_kern *);
/*
 * A kernel record read whole: one outside a profile is refused before
 * its fields are read, then sr_kernel() and sr_sect_kernel().  0 or 1 as
 * sr_sect_kernel() returns, or -1 with r's error set.
 */
int	sr_sect_kernel_rec(struct sr_sect *, struct rin *r, struct sr_kern *k);
/* A kernel's name unescaped into *name: 0, or -1 with r's error set when
 * it has no string "name". */
int	sr_kernel_name(struct rin *r, const struct sr_kern *k, struct buf *name);
/* A host record: 1 when it is the profile's first (its kernels are
 * complete), else 0. */
int	sr_sect_host(struct sr_sect *);
void	sr_sect_free(struct sr_sect *);

/* Append the context object {"name","task_type","dur_ns","stream","src"}. */
void	sr_ctx(struct buf *, const struct sr_kern *);

/* Append a field's raw value, or null when f is NULL. */
void	sr_raw(struct buf *, const struct rfield *f);

/* Is the type span t[0..n) equal to want? */
int	sr_is(const char *t, size_t n, const char *want);
/*
 * The next record of an aside file (asc-ingest -H, -M: one type, one
 * profile) read through r: its type must be `type`, its profile the
 * input's (prof: the raw JSON value), told by a prefix test and, when the
 * record is written otherwise, by its "profile" field.  1 a record, 0 at
 * the end, -1 bad (r's error set; opt names the option in it).  pre is the
 * caller's, empty at the first call.
 */
int	sr_aside_next(struct rin *r, const char *opt, const char *type,
	    const char *prof, size_t proflen, struct buf *pre);

/* Write the current line unchanged, with a newline. */
void	sr_pass(const struct rin *);

#endif
