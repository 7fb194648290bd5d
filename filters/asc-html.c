/*
 * asc-html: render the anomaly report of one profile as one
 * self-contained HTML page with inline SVG charts (the per-step time
 * breakdown, the drill-down step's timeline with its bubbles, the
 * bubble-size distribution, the top ops with their wait apart), and the
 * same charts as .svg files with charts.md, the Markdown that links them.
 * The page and the charts are written by the built-in jq program
 * asc-html.jq.
 *
 * The stream is read twice (a pipe is spooled): once to gather the
 * verdict, the drill-down choice and the ops, and once for the kernels
 * and the significant bubbles of the drill-down step only, so memory is
 * bounded by one step.
 */
#define _GNU_SOURCE		/* memmem */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "gather.h"
#include "jqprog.h"
#include "rec.h"
#include "rules.h"
#include "spool.h"
#include "util.h"

static const char asc_html_jq[] =
#include "asc-html.jq.inc"
;

static const struct gather_type kept[] = {
	{ "profile", 1, GATHER_FIRST, 0 },
	{ "anomaly_discovery", 1, GATHER_FIRST, 0 },
	{ "structure_drilldown", 1, GATHER_FIRST, 0 },
	{ "op", 0, GATHER_FIRST, 0 },
};
#define NKEPT	(int)(sizeof kept / sizeof kept[0])

static int kflag, rc = EX_OK;
static const char *outpath, *svgdir, *mdpath;
static jv kernels, bubbles;

static void usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-a report.md] [-o file.html] [-r rules] [-s svgdir] [file]\n",
	    progname);
	exit(EX_SYS);
}

static int
bad(struct rin *r)
{
	return rin_bad(r, kflag, &rc);
}

/* Write text to path aside and rename it into place, mode 0640. */
static void
save(const char *path, const char *text, size_t n)
{
	struct aside a;

	if (aside_open(&a, path) != 0)
		dieerr("%s", path);
	if (fwrite(text, 1, n, a.fp) != n) {
		int e = errno;

		aside_discard(&a);
		errno = e;
		dieerr("%s", path);
	}
	if (aside_commit(&a) != 0)
		dieerr("%s", path);
}

/* One output of the jq program: {file, text}. */
static void
put(jv o, void *arg)
{
	jv f = jv_object_get(jv_copy(o), jv_string("file"));
	jv t = jv_object_get(o, jv_string("text"));
	const char *fn;
	size_t n;

	if (jv_get_kind(f) != JV_KIND_STRING || jv_get_kind(t) != JV_KIND_STRING)
		die("asc-html.jq: output is not {file, text}");
	fn = jv_string_value(f);
	n = (size_t)jv_string_length_bytes(jv_copy(t));
	if (strcmp(fn, "anomaly_report.html") == 0) {
		if (outpath)
			save(outpath, jv_string_value(t), n);
		else if (fwrite(jv_string_value(t), 1, n, stdout) != n)
			dieerr("stdout");
	} else if (svgdir) {
		/*
		 * The charts and charts.md, the Markdown that links them by
		 * relative name, go to the same directory; no other file is
		 * written to (the report read with -a stays asc-report's).
		 */
		size_t len = strlen(svgdir) + strlen(fn) + 2;
		char *p = xmalloc(len);

		if (strchr(fn, '/'))
			die("asc-html.jq: bad chart name %s", fn);
		snprintf(p, len, "%s/%s", svgdir, fn);
		save(p, jv_string_value(t), n);
		free(p);
	}
	jv_free(f);
	jv_free(t);
}

/*
 * The Markdown report's text, for the page to carry every section of it
 * (null when there is none: the page then holds its own short summary).
 */
static jv
mdtext(void)
{
	struct buf b = { 0 };
	char blk[65536];
	size_t n;
	FILE *f;
	jv t;

	if (mdpath == NULL)
		return jv_null();
	if ((f = fopen(mdpath, "r")) == NULL)
		dieerr("%s", mdpath);
	while ((n = fread(blk, 1, sizeof blk, f)) > 0)
		buf_add(&b, blk, n);
	if (ferror(f) || fclose(f) != 0)
		dieerr("%s", mdpath);
	t = jv_string_sized(b.p ? b.p : "", (int)b.len);
	buf_free(&b);
	return t;
}

/* The fields the timeline draws, from a kernel record. */
static jv
kernel(struct rin *r)
{
	static const char *const k[] = { "name", "task_type", "stream", "start_ns", "dur_ns",
	    "wait_ns", "src" };
	jv o = jv_object();

	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		const struct rfield *f = rin_get(r, k[i]);
		jv v;

		if (f == NULL)
			continue;
		v = jv_parse_sized(f->v, (int)f->vlen);
		if (jv_is_valid(v))
			o = jv_object_set(o, jv_string(k[i]), v);
		else
			jv_free(v);
	}
	return o;
}

/*
 * The text of a kernel line up to its step id's value, as asc writes it
 * ({"type":"kernel","profile":"P","step_id":), or nothing.
 */
static void
stepprefix(struct buf *pre, const char *l, size_t n)
{
	static const char k[] = "{\"type\":\"kernel\",\"profile\":\"", sid[] = ",\"step_id\":";
	const char *p = l + sizeof k - 1, *e = l + n;

	if (n < sizeof k - 1 || memcmp(l, k, sizeof k - 1) != 0)
		return;
	while (p < e && *p != '"' && *p != '\\')
		p++;
	if (p >= e || *p != '"' || (size_t)(e - ++p) < sizeof sid - 1 ||
	    memcmp(p, sid, sizeof sid - 1) != 0)
		return;
	buf_add(pre, l, (size_t)(p - l) + sizeof sid - 1);
}

/* Pass 2: kernels and significant bubbles of step `step`. */
static void
drill(const char *path, const char *disp, const char *step)
{
	struct rin r;
	struct buf s = { 0 }, q = { 0 }, pre = { 0 };
	const char *t;
	size_t tn;

	/*
	 * A kernel of the step holds the step id as a JSON string, written
	 * as asc and jq write it: the many kernels of other steps that do
	 * not hold that text are passed over unread, most of them by the
	 * value after the prefix every kernel line of asc's shares.
	 */
	out_esc(&q, step, strlen(step));
	if (rin_open(&r, path, 0) != 0)
		dieerr("%s", disp);
	r.name = dispname(disp);
	for (;;) {
		int n = rin_next(&r), isk;

		if (n == 0)
			break;
		if (n < 0 || rin_type(&r, &t, &tn) != 0) {
			if (bad(&r))
				break;
			continue;
		}
		isk = tn == 6 && memcmp(t, "kernel", 6) == 0;
		if (!isk && !(tn == 6 && memcmp(t, "bubble", 6) == 0)) {
			rin_bulk(&r, t, tn, NULL);
			continue;
		}
		if (isk && pre.len == 0)
			stepprefix(&pre, r.line, r.len);
		if (isk && pre.len && r.len > pre.len && memcmp(r.line, pre.p, pre.len) == 0) {
			if (r.len - pre.len < q.len || memcmp(r.line + pre.len, q.p, q.len) != 0)
				continue;
		} else if (isk && memmem(r.line, r.len, q.p, q.len) == NULL)
			continue;
		if (rin_scan(&r) != 0) {
			if (bad(&r))
				break;
			continue;
		}
		if (rin_str(&r, "step_id", &s) != 0 || strcmp(s.p, step) != 0)
			continue;
		if (isk)
			kernels = jv_array_append(kernels, kernel(&r));
		else {
			int sig = 0;

			if (rf_bool(rin_get(&r, "significant"), &sig) == 0 && sig) {
				jv v = jv_parse_sized(r.line, (int)r.len);

				if (jv_is_valid(v))
					bubbles = jv_array_append(bubbles, v);
				else
					jv_free(v);
			}
		}
	}
	rin_close(&r);
	buf_free(&s);
	buf_free(&q);
	buf_free(&pre);
}

int
main(int argc, char *argv[])
{
	struct gather *g;
	struct jqprog *prog;
	const char *rules = NULL, *in, *path, *t;
	char err[512];
	struct rin r;
	int ch, profiles = 0;
	size_t tn;
	jv acc, ad, st;

	setprogname_(argv[0]);
	version_opt(argc, argv);
	while ((ch = getopt(argc, argv, "a:ko:r:s:")) != -1) {
		switch (ch) {
		case 'a':
			mdpath = optarg;
			break;
		case 'k':
			kflag = 1;
			break;
		case 'o':
			outpath = optarg;
			break;
		case 'r':
			rules = optarg;
			break;
		case 's':
			svgdir = optarg;
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
	g = gather_new(kept, NKEPT);
	prog = jqprog_new("asc-html.jq", asc_html_jq);
	path = spool(in);

	if (rin_open(&r, path, 0) != 0)
		dieerr("%s", in);
	r.name = dispname(in);
	for (;;) {
		int n = rin_next(&r), k;

		if (n == 0)
			break;
		if (n < 0 || rin_type(&r, &t, &tn) != 0) {
			if (bad(&r))
				break;
			continue;
		}
		if ((k = gather_index(g, t, tn)) < 0) {
			rin_bulk(&r, t, tn, NULL);
			continue;
		}
		if (k == 0 && profiles++) {
			warnmsg("%s:%lu: a second profile: a page holds one (split the stream per profile)",
			    r.name, r.lineno);
			rc = EX_DATA;
			break;
		}
		if (gather_add(g, k, &r) != 0 && bad(&r))
			break;
	}
	rin_close(&r);
	if (rc != EX_OK && !kflag)
		return rc;
	acc = gather_take(g);
	ad = jv_object_get(jv_copy(acc), jv_string("anomaly_discovery"));
	if (jv_array_length(jv_copy(ad)) == 0) {
		warnmsg("%s: no anomaly_discovery record (run asc-judge first)", dispname(in));
		jv_free(acc);
		return EX_DATA;
	}
	/* The drill-down step, else the one with the most internal bubble time. */
	st = jv_getpath(jv_copy(acc), JV_ARRAY(jv_string("structure_drilldown"), jv_number(0),
	    jv_string("step_id")));
	if (jv_get_kind(st) != JV_KIND_STRING) {
		jv s = jv_getpath(jv_copy(acc), JV_ARRAY(jv_string("anomaly_discovery"), jv_number(0),
		    jv_string("step_results")));
		double best = -1;

		jv_free(st);
		st = jv_null();
		if (jv_get_kind(s) == JV_KIND_ARRAY)
			jv_array_foreach(s, i, x) {
				jv b = jv_object_get(jv_copy(x), jv_string("internal_bubble_total_ms"));
				jv id = jv_object_get(x, jv_string("step_id"));

				if (jv_get_kind(b) == JV_KIND_NUMBER && jv_get_kind(id) == JV_KIND_STRING &&
				    jv_number_value(b) > best) {
					best = jv_number_value(b);
					jv_free(st);
					st = jv_copy(id);
				}
				jv_free(b);
				jv_free(id);
			}
		jv_free(s);
	}
	kernels = jv_array();
	bubbles = jv_array();
	if (jv_get_kind(st) == JV_KIND_STRING)
		drill(path, in, jv_string_value(st));
	acc = jv_object_set(acc, jv_string("drill_step"), st);
	acc = jv_object_set(acc, jv_string("kernels"), kernels);
	acc = jv_object_set(acc, jv_string("bubbles"), bubbles);
	acc = jv_object_set(acc, jv_string("md"), mdtext());
	jv_free(ad);
	if (jqprog_run(prog, acc, put, NULL, err, sizeof err) != 0)
		die("%s", err);
	spool_done();
	gather_free(g);
	jqprog_free(prog);
	xclose_stdout();
	return rc;
}
