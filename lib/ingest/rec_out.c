/* rec_out: the kernel, host and marker record writers of every source. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cell.h"
#include "rec.h"
#include "rec_out.h"
#include "simd.h"
#include "util.h"

/*
 * The kernel writer gives the bytes the out_* calls would, without their
 * per-call costs (it runs on every row of a kernel table): room for the
 * whole record is reserved once (a text at most sixfold when escaped),
 * keys are literals, and the common forms (plain digits, plain ASCII)
 * are copied as they are; anything else goes the general way.
 */
#define RINLINE	static inline __attribute__((always_inline))
#define PUTLIT(w, lit)	(memcpy((w), (lit), sizeof(lit) - 1), (w) += sizeof(lit) - 1)
#define SLACK	64		/* a copy may write this far past its end */

/*
 * Copy n bytes from s.  over: s can be read 64 bytes on (a CSV field, see
 * CSV_OVERREAD, or a prefix from rec_out_prefix), and short copies are
 * fixed-size moves, not calls.
 */
RINLINE char *
rcopy(char *w, const char *s, size_t n, int over)
{
	if (!over)
		memcpy(w, s, n);
	else if (n <= 16)
		memcpy(w, s, 16);
	else if (n <= 32)
		memcpy(w, s, 32);
	else if (n <= 64) {
		memcpy(w, s, 32);
		memcpy(w + n - 32, s + n - 32, 32);
	} else
		memcpy(w, s, n);
	return w + n;
}

/* A JSON string: plain ASCII is copied; the rest goes to out_esc. */
RINLINE char *
putesc(struct buf *o, char *w, const char *s, size_t n, int over)
{
	size_t i = 0;

#ifdef ASC_SSE2
	if (over) {
		/* 16 bytes at a time, the last block over-read and masked. */
		for (; i < n; i += 16) {
			unsigned m = simd_esc16(s + i);

			if (n - i < 16)
				m &= (1u << (n - i)) - 1;
			if (m)
				goto esc;
		}
		goto plain;
	}
#endif
	for (; i + 8 <= n; i += 8)
		if (swar_esc8(s + i))
			goto esc;
	for (; i < n; i++)
		if (simd_isesc((unsigned char)s[i]))
			goto esc;
#ifdef ASC_SSE2
plain:
#endif
	*w++ = '"';
	w = rcopy(w, s, n, over);
	*w++ = '"';
	return w;
esc:
	o->len = (size_t)(w - o->p);
	out_esc(o, s, n);
	return o->p + o->len;
}

/* ,"key": and the field.  lit is ,"key": (litlen bytes, readable 32
 * bytes on), key the bare key for the general integer-cell way. */
RINLINE char *
putval(struct buf *o, char *w, const char *key, const char *lit, size_t litlen,
    const struct kval *f, int over)
{
	const char *s = f->s;
	size_t n = f->n;

	if (f->kind == KV_ABSENT)
		return w;
	memcpy(w, lit, 32);
	w += litlen;
	switch (f->kind) {
	case KV_INT:
		return rec_fmtint(w, f->v);
	case KV_STR:
		return putesc(o, w, s, n, over);
	case KV_CELL:
	case KV_SHAPE:
		cell_trim(&s, &n);
		if (cell_isnulltext(s, n))
			break;
		/* msprof wraps shapes in one literal pair of quotes. */
		if (f->kind == KV_SHAPE && n >= 2 && s[0] == '"' && s[n - 1] == '"')
			s++, n -= 2;
		return putesc(o, w, s, n, over);
	case KV_ICELL:
		if (cell_plainint(s, n))
			return rcopy(w, s, n, over);
		if (n == 10 && memcmp(s, "4294967295", 10) == 0)
			break;
		o->len = (size_t)(w - litlen - o->p);
		cell_putint(o, key, s, n);
		return o->p + o->len;
	}
	PUTLIT(w, "null");
	return w;
}

/* start_ns, dur_ns and end_ns: every record with a time has the three. */
RINLINE char *
puttimes(char *w, int64_t start, int64_t dur)
{
	PUTLIT(w, ",\"start_ns\":");
	w = rec_fmtint(w, start);
	PUTLIT(w, ",\"dur_ns\":");
	w = rec_fmtint(w, dur);
	PUTLIT(w, ",\"end_ns\":");
	return rec_fmtint(w, start + dur);
}

/* Bytes a field may take, written. */
RINLINE size_t
room(const struct kval *f)
{
	return f->kind == KV_ABSENT ? 0 : 6 * f->n + 64;
}

/* The keys after the times, as literals padded for a 32-byte copy. */
static const struct {
	const char	*key;
	char		 lit[32];
	size_t		 len;
} tailkey[KS_N] = {
#define K(i, k)	[i] = { k, ",\"" k "\":", sizeof(",\"" k "\":") - 1 }
	K(KS_WAIT, "wait_ns"), K(KS_TASKID, "task_id"), K(KS_MODEL, "model_id"),
	K(KS_OPSTATE, "op_state"), K(KS_BLOCK, "block_dim"),
	K(KS_MIXBLOCK, "mix_block_dim"), K(KS_HF32, "hf32"),
	K(KS_INSHAPES, "in_shapes"), K(KS_INDTYPES, "in_dtypes"),
	K(KS_INFORMATS, "in_formats"), K(KS_OUTSHAPES, "out_shapes"),
	K(KS_OUTDTYPES, "out_dtypes"), K(KS_OUTFORMATS, "out_formats"),
	K(KS_CONTEXT, "context_id"),
#undef K
};

#define HEADVAL(key, f)	do {						\
	static const char lit_[32] = ",\"" key "\":";			\
	w = putval(o, w, key, lit_, sizeof(",\"" key "\":") - 1, (f), over); \
} while (0)

FILE *rec_out_pmufp;
unsigned rec_out_leave;

void
rec_out_leftout(struct buf *b)
{
	int n = 0;

	buf_addc(b, '[');
	for (int i = 0; i < KS_N; i++)
		if (rec_out_leave & (1u << i)) {
			if (n++)
				buf_addc(b, ',');
			buf_addc(b, '"');
			buf_adds(b, tailkey[i].key);
			buf_addc(b, '"');
		}
	buf_addc(b, ']');
}

/*
 * -M: the pmu object just written at o->p + at (up to w) becomes a record
 * of its own in rec_out_pmufp, with the kernel's profile and src, and is
 * taken back out of the kernel record.  Returns the new end of o.
 */
static char *
aside(struct buf *o, const struct kout *k, size_t at, char *w)
{
	static const char kpre[] = "{\"type\":\"kernel\",";
	static struct buf pb;
	size_t n = (size_t)(w - o->p) - at;
	char *p;

	if (k->npre < sizeof kpre - 1 || memcmp(k->pre, kpre, sizeof kpre - 1) != 0)
		die("internal: kernel record prefix");
	buf_grow(&pb, k->npre + n + 64);
	p = pb.p;
	PUTLIT(p, "{\"type\":\"pmu\",");
	memcpy(p, k->pre + sizeof kpre - 1, k->npre - (sizeof kpre - 1));
	p += k->npre - (sizeof kpre - 1);
	p = rec_fmtint(p, k->srcn);
	*p++ = '"';
	memcpy(p, o->p + at, n);	/* ,"pmu":{...} */
	p += n;
	PUTLIT(p, "}\n");
	fwrite(pb.p, 1, (size_t)(p - pb.p), rec_out_pmufp);
	return o->p + at;
}

/* over is a constant in each of the two uses: its tests go. */
RINLINE void
kernel(struct buf *o, const struct kout *k, int over)
{
	size_t need = k->npre + 1024 + 6 * k->bound;
	const char *s;
	size_t n;
	char *w;

	if (k->bound == 0) {
		need += room(&k->device) + room(&k->stream) + room(&k->step) +
		    room(&k->name) + room(&k->op_type) + room(&k->task_type);
		for (int i = 0; i < KS_N; i++)
			need += room(&k->tail[i]);
		for (int i = 0; i < k->npmu; i++)
			need += k->pmu[i].nkey + 6 * k->pmu[i].n + 2 * SLACK;
	}
	buf_grow(o, need);
	w = o->p + o->len;
	w = rcopy(w, k->pre, k->npre, 1);
	w = rec_fmtint(w, k->srcn);
	*w++ = '"';
	HEADVAL("device", &k->device);
	HEADVAL("stream", &k->stream);
	HEADVAL("step", &k->step);
	HEADVAL("name", &k->name);
	HEADVAL("op_type", &k->op_type);
	/* HCCL, by whatever export, is a communication task. */
	s = k->task_type.s;
	n = k->task_type.n;
	if (k->task_type.kind == KV_CELL)
		cell_trim(&s, &n);
	if (k->comm || ((k->task_type.kind == KV_CELL || k->task_type.kind == KV_STR) &&
	    n == 4 && memcmp(s, "HCCL", 4) == 0))
		PUTLIT(w, ",\"task_type\":\"COMMUNICATION\"");
	else
		HEADVAL("task_type", &k->task_type);
	w = puttimes(w, k->start, k->dur);
	for (int i = 0; i < KS_N; i++)
		if (!(rec_out_leave & (1u << i)))
			w = putval(o, w, tailkey[i].key, tailkey[i].lit, tailkey[i].len,
			    &k->tail[i], over);
	if (k->npmu) {
		char *open = w;

		PUTLIT(w, ",\"pmu\":{");
		for (int i = 0; i < k->npmu; i++) {
			const struct kpmu *p = &k->pmu[i];

			if (p->num < 0)
				continue;
			w = rcopy(w, p->key, p->nkey, over);
			if (p->num)
				w = rcopy(w, p->s, p->n, over);
			else
				w = putesc(o, w, p->s, p->n, over);
			*w++ = ',';
		}
		if (w[-1] == ',') {
			w[-1] = '}';
			if (rec_out_pmufp)
				w = aside(o, k, (size_t)(open - o->p), w);
		} else
			w = open;	/* every value null */
	}
	PUTLIT(w, "}\n");
	o->len = (size_t)(w - o->p);
}

void
rec_out_kernel(struct buf *o, const struct kout *k)
{
	if (k->overread)
		kernel(o, k, 1);
	else
		kernel(o, k, 0);
}

size_t
rec_out_host(struct buf *b, const struct hout *h)
{
	size_t at = SIZE_MAX;
	char *w;

	buf_grow(b, h->npre + h->nthr + 512 +
	    6 * (h->nname + h->ncat + (h->frame.kind == KV_STR ? h->frame.n : 0)));
	w = b->p + b->len;
	w = rcopy(w, h->pre, h->npre, 1);
	w = rec_fmtint(w, h->srcn);
	PUTLIT(w, "\",\"name\":");
	w = putesc(b, w, h->name, h->nname, 0);
	PUTLIT(w, ",\"cat\":");
	if (h->cat)
		w = putesc(b, w, h->cat, h->ncat, 0);
	else
		PUTLIT(w, "null");
	w = rcopy(w, h->thr, h->nthr, 0);
	w = puttimes(w, h->start, h->dur);
	PUTLIT(w, ",\"depth\":");
	w = rec_fmtint(w, h->depth);
	PUTLIT(w, ",\"leaf\":");
	if (h->leaf < 0)
		at = (size_t)(w - b->p);
	else if (h->leaf)
		PUTLIT(w, "true");
	else
		PUTLIT(w, "false");
	if (h->frame.kind == KV_STR) {
		PUTLIT(w, ",\"frame\":");
		w = putesc(b, w, h->frame.s, h->frame.n, 0);
	} else if (h->frame.kind == KV_NULL)
		PUTLIT(w, ",\"frame\":null");
	if (h->hask) {
		PUTLIT(w, ",\"kernel_ns\":");
		w = rec_fmtint(w, h->kns);
	}
	PUTLIT(w, "}\n");
	b->len = (size_t)(w - b->p);
	return at;
}

void
rec_out_prefix(struct buf *b, const char *type, const char *profile,
    const char *stem, size_t nstem)
{
	out_begin(b, type);
	out_cstr(b, "profile", profile);
	out_str(b, "src", stem, nstem);
	b->len--;			/* the closing quote */
	buf_grow(b, SLACK);		/* read 64 bytes on by rcopy */
}

void
rec_out_thread(struct buf *b, const char *process, int64_t pid, int64_t tid)
{
	out_cstr(b, "process", process);
	out_i64(b, "pid", pid);
	out_i64(b, "tid", tid);
}

void
rec_out_marker(struct buf *b, FILE *fp, const char *profile, const char *src,
    size_t nsrc, const char *name, size_t nname, size_t klen, int64_t pid,
    int64_t tid, int64_t start, int64_t dur)
{
	out_begin(b, "marker");
	out_cstr(b, "profile", profile);
	out_str(b, "src", src, nsrc);
	out_str(b, "name", name, nname);
	out_str(b, "kind", name, klen);
	out_str(b, "step", name + klen + 1, nname - klen - 1);
	out_i64(b, "pid", pid);
	out_i64(b, "tid", tid);
	out_i64(b, "start_ns", start);
	out_i64(b, "dur_ns", dur);
	out_i64(b, "end_ns", start + dur);
	rec_put(b, fp);
}
