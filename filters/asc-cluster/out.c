/*
 * asc-cluster's output helpers: the records (to stdout and cluster.json),
 * durations and rank names for the report, per-rank means, and the
 * recommendations list.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "cluster.h"

struct buf rb, js;
FILE *md;
const char *outdir;
int jsfirst;
struct reco *recos;
int nreco;

/*
 * Formatted text appended to a growing buffer: sentences are never cut
 * at a fixed length.
 */
void
bvprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		dieerr("vsnprintf");
	buf_grow(b, (size_t)n + 1);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
bprintf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	bvprintf(b, fmt, ap);
	va_end(ap);
}

void
put_ns(struct buf *b, const char *k, int64_t v)
{
	char key[64];

	snprintf(key, sizeof key, "%s_ns", k);
	if (v == UNSET)
		out_null(b, key);
	else
		out_i64(b, key, v);
	snprintf(key, sizeof key, "%s_ms", k);
	if (v == UNSET)
		out_null(b, key);
	else
		out_dec(b, key, v, 6);
}

void
rbegin(const char *kind, const struct job *j)
{
	rb.len = 0;
	out_begin(&rb, "cluster");
	out_cstr(&rb, "kind", kind);
	out_cstr(&rb, "job", j->name);
}

void
put_rank(const struct rank *r)
{
	out_cstr(&rb, "profile", r->profile);
	if (r->rankid >= 0)
		out_i64(&rb, "rank", r->rankid);
	else
		out_null(&rb, "rank");
}

void
rput(void)
{
	if (outdir) {
		if (!jsfirst)
			buf_add(&js, ",\n", 2);
		jsfirst = 0;
		buf_add(&js, rb.p, rb.len);
		buf_addc(&js, '}');
	}
	doc_add(rb.p, rb.len);
	rec_put(&rb, stdout);
}

void
jsarray(const char *name)
{
	if (!outdir)
		return;
	buf_adds(&js, "],\n\"");
	buf_adds(&js, name);
	buf_adds(&js, "\": [\n");
	jsfirst = 1;
}

/* Duration for people: 3-4 significant digits and a unit that fits. */
const char *
hd(int64_t ns, char *t)
{
	double a = ns < 0 ? -(double)ns : (double)ns;	/* -INT64_MIN overflows */

	if (ns == UNSET)
		return strcpy(t, "—");
	if (a >= 1e9)
		snprintf(t, 32, "%.4g s", (double)ns / 1e9);
	else if (a >= 1e6)
		snprintf(t, 32, "%.4g ms", (double)ns / 1e6);
	else if (a >= 1e3)
		snprintf(t, 32, "%.4g µs", (double)ns / 1e3);
	else
		snprintf(t, 32, "%lld ns", (long long)ns);
	return t;
}

const char *
rname(const struct rank *r, char *t)
{
	if (r->rankid < 0)
		return r->profile;	/* any length: never copied */
	snprintf(t, 64, "rank %d", r->rankid);
	return t;
}

static int
cmpi64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Median of n values (sorted in place); the lower middle for even n
 * would bias, so the mean of the two middles, in integer ns. */
int64_t
median(int64_t *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmpi64);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Does a step of r from kernels take its preparing from step_trace_time.csv? */
int
prepfromst(const struct rank *r)
{
	for (int i = 0; i < r->nstep; i++)
		if (r->steps[i].from_kernels && r->steps[i].v[D_PREP] == UNSET &&
		    r->steps[i].st[D_PREP] != UNSET)
			return 1;
	return 0;
}

/* Mean of a rank's value of d over its steps; UNSET if none measurable. */
int64_t
rmean(const struct rank *r, enum dim d)
{
	int64_t s = 0;
	int n = 0;

	for (int i = 0; i < r->nstep; i++) {
		int64_t v = r->steps[i].from_kernels ? r->steps[i].v[d] : r->steps[i].st[d];

		/* No step start in the kernels (no trace): torch_npu's
		 * Preparing from step_trace_time.csv, when the rank has it. */
		if (v == UNSET && d == D_PREP)
			v = r->steps[i].st[d];
		if (v != UNSET) {
			s += v;
			n++;
		}
	}
	return n ? s / n : UNSET;
}

int
cmpci(const void *a, const void *b)
{
	const struct cinst *x = a, *y = b;
	int c;

	if (ranks[x->rank].job != ranks[y->rank].job)
		return ranks[x->rank].job - ranks[y->rank].job;
	if ((c = strcmp(x->group, y->group)) != 0)
		return c;
	if ((c = strcmp(x->step, y->step)) != 0)
		return c;
	if ((c = strcmp(x->op, y->op)) != 0)
		return c;
	if (x->occ != y->occ)
		return x->occ - y->occ;
	return x->rank - y->rank;
}

/* Does rank index ri's group g have more members than the n seen? */
int
grouppartial(int ri, const char *g, size_t n)
{
	for (size_t k = 0; k < nrg; k++)
		if (rgs[k].rank == ri && rgs[k].size > (int64_t)n && strcmp(rgs[k].group, g) == 0)
			return 1;
	return 0;
}

/* Where the starts of a collective come from: n ranks, kern of them
 * with an exact kernel start. */
const char *
srcname(size_t kern, size_t n)
{
	return kern == n ? "kernels" : kern == 0 ? "communication.json" : "mixed";
}

int
bycaused(const void *a, const void *b)
{
	const struct coll *x = a, *y = b;

	if (x->fixed != y->fixed)
		return x->fixed > y->fixed ? -1 : 1;
	return x->first < y->first ? -1 : 1;
}

void
addreco(int64_t stake, const char *fmt, ...)
{
	va_list ap;
	struct buf b = {0};

	recos = xreallocarray(recos, (size_t)nreco + 1, sizeof *recos);
	recos[nreco].stake = stake;
	recos[nreco].ub = 0;
	recos[nreco].group = NULL;
	va_start(ap, fmt);
	bvprintf(&b, fmt, ap);
	va_end(ap);
	recos[nreco++].text = b.p;
}

/* The last recommendation's stake is an upper bound only because a
 * figure is unmeasured: ranked after measured ones of its priority. */
void
recoub(void)
{
	if (nreco > 0)
		recos[nreco - 1].ub = 1;
}

/* The last recommendation is about group g (its rank reports' stakes
 * for it may sit in a finding of theirs of another priority). */
void
recogroup(const char *g)
{
	if (nreco > 0)
		recos[nreco - 1].group = g;
}

/* Why rank ri's report gives an upper bound: no kernel table, or its
 * report says so. */
const char *
ubwhy(int ri, char *t)
{
	char nm[64];
	int k = 0;

	for (int s = 0; s < ranks[ri].nstep; s++)
		k |= ranks[ri].steps[s].from_kernels;
	snprintf(t, 160, k ? "an upper bound by %s's rank report" : "an upper bound: %s has no kernel table",
	    rname(&ranks[ri], nm));
	return t;
}

int
bystake(const void *a, const void *b)
{
	const struct reco *x = a, *y = b;

	return x->stake > y->stake ? -1 : x->stake < y->stake;
}

/* Relative path from directory `from` to `to` (both made absolute). */
char *
relpath(const char *from, const char *to)
{
	char *a = realpath(from, NULL), *b = realpath(to, NULL);
	struct buf o = {0};
	size_t i = 0, k;

	if (a == NULL || b == NULL) {
		free(a);
		free(b);
		return NULL;
	}
	/* The common prefix, at a '/' boundary. */
	for (k = 0; a[k] && a[k] == b[k]; k++)
		if (a[k] == '/')
			i = k;
	if (a[k] == '\0' && (b[k] == '/' || b[k] == '\0'))
		i = k;
	for (const char *p = a + i; *p; p++)
		if (*p == '/')
			buf_adds(&o, "../");
	buf_adds(&o, b[i] == '/' ? b + i + 1 : b + i);
	free(a);
	free(b);
	return o.p ? o.p : xstrdup(".");
}

/* Is rank index ri one of job j's ranks? */
int
injob(const struct job *j, int ri)
{
	for (int i = 0; i < j->nr; i++)
		if (j->r[i] == ri)
			return 1;
	return 0;
}

/* The job rank whose rank id is id and that belongs to group g, or -1. */
int
captured(const struct job *j, const char *g, int64_t id)
{
	for (size_t k = 0; k < nrg; k++)
		if (injob(j, rgs[k].rank) && ranks[rgs[k].rank].rankid == id &&
		    strcmp(rgs[k].group, g) == 0)
			return rgs[k].rank;
	return -1;
}
