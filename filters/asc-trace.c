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
 * This file reads the records and draws the steps, idle time, bubbles,
 * structures and wait anchors; filters/asc-trace/ holds the event writer
 * (out.c), the time breakdown (breakdown.c) and --merge (merge.c).
 */
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "filter.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "spool.h"
#include "steprec.h"
#include "util.h"

#include "asc-trace/trace.h"

/* A process of our own when the device's is not known (no --merge, -p). */
#define OWN_PID		"1634952035"

int64_t origin_ns;
static int have_origin, notime;
char *profname;
static int rc = EX_OK;
int aflag;
static struct aside oa;		/* -o: the file written aside */

/* The verdict's choices, learnt in pass 1. */
static jv verdict;		/* anomaly_discovery, or null */
static char *drill_step;	/* structure_drilldown.step_id */
static jv anchors;		/* {op key: true} */
static int nanchors;

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
is(const char *t, size_t tn, const char *s)
{
	return tn == strlen(s) && memcmp(t, s, tn) == 0;
}

/* A pass over the records: which, and its scratch buffers. */
struct pass {
	int	 n;		/* pass 1 (0) or pass 2 (1) */
	struct buf s, key;
};
static int stop;		/* the loop ends, -k or not */
static const char *input;	/* the operand ("-": standard input) */
static const char *keep;	/* -s: the copy pass 1 makes */
static const char *again;	/* what pass 2 reads: the input or its spool */

/* Pass 1: the profile record, the origin; 0, or -1 (r's error set). */
static int
profilerec(struct rin *r, struct buf *s)
{
	if (rin_scan(r) != 0)
		return -1;
	if (have_origin) {
		warnmsg("%s:%lu: a second profile: an overlay holds one (split the stream per profile)",
		    rin_name(r), rin_lineno(r));
		rc = EX_DATA;
		stop = 1;
		return 0;
	}
	s->len = 0;
	rin_str(r, "profile", s);
	profname = xstrdup(s->len ? s->p : "?");
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
		stop = 1;
		return 0;
	}
	if (rin_str(r, "origin_us", s) != 0 || dec_us2ns(s->p, s->len, &origin_ns) != 0) {
		rin_error(r, "\"origin_us\" is not exact decimal text");
		stop = 1;
		return -1;
	}
	tracks();
	return 0;
}

/* Pass 1: the verdict or the drill-down choice, kept whole. */
static int
choicerec(struct rin *r, const char *t)
{
	size_t len;
	const char *line = rin_line(r, &len);
	jv v = jv_parse_sized(line, (int)len);

	if (!jv_is_valid(v)) {
		jv_free(v);
		rin_error(r, "invalid JSON");
		return -1;
	}
	if (t[0] == 'a') {
		jv_free(verdict);
		verdict = v;
	} else {
		jv st = jv_object_get(v, jv_string("step_id"));

		free(drill_step);
		drill_step = jv_get_kind(st) == JV_KIND_STRING ? xstrdup(jv_string_value(st)) : NULL;
		jv_free(st);
	}
	return 0;
}

/* One record of pass 1 or 2. */
static int
onrec(struct rin *r, const char *t, size_t tn, void *arg)
{
	struct pass *p = arg;

	if (p->n == 0 && is(t, tn, "profile"))
		return profilerec(r, &p->s);
	if (!have_origin) {
		rin_bulk(r, t, tn, NULL);
		return 0;
	}
	if (p->n == 0 && (is(t, tn, "anomaly_discovery") || is(t, tn, "structure_drilldown")))
		return choicerec(r, t);
	/* Pass 1 reads kernels only for the wait anchors, when there are any. */
	int want = p->n == 0 ? is(t, tn, "step_metrics") || is(t, tn, "bubble") ||
	    is(t, tn, "kernel") : (drill_step && is(t, tn, "structure")) ||
	    (nanchors > 0 && is(t, tn, "kernel"));
	if (!want) {
		rin_bulk(r, t, tn, NULL);
		return 0;
	}
	if (rin_scan(r) != 0)
		return -1;
	if (p->n == 0) {
		if (t[0] == 'k')
			do_busy(r);
		else if (t[1] == 't')
			do_step(r, &p->s);
		else
			do_idle(r, &p->s);
	} else if (t[0] == 's') {
		p->s.len = 0;
		if (rin_str(r, "step_id", &p->s) == 0 && strcmp(p->s.p, drill_step) == 0)
			do_structure(r, &p->s);
	} else
		do_anchor(r, &p->s, &p->key);
	return 0;
}

/* Pass 1 reads the operand, copied aside (-s keep, or a pipe spooled). */
static struct rin *
open1(const char *file, size_t maxline, void *arg)
{
	struct rin *r = spool_open(file, keep);

	rin_setname(r, dispname(input));
	return r;
}

static void
close1(struct rin *r, void *arg)
{
	again = spool_again(r, input);
}

/* Pass 2 reads the copy, named as the operand. */
static struct rin *
open2(const char *file, size_t maxline, void *arg)
{
	struct rin *r;

	if ((r = rin_new(file, 0)) == NULL)
		dieerr("%s", file);
	rin_setname(r, dispname(input));
	return r;
}

/* Pass 1 (0) or pass 2 (1) over the records. */
static void
run(int n, const struct filter_opts *o)
{
	struct pass p = { .n = n };
	const struct filter f = {
		.rec = onrec,
		.arg = &p,
		.open = n ? open2 : open1,
		.close = n ? NULL : close1,
		.stop = &stop,
		.stdout_asis = 1,
	};
	char *files[] = { (char *)(n ? again : input) };

	stop = 0;
	if (filter_run(1, files, o, &f) != EX_OK)
		rc = EX_DATA;
	if (n == 0)
		busy_flush();
	buf_free(&p.s);
	buf_free(&p.key);
}

int
main(int argc, char *argv[])
{
	static const struct option lopt[] = {
		{ "merge", required_argument, NULL, 'm' },
		{ NULL, 0, NULL, 0 },
	};
	const char *outpath = NULL, *merge = NULL;
	/* -m is --merge: lines are read up to the longest a stage writes. */
	struct filter_opts o = FILTER_OPTS("[-ak] [-m trace.json] [-o file] [-p pid] [-r rules] [-s copy] [file]",
	    .common = "kr:", .longopts = lopt,
	    .args = FILTER_ARGS({ .letter = 'm', .to = &merge }, { .letter = 'o', .to = &outpath },
		{ .letter = 's', .to = &keep }));
	struct copier c = { .fd = -1 };
	int ch;

	while ((ch = filter_getopt(argc, argv, "am:o:p:s:", &o)) != -1) {
		switch (ch) {
		case 'a':
			aflag = 1;
			break;
		case 'p':
			snprintf(pid, sizeof pid, "%lld", xnum(optarg, 0, INT64_MAX, "pid"));
			break;
		}
	}
	input = filter_operand(argc, argv, &o);
	rules_load(o.rules);
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
	run(0, &o);
	if (notime)
		;
	else if (have_origin && jv_get_kind(verdict) == JV_KIND_OBJECT) {
		jv w = jv_object_get(jv_copy(verdict), jv_string("wait_anchor_ops"));

		if (jv_get_kind(w) == JV_KIND_ARRAY)
			jv_array_foreach(w, i, a) {
				jv op = jv_object_get(a, jv_string("op_name"));

				if (jv_get_kind(op) == JV_KIND_STRING)
					anchors = jv_object_set(anchors, op, jv_true());
				else
					jv_free(op);
			}
		jv_free(w);
		bubbles();
	} else if (have_origin && rc == EX_OK)
		warnmsg("%s: no anomaly_discovery record (run asc-judge first): no bubbles, no wait anchors",
		    profname);
	nanchors = jv_object_length(jv_copy(anchors));
	if (have_origin && !notime && (rc == EX_OK || o.kflag) && (drill_step || nanchors > 0))
		run(1, &o);
	if (!have_origin && rc == EX_OK) {
		warnmsg("%s: no profile record", dispname(input));
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
