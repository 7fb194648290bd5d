/*
 * commjson: a streaming reader of communication.json (see commjson.h).
 *
 * A recursive descent over the fixed shape of the file, on a byte reader
 * that refills a 64 KiB chunk; values nobody asked for are skipped by an
 * iterative scanner (the tokenizer: commjson_tok.c).  Syntax errors
 * longjmp back to cj_read(), which then finds the line of the error by
 * counting newlines up to its offset.  The comm record: commjson_rec.c.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commjson.h"
#include "commjson_int.h"
#include "util.h"

static const char *const timekey[T_N] = {
	"Start Timestamp(us)", "Elapse Time(ms)", "Transit Time(ms)", "Wait Time(ms)",
	"Synchronization Time(ms)", "Idle Time(ms)", "Wait Time Ratio",
	"Synchronization Time Ratio"
};

static const char *const bwkey[3] = {
	"Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)"
};

static int
keyis(const struct buf *k, const char *s)
{
	return strlen(s) == k->len && memcmp(k->p, s, k->len) == 0;
}

/* Capture the value of figure name here into the op's arena. */
static void
capture(struct cj *r, struct slot *v, const char *name)
{
	int c = peekc(r);

	r->field = name;
	v->null = 0;
	v->off = r->arena.len;
	if (c == '"') {
		v->kind = CJ_STRING;
		cj_str(r, &r->arena);
	} else if (c == '{' || c == '[') {
		v->kind = c == '{' ? CJ_OBJECT : CJ_ARRAY;
		r->raw.len = 0;
		r->cap = &r->raw;
		r->capover = 0;
		cj_skipvalue(r);
		r->cap = NULL;
		if (r->capover)
			v->null = 1;
		else
			buf_add(&r->arena, r->raw.p, r->raw.len);
	} else {
		v->kind = cj_lit(r);
		if (v->kind == CJ_NUMBER)
			buf_add(&r->arena, r->tok.p, r->tok.len);
	}
	v->n = r->arena.len - v->off;
	buf_addc(&r->arena, '\0');
	r->field = NULL;
}

/*
 * An object of known members: each of key[0..n) captured into v[],
 * others skipped, each key read into k.  0 when the value is no object
 * (skipped; v all absent).
 */
static int
knownobj(struct cj *r, struct slot *v, const char *const *key, int n, struct buf *k)
{
	int first = 1, i;

	for (i = 0; i < n; i++)
		v[i].kind = CJ_ABSENT;
	if (peekc(r) != '{') {
		cj_skipvalue(r);
		return 0;
	}
	cj_push(r);
	while (cj_member(r, &first, k)) {
		for (i = 0; i < n; i++)
			if (keyis(k, key[i]))
				break;
		if (i < n)
			capture(r, &v[i], key[i]);
		else
			cj_skipvalue(r);
	}
	return 1;
}

static void
timeinfo(struct cj *r)
{
	r->has_time = knownobj(r, r->t, timekey, T_N, &r->k5);
}

static void
bwinfo(struct cj *r)
{
	int first = 1;

	r->ntr = 0;
	r->has_bw = peekc(r) == '{';
	if (!r->has_bw) {
		cj_skipvalue(r);
		return;
	}
	cj_push(r);
	while (cj_member(r, &first, &r->k5)) {
		struct tslot *t = NULL;
		int i;

		/* A repeated key replaces the value in place, as in libjq. */
		for (i = 0; i < r->ntr; i++)
			if (r->tr[i].namelen == r->k5.len &&
			    memcmp(r->arena.p + r->tr[i].name, r->k5.p, r->k5.len) == 0)
				t = &r->tr[i];
		if (t == NULL) {
			if (r->ntr == r->trcap) {
				r->trcap = r->trcap ? 2 * r->trcap : 8;
				r->tr = xreallocarray(r->tr, (size_t)r->trcap, sizeof *r->tr);
			}
			t = &r->tr[r->ntr++];
			t->name = r->arena.len;
			t->namelen = r->k5.len;
			buf_add(&r->arena, r->k5.p, r->k5.len);
			buf_addc(&r->arena, '\0');
		}
		t->isobj = knownobj(r, t->v, bwkey, 3, &r->k6);
	}
}

static void
opbegin(struct cj *r)
{
	r->arena.len = 0;
	buf_grow(&r->arena, 0);
	for (int i = 0; i < T_N; i++)
		r->t[i].kind = CJ_ABSENT;
	r->has_time = r->has_bw = 0;
	r->ntr = 0;
}

/* One member of an op object: the key in kb, at its value. */
static void
opmember(struct cj *r, const struct buf *kb)
{
	if (keyis(kb, "Communication Time Info"))
		timeinfo(r);
	else if (keyis(kb, "Communication Bandwidth Info"))
		bwinfo(r);
	else
		cj_skipvalue(r);
}

static void
setval(const struct cj *r, struct cjval *v, const struct slot *s)
{
	v->kind = s->kind;
	v->s = s->kind == CJ_ABSENT || s->null ? NULL : r->arena.p + s->off;
	v->n = v->s ? s->n : 0;
}

static void
opend(struct cj *r, const struct buf *step, const char *kind, size_t kindlen,
    const struct buf *key, cj_fn fn, void *arg)
{
	struct cjop op;
	struct cjval *tv[T_N] = { &op.start_us, &op.elapse_ms, &op.transit_ms, &op.wait_ms,
	    &op.sync_ms, &op.idle_ms, &op.wait_ratio, &op.sync_ratio };

	if (fn == NULL)
		return;
	memset(&op, 0, sizeof op);
	op.step = step ? step->p : NULL;
	op.steplen = step ? step->len : 0;
	op.kind = kind;
	op.kindlen = kindlen;
	op.key = key->p;
	op.keylen = key->len;
	op.isobj = r->isobj;
	op.has_time = r->has_time;
	for (int i = 0; i < T_N; i++)
		setval(r, tv[i], &r->t[i]);
	op.has_bw = r->has_bw;
	if (r->ntr > r->outcap) {
		r->outcap = r->ntr;
		r->out = xreallocarray(r->out, (size_t)r->outcap, sizeof *r->out);
	}
	for (int i = 0; i < r->ntr; i++) {
		struct cjtransport *t = &r->out[i];

		t->name = r->arena.p + r->tr[i].name;
		t->namelen = r->tr[i].namelen;
		t->isobj = r->tr[i].isobj;
		setval(r, &t->size_mb, &r->tr[i].v[0]);
		setval(r, &t->time_ms, &r->tr[i].v[1]);
		setval(r, &t->bandwidth_gbps, &r->tr[i].v[2]);
	}
	op.ntransport = r->ntr;
	op.transport = r->out;
	if (fn(&op, arg) != 0) {
		r->code = CJ_ESTOP;
		longjmp(r->jb, 1);
	}
}

static void
document(struct cj *r, cj_fn fn, void *arg)
{
	int c, f1 = 1;

	/* A byte order mark, as libjq skips it. */
	if (peekc(r) == 0xef && r->len - r->pos >= 3 && memcmp(r->b + r->pos, "\xef\xbb\xbf", 3) == 0)
		r->pos += 3;
	c = ws(r);
	if (c == EOF)
		cj_fail(r, here(r), here(r) ? "no JSON value" : "empty file");
	if (c != '{') {
		cj_skipvalue(r);
		if (ws(r) != EOF)
			cj_unexpected(r, "end of file after the JSON value");
		r->code = CJ_ENOTOBJ;
		return;
	}
	cj_push(r);
	while (cj_member(r, &f1, &r->k1)) {
		int f2 = 1;

		if (peekc(r) != '{') {
			cj_skipvalue(r);
			continue;
		}
		cj_push(r);
		if (!cj_member(r, &f2, &r->k2))
			continue;
		if (keyis(&r->k2, "Communication Time Info") ||
		    keyis(&r->k2, "Communication Bandwidth Info")) {
			/* msprof: k1 is the op. */
			opbegin(r);
			r->isobj = 1;
			do
				opmember(r, &r->k2);
			while (cj_member(r, &f2, &r->k2));
			opend(r, NULL, "collective", strlen("collective"), &r->k1, fn, arg);
			continue;
		}
		/* torch_npu: k1 is the step, k2 the kind, k3 the op. */
		do {
			int f3 = 1;

			if (peekc(r) != '{') {
				cj_skipvalue(r);
				continue;
			}
			cj_push(r);
			while (cj_member(r, &f3, &r->k3)) {
				int f4 = 1;

				opbegin(r);
				r->isobj = peekc(r) == '{';
				if (!r->isobj)
					cj_skipvalue(r);
				else {
					cj_push(r);
					while (cj_member(r, &f4, &r->k4))
						opmember(r, &r->k4);
				}
				opend(r, &r->k1, r->k2.p, r->k2.len, &r->k3, fn, arg);
			}
		} while (cj_member(r, &f2, &r->k2));
	}
	if (ws(r) != EOF)
		cj_unexpected(r, "end of file after the JSON value");
}

/* Line of byte offset off in path (1-based), by counting newlines. */
static unsigned long
lineof(const char *path, uint64_t off)
{
	FILE *fp = fopen(path, "r");
	unsigned long line = 1;
	char b[CHUNK];
	size_t n;

	if (fp == NULL)
		return 0;
	while (off > 0 && (n = fread(b, 1, off < sizeof b ? (size_t)off : sizeof b, fp)) > 0) {
		for (const char *p = b; (p = memchr(p, '\n', n - (size_t)(p - b))) != NULL; p++)
			line++;
		off -= n;
	}
	fclose(fp);
	return line;
}

int
cj_read(const char *path, cj_fn fn, void *arg, char *err, size_t errlen)
{
	struct cj *r = xcalloc(1, sizeof *r);
	int code, e;

	if ((r->fp = fopen(path, "r")) == NULL) {
		e = errno;
		snprintf(err, errlen, "%s", strerror(e));
		free(r);
		errno = e;
		return CJ_EIO;
	}
	r->b = xmalloc(CHUNK);
	if (setjmp(r->jb) == 0)
		document(r, fn, arg);
	code = r->code;
	e = r->eno ? r->eno : EIO;
	if (code == CJ_ESYNTAX) {
		snprintf(err, errlen, "line %lu, byte %llu: %s", lineof(path, r->erroff),
		    (unsigned long long)r->erroff, r->emsg);
	} else if (code == CJ_ENOTOBJ)
		snprintf(err, errlen, "top level is not an object");
	else if (code == CJ_ESTOP)
		snprintf(err, errlen, "stopped");
	else if (code == CJ_EIO)
		snprintf(err, errlen, "%s", strerror(e));
	fclose(r->fp);
	free(r->b);
	buf_free(&r->k1), buf_free(&r->k2), buf_free(&r->k3), buf_free(&r->k4);
	buf_free(&r->k5), buf_free(&r->k6), buf_free(&r->tok), buf_free(&r->raw), buf_free(&r->arena);
	free(r->tr);
	free(r->out);
	free(r);
	if (code == CJ_EIO)
		errno = e;
	return code;
}
