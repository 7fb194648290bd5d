/* dbread: host records (PYTORCH_API, CANN_API, PYTORCH_CALLCHAINS,
 * CONNECTION_IDS); depth and leaf by nest.c, as from the text */
#define _GNU_SOURCE		/* fwrite_unlocked */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "dbread_int.h"
#include "nest.h"
#include "pidtab.h"
#include "rec_out.h"

/* ---------- host events: depth and leaf by nest.c, as from the text ---------- */

struct hpend {
	struct buf	 text;		/* the record, less its leaf value ... */
	size_t		 at;		/* ... that goes here (SIZE_MAX: in it) */
	int64_t		 start, dur;
	int		 ti, depth, leaf, resolved, mark;
};

struct hthr {
	int64_t		 pid, tid;
	struct nest_thr	 nt;
};

struct hstate {
	struct hpend	*q;
	uint64_t	 head, tail, cap;
	struct hthr	*th;
	size_t		 nth;
	struct pidtab	 ht;		/* th by (pid, tid) */
};

static struct pidkey
thkey(const void *arg, size_t i)
{
	const struct hstate *h = arg;

	return (struct pidkey){ h->th[i].pid, h->th[i].tid };
}

static int
getthr(struct hstate *h, int64_t pid, int64_t tid)
{
	int i = pidtab_find(&h->ht, pid, tid, thkey, h);

	if (i >= 0)
		return i;
	h->th = xreallocarray(h->th, h->nth + 1, sizeof *h->th);
	memset(&h->th[h->nth], 0, sizeof h->th[0]);
	h->th[h->nth].pid = pid;
	h->th[h->nth].tid = tid;
	h->nth++;
	pidtab_index(&h->ht, h->nth - 1, h->nth, thkey, h);
	return (int)h->nth - 1;
}

static void
put_pend(FILE *fp, struct buf *ob, struct hpend *e)
{
	ob->len = 0;
	if (e->at == SIZE_MAX)
		buf_add(ob, e->text.p, e->text.len);
	else {
		buf_add(ob, e->text.p, e->at);
		buf_adds(ob, e->leaf ? "true" : "false");
		buf_add(ob, e->text.p + e->at, e->text.len - e->at);
	}
	if (fwrite_unlocked(ob->p, 1, ob->len, fp) != ob->len)
		dieerr("stdout");
}

/* nest's verdict: queued event id is context. */
static void
hctx(void *arg, uint64_t id)
{
	struct hstate *h = arg;
	struct hpend *e = &h->q[id & (h->cap - 1)];

	if (id >= h->head && id < h->tail && !e->resolved) {
		e->leaf = 0;
		e->resolved = 1;
	}
}

/* Write what is resolved, or can no longer get a child, before now. */
static void
flushq(struct hstate *h, FILE *fp, struct buf *ob, int64_t now)
{
	while (h->head < h->tail) {
		struct hpend *e = &h->q[h->head & (h->cap - 1)];

		if (!e->resolved) {
			if (e->start + e->dur > now)
				break;
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		put_pend(fp, ob, e);
		h->head++;
	}
}

/* Host statement columns. */
enum { H_S, H_E, H_SRC, H_ROWID, H_GTID, H_NAME, H_TYPE, H_STACK, H_FRAME, H_KNS };

static const char *
cannprefix(int64_t type)
{
	switch (type) {
	case 20000: return "AscendCL";
	case 15000: return "Model";
	case 10000: return "Node";
	case 5500: return "Hccl";
	case 5000: return "Runtime";
	}
	return NULL;
}

/* The PYTORCH_API part of the host query: its frames and launched kernels. */
static void
hostq_py(struct dbread *d, struct buf *b, int links)
{
	int chain = d->c.has_stacks;
	int conn = d->has[T_CONN] && dbi_hascol(d, T_PY, "connectionId") && links;

	buf_adds(b, "SELECT ");
	dbi_txspan(b, "p", " AS s, ");
	buf_adds(b, " AS e, 0 AS src, p.rowid AS rid, p.globalTid, p.name");
	buf_adds(b, dbi_hascol(d, T_PY, "type") ? ", p.type" : ", NULL");
	buf_adds(b, chain ? ", p.callchainId IS NOT NULL, f.fstack" : ", 0, NULL");
	buf_adds(b, conn ? ", k.kns" : ", NULL");
	buf_adds(b, " FROM PYTORCH_API p");
	if (chain)
		buf_adds(b, " LEFT JOIN (SELECT c.id AS fid, c.stack AS fstack, min(c.stackDepth) "
		    "FROM PYTORCH_CALLCHAINS c JOIN STRING_IDS s ON s.id = c.stack "
		    "WHERE asc_userframe(s.value) GROUP BY c.id) f ON f.fid = p.callchainId");
	if (conn) {
		buf_adds(b, " LEFT JOIN (SELECT ci.id AS kid, min(x.xs) AS kns FROM CONNECTION_IDS ci "
		    "JOIN (");
		if (d->has[T_TASK])
			buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM TASK");
		if (d->has[T_TASK] && d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId"))
			buf_adds(b, " UNION ALL ");
		if (d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId"))
			buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM COMMUNICATION_OP");
		else if (!d->has[T_TASK])
			buf_adds(b, "SELECT NULL AS xc, NULL AS xs");
		buf_adds(b, ") x ON x.xc = ci.connectionId GROUP BY ci.id) k ON k.kid = p.connectionId");
	}
}

/* The CANN_API part of the host query: its launched kernels. */
static void
hostq_cann(struct dbread *d, struct buf *b)
{
	int tk = d->has[T_TASK] && dbi_hascol(d, T_TASK, "connectionId");
	int cm = d->has[T_COMM] && dbi_hascol(d, T_COMM, "connectionId");
	int conn = (tk || cm) && dbi_hascol(d, T_CANN, "connectionId");

	buf_adds(b, "SELECT ");
	/* s and e named: CANN_API may be the only part */
	dbi_txspan(b, "c", " AS s, ");
	buf_adds(b, " AS e, 1 AS src, c.rowid AS rid, c.globalTid, c.name");
	buf_adds(b, dbi_hascol(d, T_CANN, "type") ? ", c.type" : ", NULL");
	buf_adds(b, ", 0, NULL");
	buf_adds(b, conn ? ", k.kns" : ", NULL");
	buf_adds(b, " FROM CANN_API c");
	if (conn) {
		buf_adds(b, " LEFT JOIN (SELECT xc AS kc, min(xs) AS kns FROM (");
		if (tk)
			buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM TASK");
		if (tk && cm)
			buf_adds(b, " UNION ALL ");
		if (cm)
			buf_adds(b, "SELECT connectionId AS xc, startNs AS xs FROM COMMUNICATION_OP");
		buf_adds(b, ") GROUP BY xc) k ON k.kc = c.connectionId");
	}
}

/* The next slot of the queue, grown when full. */
static struct hpend *
hpush(struct hstate *h)
{
	if (h->tail - h->head == h->cap) {
		struct hpend *nq = xcalloc(h->cap * 2, sizeof *nq);

		for (uint64_t sq = h->head; sq < h->head + h->cap; sq++)
			nq[sq & (h->cap * 2 - 1)] = h->q[sq & (h->cap - 1)];
		free(h->q);
		h->q = nq;
		h->cap *= 2;
	}
	return &h->q[h->tail & (h->cap - 1)];
}

/* The record's name (CANN's with its prefix), category and thread;
 * returns whether it is a step marker. */
static int
hname(struct dbread *d, sqlite3_stmt *st, struct hout *o, struct buf *nm, struct buf *thr,
    int64_t pid, int64_t tid, int iscann)
{
	const char *s;
	size_t n, kind;
	int mark = 0;

	if (dbi_coltext(d, st, H_NAME, &s, &n) != 0)
		s = "", n = 0;
	/* copied: the frame's string id may evict the name's */
	nm->len = 0;
	if (iscann) {
		const char *pre = sqlite3_column_type(st, H_TYPE) == SQLITE_INTEGER ?
		    cannprefix(sqlite3_column_int64(st, H_TYPE)) : NULL;

		if (pre) {
			buf_adds(nm, pre);
			buf_addc(nm, '@');
		}
		buf_add(nm, s, n);
		o->cat = NULL;
		thr->len = 0;
		rec_out_thread(thr, "CANN", pid, tid);
	} else {
		int64_t ty = sqlite3_column_type(st, H_TYPE) == SQLITE_INTEGER ?
		    sqlite3_column_int64(st, H_TYPE) : -1;

		mark = dbi_ismarker(d, s, n, &kind);
		buf_add(nm, s, n);
		o->cat = ty == 50001 ? "cpu_op" : ty == 50003 ? "python_function" :
		    ty == 50004 ? "mstx" : ty == 50002 ? (n >= 7 && memcmp(s, "Dequeue", 7) == 0 ?
		    "dequeue" : "enqueue") : NULL;
		thr->len = 0;
		rec_out_thread(thr, d->python, pid, tid);
	}
	return mark;
}

/* The top user frame, when the row has a call stack. */
static void
hframe(struct dbread *d, sqlite3_stmt *st, struct hout *o)
{
	const char *s;
	size_t n;

	o->frame.kind = KV_ABSENT;
	if (sqlite3_column_int(st, H_STACK)) {
		o->frame.kind = KV_NULL;
		if (dbi_coltext(d, st, H_FRAME, &s, &n) == 0) {
			while (n && (s[0] == ' ' || s[0] == '\t'))
				s++, n--;
			while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' ||
			    s[n - 1] == ';' || s[n - 1] == '\n'))
				n--;
			o->frame.kind = KV_STR;
			o->frame.s = s;
			o->frame.n = n;
		}
	}
}

int
db_put_host(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct buf *b = &d->sc, hpre[2] = { { 0 } }, nm = { 0 }, thr = { 0 };
	struct hout o = {0};
	struct hstate h;
	sqlite3_stmt *st;
	int r, py = d->has[T_PY], cann = d->has[T_CANN];
	int links = d->has[T_TASK] || d->has[T_COMM];

	if (!py && !cann)
		return 0;
	b->len = 0;
	buf_adds(b, "SELECT * FROM (");
	if (py)
		hostq_py(d, b, links);
	if (py && cann)
		buf_adds(b, " UNION ALL ");
	if (cann)
		hostq_cann(d, b);
	buf_adds(b, ") WHERE e >= s ORDER BY s, e - s DESC, src, rid");
	if ((st = dbi_prep(d, b->p)) == NULL)
		return -1;
	for (int i = 0; i < 2; i++)
		dbi_srcprefix(d, &hpre[i], "host", profile, i ? T_CANN : T_PY);
	memset(&h, 0, sizeof h);
	h.cap = 64;
	h.q = xcalloc(h.cap, sizeof *h.q);
	while ((r = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t now = sqlite3_column_int64(st, H_S);
		int64_t e = sqlite3_column_int64(st, H_E);
		int64_t gtid = sqlite3_column_int64(st, H_GTID);
		int64_t pid = (int64_t)((uint64_t)gtid >> 32), tid = (int64_t)((uint64_t)gtid & 0xffffffffu);
		int iscann = sqlite3_column_int(st, H_SRC) == 1;
		int ti;
		struct hthr *x;
		struct hpend *p;
		int mark, depth;

		if (iscann)	/* the pid the text timeline gives CANN: pid<<10 | 7<<5 | device */
			pid = (int64_t)(((uint64_t)pid << 10) | (7u << 5) | ((uint64_t)d->hostdev & 31));
		ti = getthr(&h, pid, tid);
		x = &h.th[ti];
		depth = nest_add(&x->nt, now, e, h.tail, hctx, &h);
		flushq(&h, fp, &d->ob, now);
		p = hpush(&h);
		p->start = now;
		p->dur = e - now;
		p->ti = ti;
		p->resolved = 0;
		p->leaf = 0;
		/* the record, its leaf value left out until known */
		o.pre = hpre[iscann].p;
		o.npre = hpre[iscann].len;
		o.srcn = sqlite3_column_int64(st, H_ROWID);
		mark = hname(d, st, &o, &nm, &thr, pid, tid, iscann);
		o.name = nm.p ? nm.p : "";
		o.nname = nm.len;
		o.ncat = o.cat ? strlen(o.cat) : 0;
		o.thr = thr.p;
		o.nthr = thr.len;
		o.start = now - origin;
		o.dur = e - now;
		o.depth = depth;
		o.leaf = e - now <= 0 ? !mark : -1;
		hframe(d, st, &o);
		/* The linked task's start: a negative one (refused in TASK) is
		 * no link, and never overflows the subtraction. */
		o.hask = sqlite3_column_type(st, H_KNS) == SQLITE_INTEGER &&
		    sqlite3_column_int64(st, H_KNS) >= 0;
		o.kns = o.hask ? sqlite3_column_int64(st, H_KNS) - origin : 0;
		p->text.len = 0;
		p->at = rec_out_host(&p->text, &o);
		p->mark = mark;
		p->depth = depth;
		if (p->dur <= 0) {
			p->leaf = !mark;
			p->resolved = 1;
		}
		h.tail++;
	}
	if (r == SQLITE_DONE)
		flushq(&h, fp, &d->ob, INT64_MAX);
	sqlite3_finalize(st);
	for (uint64_t i = 0; i < h.cap; i++)
		buf_free(&h.q[i].text);
	for (int i = 0; i < 2; i++)
		buf_free(&hpre[i]);
	buf_free(&nm);
	buf_free(&thr);
	free(h.q);
	for (size_t i = 0; i < h.nth; i++)
		nest_free(&h.th[i].nt);
	free(h.th);
	free(h.ht.slot);
	if (r != SQLITE_DONE)
		return dbi_sqlerr(d, "PYTORCH_API/CANN_API");
	return 0;
}

