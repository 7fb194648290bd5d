/*
 * asc-trace: write what asc found as a timeline overlay in the Chrome
 * trace event format that trace_view.json uses, in the capture's own
 * absolute microseconds, so that loaded into MindStudio Insight or
 * Perfetto (alone, or merged into the original trace with --merge) the
 * steps, the time breakdown, the significant bubbles, the structures of
 * the drill-down step and the wait anchors sit on the kernels they name.
 *
 * Timestamps are text: the origin's exact decimal plus integer ns,
 * never a double.  The stream is read twice (a pipe is spooled): first
 * for everything but the drill-down step's structures and the kernels of
 * wait-anchor ops, which the verdict at the end of the stream names.
 */
#define _GNU_SOURCE		/* memmem */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "busy.h"
#include "dec.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "spool.h"
#include "steprec.h"
#include "util.h"

/* Our tracks: thread ids far above any stream id, sorted above them. */
enum { T_STEP, T_BREAK, T_BUBBLE, T_STRUCT, T_WAIT, NTRACK };
static const char *const trackname[NTRACK] = {
	"asc: steps", "asc: time breakdown", "asc: significant bubbles",
	"asc: structures of the drill-down step", "asc: wait anchors",
};
#define TID_BASE	1000000000LL
/* A process of our own when the device's is not known (no --merge, -p). */
#define OWN_PID		"1634952035"

static FILE *out;
static unsigned long nout;	/* events written into the array */
static char pid[64];		/* the process our tracks go on, as text */
static int ownpid;
static int64_t origin_ns;
static int have_origin, notime;
static char *profname;
static int rc = EX_OK, kflag;
static struct buf eb;		/* the event being written */
static struct aside oa;		/* -o: the file written aside */

/* The verdict's choices, learnt in pass 1. */
static jv verdict;		/* anomaly_discovery, or null */
static char *drill_step;	/* structure_drilldown.step_id */
static jv anchors;		/* {op key: true} */
static int nanchors;

static void usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-ak] [-m trace.json] [-o file] [-p pid] [-r rules] [-s copy] [file]\n",
	    progname);
	exit(EX_SYS);
}

static void
emit(const char *s, size_t n)
{
	if (fwrite(s, 1, n, out) != n)
		dieerr("output");
}

/* Start the next element of the event array. */
static void
sep(void)
{
	if (nout++)
		emit(",\n", 2);
}

/* Absolute µs text of a time relative to the origin (ns). */
static void
absus(struct buf *b, int64_t rel)
{
	char t[48];
	int64_t a = origin_ns + rel;
	int n;

	if (a < 0)
		n = snprintf(t, sizeof t, "-%" PRId64 ".%03" PRId64, -a / 1000, -a % 1000);
	else
		n = snprintf(t, sizeof t, "%" PRId64 ".%03" PRId64, a / 1000, a % 1000);
	buf_add(b, t, (size_t)n);
}

/* {"ph":"X","name":..,"pid":..,"tid":..,"ts":"abs","dur":us,"cat":..,"args":{"profile":..
 * ts given as exact text (tsabs) or as ns relative to the origin. */
static void
ev_begin(int track, const char *name, size_t nlen, const char *tsabs,
    int64_t rel, int64_t dur, const char *cat)
{
	char d[40];

	eb.len = 0;
	buf_adds(&eb, "{\"ph\":\"X\",\"name\":");
	out_esc(&eb, name, nlen);
	buf_adds(&eb, ",\"pid\":");
	buf_adds(&eb, pid);
	snprintf(d, sizeof d, ",\"tid\":%lld,\"ts\":\"", TID_BASE + track);
	buf_adds(&eb, d);
	if (tsabs)
		buf_adds(&eb, tsabs);
	else
		absus(&eb, rel);
	buf_adds(&eb, "\",\"dur\":");
	dec_fmt(d, dur < 0 ? 0 : dur, 3);
	buf_adds(&eb, d);
	buf_adds(&eb, ",\"cat\":\"");
	buf_adds(&eb, cat);
	buf_adds(&eb, "\",\"args\":{\"profile\":");
	out_esc(&eb, profname, strlen(profname));
}

static void
ev_end(void)
{
	buf_add(&eb, "}}", 2);
	sep();
	emit(eb.p, eb.len);
}

static void
meta(const char *what, int64_t tid, const char *key, const char *val, long sortix, int issort)
{
	char t[64];

	eb.len = 0;
	buf_adds(&eb, "{\"ph\":\"M\",\"name\":\"");
	buf_adds(&eb, what);
	buf_adds(&eb, "\",\"pid\":");
	buf_adds(&eb, pid);
	snprintf(t, sizeof t, ",\"tid\":%lld,\"args\":{\"", (long long)tid);
	buf_adds(&eb, t);
	buf_adds(&eb, key);
	buf_adds(&eb, "\":");
	if (issort) {
		snprintf(t, sizeof t, "%ld", sortix);
		buf_adds(&eb, t);
	} else
		out_esc(&eb, val, strlen(val));
	buf_adds(&eb, "}}");
	sep();
	emit(eb.p, eb.len);
}

static void
tracks(void)
{
	if (ownpid) {
		struct buf n = { 0 };

		buf_adds(&n, "asc overlay: ");
		buf_adds(&n, profname);
		meta("process_name", 0, "name", n.p, 0, 0);
		meta("process_sort_index", 0, "sort_index", NULL, -1, 1);
		buf_free(&n);
	}
	for (int i = 0; i < NTRACK; i++) {
		meta("thread_name", TID_BASE + i, "name", trackname[i], 0, 0);
		meta("thread_sort_index", TID_BASE + i, "sort_index", NULL, i - NTRACK - 100, 1);
	}
}

/* Append the string field key of r to b (rin_str replaces). */
static void
addstr(const struct rin *r, const char *key, struct buf *b)
{
	static struct buf t;

	if (rin_str(r, key, &t) == 0)
		buf_add(b, t.p, t.len);
}

/* Copy field key of the current record into the event's args, as is. */
static void
arg(const struct rin *r, const char *key)
{
	const struct rfield *f = rin_get(r, key);

	if (f)
		out_raw(&eb, key, f->v, f->vlen);
}

static int64_t
geti(const struct rin *r, const char *key)
{
	int64_t v = 0;

	rin_i64(r, key, &v);
	return v;
}

static void
kv_us(const char *key, int64_t ns)
{
	char d[40];

	out_key(&eb, key);
	dec_fmt(d, ns, 3);
	buf_adds(&eb, d);
}

/*
 * Busy time, named by what kind of kernels fill it: the segments of
 * asc-merge, drawn from the kernels (asc-gaps consumes the segment
 * records), clipped to the step windows: in the first pass, where a
 * step's step_metrics record comes after its kernels and before the next
 * step's.
 */
static struct {
	struct win { int64_t s, e, minb; char *id; } *w;
	size_t		 nw, capw, cur;
	struct busy	 b;
	struct buf	 step;		/* raw step_id of the buffered kernels */
	int		 have;
	/*
	 * The run being drawn: segments of one kind (compute, communication,
	 * both) apart by less than the step's min_bubble_us (idle windows
	 * that have no bubble record) are one event; -a draws each segment.
	 */
	int64_t		 minb, rs, re, rkern, rcomp, rcomm, ridle;
	long		 rfirst, rsegs;
	int		 rkind;
	struct buf	 rname0, rname1;	/* first and last kernel names, raw */
} B;
static int aflag;

static void
win_add(const struct rin *r, int64_t s, int64_t e)
{
	const struct rfield *f = rin_get(r, "step_id"), *m = rin_get(r, "min_bubble_us");
	int64_t minb;

	if (f == NULL)
		return;
	if (m == NULL || dec_us2ns(m->v, m->vlen, &minb) != 0 || minb < 0)
		minb = rules_ns("bubbles.min_bubble_us", 1e3);
	if (B.nw == B.capw) {
		B.capw = B.capw ? 2 * B.capw : 64;
		B.w = xreallocarray(B.w, B.capw, sizeof *B.w);
	}
	B.w[B.nw].s = s;
	B.w[B.nw].e = e;
	B.w[B.nw].minb = minb;
	B.w[B.nw++].id = xstrndup(f->v, f->vlen);
}

/*
 * The name of a kernel context object ({"name":...,...}, sr_ctx) as raw
 * JSON into o: a busy event names its first and last kernels, whose whole
 * contexts are on the kernels themselves in the trace beneath.
 */
static void
ctxname(struct buf *o, const struct busy *b, const struct busy_iv *v)
{
	static const char pre[] = "{\"name\":";
	const char *p = b->ctx.p + v->ctx, *e = p + v->ctxlen, *q;

	o->len = 0;
	if (v->ctxlen < sizeof pre || memcmp(p, pre, sizeof pre - 1) != 0) {
		buf_adds(o, "null");
		return;
	}
	p += sizeof pre - 1;
	q = p;
	if (*q == '"') {
		for (q++; q < e && *q != '"'; q++)
			if (*q == '\\')
				q++;
		q++;
	} else
		while (q < e && *q != ',' && *q != '}')
			q++;
	buf_add(o, p, (size_t)(q > e ? e - p : q - p));
}

/* The run drawn as one event, named by what kind of kernels fill it. */
static const char *const kindname[] = { "compute", "communication", "compute + communication" };

static void
run_out(void)
{
	const char *name = kindname[B.rkind];
	int64_t busy = B.re - B.rs - B.ridle;

	if (B.rsegs == 0)
		return;
	ev_begin(T_BREAK, name, strlen(name), NULL, B.rs, B.re - B.rs, "asc.busy");
	out_raw(&eb, "step_id", B.step.p, B.step.len);
	out_i64(&eb, "segment", B.rfirst);
	out_i64(&eb, "segments", B.rsegs);
	out_i64(&eb, "kernels", B.rkern);
	kv_us("busy_us", busy);
	kv_us("idle_inside_us", B.ridle);
	kv_us("compute_us", B.rcomp);
	kv_us("comm_us", B.rcomm);
	kv_us("comm_not_overlapped_us", busy - B.rcomp);
	out_raw(&eb, "first", B.rname0.p, B.rname0.len);
	out_raw(&eb, "last", B.rname1.p, B.rname1.len);
	ev_end();
	B.rsegs = 0;
}

/* A merged segment: the run goes on over a gap below min_bubble_us. */
static void
putbusy(const struct busy *b, const struct busy_seg *g, void *arg)
{
	int kind = g->comm == 0 ? 0 : g->compute == 0 ? 1 : 2;

	if (B.rsegs > 0 && !aflag && kind == B.rkind && g->s - B.re < B.minb) {
		B.ridle += g->s - B.re;
	} else {
		run_out();
		B.rkind = kind;
		B.rs = g->s;
		B.rfirst = g->index;
		B.rkern = B.rcomp = B.rcomm = B.ridle = 0;
		ctxname(&B.rname0, b, g->first);
	}
	B.re = g->e;
	B.rsegs++;
	B.rkern += g->kernels;
	B.rcomp += g->compute;
	B.rcomm += g->comm;
	ctxname(&B.rname1, b, g->last);
}

/* The buffered step's segments, in the window of the same step_id (steps
 * come in the order of their kernels: the search starts where it ended). */
static void
busy_flush(void)
{
	if (!B.have)
		return;
	B.have = 0;
	for (size_t i = 0; i < B.nw; i++) {
		struct win *w = &B.w[(B.cur + i) % B.nw];

		if (strlen(w->id) == B.step.len && memcmp(w->id, B.step.p, B.step.len) == 0) {
			B.cur = (B.cur + i + 1) % B.nw;
			B.minb = w->minb;
			B.rsegs = 0;
			busy_merge(&B.b, w->s, w->e, putbusy, NULL);
			run_out();
			return;
		}
	}
	busy_clear(&B.b);	/* a step without metrics: nothing to draw on */
}

static void
do_busy(struct rin *r)
{
	struct sr_kern k;

	if (sr_kernel(r, &k) != 0 || k.step_id == NULL || rf_isnull(k.step_id))
		return;
	if (B.have && (k.step_id->vlen != B.step.len ||
	    memcmp(k.step_id->v, B.step.p, B.step.len) != 0))
		busy_flush();
	if (!B.have) {
		B.have = 1;
		B.step.len = 0;
		buf_add(&B.step, k.step_id->v, k.step_id->vlen);
	}
	busy_add(&B.b, &k);
}

/* step_metrics: the step and its breakdown. */
static void
do_step(struct rin *r, struct buf *s)
{
	int64_t st = geti(r, "start_ns"), en = geti(r, "end_ns");

	s->len = 0;
	buf_adds(s, "step ");
	addstr(r, "step_id", s);
	win_add(r, st, en);
	ev_begin(T_STEP, s->p, s->len, NULL, st, en - st, "asc.step");
	static const char *const k[] = { "step_id", "group_id", "window_source",
	    "service_ms", "compute_ms", "comm_exposed_ms", "comm_overlapped_ms",
	    "internal_bubble_total_ms", "prelaunch_gap_ms", "tail_gap_ms",
	    "device_busy_union_ms", "underfeed_ratio", "bubble_count",
	    "significant_bubble_count", "kernels", "tags" };
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		arg(r, k[i]);
	ev_end();
}

/* bubble: idle time, as torch_npu names it (preparing, free, tail). */
static void
do_idle(struct rin *r, struct buf *s)
{
	int64_t st = geti(r, "start_ns"), d = geti(r, "dur_ns");
	const char *name;

	s->len = 0;
	rin_str(r, "scope", s);
	name = strcmp(s->p, "prelaunch") == 0 ? "preparing" :
	    strcmp(s->p, "step_internal") == 0 ? "free" : s->p;
	ev_begin(T_BREAK, name, strlen(name), NULL, st, d, "asc.idle");
	arg(r, "bubble_id");
	arg(r, "scope");
	arg(r, "significant");
	ev_end();
}

static void
do_structure(struct rin *r, struct buf *s)
{
	int64_t st = geti(r, "start_ns"), en = geti(r, "end_ns");

	s->len = 0;
	addstr(r, "structure_id", s);
	buf_add(s, " ", 1);
	addstr(r, "structure_type", s);
	buf_add(s, " ", 1);
	addstr(r, "kind", s);
	ev_begin(T_STRUCT, s->p, s->len, NULL, st, en - st, "asc.structure");
	static const char *const k[] = { "structure_id", "structure_type", "kind",
	    "kernels", "wall_ms", "busy_union_ms", "kernel_sum_ms", "total_cost_ms",
	    "internal_bubble_total_ms", "internal_bubble_count", "dominant_task_type" };
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		arg(r, k[i]);
	ev_end();
}

/* A kernel of a wait-anchor op: its wait, before it starts. */
static void
do_anchor(struct rin *r, struct buf *s, struct buf *key)
{
	int64_t st = geti(r, "start_ns"), w = geti(r, "wait_ns");
	jv hit;

	if (w <= 0)
		return;
	s->len = 0;
	rin_str(r, "name", s);
	key->len = 0;
	opkey(s->p, s->len, key);
	hit = jv_object_get(jv_copy(anchors), jv_string_sized(key->p, (int)key->len));
	if (!jv_is_valid(hit))
		return;
	jv_free(hit);
	key->len = 0;
	buf_adds(key, "wait before ");
	buf_add(key, s->p, s->len);
	ev_begin(T_WAIT, key->p, key->len, NULL, st - w, w, "asc.wait_anchor");
	arg(r, "name");
	arg(r, "src");
	arg(r, "stream");
	arg(r, "step_id");
	kv_us("wait_us", w);
	kv_us("dur_us", geti(r, "dur_ns"));
	ev_end();
}

/* The verdict's significant windows: one event each, exact times. */
static void
bubbles(void)
{
	jv w = jv_object_get(jv_copy(verdict), jv_string("bubble_windows"));
	jv tot = jv_object_get(jv_copy(verdict), jv_string("significant_windows_total"));
	int n = jv_get_kind(w) == JV_KIND_ARRAY ? jv_array_length(jv_copy(w)) : 0;
	static const char *const k[] = { "bubble_id", "scope", "step_id", "group_id",
	    "duration_ms", "candidate_labels", "host_causes", "capture_artefact",
	    "tags", "host_visible_coverage_ratio", "sync_marker_overlap_ratio",
	    "comm_marker_overlap_ratio", "host_parallelism", "top_host_op",
	    "evidence_ops", "before", "after" };

	if (jv_get_kind(tot) == JV_KIND_NUMBER && jv_number_value(tot) > n)
		warnmsg("%s: %d of %.0f significant windows in the verdict (the longest): "
		    "the overlay shows those", profname, n, jv_number_value(tot));
	jv_free(tot);
	for (int i = 0; i < n; i++) {
		jv b = jv_array_get(jv_copy(w), i);
		jv s = jv_object_get(jv_copy(b), jv_string("start_abs_us"));
		jv e = jv_object_get(jv_copy(b), jv_string("end_abs_us"));
		jv l = jv_object_get(jv_copy(b), jv_string("candidate_labels"));
		struct buf name = { 0 };
		int64_t s_ns, e_ns;

		if (jv_get_kind(s) != JV_KIND_STRING || jv_get_kind(e) != JV_KIND_STRING ||
		    dec_us2ns(jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)), &s_ns) ||
		    dec_us2ns(jv_string_value(e), (size_t)jv_string_length_bytes(jv_copy(e)), &e_ns)) {
			warnmsg("%s: bubble_windows[%d]: no exact \"start_abs_us\" / \"end_abs_us\"", profname, i);
			rc = EX_DATA;
			goto next;
		}
		if (jv_get_kind(l) == JV_KIND_ARRAY)
			jv_array_foreach(l, j, x) {
				if (j)
					buf_adds(&name, ", ");
				if (jv_get_kind(x) == JV_KIND_STRING)
					buf_adds(&name, jv_string_value(x));
				jv_free(x);
			}
		if (name.len == 0)
			buf_adds(&name, "bubble");
		ev_begin(T_BUBBLE, name.p, name.len, jv_string_value(s), 0, e_ns - s_ns, "asc.bubble");
		for (size_t j = 0; j < sizeof k / sizeof k[0]; j++) {
			jv v = jv_object_get(jv_copy(b), jv_string(k[j]));

			if (jv_is_valid(v)) {
				jv d = jv_dump_string(v, 0);

				out_raw(&eb, k[j], jv_string_value(d), (size_t)jv_string_length_bytes(jv_copy(d)));
				jv_free(d);
			} else
				jv_free(v);
		}
		ev_end();
next:
		buf_free(&name);
		jv_free(s);
		jv_free(e);
		jv_free(l);
		jv_free(b);
	}
	jv_free(w);
}

static int
bad(struct rin *r)
{
	return rin_bad(r, kflag, &rc);
}

static int
is(const char *t, size_t tn, const char *s)
{
	return tn == strlen(s) && memcmp(t, s, tn) == 0;
}

/* Pass 1 (pass 0) or pass 2 (pass 1) over the records. */
static void
run(struct rin *r, int pass)
{
	struct buf s = { 0 }, key = { 0 };
	const char *t;
	size_t tn;

	for (;;) {
		int n = rin_next(r);

		if (n == 0)
			break;
		if (n < 0 || rin_type(r, &t, &tn) != 0) {
			if (bad(r))
				break;
			continue;
		}
		if (pass == 0 && is(t, tn, "profile")) {
			if (rin_scan(r) != 0) {
				if (bad(r))
					break;
				continue;
			}
			if (have_origin) {
				warnmsg("%s:%lu: a second profile: an overlay holds one (split the stream per profile)",
				    r->name, r->lineno);
				rc = EX_DATA;
				break;
			}
			s.len = 0;
			rin_str(r, "profile", &s);
			profname = xstrdup(s.len ? s.p : "?");
			have_origin = 1;
			if (rf_isnull(rin_get(r, "origin_us"))) {
				/* No kernel table and no trace: nothing has a time. */
				struct buf m = { 0 };

				notime = 1;
				buf_adds(&m, "asc overlay: ");
				buf_adds(&m, profname);
				buf_adds(&m, ": no time origin (no kernel table, no trace): nothing to place");
				meta("process_name", 0, "name", m.p, 0, 0);
				buf_free(&m);
				break;
			}
			if (rin_str(r, "origin_us", &s) != 0 || dec_us2ns(s.p, s.len, &origin_ns) != 0) {
				snprintf(r->err, sizeof r->err, "\"origin_us\" is not exact decimal text");
				bad(r);
				break;
			}
			tracks();
			continue;
		}
		if (!have_origin) {
			rin_bulk(r, t, tn, NULL);
			continue;
		}
		if (pass == 0 && (is(t, tn, "anomaly_discovery") || is(t, tn, "structure_drilldown"))) {
			jv v = jv_parse_sized(r->line, (int)r->len);

			if (!jv_is_valid(v)) {
				jv_free(v);
				snprintf(r->err, sizeof r->err, "invalid JSON");
				if (bad(r))
					break;
				continue;
			}
			if (t[0] == 'a') {
				jv_free(verdict);
				verdict = v;
			} else {
				jv st = jv_object_get(v, jv_string("step_id"));

				free(drill_step);
				drill_step = jv_get_kind(st) == JV_KIND_STRING ?
				    xstrdup(jv_string_value(st)) : NULL;
				jv_free(st);
			}
			continue;
		}
		/* Pass 1 reads kernels only for the wait anchors, when there are any. */
		int want = pass == 0 ? is(t, tn, "step_metrics") || is(t, tn, "bubble") ||
		    is(t, tn, "kernel") : (drill_step && is(t, tn, "structure")) ||
		    (nanchors > 0 && is(t, tn, "kernel"));
		if (!want) {
			rin_bulk(r, t, tn, NULL);
			continue;
		}
		if (rin_scan(r) != 0) {
			if (bad(r))
				break;
			continue;
		}
		if (pass == 0) {
			if (t[0] == 'k')
				do_busy(r);
			else if (t[1] == 't')
				do_step(r, &s);
			else
				do_idle(r, &s);
		} else if (t[0] == 's') {
			s.len = 0;
			if (rin_str(r, "step_id", &s) == 0 && strcmp(s.p, drill_step) == 0)
				do_structure(r, &s);
		} else
			do_anchor(r, &s, &key);
	}
	if (pass == 0)
		busy_flush();
	buf_free(&s);
	buf_free(&key);
}

/*
 * --merge: copy the original trace's events one element at a time (the
 * only memory), noting the device's pid from its process_name metadata;
 * the overlay is appended to the same array.  Every byte is read as JSON
 * and what is written is JSON whatever the input holds: control
 * characters and invalid UTF-8 in strings are escaped (U+FFFD for a bad
 * sequence), NaN and Infinity (Python's json writes them) become null, and
 * anything else that is not JSON, bytes after the trace and a second
 * "traceEvents" are refused with FILE@BYTE.
 */
#define MAXDEPTH	512

struct copier {
	int		 fd;
	const char	*name;
	char		*b;
	size_t		 pos, len;
	uint64_t	 off;		/* bytes read before b[pos] */
	int		 object;	/* {"traceEvents":[...]} */
	unsigned long	 elements, escaped, nonnum;
	struct buf	 tail;		/* the object after the array */
};

static int
cgetc(struct copier *c)
{
	if (c->pos == c->len) {
		ssize_t n;

		do
			n = read(c->fd, c->b, 1 << 20);
		while (n < 0 && errno == EINTR);
		if (n < 0)
			dieerr("%s", c->name);
		if (n == 0)
			return EOF;
		c->pos = 0;
		c->len = (size_t)n;
	}
	c->off++;
	return (unsigned char)c->b[c->pos++];
}

/* Give back the byte just read (always in the buffer still). */
static void
cunget(struct copier *c, int ch)
{
	if (ch != EOF) {
		c->pos--;
		c->off--;
	}
}

static void cbad(struct copier *, uint64_t, const char *) __attribute__((noreturn));

static void
cbad(struct copier *c, uint64_t at, const char *msg)
{
	warnmsg("%s@%" PRIu64 ": %s", c->name, at, msg);
	exit(EX_DATA);		/* the aside file goes with the exit */
}

static int
cws(struct copier *c)
{
	int ch;

	while ((ch = cgetc(c)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n')
		;
	return ch;
}

static void
devpid(const char *e, size_t n)
{
	jv v, a, p;

	if (pid[0] || !memmem(e, n, "\"process_name\"", 14) || !memmem(e, n, "Ascend Hardware", 15))
		return;
	v = jv_parse_sized(e, (int)n);
	a = jv_getpath(jv_copy(v), JV_ARRAY(jv_string("args"), jv_string("name")));
	p = jv_object_get(jv_copy(v), jv_string("pid"));
	if (jv_get_kind(a) == JV_KIND_STRING && strcmp(jv_string_value(a), "Ascend Hardware") == 0 &&
	    (jv_get_kind(p) == JV_KIND_NUMBER || jv_get_kind(p) == JV_KIND_STRING)) {
		jv d = jv_dump_string(jv_copy(p), 0);

		snprintf(pid, sizeof pid, "%s", jv_string_value(d));
		jv_free(d);
	}
	jv_free(p);
	jv_free(a);
	jv_free(v);
}

/* Bytes a UTF-8 sequence led by b takes, and its second byte's range. */
static int
utf8lead(int b, int *lo, int *hi)
{
	*lo = 0x80;
	*hi = 0xbf;
	if (b >= 0xc2 && b <= 0xdf)
		return 2;
	if (b == 0xe0)
		*lo = 0xa0;
	else if (b == 0xed)
		*hi = 0x9f;	/* no surrogates */
	if (b >= 0xe0 && b <= 0xef)
		return 3;
	if (b == 0xf0)
		*lo = 0x90;
	else if (b == 0xf4)
		*hi = 0x8f;	/* nothing above U+10FFFF */
	if (b >= 0xf0 && b <= 0xf4)
		return 4;
	return 0;
}

/* A string whose opening quote was read, written to e as valid JSON. */
static void
cstring(struct copier *c, struct buf *e)
{
	static const char hex[] = "0123456789abcdef";
	int ch;

	buf_addc(e, '"');
	while ((ch = cgetc(c)) != '"') {
		if (ch == EOF)
			cbad(c, c->off, "ends inside a string");
		if (ch == '\\') {
			uint64_t at = c->off - 1;

			ch = cgetc(c);
			if (ch <= 0 || !strchr("\"\\/bfnrtu", ch))
				cbad(c, at, "a backslash escape JSON does not have");
			buf_addc(e, '\\');
			buf_addc(e, ch);
			for (int i = 0; ch == 'u' && i < 4; i++) {
				int h = cgetc(c);

				if (h <= 0 || !strchr("0123456789abcdefABCDEF", h))
					cbad(c, at, "a \\u escape without four hex digits");
				buf_addc(e, h);
			}
		} else if (ch < 0x20) {
			char u[6] = { '\\', 'u', '0', '0', hex[ch >> 4], hex[ch & 15] };

			buf_add(e, u, 6);
			c->escaped++;
		} else if (ch < 0x80)
			buf_addc(e, ch);
		else {
			int lo, hi, n = utf8lead(ch, &lo, &hi), i;
			char seq[4];

			seq[0] = (char)ch;
			for (i = 1; i < n; i++) {
				ch = cgetc(c);
				if (ch < lo || ch > hi) {
					cunget(c, ch);
					break;
				}
				seq[i] = (char)ch;
				lo = 0x80;
				hi = 0xbf;
			}
			if (n > 0 && i == n)
				buf_add(e, seq, (size_t)n);
			else {
				buf_add(e, "\xef\xbf\xbd", 3);	/* U+FFFD */
				c->escaped++;
			}
		}
	}
	buf_addc(e, '"');
}

/* A bare word: true, false, null, or Python's NaN / Infinity as null. */
static void
cword(struct copier *c, int ch, struct buf *e, int minus)
{
	static const char *const words[] = { "true", "false", "null", "NaN", "Infinity" };
	uint64_t at = c->off - 1 - (minus != 0);
	char w[16];
	size_t n = 0;

	while (ch != EOF && ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) && n < sizeof w - 1) {
		w[n++] = (char)ch;
		ch = cgetc(c);
	}
	cunget(c, ch);
	w[n] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (strcmp(w, words[i]) == 0 && (!minus || i == 4)) {
			if (i >= 3)
				c->nonnum++;
			buf_adds(e, i >= 3 ? "null" : w);
			return;
		}
	cbad(c, at, "not a JSON value");
}

/* A number, checked against JSON's grammar. */
static void
cnumber(struct copier *c, int ch, struct buf *e)
{
	uint64_t at = c->off - 1;
	size_t from = e->len;
	const char *p;

	if (ch == '-') {
		int nx = cgetc(c);

		if (nx == 'I') {
			cword(c, nx, e, 1);
			return;
		}
		buf_addc(e, '-');
		ch = nx;
	}
	while (ch > 0 && strchr("0123456789+-.eE", ch)) {
		buf_addc(e, ch);
		ch = cgetc(c);
	}
	cunget(c, ch);
	p = e->p + from + (e->p[from] == '-');
	if (*p == '0')
		p++;
	else if (*p >= '1' && *p <= '9')
		while (*p >= '0' && *p <= '9')
			p++;
	else
		cbad(c, at, "not a JSON number");
	if (*p == '.') {
		if (*++p < '0' || *p > '9')
			cbad(c, at, "not a JSON number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p == 'e' || *p == 'E') {
		p += p[1] == '+' || p[1] == '-';
		if (*++p < '0' || *p > '9')
			cbad(c, at, "not a JSON number");
		while (*p >= '0' && *p <= '9')
			p++;
	}
	if (*p != '\0')
		cbad(c, at, "not a JSON number");
}

/* One value whose first byte ch was read, written to e as valid JSON. */
static void
cvalue(struct copier *c, int ch, struct buf *e, int depth)
{
	int close = ch == '{' ? '}' : ']';

	if (ch == '"') {
		cstring(c, e);
		return;
	}
	if (ch == '-' || (ch >= '0' && ch <= '9')) {
		cnumber(c, ch, e);
		return;
	}
	if (ch != '{' && ch != '[') {
		if (ch == EOF)
			cbad(c, c->off, "ends where a value should be");
		cword(c, ch, e, 0);
		return;
	}
	if (depth >= MAXDEPTH)
		cbad(c, c->off - 1, "nested deeper than 512 levels");
	buf_addc(e, ch);
	if ((ch = cws(c)) == close) {
		buf_addc(e, close);
		return;
	}
	for (;;) {
		if (close == '}') {
			if (ch != '"')
				cbad(c, c->off - 1, "an object key that is not a string");
			cstring(c, e);
			if (cws(c) != ':')
				cbad(c, c->off - 1, "no ':' after an object key");
			buf_addc(e, ':');
			ch = cws(c);
		}
		cvalue(c, ch, e, depth + 1);
		ch = cws(c);
		if (ch == close)
			break;
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, ch == EOF ? "ends inside an event" :
			    "neither ',' nor the end of an object or array");
		buf_addc(e, ',');
		ch = cws(c);
	}
	buf_addc(e, close);
}

/* An object key (its quote read) as written: is it "traceEvents"? */
static int
iskey(const struct buf *k)
{
	return k->len == 13 && memcmp(k->p, "\"traceEvents\"", 13) == 0;
}

/* Copy up to and including the '[' of the events; leaves the rest. */
static void
copy_head(struct copier *c)
{
	struct buf k = { 0 }, v = { 0 };
	int ch;

	/* A byte order mark, then the trace. */
	while ((ch = cgetc(c)) == ' ' || ch == '\t' || ch == '\r' || ch == '\n' ||
	    ch == 0xef || ch == 0xbb || ch == 0xbf)
		;
	if (ch == '[') {
		emit("[\n", 2);
		return;
	}
	if (ch != '{')
		cbad(c, ch == EOF ? c->off : c->off - 1, "not a trace: neither an array nor an object");
	c->object = 1;
	emit("{", 1);
	for (ch = cws(c); ch != '}'; ch = cws(c)) {
		if (ch != '"')
			cbad(c, ch == EOF ? c->off : c->off - 1, "an object key that is not a string");
		k.len = 0;
		cstring(c, &k);
		if (cws(c) != ':')
			cbad(c, c->off - 1, "no ':' after an object key");
		emit(k.p, k.len);
		emit(":", 1);
		ch = cws(c);
		if (iskey(&k)) {
			if (ch != '[')
				cbad(c, c->off - 1, "\"traceEvents\" is not an array");
			emit("[\n", 2);
			buf_free(&k);
			buf_free(&v);
			return;
		}
		v.len = 0;
		cvalue(c, ch, &v, 1);
		emit(v.p, v.len);
		if ((ch = cws(c)) == '}')
			break;
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, "neither ',' nor the end of the object");
		emit(",", 1);
	}
	cbad(c, c->off - 1, "no \"traceEvents\" array");
}

/* Copy each event of the array until its ']' (or the end of the file). */
static void
copy_events(struct copier *c)
{
	struct buf e = { 0 };
	int ch = cws(c);

	if (ch == ']')
		return;
	for (;;) {
		if (ch == EOF) {
			if (c->object)
				cbad(c, c->off, "ends inside \"traceEvents\"");
			warnmsg("%s: no final ']' (a known torch_npu defect): closed", c->name);
			break;
		}
		if (ch != '{')
			cbad(c, c->off - 1, "an element of the event array is not an object");
		e.len = 0;
		cvalue(c, ch, &e, 1);
		devpid(e.p, e.len);
		sep();
		emit(e.p, e.len);
		c->elements++;
		ch = cws(c);
		if (ch == ']')
			break;
		if (ch == EOF)
			continue;
		if (ch != ',')
			cbad(c, c->off - 1, "neither ',' nor ']' after an event");
		/* A ',' before ']' or the end: torch_npu leaves one. */
		if ((ch = cws(c)) == ']')
			break;
	}
	buf_free(&e);
}

/* Nothing but white space may follow the trace. */
static void
copy_end(struct copier *c)
{
	int ch = cws(c);

	if (ch != EOF)
		cbad(c, c->off - 1, "bytes after the end of the trace");
}

/* The rest of a {"traceEvents":...} object, read now and written last. */
static void
read_tail(struct copier *c)
{
	struct buf k = { 0 };
	int ch;

	if (!c->object) {
		copy_end(c);
		return;
	}
	while ((ch = cws(c)) != '}') {
		if (ch != ',')
			cbad(c, ch == EOF ? c->off : c->off - 1, "neither ',' nor the end of the object");
		buf_addc(&c->tail, ',');
		if ((ch = cws(c)) != '"')
			cbad(c, ch == EOF ? c->off : c->off - 1, "an object key that is not a string");
		k.len = 0;
		cstring(c, &k);
		if (iskey(&k))
			cbad(c, c->off - k.len, "a second \"traceEvents\"");
		buf_add(&c->tail, k.p, k.len);
		if (cws(c) != ':')
			cbad(c, c->off - 1, "no ':' after an object key");
		buf_addc(&c->tail, ':');
		cvalue(c, cws(c), &c->tail, 1);
	}
	buf_addc(&c->tail, '}');
	buf_free(&k);
	copy_end(c);
}

/* After the array: the rest of the object read by read_tail(). */
static void
copy_tail(struct copier *c)
{
	emit("\n]", 2);
	if (c->object)
		emit(c->tail.p, c->tail.len);
	emit("\n", 1);
	if (c->escaped)
		warnmsg("%s: %lu control characters or invalid UTF-8 sequences in strings escaped",
		    c->name, c->escaped);
	if (c->nonnum)
		warnmsg("%s: %lu NaN or Infinity written as null", c->name, c->nonnum);
}

int
main(int argc, char *argv[])
{
	static const struct option lopt[] = {
		{ "merge", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	struct copier c = { .fd = -1 };
	const char *rules = NULL, *outpath = NULL, *merge = NULL, *keep = NULL, *in, *path;
	struct rin r1, r2;
	int ch;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((ch = getopt_long(argc, argv, "akm:o:p:r:s:", lopt, NULL)) != -1) {
		switch (ch) {
		case 'a':
			aflag = 1;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'm':
			merge = optarg;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'p':
			snprintf(pid, sizeof pid, "%lld", xnum(optarg, 0, INT64_MAX, "pid"));
			break;
		case 'r':
			rules = optarg;
			break;
		case 's':
			keep = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1)
		usage();
	in = argc ? argv[0] : "-";
	rules_load(rules);
	opkey_init();
	verdict = jv_null();
	anchors = jv_object();
	out = stdout;
	/* Written aside and renamed: never a half-written overlay. */
	if (outpath && aside_open(&oa, outpath) != 0)
		dieerr("%s", outpath);
	if (outpath)
		out = oa.fp;
	if (merge) {
		c.name = merge;
		if ((c.fd = open(merge, O_RDONLY)) < 0)
			dieerr("%s", merge);
		c.b = xmalloc(1 << 20);
		copy_head(&c);
		copy_events(&c);
		read_tail(&c);
	} else
		emit("[\n", 2);
	if (!pid[0]) {
		snprintf(pid, sizeof pid, "%s", OWN_PID);
		ownpid = 1;
		if (merge)
			warnmsg("%s: no \"Ascend Hardware\" process: the overlay is a process of its own", merge);
	}
	/* -s: the input copied to a file of the caller's as pass 1 reads it. */
	spool_open(&r1, in, keep);
	r1.name = dispname(in);
	run(&r1, 0);
	path = spool_again(&r1, in);
	if (notime)
		;
	else if (have_origin && jv_get_kind(verdict) == JV_KIND_OBJECT) {
		jv w = jv_object_get(jv_copy(verdict), jv_string("wait_anchor_ops"));

		if (jv_get_kind(w) == JV_KIND_ARRAY)
			jv_array_foreach(w, i, a) {
				jv o = jv_object_get(a, jv_string("op_name"));

				if (jv_get_kind(o) == JV_KIND_STRING)
					anchors = jv_object_set(anchors, o, jv_true());
				else
					jv_free(o);
			}
		jv_free(w);
		bubbles();
	} else if (have_origin && rc == EX_OK)
		warnmsg("%s: no anomaly_discovery record (run asc-judge first): no bubbles, no wait anchors",
		    profname);
	nanchors = jv_object_length(jv_copy(anchors));
	if (have_origin && !notime && (rc == EX_OK || kflag) && (drill_step || nanchors > 0)) {
		if (rin_open(&r2, path, 0) != 0)
			dieerr("%s", path);
		r2.name = dispname(in);
		run(&r2, 1);
		rin_close(&r2);
	}
	if (!have_origin && rc == EX_OK) {
		warnmsg("%s: no profile record", dispname(in));
		rc = EX_DATA;
	}
	if (merge) {
		copy_tail(&c);
		close(c.fd);
		free(c.b);
		buf_free(&c.tail);
	} else
		emit("\n]\n", 3);
	if (outpath) {
		if (rc != EX_OK)
			aside_discard(&oa);
		else if (aside_commit(&oa) != 0)
			dieerr("%s", outpath);
	} else
		xclose_stdout();
	spool_done();
	jv_free(verdict);
	jv_free(anchors);
	free(drill_step);
	free(profname);
	buf_free(&eb);
	return rc;
}
