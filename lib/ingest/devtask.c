/*
 * devtask: the device's own tasks that are not kernels (an input copy,
 * MEMCPY_ASYNC; a stream waiting on an event, EVENT_WAIT), from the
 * Ascend Hardware process of the timeline.  The kernel table leaves them
 * out, so the windows between kernels hold them unseen: asc-attrib says
 * which a window holds.  The names are the rules' attribution.device_tasks.
 */
#include "rules.h"

/* Is the event's name one of attribution.device_tasks? */
static int
devtask_is(struct trace *t, const char *s, size_t n)
{
	t->sc2.len = 0;
	buf_add(&t->sc2, s, n);
	buf_addc(&t->sc2, '\0');
	return rules_match("attribution.device_tasks", t->sc2.p);
}

void
trace_put_dev_tasks(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	struct buf *b = &t->ob;
	struct devev e;

	if (t->devsets == 0)
		return;
	tr_dev_open(t, &e);
	while (tr_dev_next(t, &e)) {
		const struct shdr *h = e.h;

		if (e.p->role != R_HW || !devtask_is(t, e.s, h->nname))
			continue;
		b->len = 0;
		out_begin(b, "device_task");
		out_cstr(b, "profile", profile);
		tr_putsrc(t, b, h->off);
		out_key(b, "name");
		out_esc(b, e.s, h->nname);
		out_key(b, "task_type");
		if (h->flags & F_TTYPE)
			out_esc(b, e.s + h->nname + h->ncat + h->nframe, h->nttype);
		else
			buf_adds(b, "null");
		if (e.p->dev < 0)
			out_cstr(b, "device", NULL);
		else
			out_i64(b, "device", e.p->dev);
		out_i64(b, "stream", h->flags & F_STREAM ? rext(h, 0) : e.th->tid);
		out_i64(b, "start_ns", h->start - origin);
		out_i64(b, "dur_ns", h->dur);
		out_i64(b, "end_ns", h->start - origin + h->dur);
		rec_put(b, fp);
	}
	tr_dev_close(&e);
}
