/* dbread: kernel records (TASK, COMPUTE_TASK_INFO, COMMUNICATION_OP,
 * TASK_PMU_INFO) */
#define _GNU_SOURCE		/* fwrite_unlocked */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "cell.h"
#include "dbread_int.h"
#include "rec_out.h"

/* Kernel statement columns. */
enum { K_ROWID, K_S, K_E, K_STREAM, K_TASKID, K_MODEL, K_CTX, K_NAME, K_OPTYPE,
	K_TTYPE, K_OPSTATE, K_BLOCK, K_MIXBLOCK, K_HF32, K_SHAPES, K_WAIT = K_SHAPES + 6,
	K_PNAME, K_PVAL, K_NCOL };
enum { C_ROWID, C_S, C_E, C_NAME, C_OPTYPE, C_WAIT };

static const char *const shapecol[6] = {
	"inputShapes", "inputDataTypes", "inputFormats", "outputShapes",
	"outputDataTypes", "outputFormats"
};

struct kq {
	sqlite3_stmt	*k, *c;
	int		 kr, cr;	/* last step result */
	int		 has[K_NCOL];	/* which optional fields exist */
	int		 cwait;		/* COMMUNICATION_OP has waitNs */
	size_t		 rg;		/* step range cursor */
	struct buf	 pre[2];	/* record prefixes: TASK, COMMUNICATION_OP */
	struct buf	 a;		/* a row's texts, copied */
	struct kpmu	*pmu;
	size_t		 npmu, cpmu;
};

const char *
dbi_stepof(struct dbread *d, size_t *rg, int64_t s)
{
	/* Kernels come in start order per device: the cursor moves forward,
	 * and back to the first range for the next device. */
	while (*rg > 0 && s < d->rg[*rg].start)
		(*rg)--;
	while (*rg + 1 < d->nrg && s >= d->rg[*rg + 1].start)
		(*rg)++;
	if (*rg < d->nrg && s >= d->rg[*rg].start && s <= d->rg[*rg].end)
		return d->rg[*rg].step;
	return NULL;
}

/*
 * The writer's fields from a row.  Texts are copied to q->a at once (the
 * next string id may evict one from the cache, the next step ends the
 * row's), by offset (in v, s NULL) until kpin() points them there.
 */
static void
kint(struct kval *f, sqlite3_stmt *st, int i)
{
	f->n = 0;
	if (i < 0 || sqlite3_column_type(st, i) != SQLITE_INTEGER ||
	    (f->v = sqlite3_column_int64(st, i)) == INVALID32)
		f->kind = KV_NULL;
	else
		f->kind = KV_INT;
}

static void
kcopy(struct kq *q, struct kval *f, int kind, const char *s, size_t n)
{
	f->kind = kind;
	f->s = NULL;
	f->n = n;
	f->v = (int64_t)q->a.len;
	buf_add(&q->a, s, n);
}

/* A text by the cell rule (kind KV_CELL or KV_SHAPE). */
static void
ktext(struct dbread *d, struct kq *q, struct kval *f, sqlite3_stmt *st, int i, int kind)
{
	const char *s;
	size_t n;

	if (i < 0 || dbi_coltext(d, st, i, &s, &n) != 0) {
		f->kind = KV_NULL;
		f->n = 0;
	} else
		kcopy(q, f, kind, s, n);
}

static void
kpin(struct kq *q, struct kout *k)
{
	struct kval *f[] = { &k->device, &k->stream, &k->step, &k->name, &k->op_type, &k->task_type };

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if (f[i]->kind >= KV_STR && f[i]->s == NULL)
			f[i]->s = q->a.p + f[i]->v;
	for (int i = 0; i < KS_N; i++)
		if (k->tail[i].kind >= KV_STR && k->tail[i].s == NULL)
			k->tail[i].s = q->a.p + k->tail[i].v;
	for (size_t i = 0; i < q->npmu; i++) {
		q->pmu[i].key = q->a.p + (size_t)q->pmu[i].key;
		q->pmu[i].s = q->a.p + (size_t)q->pmu[i].s;
	}
	k->pmu = q->pmu;
	k->npmu = (int)q->npmu;
}

/* The fields after the wait. */
static void
ktail(struct dbread *d, struct kq *q, struct kout *k, sqlite3_stmt *st, int comp)
{
	struct kval *t = k->tail;

	for (int i = KS_TASKID; i < KS_N; i++)
		t[i].kind = KV_ABSENT;
	kint(&t[KS_TASKID], st, comp ? K_TASKID : -1);
	if (q->has[K_MODEL])
		kint(&t[KS_MODEL], st, comp ? K_MODEL : -1);
	if (q->has[K_OPSTATE])
		ktext(d, q, &t[KS_OPSTATE], st, comp ? K_OPSTATE : -1, KV_CELL);
	if (q->has[K_BLOCK]) {
		kint(&t[KS_BLOCK], st, comp ? K_BLOCK : -1);
		if (!comp) {
			t[KS_BLOCK].kind = KV_INT;	/* as torch_npu writes HCCL rows */
			t[KS_BLOCK].v = 0;
		}
	}
	if (q->has[K_MIXBLOCK])
		kint(&t[KS_MIXBLOCK], st, comp ? K_MIXBLOCK : -1);
	if (q->has[K_HF32])
		ktext(d, q, &t[KS_HF32], st, comp ? K_HF32 : -1, KV_CELL);
	for (int i = 0; i < 6; i++)
		if (q->has[K_SHAPES + i])
			ktext(d, q, &t[KS_INSHAPES + i], st, comp ? K_SHAPES + i : -1, KV_SHAPE);
	if (q->has[K_CTX]) {
		if (comp && sqlite3_column_type(st, K_CTX) == SQLITE_INTEGER &&
		    sqlite3_column_int64(st, K_CTX) != INVALID32) {
			char c[32];
			int n = snprintf(c, sizeof c, "%lld", (long long)sqlite3_column_int64(st, K_CTX));

			kcopy(q, &t[KS_CONTEXT], KV_STR, c, (size_t)n);
		} else
			ktext(d, q, &t[KS_CONTEXT], st,
			    comp && sqlite3_column_type(st, K_CTX) == SQLITE_TEXT ? K_CTX : -1, KV_CELL);
	}
}

/* The first step of st (a query of one device's rows, if any) for dev. */
static int
devfirst(sqlite3_stmt *st, int64_t dev)
{
	if (st == NULL)
		return SQLITE_DONE;
	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, dev);
	return sqlite3_step(st);
}

/* One device: merge compute tasks and communication ops by start. */
static int
putdev(struct dbread *d, FILE *fp, const char *profile, int64_t origin, int64_t dev,
    struct kq *q)
{
	struct buf *b = &d->ob;
	int64_t prev_end = INT64_MIN;
	int first = 1;

	q->kr = devfirst(q->k, dev);
	q->cr = devfirst(q->c, dev);
	q->rg = 0;
	for (;;) {
		int comp;
		sqlite3_stmt *st;
		int64_t s, e, rowid;
		const char *stp, *t;
		size_t n;
		struct kout k;

		if (q->kr != SQLITE_ROW && q->kr != SQLITE_DONE)
			return dbi_sqlerr(d, "TASK");
		if (q->cr != SQLITE_ROW && q->cr != SQLITE_DONE)
			return dbi_sqlerr(d, "COMMUNICATION_OP");
		if (q->kr == SQLITE_DONE && q->cr == SQLITE_DONE)
			break;
		/* ties: compute tasks first */
		comp = q->cr == SQLITE_DONE || (q->kr == SQLITE_ROW &&
		    sqlite3_column_int64(q->k, K_S) <= sqlite3_column_int64(q->c, C_S));
		st = comp ? q->k : q->c;
		s = sqlite3_column_int64(st, comp ? K_S : C_S);
		e = sqlite3_column_int64(st, comp ? K_E : C_E);
		rowid = sqlite3_column_int64(st, 0);
		q->a.len = 0;
		q->npmu = 0;
		k.pre = q->pre[!comp].p;
		k.npre = q->pre[!comp].len;
		k.srcn = rowid;
		k.overread = 0;
		k.bound = 0;
		k.device.kind = KV_INT;
		k.device.v = dev;
		k.device.n = 0;
		kint(&k.stream, st, comp ? K_STREAM : -1);
		stp = dbi_stepof(d, &q->rg, s);
		k.step.kind = stp ? KV_STR : KV_NULL;
		k.step.s = stp;
		k.step.n = stp ? strlen(stp) : 0;
		if (dbi_coltext(d, st, comp ? K_NAME : C_NAME, &t, &n) == 0)
			kcopy(q, &k.name, KV_STR, t, n);
		else
			kcopy(q, &k.name, KV_STR, "", 0);
		ktext(d, q, &k.op_type, st, comp ? K_OPTYPE : C_OPTYPE, KV_CELL);
		k.comm = !comp;
		ktext(d, q, &k.task_type, st, comp && q->has[K_TTYPE] ? K_TTYPE : -1, KV_CELL);
		k.start = s - origin;
		k.dur = e - s;
		{
			int wi = comp ? K_WAIT : C_WAIT;
			int hasw = comp ? q->has[K_WAIT] : q->cwait;

			k.tail[KS_WAIT].n = 0;
			if (hasw) {
				k.tail[KS_WAIT].kind = sqlite3_column_type(st, wi) == SQLITE_INTEGER ?
				    KV_INT : KV_NULL;
				k.tail[KS_WAIT].v = sqlite3_column_int64(st, wi);
			} else {
				/* kernel_details' Wait Time: gap to the previous task's end */
				k.tail[KS_WAIT].kind = KV_INT;
				k.tail[KS_WAIT].v = first ? 0 : s - prev_end > 0 ? s - prev_end : 0;
			}
		}
		first = 0;
		prev_end = e;
		ktail(d, q, &k, st, comp);
		if (comp) {
			/* PMU rows of this task follow as rows with the same rowid */
			for (;;) {
				if (q->has[K_PNAME] && sqlite3_column_type(st, K_PNAME) != SQLITE_NULL &&
				    dbi_coltext(d, st, K_PNAME, &t, &n) == 0) {
					char num[40];
					int m = dbi_numtext(st, K_PVAL, num, sizeof num);

					if (m > 0 || (sqlite3_column_type(st, K_PVAL) == SQLITE_TEXT &&
					    !cell_isnull((const char *)sqlite3_column_text(st, K_PVAL),
					    (size_t)sqlite3_column_bytes(st, K_PVAL)))) {
						struct kpmu *p;

						if (q->npmu == q->cpmu) {
							q->cpmu = q->cpmu ? 2 * q->cpmu : 16;
							q->pmu = xreallocarray(q->pmu, q->cpmu, sizeof *q->pmu);
						}
						p = &q->pmu[q->npmu++];
						/* offsets into q->a until kpin() */
						p->key = (const char *)q->a.len;
						out_esc(&q->a, t, n);
						buf_addc(&q->a, ':');
						p->nkey = q->a.len - (size_t)p->key;
						p->s = (const char *)q->a.len;
						p->num = m > 0;
						if (m > 0)
							buf_add(&q->a, num, (size_t)m);
						else
							buf_add(&q->a, (const char *)sqlite3_column_text(st, K_PVAL),
							    (size_t)sqlite3_column_bytes(st, K_PVAL));
						p->n = q->a.len - (size_t)p->s;
					}
				}
				q->kr = sqlite3_step(q->k);
				if (q->kr != SQLITE_ROW || !q->has[K_PNAME] ||
				    sqlite3_column_int64(q->k, K_ROWID) != rowid)
					break;
			}
		} else
			q->cr = sqlite3_step(q->c);
		kpin(q, &k);
		b->len = 0;
		rec_out_kernel(b, &k);
		if (fwrite_unlocked(b->p, 1, b->len, fp) != b->len)
			dieerr("stdout");
	}
	return 0;
}

int
db_put_kernels(struct dbread *d, FILE *fp, const char *profile, int64_t origin)
{
	struct kq q;
	struct buf *b = &d->sc;
	int r = 0;

	memset(&q, 0, sizeof q);
	if (d->has[T_TASK]) {
		const char *bl = dbi_anycol(d, T_CTI, "blockNum", "blockDim");
		const char *mb = dbi_anycol(d, T_CTI, "mixBlockNum", "mixBlockDim");
		const char *hf = dbi_anycol(d, T_CTI, "hf32Eligible", NULL);
		const char *os = dbi_anycol(d, T_CTI, "opState", NULL);
		const char *mo = dbi_anycol(d, T_TASK, "modelId", NULL);
		const char *cx = dbi_anycol(d, T_TASK, "contextId", NULL);
		const char *wt = dbi_anycol(d, T_CTI, "waitNs", NULL);
		const char *ot = dbi_anycol(d, T_CTI, "opType", NULL);
		const char *tt = dbi_anycol(d, T_CTI, "taskType", NULL);

		q.has[K_MODEL] = mo != NULL;
		q.has[K_CTX] = cx != NULL;
		q.has[K_OPSTATE] = os != NULL;
		q.has[K_BLOCK] = bl != NULL;
		q.has[K_MIXBLOCK] = mb != NULL;
		q.has[K_HF32] = hf != NULL;
		q.has[K_WAIT] = wt != NULL;
		q.has[K_TTYPE] = tt != NULL;
		q.has[K_PNAME] = d->c.has_pmu && !d->nopmu;
		b->len = 0;
		buf_adds(b, "SELECT t.rowid, ");
		dbi_txspan(b, "t", " AS s, ");
		dbi_selcol(b, "t", dbi_anycol(d, T_TASK, "streamId", NULL));
		dbi_selcol(b, "t", dbi_anycol(d, T_TASK, "taskId", NULL));
		dbi_selcol(b, "t", mo);
		dbi_selcol(b, "t", cx);
		dbi_selcol(b, "c", "name");
		dbi_selcol(b, "c", ot);
		dbi_selcol(b, "c", tt);
		dbi_selcol(b, "c", os);
		dbi_selcol(b, "c", bl);
		dbi_selcol(b, "c", mb);
		dbi_selcol(b, "c", hf);
		for (int i = 0; i < 6; i++) {
			const char *sc = dbi_anycol(d, T_CTI, shapecol[i], NULL);

			q.has[K_SHAPES + i] = sc != NULL;
			dbi_selcol(b, "c", sc);
		}
		dbi_selcol(b, "c", wt);
		if (q.has[K_PNAME])
			buf_adds(b, ", p.name, p.value");
		else
			buf_adds(b, ", NULL, NULL");
		buf_adds(b, " FROM ");
		buf_adds(b, dbi_kjoin);
		if (q.has[K_PNAME])
			buf_adds(b, " LEFT JOIN TASK_PMU_INFO p ON p.globalTaskId = t.globalTaskId");
		buf_adds(b, " WHERE t.deviceId = ?1 AND ");
		dbi_txvalid(b, "t");
		/* An INTEGER column holds only integers where a row is valid:
		 * order by it as is, so SQLite can walk TaskIndex. */
		buf_adds(b, dbi_intcol(d, T_TASK, "startNs") ? " ORDER BY t.startNs" : " ORDER BY s");
		/* A task's PMU rows come from SQLite's automatic index on
		 * TASK_PMU_INFO(globalTaskId): in name-id order, no sort. */
		buf_adds(b, ", t.globalTaskId, t.rowid");
		if ((q.k = dbi_prep(d, b->p)) == NULL)
			return -1;
	}
	if (d->has[T_COMM] && d->c.comm) {
		const char *dv = dbi_anycol(d, T_COMM, "deviceId", NULL);

		q.cwait = dbi_hascol(d, T_COMM, "waitNs");
		b->len = 0;
		dbi_commsel(b, dbi_anycol(d, T_COMM, "opType", NULL), q.cwait);
		if (dv)
			buf_adds(b, " AND c.deviceId = ?1");
		else {
			char t[64];

			snprintf(t, sizeof t, " AND ?1 = %lld", (long long)d->commdev);
			buf_adds(b, t);
		}
		buf_adds(b, " ORDER BY s, c.rowid");
		if ((q.c = dbi_prep(d, b->p)) == NULL) {
			sqlite3_finalize(q.k);
			return -1;
		}
	}
	for (int t = 0; t < 2; t++)
		dbi_srcprefix(d, &q.pre[t], "kernel", profile, t ? T_COMM : T_TASK);
	for (int i = 0; i < d->ndev && r == 0; i++)
		r = putdev(d, fp, profile, origin, d->dev[i], &q);
	sqlite3_finalize(q.k);
	sqlite3_finalize(q.c);
	buf_free(&q.pre[0]);
	buf_free(&q.pre[1]);
	buf_free(&q.a);
	free(q.pmu);
	return r;
}

