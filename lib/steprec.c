/* steprec: the stream protocol of a profile, kernel fields and order,
 * pass-through and the aside reader, shared by the stages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "steprec.h"
#include "util.h"

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
		rin_error(r, "kernel has no integer \"start_ns\"");
		return -1;
	}
	/* dur_ns and end_ns: either may be absent, neither may be wrong. */
	const struct rfield *fd = rin_get(r, "dur_ns"), *fe = rin_get(r, "end_ns");
	int hasdur = fd && !rf_isnull(fd), hasend = fe && !rf_isnull(fe);

	if ((hasdur && rf_i64(fd, &k->dur) != 0) || (hasend && rf_i64(fe, &k->end) != 0)) {
		rin_error(r, "kernel \"%s\" is not an integer",
		    hasdur && rf_i64(fd, &k->dur) != 0 ? "dur_ns" : "end_ns");
		return -1;
	}
	if (!hasdur && !hasend) {
		rin_error(r, "kernel has no integer \"dur_ns\" or \"end_ns\"");
		return -1;
	}
	if (!hasdur && __builtin_sub_overflow(k->end, k->start, &k->dur)) {
		rin_error(r, "kernel \"end_ns\" - \"start_ns\" overflows");
		return -1;
	}
	if (!hasend && __builtin_add_overflow(k->start, k->dur, &k->end)) {
		rin_error(r, "kernel \"start_ns\" + \"dur_ns\" overflows");
		return -1;
	}
	if (k->end < k->start) {
		rin_error(r, "kernel ends before it starts "
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
	/* Names are interned, normalised and copied by every stage: a
	 * name of megabytes would cost each stage many times its size. */
	if (k->name && k->name->vlen > SR_NAME_MAX) {
		rin_error(r, "kernel \"name\" of %zu bytes (at most %d)",
		    k->name->vlen, SR_NAME_MAX);
		return -1;
	}
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
	/* Nothing seen yet: no buffer, and NULL + 0 is undefined. */
	const char *p = seen->p, *e = p ? p + seen->len : p;

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
			rin_error(r,
			    "kernels out of order (start_ns %lld after %lld)",
			    (long long)k->start, (long long)o->last);
			return -1;
		}
		o->last = k->start;
		return 0;
	}
	if (o->have) {
		if (seenbefore(&o->seen, d, n)) {
			rin_error(r,
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
	char t[24];

	buf_adds(b, "{\"name\":");
	sr_raw(b, k->name);
	buf_adds(b, ",\"task_type\":");
	sr_raw(b, k->task_type);
	buf_adds(b, ",\"dur_ns\":");
	buf_add(b, t, (size_t)(rec_fmtint(t, k->dur) - t));
	buf_adds(b, ",\"stream\":");
	sr_raw(b, k->stream);
	buf_adds(b, ",\"src\":");
	sr_raw(b, k->src);
	buf_addc(b, '}');
}

void
sr_pass(const struct rin *r)
{
	size_t n;
	const char *l = rin_line(r, &n);

	if (fwrite_unlocked(l, 1, n, stdout) != n ||
	    putc_unlocked('\n', stdout) == EOF)
		dieerr("stdout");
}

void
sr_sect_profile(struct sr_sect *s, struct rin *r)
{
	const struct rfield *f;

	s->active = 1;
	s->sec = SR_BEFORE;
	s->nkernel = s->nhost = 0;
	s->wantkernel = s->wanthost = -1;
	s->prof.len = 0;
	sr_order_reset(&s->ord);
	if (r == NULL || rin_scan(r) != 0)
		return;
	if ((f = rin_get(r, "profile")) != NULL)
		buf_add(&s->prof, f->v, f->vlen);
	else
		buf_adds(&s->prof, "null");
	/* A stream filtered on purpose says so: its counts are not checked. */
	if ((f = rin_get(r, "filtered")) != NULL && f->vlen == 4 && memcmp(f->v, "true", 4) == 0)
		return;
	if ((f = rin_get(r, "counts")) != NULL && f->vlen > 0 && f->v[0] == '{') {
		jv c = jv_parse_sized(f->v, (int)f->vlen), k, h;

		k = jv_object_get(jv_copy(c), jv_string("kernel"));
		h = jv_object_get(c, jv_string("host"));
		if (jv_get_kind(k) == JV_KIND_NUMBER)
			s->wantkernel = (long long)jv_number_value(k);
		if (jv_get_kind(h) == JV_KIND_NUMBER)
			s->wanthost = (long long)jv_number_value(h);
		jv_free(k);
		jv_free(h);
	}
}

static int
mismatch(struct sr_sect *s, const char *what, long long want, unsigned long seen, FILE *out)
{
	struct buf b = { 0 };
	char msg[200];

	snprintf(msg, sizeof msg, "%lu %s records seen, the profile record counts %lld: "
	    "the stream was cut or filtered (set \"filtered\": true in the profile record "
	    "if on purpose)", seen, what, want);
	warnmsg("profile %s: %s", s->prof.len ? s->prof.p : "?", msg);
	out_begin(&b, "warning");
	out_raw(&b, "profile", s->prof.len ? s->prof.p : "null", s->prof.len ? s->prof.len : 4);
	out_cstr(&b, "code", "counts_mismatch");
	out_cstr(&b, "message", msg);
	out_cstr(&b, "stage", progname);
	out_cstr(&b, "record_type", what);
	out_i64(&b, "expected", want);
	out_i64(&b, "seen", (int64_t)seen);
	rec_put(&b, out);
	buf_free(&b);
	return 1;
}

int
sr_sect_end(struct sr_sect *s, int what, FILE *out)
{
	int n = 0;

	if (!s->active)
		return 0;
	if ((what & SR_CHECK_KERNEL) && s->wantkernel >= 0 && (long long)s->nkernel != s->wantkernel)
		n += mismatch(s, "kernel", s->wantkernel, s->nkernel, out);
	if ((what & SR_CHECK_HOST) && s->wanthost >= 0 && (long long)s->nhost != s->wanthost)
		n += mismatch(s, "host", s->wanthost, s->nhost, out);
	s->wantkernel = s->wanthost = -1;	/* checked once */
	return n;
}

int
sr_sect_need(struct sr_sect *s, struct rin *r, const char *what)
{
	if (s->active)
		return 0;
	rin_error(r, "%s before any \"profile\" record", what);
	return -1;
}

int
sr_sect_kernel(struct sr_sect *s, struct rin *r, const struct sr_kern *k)
{
	int o;

	if (sr_sect_need(s, r, "kernel") != 0)
		return -1;
	if (s->sec == SR_HOST) {
		rin_error(r, "kernel after the profile's \"host\" records");
		return -1;
	}
	if ((o = sr_order(&s->ord, r, k)) < 0)
		return -1;
	s->sec = SR_KERNELS;
	s->nkernel++;
	return o;
}

int
sr_sect_kernel_rec(struct sr_sect *s, struct rin *r, struct sr_kern *k)
{
	if (sr_sect_need(s, r, "kernel") != 0 || sr_kernel(r, k) != 0)
		return -1;
	return sr_sect_kernel(s, r, k);
}

int
sr_kernel_name(struct rin *r, const struct sr_kern *k, struct buf *name)
{
	if (k->name == NULL || rf_str(k->name, name) != 0) {
		rin_error(r, "kernel has no string \"name\"");
		return -1;
	}
	return 0;
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
	buf_free(&s->prof);
}

int
sr_aside_next(struct rin *r, const char *opt, const char *type,
    const char *prof, size_t proflen, struct buf *pre)
{
	const struct rfield *f;
	const char *t, *l;
	size_t tn, n;
	int st;

	if (pre->len == 0) {
		buf_adds(pre, "{\"type\":\"");
		buf_adds(pre, type);
		buf_adds(pre, "\",\"profile\":");
		buf_add(pre, prof, proflen);
	}
	if ((st = rin_next(r)) == 0)
		return 0;
	if (st < 0 || rin_type(r, &t, &tn) != 0)
		return -1;
	if (!sr_is(t, tn, type)) {
		rin_error(r, "a \"%.*s\" record: %s takes %s records only",
		    (int)(tn < 40 ? tn : 40), t, opt, type);
		return -1;
	}
	/* Another profile's records would be joined to this one's. */
	l = rin_line(r, &n);
	if (n <= pre->len || memcmp(l, pre->p, pre->len) != 0 ||
	    (l[pre->len] != ',' && l[pre->len] != '}')) {
		if (rin_scan(r) != 0)
			return -1;
		f = rin_get(r, "profile");
		if (f == NULL || f->vlen != proflen || memcmp(f->v, prof, proflen) != 0) {
			rin_error(r, "%s record of another profile than the input's",
			    type);
			return -1;
		}
	}
	return 1;
}
