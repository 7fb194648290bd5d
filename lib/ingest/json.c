/* json: the tokenizer of the timeline reader: events as spans. */
#include <stddef.h>

#include "trace_int.h"

/* ---------- JSON scanning ---------- */

/* c->p at '"': span of the body, c->p after the closing quote. */
static int
pstr_slow(struct pc *c, struct span *sp)
{
	const char *p = c->p + 1, *e = c->e;
	int esc = 0;

	for (;;) {
		if ((p = js_stop(p, e)) >= e)
			return P_MORE;
		if (*p == '"')
			break;
		if (*p != '\\') {
			c->ep = p;
			c->what = "control character in string";
			return P_BAD;
		}
		if (e - p < 2)
			return P_MORE;
		esc = 1;
		switch (p[1]) {
		case '"': case '\\': case '/': case 'b': case 'f':
		case 'n': case 'r': case 't':
			p += 2;
			break;
		case 'u':
			if (e - p < 6)
				return P_MORE;
			if (js_hex4(p + 2) < 0) {
				c->ep = p;
				c->what = "bad \\u escape in string";
				return P_BAD;
			}
			p += 6;
			break;
		default:
			c->ep = p;
			c->what = "bad escape in string";
			return P_BAD;
		}
	}
	if (sp) {
		sp->p = c->p + 1;
		sp->n = (size_t)(p - sp->p);
		sp->k = 's';
		sp->esc = esc;
	}
	c->p = p + 1;
	return P_OK;
}

/* pstr, with a fast path for a string of less than 32 bytes without
 * escapes. */
static inline int
pstr(struct pc *c, struct span *sp)
{
#ifdef ASC_SSE2
	const char *p = c->p + 1;

	for (unsigned o = 0; o < 32 && c->e - p >= (ptrdiff_t)o + 16; o += 16) {
		unsigned bits = simd_stop16(p + o);

		if (bits == 0)
			continue;
		/* the first special byte is a quote */
		if (p[o + (unsigned)__builtin_ctz(bits)] == '"') {
			unsigned i = o + (unsigned)__builtin_ctz(bits);

			if (sp) {
				sp->p = p;
				sp->n = i;
				sp->k = 's';
				sp->esc = 0;
			}
			c->p = p + i + 1;
			return P_OK;
		}
		break;
	}
#endif
	return pstr_slow(c, sp);
}

static int
isnumc(int c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' ||
	    c == 'e' || c == 'E';
}

/* Number or literal at c->p. */
static int
pscalar(struct pc *c, struct span *sp)
{
	const char *p = c->p, *e = c->e;
	static const char *const lit[] = { "true", "false", "null" };

#ifdef ASC_SWAR	/* swar_digits8 is fast */
	/* plain -?d+(.d+)? well inside the buffer */
	if (e - p >= 64 && (*p == '-' || (*p >= '0' && *p <= '9'))) {
		const char *q = p + (*p == '-'), *lim = e - 16;
		size_t nd = 0;
		unsigned n;

		do {
			n = swar_digits8(q + nd);
			nd += n;
		} while (n == 8 && q + nd < lim);
		if (n == 8 || nd == 0 || (q[0] == '0' && nd > 1))
			goto general;
		q += nd;
		if (*q == '.') {
			nd = 0;
			do {
				n = swar_digits8(q + 1 + nd);
				nd += n;
			} while (n == 8 && q + 1 + nd < lim);
			if (n == 8 || nd == 0)
				goto general;
			q += 1 + nd;
		}
		if (isnumc((unsigned char)*q))
			goto general;
		p = q;
		goto ok;
	}
general:
#endif
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		int ok;

		/* a number cut by the buffer's end is read again with more */
		if ((p = js_num(p, e, &ok)) == e)
			return P_MORE;
		if (!ok || isnumc((unsigned char)*p)) {
			c->ep = c->p;
			c->what = "bad number";
			return P_BAD;
		}
	} else {
		for (int i = 0; i < 3; i++) {
			size_t n = strlen(lit[i]);

			if (*p != lit[i][0])
				continue;
			if ((size_t)(e - p) < n + 1) {
				if (memcmp(p, lit[i], (size_t)(e - p)) == 0)
					return P_MORE;
				break;
			}
			if (memcmp(p, lit[i], n) == 0 &&
			    !(p[n] >= 'a' && p[n] <= 'z')) {
				p += n;
				goto ok;
			}
			break;
		}
		c->ep = c->p;
		c->what = "unexpected character";
		return P_BAD;
	}
ok:
	if (sp) {
		sp->p = c->p;
		sp->n = (size_t)(p - c->p);
		sp->k = 'v';
		sp->esc = 0;
	}
	c->p = p;
	return P_OK;
}


/* After a member value: ',' (1 more member) or the closer (0). */
static inline __attribute__((always_inline)) int
psep(struct pc *c, int closer, int *more)
{
	c->p = js_ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p == ',') {
		c->p++;
		*more = 1;
		return P_OK;
	}
	if (*c->p == closer) {
		c->p++;
		*more = 0;
		return P_OK;
	}
	c->ep = c->p;
	c->what = closer == '}' ? "expected \",\" or \"}\" in object" :
	    "expected \",\" or \"]\" in array";
	return P_BAD;
}

/* Key string and ':' at c->p (after whitespace). */
int
tr_pkey(struct pc *c, struct span *k)
{
	int r;

	c->p = js_ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p != '"') {
		c->ep = c->p;
		c->what = "expected a string key in object";
		return P_BAD;
	}
	if ((r = pstr(c, k)) != P_OK)
		return r;
	{
		/* the usual ": " */
		const char *p = c->p;

		if (c->e - p >= 3 && p[0] == ':') {
			p += 1 + (p[1] == ' ');
			if (!js_isws((unsigned char)*p)) {
				c->p = p;
				return P_OK;
			}
		}
	}
	c->p = js_ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p != ':') {
		c->ep = c->p;
		c->what = "expected \":\" after key";
		return P_BAD;
	}
	c->p = js_ws(c->p + 1, c->e);
	if (c->p == c->e)
		return P_MORE;
	return P_OK;
}

int
tr_pskip(struct pc *c, int depth)
{
	int r, more;

	c->p = js_ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (depth > MAXDEPTH) {
		c->ep = c->p;
		c->what = "nesting too deep";
		return P_BAD;
	}
	switch (*c->p) {
	case '"':
		return pstr(c, NULL);
	case '{':
		c->p = js_ws(c->p + 1, c->e);
		if (c->p == c->e)
			return P_MORE;
		if (*c->p == '}') {
			c->p++;
			return P_OK;
		}
		do {
			struct span k;

			if ((r = tr_pkey(c, &k)) != P_OK ||
			    (r = tr_pskip(c, depth + 1)) != P_OK ||
			    (r = psep(c, '}', &more)) != P_OK)
				return r;
		} while (more);
		return P_OK;
	case '[':
		c->p = js_ws(c->p + 1, c->e);
		if (c->p == c->e)
			return P_MORE;
		if (*c->p == ']') {
			c->p++;
			return P_OK;
		}
		do {
			if ((r = tr_pskip(c, depth + 1)) != P_OK ||
			    (r = psep(c, ']', &more)) != P_OK)
				return r;
		} while (more);
		return P_OK;
	default:
		return pscalar(c, NULL);
	}
}

/* A value we keep as a span (nested values are skipped, kind 'o'). */
static int
pval(struct pc *c, struct span *sp, int depth)
{
	const char *s = c->p;
	int r;

	if (*c->p == '"')
		return pstr(c, sp);
	if (*c->p == '{' || *c->p == '[') {
		if ((r = tr_pskip(c, depth)) != P_OK)
			return r;
		sp->p = s;
		sp->n = (size_t)(c->p - s);
		sp->k = 'o';
		sp->esc = 0;
		return P_OK;
	}
	return pscalar(c, sp);
}


/* Key text for matching: raw, or unescaped into a small buffer. */
static void
keytext(struct span *k, char *tmp, size_t ntmp)
{
	struct buf o = { 0 };

	if (!k->esc)
		return;
	(void)rec_unesc(&o, k->p, k->n);
	if (o.len < ntmp) {
		memcpy(tmp, o.p, o.len);
		k->p = tmp;
		k->n = o.len;
	} else
		k->n = 0;
	k->esc = 0;
	buf_free(&o);
}

/* A member's value: into dst, or skipped. */
static inline __attribute__((always_inline)) int
pdst(struct pc *c, struct span *dst, int depth)
{
	struct span junk;

	if (dst)
		return pval(c, dst, depth);
	if (*c->p == '"')
		return pstr(c, NULL);
	return pval(c, &junk, depth);
}

/*
 * The members of the object at c->p ('{') into ev: each key read by key,
 * then its value by val (the member's key, its text unescaped).
 */
static inline __attribute__((always_inline)) int
pobj(struct pc *c, struct ev *ev, int (*key)(struct pc *, struct span *),
    int (*val)(struct pc *, struct ev *, const struct span *))
{
	int r, more;
	char tmp[64];

	c->p = js_ws(c->p + 1, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p == '}') {
		c->p++;
		return P_OK;
	}
	do {
		struct span k;

		if ((r = key(c, &k)) != P_OK)
			return r;
		if (k.esc)
			keytext(&k, tmp, sizeof tmp);
		if ((r = val(c, ev, &k)) != P_OK || (r = psep(c, '}', &more)) != P_OK)
			return r;
	} while (more);
	return P_OK;
}

/* The members of an event's "args" that are read, and their fields. */
#define ARG(key, field) { key, sizeof(key) - 1, offsetof(struct ev, field) }
static const struct {
	const char	*key;
	size_t		 n, off;
} argkey[] = {
	ARG("name", aname), ARG("src rank", csrc), ARG("dst rank", cdst),
	ARG("labels", labels), ARG("Task Id", taskid), ARG("Stream Id", stream),
	ARG("Task Type", ttype), ARG("task type", ctt), ARG("stream id", cstream),
	ARG("notify_id", cnotify), ARG("Call stack", stack), ARG("Input Dims", dims),
	ARG("size(Byte)", csize), ARG("transport type", ctrans),
	ARG("Physic Stream Id", pstream),
};
#undef ARG

/* A member of an event's "args". */
static int
argval(struct pc *c, struct ev *ev, const struct span *k)
{
	struct span *dst = NULL;

	for (size_t i = 0; i < sizeof argkey / sizeof argkey[0]; i++)
		if (k->n == argkey[i].n && memcmp(k->p, argkey[i].key, k->n) == 0) {
			dst = (struct span *)(void *)((char *)ev + argkey[i].off);
			break;
		}
	return pdst(c, dst, 2);
}

static int
pargs(struct pc *c, struct ev *ev)
{
	return pobj(c, ev, tr_pkey, argval);
}

/*
 * pkey for the usual keys of an event ("ph", "name", ...): the key
 * text is compared in place, without a scan for its end.
 */
static int
pevkey(struct pc *c, struct span *k)
{
	const char *p = c->p;
	uint64_t w;
	size_t n;

	if (c->e - p >= 24) {
		if (*p == ' ')
			p++;
		if (*p != '"')
			return tr_pkey(c, k);
		memcpy(&w, p + 1, 8);
#define K3(a, b) ((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b) << 8 | \
	(uint64_t)'"' << 16)
#define K4(a, b, d) ((uint64_t)(unsigned char)(a) | (uint64_t)(unsigned char)(b) << 8 | \
	(uint64_t)(unsigned char)(d) << 16 | (uint64_t)'"' << 24)
#define K5(a, b, d, f) (K4(a, b, d) & 0xffffff) | (uint64_t)(unsigned char)(f) << 24 | \
	(uint64_t)'"' << 32
		switch (w & 0xffffff) {
		case K3('p', 'h'):
		case K3('t', 's'):
		case K3('i', 'd'):
			n = 2;
			break;
		default:
			switch (w & 0xffffffff) {
			case K4('p', 'i', 'd'):
			case K4('t', 'i', 'd'):
			case K4('d', 'u', 'r'):
			case K4('c', 'a', 't'):
				n = 3;
				break;
			default:
				switch (w & 0xffffffffffULL) {
				case K5('n', 'a', 'm', 'e'):
				case K5('a', 'r', 'g', 's'):
					n = 4;
					break;
				default:
					return tr_pkey(c, k);
				}
			}
		}
#undef K3
#undef K4
#undef K5
		k->p = p + 1;
		k->n = n;
		k->k = 's';
		k->esc = 0;
		p += n + 2;
		if (p[0] == ':') {
			p += 1 + (p[1] == ' ');
			if (!js_isws((unsigned char)*p)) {
				c->p = p;
				return P_OK;
			}
		}
	}
	return tr_pkey(c, k);
}

/* A member of an event. */
static inline __attribute__((always_inline)) int
evval(struct pc *c, struct ev *ev, const struct span *kp)
{
	struct span k = *kp, *dst = NULL;

	switch (k.n) {
	case 2:
		if (KEYIS(k, "ph"))
			dst = &ev->ph;
		else if (KEYIS(k, "ts"))
			dst = &ev->ts;
		else if (KEYIS(k, "id"))
			dst = &ev->id;
		break;
	case 3:
		if (KEYIS(k, "pid"))
			dst = &ev->pid;
		else if (KEYIS(k, "tid"))
			dst = &ev->tid;
		else if (KEYIS(k, "dur"))
			dst = &ev->dur;
		else if (KEYIS(k, "cat"))
			dst = &ev->cat;
		break;
	case 4:
		if (KEYIS(k, "name"))
			dst = &ev->name;
		else if (KEYIS(k, "args"))
			return *c->p == '{' ? pargs(c, ev) : pdst(c, NULL, 1);
		break;
	}
	return pdst(c, dst, 1);
}

/* c->p at '{' of an event. */
int
tr_pevent(struct pc *c, struct ev *ev)
{
	ev->ph.k = ev->name.k = ev->pid.k = ev->tid.k = ev->ts.k = 0;
	ev->dur.k = ev->cat.k = ev->id.k = ev->stack.k = ev->pstream.k = 0;
	ev->stream.k = ev->taskid.k = ev->ttype.k = ev->aname.k = 0;
	ev->labels.k = ev->dims.k = 0;
	ev->ctt.k = ev->csrc.k = ev->cdst.k = ev->csize.k = ev->ctrans.k = 0;
	ev->cstream.k = ev->cnotify.k = 0;
	return pobj(c, ev, pevkey, evval);
}
