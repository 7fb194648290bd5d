/*
 * asc-steps: cut each profile's kernels into step windows (markers, else
 * the Step Id column, else one pseudo-step), add "step_id" to every
 * kernel, and write a "step" record per step and a "step_groups" record
 * per profile.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmp.h"
#include "dec.h"
#include "filter.h"
#include "intern.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

/*
 * Marker classes in priority order: the kinds of the rules'
 * steps.marker_kinds by their index, then ncls - 1 for -p (the source
 * "user").  A marker of no class is passed through.
 */
static const char *const *kinds;
static int ncls;

static const char *
classname(int cls)
{
	return cls < ncls - 1 ? kinds[cls] : "user";
}

enum { M_NONE, M_MARKERS, M_COLUMN, M_PSEUDO };

struct marker {
	char		*id;		/* NULL: numbered by position */
	char		*src;		/* raw JSON value, or NULL */
	int64_t		 start, end, num;
	int		 hasnum, cls, ownid;
	size_t		 seq;
};

struct tcount {
	char		*name;
	int64_t		 n;
};

struct tcounts {
	struct tcount	*v;
	int		 n, cap;
};

struct step {
	char		*id;
	const char	*source;
	const char	*msrc;		/* marker src (raw JSON), borrowed */
	int		 measurable;
	int64_t		 start, mend, limit;	/* limit: next window start */
	int		 consec;	/* the next window is the next number */
	int64_t		 kernels, dursum, waitsum, firststart, lastend;
	struct tcounts	 tt;
	struct buf	 streams;	/* distinct raw stream values, \n-separated */
	int64_t		 nstreams;
	uint64_t	 hash;
	struct buf	 idjson;	/* the id as a JSON string */
};

struct group {
	uint64_t	 hash;
	int64_t		 n, service, size;
	struct tcounts	 tt;
	int		 empty;
	struct buf	 steps;		/* JSON strings, comma-separated */
};

static struct {
	struct sr_sect	 sect;
	struct buf	 prof;		/* raw "profile" value */
	struct marker	*m, *w;		/* all markers; the chosen windows */
	size_t		 nm, capm, nw;
	int		 built, mode, cls;
	struct buf	 dev;		/* raw device value of the pass */
	long		 cur;		/* window index of the open step */
	int		 open, passsteps;
	struct step	 st;
	int64_t		 unassigned, late, steps, merged;
	struct group	*g;
	int		 ng;
} P;

static const char *pattern;
/* Percent and points; from the rules ("steps.*") unless -c / -s. */
static int64_t ctol = -1, stol = -1;
static struct buf ob, tmp;

static void
tc_add(struct tcounts *t, const char *name, size_t n, int64_t by)
{
	for (int i = 0; i < t->n; i++)
		if (strlen(t->v[i].name) == n && memcmp(t->v[i].name, name, n) == 0) {
			t->v[i].n += by;
			return;
		}
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 8;
		t->v = xreallocarray(t->v, (size_t)t->cap, sizeof *t->v);
	}
	t->v[t->n].name = xstrndup(name, n);
	t->v[t->n++].n = by;
}

static int64_t
tc_get(const struct tcounts *t, const char *name)
{
	for (int i = 0; i < t->n; i++)
		if (strcmp(t->v[i].name, name) == 0)
			return t->v[i].n;
	return 0;
}

static void
tc_free(struct tcounts *t)
{
	for (int i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	memset(t, 0, sizeof *t);
}

static int
tc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct tcount *)a)->name, ((const struct tcount *)b)->name);
}

static void
tc_copy(struct tcounts *dst, const struct tcounts *src)
{
	memset(dst, 0, sizeof *dst);
	for (int i = 0; i < src->n; i++)
		tc_add(dst, src->v[i].name, strlen(src->v[i].name), src->v[i].n);
}

/* All-digit text as an integer; -1 otherwise. */
static int
number(const char *s, size_t n, int64_t *out)
{
	int64_t v = 0;

	if (n == 0 || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* A string or number field as text in b; -1 if missing, null or other. */
static int
textof(const struct rfield *f, struct buf *b)
{
	if (f == NULL || rf_isnull(f))
		return -1;
	if (f->v[0] == '"')
		return rf_str(f, b);
	if ((f->v[0] >= '0' && f->v[0] <= '9') || f->v[0] == '-') {
		b->len = 0;
		buf_add(b, f->v, f->vlen);
		return 0;
	}
	return -1;
}

static void
warn_rec(const char *code, const char *msg, const char *extrak, int64_t extrav)
{
	out_begin(&ob, "warning");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_cstr(&ob, "code", code);
	out_cstr(&ob, "message", msg);
	out_cstr(&ob, "source", "asc-steps");
	if (extrak)
		out_i64(&ob, extrak, extrav);
	rec_put(&ob, stdout);
}

static const char *
devraw(size_t *n)
{
	if (P.dev.len) {
		*n = P.dev.len;
		return P.dev.p;
	}
	*n = 4;
	return "null";
}

static CMP_FN(mcmp, struct marker, CMP_2(start, seq))

/* Choose the marker class and resolve nesting (outermost wins). */
static void
buildwindows(void)
{
	int best = ncls;
	char msg[160];

	P.built = 1;
	for (size_t i = 0; i < P.nm; i++)
		if (P.m[i].cls < best)
			best = P.m[i].cls;
	P.nw = 0;
	if (best == ncls)
		return;
	P.cls = best;
	P.w = xreallocarray(NULL, P.nm, sizeof *P.w);
	for (size_t i = 0; i < P.nm; i++)
		if (P.m[i].cls == best)
			P.w[P.nw++] = P.m[i];
	qsort(P.w, P.nw, sizeof *P.w, mcmp);
	size_t k = 0;
	for (size_t i = 0; i < P.nw; i++) {
		if (k > 0 && P.w[i].start < P.w[k - 1].end) {
			P.merged++;
			continue;
		}
		P.w[k++] = P.w[i];
	}
	P.nw = k;
	for (size_t i = 0; i < P.nw; i++)
		if (P.w[i].id == NULL) {
			snprintf(msg, sizeof msg, "%zu", i);
			P.w[i].id = xstrdup(msg);
			P.w[i].ownid = 1;
		}
	if (P.merged) {
		snprintf(msg, sizeof msg, "%lld %s markers nested in or overlapping "
		    "an earlier one were merged into it (outermost wins)",
		    (long long)P.merged, classname(best));
		warn_rec("markers_merged", msg, "count", P.merged);
	}
}

static void
step_begin(const char *id, size_t idn, const char *source, int measurable)
{
	struct step *s = &P.st;

	free(s->id);
	tc_free(&s->tt);
	s->streams.len = 0;
	s->id = xstrndup(id, idn);
	s->source = source;
	s->msrc = NULL;
	s->measurable = measurable;
	s->start = s->mend = 0;
	s->limit = INT64_MAX;
	s->consec = 0;
	s->kernels = s->dursum = s->waitsum = s->nstreams = 0;
	s->firststart = s->lastend = 0;
	s->hash = FNV_INIT;
	s->idjson.len = 0;
	out_esc(&s->idjson, id, idn);
	P.open = 1;
}

static void
step_marker(size_t i)
{
	const struct marker *m = &P.w[i];

	step_begin(m->id, strlen(m->id), classname(P.cls), 1);
	P.st.msrc = m->src;
	P.st.start = m->start;
	P.st.mend = m->end;
	if (i + 1 < P.nw) {
		P.st.limit = P.w[i + 1].start;
		P.st.consec = m->hasnum && P.w[i + 1].hasnum && P.w[i + 1].num == m->num + 1;
	}
}

static void
step_add(const struct sr_kern *k)
{
	struct step *s = &P.st;

	if (s->kernels == 0 || k->start < s->firststart)
		s->firststart = k->start;
	if (s->kernels == 0 || k->end > s->lastend)
		s->lastend = k->end;
	s->kernels++;
	s->dursum += k->dur;
	if (k->haswait)
		s->waitsum += k->wait;
	if (k->task_type && rf_str(k->task_type, &tmp) == 0)
		tc_add(&s->tt, tmp.p, tmp.len, 1);
	else
		tc_add(&s->tt, "N/A", 3, 1);
	if (k->stream) {
		/* No stream yet: no buffer, and NULL + 0 is undefined. */
		const char *p = s->streams.p, *e = p ? p + s->streams.len : p;
		int found = 0;

		while (p < e && !found) {
			const char *q = memchr(p, '\n', (size_t)(e - p));

			found = (size_t)(q - p) == k->stream->vlen &&
			    memcmp(p, k->stream->v, k->stream->vlen) == 0;
			p = q + 1;
		}
		if (!found) {
			buf_add(&s->streams, k->stream->v, k->stream->vlen);
			buf_addc(&s->streams, '\n');
			s->nstreams++;
		}
	}
	tmp.len = 0;
	if (k->name)
		rf_str(k->name, &tmp);
	s->hash = fnv(s->hash, tmp.p, tmp.len);
	s->hash = fnv(s->hash, "\xff", 1);	/* separator: never a byte of UTF-8 text */
}

/* Same template: |n - m| <= ctol % of m, every task-type share within stol points. */
static int
similar(const struct group *g, const struct step *s)
{
	int64_t n = s->kernels, m = g->n, d = n > m ? n - m : m - n;

	if (d * 100 > ctol * m)
		return 0;
	for (int pass = 0; pass < 2; pass++) {
		const struct tcounts *t = pass ? &g->tt : &s->tt;

		for (int i = 0; i < t->n; i++) {
			int64_t a = tc_get(&s->tt, t->v[i].name);
			int64_t b = tc_get(&g->tt, t->v[i].name);
			__int128 x = (__int128)a * m - (__int128)b * n;

			if (x < 0)
				x = -x;
			if (x * 100 > (__int128)stol * n * m)
				return 0;
		}
	}
	return 1;
}

static int
groupof(const struct step *s)
{
	int i;

	if (s->kernels > 0) {
		for (i = 0; i < P.ng; i++)
			if (!P.g[i].empty && P.g[i].hash == s->hash)
				return i;
		for (i = 0; i < P.ng; i++)
			if (!P.g[i].empty && similar(&P.g[i], s))
				return i;
	}
	P.g = xreallocarray(P.g, (size_t)P.ng + 1, sizeof *P.g);
	struct group *g = &P.g[P.ng];

	memset(g, 0, sizeof *g);
	g->hash = s->hash;
	g->n = s->kernels;
	g->empty = s->kernels == 0;
	tc_copy(&g->tt, &s->tt);
	return P.ng++;
}

static void
step_close(int last)
{
	struct step *s = &P.st;
	int64_t end;
	char gid[32], hex[20];
	size_t dn;
	const char *dv = devraw(&dn);

	if (!P.open)
		return;
	P.open = 0;
	if (P.mode == M_MARKERS) {
		if (s->consec)
			end = s->limit;
		else {
			end = s->mend;
			if (s->kernels && s->lastend > end)
				end = s->lastend;
			if (end > s->limit)
				end = s->limit;
		}
		if (end < s->start)
			end = s->start;
	} else {
		s->start = s->firststart;
		end = s->lastend;
	}
	int gi = groupof(s);
	struct group *g = &P.g[gi];

	g->size++;
	g->service += end - s->start;
	if (g->steps.len)
		buf_addc(&g->steps, ',');
	buf_add(&g->steps, s->idjson.p, s->idjson.len);
	snprintf(gid, sizeof gid, "g%d", gi);
	snprintf(hex, sizeof hex, "%016llx", (unsigned long long)s->hash);

	out_begin(&ob, "step");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_raw(&ob, "device", dv, dn);
	out_raw(&ob, "step_id", s->idjson.p, s->idjson.len);
	out_cstr(&ob, "group_id", gid);
	out_cstr(&ob, "window_source", s->source);
	out_bool(&ob, "measurable_edges", s->measurable);
	out_bool(&ob, "first_step", P.passsteps == 0);
	out_bool(&ob, "last_step", last);
	out_i64(&ob, "start_ns", s->start);
	out_i64(&ob, "end_ns", end);
	out_i64(&ob, "service_ns", end - s->start);
	out_dec(&ob, "service_ms", end - s->start, 6);
	if (s->msrc)
		out_raw(&ob, "marker_src", s->msrc, strlen(s->msrc));
	else
		out_null(&ob, "marker_src");
	out_i64(&ob, "kernels", s->kernels);
	out_key(&ob, "task_types");
	if (s->tt.n > 1)
		qsort(s->tt.v, (size_t)s->tt.n, sizeof *s->tt.v, tc_cmp);
	buf_addc(&ob, '{');
	for (int i = 0; i < s->tt.n; i++) {
		char num[32];

		if (i)
			buf_addc(&ob, ',');
		out_esc(&ob, s->tt.v[i].name, strlen(s->tt.v[i].name));
		snprintf(num, sizeof num, ":%lld", (long long)s->tt.v[i].n);
		buf_adds(&ob, num);
	}
	buf_addc(&ob, '}');
	out_i64(&ob, "streams", s->nstreams);
	out_i64(&ob, "kernel_sum_ns", s->dursum);
	out_dec(&ob, "kernel_sum_ms", s->dursum, 6);
	out_i64(&ob, "wait_sum_ns", s->waitsum);
	out_dec(&ob, "wait_sum_ms", s->waitsum, 6);
	if (s->kernels)
		out_cstr(&ob, "template", hex);
	else
		out_null(&ob, "template");
	rec_put(&ob, stdout);
	P.passsteps++;
	P.steps++;
	if (s->kernels == 0) {
		char msg[160];

		snprintf(msg, sizeof msg, "step %.40s has no kernels; it is its own group %s",
		    s->id, gid);
		out_begin(&ob, "warning");
		out_raw(&ob, "profile", P.prof.p, P.prof.len);
		out_cstr(&ob, "code", "empty_step");
		out_cstr(&ob, "message", msg);
		out_cstr(&ob, "source", "asc-steps");
		out_raw(&ob, "step_id", s->idjson.p, s->idjson.len);
		rec_put(&ob, stdout);
	}
}

/* Close every step of the current pass, empty windows included. */
static void
pass_end(void)
{
	if (P.mode == M_MARKERS) {
		if (P.cur >= 0)
			step_close(P.cur == (long)P.nw - 1);
		for (size_t j = (size_t)(P.cur + 1); j < P.nw; j++) {
			step_marker(j);
			step_close(j == P.nw - 1);
		}
	} else
		step_close(1);
	P.cur = -1;
	P.passsteps = 0;
}

static void
decide(const struct sr_kern *k)
{
	if (!P.built)
		buildwindows();
	if (P.mode != M_NONE)
		return;
	if (P.nw > 0)
		P.mode = M_MARKERS;
	else if (k && k->step) {
		P.mode = M_COLUMN;
		warn_rec("no_step_markers", "no step markers: step windows are the "
		    "kernel spans of the Step Id column; prelaunch and tail gaps "
		    "are not measurable", NULL, 0);
	} else if (k) {
		P.mode = M_PSEUDO;
		warn_rec("no_step_markers", "no step markers and no Step Id: one "
		    "pseudo-step over all kernels; prelaunch and tail gaps are "
		    "not measurable", NULL, 0);
	}
}

/* End of the kernel section: first "host" record, next profile or EOF. */
static void
section_end(void)
{
	char msg[160];

	if (!P.sect.active || P.sect.sec == SR_HOST)
		return;
	decide(NULL);
	if (P.sect.sec == SR_KERNELS || P.mode == M_MARKERS)
		pass_end();
	P.sect.sec = SR_HOST;
	if (P.unassigned) {
		snprintf(msg, sizeof msg, P.mode == M_COLUMN ?
		    "%lld kernels have no Step Id and belong to no step" :
		    "%lld kernels start before the first step window and belong to no step",
		    (long long)P.unassigned);
		warn_rec("unassigned_kernels", msg, "count", P.unassigned);
	}
	if (P.late) {
		snprintf(msg, sizeof msg, "%lld kernels name an earlier Step Id after a "
		    "later step began; they were kept in the open step", (long long)P.late);
		warn_rec("step_id_reassigned", msg, "count", P.late);
	}
	int dom = -1;

	for (int i = 0; i < P.ng; i++)
		if (dom < 0 || P.g[i].service > P.g[dom].service)
			dom = i;
	out_begin(&ob, "step_groups");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_i64(&ob, "steps", P.steps);
	out_i64(&ob, "unassigned_kernels", P.unassigned);
	if (dom >= 0) {
		snprintf(msg, sizeof msg, "g%d", dom);
		out_cstr(&ob, "dominant_group_id", msg);
	} else
		out_null(&ob, "dominant_group_id");
	out_key(&ob, "groups");
	buf_addc(&ob, '[');
	for (int i = 0; i < P.ng; i++) {
		const struct group *g = &P.g[i];
		char hex[20];

		if (i)
			buf_addc(&ob, ',');
		snprintf(msg, sizeof msg, "g%d", i);
		buf_adds(&ob, "{\"group_id\":");
		out_esc(&ob, msg, strlen(msg));
		out_i64(&ob, "size", g->size);
		out_i64(&ob, "service_ns", g->service);
		out_dec(&ob, "service_ms", g->service, 6);
		out_i64(&ob, "kernels", g->n);
		snprintf(hex, sizeof hex, "%016llx", (unsigned long long)g->hash);
		if (g->empty)
			out_null(&ob, "template");
		else
			out_cstr(&ob, "template", hex);
		out_bool(&ob, "empty", g->empty);
		out_key(&ob, "steps");
		buf_addc(&ob, '[');
		buf_add(&ob, g->steps.p, g->steps.len);
		buf_adds(&ob, "]}");
	}
	buf_addc(&ob, ']');
	rec_put(&ob, stdout);
}

static void
profile_reset(void)
{
	for (size_t i = 0; i < P.nm; i++) {
		free(P.m[i].id);
		free(P.m[i].src);
	}
	for (size_t i = 0; i < P.nw; i++)
		if (P.w[i].ownid)
			free(P.w[i].id);
	free(P.w);
	P.w = NULL;
	P.nm = P.nw = 0;
	P.built = 0;
	P.mode = M_NONE;
	P.dev.len = 0;
	P.cur = -1;
	P.open = 0;
	P.passsteps = 0;
	P.unassigned = P.late = P.steps = P.merged = 0;
	for (int i = 0; i < P.ng; i++) {
		tc_free(&P.g[i].tt);
		buf_free(&P.g[i].steps);
	}
	free(P.g);
	P.g = NULL;
	P.ng = 0;
}

static int
markerrec(struct rin *r)
{
	struct marker m;
	const struct rfield *f;
	struct buf kind = { 0 }, name = { 0 };
	int64_t dur;

	if (sr_sect_need(&P.sect, r, "marker") != 0)
		return -1;
	if (P.sect.sec != SR_BEFORE) {
		rin_error(r, "marker after the profile's kernels");
		return -1;
	}
	if (rin_scan(r) != 0)
		return -1;
	memset(&m, 0, sizeof m);
	if (rin_i64(r, "start_ns", &m.start) != 0) {
		rin_error(r, "marker has no integer \"start_ns\"");
		return -1;
	}
	if (rin_i64(r, "end_ns", &m.end) != 0) {
		if (rin_i64(r, "dur_ns", &dur) != 0) {
			rin_error(r,
			    "marker has no integer \"end_ns\" or \"dur_ns\"");
			return -1;
		}
		m.end = m.start + dur;
	}
	rin_str(r, "name", &name);
	if (rin_str(r, "kind", &kind) != 0) {
		const char *h = name.p ? strchr(name.p, '#') : NULL;

		kind.len = 0;
		if (name.p)
			buf_add(&kind, name.p, h ? (size_t)(h - name.p) : name.len);
	}
	buf_addc(&kind, '\0');
	buf_addc(&name, '\0');
	for (m.cls = 0; m.cls < ncls - 1 && strcmp(kind.p, kinds[m.cls]) != 0; m.cls++)
		;
	if (m.cls == ncls - 1 && !(pattern && (fnmatch(pattern, kind.p, 0) == 0 ||
	    fnmatch(pattern, name.p, 0) == 0))) {
		buf_free(&kind);
		buf_free(&name);
		sr_pass(r);
		return 0;
	}
	if (textof(rin_get(r, "step"), &kind) == 0) {
		m.id = xstrndup(kind.p, kind.len);
		m.hasnum = number(kind.p, kind.len, &m.num) == 0;
	} else {
		const char *h = strrchr(name.p, '#');

		if (h && h[1]) {
			m.id = xstrdup(h + 1);
			m.hasnum = number(m.id, strlen(m.id), &m.num) == 0;
		}
	}
	if ((f = rin_get(r, "src")) && !rf_isnull(f))
		m.src = xstrndup(f->v, f->vlen);
	buf_free(&kind);
	buf_free(&name);
	m.seq = P.nm;
	P.m = xgrow(P.m, P.nm, &P.capm, 64, sizeof *P.m);
	P.m[P.nm++] = m;
	sr_pass(r);
	return 0;
}

/* Write the kernel line with "step_id" set (id: a JSON string or "null"). */
static void
putkernel(struct rin *r, const char *id, size_t idn)
{
	const struct rfield *f = rin_get(r, "step_id");
	size_t len;
	const char *line = rin_text(r, f, &len);

	ob.len = 0;
	if (f) {
		buf_add(&ob, line, (size_t)(f->v - line));
		buf_add(&ob, id, idn);
		buf_add(&ob, f->v + f->vlen, len - (size_t)(f->v + f->vlen - line));
	} else {
		/* Early in the record (after "profile"), so that later filters
		 * find it without scanning the kernel's long tail. */
		const struct rfield *p = rin_get(r, "profile");
		size_t e;

		if (p && p->v >= line && p->v < line + len)
			e = (size_t)(p->v + p->vlen - line);
		else {
			for (e = len; e > 0 && line[e - 1] != '}'; e--)
				;
			if (e > 0)
				e--;
		}
		buf_add(&ob, line, e);
		buf_adds(&ob, ",\"step_id\":");
		buf_add(&ob, id, idn);
		buf_add(&ob, line + e, len - e);
	}
	buf_addc(&ob, '\n');
	if (fwrite(ob.p, 1, ob.len, stdout) != ob.len)
		dieerr("stdout");
	ob.len = 0;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	int o, assigned = 0, open;

	if (sr_sect_need(&P.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0)
		return -1;
	if (k.profile && (k.profile->vlen != P.prof.len ||
	    memcmp(k.profile->v, P.prof.p, P.prof.len) != 0)) {
		rin_error(r, "kernel of profile %.*s before its "
		    "\"profile\" record", (int)(k.profile->vlen > 64 ? 64 : k.profile->vlen),
		    k.profile->v);
		return -1;
	}
	open = P.sect.sec == SR_KERNELS;	/* a device run is open */
	if ((o = sr_sect_kernel(&P.sect, r, &k)) < 0)
		return -1;
	if (o == 1) {
		if (open)
			pass_end();
		P.dev.len = 0;
		buf_add(&P.dev, P.sect.ord.dev.p, P.sect.ord.dev.len);
		decide(&k);
	}
	switch (P.mode) {
	case M_MARKERS:
		if (P.cur < 0 && k.start < P.w[0].start)
			break;
		while (P.cur + 1 < (long)P.nw && k.start >= P.w[P.cur + 1].start) {
			if (P.cur >= 0)
				step_close(0);
			step_marker((size_t)++P.cur);
		}
		step_add(&k);
		assigned = 1;
		break;
	case M_COLUMN:
		if (k.step == NULL || textof(k.step, &tmp) != 0)
			break;
		if (P.open && (strlen(P.st.id) != tmp.len ||
		    memcmp(P.st.id, tmp.p, tmp.len) != 0)) {
			int64_t a, b;

			if (number(tmp.p, tmp.len, &a) == 0 &&
			    number(P.st.id, strlen(P.st.id), &b) == 0 && a < b)
				P.late++;
			else
				step_close(0);
		}
		if (!P.open)
			step_begin(tmp.p, tmp.len, "step_id_column", 0);
		step_add(&k);
		assigned = 1;
		break;
	case M_PSEUDO:
		if (!P.open)
			step_begin("pseudo", 6, "pseudo", 0);
		step_add(&k);
		assigned = 1;
		break;
	}
	if (assigned)
		putkernel(r, P.st.idjson.p, P.st.idjson.len);
	else {
		P.unassigned++;
		putkernel(r, "null", 4);
	}
	return 0;
}

/* A profile ends: its open steps are written. */
static void
onprofend(struct rin *r, void *arg)
{
	section_end();
	profile_reset();	/* freed as it ends: the next starts empty */
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "marker", .rec = markerrec }),
		.own = FILTER_OWN("step", "step_groups"),
		.check = SR_CHECK_KERNEL,
		FILTER_SECTIONS(&P.sect, &P.prof, onprofend, NULL, section_end),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-c count_tol] [-m maxline] [-p pattern] [-r rules] [-s share_tol] [file ...]",
	    .args = FILTER_ARGS({ .letter = 'p', .to = &pattern }));
	int c;

	while ((c = filter_getopt(argc, argv, "c:p:s:", &o)) != -1)
		switch (c) {
		case 'c':
			ctol = xnum(optarg, 0, 100, "count_tol");
			break;
		case 's':
			stol = xnum(optarg, 0, 100, "share_tol");
			break;
		}
	rules_load(o.rules);
	kinds = rules_list("steps.marker_kinds");
	for (ncls = 1; kinds[ncls - 1]; ncls++)
		;
	if (ctol < 0)
		ctol = llround(rules_num("steps.group_count_tolerance") * 100);
	if (stol < 0)
		stol = llround(rules_num("steps.group_share_tolerance_points"));
	P.cur = -1;
	return filter_main(argc, argv, &o, &f);
}
