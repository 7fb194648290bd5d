/*
 * hwwait: the device's Notify Wait and SDMA tasks.  The Ascend Hardware
 * process holds them at every level (X events whose "Task Type" is
 * "Notify Wait" or "SDMA", on the communication stream); a Level0
 * capture has no HCCL tasks, and they are then the only measure of how
 * long each communication op waits and moves data.  They are kept in the
 * HCCL tasks' store (a thread of the Ascend Hardware process tells them
 * apart) and written as "notify_wait" and "sdma_task" records; asc-comm
 * splits each op's time with them.
 */
#include "trace_int.h"

static const char hw_nw[] = "Notify Wait", hw_sdma[] = "SDMA";

/* An Ascend Hardware event with "Task Type": keep it if a Notify Wait
 * or an SDMA task. */
void
tr_hwwait(struct trace *t, const struct ev *ev, const struct shdr *h,
    struct thr *th)
{
	struct ctask c;
	const char *s;
	size_t n;
	int64_t v;

	spanstr(&ev->ttype, &t->sc3, &s, &n);
	if (!(n == sizeof hw_nw - 1 && memcmp(s, hw_nw, n) == 0) &&
	    !(n == sizeof hw_sdma - 1 && memcmp(s, hw_sdma, n) == 0))
		return;
	memset(&c, 0, sizeof c);
	c.start = h->start;
	c.dur = h->dur;
	c.off = h->off;
	c.ti = h->ti;
	c.src = c.dst = c.bytes = -1;
	c.stream = ((ev->pstream.k && spani64(&ev->pstream, &v) == 0) ||
	    (ev->stream.k && spani64(&ev->stream, &v) == 0)) && v >= 0 &&
	    v <= INT32_MAX ? (int32_t)v : -1;
	memcpy(c.ttype, s, n);
	th->nct++;
	tr_frs_add(t, &t->ct, &c);
}

static void
hwtask(struct trace *t, struct buf *b, const struct ctask *c,
    const char *profile, int64_t origin)
{
	out_begin(b, strcmp(c->ttype, hw_sdma) == 0 ? "sdma_task" : "notify_wait");
	out_cstr(b, "profile", profile);
	tr_putsrc(t, b, c->off);
	out_i64(b, "start_ns", c->start - origin);
	out_i64(b, "dur_ns", c->dur);
	out_i64(b, "end_ns", c->start - origin + c->dur);
	if (c->stream < 0)
		out_cstr(b, "stream", NULL);
	else
		out_i64(b, "stream", c->stream);
}

void
trace_put_notify_waits(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	tr_put_ctasks(t, fp, R_HW, profile, origin, hwtask);
}
