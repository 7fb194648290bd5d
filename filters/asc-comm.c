/*
 * asc-comm: communication diagnosed from its HCCL tasks.  Per profile,
 * each communication op instance (a COMMUNICATION kernel) gets the
 * comm_task records that start inside it, and its elapsed time is split
 * exactly, in ns, into moving data, waiting per peer rank and the rest
 * (asc-comm(1) gives the rule for overlapping tasks).  Writes, at the end
 * of each profile's records: "comm_group" (size and members of each
 * group), "comm_op" (per op instance) and "comm_peer" (per step, group
 * and peer).  Every record passes through.  This file reads the records
 * and drives the modules of filters/asc-comm/ (comm.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "dec.h"
#include "filter.h"
#include "rec.h"
#include "rules.h"
#include "steprec.h"
#include "util.h"

#include "asc-comm/comm.h"

struct comm S;
struct buf ob;
static struct buf tmp;

static char *
strf(const struct rin *r, const char *k)
{
	const struct rfield *f = rin_get(r, k);

	if (f == NULL || rf_str(f, &tmp) != 0)
		return NULL;
	return xstrndup(tmp.p, tmp.len);
}

static int64_t
intf(const struct rin *r, const char *k)
{
	int64_t v;

	return rin_i64(r, k, &v) == 0 ? v : -1;
}

/* A millisecond number of a comm record as exact ns, or -1. */
static int64_t
msf(const struct rin *r, const char *k)
{
	const struct rfield *f = rin_get(r, k);
	int64_t v;

	if (f == NULL || rf_isnull(f) || dec_parse(f->v, f->vlen, 6, &v) != 0)
		return -1;
	return v;
}

/* HCCL task types that move data; Notify_Wait waits; the rest signal. */
static int
taskclass(const char *tt)
{
	if (tt == NULL)
		return C_REST;
	if (strcmp(tt, "Notify_Wait") == 0)
		return C_WAIT;
	if (strstr(tt, "Memcpy") || strstr(tt, "Reduce") || strstr(tt, "RDMA") ||
	    strstr(tt, "Write") || strstr(tt, "Read"))
		return C_MOVE;
	return C_REST;
}

static void
clear(void)
{
	for (size_t i = 0; i < S.nop; i++)
		free(S.op[i].name), free(S.op[i].step);
	for (size_t i = 0; i < S.nt; i++)
		free(S.t[i].op);
	for (size_t i = 0; i < S.ncr; i++)
		free(S.cr[i].name), free(S.cr[i].group), free(S.cr[i].kind);
	for (size_t i = 0; i < S.nlk; i++)
		free(S.lk[i].group);
	for (size_t i = 0; i < S.nsb; i++)
		free(S.sb[i].step);
	S.nsb = 0;
	cleargm();
	free(S.profile);
	free(S.tsrc);
	free(S.groups);
	free(S.nwsrc);
	S.profile = S.tsrc = S.groups = S.nwsrc = NULL;
	S.meta = 0;
	S.nop = S.nt = S.ncr = S.nlk = S.ncu = S.nnw = S.nmv = 0;
	S.maxop = 0;
	S.have = 0;
	S.rank = -1;
}

/* A profile's end: its records written (ops.c, groups.c, pipeline.c),
 * then its gathered state freed. */
static void
endprofile(void)
{
	if (!S.have)
		return;
	putops();
	clear();
}

static int
profilerec(struct rin *r)
{
	const struct rfield *p, *c;

	endprofile();
	if (rin_scan(r) != 0)
		return -1;
	if ((p = rin_get(r, "profile")) == NULL)
		return rin_error(r, "profile record has no \"profile\""), -1;
	S.profile = xstrndup(p->v, p->vlen);
	S.have = 1;
	S.rank = -1;
	if ((c = rin_get(r, "config")) != NULL) {
		jv cfg = jv_parse_sized(c->v, (int)c->vlen);

		if (jv_get_kind(cfg) == JV_KIND_OBJECT) {
			jv rk = jv_object_get(jv_copy(cfg), jv_string("rank"));

			if (jv_get_kind(rk) == JV_KIND_NUMBER)
				S.rank = (int64_t)jv_number_value(rk);
			jv_free(rk);
		}
		jv_free(cfg);
	}
	return 0;
}

static int
taskrec(struct rin *r)
{
	struct task t = { 0 };
	char *tt;
	const char *src;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &t.start) != 0 || rin_i64(r, "end_ns", &t.end) != 0 ||
	    t.end < t.start)
		return rin_error(r, "comm_task has no integer \"start_ns\" <= \"end_ns\""), -1;
	tt = strf(r, "task_type");
	t.cls = taskclass(tt);
	free(tt);
	t.peer = intf(r, "dst_rank");
	t.src = intf(r, "src_rank");
	t.bytes = intf(r, "bytes");
	t.op = strf(r, "op");
	t.oi = -1;
	if (S.tsrc == NULL && (src = (const char *)strf(r, "src")) != NULL) {
		char *s = (char *)src, *at = strrchr(s, '@'), *colon = strstr(s, ":COMMUNICATION_TASK_INFO");

		if (at)
			*at = '\0';
		if (colon)
			colon[strlen(":COMMUNICATION_TASK_INFO")] = '\0';
		S.tsrc = s;
	}
	PUSH(S.t, S.nt, S.ct);
	S.t[S.nt++] = t;
	return 0;
}

/* A device task record of the given type: its interval pushed on the
 * array *v of *n (room for *c); the file of the first kept in S.nwsrc. */
static int
hwrec(struct rin *r, const char *type, struct iv **v, size_t *n, size_t *c)
{
	struct iv x;

	if (rin_scan(r) != 0)
		return -1;
	if (rin_i64(r, "start_ns", &x.s) != 0 || rin_i64(r, "end_ns", &x.e) != 0 || x.e < x.s)
		return rin_error(r, "%s has no integer \"start_ns\" <= \"end_ns\"", type), -1;
	if (S.nwsrc == NULL && (S.nwsrc = strf(r, "src")) != NULL && strrchr(S.nwsrc, '@'))
		*strrchr(S.nwsrc, '@') = '\0';
	PUSH(*v, *n, *c);
	(*v)[(*n)++] = x;
	return 0;
}

static int
nwrec(struct rin *r)
{
	return hwrec(r, "notify_wait", &S.nw, &S.nnw, &S.cnw);
}

/* An "sdma_task" record (asc-ingest, Level0): the device moving data. */
static int
sdmarec(struct rin *r)
{
	return hwrec(r, "sdma_task", &S.mv, &S.nmv, &S.cmv);
}

/* Widen the span of the step named s to hold [a, b). */
static void
stepspan(const char *s, int64_t a, int64_t b)
{
	size_t i;

	for (i = S.nsb; i-- > 0;)
		if (strcmp(S.sb[i].step, s) == 0)
			break;
	if (i == (size_t)-1) {
		PUSH(S.sb, S.nsb, S.csb);
		i = S.nsb++;
		S.sb[i] = (struct stb){ xstrdup(s), a, b };
	}
	if (a < S.sb[i].s)
		S.sb[i].s = a;
	if (b > S.sb[i].e)
		S.sb[i].e = b;
}

static int
kernelrec(struct rin *r)
{
	struct sr_kern k;
	const struct rfield *sid;

	if (sr_kernel(r, &k) != 0)
		return -1;
	sid = k.step_id ? k.step_id : k.step;
	if (sid && rf_str(sid, &tmp) == 0 && k.end >= k.start)
		stepspan(tmp.p, k.start, k.end);
	if (k.task_type && rf_str(k.task_type, &tmp) == 0 &&
	    (strcmp(tmp.p, "COMMUNICATION") == 0 || strcmp(tmp.p, "HCCL") == 0)) {
		struct op o = { 0 };

		o.name = k.name && rf_str(k.name, &tmp) == 0 ? xstrndup(tmp.p, tmp.len) : xstrndup("", 0);
		o.step = sid && rf_str(sid, &tmp) == 0 ? xstrndup(tmp.p, tmp.len) : NULL;
		o.start = k.start;
		o.end = k.end;
		if (o.end - o.start > S.maxop)
			S.maxop = o.end - o.start;
		PUSH(S.op, S.nop, S.cop);
		S.op[S.nop++] = o;
	} else if (k.end > k.start) {
		PUSH(S.cu, S.ncu, S.ccu);
		S.cu[S.ncu++] = (struct iv){ k.start, k.end };
		/* the word embedding's gradient (torch_npu's aclnn kernel):
		 * what the embd all-reduce waits for */
		if (k.name && rf_str(k.name, &tmp) == 0 && strstr(tmp.p, "EmbeddingDenseBackward")) {
			PUSH(S.eg, S.neg, S.ceg);
			S.eg[S.neg++] = (struct iv){ k.start, k.end };
		}
	}
	return 0;
}

static int
commrec(struct rin *r)
{
	struct cop c = { 0 };

	if (rin_scan(r) != 0)
		return -1;
	if ((c.name = strf(r, "op")) == NULL)
		return 0;
	c.group = strf(r, "group");
	c.kind = strf(r, "kind");
	c.elapse = msf(r, "elapse_ms");
	c.wait = msf(r, "wait_ms");
	c.transit = msf(r, "transit_ms");
	PUSH(S.cr, S.ncr, S.ccr);
	S.cr[S.ncr++] = c;
	return 0;
}

static int64_t
rankf(const struct rin *r, const char *k)
{
	int64_t v;
	char *s = strf(r, k);

	if (s == NULL)
		return intf(r, k);
	v = dec_parse(s, strlen(s), 0, &v) == 0 ? v : -1;
	free(s);
	return v;
}

static int
linkrec(struct rin *r)
{
	struct link l;

	if (rin_scan(r) != 0)
		return -1;
	l.group = strf(r, "group");
	l.a = rankf(r, "src_rank");
	l.b = rankf(r, "dst_rank");
	{
		const struct rfield *f = rin_get(r, "size_mb");

		l.mb = f && !rf_isnull(f) ? strtod(f->v, NULL) : 0;
	}
	PUSH(S.lk, S.nlk, S.clk);
	S.lk[S.nlk++] = l;
	return 0;
}

/* The profile's metadata record: its parallel groups. */
static int
metarec(struct rin *r)
{
	const struct rfield *g, *f;

	if (rin_scan(r) != 0)
		return -1;
	g = rin_get(r, "groups");
	f = rin_get(r, "file");
	free(S.groups);
	S.groups = g != NULL && !rf_isnull(g) ? xstrndup(g->v, g->vlen) : NULL;
	S.meta = f != NULL && !rf_isnull(f) ? 2 : 1;
	return 0;
}

/* The records of a profile the stage reads, by type; each passes on after. */
static const struct filter_on reads[] = {
	{ .type = "comm_task", .rec = taskrec },
	{ .type = "notify_wait", .rec = nwrec },
	{ .type = "sdma_task", .rec = sdmarec },
	{ .type = "kernel", .rec = kernelrec },
	{ .type = "comm", .rec = commrec },
	{ .type = "comm_link", .rec = linkrec },
	{ .type = "metadata", .rec = metarec },
	{ .type = NULL }
};

static int
onrec(struct rin *r, const char *t, size_t n, void *arg)
{
	const struct filter_on *on = reads;
	int rc = 0;

	if (sr_is(t, n, "profile"))
		rc = profilerec(r);
	else if (S.have) {	/* records before the first profile pass unread */
		while (on->type != NULL && !sr_is(t, n, on->type))
			on++;
		if (on->type != NULL)
			rc = on->rec(r);
	}
	if (rc == 0)
		sr_pass(r);
	return rc;
}

int
main(int argc, char *argv[])
{
	const struct filter f = {
		.rec = onrec,
		.end = endprofile,
		.bulk = "host",
		.own = FILTER_OWN("comm_group", "comm_op", "comm_peer", "comm_op_wait"),
	};
	struct filter_opts o = FILTER_OPTS("[-k] [-m maxline] [-r rules] [file ...]");

	filter_getopt(argc, argv, "", &o);
	S.rank = -1;
	return filter_main(argc, argv, &o, &f);
}
