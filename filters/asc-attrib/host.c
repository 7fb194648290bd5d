/*
 * asc-attrib: reading host events: the fast reader of the records as
 * asc-ingest writes them, the general one for any other spelling, and
 * each event queued until its leafness is known (hostrec).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jscan.h"
#include "rec.h"
#include "util.h"

#include "attrib.h"

/*
 * Host records as asc-ingest writes them, read without the general
 * scanner: the keys in their fixed order, plain strings (no escapes) and
 * plain integers (jscan.h).  Anything else returns -1 and takes the
 * general path, which gives the same result for any valid record
 * ($ASC_ATTRIB_CHECK holds the two to that: hostcheck).  Six million host
 * events make this the hottest loop of the filter.
 */
struct hraw {
	const char		*name, *cat;	/* raw JSON strings; cat NULL: none */
	size_t			 namelen, catlen;
	const struct rfield	*frame;		/* NULL: none */
	struct rfield		 fr;		/* the fast path's frame */
	int64_t			 pid, tid, s, e;
	int64_t			 kns;		/* linked device task's start */
	int			 hask;
};

/* ,"key":"plain" at p: the raw string (no escape or control: one
 * jscan.h run to its closing quote) and where it ends, or NULL. */
static const char *
cstr(const char *p, const char *e, const char *key, size_t kn, const char **v, size_t *vn)
{
	const char *q;

	if ((size_t)(e - p) < kn + 2 || memcmp(p, key, kn) != 0 || p[kn] != '"')
		return NULL;
	p += kn;
	if ((q = js_stop(p + 1, e)) >= e || *q != '"')
		return NULL;
	*v = p;
	*vn = (size_t)(q + 1 - p);
	return q + 1;
}

/* ,"key":N at p: a plain integer (js_int) and where it ends, or NULL;
 * other numbers are the general path's (rf_i64). */
static const char *
cint(const char *p, const char *e, const char *key, size_t kn, int64_t *v)
{
	if ((size_t)(e - p) < kn + 1 || memcmp(p, key, kn) != 0)
		return NULL;
	return js_int(p + kn, e, v);
}

#define CSTR(k, v, n)	if ((p = cstr(p, e, k, sizeof k - 1, v, n)) == NULL) return -1
#define CINT(k, v)	if ((p = cint(p, e, k, sizeof k - 1, v)) == NULL) return -1

static int
hostfast(const struct rin *r, struct hraw *h)
{
	size_t len;
	const char *p = rin_line(r, &len), *e = p + len, *v;
	size_t n;
	int64_t x;

	if (len < 16 || memcmp(p, "{\"type\":\"host\"", 14) != 0 || e[-1] != '}')
		return -1;
	p += 14;
	e--;
	CSTR(",\"profile\":", &v, &n);
	CSTR(",\"src\":", &v, &n);
	CSTR(",\"name\":", &h->name, &h->namelen);
	h->cat = NULL;
	if ((size_t)(e - p) >= 11 && memcmp(p, ",\"cat\":null", 11) == 0)
		p += 11;	/* CANN API events have no category */
	else
		CSTR(",\"cat\":", &h->cat, &h->catlen);
	CSTR(",\"process\":", &v, &n);
	CINT(",\"pid\":", &h->pid);
	CINT(",\"tid\":", &h->tid);
	CINT(",\"start_ns\":", &h->s);
	CINT(",\"dur_ns\":", &x);
	CINT(",\"end_ns\":", &h->e);
	CINT(",\"depth\":", &x);
	/* ingest's leaf value is not used: leafness is decided here */
	if ((size_t)(e - p) >= 12 && memcmp(p, ",\"leaf\":true", 12) == 0)
		p += 12;
	else if ((size_t)(e - p) >= 13 && memcmp(p, ",\"leaf\":false", 13) == 0)
		p += 13;
	else
		return -1;
	h->frame = NULL;
	if (p < e) {
		const char *q = cstr(p, e, ",\"frame\":", 9, &h->fr.v, &h->fr.vlen);

		if (q != NULL) {
			h->frame = &h->fr;
			p = q;
		}
	}
	h->hask = 0;
	if (p < e) {
		CINT(",\"kernel_ns\":", &h->kns);
		h->hask = 1;
	}
	return p == e ? 0 : -1;
}

/* Any valid spelling of a host record, through the scanner. */
static int
hostgeneral(struct rin *r, struct hraw *h)
{
	const struct rfield *name, *cat;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &h->s) != 0) {
		rin_error(r, "host has no integer \"start_ns\"");
		return -1;
	}
	if (rin_i64(r, "end_ns", &h->e) != 0) {
		int64_t d;

		if (rin_i64(r, "dur_ns", &d) != 0 || d < 0) {
			rin_error(r, "host has no integer \"end_ns\" or \"dur_ns\"");
			return -1;
		}
		h->e = h->s + d;
	}
	if (h->e < h->s) {
		rin_error(r, "host \"end_ns\" %lld before \"start_ns\" %lld",
		    (long long)h->e, (long long)h->s);
		return -1;
	}
	if (P.sect.sec == SR_HOST && h->s < P.lasthost) {
		rin_error(r, "host records out of order (start_ns %lld "
		    "after %lld)", (long long)h->s, (long long)P.lasthost);
		return -1;
	}
	name = rin_get(r, "name");
	if (name == NULL || name->v[0] != '"') {
		rin_error(r, "host has no string \"name\"");
		return -1;
	}
	h->name = name->v;
	h->namelen = name->vlen;
	cat = rin_get(r, "cat");
	h->cat = cat && cat->v[0] == '"' ? cat->v : NULL;
	h->catlen = cat ? cat->vlen : 0;
	if (rin_i64(r, "tid", &h->tid) != 0)
		h->tid = 0;
	if (rin_i64(r, "pid", &h->pid) != 0)
		h->pid = 0;
	h->frame = rin_get(r, "frame");
	h->hask = rin_i64(r, "kernel_ns", &h->kns) == 0;
	return 0;
}

/* A copy call by its name: "memcpy" in any case (aclrtMemcpyAsync,
 * acl_memcpy_host_to_device). */
static int
hasmemcpy(const char *s, size_t n)
{
	for (size_t i = 0; i + 6 <= n; i++)
		if (strncasecmp(s + i, "memcpy", 6) == 0)
			return 1;
	return 0;
}

static int
rawsame(const char *a, size_t an, const char *b, size_t bn)
{
	return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/*
 * $ASC_ATTRIB_CHECK: a record hostfast read is read again by hostgeneral,
 * and any difference is fatal (tests/cases/asc-attrib/0013-host-fast-check
 * runs it on real, generated and hand-made records).
 */
static void
hostcheck(struct rin *r, const struct hraw *f)
{
	struct hraw g;

	if (hostgeneral(r, &g) != 0)
		die("%s:%lu: host record the fast reader took: %s", rin_name(r), rin_lineno(r),
		    rin_errmsg(r));
	if (!rawsame(f->name, f->namelen, g.name, g.namelen) || !f->cat != !g.cat ||
	    (f->cat && !rawsame(f->cat, f->catlen, g.cat, g.catlen)) || !f->frame != !g.frame ||
	    (f->frame && !rawsame(f->frame->v, f->frame->vlen, g.frame->v, g.frame->vlen)) ||
	    f->pid != g.pid || f->tid != g.tid || f->s != g.s || f->e != g.e ||
	    f->hask != g.hask || (f->hask && f->kns != g.kns))
		die("%s:%lu: the fast and the general host reader differ", rin_name(r), rin_lineno(r));
}

/* Host records read, and read by hostfast: $ASC_ATTRIB_STATS prints them
 * so that a test sees the fast path taken. */
unsigned long nhostrec, nfast;

int
hostrec(struct rin *r)
{
	static int check = -1;
	struct qev h;
	struct hraw hr;
	struct othr *t;
	size_t k = 0;
	int iscopy;

	/* Errors and unusual spellings are the general reader's to judge. */
	nhostrec++;
	if (check < 0)
		check = getenv("ASC_ATTRIB_CHECK") != NULL;
	if (hostfast(r, &hr) == 0 && hr.e >= hr.s && !(P.sect.sec == SR_HOST && hr.s < P.lasthost)) {
		nfast++;
		if (check)
			hostcheck(r, &hr);
	} else if (hostgeneral(r, &hr) != 0)
		return -1;
	if (sr_sect_host(&P.sect)) {
		sortwins();
		sortv(P.sw, P.nsw, sizeof *P.sw, spancmp);
		sortv(P.mk, P.nmk, sizeof *P.mk, spancmp);
		P.firsthost = hr.s;
	}
	P.lasthost = hr.s;
	P.nhost++;
	h.name = intern(hr.name, hr.namelen);
	h.cls = I.v[h.name].cls;
	h.troot = 0;
	h.isop = 0;
	h.fam = I.v[h.name].nfam;
	if (h.fam == famcompile && famcompile >= 0) {
		P.ncomp++;
		P.compns += hr.e - hr.s;
		if (hr.e - hr.s > P.complong)
			P.complong = hr.e - hr.s;
		if (hr.e - hr.s < compilemin)
			h.fam = NOFAM;
		else
			P.ncompiles++;
	}
	if (hr.namelen > 9 && memcmp(hr.name, "\"Dequeue@", 9) == 0) {
		if ((size_t)P.ndequeue == P.capdq) {
			P.capdq = P.capdq ? 2 * P.capdq : 64;
			P.dq = xreallocarray(P.dq, P.capdq, sizeof *P.dq);
		}
		P.dq[P.ndequeue].s = hr.s;
		P.dq[P.ndequeue++].e = hr.e;
	}
	iscopy = hr.hask && hasmemcpy(hr.name, hr.namelen);
	if (iscopy) {
		P.cp = xgrow(P.cp, P.ncp, &P.capcp, 64, sizeof *P.cp);
		P.cp[P.ncp++] = hr.kns;
	}
	if (hr.cat) {
		uint32_t c = intern(hr.cat, hr.catlen);

		if (I.v[c].cfam < h.fam)
			h.fam = I.v[c].cfam;
	}
	if (h.fam == NOFAM)
		h.fam = (unsigned char)nfam;
	h.s = hr.s;
	h.e = hr.e;
	h.tid = hr.tid;
	h.pid = hr.pid;
	h.frame = hr.frame ? intern(hr.frame->v, hr.frame->vlen) : NOID;
	h.state = h.e > h.s ? Q_PENDING : Q_LEAF;
	if (I.cap > P.capops) {
		P.opns = xreallocarray(P.opns, I.cap, sizeof *P.opns);
		memset(P.opns + P.capops, 0, (I.cap - P.capops) * sizeof *P.opns);
		P.capops = I.cap;
	}
	/* Does h lie wholly inside an open event of its thread? */
	t = othr(h.pid, h.tid);
	for (size_t i = 0; i < t->n; i++) {
		struct qev *a;

		if (t->open[i] < P.qhead || (a = qat(t->open[i]))->state != Q_PENDING)
			continue;
		if (a->e <= h.s)
			a->state = Q_LEAF;
		else if (h.e > h.s && h.e <= a->e)
			a->state = Q_CONTEXT;
		else
			t->open[k++] = t->open[i];
	}
	t->n = k;
	/*
	 * The step's context never counts for a cause: markers, and the
	 * frames around one (kept apart: their own code is not untraced).
	 */
	h.ctx = !(h.cls & 4) && (holds(P.sw, P.nsw, h.s, h.e, -1) ||
	    holds(P.mk, P.nmk, h.s, h.e, h.tid));
	if (h.ctx) {
		h.state = Q_CONTEXT;
		spanadd(&P.cx, &P.ncx, &P.capcx, h.s, h.e, h.tid, h.name);
	}
	if (!(h.cls & 4)) {
		rootev(h.pid, h.tid, h.s, h.e, h.name, h.frame, hr.hask ? 1 + iscopy : 0, hr.kns,
		    h.ctx);
		if (!h.ctx)
			chainof(&h, hr.cat && hr.catlen == 17 && memcmp(hr.cat, "\"python_function\"", 17) == 0);
		if (P.qtail - P.qhead == P.qcap) {
			uint64_t nc = P.qcap ? 2 * P.qcap : 256;
			struct qev *nq = xreallocarray(NULL, nc, sizeof *nq);

			for (uint64_t i = P.qhead; i < P.qtail; i++)
				nq[i & (nc - 1)] = *qat(i);
			free(P.q);
			P.q = nq;
			P.qcap = nc;
		}
		*qat(P.qtail) = h;
		if (h.state == Q_PENDING && !h.ctx) {
			t->open = xgrow(t->open, t->n, &t->cap, 8, sizeof *t->open);
			t->open[t->n++] = P.qtail;
		}
		P.qtail++;
	}
	drain(h.s);
	return 0;
}
