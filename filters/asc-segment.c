/*
 * asc-segment: where the time of a step goes.  Each step's kernels are
 * cut into structures (annotated boundaries, else the repeating period of
 * the main stream's kernel-name sequence, else large device-idle gaps),
 * each structure into block (the main compute chain) and side, with the
 * four clocks; "structure" and "step_structure" records after each step
 * record, a "structure_drilldown" for the dominant step per profile.
 * This file reads the records and holds a step's kernels; the cut, the
 * measures and the records are filters/asc-segment/'s (segment.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dec.h"
#include "filter.h"
#include "intern.h"
#include "opkey.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "asc-segment/segment.h"

const char *const kindname[] = { "repeat", "irregular", "annotation", "large_gap", "whole_step" };
struct seg S;

const char *annot;
int minperiod, minrepeat, ncand, topk;
int64_t largegap, smallns, minbubble;
struct buf ob, tmp, line;

static void
step_reset(void)
{
	S.nk = 0;
	S.arena.len = 0;
	S.stepid.len = 0;
	S.haveid = 0;
	S.streams.len = S.tts.len = 0;
	S.nstreams = S.ntts = 0;
	intern_clear(&S.keys);
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	struct sk *p;
	int o;

	if ((o = sr_sect_kernel_rec(&S.sect, r, &k)) < 0 || sr_kernel_name(r, &k, &tmp) != 0)
		return -1;
	/* Kernels of no step (before the first window) are not kept. */
	if (S.nk > 0 && (o == 1 || k.step_id == NULL || k.step_id->vlen != S.stepid.len ||
	    memcmp(k.step_id->v, S.stepid.p, S.stepid.len) != 0))
		step_reset();
	if (S.nk == 0) {
		S.stepid.len = 0;
		sr_raw(&S.stepid, k.step_id);
		S.haveid = k.step_id != NULL && !rf_isnull(k.step_id);
	}
	S.k = xgrow(S.k, S.nk, &S.capk, 1024, sizeof *S.k);
	p = &S.k[S.nk];
	memset(p, 0, sizeof *p);
	p->s = k.start;
	p->e = k.end;
	p->dur = k.dur;
	p->wait = k.haswait ? k.wait : 0;
	p->name = S.arena.len;
	p->namelen = tmp.len;
	buf_add(&S.arena, tmp.p, tmp.len);
	buf_addc(&S.arena, '\0');
	p->key = S.arena.len;
	opkey(tmp.p, tmp.len, &S.arena);
	p->keylen = S.arena.len - p->key;
	buf_addc(&S.arena, '\0');
	p->src = S.arena.len;
	sr_raw(&S.arena, k.src);
	buf_addc(&S.arena, '\0');
	p->stream = intern_line(&S.streams, &S.nstreams, k.stream ? k.stream->v : "null",
	    k.stream ? k.stream->vlen : 4);
	p->tt = intern_line(&S.tts, &S.ntts, k.task_type ? k.task_type->v : "null",
	    k.task_type ? k.task_type->vlen : 4);
	tmp.len = 0;
	if (k.task_type == NULL || rf_str(k.task_type, &tmp) != 0)
		tmp.len = 0;
	p->cls = (unsigned char)tt_class(tmp.len ? tmp.p : NULL);
	/* the key's id, for the period search */
	p->id = (int)intern_add(&S.keys, ap(p->key), p->keylen);
	S.nk++;
	sr_pass(r);
	return 0;
}

/* Read and check the step record; tmp gets its id as text. */
static int
step_read(struct rin *r, struct stepx *x)
{
	if (sr_sect_need(&S.sect, r, "step") != 0)
		return -1;
	if (rin_scan(r) != 0)
		return -1;
	x->sid = rin_get(r, "step_id");
	x->gid = rin_get(r, "group_id");
	x->dev = rin_get(r, "device");
	if (rin_i64(r, "start_ns", &x->ws) != 0 || rin_i64(r, "end_ns", &x->we) != 0 ||
	    x->we < x->ws) {
		rin_error(r, "step has no integer \"start_ns\" <= \"end_ns\"");
		return -1;
	}
	if (x->sid == NULL || rf_str(x->sid, &tmp) != 0) {
		rin_error(r, "step has no string \"step_id\"");
		return -1;
	}
	if (S.nk > 0 && (x->sid->vlen != S.stepid.len ||
	    memcmp(x->sid->v, S.stepid.p, x->sid->vlen) != 0)) {
		rin_error(r, "step \"%.40s\" closes kernels of another step", tmp.p);
		step_reset();
		return -1;
	}
	x->measurable = 1;
	rf_bool(rin_get(r, "measurable_edges"), &x->measurable);
	x->service = x->we - x->ws;
	x->n = S.nk;
	return 0;
}

/* The step record closes the buffered kernels: detect, measure, emit. */
static int
steprec(struct rin *r)
{
	struct stepx x;

	memset(&x, 0, sizeof x);
	if (step_read(r, &x) != 0)
		return -1;
	sr_pass(r);
	step_clip(&x);
	step_structures(&x);
	step_measure(&x);
	emit_structures(&x);
	emit_step_structure(&x);
	free(x.bubs);
	free(x.sv);
	step_reset();
	return 0;
}

/* ---------------------------------------------------------------- profile */

static void
profile_end(void)
{
	drilldown();
	sr_sect_end(&S.sect, SR_CHECK_KERNEL, stdout);
	for (size_t i = 0; i < S.ng; i++) {
		free(S.g[i].id);
		free(S.g[i].line);
	}
	S.ng = 0;
	S.ntypes = 0;
	S.domgroup.len = 0;
	S.sect.active = 0;
}

/* A profile ends: its structures are written. */
static void
onprofend(struct rin *r, void *arg)
{
	profile_end();
}

static int
onprofile(struct rin *r, void *arg)
{
	S.drilled = 0;
	step_reset();
	return 0;
}

/* asc-steps' groups: the drilldown follows the dominant group. */
static int
groupsrec(struct rin *r)
{
	const struct rfield *f;

	if (S.sect.active) {
		if (rin_scan(r) != 0)
			return -1;
		S.domgroup.len = 0;
		if ((f = rin_get(r, "dominant_group_id")) != NULL && !rf_isnull(f))
			rf_str(f, &S.domgroup);
	}
	sr_pass(r);
	if (S.sect.active)
		drilldown();
	return 0;
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "step", .rec = steprec }, { .type = "step_groups", .rec = groupsrec }),
		.own = FILTER_OWN("structure", "step_structure", "structure_drilldown"),
		FILTER_SECTIONS(&S.sect, &S.prof, onprofend, onprofile, drilldown),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-a pattern] [-m maxline] [-r rules] [file ...]",
	    .args = FILTER_ARGS({ .letter = 'a', .to = &annot }));

	filter_getopt(argc, argv, "a:", &o);
	rules_load(o.rules);
	opkey_init();
	minperiod = (int)rules_num("segment.min_period");
	if (minperiod < 1)
		minperiod = 1;
	minrepeat = (int)rules_num("segment.min_repeat_kernels");
	ncand = (int)rules_num("segment.period_candidates");
	if (ncand < 1)
		ncand = 1;
	topk = (int)rules_num("segment.top_kernels");
	if (topk < 1)
		topk = 1;
	largegap = (int64_t)(rules_num("segment.large_gap_us") * 1000 + 0.5);
	smallns = (int64_t)(rules_num("ops.small_op_us") * 1000 + 0.5);
	minbubble = rules_ns("bubbles.min_bubble_us", 1e3);
	return filter_main(argc, argv, &o, &f);
}
