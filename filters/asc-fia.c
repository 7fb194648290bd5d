/*
 * asc-fia: reverse-engineer the model architecture from device kernels
 * (phases A1-A7): FusedInferAttentionScore (FIA) timeline, forward-pass
 * boundaries, layer classification, cross-verification, per-layer-type
 * sub-structure, decode and communication pipeline, as "fia_*" records
 * written at the end of each profile's kernels.  This file reads the
 * records and drives the modules of filters/asc-fia/ (fia.h).
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

#include "asc-fia/fia.h"

struct fia G;
int ownonly, training;
struct buf ob, tmp, tb, nmb;

/* Units (device runs) ------------------------------------------------ */

static void
unit_begin(const char *dev, size_t n)
{
	G.unit = 1;
	G.dev.len = 0;
	buf_add(&G.dev, dev, n);
	G.nk = G.ksum = 0;
	G.havek = 0;
	memset(&G.all, 0, sizeof G.all);
	memset(&G.comm, 0, sizeof G.comm);
	memset(&G.comp, 0, sizeof G.comp);
	for (int i = 0; i < G.nst; i++) {
		free(G.st[i].label);
		free(G.st[i].raw);
		free(G.st[i].first);
	}
	G.nst = 0;
	for (int i = 0; i < NENG; i++)
		eng_reset(&G.e[i]);
	G.havepk = 0;
	G.ph = PH_FWD;
	memset(G.nph, 0, sizeof G.nph);
	memset(G.phsum, 0, sizeof G.phsum);
	G.nbwd = G.nopt = G.nruns = 0;
	G.nloss = G.nargm = G.npfa = G.nifa = 0;
	G.nemb[0] = G.nemb[1] = G.embsum = 0;
	G.nlossn = 0;
	memset(G.famn, 0, sizeof G.famn);
	memset(G.famsum, 0, sizeof G.famsum);
	G.ncb = G.nstage = 0;
	G.npk = 0;
	G.pkmore = 0;
	G.stepser = 0;
	G.opt_first = -1;
}

static int
streamidx(const struct rfield *f, int cls, int flags)
{
	const char *label;
	size_t n;

	if (f == NULL) {
		label = cls == C_COMM ? ((flags & F_A2A) ? "comm:alltoall" : "comm:hccl") : "null";
		n = strlen(label);
	} else {
		/* The same raw value is the same stream: no unescaping. */
		for (int i = 0; i < G.nst; i++)
			if (G.st[i].fromf && G.st[i].rlen == f->vlen &&
			    memcmp(G.st[i].raw, f->v, f->vlen) == 0)
				return i;
		tmp.len = 0;
		if (rf_str(f, &tmp) != 0) {
			tmp.len = 0;
			buf_add(&tmp, f->v, f->vlen);
		}
		label = tmp.p;
		n = tmp.len;
	}
	for (int i = 0; i < G.nst; i++)
		if (G.st[i].llen == n && memcmp(G.st[i].label, label, n) == 0)
			return i;
	if (G.nst == MAXSTREAM)
		return MAXSTREAM - 1;
	struct stream *s = &G.st[G.nst];

	memset(s, 0, sizeof *s);
	s->label = xstrndup(label, n);
	s->raw = f ? xstrndup(f->v, f->vlen) : xstrdup("null");
	s->llen = n;
	s->rlen = strlen(s->raw);
	s->fromf = f != NULL;
	/* Compute on the other streams so far (the same set for c and m). */
	s->c = G.comp;
	s->m = G.comp;
	s->first = NULL;
	return G.nst++;
}

static void
unit_end(void)
{
	struct unit u;

	if (!G.unit)
		return;
	head_flush(&G.e[E_FIA], E_FIA);
	head_flush(&G.e[E_ATT], E_ATT);
	classify(&u);
	emit_passes(&u);
	verify(&u);
	emit_layers(&u);
	emit_types(&u);
	emit_streams();
	emit_phases();
	emit_comm();
	emit_summary(&u);
	G.unit = 0;
	G.units++;
}

/* The kernels are complete: write the analysis now. */
static void
analysis_end(void)
{
	if (G.units == 0 && !G.unit)
		unit_begin("null", 4);
	unit_end();
}

/* A profile ends: its counts are compared, then its analysis is written. */
static void
onprofend(struct rin *r, void *arg)
{
	if (!G.sect.active)
		return;
	sr_sect_end(&G.sect, SR_CHECK_KERNEL, stdout);
	analysis_end();
	G.sect.active = 0;
}

/* Records ------------------------------------------------------------ */

static int
classof(const struct rfield *f, int flags)
{
	static struct buf last;		/* the last task type, raw, and its class */
	static int lastcls = -1;

	if (flags & F_COMMN)
		return C_COMM;
	if (f == NULL)
		return C_COMPUTE;
	if (lastcls >= 0 && last.len == f->vlen && memcmp(last.p, f->v, f->vlen) == 0)
		return lastcls;
	last.len = 0;
	buf_add(&last, f->v, f->vlen);
	if (rf_str(f, &tmp) != 0)
		lastcls = C_COMPUTE;
	else if (rules_match("ops.comm_task_types", tmp.p))
		lastcls = C_COMM;
	else if (rules_match("ops.aicpu_task_types", tmp.p))
		lastcls = C_AICPU;
	else
		lastcls = C_COMPUTE;
	return lastcls;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	struct lk x;
	int o, fl, fam, ph, newstep, group = -1, src = RS_NAME;
	int64_t gap, pe, pce;

	if (sr_sect_need(&G.sect, r, "kernel") != 0 || sr_kernel(r, &k) != 0)
		return -1;
	/* before the order: a kernel rejected (-k) does not move it */
	if (sr_kernel_name(r, &k, &nmb) != 0)
		return -1;
	if ((o = sr_sect_kernel(&G.sect, r, &k)) < 0)
		return -1;
	{
		const struct rawname *kn = kname(nmb.p, nmb.len);

		x.name = kn->norm;
		x.flags = kn->flags;
		x.role = kn->role;
		fam = kn->fam;
	}
	if (o == 1 && (G.nk > 0 || !G.unit || G.dev.len != G.sect.ord.dev.len ||
	    memcmp(G.dev.p, G.sect.ord.dev.p, G.dev.len) != 0)) {
		unit_end();
		unit_begin(G.sect.ord.dev.p, G.sect.ord.dev.len);
	}
	fl = x.flags;
	x.cls = classof(k.task_type, fl);
	x.stream = streamidx(k.stream, x.cls, fl);
	if (x.role < 0)
		x.role = k.dur < small_ns ? rsmall : rother;
	x.s = k.start;
	x.e = k.end;
	newstep = G.havepk && !samestep(&G.pkstep, G.pkstepk, k.step);
	G.stepser += newstep;
	/* The phase: gradients start backward, optimizer kernels the update. */
	ph = G.ph;
	if (fl & F_BWD) {
		ph = PH_BWD;
		G.nbwd++;
	} else if (fl & F_OPT) {
		ph = PH_OPT;
		G.nopt++;
	} else if (ph != PH_FWD && ((fl & (F_FIA | F_ANCH)) || (ph == PH_OPT && newstep)))
		ph = PH_FWD;
	x.ph = ph;
	if (fl & F_EMB) {
		G.nemb[!!(fl & F_BWD)]++;
		G.embsum += k.dur;
	}
	G.npfa += !!(fl & F_PFA);
	G.nifa += !!(fl & F_IFA);
	if (!(fl & F_BWD) && (fl & (F_LOSS | F_SAMP))) {
		G.nloss += !!(fl & F_LOSS);
		G.nargm += !(fl & F_LOSS);
		lossname(x.name, !(fl & F_LOSS));
	}
	if (x.cls == C_COMM) {
		x.role = commrole(nmb.p, nmb.len, fl, x.role, ph, &group, &src);
		comm_tally(&x, group, src, ph, k.dur);
	}
	pe = G.lastrun.e, pce = G.lastrun.ce;
	phase_kernel(ph, &x, fam, k.dur);
	if (ph == PH_BWD && G.lastrun.a.n == 1 && G.seed.on)
		phase_seed();
	G.seed.on = ph == PH_FWD && (fl & F_SEED) && x.cls != C_COMM;
	if (G.seed.on)
		G.seed.fam = fam, G.seed.dur = k.dur, G.seed.x = x, G.seed.pe = pe, G.seed.pce = pce;
	gap = G.havek ? k.start - G.maxend : -1;
	if (!G.havek) {
		G.havek = 1;
		G.first = k.start;
		G.last = G.maxend = k.end;
	}
	if (k.end > G.last)
		G.last = k.end;
	G.nk++;
	G.ksum += k.dur;

	/* Unions: all, comm, compute; per stream own / compute elsewhere / both. */
	acc_add(&G.all, k.start, k.end);
	if (x.cls == C_COMM)
		acc_add(&G.comm, k.start, k.end);
	else
		acc_add(&G.comp, k.start, k.end);
	for (int i = 0; i < G.nst; i++) {
		struct stream *s = &G.st[i];

		if (i == x.stream) {
			acc_add(&s->u, k.start, k.end);
			acc_add(&s->m, k.start, k.end);
		} else if (x.cls != C_COMM) {
			acc_add(&s->c, k.start, k.end);
			acc_add(&s->m, k.start, k.end);
		}
	}
	struct stream *s = &G.st[x.stream];

	s->n++;
	s->sum += k.dur;
	s->ncl[x.cls]++;
	s->clsum[x.cls] += k.dur;
	if (s->first == NULL)
		s->first = xstrndup(nmb.p, nmb.len);

	head_kernel(&G.e[E_FIA], E_FIA, &x, fl & F_FIA, k.dur, k.step, gap);
	head_kernel(&G.e[E_ATT], E_ATT, &x, fl & F_ANCH, k.dur, k.step, gap);
	/* Kept for the period search, when there is no attention anchor. */
	if (G.npk < maxpk) {
		G.pk = xgrow(G.pk, G.npk, &G.cappk, 1024, sizeof *G.pk);
		G.pk[G.npk++] = (struct pk){ x, k.dur, gap, k.step ? G.stepser : -1, fam, ph };
	} else
		G.pkmore++;
	G.havepk = 1;
	keepstep(&G.pkstep, &G.pkstepk, k.step);
	if (k.end > G.maxend)
		G.maxend = k.end;
	if (!ownonly)
		sr_pass(r);
	return 0;
}

static int
opstatrec(struct rin *r)
{
	int64_t n;
	int fl;

	if (G.sect.active && G.sect.sec == SR_BEFORE && rin_scan(r) == 0 &&
	    rin_str(r, "op_type", &tmp) == 0 && rin_i64(r, "count", &n) == 0) {
		fl = kname(tmp.p, tmp.len)->flags;
		G.opn++;
		G.opcnt[0] += (fl & F_FIA) ? n : 0;
		G.opcnt[1] += (fl & F_DFC) ? n : 0;
		G.opcnt[2] += (fl & F_GMM) ? n : 0;
		G.opcnt[3] += (fl & F_GATE) ? n : 0;
		G.opcnt[4] += (fl & F_A2A) ? n : 0;
		G.opcnt[5] += (fl & F_SAMP) ? n : 0;
	}
	if (!ownonly)
		sr_pass(r);
	return 0;
}

static int
onprofile(struct rin *r, void *arg)
{
	const struct rfield *f;

	G.units = 0;
	G.unit = 0;
	G.opn = 0;
	memset(G.opcnt, 0, sizeof G.opcnt);
	G.haveorigin = 0;
	if (opg)
		memset(opg, 0, capopg * sizeof *opg);
	nopg = 0;
	ncg = cgdone = ncr = 0;
	tmp.len = 0;
	readmeta(NULL, 0);	/* until its metadata record */
	if ((f = rin_get(r, "origin_us")) != NULL && rf_str(f, &tmp) == 0 &&
	    dec_us2ns(tmp.p, tmp.len, &G.origin) == 0)
		G.haveorigin = 1;
	return 0;
}

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	const struct rfield *f;

	if (sr_is(t, n, "comm") && G.sect.active && G.sect.sec == SR_BEFORE)
		commrec(r);
	if (sr_is(t, n, "comm_link") && G.sect.active && G.sect.sec == SR_BEFORE)
		linkrec(r);
	if (sr_is(t, n, "metadata") && G.sect.active && G.sect.sec == SR_BEFORE) {
		if (rin_scan(r) != 0)
			return -1;
		f = rin_get(r, "groups");
		readmeta(f ? f->v : NULL, f ? f->vlen : 0);
	}
	if (!ownonly || sr_is(t, n, "profile"))
		sr_pass(r);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct filter f = {
		.rec = onrec,
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec },
		    { .type = "op_stat", .rec = opstatrec }),
		.own = FILTER_OWN("fia_*"),
		FILTER_SECTIONS(&G.sect, NULL, onprofend, onprofile, analysis_end),
	};
	struct filter_opts o = FILTER_OPTS("[-kn] [-m maxline] [-r rules] [file ...]",
	    .flags = FILTER_FLAGS({ .letter = 'n', .to = &ownonly }));

	filter_getopt(argc, argv, "n", &o);
	f.bulk_drop = ownonly;	/* -n: the host events are dropped unread */
	rules_load(o.rules);
	opkey_init();
	loadroles();
	return filter_main(argc, argv, &o, &f);
}
