/* asc-trace: the event writer, our tracks and their names (trace.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dec.h"

#include "trace.h"

static const char *const trackname[NTRACK] = {
	"asc: steps", "asc: time breakdown", "asc: significant bubbles",
	"asc: structures of the drill-down step", "asc: wait anchors",
};

FILE *out;
static unsigned long nout;	/* events written into the array */
char pid[64];
int ownpid;
struct buf eb;

void
emit(const char *s, size_t n)
{
	if (fwrite(s, 1, n, out) != n)
		dieerr("output");
}

/* Start the next element of the event array. */
void
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
void
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

void
ev_end(void)
{
	buf_add(&eb, "}}", 2);
	sep();
	emit(eb.p, eb.len);
}

void
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

void
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

void
kv_us(const char *key, int64_t ns)
{
	char d[40];

	out_key(&eb, key);
	dec_fmt(d, ns, 3);
	buf_adds(&eb, d);
}
