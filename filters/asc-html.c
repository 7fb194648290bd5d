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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "filter.h"
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
	{ .type = "profile", .cap = 1 },
	{ .type = "anomaly_discovery", .cap = 1 },
	{ .type = "structure_drilldown", .cap = 1 },
	{ .type = "op" },
};
#define NKEPT	(int)(sizeof kept / sizeof kept[0])

static int rc = EX_OK, profiles, stop;
static const char *input;	/* the operand ("-": standard input) */
static const char *outpath, *svgdir, *mdpath;
static jv kernels, bubbles;

/* Write text to path aside and rename it into place, mode 0640. */
static void
save(const char *path, const char *text, size_t n)
{
	struct aside a;

	if (aside_open(&a, path) != 0)
		dieerr("%s", path);
	aside_save(&a, path, text, n);
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

/* Messages name the operand, not the spool. */
static struct rin *
openin(const char *file, size_t maxline, void *arg)
{
	struct rin *r;

	if ((r = rin_new(file, maxline)) == NULL)
		dieerr("%s", input);
	rin_setname(r, dispname(input));
	return r;
}

/* Pass 1: a record kept by type, or the run of its type passed over. */
static int
keeprec(struct rin *r, const char *t, size_t tn, void *arg)
{
	struct gather *g = arg;
	int k;

	if ((k = gather_index(g, t, tn)) < 0) {
		rin_bulk(r, t, tn, NULL);
		return 0;
	}
	if (k == 0 && profiles++) {
		warnmsg("%s:%lu: a second profile: a page holds one (split the stream per profile)",
		    rin_name(r), rin_lineno(r));
		rc = EX_DATA;
		stop = 1;
		return 0;
	}
	return gather_add(g, k, r);
}

/* Pass 2: the step, its id as JSON text, the kernel lines' prefix. */
struct drill {
	const char *step;
	struct buf s, q, pre;
};

/* Pass 2: a kernel or significant bubble of the drill-down step. */
static int
drillrec(struct rin *r, const char *t, size_t tn, void *arg)
{
	struct drill *d = arg;
	int isk = tn == 6 && memcmp(t, "kernel", 6) == 0;
	size_t len;
	const char *line = rin_line(r, &len);

	if (!isk && !(tn == 6 && memcmp(t, "bubble", 6) == 0)) {
		rin_bulk(r, t, tn, NULL);
		return 0;
	}
	if (isk && d->pre.len == 0)
		stepprefix(&d->pre, line, len);
	if (isk && d->pre.len && len > d->pre.len && memcmp(line, d->pre.p, d->pre.len) == 0) {
		if (len - d->pre.len < d->q.len || memcmp(line + d->pre.len, d->q.p, d->q.len) != 0)
			return 0;
	} else if (isk && memmem(line, len, d->q.p, d->q.len) == NULL)
		return 0;
	if (rin_scan(r) != 0)
		return -1;
	if (rin_str(r, "step_id", &d->s) != 0 || strcmp(d->s.p, d->step) != 0)
		return 0;
	if (isk)
		kernels = jv_array_append(kernels, kernel(r));
	else {
		int sig = 0;

		if (rf_bool(rin_get(r, "significant"), &sig) == 0 && sig) {
			jv v = jv_parse_sized(line, (int)len);

			if (jv_is_valid(v))
				bubbles = jv_array_append(bubbles, v);
			else
				jv_free(v);
		}
	}
	return 0;
}

/* Pass 2: kernels and significant bubbles of step `step`. */
static void
drill(const char *path, const char *step, const struct filter_opts *o)
{
	/*
	 * A kernel of the step holds the step id as a JSON string, written
	 * as asc and jq write it: the many kernels of other steps that do
	 * not hold that text are passed over unread, most of them by the
	 * value after the prefix every kernel line of asc's shares.
	 */
	struct drill d = { .step = step };
	const struct filter f = {
		.rec = drillrec,
		.arg = &d,
		.open = openin,
		.stdout_asis = 1,
	};
	char *files[] = { (char *)path };

	out_esc(&d.q, step, strlen(step));
	if (filter_run(1, files, o, &f) != EX_OK)
		rc = EX_DATA;
	buf_free(&d.s);
	buf_free(&d.q);
	buf_free(&d.pre);
}

int
main(int argc, char *argv[])
{
	/* No -m: lines are read up to the longest a stage writes. */
	struct filter_opts o = FILTER_OPTS("[-k] [-a report.md] [-o file.html] [-r rules] [-s svgdir] [file]",
	    .common = "kr:",
	    .args = FILTER_ARGS({ .letter = 'a', .to = &mdpath }, { .letter = 'o', .to = &outpath },
		{ .letter = 's', .to = &svgdir }));
	/* One profile: a second one stops the reading, -k or not. */
	struct filter f = {
		.rec = keeprec,
		.open = openin,
		.stop = &stop,
		.stdout_asis = 1,
	};
	struct gather *g;
	struct jqprog *prog;
	const char *path;
	char err[512], *files[1];
	jv acc, ad, st;

	filter_getopt(argc, argv, "a:o:s:", &o);
	input = filter_operand(argc, argv, &o);
	rules_load(o.rules);
	f.arg = g = gather_new(kept, NKEPT);
	prog = jqprog_new("asc-html.jq", asc_html_jq);
	files[0] = (char *)(path = spool(input));
	if (filter_run(1, files, &o, &f) != EX_OK)
		rc = EX_DATA;
	if (rc != EX_OK && !o.kflag)
		goto out;
	acc = gather_take(g);
	ad = jv_object_get(jv_copy(acc), jv_string("anomaly_discovery"));
	if (jv_array_length(jv_copy(ad)) == 0) {
		warnmsg("%s: no anomaly_discovery record (run asc-judge first)", dispname(input));
		jv_free(ad);
		jv_free(acc);
		rc = EX_DATA;
		goto out;
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
		drill(path, jv_string_value(st), &o);
	acc = jv_object_set(acc, jv_string("drill_step"), st);
	acc = jv_object_set(acc, jv_string("kernels"), kernels);
	acc = jv_object_set(acc, jv_string("bubbles"), bubbles);
	acc = jv_object_set(acc, jv_string("md"), mdtext());
	jv_free(ad);
	if (jqprog_run(prog, acc, put, NULL, err, sizeof err) != 0)
		die("%s", err);
	xclose_stdout();
out:
	/* freed on every way out, so that a sanitizer build sees no leak */
	spool_done();
	gather_free(g);
	jqprog_free(prog);
	return rc;
}
