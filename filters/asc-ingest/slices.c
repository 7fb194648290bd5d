/*
 * asc-ingest: msprof's op_summary slices checked before they are merged:
 * copies, gaps in their numbers, files of two captures, and slices whose
 * kernels lie outside the timeline or go back in time.
 */
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

/*
 * The slice number and capture timestamp of an op_summary file name:
 * op_summary_slice_N_TS.csv (msprof's slices), op_summary_TS_N.csv, or
 * op_summary_TS.csv (*n -1: not sliced).  0, or -1 for another name.
 */
static int
slicename(const char *base, long *n, char *ts, size_t nts)
{
	const char *s = base + sizeof "op_summary_" - 1, *e = strrchr(base, '.');
	char *end;

	if (strncmp(base, "op_summary_", sizeof "op_summary_" - 1) != 0 || e == NULL)
		return -1;
	*n = -1;
	if (strncmp(s, "slice_", 6) == 0) {
		*n = strtol(s + 6, &end, 10);
		if (end == s + 6 || *end != '_')
			return -1;
		s = end + 1;
	}
	if ((size_t)(e - s) >= nts)
		return -1;
	memcpy(ts, s, (size_t)(e - s));
	ts[e - s] = '\0';
	if (*n < 0 && (end = strrchr(ts, '_')) != NULL && end[1] != '\0' &&
	    strspn(end + 1, "0123456789") == strlen(end + 1)) {
		*n = strtol(end + 1, NULL, 10);
		*end = '\0';
	}
	return 0;
}

/* Do files a and b hold the same bytes? */
static int
samebytes(const char *a, const char *b)
{
	static char ba[65536], bb[65536];
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int same = fa && fb;

	while (same) {
		size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);

		if (na != nb || memcmp(ba, bb, na) != 0)
			same = 0;
		else if (na == 0)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

/*
 * msprof op_summary slices, before they are merged: a copy of another
 * slice (same bytes) is not read; a gap in the slice numbers, and files
 * of two captures (two timestamps), are said.
 */
int
slicecheck(struct profile *p)
{
	char ts0[64] = "", ts[64], first[64] = "";
	long lo = -1, hi = -1, n, cnt = 0;
	const char *other = NULL;

	for (int i = 0; i < p->nf; i++) {
		struct src_file *f = &p->f[i];
		struct stat sa, sb;

		if (f->kind != F_KERNEL || slicename(f->base, &n, ts, sizeof ts) != 0)
			continue;
		for (int j = 0; j < i; j++)
			if (p->f[j].kind == F_KERNEL && !p->f[j].extra &&
			    stat(f->path, &sa) == 0 && stat(p->f[j].path, &sb) == 0 &&
			    sa.st_size == sb.st_size && samebytes(f->path, p->f[j].path)) {
				f->extra = 1;
				addwarn("op_summary_duplicate", "%s: the same rows as %s: not read "
				    "(a copied slice would count its kernels twice)", f->base, p->f[j].base);
				break;
			}
		if (f->extra)
			continue;
		if (ts0[0] == '\0') {
			snprintf(ts0, sizeof ts0, "%s", ts);
			snprintf(first, sizeof first, "%.63s", f->base);
		} else if (strcmp(ts, ts0) != 0 && other == NULL)
			other = f->base;
		if (n >= 0 && strcmp(ts, ts0) == 0) {
			lo = lo < 0 || n < lo ? n : lo;
			hi = n > hi ? n : hi;
			cnt++;
		}
	}
	if (other)
		addwarn("op_summary_foreign", "%s and %s are of two captures (their "
		    "timestamps differ): their kernels are merged; check that they "
		    "belong together", first, other);
	if (cnt && hi - lo + 1 > cnt) {
		addwarn("op_summary_slice_missing", "op_summary slices %ld..%ld of %s: "
		    "%ld of %ld found, the kernels of the missing ones are not in "
		    "the analysis", lo, hi, ts0, cnt, hi - lo + 1);
		return 1;
	}
	return 0;
}

/* s seconds with ms, for a distance in ns. */
static const char *
secs(uint64_t d, char *t, size_t n)
{
	snprintf(t, n, "%llu.%03llu s", (unsigned long long)(d / 1000000000),
	    (unsigned long long)(d / 1000000 % 1000));
	return t;
}

/* The kernels of one device in one kernel file: their smallest and
 * largest start. */
struct dspan {
	int64_t	 dev, lo, hi;
};

/* What slicespan() learns of one kernel file from its rows. */
struct fspan {
	size_t	 rows, out;	/* rows; those outside the timeline */
	uint64_t far;		/* the distance of the farthest of those */
	size_t	 d0, nd;	/* its device spans */
	int	 unsorted;	/* a device's starts go back in time */
	long	 n;		/* slice number of the capture, or -1 */
};

/* The kernel files' spans, from the rows read (in file order). */
static struct dspan *
spans(const struct ktab *kt, struct fspan *fs, int64_t t0, int64_t t1, size_t *nds)
{
	struct dspan *ds = NULL;
	size_t nd = 0, cap = 0, last = 0;
	int cur = -1;

	for (size_t i = 0; i < kt->n; i++) {
		const struct krow *k = &kt->row[i];
		struct fspan *f = &fs[k->file];

		if (k->file != cur) {
			cur = k->file;
			f->d0 = last = nd;
		}
		f->rows++;
		if (k->start < t0 || k->start > t1) {
			uint64_t d = k->start < t0 ? (uint64_t)t0 - (uint64_t)k->start :
			    (uint64_t)k->start - (uint64_t)t1;

			f->out++;
			f->far = d > f->far ? d : f->far;
		}
		if (last >= nd || ds[last].dev != k->dev)
			for (last = f->d0; last < nd && ds[last].dev != k->dev; last++)
				;
		if (last == nd) {
			if (nd == cap) {
				cap = cap ? cap * 2 : 16;
				ds = xreallocarray(ds, cap, sizeof *ds);
			}
			ds[nd++] = (struct dspan){ k->dev, k->start, k->start };
			f->nd++;
		} else if (k->start < ds[last].hi)
			f->unsorted = 1;
		else
			ds[last].hi = k->start;
	}
	*nds = nd;
	return ds;
}

/*
 * A slice of another capture renamed to this one's timestamp, found from
 * its rows: its kernels start outside the span of the profile's timeline
 * (when it has one, unsliced, file), or before the last start of a
 * lower-numbered slice on the same device, when every slice is in time
 * order on each device (msprof cuts one time-ordered table into
 * consecutive slices).  Real kernels are device events of the timeline:
 * 1 ms of slack is left for rounding.  1 when one is found.
 */
#define SLACK	1000000		/* ns: 1 ms */

int
slicespan(const struct profile *p, const struct ktab *kt, int64_t t0, int64_t t1)
{
	struct fspan *fs = xcalloc((size_t)p->nf, sizeof *fs);
	int *ord = xcalloc((size_t)p->nf, sizeof *ord);
	char ts0[64] = "", ts[64], a[40];
	int no = 0, found = 0, sorted = 1, over = 0;
	size_t nds, nlast = 0;
	struct dspan *ds, *last;
	int *lastf;

	if (t0 == INT64_MAX || t1 == INT64_MIN) {	/* no timeline: no bounds */
		t0 = INT64_MIN;
		t1 = INT64_MAX;
	} else {
		t0 = t0 < INT64_MIN + SLACK ? INT64_MIN : t0 - SLACK;
		t1 = t1 > INT64_MAX - SLACK ? INT64_MAX : t1 + SLACK;
	}
	ds = spans(kt, fs, t0, t1, &nds);
	for (int i = 0; i < p->nf; i++) {
		const struct src_file *f = &p->f[i];
		long n;

		fs[i].n = -1;
		if (f->kind != F_KERNEL || f->extra || fs[i].rows == 0 ||
		    slicename(f->base, &n, ts, sizeof ts) != 0 || n < 0)
			continue;
		if (fs[i].out) {
			found = 1;
			addwarn("op_summary_slice_foreign", "%s: %zu of its %zu kernels start "
			    "outside the timeline's span (up to %s away): a slice of another "
			    "capture? Its kernels are merged; device idle and host attribution "
			    "do not hold", f->base, fs[i].out, fs[i].rows, secs(fs[i].far, a, sizeof a));
			continue;
		}
		if (ts0[0] == '\0')
			snprintf(ts0, sizeof ts0, "%s", ts);
		if (strcmp(ts, ts0) != 0)
			continue;
		fs[i].n = n;
		sorted &= !fs[i].unsorted;
		ord[no++] = i;
	}
	last = xreallocarray(NULL, nds + 1, sizeof *last);
	lastf = xreallocarray(NULL, nds + 1, sizeof *lastf);
	/* by slice number (a few files: insertion) */
	for (int j = 1; j < no; j++)
		for (int k = j; k > 0 && fs[ord[k - 1]].n > fs[ord[k]].n; k--) {
			int x = ord[k];

			ord[k] = ord[k - 1];
			ord[k - 1] = x;
		}
	/*
	 * Each device's starts, slice after slice, never go back in time:
	 * last[] holds each device's latest start so far and its file.  The
	 * first slice that goes back is said.
	 */
	for (int j = 0; sorted && j < no && !over; j++) {
		const struct fspan *f = &fs[ord[j]];

		for (size_t d = f->d0; d < f->d0 + f->nd && !over; d++) {
			size_t e;

			for (e = 0; e < nlast && last[e].dev != ds[d].dev; e++)
				;
			if (e < nlast && ds[d].lo < last[e].hi) {
				found = over = 1;
				addwarn("op_summary_slice_foreign", "%s and %s overlap in time: "
				    "kernels of the first start %s before the last of the second, "
				    "though a capture's slices are consecutive pieces of one "
				    "time-ordered table: one of them is of another capture? Their "
				    "kernels are merged; device idle does not hold",
				    p->f[ord[j]].base, p->f[lastf[e]].base,
				    secs((uint64_t)last[e].hi - (uint64_t)ds[d].lo, a, sizeof a));
			} else if (e == nlast) {
				last[nlast] = ds[d];
				lastf[nlast++] = ord[j];
			} else if (ds[d].hi > last[e].hi) {
				last[e].hi = ds[d].hi;
				lastf[e] = ord[j];
			}
		}
	}
	free(last);
	free(lastf);
	free(ds);
	free(ord);
	free(fs);
	return found;
}
