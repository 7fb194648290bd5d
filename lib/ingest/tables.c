/* tables: the small files of a profile beside its events. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "cell.h"
#include "commjson.h"
#include "csvline.h"
#include "dec.h"
#include "rec.h"
#include "tables.h"
#include "util.h"

/* A bad row or file: the caller's tc->bad() says it (and may exit). */
#define tbad(tc, ...)	sayf((tc)->bad, __VA_ARGS__)

static void
twarn(const struct tab_ctx *tc, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
twarn(const struct tab_ctx *tc, const char *code, const char *fmt, ...)
{
	char m[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	tc->warn(code, m);
}

/*
 * Row r (csv_next's answer) of a table of ncols columns, counted: 1 to
 * use, 0 to pass over (a row of other width) or -1 to stop (unreadable),
 * each said.
 */
static int
rowcheck(const struct tab_ctx *tc, struct src_file *pf, const struct csvin *c,
    int r, int ncols)
{
	pf->read++;
	if (r >= 0 && c->nf == ncols)
		return 1;
	pf->rejected++;
	if (r < 0)
		tbad(tc, "%s:%lu: %s", pf->path, c->recline, c->err);
	else
		tbad(tc, "%s:%lu: %d fields, header has %d", pf->path, c->recline, c->nf, ncols);
	return r < 0 ? -1 : 0;
}

/* A table row's record begun: its type, profile and "src" FILE:LINE. */
static void
rowhead(struct buf *b, const char *type, const char *profile,
    const struct src_file *pf, const struct csvin *c)
{
	char src[300];

	out_begin(b, type);
	out_cstr(b, "profile", profile);
	snprintf(src, sizeof src, "%s:%lu", pf->base, c->recline);
	out_cstr(b, "src", src);
}

static int
colidx(struct csvin *c, const char *name)
{
	for (int i = 0; i < c->nf; i++) {
		size_t n;
		const char *h = csv_field(c, i, &n);

		if (strlen(name) == n && memcmp(h, name, n) == 0)
			return i;
	}
	return -1;
}

/*
 * A number cell that would be written as null or as a string though it is
 * not null-like: NaN, Infinity, hexadecimal, 1e400 (past a double or past
 * int64 ns): 1; a negative duration: 2.  kind: 'u' microseconds, 'd' a
 * duration in microseconds (not negative), 'i' integer, 'n' number.
 */
static int
badcell(const char *s, size_t n, int kind)
{
	char t[64];
	double d;
	int64_t v;

	cell_trim(&s, &n);
	if (cell_isnull(s, n))
		return 0;
	if (!cell_isnum(s, n) || n >= sizeof t)
		return 1;
	if (kind == 'u' || kind == 'd') {
		if (dec_us2ns(s, n, &v) != 0)
			return 1;
		return kind == 'd' && v < 0 ? 2 : 0;
	}
	if (kind == 'i')
		return cell_int(s, n, &v) != 0;
	memcpy(t, s, n);
	t[n] = '\0';
	d = strtod(t, NULL);
	return !isfinite(d);
}

/* A row with a bad number cell is refused (-k: skipped and counted). */
static int
badrow(const struct tab_ctx *tc, struct src_file *pf, const struct csvin *c, int col,
    const char *name, int kind)
{
	const char *s;
	size_t n;
	int bad;

	if (col < 0)
		return 0;
	s = csv_field(c, col, &n);
	if ((bad = badcell(s, n, kind)) == 0)
		return 0;
	pf->rejected++;
	tbad(tc, "%s:%lu: column \"%s\": %s: '%s'", pf->path, c->recline, name,
	    bad == 2 ? "a negative time" : "not a number", cell_snip(s, n));
	return 1;
}

/* A µs figure as its text and exact ns: "preparing_us" and "preparing_ns". */
static void
put_us(struct buf *b, const char *key, const char *s, size_t n)
{
	char k[64];
	int64_t v;

	cell_trim(&s, &n);
	snprintf(k, sizeof k, "%s_us", key);
	cell_putnum(b, k, s, n);
	snprintf(k, sizeof k, "%s_ns", key);
	if (!cell_isnull(s, n) && dec_us2ns(s, n, &v) == 0)
		out_i64(b, k, v);
	else
		out_null(b, k);
}

void
tab_steptrace(const struct tab_ctx *tc, struct src_file *pf, const char *profile)
{
	static const struct { const char *col, *key; } m[] = {
		{ "Computing", "computing" },
		{ "Communication(Not Overlapped)", "comm_not_overlapped" },
		{ "Overlapped", "overlapped" },
		{ "Communication", "comm" },
		{ "Free", "free" },
		{ "Stage", "stage" },
		{ "Bubble", "bubble" },
		{ "Communication(Not Overlapped and Exclude Receive)", "comm_not_overlapped_exclude_receive" },
		{ "Preparing", "preparing" },
	};
	struct csvin c;
	int idx[9], istep, idev, ncols, r;
	struct buf b = {0};

	if (csv_open(&c, pf->path) != 0)
		dieerr("%s", pf->path);
	if ((r = csv_next(&c)) <= 0) {
		twarn(tc, "bad_step_trace", "%s: empty or unreadable, not used", pf->base);
		csv_close(&c);
		return;
	}
	ncols = c.nf;
	istep = colidx(&c, "Step");
	idev = colidx(&c, "Device_id");
	for (int i = 0; i < 9; i++)
		idx[i] = colidx(&c, m[i].col);
	while ((r = csv_next(&c)) != 0) {
		const char *s;
		size_t n;

		if ((r = rowcheck(tc, pf, &c, r, ncols)) <= 0) {
			if (r < 0)
				break;
			continue;
		}
		{
			int bad = badrow(tc, pf, &c, idev, "Device_id", 'i');

			for (int i = 0; i < 9 && !bad; i++)
				bad = badrow(tc, pf, &c, idx[i], m[i].col, 'd');
			if (bad)
				continue;
		}
		rowhead(&b, "step_trace", profile, pf, &c);
		if (idev >= 0) {
			s = csv_field(&c, idev, &n);
			cell_putint(&b, "device", s, n);
		} else
			out_null(&b, "device");
		if (istep >= 0) {
			s = csv_field(&c, istep, &n);
			cell_putstr(&b, "step", s, n, 0);
		} else
			out_null(&b, "step");
		for (int i = 0; i < 9; i++)
			if (idx[i] >= 0) {
				s = csv_field(&c, idx[i], &n);
				put_us(&b, m[i].key, s, n);
			}
		buf_add(&b, "}\n", 2);
		buf_add(tc->out, b.p, b.len);
		pf->emitted++;
	}
	buf_free(&b);
	csv_close(&c);
}

/* total plus a Count cell; -1 when the cell is not a plain count. */
static int64_t
addcount(int64_t total, const char *s, size_t n)
{
	int64_t v = 0;

	cell_trim(&s, &n);
	if (!cell_plainint(s, n) || n > 18)
		return -1;
	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v > INT64_MAX - total ? -1 : total + v;
}

int64_t
tab_opstat(const struct tab_ctx *tc, struct src_file *pf, const char *profile)
{
	static const struct { const char *col, *key; int num; } m[] = {
		{ "Device_id", "device", 2 },
		{ "OP Type", "op_type", 0 },
		{ "Core Type", "core_type", 0 },
		{ "Count", "count", 2 },
		{ "Total Time(us)", "total_us", 1 },
		{ "Min Time(us)", "min_us", 1 },
		{ "Avg Time(us)", "avg_us", 1 },
		{ "Max Time(us)", "max_us", 1 },
		{ "Ratio(%)", "ratio_pct", 1 },
	};
	struct csvin c;
	int idx[9], ncols, r;
	struct buf b = {0};
	int64_t total = 0;

	if (csv_open(&c, pf->path) != 0)
		dieerr("%s", pf->path);
	if (csv_next(&c) <= 0) {
		twarn(tc, "bad_op_statistic", "%s: empty or unreadable, not used", pf->base);
		csv_close(&c);
		return -1;
	}
	ncols = c.nf;
	for (int i = 0; i < 9; i++)
		idx[i] = colidx(&c, m[i].col);
	if (idx[3] < 0)
		total = -1;
	while ((r = csv_next(&c)) != 0) {
		if ((r = rowcheck(tc, pf, &c, r, ncols)) <= 0) {
			if (r < 0)
				break;
			continue;
		}
		{
			int bad = 0;

			for (int i = 0; i < 9 && !bad; i++)
				if (m[i].num)
					bad = badrow(tc, pf, &c, idx[i], m[i].col, m[i].num == 2 ? 'i' : 'n');
			if (bad)
				continue;
		}
		rowhead(&b, "op_stat", profile, pf, &c);
		for (int i = 0; i < 9; i++) {
			const char *s;
			size_t n;

			if (idx[i] < 0) {
				out_null(&b, m[i].key);
				continue;
			}
			s = csv_field(&c, idx[i], &n);
			if (i == 3 && total >= 0)
				total = addcount(total, s, n);
			if (m[i].num == 2)
				cell_putint(&b, m[i].key, s, n);
			else if (m[i].num == 1)
				cell_putnum(&b, m[i].key, s, n);
			else
				cell_putstr(&b, m[i].key, s, n, 0);
		}
		buf_add(&b, "}\n", 2);
		buf_add(tc->out, b.p, b.len);
		pf->emitted++;
	}
	buf_free(&b);
	csv_close(&c);
	return total;
}

/* Parse a whole small JSON file with libjq; invalid on failure. */
static jv
readjson(const struct tab_ctx *tc, struct src_file *pf)
{
	FILE *fp = fopen(pf->path, "r");
	struct buf b = {0};
	char chunk[65536];
	size_t n;
	jv v;

	if (fp == NULL)
		dieerr("%s", pf->path);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	if (ferror(fp))
		dieerr("%s", pf->path);
	fclose(fp);
	v = b.len ? jv_parse_sized(b.p, (int)b.len) : jv_invalid_with_msg(jv_string("empty file"));
	buf_free(&b);
	if (!jv_is_valid(v)) {
		jv msg = jv_invalid_get_msg(v);
		const char *s = jv_get_kind(msg) == JV_KIND_STRING ? jv_string_value(msg) : "invalid JSON";
		const char *cut = strstr(s, " (while parsing");

		twarn(tc, "bad_json", "%s: %.*s; file not used", pf->base,
		    cut ? (int)(cut - s) : (int)strlen(s), s);
		pf->unusable = 1;
		jv_free(msg);
		return jv_invalid();
	}
	return v;
}

static jv
jget(jv o, const char *k)
{
	if (jv_get_kind(o) != JV_KIND_OBJECT) {
		jv_free(o);
		return jv_invalid();
	}
	return jv_object_get(o, jv_string(k));
}

/* Write a jv scalar under key: numbers keep libjq's shortest form. */
static void
put_jv(struct buf *b, const char *key, jv v)
{
	switch (jv_get_kind(v)) {
	case JV_KIND_STRING:
		out_str(b, key, jv_string_value(v), (size_t)jv_string_length_bytes(jv_copy(v)));
		break;
	case JV_KIND_NUMBER:
	case JV_KIND_TRUE:
	case JV_KIND_FALSE:
	case JV_KIND_ARRAY:
	case JV_KIND_OBJECT: {
		jv s = jv_dump_string(jv_copy(v), 0);

		out_raw(b, key, jv_string_value(s), strlen(jv_string_value(s)));
		jv_free(s);
		break;
	}
	default:
		out_null(b, key);
	}
	jv_free(v);
}

/*
 * communication.json is read by the streaming lib/ingest/commjson reader, twice:
 * tab_comm_read() checks it, counts its ops and, when the profile has no other
 * time origin, finds the smallest op start; tab_comm_put() writes the comm
 * records straight to the output at their place in the stream.  Memory
 * stays that of one op whatever the size of the file.
 */

/* Start of one communication op in exact ns, or -1. */
static int
commstart(const struct cjop *op, int64_t *ns)
{
	/* Written by Python as a float: ~0.25 us resolution at epoch scale.
	 * Formatted from the double as before, not from the text. */
	if (!op->has_time || op->start_us.kind != CJ_NUMBER)
		return -1;
	return cj_us2ns(strtod(op->start_us.s, NULL), ns);
}

static int
istotal(const struct cjop *op)
{
	return op->keylen >= 5 && memcmp(op->key, "Total", 5) == 0;
}

struct commscan {
	const struct tab_ctx *tc;
	struct src_file	*pf;
	int64_t		 min;
};

/*
 * Whether figure v of an op is bad: 0 no; "not a number" for what libjq
 * reads but is no number (NaN, Infinity, 1e400) or a string, array,
 * object or boolean ("0x1F" quoted); "a negative time" for a time or size
 * (dur set) below zero.
 */
static const char *
commbadval(const struct cjval *v, int dur)
{
	double d;

	if (v->kind == CJ_ABSENT || v->kind == CJ_NULL)
		return NULL;
	if (v->kind != CJ_NUMBER || v->s == NULL || !isfinite(d = strtod(v->s, NULL)))
		return "not a number";
	return dur && d < 0 ? "a negative time or size" : NULL;
}

/* The first bad figure of an op: its name (the reason and the value in
 * *why and *val), or NULL. */
static const char *
commbadnum(const struct cjop *op, const char **why, const char **val)
{
	const struct { const char *name; const struct cjval *v; int dur; } f[] = {
		{ "Start Timestamp(us)", &op->start_us, 0 }, { "Elapse Time(ms)", &op->elapse_ms, 1 },
		{ "Transit Time(ms)", &op->transit_ms, 1 }, { "Wait Time(ms)", &op->wait_ms, 1 },
		{ "Synchronization Time(ms)", &op->sync_ms, 1 }, { "Idle Time(ms)", &op->idle_ms, 1 },
		{ "Wait Time Ratio", &op->wait_ratio, 0 },
		{ "Synchronization Time Ratio", &op->sync_ratio, 0 },
	};

	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		if ((*why = commbadval(f[i].v, f[i].dur)) != NULL) {
			*val = f[i].v->s ? f[i].v->s : "";
			return f[i].name;
		}
	for (int i = 0; op->has_bw && i < op->ntransport; i++) {
		const struct cjtransport *t = &op->transport[i];

		if (!t->isobj)
			continue;
		if ((*why = commbadval(&t->size_mb, 1)) != NULL) {
			*val = t->size_mb.s ? t->size_mb.s : "";
			return "Transit Size(MB)";
		}
		if ((*why = commbadval(&t->time_ms, 1)) != NULL) {
			*val = t->time_ms.s ? t->time_ms.s : "";
			return "Transit Time(ms)";
		}
		if ((*why = commbadval(&t->bandwidth_gbps, 1)) != NULL) {
			*val = t->bandwidth_gbps.s ? t->bandwidth_gbps.s : "";
			return "Bandwidth(GB/s)";
		}
	}
	return NULL;
}

/* Pass 1: count the ops, find the smallest start. */
static int
commcount(const struct cjop *op, void *arg)
{
	struct commscan *cs = arg;
	const char *bad, *why, *val;
	int64_t ns;

	if (commstart(op, &ns) == 0 && ns < cs->min)
		cs->min = ns;
	if (istotal(op))
		return 0;
	cs->pf->read++;
	if (op->has_time && (bad = commbadnum(op, &why, &val)) != NULL) {
		cs->pf->rejected++;
		tbad(cs->tc, "%s: op \"%.*s\": \"%s\": %s: '%s'", cs->pf->path,
		    (int)op->keylen, op->key, bad, why, cell_snip(val, strlen(val)));
	} else if (op->has_time)
		cs->pf->emitted++;
	else
		cs->pf->rejected++;
	return 0;
}

/*
 * Check the file and count its ops; *origin, if unknown (INT64_MAX),
 * becomes the smallest op start.  A bad file is said in a warning and not
 * used (nothing counted, nothing written by tab_comm_put).
 */
void
tab_comm_read(const struct tab_ctx *tc, struct src_file *pf, int64_t *origin)
{
	struct commscan cs = { .tc = tc, .pf = pf, .min = INT64_MAX };
	char err[256];
	int r;

	r = cj_read(pf->path, commcount, &cs, err, sizeof err);
	if (r == CJ_EIO)
		dieerr("%s", pf->path);
	if (r != 0) {
		pf->read = pf->emitted = pf->rejected = 0;
		pf->unusable = 1;
		if (r == CJ_ENOTOBJ)
			twarn(tc, "bad_communication", "%s: top level is not an object; file not used", pf->base);
		else
			twarn(tc, "bad_json", "%s: %s; file not used", pf->base, err);
		return;
	}
	if (*origin == INT64_MAX)
		*origin = cs.min;
}

struct commput {
	const char	*profile;
	const struct src_file *pf;
	int64_t		 origin;
	struct buf	 b;
};

/* Pass 2: one comm record per op. */
static int
commput(const struct cjop *op, void *arg)
{
	struct commput *cp = arg;
	const char *why, *val;
	struct cjrec r;

	if (istotal(op) || !op->has_time || commbadnum(op, &why, &val))
		return 0;
	cj_oprec(op, &r);
	/* The op name is up to the last '@', the group after it. */
	for (size_t i = op->keylen; i-- > 0; )
		if (op->key[i] == '@') {
			r.oplen = i;
			r.group = op->key + i + 1;
			r.grouplen = op->keylen - i - 1;
			break;
		}
	if (commstart(op, &r.start_ns) == 0) {
		r.has_start = 1;
		r.start_ns -= cp->origin;
	}
	cj_putrec(&cp->b, cp->profile, cp->pf->base, &r);
	if (fwrite(cp->b.p, 1, cp->b.len, stdout) != cp->b.len)
		dieerr("stdout");
	return 0;
}

/* Write the comm records of a file tab_comm_read() accepted. */
void
tab_comm_put(const struct src_file *pf, const char *profile, int64_t origin)
{
	struct commput cp = { .profile = profile, .pf = pf, .origin = origin };
	char err[256];
	int r;

	if (pf->emitted == 0)
		return;
	r = cj_read(pf->path, commput, &cp, err, sizeof err);
	if (r == CJ_EIO)
		dieerr("%s", pf->path);
	if (r != 0)
		die("%s: %s (changed while read?)", pf->path, err);
	buf_free(&cp.b);
}

/*
 * communication_matrix.json: step -> "p2p" | "collective" ->
 * "<op>@<group>" -> "src-dst" -> {transport, size, time, bandwidth}.  A
 * small file (one entry per link and op class): read whole with libjq.
 * Each link becomes a comm_link record; anything else is counted rejected.
 */
static jv commx;
static int havecommx;

static int
islink(jv l)
{
	return jv_get_kind(l) == JV_KIND_OBJECT;
}

/*
 * The first bad figure of a link (a size, time or bandwidth that is no
 * finite number, or is negative): its name, the reason in *why and the
 * value in t; else NULL.
 */
static const char *
linkbad(jv l, const char **why, char *t, size_t nt)
{
	static const char *const key[] = { "Transit Size(MB)", "Transit Time(ms)", "Bandwidth(GB/s)" };

	for (size_t i = 0; i < sizeof key / sizeof key[0]; i++) {
		jv v = jv_object_get(jv_copy(l), jv_string(key[i]));
		jv_kind k = jv_get_kind(v);
		jv d;

		if (k == JV_KIND_INVALID || k == JV_KIND_NULL) {
			jv_free(v);
			continue;
		}
		if (k == JV_KIND_NUMBER && isfinite(jv_number_value(v)) && jv_number_value(v) >= 0) {
			jv_free(v);
			continue;
		}
		*why = k == JV_KIND_NUMBER && isfinite(jv_number_value(v)) ?
		    "a negative time or size" : "not a number";
		d = jv_dump_string(v, 0);
		snprintf(t, nt, "%s", cell_snip(jv_string_value(d), strlen(jv_string_value(d))));
		jv_free(d);
		return key[i];
	}
	return NULL;
}

/*
 * Each link of a communication matrix: step -> kind -> op -> link, every
 * level an object (a member that is none is passed over); fn sees the
 * keys of the four levels and the link.  m stays the caller's.
 */
static void
commx_each(jv m, void (*fn)(void *, jv sk, jv kk, jv ok, jv lk, jv lv), void *arg)
{
	jv_object_foreach(m, sk, sv) {
		if (jv_get_kind(sv) == JV_KIND_OBJECT)
			jv_object_foreach(sv, kk, kv) {
				if (jv_get_kind(kv) == JV_KIND_OBJECT)
					jv_object_foreach(kv, ok, ov) {
						if (jv_get_kind(ov) == JV_KIND_OBJECT)
							jv_object_foreach(ov, lk, lv) {
								fn(arg, sk, kk, ok, lk, lv);
								jv_free(lk);
								jv_free(lv);
							}
						else
							jv_free(ov);
						jv_free(ok);
					}
				else
					jv_free(kv);
				jv_free(kk);
			}
		else
			jv_free(sv);
		jv_free(sk);
	}
}

struct commx_arg {
	const struct tab_ctx	*tc;
	const struct src_file	*cpf;
	struct src_file		*pf;
	struct buf		*b;
	const char		*profile;
};

/* A link read: counted, and said when bad. */
static void
commx_check(void *arg, jv sk, jv kk, jv ok, jv lk, jv lv)
{
	struct commx_arg *a = arg;
	struct src_file *pf = a->pf;
	const char *bad, *why;
	char t[64];

	(void)sk;
	(void)kk;
	pf->read++;
	if (!islink(lv))
		pf->rejected++;
	else if ((bad = linkbad(lv, &why, t, sizeof t)) != NULL) {
		pf->rejected++;
		tbad(a->tc, "%s: op \"%s\" link \"%s\": \"%s\": %s: '%s'",
		    pf->path, jv_string_value(ok), jv_string_value(lk),
		    bad, why, t);
	} else
		pf->emitted++;
}

void
tab_commx_read(const struct tab_ctx *tc, struct src_file *pf)
{
	jv doc = readjson(tc, pf);
	struct commx_arg a = { .tc = tc, .pf = pf };

	if (!jv_is_valid(doc))
		return;
	if (jv_get_kind(doc) != JV_KIND_OBJECT) {
		twarn(tc, "bad_communication", "%s: top level is not an object; file not used", pf->base);
		pf->unusable = 1;
		jv_free(doc);
		return;
	}
	commx_each(doc, commx_check, &a);
	commx = doc;
	havecommx = 1;
}

/* A string key's text (the key stays owned by the caller). */
static void
put_jvstr(struct buf *b, const char *key, jv s)
{
	out_str(b, key, jv_string_value(s), (size_t)jv_string_length_bytes(jv_copy(s)));
}

/* A good link's "comm_link" record. */
static void
commx_link(void *arg, jv sk, jv kk, jv ok, jv lk, jv lv)
{
	struct commx_arg *a = arg;
	struct buf *b = a->b;
	const char *st = jv_string_value(sk);
	const char *key = jv_string_value(ok), *at = strrchr(key, '@');
	const char *why, *dash;
	char t[64];

	if (!islink(lv) || linkbad(lv, &why, t, sizeof t) != NULL)
		return;
	dash = strchr(jv_string_value(lk), '-');
	b->len = 0;
	out_begin(b, "comm_link");
	out_cstr(b, "profile", a->profile);
	out_cstr(b, "src", a->cpf->base);
	if (strncmp(st, "step", 4) == 0 && st[4])
		out_cstr(b, "step", st + 4);
	else
		out_null(b, "step");
	put_jvstr(b, "kind", kk);
	out_str(b, "op_class", key, at ? (size_t)(at - key) : strlen(key));
	out_cstr(b, "group", at ? at + 1 : NULL);
	put_jvstr(b, "link", lk);
	if (dash) {
		out_str(b, "src_rank", jv_string_value(lk), (size_t)(dash - jv_string_value(lk)));
		out_cstr(b, "dst_rank", dash + 1);
	} else {
		out_null(b, "src_rank");
		out_null(b, "dst_rank");
	}
	put_jv(b, "transport", jv_object_get(jv_copy(lv), jv_string("Transport Type")));
	put_jv(b, "size_mb", jv_object_get(jv_copy(lv), jv_string("Transit Size(MB)")));
	put_jv(b, "time_ms", jv_object_get(jv_copy(lv), jv_string("Transit Time(ms)")));
	put_jv(b, "bandwidth_gbps", jv_object_get(jv_copy(lv), jv_string("Bandwidth(GB/s)")));
	put_jv(b, "op", jv_object_get(jv_copy(lv), jv_string("Op Name")));
	rec_put(b, stdout);
}

void
tab_commx_put(const struct src_file *pf, const char *profile)
{
	struct buf b = {0};
	struct commx_arg a = { .cpf = pf, .b = &b, .profile = profile };

	if (!havecommx)
		return;
	havecommx = 0;
	commx_each(commx, commx_link, &a);
	buf_free(&b);
}


/* Capture configuration from profiler_info*.json, as a JSON object text. */
void
tab_info(const struct tab_ctx *tc, struct src_file *pf, struct buf *cfg, char **level)
{
	jv doc = readjson(tc, pf);
	jv cc, ec, v;
	struct buf b = {0};

	if (!jv_is_valid(doc))
		return;
	cc = jget(jget(jv_copy(doc), "config"), "common_config");
	ec = jget(jget(jv_copy(doc), "config"), "experimental_config");
	v = jget(jv_copy(ec), "_profiler_level");
	if (jv_get_kind(v) == JV_KIND_STRING) {
		free(*level);
		*level = xstrdup(jv_string_value(v));
	}
	put_jv(&b, "level", v);
	put_jv(&b, "record_shapes", jget(jv_copy(cc), "record_shapes"));
	put_jv(&b, "with_stack", jget(jv_copy(cc), "with_stack"));
	put_jv(&b, "with_modules", jget(jv_copy(cc), "with_modules"));
	/* what was recorded, so that advice does not ask for it again */
	put_jv(&b, "activities", jget(jv_copy(cc), "activities"));
	put_jv(&b, "profile_memory", jget(jv_copy(cc), "profile_memory"));
	put_jv(&b, "schedule", jget(jv_copy(cc), "schedule"));
	put_jv(&b, "aic_metrics", jget(jv_copy(ec), "_aic_metrics"));
	put_jv(&b, "export_type", jget(jv_copy(ec), "_export_type"));
	/* GC events are recorded only above a threshold; null: not recorded. */
	put_jv(&b, "gc_detect_threshold", jget(jv_copy(ec), "_gc_detect_threshold"));
	v = jget(jv_copy(doc), "rank_id");
	if (jv_get_kind(v) == JV_KIND_STRING && cell_digits(jv_string_value(v), strlen(jv_string_value(v)))) {
		out_i64(&b, "rank", strtoll(jv_string_value(v), NULL, 10));
		jv_free(v);
	} else
		put_jv(&b, "rank", v);
	put_jv(&b, "torch_npu_version", jget(jv_copy(doc), "torch_npu_version"));
	put_jv(&b, "cann_version", jget(jv_copy(doc), "cann_version"));
	out_cstr(&b, "file", pf->base);
	pf->read = pf->emitted = 1;
	cfg->len = 0;
	buf_addc(cfg, '{');
	buf_add(cfg, b.p + 1, b.len - 1);
	buf_addc(cfg, '}');
	buf_free(&b);
	jv_free(cc);
	jv_free(ec);
	jv_free(doc);
}
