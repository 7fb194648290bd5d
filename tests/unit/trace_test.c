/*
 * trace_test: unit tests of lib/ingest/trace.
 *   trace_test REALDIR [NX NHOST NDEV NLINKED NHOSTLINKED]
 *	self tests on hand-written traces, then checks on the real alexnet
 *	level1 rank0 trace under REALDIR, tests/data/real (expected counts
 *	computed by the case with python's json module).
 *   trace_test -d FILE [RUN_BYTES [STEP_PATTERN]]
 *	dump: counts, warnings, markers, kernels and host records of FILE
 *	relative to trace_span()->min_ts, for comparisons and benchmarks.
 */
#define _GNU_SOURCE		/* memmem */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "ingest/trace.h"
#include "util.h"

static char tmpdir[256];
static size_t chunk;		/* read() size for run(), 0 = default */

static const char *
tmpd(void)
{
	const char *d = getenv("TMPDIR");

	return d && *d ? d : "/tmp";
}

/* Write s to a temp file; returns its path (static). */
static const char *
wtmp(const char *s)
{
	static char path[512];
	FILE *fp;

	snprintf(path, sizeof path, "%s/trace_test.json", tmpdir);
	if ((fp = fopen(path, "w")) == NULL || fputs(s, fp) == EOF ||
	    fclose(fp) == EOF)
		dieerr("%s", path);
	return path;
}

struct out {
	char	*p;
	size_t	 n;
};

/* The markers, kernels and host records, from origin org (none: 0). */
static void
putall(struct trace *t, FILE *fp, int64_t org)
{
	if (org == INT64_MAX)
		org = 0;
	trace_put_markers(t, fp, "p", org);
	trace_put_kernels(t, fp, "p", org);
	trace_put_host(t, fp, "p", org);
}

/* Read a trace; 0 or -1; all three streams into o (if o). */
static int
run(const char *path, size_t rb, const char *pat, struct out *o,
    struct trace **tp)
{
	struct trace_opts opts = { tmpd(), "t.json", pat, rb, 0, NULL };
	struct trace *t = trace_open(path, &opts);
	FILE *fp;
	int r;

	if (t == NULL)
		dieerr("%s", path);
	trace_set_chunk(t, chunk);
	r = trace_read(t);
	if (r == 0 && o) {
		fp = open_memstream(&o->p, &o->n);
		putall(t, fp, trace_span(t)->min_ts);
		fclose(fp);
	}
	if (tp)
		*tp = t;
	else
		trace_close(t);
	return r;
}

/* run() path into o, its counts into c, the trace closed; 0 or -1. */
static int
runcount(const char *path, size_t rb, const char *pat, struct out *o,
    struct trace_counts *c)
{
	struct trace *t;
	int r = run(path, rb, pat, o, &t);

	trace_counts(t, c);
	trace_close(t);
	return r;
}

/* Read path again (runs of rb bytes; reads of ch bytes, or as they are
 * now): the same bytes as o? */
static int
again(const char *path, size_t rb, size_t ch, const struct out *o)
{
	struct out o2 = { 0 };
	size_t was = chunk;
	int r;

	if (ch)
		chunk = ch;
	r = run(path, rb, NULL, &o2, NULL);
	chunk = was;
	r = r == 0 && o->n == o2.n && memcmp(o->p, o2.p, o->n) == 0;
	free(o2.p);
	return r;
}

static int
hasw(struct trace *t, const char *code)
{
	const char *c, *m;

	for (int i = 0; (c = trace_warning(t, i, &m)) != NULL; i++)
		if (strcmp(c, code) == 0)
			return 1;
	return 0;
}

/* Count occurrences of needle in the output. */
static int
count(const struct out *o, const char *needle)
{
	int k = 0;
	size_t n = strlen(needle);

	for (const char *p = o->p; (p = memmem(p, o->n - (size_t)(p - o->p),
	    needle, n)) != NULL; p += n)
		k++;
	return k;
}

/* The line of o that contains needle (static copy), or "". */
static const char *
line(const struct out *o, const char *needle)
{
	static char l[4096];
	const char *p = strstr(o->p, needle), *s, *e;

	if (p == NULL)
		return "";
	for (s = p; s > o->p && s[-1] != '\n'; s--)
		;
	e = strchr(p, '\n');
	snprintf(l, sizeof l, "%.*s", (int)(e - s), s);
	return l;
}

#define META \
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"Python\"}}," \
	"{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":1,\"tid\":0,\"args\":{\"labels\":\"CPU\"}}," \
	"{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"tid\":0,\"args\":{\"name\":\"Ascend Hardware\"}}," \
	"{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"tid\":0,\"args\":{\"labels\":\"NPU 3\"}}"

#define EV(name, tid, ts, dur) \
	"{\"ph\":\"X\",\"name\":\"" name "\",\"pid\":1,\"tid\":" #tid \
	",\"ts\":\"" ts "\",\"dur\":" dur ",\"cat\":\"cpu_op\"}"

/* Handwritten traces the reader refuses: text after the array, a bad
 * escape, a number with a leading zero, no object, nothing. */
static const char *const refused[] = {
	"[" EV("a", 1, "100", "5") "] x",
	"[{\"ph\":\"X\",\"name\":\"a\\q\"}]",
	"[{\"ph\":\"X\",\"dur\":01}]",
	"[1]",
	"",
};

static void
t_toplevel(void)
{
	struct out o;
	struct trace *t;
	struct trace_counts c;

	/* bare array vs traceEvents object give the same records */
	/* padded so that byte offsets (src) agree with the object form */
	{
		char tr[1024];

		snprintf(tr, sizeof tr, "[%59s%s]", "",
		    META "," EV("a", 1, "100.000", "5"));
		CHECK(run(wtmp(tr), 0, NULL, &o, &t) == 0);
	}
	trace_counts(t, &c);
	CHECK(c.events == 5 && c.x_events == 1 && c.host == 1 && c.meta == 4);
	CHECK(trace_warning(t, 0, NULL) == NULL);
	trace_close(t);
	struct out o2;

	CHECK(run(wtmp("{\"displayTimeUnit\":\"ns\",\"other\":[1,{\"x\":[]}],"
	    "\"traceEvents\":[" META "," EV("a", 1, "100.000", "5") "],"
	    "\"tail\":null}"), 0, NULL, &o2, NULL) == 0);
	CHECK(o.n == o2.n && memcmp(o.p, o2.p, o.n) == 0);
	CHECK(strstr(o.p, "{\"type\":\"host\",\"profile\":\"p\",\"src\":"
	    "\"t.json@") != NULL);
	free(o.p);
	free(o2.p);

	/* missing final ] */
	CHECK(run(wtmp("[" META "," EV("a", 1, "100", "5") ",\n"), 0, NULL, &o,
	    &t) == 0);
	CHECK(hasw(t, "trace_unterminated"));
	CHECK(count(&o, "\"type\":\"host\"") == 1);
	trace_close(t);
	free(o.p);
	CHECK(run(wtmp("[" META "," EV("a", 1, "100", "5")), 0, NULL, &o,
	    &t) == 0);
	CHECK(hasw(t, "trace_unterminated"));
	trace_close(t);
	free(o.p);

	/* trailing ,] */
	CHECK(run(wtmp("[" META "," EV("a", 1, "100", "5") ",]"), 0, NULL, &o,
	    &t) == 0);
	CHECK(hasw(t, "trace_trailing_comma") && !hasw(t, "trace_unterminated"));
	trace_close(t);
	free(o.p);

	/* truncated mid-event: line and byte of the event */
	CHECK(run(wtmp("[" META ",\n" EV("a", 1, "100", "5") ",\n"
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"ts"), 0, NULL, NULL, &t)
	    == -1);
	{
		char want[128];
		size_t off = strlen("[" META ",\n" EV("a", 1, "100", "5") ",\n");

		snprintf(want, sizeof want, "t.json:3: byte %zu: truncated "
		    "event object", off);
		CHECK(strcmp(trace_err(t), want) == 0);
		if (strcmp(trace_err(t), want) != 0)
			fprintf(stderr, "got \"%s\"\n", trace_err(t));
	}
	trace_close(t);

	/* invalid JSON mid-file, garbage */
	CHECK(run(wtmp("[" EV("a", 1, "100", "5") ",\n{\"ph\":\"X\" \"x\"}]"),
	    0, NULL, NULL, &t) == -1);
	CHECK(strstr(trace_err(t), "t.json:2: byte ") == trace_err(t));
	trace_close(t);
	CHECK(run(wtmp("garbage"), 0, NULL, NULL, &t) == -1);
	CHECK(strcmp(trace_err(t), "t.json:1: byte 0: expected \"[\" or \"{\" "
	    "at the top level") == 0);
	trace_close(t);
	for (size_t i = 0; i < sizeof refused / sizeof *refused; i++)
		CHECK(run(wtmp(refused[i]), 0, NULL, NULL, NULL) == -1);
	CHECK(run(wtmp("[]"), 0, NULL, &o, NULL) == 0 && o.n == 0);
	free(o.p);
}

static void
t_values(void)
{
	struct out o;
	struct trace *t;

	/* numeric vs string ts, exponent dur, long float tail, escapes,
	 * big pid, metadata after the events */
	CHECK(run(wtmp("[" EV("s\\\"q\\\\\\u00e9\\ud83d\\ude00", 1,
	    "1736408883704643.212", "1e-3") ","
	    "{\"ph\":\"X\",\"name\":\"n\",\"pid\":1,\"tid\":1,\"ts\":"
	    "1736408883704644.5,\"dur\":12.77012757357446,\"cat\":\"cpu_op\"},"
	    "{\"ph\":\"X\",\"name\":\"k\",\"pid\":4376751100,\"tid\":7,\"ts\":"
	    "\"1736408883704650\",\"dur\":2.5E1,\"args\":{\"Stream Id\":5,"
	    "\"Task Type\":\"HCCL\",\"Task Id\":\"N/A\",\"x\":{\"y\":[1,2]}}},"
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":4376751100,"
	    "\"args\":{\"name\":\"Ascend Hardware\"}},"
	    "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":4376751100,"
	    "\"args\":{\"labels\":\"NPU\"}},"
	    "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,"
	    "\"args\":{\"name\":\"Python\"}}]"), 0, NULL, &o, &t) == 0);
	CHECK(trace_span(t)->min_ts == 1736408883704643212LL);
	CHECK(trace_span(t)->min_kernel_ts == 1736408883704650000LL);
	CHECK(strstr(o.p, "\"name\":\"s\\\"q\\\\\xc3\xa9\xf0\x9f\x98\x80\","
	    "\"cat\":\"cpu_op\",\"process\":\"Python\",\"pid\":1,\"tid\":1,"
	    "\"start_ns\":0,\"dur_ns\":1,\"end_ns\":1,\"depth\":0,"
	    "\"leaf\":true}") != NULL);
	CHECK(strstr(o.p, "\"name\":\"n\",\"cat\":\"cpu_op\",\"process\":"
	    "\"Python\",\"pid\":1,\"tid\":1,\"start_ns\":1288,\"dur_ns\":12770,"
	    "\"end_ns\":14058,\"depth\":0,\"leaf\":true}") != NULL);
	CHECK(strstr(o.p, "{\"type\":\"kernel\",\"profile\":\"p\",\"src\":"
	    "\"t.json@") != NULL);
	CHECK(strstr(o.p, ",\"device\":null,\"stream\":5,"
	    "\"step\":null,\"name\":\"k\",\"op_type\":null,\"task_type\":"
	    "\"COMMUNICATION\",\"start_ns\":6788,\"dur_ns\":25000,"
	    "\"end_ns\":31788,\"wait_ns\":null,\"task_id\":null}") != NULL);
	trace_close(t);
	free(o.p);
}

static void
t_markers(void)
{
	struct out o;
	struct trace *t;
	struct trace_counts c;

	/* nested markers: the outer kept, the inner merged with a warning;
	 * a pattern marker; names that are not markers */
	CHECK(run(wtmp("[" META ","
	    EV("ProfilerStep#1", 1, "1000", "100") ","
	    EV("Step#7", 1, "1010", "10") ","
	    EV("Iteration#2", 1, "1050", "100") ","
	    EV("ProfilerStep#2", 1, "1200", "100") ","
	    EV("Optimizer.step#SGD.step", 1, "1210", "10") ","
	    EV("ProfilerStep#", 1, "1220", "10") ","
	    EV("MyLoop#4", 1, "1400", "10") ","
	    EV("Step#x", 1, "1500", "10") "]"), 0, "MyLoop", &o, &t) == 0);
	trace_counts(t, &c);
	CHECK(c.markers == 3);
	CHECK(hasw(t, "nested_markers"));
	CHECK(count(&o, "\"type\":\"marker\"") == 3);
	CHECK(strstr(o.p, "{\"type\":\"marker\",\"profile\":\"p\",\"src\":"
	    "\"t.json@") == o.p);
	CHECK(strstr(line(&o, "\"marker\""), "\"name\":\"ProfilerStep#1\","
	    "\"kind\":\"ProfilerStep\",\"step\":\"1\",\"pid\":1,\"tid\":1,"
	    "\"start_ns\":0,\"dur_ns\":100000,\"end_ns\":100000}") != NULL);
	CHECK(strstr(o.p, "\"name\":\"MyLoop#4\",\"kind\":\"MyLoop\","
	    "\"step\":\"4\"") != NULL);
	/* markers are host events, never leaves */
	CHECK(count(&o, "\"type\":\"host\"") == 8);
	CHECK(strstr(line(&o, "\"host\",\"profile\":\"p\",\"src\":\"t.json@"),
	    "\"name\":\"ProfilerStep#1\"") != NULL);
	CHECK(strstr(line(&o, "\"name\":\"MyLoop#4\",\"cat\""),
	    "\"leaf\":false") != NULL);
	trace_close(t);
	free(o.p);

	/* a step number longer than a marker record holds, among many
	 * markers (tiny runs: several sorted runs of markers) */
	{
		struct buf b = { 0 };
		char ev[256];

		buf_adds(&b, "[" META);
		for (int i = 0; i < 300; i++) {
			snprintf(ev, sizeof ev, ",\n" EV("ProfilerStep#%d", 1,
			    "%d", "10"), 300 - i, 100000 - 20 * i);
			buf_adds(&b, ev);
		}
		buf_adds(&b, ",\n" EV("Iteration#"
		    "00000000001234567890123456789012345678901", 1, "1",
		    "10") "]");
		buf_addc(&b, 0);
		CHECK(runcount(wtmp(b.p), 0, NULL, &o, &c) == 0);
		CHECK(c.markers == 301 && count(&o, "\"type\":\"marker\"") == 301);
		CHECK(strstr(line(&o, "\"marker\""), "\"name\":\"Iteration#"
		    "00000000001234567890123456789012345678901\",\"kind\":"
		    "\"Iteration\",\"step\":\"000000000012345678901234567890"
		    "12345678901\",\"pid\":1,\"tid\":1,\"start_ns\":0,") != NULL);
		CHECK(strstr(o.p, "\"name\":\"ProfilerStep#300\",\"kind\":"
		    "\"ProfilerStep\",\"step\":\"300\",\"pid\":1,\"tid\":1,"
		    "\"start_ns\":99999000,") != NULL);
		CHECK(again(wtmp(b.p), 1024, 0, &o));
		free(o.p);
		buf_free(&b);
	}
}

/*
 * A long event on a thread that goes quiet holds back the host records
 * after it: they are written in start order all the same, with the
 * leaf of every event right (thread 2: L holds nothing, M holds N that
 * comes much later; thread 1: many short events), whatever the memory
 * bound of the host pass.
 */
static void
t_quiet(void)
{
	struct buf b = { 0 };
	struct out o;
	char ev[256];
	const int n = 3000;

	buf_adds(&b, "[" META ",\n" EV("L", 2, "10", "100000") ",\n"
	    EV("M", 3, "20", "100000") ",\n" EV("N", 3, "20005", "1"));
	for (int i = 0; i < n; i++) {
		snprintf(ev, sizeof ev, ",\n" EV("op", 1, "%d", "2")
		    ",\n" EV("in", 1, "%d.5", "1"), 100 + 10 * i, 100 + 10 * i);
		buf_adds(&b, ev);
	}
	buf_adds(&b, "]");
	buf_addc(&b, 0);
	CHECK(run(wtmp(b.p), 0, NULL, &o, NULL) == 0);
	CHECK(count(&o, "\"type\":\"host\"") == 2 * n + 3);
	CHECK(strstr(line(&o, "\"name\":\"L\""), "\"depth\":0,\"leaf\":true}"));
	CHECK(strstr(line(&o, "\"name\":\"M\""), "\"depth\":0,\"leaf\":false}"));
	CHECK(strstr(line(&o, "\"name\":\"N\""), "\"depth\":1,\"leaf\":true}"));
	CHECK(strstr(line(&o, "\"name\":\"op\""), "\"depth\":0,\"leaf\":false}"));
	CHECK(strstr(line(&o, "\"name\":\"in\""), "\"depth\":1,\"leaf\":true}"));
	/* start order: L M op in ... N (at 20 ms) ... */
	CHECK(strstr(o.p, "\"name\":\"L\"") < strstr(o.p, "\"name\":\"M\"") &&
	    strstr(o.p, "\"name\":\"M\"") < strstr(o.p, "\"name\":\"op\""));
	CHECK(strstr(o.p, "\"start_ns\":19990500,") < strstr(o.p, "\"name\":\"N\"") &&
	    strstr(o.p, "\"name\":\"N\"") < strstr(o.p, "\"start_ns\":20000000,"));
	CHECK(again(wtmp(b.p), 1024, 0, &o));
	free(o.p);
	buf_free(&b);
}

static void
t_nesting(void)
{
	struct out o;

	/*
	 * Thread 1: A [0,100) > B [10,50) > C [20,30); D [60,70) in A;
	 * thread 2: E [15,40) > F [15,20) (same start), G [45,45) zero.
	 * Events in scrambled file order, metadata last.
	 */
	const char *tr = "["
	    EV("C", 1, "20", "10") "," EV("G", 2, "45", "0") ","
	    EV("A", 1, "0", "100") "," EV("F", 2, "15", "5") ","
	    EV("D", 1, "60", "10") "," EV("B", 1, "10", "40") ","
	    EV("E", 2, "15", "25") "," META "]";

	CHECK(run(wtmp(tr), 0, NULL, &o, NULL) == 0);
#define HOSTIS(n, tid, d, l) CHECK(strstr(line(&o, "\"name\":\"" n "\""), \
	"\"tid\":" #tid ",") && strstr(line(&o, "\"name\":\"" n "\""), \
	"\"depth\":" #d ",\"leaf\":" #l "}"))
	HOSTIS("A", 1, 0, false);
	HOSTIS("B", 1, 1, false);
	HOSTIS("C", 1, 2, true);
	HOSTIS("D", 1, 1, true);
	HOSTIS("E", 2, 0, false);
	HOSTIS("F", 2, 1, true);
	HOSTIS("G", 2, 0, true);
	/* start order: A B E F C G D */
	{
		const char *want = "ABEFCGD";
		const char *p = o.p;

		for (int i = 0; want[i]; i++) {
			char n[16];

			snprintf(n, sizeof n, "\"name\":\"%c\"", want[i]);
			p = strstr(p, n);
			CHECK(p != NULL);
			if (p == NULL)
				break;
		}
	}
	/* tiny runs: multi-run merge gives identical bytes */
	CHECK(again(wtmp(tr), 1024, 0, &o));
	free(o.p);
}

static void
t_flows(void)
{
	struct out o;
	struct trace_counts c;

	CHECK(runcount(wtmp("[" META ","
	    EV("op", 1, "100.000", "10") ","
	    EV("op2", 1, "200.000", "10") ","
	    "{\"ph\":\"s\",\"name\":\"torch_to_npu\",\"id\":1736408883839797773,"
	    "\"pid\":1,\"tid\":1,\"ts\":\"100.000\",\"cat\":\"async_npu\"},"
	    "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"torch_to_npu\",\"id\":"
	    "1736408883839797773,\"pid\":9,\"tid\":2,\"ts\":\"150.500\","
	    "\"cat\":\"async_npu\"},"
	    "{\"ph\":\"s\",\"name\":\"HostToDevice1\",\"id\":\"40004068119343529983\","
	    "\"pid\":1,\"tid\":1,\"ts\":\"300\",\"cat\":\"HostToDevice\"},"
	    "{\"ph\":\"X\",\"name\":\"kern\",\"pid\":9,\"tid\":2,\"ts\":\"150.500\","
	    "\"dur\":1,\"args\":{\"Physic Stream Id\":2,\"Task Id\":8,"
	    "\"Task Type\":\"AI_CORE\"}}]"), 0, NULL, &o, &c) == 0);
	CHECK(c.flows == 3 && c.flows_linked == 1 && c.device == 1);
	CHECK(strstr(line(&o, "\"name\":\"op\""), ",\"kernel_ns\":50500}"));
	CHECK(strstr(line(&o, "\"name\":\"op2\""), "kernel_ns") == NULL);
	CHECK(strstr(o.p, "\"device\":3,\"stream\":2,\"step\":null,"
	    "\"name\":\"kern\",\"op_type\":null,\"task_type\":\"AI_CORE\""));
	CHECK(strstr(line(&o, "\"name\":\"kern\""), ",\"wait_ns\":null,\"task_id\":8}"));
	free(o.p);
}

static void
t_frames(void)
{
	struct out o;

	CHECK(run(wtmp("[" META ","
	    "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"1\","
	    "\"dur\":1,\"args\":{\"Call stack\":\"/x/site-packages/torch/a.py(1):"
	    " f;\\r\\n<string>(1): <module>;\\r\\n/home/u/main.py(345): train;"
	    "\\r\\n/home/u/main.py(9): main\"}},"
	    "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":\"3\","
	    "\"dur\":1,\"args\":{\"Call stack\":\"/usr/lib/python3.9/x.py(1): f;"
	    "\\n/y/dist-packages/z.py(2): g\"}},"
	    "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":\"5\","
	    "\"dur\":1}]"), 0, NULL, &o, NULL) == 0);
	CHECK(strstr(line(&o, "\"name\":\"a\""),
	    ",\"frame\":\"/home/u/main.py(345): train\"}"));
	CHECK(strstr(line(&o, "\"name\":\"b\""), ",\"frame\":null}"));
	CHECK(strstr(line(&o, "\"name\":\"c\""), "frame") == NULL);
	free(o.p);
}

/*
 * Many flows, events out of order on two threads: tiny runs (flow ends
 * and links spilled, runs merged) give the same bytes and counts as one
 * run; an error past the first mmap window has the right line.
 */
static void
t_spill(void)
{
	struct buf b = { 0 };
	struct out o, o2;
	struct trace *t;
	struct trace_counts c, c2;
	char ev[512];
	const int n = 5000;

	buf_adds(&b, "[" META);
	for (int i = 0; i < n; i++) {
		int k = (i * 7919) % n;		/* scrambled start order */

		snprintf(ev, sizeof ev, ",\n" EV("op", 1, "%d.%03d", "0.5")
		    ",{\"ph\":\"X\",\"name\":\"in\",\"pid\":1,\"tid\":%d,"
		    "\"ts\":\"%d.%03d\",\"dur\":0.1}"
		    ",{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":1,\"ts\":"
		    "\"%d.%03d\",\"cat\":\"async_npu\"}"
		    ",{\"ph\":\"f\",\"id\":%d,\"pid\":9,\"tid\":2,\"ts\":"
		    "\"%d.%03d\",\"cat\":\"async_npu\"}"
		    ",{\"ph\":\"f\",\"id\":%d,\"pid\":9,\"tid\":2,\"ts\":"
		    "\"%d.%03d\",\"cat\":\"async_npu\"}"
		    ",{\"ph\":\"X\",\"name\":\"k\",\"pid\":9,\"tid\":2,"
		    "\"ts\":\"%d.%03d\",\"dur\":1}",
		    k, i % 1000, 1 + i % 2, k, 100 + i % 1000, (k * 3) % n,
		    k, i % 1000, (k * 3) % n, k + 7, 0, (k * 3) % n, k + 5, 0,
		    k + 5, 0);
		buf_adds(&b, ev);
	}
	buf_adds(&b, "]");
	buf_addc(&b, 0);
	CHECK(runcount(wtmp(b.p), 0, NULL, &o, &c) == 0);
	CHECK(c.flows == 3 * (unsigned long)n && c.flows_linked > 0 &&
	    c.host_linked >= c.flows_linked);
	CHECK(runcount(wtmp(b.p), 1024, NULL, &o2, &c2) == 0);
	CHECK(c2.flows_linked == c.flows_linked &&
	    c2.host_linked == c.host_linked);
	CHECK(o.n == o2.n && memcmp(o.p, o2.p, o.n) == 0);
	free(o.p);
	free(o2.p);
	/* a bad event after several 4 KiB windows: its line and byte */
	b.len--;
	b.len--;
	buf_adds(&b, ",\n{\"ph\":\"X\" \"x\"}]");
	buf_addc(&b, 0);
	{
		char want[128];
		size_t at = strlen(b.p) - strlen("{\"ph\":\"X\" \"x\"}]") +
		    strlen("{\"ph\":\"X\" ");
		const char *path = wtmp(b.p);

		snprintf(want, sizeof want, "t.json:%d: byte %zu: expected "
		    "\",\" or \"}\" in object", 2 + n, at);
		chunk = 4096;
		CHECK(run(path, 0, NULL, NULL, &t) == -1);
		CHECK(strcmp(trace_err(t), want) == 0);
		if (strcmp(trace_err(t), want) != 0)
			fprintf(stderr, "got \"%s\"\nwant \"%s\"\n",
			    trace_err(t), want);
		trace_close(t);
		chunk = 7;
		CHECK(run(path, 0, NULL, NULL, &t) == -1);
		CHECK(strcmp(trace_err(t), want) == 0);
		trace_close(t);
		chunk = 0;
	}
	buf_free(&b);
}

/*
 * Reading on two threads ($ASC_TRACE_SPLIT forced to 1 byte): the
 * result (return, records, counts, warnings, error) is that of one
 * thread, and trace_split() tells whether the halves were joined (1) or
 * the second thread's work dropped (-1).
 */
static void
splitsame(const char *what, const char *json, size_t rb, int want)
{
	const char *path = wtmp(json);
	struct out o[2] = { { NULL, 0 }, { NULL, 0 } };
	struct trace *t[2];
	struct trace_counts c[2];
	int r[2], ok = 1;

	for (int i = 0; i < 2; i++) {
		setenv("ASC_TRACE_SPLIT", i ? "1" : "0", 1);
		r[i] = run(path, rb, "Mark", &o[i], &t[i]);
		memset(&c[i], 0, sizeof c[i]);
		trace_counts(t[i], &c[i]);
	}
	unsetenv("ASC_TRACE_SPLIT");
	ok &= trace_split(t[0]) == 0;
	ok &= trace_split(t[1]) == want;
	ok &= r[0] == r[1];
	ok &= strcmp(trace_err(t[0]), trace_err(t[1])) == 0;
	if (r[0] == 0) {
		ok &= o[0].n == o[1].n && memcmp(o[0].p, o[1].p, o[0].n) == 0;
		ok &= memcmp(&c[0], &c[1], sizeof c[0]) == 0;
		for (int i = 0;; i++) {
			const char *m0 = NULL, *m1 = NULL;
			const char *w0 = trace_warning(t[0], i, &m0);
			const char *w1 = trace_warning(t[1], i, &m1);

			if (w0 == NULL || w1 == NULL) {
				ok &= w0 == w1;
				break;
			}
			ok &= strcmp(w0, w1) == 0 && strcmp(m0, m1) == 0;
		}
	}
	if (!ok) {
		fprintf(stderr, "%s:%d: split differs: %s (split %d, want %d; "
		    "r %d %d; err \"%s\" \"%s\")\n", __FILE__, __LINE__, what,
		    trace_split(t[1]), want, r[0], r[1], trace_err(t[0]),
		    trace_err(t[1]));
		fails++;
	}
	for (int i = 0; i < 2; i++) {
		free(o[i].p);
		trace_close(t[i]);
	}
}

/* Events i in [from, to): host ops of threads 1..3 of pid 1 and of pid
 * 7 (named late), kernels of pid 9 with flows, step markers (some with
 * long step numbers), call stacks, equal starts in both halves. */
static void
splitevs(struct buf *b, int from, int to)
{
	char ev[1024];

	for (int i = from; i < to; i++) {
		int ts = 1000 + (i * 37) % 500;	/* repeats: equal starts */

		snprintf(ev, sizeof ev, ",\n{\"ph\":\"X\",\"name\":\"op%d\","
		    "\"pid\":1,\"tid\":%d,\"ts\":\"%d.%03d\",\"dur\":%d.5,"
		    "\"cat\":\"cpu_op\",\"args\":{\"Call stack\":\"/x/site-"
		    "packages/torch/a.py(1): f;\\n/home/u/train%d.py(9): g\","
		    "\"Input Dims\":[[1,2],[3]]}}"
		    ",{\"ph\":\"s\",\"id\":%d,\"pid\":1,\"tid\":%d,\"ts\":"
		    "\"%d.%03d\",\"cat\":\"async_npu\",\"name\":\"torch_to_npu\"}"
		    ",{\"ph\":\"f\",\"id\":%d,\"pid\":9,\"tid\":2,\"ts\":"
		    "\"%d.%03d\",\"cat\":\"async_npu\",\"bp\":\"e\"}"
		    ",\n{\"ph\":\"X\",\"name\":\"k%d\",\"pid\":9,\"tid\":2,"
		    "\"ts\":\"%d.%03d\",\"dur\":3,\"args\":{\"Task Id\":%d,"
		    "\"Stream Id\":2,\"Task Type\":\"AI_CORE\"}}"
		    ",{\"ph\":\"X\",\"name\":\"c%d\",\"pid\":7,\"tid\":%d,"
		    "\"ts\":\"%d\",\"dur\":1}",
		    i % 17, 1 + i % 3, ts, i % 7, i % 5, i % 4,
		    i, 1 + i % 3, ts, i % 7,
		    i, ts + 2, i % 7,
		    i % 11, ts + 2, i % 7, i,
		    i % 13, 1 + i % 2, ts);
		buf_adds(b, ev);
		if (i % 40 == 0) {
			snprintf(ev, sizeof ev, ",\n{\"ph\":\"X\",\"name\":"
			    "\"%s#%d%s\",\"pid\":1,\"tid\":1,\"ts\":\"%d\","
			    "\"dur\":30}", i % 80 ? "ProfilerStep" : "Mark",
			    i, i % 120 ? "" : "12345678901234567890123456789",
			    ts);
			buf_adds(b, ev);
		}
	}
}

#define SPLITMETA2 \
	",\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"tid\":0," \
	"\"args\":{\"name\":\"CANN\"}}" \
	",{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":3," \
	"\"args\":{\"name\":\"late\"}}" \
	",{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":9,\"tid\":0," \
	"\"args\":{\"labels\":\"NPU 4\"}}" \
	",{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0," \
	"\"args\":{\"name\":\"Python\"}}" \
	",{\"ph\":\"C\",\"name\":\"mem\",\"pid\":1,\"ts\":5}" \
	",{\"ph\":\"i\",\"name\":\"inst\",\"pid\":1,\"ts\":5}"

/* A trace of n events a side of the middle, with metadata late. */
static void
splittrace(struct buf *b, const char *head, int n, const char *mid,
    const char *tail)
{
	b->len = 0;
	buf_adds(b, head);
	buf_adds(b, META);
	splitevs(b, 0, n);
	buf_adds(b, mid);
	buf_adds(b, SPLITMETA2);
	splitevs(b, n, 2 * n);
	buf_adds(b, tail);
	buf_addc(b, 0);
}

static void
t_split(void)
{
	struct buf b = { 0 }, nest = { 0 };
	size_t rbs[] = { 0, 2048 };

	for (int k = 0; k < 2; k++) {
		splittrace(&b, "[", 300, "", "]");
		splitsame("array", b.p, rbs[k], 1);
		splittrace(&b, "{\"traceEvents\":[", 300, "",
		    "],\"tail\":[{\"a\":1}]}");
		splitsame("object", b.p, rbs[k], 1);
	}
	splittrace(&b, "[", 300, "", ",]");
	splitsame("trailing comma", b.p, 0, 1);
	splittrace(&b, "[", 300, "", ",\n");
	splitsame("unterminated", b.p, 0, 1);
	/* the middle in an array of objects in args: ", {\"" there is no
	 * event start; the second thread fails */
	for (int i = 0; i < 4000; i++)
		buf_adds(&nest, i ? ", {\"k\":1}" : "{\"k\":1}");
	buf_addc(&nest, 0);
	{
		struct buf m = { 0 };

		buf_adds(&m, ",\n{\"ph\":\"X\",\"name\":\"big\",\"pid\":1,"
		    "\"tid\":1,\"ts\":\"1\",\"dur\":1,\"args\":{\"l\":[");
		buf_adds(&m, nest.p);
		buf_adds(&m, "]}}");
		buf_addc(&m, 0);
		splittrace(&b, "[", 60, m.p, "]");
		splitsame("nested in args", b.p, 0, -1);
		splittrace(&b, "[", 60, m.p, "]");
		splitsame("nested in args, small runs", b.p, 2048, -1);
		buf_free(&m);
	}
	/* ... or after the events: the second thread reads it through,
	 * the first never reaches its start as an event */
	b.len = 0;
	buf_adds(&b, "{\"traceEvents\":[" META);
	splitevs(&b, 0, 20);
	buf_adds(&b, "],\"other\":[");
	buf_adds(&b, nest.p);
	buf_adds(&b, "]}");
	buf_addc(&b, 0);
	splitsame("array after traceEvents", b.p, 0, -1);
	/* bad data past the middle: the first thread reports it */
	splittrace(&b, "[", 300, "", ",{\"ph\":\"X\",\"pid\":1,\"tid\":1,"
	    "\"ts\":\"x1\",\"dur\":1}]");
	splitsame("bad ts", b.p, 0, -1);
	splittrace(&b, "[", 300, "", ",\n{\"ph\":\"X\" \"x\"}]");
	splitsame("bad JSON", b.p, 0, -1);
	splittrace(&b, "[", 300, "", ",\n{\"ph\":\"X\",\"na");
	splitsame("truncated", b.p, 0, -1);
	splittrace(&b, "[", 300, "", "] x");
	splitsame("trailing data", b.p, 0, -1);
	/* ... and before it, while the second thread runs */
	splittrace(&b, "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,"
	    "\"dur\":\"-\"},", 300, "", "]");
	splitsame("bad dur first", b.p, 0, -1);
	buf_free(&nest);
	buf_free(&b);
}

/* Checks on the real alexnet level1 rank0 trace. */
static void
t_real(const char *real, int argc, char **argv)
{
	char path[1024];
	struct out o;
	struct trace *t;
	struct trace_counts c;
	const char *l;
	int64_t prev = INT64_MIN;
	long nhost = 0;

	snprintf(path, sizeof path, "%s/alexnet-2rank-level1/rank0_"
	    "ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json", real);
	CHECK(run(path, 0, NULL, &o, &t) == 0);
	trace_counts(t, &c);
	if (argc >= 4) {
		CHECK(c.x_events == strtoul(argv[0], NULL, 10));
		CHECK(c.host == strtoul(argv[1], NULL, 10));
		CHECK(c.device == strtoul(argv[2], NULL, 10));
		CHECK(c.flows_linked == strtoul(argv[3], NULL, 10));
	}
	if (argc >= 5)
		CHECK(strtoul(argv[4], NULL, 10) == 154);
	/* verified by hand with python's json module */
	CHECK(c.x_events == 4384 && c.markers == 1 && c.has_stacks &&
	    c.has_python && c.has_cann);
	CHECK(c.host == 2460 + 707 && c.device == 535 + 4);
	CHECK(c.flows_linked == 337);
	/* origin: the first Ascend Hardware task (PROFILING_ENABLE at
	 * 1736408883674584.732); ProfilerStep#50 at ts
	 * "1736408883686740.710", dur 155985.8, at byte 603485 */
	CHECK(trace_span(t)->min_ts == 1736408883674584732LL);
	CHECK(trace_span(t)->min_kernel_ts == 1736408883674584732LL);
	CHECK(strstr(o.p, "{\"type\":\"marker\",\"profile\":\"p\",\"src\":"
	    "\"t.json@603485\",\"name\":\"ProfilerStep#50\",\"kind\":"
	    "\"ProfilerStep\",\"step\":\"50\",\"pid\":3096504,\"tid\":3096504,"
	    "\"start_ns\":12155978,\"dur_ns\":155985800,\"end_ns\":168141778}\n")
	    == o.p);
	/* host records in nondecreasing start order */
	for (const char *p = o.p; (p = strstr(p, "{\"type\":\"host\"")) != NULL;
	    p++) {
		const char *s = strstr(p, "\"start_ns\":");
		int64_t v = strtoll(s + 11, NULL, 10);

		CHECK(v >= prev);
		prev = v;
		nhost++;
	}
	CHECK(nhost == (long)c.host);
	l = line(&o, "\"name\":\"ProfilerStep#50\",\"cat\"");
	CHECK(strstr(l, "\"leaf\":false") != NULL);
	l = line(&o, "\"name\":\"nn.Module: AlexNet_0\"");
	CHECK(strstr(l, "\"leaf\":false") != NULL);
	CHECK(count(&o, "\"frame\":\"/home/z30057886/imagenet_script/main.py"
	    "(345): train\"") > 0);
	trace_counts(t, &c);
	CHECK(c.host_linked == 154);	/* 127 torch_to_npu + 27 HostToDevice */
	CHECK(count(&o, ",\"kernel_ns\":") == (int)c.host_linked);
	CHECK(count(&o, "\"type\":\"kernel\"") == (int)c.device);
	/* multi-run merge: byte-identical with 4 KiB runs */
	CHECK(again(path, 4096, 0, &o));
	/* events split across reads: byte-identical with 997-byte reads */
	CHECK(again(path, 0, 997, &o));
	/* and across 8 KiB mmap windows */
	CHECK(again(path, 0, 8192, &o));
	trace_close(t);
	free(o.p);
}

/* The checks on hand-written traces, run with several read sizes and
 * on two threads. */
static void
t_handwritten(void)
{
	t_toplevel();
	t_values();
	t_markers();
	t_nesting();
	t_flows();
	t_frames();
}

static int
dump(int argc, char **argv)
{
	struct trace_opts opts = { NULL, NULL, argc > 4 ? argv[4] : NULL,
	    argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 0,
	    getenv("TRACE_PROGRESS") != NULL, NULL };
	struct trace *t = trace_open(argv[2], &opts);
	struct trace_counts c;
	const char *code, *msg;
	int64_t org;

	if (t == NULL)
		dieerr("%s", argv[2]);
	if (trace_read(t) < 0) {
		fprintf(stderr, "%s\n", trace_err(t));
		trace_close(t);
		return 1;
	}
	trace_counts(t, &c);
	printf("events %lu x %lu meta %lu flows %lu counters %lu other %lu "
	    "host %lu device %lu markers %lu ignored %lu linked %lu "
	    "stacks %d python %d cann %d\n", c.events, c.x_events, c.meta,
	    c.flows, c.counters, c.other, c.host, c.device, c.markers,
	    c.ignored, c.flows_linked, c.has_stacks, c.has_python, c.has_cann);
	for (int i = 0; (code = trace_warning(t, i, &msg)) != NULL; i++)
		printf("warning %s: %s\n", code, msg);
	org = trace_span(t)->min_ts;
	if (getenv("TRACE_READONLY")) {
		trace_close(t);
		return 0;
	}
	printf("min %lld kernel %lld\n", (long long)org,
	    (long long)trace_span(t)->min_kernel_ts);
	putall(t, stdout, org);
	trace_close(t);
	if (fclose(stdout) == EOF)
		dieerr("stdout");
	return 0;
}

int
main(int argc, char **argv)
{
	setprogname_(argv[0]);
	if (argc >= 3 && strcmp(argv[1], "-d") == 0)
		return dump(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: trace_test REALDIR [NX NHOST NDEV NLINKED NHOSTLINKED]\n"
		    "       trace_test -d FILE [RUN_BYTES [PATTERN]]\n");
		return 2;
	}
	snprintf(tmpdir, sizeof tmpdir, "%s/trace_test.XXXXXX", tmpd());
	if (mkdtemp(tmpdir) == NULL)
		dieerr("%s", tmpdir);
	/* the hand-written traces with the default read size, then with
	 * 1- and 7-byte reads so that every token is split */
	for (size_t ck = 0; ck <= 7; ck += ck == 0 ? 1 : 6) {
		chunk = ck;
		t_handwritten();
	}
	chunk = 0;
	t_quiet();
	t_spill();
	t_split();
	t_real(argv[1], argc - 2, argv + 2);
	/* the same checks read on two threads wherever the file is mapped */
	setenv("ASC_TRACE_SPLIT", "1", 1);
	t_handwritten();
	t_quiet();
	t_spill();
	t_real(argv[1], argc - 2, argv + 2);
	unsetenv("ASC_TRACE_SPLIT");
	{
		char p[600];

		snprintf(p, sizeof p, "%s/trace_test.json", tmpdir);
		unlink(p);
		rmdir(tmpdir);
	}
	return check_status("trace_test");
}
