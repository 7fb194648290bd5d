/*
 * asc-ops: the op level of a profile.  Per op (kernel name without its
 * instance suffix; also per "op_type" and per name + shapes) the call
 * count, duration, wait and total cost, the two rankings, wait anchors,
 * wait pollution by communication, AI CPU masking, the PMU bound class;
 * per step the small-op judgement ("op_step"); per profile the "op"
 * records and one "op_summary".
 *
 * This file reads the records and the rules and drives the modules of
 * filters/asc-ops/ (ops.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dec.h"
#include "filter.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "asc-ops/ops.h"

struct opsprof S;
int64_t minbubble, smallns, anchordur;
double anchorratio, polshare, maskedr, exposedr;
int anchorrank, runmin, topn = 10;
double rungap;
struct buf ob, tmp;
const char *mpath;
struct pmu_join mjoin;
int kflag, mrc = EX_OK;
size_t mmaxline;

/* A profile ends: its ops are written. */
static void
onprofend(struct rin *r, void *arg)
{
	profile_out();
}

static int
onprofile(struct rin *r, void *arg)
{
	size_t len;
	const char *line = rin_line(r, &len);

	profile_reset();
	S.pmustatus = pmu_profile(line, len, mpath != NULL, &S.metrics);
	return 0;
}

/* A communication op of the profile: its span, for commoverlap(). */
static int
commrec(struct rin *r)
{
	int64_t s, e;
	const struct rfield *f;

	if (!S.sect.active) {
		sr_pass(r);
		return 0;
	}
	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &s) == 0 && (f = rin_get(r, "elapse_ms")) != NULL &&
	    !rf_isnull(f) && dec_parse(f->v, f->vlen, 6, &e) == 0 && e > 0) {
		S.cw = xgrow(S.cw, S.ncw, &S.capcw, 64, sizeof *S.cw);
		S.cw[S.ncw].s = s;
		S.cw[S.ncw++].e = s + e;
		S.cwsorted = 0;
	}
	sr_pass(r);
	return 0;
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "step", .rec = steprec }, { .type = "comm", .rec = commrec }),
		.own = FILTER_OWN("op", "op_summary", "op_step"),
		.check = SR_CHECK_KERNEL,
		FILTER_SECTIONS(&S.sect, &S.prof, onprofend, onprofile, profile_out),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-M pmufile] [-m maxline] [-n top] [-r rules] [file ...]",
	    .args = FILTER_ARGS({ .letter = 'M', .to = &mpath }));
	int c, rc;

	while ((c = filter_getopt(argc, argv, "M:n:", &o)) != -1)
		if (c == 'n')
			topn = (int)xnum(optarg, 1, 1000000, "top");
	kflag = o.kflag;
	rules_load(o.rules);
	opkey_init();
	pmu_init();
	minbubble = rules_ns("bubbles.min_bubble_us", 1e3);
	smallns = (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5);
	anchordur = (int64_t)(rules_num("ops.wait_anchor_max_dur_us") * 1000 + 0.5);
	anchorratio = rules_num("ops.wait_anchor_wait_ratio");
	anchorrank = (int)rules_num("ops.wait_anchor_max_rank");
	polshare = rules_num("ops.wait_pollution_overlap");
	maskedr = rules_num("ops.aicpu_masked");
	exposedr = rules_num("ops.aicpu_exposed");
	runmin = (int)rules_num("ops.small_run_min_kernels");
	rungap = rules_num("ops.small_run_gap_ratio");
	S.hnames = S.hshapes = FNV_INIT;
	mmaxline = o.maxline;
	rc = filter_main(argc, argv, &o, &f);
	return rc == EX_OK ? mrc : rc;
}
