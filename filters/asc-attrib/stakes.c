/*
 * asc-attrib: the stakes: at a profile's end, each window's figures
 * summed per step and per profile, the serialisation points and the
 * dispatch ops, written as "attribution_step" and "attribution_summary"
 * records; then the profile's state reset.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "util.h"

#include "attrib.h"

static void
reset(void)
{
	for (size_t i = 0; i < P.nw; i++) {
		struct wst *st = P.w[i].st;

		if (st) {
			free(st->th);
			free(st->tsync);
			free(st->tcomm);
			for (int f = 0; f <= MAXFAM; f++)
				free(st->fb[f]);
			free(st);
		}
	}
	P.nw = P.nst = P.nopen = P.nact = 0;
	for (size_t i = 0; i < P.nct; i++) {
		free(P.ct[i].v);
		P.ct[i].v = NULL;
		P.ct[i].n = P.ct[i].cap = 0;
	}
	P.nct = P.lastct = 0;
	P.nsw = P.nmk = P.nsr = P.ncx = P.ndt = 0;
	if (P.capops)
		memset(P.opns, 0, P.capops * sizeof *P.opns);
	P.nhost = P.nleaf = 0;
	P.ncomp = P.compns = P.complong = P.ncompiles = P.ndequeue = 0;
	P.ncp = 0;
	P.cpsorted = 0;
	rootsreset();
	P.qhead = P.qtail = 0;
	for (size_t i = 0; i < P.nth; i++)
		free(P.th[i].open);
	P.nth = P.lastth = 0;
	P.sorted = 0;
	P.last.name = NOID;
	P.arena.len = 0;
}

/* Serialisation candidates by step, the longest block first. */
static size_t *srord;
static size_t srcur;

static int
bystepblock(const void *a, const void *b)
{
	const struct serial *x = &P.sr[*(const size_t *)a], *y = &P.sr[*(const size_t *)b];

	if (x->step != y->step)
		return x->step < y->step ? -1 : 1;
	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

/*
 * A candidate is a serialisation point when the device was busy for at
 * least half of it: the host waited on work it had queued, and could
 * queue nothing more meanwhile.  A sync that lies in idle windows is a
 * bubble cause instead, counted in the windows.
 */
static void
serialprep(void)
{
	size_t k = 0;

	srord = xreallocarray(srord, P.nsr + 1, sizeof *srord);
	for (size_t i = 0; i < P.nsr; i++) {
		struct serial *c = &P.sr[i];
		size_t j = spanfrom(P.sw, P.nsw, c->s + 1);

		if (j == 0 || c->s >= P.sw[j - 1].e)
			continue;
		c->step = P.sw[j - 1].step;
		if (!c->point)
			continue;
		srord[k++] = i;
	}
	sortv(srord, k, sizeof *srord, bystepblock);
	srord[k] = SIZE_MAX;
	srcur = 0;
}

/*
 * Task-queue time in [s, e): the queue's thread dequeues one op at a
 * time, so its Dequeue@ events do not overlap and their clipped lengths
 * add up.
 */
static int64_t
dequeueov(int64_t s, int64_t e)
{
	int64_t t = 0;

	for (int64_t i = 0; i < P.ndequeue; i++) {
		int64_t a = P.dq[i].s > s ? P.dq[i].s : s;
		int64_t b = P.dq[i].e < e ? P.dq[i].e : e;

		if (b > a)
			t += b - a;
	}
	return t;
}

static void
pointout(const struct serial *c, int withstep)
{
	buf_adds(&ob, "{\"family\":");
	out_esc(&ob, famname[c->fam], strlen(famname[c->fam]));
	if (withstep)
		out_raw(&ob, "step_id", P.arena.p + P.st[c->step].sid, P.st[c->step].sidn);
	out_i64(&ob, "start_ns", c->s);
	out_i64(&ob, "end_ns", c->e);
	out_i64(&ob, "offset_ns", c->s - P.st[c->step].s0);
	out_i64(&ob, "dur_ns", c->e - c->s);
	out_i64(&ob, "blocked_ns", c->blocked);
	/* Before the blocking call: the host waits for the task queue. */
	out_i64(&ob, "blocked_offset_ns", c->bs - P.st[c->step].s0);
	out_i64(&ob, "before_block_dequeue_ns", dequeueov(c->s, c->bs));
	out_i64(&ob, "device_idle_ns", idleov(c->s, c->e));
	out_key(&ob, "chain");
	chainout(&c->ch);
	out_key(&ob, "frame");
	putistr(c->frame);
	out_key(&ob, "python_frames");
	chainout(&c->fch);
	buf_addc(&ob, '}');
}

static int
byblock(const void *a, const void *b)
{
	const struct serial *x = &P.sr[*(const size_t *)a], *y = &P.sr[*(const size_t *)b];

	if (x->blocked != y->blocked)
		return x->blocked > y->blocked ? -1 : 1;
	return (x->s > y->s) - (x->s < y->s);
}

/* The profile's longest serialisation points, at most 10. */
static void
serialtop(void)
{
	size_t n = 0, *v = xreallocarray(NULL, P.nsr + 1, sizeof *v);

	for (size_t i = 0; srord[i] != SIZE_MAX; i++)
		if (P.st[P.sr[srord[i]].step].real)
			v[n++] = srord[i];
	sortv(v, n, sizeof *v, byblock);
	out_key(&ob, "serialisation_points");
	buf_addc(&ob, '[');
	for (size_t i = 0; i < n && i < 10; i++) {
		if (i)
			buf_addc(&ob, ',');
		pointout(&P.sr[v[i]], 1);
	}
	buf_addc(&ob, ']');
	free(v);
}

static void
serialout(uint32_t step)
{
	int n = 0;

	out_key(&ob, "serialisation_points");
	buf_addc(&ob, '[');
	for (; srord[srcur] != SIZE_MAX && P.sr[srord[srcur]].step <= step; srcur++) {
		const struct serial *c = &P.sr[srord[srcur]];

		if (c->step < step || n == EVN)
			continue;
		if (n++)
			buf_addc(&ob, ',');
		pointout(c, 0);
	}
	buf_addc(&ob, ']');
}

static void
stepout(const struct step *s, uint32_t idx)
{
	out_begin(&ob, "attribution_step");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_raw(&ob, "device", P.arena.p + s->dev, s->devn);
	out_raw(&ob, "step_id", P.arena.p + s->sid, s->sidn);
	out_raw(&ob, "group_id", P.arena.p + s->gid, s->gidn);
	out_nsms(&ob, "significant_bubble", s->sig);
	out_nsms(&ob, "partial_boundary", s->partial);
	out_nsms(&ob, "comm_sync", s->commsync);
	share("comm_sync_share", s->commsync, s->sig);
	coverage(s->covered, s->self, s->selfname, s->untraced, s->wait, s->sig, P.nhost > 0);
	causes("host_causes", s->cause, P.nhost > 0);
	serialout(idx);
	out_key(&ob, "tags");
	buf_adds(&ob, s->sig > 0 && atleast(s->commsync, s->sig, shareppm) ?
	    "[\"COMM_SYNC_RISK\"]" : "[]");
	rec_put(&ob, stdout);
}

/* The ops whose dispatch filled the significant windows, most time first. */
static void
dispatchout(void)
{
	uint32_t top[10];
	int n = 0;

	for (uint32_t id = 0; id < I.n && id < P.capops; id++) {
		int j;

		if (P.opns[id] <= 0)
			continue;
		if (n < 10)
			n++;
		else if (P.opns[id] <= P.opns[top[9]])
			continue;
		for (j = n - 1; j > 0 && P.opns[top[j - 1]] < P.opns[id]; j--)
			top[j] = top[j - 1];
		top[j] = id;
	}
	out_key(&ob, "dispatch_ops");
	buf_addc(&ob, '[');
	for (int i = 0; i < n; i++) {
		if (i)
			buf_addc(&ob, ',');
		buf_adds(&ob, "{\"name\":");
		putistr(top[i]);
		out_i64(&ob, "ns", P.opns[top[i]]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, ']');
}

void
profile_end(void)
{
	int64_t lw[NLABEL] = { 0 }, lsw[NLABEL] = { 0 }, lns[NLABEL] = { 0 };
	int64_t sig = 0, partial = 0, commsync = 0, covered = 0, untraced = 0, wait = 0;
	int64_t self = 0, selfmax = 0;
	uint32_t selfname = NOID;
	int64_t nsig = 0, nrisk = 0, nsteps = 0, cause[MAXFAM + 1] = { 0 };
	int hosts;
	struct lab lb;
	struct fig f;
	struct gap lg = { 0, 0, NOID, NOID };
	const struct win *lgw = NULL;

	if (!P.sect.active)
		return;
	hosts = P.nhost > 0;
	drain(INT64_MAX);
	sortwins();
	dtprep();
	openupto(0, 1);
	for (size_t i = 0; i < P.nw; i++) {
		const struct win *w = &P.w[i];
		int cs = 0;

		figures(w, &f);
		labels(w, &f, hosts, &lb);
		attribution(w, &f, hosts, &lb);
		nsig += w->sig;
		for (int j = 0; j < lb.n; j++) {
			lw[lb.l[j]]++;
			lsw[lb.l[j]] += w->sig;
			if (w->sig && w->scope != S_GLOBAL)
				lns[lb.l[j]] += f.len;
			cs |= lb.l[j] == L_SYNC || lb.l[j] == L_COMM;
		}
		if (!w->sig || w->scope == S_GLOBAL)
			continue;
		struct step *s = &P.st[w->step];

		s->sig += f.len;
		if (w->partial && !f.covered) {
			s->partial += f.len;
			continue;
		}
		for (int j = 0; j <= nfam; j++)
			s->cause[j] += f.cause[j];
		if (cs)
			s->commsync += f.len;
		if (hosts) {
			struct gap g = wingap(w);

			s->covered += f.anyd;
			s->self += f.self;
			if (f.self > s->selfmax) {
				s->selfmax = f.self;
				s->selfname = w->st->cxname;
			}
			s->untraced += f.len - f.anyd - f.self;
			s->wait += f.wait;
			if (s->real && f.len > f.anyd && (lgw == NULL || g.e - g.s > lg.e - lg.s)) {
				lg = g;
				lgw = w;
			}
		}
	}
	serialprep();
	for (size_t i = 0; i < P.nst; i++) {
		const struct step *s = &P.st[i];

		if (!s->real)
			continue;
		stepout(s, (uint32_t)i);
		nsteps++;
		sig += s->sig;
		partial += s->partial;
		commsync += s->commsync;
		covered += s->covered;
		self += s->self;
		if (s->selfmax > selfmax) {
			selfmax = s->selfmax;
			selfname = s->selfname;
		}
		untraced += s->untraced;
		wait += s->wait;
		for (int j = 0; j <= nfam; j++)
			cause[j] += s->cause[j];
		nrisk += s->sig > 0 && atleast(s->commsync, s->sig, shareppm);
	}
	out_begin(&ob, "attribution_summary");
	out_raw(&ob, "profile", P.prof.p, P.prof.len);
	out_bool(&ob, "host_evidence", hosts);
	out_i64(&ob, "host_events", P.nhost);
	out_i64(&ob, "leaf_host_events", P.nleaf);
	out_i64(&ob, "windows", (int64_t)P.nw);
	out_i64(&ob, "significant_windows", nsig);
	out_key(&ob, "labels");
	buf_addc(&ob, '{');
	for (int j = 0; j < NLABEL; j++) {
		if (j)
			buf_addc(&ob, ',');
		out_esc(&ob, lname[j], strlen(lname[j]));
		buf_adds(&ob, ":{\"windows\":");
		out_int(&ob, lw[j]);
		out_i64(&ob, "significant_windows", lsw[j]);
		out_nsms(&ob, "significant_bubble", lns[j]);
		buf_addc(&ob, '}');
	}
	buf_addc(&ob, '}');
	out_nsms(&ob, "significant_bubble", sig);
	out_nsms(&ob, "partial_boundary", partial);
	out_nsms(&ob, "comm_sync", commsync);
	share("comm_sync_share", commsync, sig);
	coverage(covered, self, selfname, untraced, wait, sig, hosts);
	gapout(&lg, lgw);
	causes("host_causes", cause, hosts);
	dispatchout();
	out_key(&ob, "op_compile_events");
	buf_adds(&ob, "{\"calls\":");
	out_int(&ob, P.ncomp);
	out_i64(&ob, "ns", P.compns);
	out_i64(&ob, "longest_ns", P.complong);
	out_i64(&ob, "compiles", P.ncompiles);
	buf_addc(&ob, '}');
	out_i64(&ob, "dequeue_events", P.ndequeue);
	serialtop();
	out_i64(&ob, "steps", nsteps);
	out_i64(&ob, "comm_sync_risk_steps", nrisk);
	rec_put(&ob, stdout);
	reset();
	sr_sect_end(&P.sect, SR_CHECK_HOST, stdout);
	P.sect.active = 0;
}
