/* steprec: record loop, kernel fields and order shared by the step filters. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "steprec.h"

int
sr_is(const char *t, size_t n, const char *want)
{
	return strlen(want) == n && memcmp(t, want, n) == 0;
}

int
sr_kernel(struct rin *r, struct sr_kern *k)
{
	const struct rfield *f;

	if (rin_scan(r) != 0)
		return -1;
	memset(k, 0, sizeof *k);
	if (rin_i64(r, "start_ns", &k->start) != 0) {
		snprintf(r->err, sizeof r->err, "kernel has no integer \"start_ns\"");
		return -1;
	}
	if (rin_i64(r, "dur_ns", &k->dur) != 0) {
		if (rin_i64(r, "end_ns", &k->end) != 0) {
			snprintf(r->err, sizeof r->err,
			    "kernel has no integer \"dur_ns\" or \"end_ns\"");
			return -1;
		}
		k->dur = k->end - k->start;
	} else if (rin_i64(r, "end_ns", &k->end) != 0)
		k->end = k->start + k->dur;
	if (k->end < k->start) {
		snprintf(r->err, sizeof r->err, "kernel ends before it starts "
		    "(\"end_ns\" %lld < \"start_ns\" %lld)",
		    (long long)k->end, (long long)k->start);
		return -1;
	}
	k->haswait = rin_i64(r, "wait_ns", &k->wait) == 0;
	k->profile = rin_get(r, "profile");
	k->device = rin_get(r, "device");
	k->stream = rin_get(r, "stream");
	k->step = rin_get(r, "step");
	k->step_id = rin_get(r, "step_id");
	k->name = rin_get(r, "name");
	k->task_type = rin_get(r, "task_type");
	k->src = rin_get(r, "src");
	/* Treat explicit nulls like missing fields. */
	if ((f = k->stream) && rf_isnull(f))
		k->stream = NULL;
	if ((f = k->step) && rf_isnull(f))
		k->step = NULL;
	return 0;
}

void
sr_order_reset(struct sr_order *o)
{
	o->have = 0;
	o->last = 0;
	o->dev.len = 0;
	o->seen.len = 0;
	buf_grow(&o->dev, 0);
	buf_grow(&o->seen, 0);
}

void
sr_order_free(struct sr_order *o)
{
	buf_free(&o->dev);
	buf_free(&o->seen);
}

static int
seenbefore(const struct buf *seen, const char *d, size_t n)
{
	const char *p = seen->p, *e = seen->p + seen->len;

	while (p < e) {
		const char *q = memchr(p, '\n', (size_t)(e - p));

		if ((size_t)(q - p) == n && memcmp(p, d, n) == 0)
			return 1;
		p = q + 1;
	}
	return 0;
}

int
sr_order(struct sr_order *o, struct rin *r, const struct sr_kern *k)
{
	const char *d = k->device ? k->device->v : "null";
	size_t n = k->device ? k->device->vlen : 4;

	if (o->have && o->dev.len == n && memcmp(o->dev.p, d, n) == 0) {
		if (k->start < o->last) {
			snprintf(r->err, sizeof r->err,
			    "kernels out of order (start_ns %lld after %lld)",
			    (long long)k->start, (long long)o->last);
			return -1;
		}
		o->last = k->start;
		return 0;
	}
	if (o->have) {
		if (seenbefore(&o->seen, d, n)) {
			snprintf(r->err, sizeof r->err,
			    "kernels out of order (device %.*s after device %.*s)",
			    (int)(n > 32 ? 32 : n), d,
			    (int)(o->dev.len > 32 ? 32 : o->dev.len), o->dev.p);
			return -1;
		}
		buf_add(&o->seen, o->dev.p, o->dev.len);
		buf_addc(&o->seen, '\n');
	}
	o->have = 1;
	o->dev.len = 0;
	buf_add(&o->dev, d, n);
	o->last = k->start;
	return 1;
}

void
sr_raw(struct buf *b, const struct rfield *f)
{
	if (f == NULL)
		buf_adds(b, "null");
	else
		buf_add(b, f->v, f->vlen);
}

void
sr_ctx(struct buf *b, const struct sr_kern *k)
{
	char t[32];
	int n;

	buf_adds(b, "{\"name\":");
	sr_raw(b, k->name);
	buf_adds(b, ",\"task_type\":");
	sr_raw(b, k->task_type);
	n = snprintf(t, sizeof t, ",\"dur_ns\":%lld", (long long)k->dur);
	buf_add(b, t, (size_t)n);
	buf_adds(b, ",\"stream\":");
	sr_raw(b, k->stream);
	buf_adds(b, ",\"src\":");
	sr_raw(b, k->src);
	buf_addc(b, '}');
}

void
sr_pass(const struct rin *r)
{
	if (fwrite_unlocked(r->line, 1, r->len, stdout) != r->len ||
	    putc_unlocked('\n', stdout) == EOF)
		dieerr("stdout");
}

static int
isown(const struct sr_filter *f, const char *t, size_t tn)
{
	if (f->own)
		for (const char *const *o = f->own; *o; o++)
			if (sr_is(t, tn, *o))
				return 1;
	return 0;
}

int
sr_run(int nfiles, char **files, size_t maxline, int kflag,
    const struct sr_filter *f)
{
	static char *stdinonly[] = { "-" };
	struct rin r;
	int rc = EX_OK;

	if (nfiles == 0) {
		nfiles = 1;
		files = stdinonly;
	}
	stdout_big();
	for (int i = 0; i < nfiles; i++) {
		int st;

		if (rin_open(&r, files[i], maxline) != 0)
			dieerr("%s", files[i]);
		while ((st = rin_next(&r)) != 0) {
			const char *t;
			size_t tn;

			if (st > 0 && rin_type(&r, &t, &tn) == 0 && isown(f, t, tn))
				continue;
			if (st > 0 && rin_type(&r, &t, &tn) == 0 &&
			    f->rec(&r, t, tn, f->arg) == 0) {
				if (f->bulk && sr_is(t, tn, f->bulk))
					rin_bulk(&r, f->bulk, strlen(f->bulk), f->bulk_drop ? NULL : stdout);
				continue;
			}
			warnmsg("%s:%lu: %s", r.name, r.lineno, r.err);
			rc = EX_DATA;
			if (!kflag) {
				rin_close(&r);
				return rc;
			}
		}
		rin_close(&r);
	}
	if (f->end)
		f->end(f->arg);
	return rc;
}

void
sr_sect_profile(struct sr_sect *s)
{
	s->active = 1;
	s->sec = SR_BEFORE;
	s->nkernel = s->nhost = 0;
	sr_order_reset(&s->ord);
}

int
sr_sect_need(struct sr_sect *s, struct rin *r, const char *what)
{
	if (s->active)
		return 0;
	snprintf(r->err, sizeof r->err, "%s before any \"profile\" record", what);
	return -1;
}

int
sr_sect_kernel(struct sr_sect *s, struct rin *r, const struct sr_kern *k)
{
	int o;

	if (sr_sect_need(s, r, "kernel") != 0)
		return -1;
	if (s->sec == SR_HOST) {
		snprintf(r->err, sizeof r->err, "kernel after the profile's \"host\" records");
		return -1;
	}
	if ((o = sr_order(&s->ord, r, k)) < 0)
		return -1;
	s->sec = SR_KERNELS;
	s->nkernel++;
	return o;
}

int
sr_sect_host(struct sr_sect *s)
{
	int first = s->active && s->sec != SR_HOST;

	if (s->active)
		s->sec = SR_HOST;
	s->nhost++;
	return first;
}

void
sr_sect_free(struct sr_sect *s)
{
	sr_order_free(&s->ord);
}
