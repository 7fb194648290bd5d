/* commjson_rec: an op of communication.json as a comm record, and the
 * conversions it needs (step names, microseconds, ratios). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <jv.h>

#include "commjson.h"
#include "commjson_int.h"
#include "dec.h"
#include "rec.h"
#include "util.h"

/* Is the number text n digits that libjq prints back unchanged? */
static int
plainint(const char *s, size_t n)
{
	if (n == 0 || n > 15 || (s[0] == '0' && n > 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

/* A value under key, numbers in libjq's shortest form of the double. */
static void
putval(struct buf *b, const char *key, const struct cjval *v)
{
	jv x, t;

	switch (v->kind) {
	case CJ_STRING:
		out_str(b, key, v->s, v->n);
		break;
	case CJ_NUMBER:
	case CJ_ARRAY:
	case CJ_OBJECT:
		if (v->kind == CJ_NUMBER && plainint(v->s, v->n)) {
			out_raw(b, key, v->s, v->n);
			break;
		}
		x = v->s ? jv_parse_sized(v->s, (int)v->n) : jv_invalid();
		if (!jv_is_valid(x)) {
			jv_free(x);
			out_null(b, key);
			break;
		}
		t = jv_dump_string(x, 0);
		out_raw(b, key, jv_string_value(t), strlen(jv_string_value(t)));
		jv_free(t);
		break;
	case CJ_TRUE:
		out_raw(b, key, "true", 4);
		break;
	case CJ_FALSE:
		out_raw(b, key, "false", 5);
		break;
	default:
		out_null(b, key);
	}
}

void
cj_putrec(struct buf *b, const char *profile, const char *src, const struct cjrec *r)
{
	static const struct cjval absent = { .kind = CJ_ABSENT };
	struct buf t = {0};

	b->len = 0;
	out_begin(b, "comm");
	out_cstr(b, "profile", profile);
	out_cstr(b, "src", src);
	if (r->step)
		out_str(b, "step", r->step, r->steplen);
	else
		out_null(b, "step");
	out_str(b, "kind", r->kind, r->kindlen);
	out_str(b, "op", r->op, r->oplen);
	if (r->group)
		out_str(b, "group", r->group, r->grouplen);
	else
		out_null(b, "group");
	if (r->has_start)
		out_i64(b, "start_ns", r->start_ns);
	else
		out_null(b, "start_ns");
	putval(b, "elapse_ms", &r->elapse_ms);
	putval(b, "transit_ms", &r->transit_ms);
	putval(b, "wait_ms", &r->wait_ms);
	putval(b, "sync_ms", &r->sync_ms);
	putval(b, "idle_ms", &r->idle_ms);
	putval(b, "wait_ratio", &r->wait_ratio);
	putval(b, "sync_ratio", &r->sync_ratio);
	out_key(b, "bandwidth");
	buf_addc(b, '{');
	for (int i = 0; i < r->ntransport; i++) {
		const struct cjtransport *tr = &r->transport[i];

		if (i > 0)
			buf_addc(b, ',');
		out_esc(b, tr->name, tr->namelen);
		buf_addc(b, ':');
		/* out_* lead with a comma: the object's first one becomes '{' */
		t.len = 0;
		putval(&t, "size_mb", tr->isobj ? &tr->size_mb : &absent);
		putval(&t, "time_ms", tr->isobj ? &tr->time_ms : &absent);
		putval(&t, "bandwidth_gbps", tr->isobj ? &tr->bandwidth_gbps : &absent);
		buf_addc(b, '{');
		buf_add(b, t.p + 1, t.len - 1);
		buf_addc(b, '}');
	}
	buf_addc(b, '}');
	buf_add(b, "}\n", 2);
	buf_free(&t);
}

const char *
cj_step(const char *key, size_t n, size_t *len)
{
	if (n == 4 && memcmp(key, "step", 4) == 0)
		return NULL;
	if (n >= 4 && memcmp(key, "step", 4) == 0)
		key += 4, n -= 4;
	*len = n;
	return key;
}

int
cj_us2ns(double us, int64_t *ns)
{
	char t[64];

	snprintf(t, sizeof t, "%.3f", us);
	return dec_us2ns(t, strlen(t), ns);
}

void
cj_ratio(double part, double transit, char *t, size_t nt)
{
	double den = part + transit;
	size_t n;

	snprintf(t, nt, "%.4f", den != 0 ? part / den : 0.0);
	/* "0.5000" -> "0.5", "1.0000" -> "1" */
	n = strlen(t);
	while (n > 0 && t[n - 1] == '0')
		t[--n] = '\0';
	if (n > 0 && t[n - 1] == '.')
		t[--n] = '\0';
}

void
cj_oprec(const struct cjop *op, struct cjrec *r)
{
	*r = (struct cjrec){
		.kind = op->kind, .kindlen = op->kindlen, .op = op->key, .oplen = op->keylen,
		.elapse_ms = op->elapse_ms, .transit_ms = op->transit_ms, .wait_ms = op->wait_ms,
		.sync_ms = op->sync_ms, .idle_ms = op->idle_ms, .wait_ratio = op->wait_ratio,
		.sync_ratio = op->sync_ratio, .ntransport = op->has_bw ? op->ntransport : 0,
		.transport = op->transport
	};
	if (op->step)
		r->step = cj_step(op->step, op->steplen, &r->steplen);
}
