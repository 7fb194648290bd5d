/*
 * asc-merge: per step, merge the kernels' intervals, clipped to the step
 * window, into device-busy "segment" records (all streams and task types
 * together), written just before the step's "step" record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "busy.h"
#include "dec.h"
#include "filter.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

static struct {
	struct sr_sect	 sect;
	struct busy	 busy;		/* the kernels of the step being read */
	int		 bad;
} S;

static struct buf ob, tmp;

struct segctx {
	const struct rfield	*prof, *dev, *sid;
};

static void
putseg(const struct busy *b, const struct busy_seg *g, void *arg)
{
	const struct segctx *c = arg;

	busy_seg_rec(&ob, b, g, c->prof, c->dev, c->sid);
	rec_put(&ob, stdout);
}

/* The step record closes the buffered kernels: clip, sort, merge, write. */
static int
steprec(struct rin *r)
{
	const struct rfield *sid;
	int64_t ws, we;

	if (rin_scan(r) != 0)
		return -1;
	sid = rin_get(r, "step_id");
	if (rin_i64(r, "start_ns", &ws) != 0 || rin_i64(r, "end_ns", &we) != 0) {
		rin_error(r, "step has no integer \"start_ns\" and \"end_ns\"");
		return -1;
	}
	if (busy_step(&S.busy, r, sid, &tmp) != 0)
		return -1;
	struct segctx c = { rin_get(r, "profile"), rin_get(r, "device"), sid };

	busy_merge(&S.busy, ws, we, putseg, &c);
	sr_pass(r);
	return 0;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;

	if (sr_sect_kernel_rec(&S.sect, r, &k) < 0 || busy_kernel(&S.busy, r, &k) < 0)
		return -1;
	sr_pass(r);
	return 0;
}

/* Kernels buffered when a profile ends: reported, but the record that
 * reveals it is still processed.  At the end of input, onend() says so. */
static void
onprofend(struct rin *r, void *arg)
{
	if (r == NULL || !S.busy.have)
		return;
	warnmsg("%s:%lu: kernels of step \"%.40s\" have no \"step\" record",
	    rin_name(r), rin_lineno(r), S.busy.step.p);
	S.bad = 1;
	busy_clear(&S.busy);
}

static void
onend(void)
{
	if (S.busy.have)
		warnmsg("end of input: kernels of step \"%.40s\" have no \"step\" record",
		    S.busy.step.p);
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "step", .rec = steprec }),
		.end = onend,
		.own = FILTER_OWN("segment"),
		.check = SR_CHECK_KERNEL,
		FILTER_SECTIONS(&S.sect, NULL, onprofend, NULL, NULL),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-m maxline] [-r rules] [file ...]");
	int rc;

	filter_getopt(argc, argv, "", &o);
	rc = filter_main(argc, argv, &o, &f);
	return S.busy.have || S.bad ? EX_DATA : rc;
}
