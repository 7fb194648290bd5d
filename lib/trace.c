/* trace: streaming reader of Chrome-trace-style profiler timelines. */
#define _GNU_SOURCE		/* memmem, memrchr */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "dec.h"
#include "rec.h"
#include "trace.h"
#include "util.h"

#define CHUNK		(8u << 20)	/* default read() size */
#define RDBUF		(128u << 10)	/* run reader buffer */
#define MAXRUNS		48		/* runs per set before they are merged */
#define MAXDEPTH	512		/* JSON nesting limit */
#define DEFRUN		((size_t)64 << 20)

enum { R_IGN, R_HOST, R_HW, R_COMM };	/* process roles */
enum { T_IGN, T_HOST, T_DEV };		/* thread (event) roles */
enum { SET_H, SET_O, NSET };		/* spill sets: provisional host, other */

/* Spill record header; name, cat, frame, task type text follow. */
struct shdr {
	int64_t		 start, dur, pid, tid, stream, taskid;
	uint64_t	 off;
	uint32_t	 nname, ncat, nframe, nttype;
	uint32_t	 flags, pad;
};
#define F_CAT		0x01
#define F_STACK		0x02
#define F_FRAME		0x04
#define F_MARK		0x08
#define F_STREAM	0x10
#define F_TASKID	0x20
#define F_TTYPE		0x40

static size_t
slen(const struct shdr *h)
{
	return (size_t)h->nname + h->ncat + h->nframe + h->nttype;
}

struct ridx {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 pos, set;
};

struct run {
	FILE		*fp;
	uint64_t	 n;
};

struct rdr {
	int		 fd;
	uint64_t	 left;
	char		*b;
	size_t		 bpos, blen;
	struct shdr	 h;
	char		*s;
	size_t		 scap;
};

struct mrg {
	struct rdr	*r;
	int		 n, nh;
	int		*hp;
};

struct proc {
	int64_t		 pid;
	char		*name;
	int		 dev;		/* -2 no label, -1 bare "NPU", else id */
	int		 cpu;		/* label CPU */
	int		 role;
	int		 spill_h;	/* some event went to SET_H */
};

struct thr {
	int64_t		 pid, tid;
	char		*name;
	int		 pi;		/* proc index at finalize, or -1 */
	int		 role;		/* T_* at finalize */
	int		 prov;		/* provisional host, valid for gen */
	unsigned long	 gen;
	unsigned long	 nx, nmark;
	int64_t		 minx;
	int		 stack;
};

struct htab {
	int		*slot;		/* index + 1, 0 empty */
	size_t		 cap, n;
};

struct marker {
	int64_t		 start, dur, pid, tid;
	uint64_t	 off;
	size_t		 name, nname, kind, step, nstep;	/* offsets in arena */
};

/* Flow ends: id = the integer id, or a hash of a non-integer id (kind
 * then has bit 0x80); kind 1 async_npu/torch_to_npu, 2 HostToDevice. */
struct flow {
	uint64_t	 id;
	int64_t		 pid, tid, ts;
	int		 kind;
};

struct fend {
	uint64_t	 id;
	int64_t		 ts;
	int		 kind;
};

struct link {
	int64_t		 ts, pid, tid, kts;
};
_Static_assert(sizeof(struct link) <= sizeof(struct flow),
    "links are built over the flow starts");

struct warn {
	const char	*code;
	char		*msg;
};

struct span {
	const char	*p;
	size_t		 n;
	int		 k;		/* 0 missing, 's' string, 'v' scalar, 'o' nested */
	int		 esc;
};

struct ev {
	struct span	 ph, name, pid, tid, ts, dur, cat, id;
	struct span	 stack, pstream, stream, taskid, ttype, aname, labels;
};

struct pc {
	const char	*p, *e;
	const char	*ep;		/* error position */
	const char	*what;
};
enum { P_OK = 0, P_MORE = 1, P_BAD = -1 };

struct trace {
	int		 fd;
	char		*path, *disp, *tmpdir, *pattern;
	size_t		 npattern, runbytes;
	int		 progress, done;
	/* input buffer */
	char		*b;
	size_t		 cap, len, pos;
	uint64_t	 boff;
	unsigned long	 bline;
	int		 eof;
	size_t		 chunk;
	uint64_t	 nread;
	struct timespec	 t0, tlast;
	char		 err[1024];
	/* metadata */
	struct proc	*pr;
	size_t		 npr, cpr;
	struct thr	*th;
	size_t		 nth, cth;
	struct htab	 hpr, hth;
	unsigned long	 gen;
	int		 lastth;
	int64_t		 lastpid, lasttid;
	/* spill */
	struct buf	 arena;
	struct ridx	*ix, *ixtmp;
	size_t		 nix, cix;
	struct run	*runs[NSET];
	int		 nruns[NSET];
	int		 kern_h;		/* kernels may be in SET_H */
	/* markers, flows */
	struct marker	*mk;
	size_t		 nmk, cmk;
	struct buf	 mka;
	struct flow	*fs;
	struct fend	*ff;
	size_t		 nfs, cfs, nff, cff;
	struct link	*lk;
	size_t		 nlk;
	/* results */
	struct warn	*w;
	int		 nw;
	struct trace_counts c;
	int64_t		 mints, minkts;
	/* scratch */
	struct buf	 sc, sc2, sc3, sc4, ob;
};

/* ---------- small helpers ---------- */

static void
addwarn(struct trace *t, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
addwarn(struct trace *t, const char *code, const char *fmt, ...)
{
	va_list ap;
	char m[512];

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	t->w = xreallocarray(t->w, (size_t)t->nw + 1, sizeof *t->w);
	t->w[t->nw].code = code;
	t->w[t->nw].msg = xstrdup(m);
	t->nw++;
}

static unsigned long
countnl(const char *p, size_t n)
{
	unsigned long k = 0;
	const char *e = p + n;

	while (p < e && (p = memchr(p, '\n', (size_t)(e - p))) != NULL) {
		k++;
		p++;
	}
	return k;
}

/* Error at buffer position ep: FILE:LINE: byte OFFSET: what. */
static int
bad(struct trace *t, const char *ep, const char *what)
{
	size_t at = (size_t)(ep - t->b);

	if (at > t->len)
		at = t->len;
	snprintf(t->err, sizeof t->err, "%s:%lu: byte %llu: %s", t->disp,
	    t->bline + 1 + countnl(t->b, at),
	    (unsigned long long)(t->boff + at), what);
	return -1;
}

static uint64_t
hashb(const void *p, size_t n, uint64_t h)
{
	const unsigned char *s = p;

	for (size_t i = 0; i < n; i++) {
		h ^= s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static uint64_t
mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void
pututf8(struct buf *o, unsigned long c)
{
	char u[4];

	if (c < 0x80)
		buf_addc(o, (int)c);
	else if (c < 0x800) {
		u[0] = (char)(0xc0 | (c >> 6));
		u[1] = (char)(0x80 | (c & 0x3f));
		buf_add(o, u, 2);
	} else if (c < 0x10000) {
		u[0] = (char)(0xe0 | (c >> 12));
		u[1] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[2] = (char)(0x80 | (c & 0x3f));
		buf_add(o, u, 3);
	} else {
		u[0] = (char)(0xf0 | (c >> 18));
		u[1] = (char)(0x80 | ((c >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((c >> 6) & 0x3f));
		u[3] = (char)(0x80 | (c & 0x3f));
		buf_add(o, u, 4);
	}
}

static unsigned long
hex4(const char *s)
{
	unsigned long v = 0;

	for (int i = 0; i < 4; i++) {
		int c = (unsigned char)s[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned long)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned long)(c - 'a' + 10);
		else
			v |= (unsigned long)(c - 'A' + 10);
	}
	return v;
}

/* Append the unescaped JSON string body s[0..n) (validated) to o. */
static void
unesc(struct buf *o, const char *s, size_t n)
{
	const char *e = s + n, *q;

	while (s < e) {
		q = memchr(s, '\\', (size_t)(e - s));
		if (q == NULL) {
			buf_add(o, s, (size_t)(e - s));
			return;
		}
		buf_add(o, s, (size_t)(q - s));
		switch (q[1]) {
		case 'b': buf_addc(o, '\b'); break;
		case 'f': buf_addc(o, '\f'); break;
		case 'n': buf_addc(o, '\n'); break;
		case 'r': buf_addc(o, '\r'); break;
		case 't': buf_addc(o, '\t'); break;
		case 'u': {
			unsigned long c = hex4(q + 2);

			s = q + 6;
			if (c >= 0xd800 && c < 0xdc00 && e - s >= 6 &&
			    s[0] == '\\' && s[1] == 'u') {
				unsigned long lo = hex4(s + 2);

				if (lo >= 0xdc00 && lo < 0xe000) {
					c = 0x10000 + ((c - 0xd800) << 10) +
					    (lo - 0xdc00);
					s += 6;
				}
			}
			if (c >= 0xd800 && c < 0xe000)
				c = 0xfffd;
			pututf8(o, c);
			continue;
		}
		default: buf_addc(o, q[1]); break;
		}
		s = q + 2;
	}
}

/* The string value of a span, unescaped if needed (into o). */
static void
spanstr(const struct span *sp, struct buf *o, const char **s, size_t *n)
{
	if (!sp->esc) {
		*s = sp->p;
		*n = sp->n;
		return;
	}
	o->len = 0;
	unesc(o, sp->p, sp->n);
	*s = o->p;
	*n = o->len;
}

/* Integer span (number or numeric string): 0, or -1. */
static int
spani64(const struct span *sp, int64_t *v)
{
	const char *s = sp->p, *e = sp->p + sp->n;
	uint64_t x = 0;
	int neg = 0;

	if (sp->k != 's' && sp->k != 'v')
		return -1;
	if (s < e && *s == '-')
		neg = 1, s++;
	if (s == e || e - s > 18)
		goto slow;
	for (; s < e; s++) {
		if (*s < '0' || *s > '9')
			goto slow;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = neg ? -(int64_t)x : (int64_t)x;
	return 0;
slow:
	return dec_parse(sp->p, sp->n, 0, v);
}

/* Microsecond text to ns; fast path for plain d+(.d{1,3})?. */
static int
spanus(const struct span *sp, int64_t *v)
{
	const char *s = sp->p, *e = sp->p + sp->n;
	int64_t x = 0;
	int nd = 0, fr = 0;

	if (sp->k != 's' && sp->k != 'v')
		return -1;
	while (s < e && *s >= '0' && *s <= '9' && nd < 16) {
		x = x * 10 + (*s++ - '0');
		nd++;
	}
	if (nd == 0)
		goto slow;
	if (s < e) {
		if (*s != '.')
			goto slow;
		s++;
		while (s < e && fr < 3 && *s >= '0' && *s <= '9') {
			x = x * 10 + (*s++ - '0');
			fr++;
		}
		if (s < e || fr == 0)
			goto slow;
	}
	for (; fr < 3; fr++)
		x *= 10;
	*v = x;
	return 0;
slow:
	return dec_us2ns(sp->p, sp->n, v);
}

static int
speq(const struct span *sp, const char *s)
{
	size_t n = strlen(s);

	return sp->k == 's' && !sp->esc && sp->n == n && memcmp(sp->p, s, n) == 0;
}

/* ---------- hash tables ---------- */

static void
ht_grow(struct htab *h, size_t need, uint64_t (*key)(const struct trace *, int),
    const struct trace *t)
{
	size_t ncap = h->cap ? h->cap : 64;
	int *ns;

	while (ncap < need * 2)
		ncap *= 2;
	if (ncap == h->cap)
		return;
	ns = xcalloc(ncap, sizeof *ns);
	for (size_t i = 0; i < h->cap; i++) {
		if (h->slot[i]) {
			size_t j = key(t, h->slot[i] - 1) & (ncap - 1);

			while (ns[j])
				j = (j + 1) & (ncap - 1);
			ns[j] = h->slot[i];
		}
	}
	free(h->slot);
	h->slot = ns;
	h->cap = ncap;
}

static uint64_t
prkey(const struct trace *t, int i)
{
	return mix64((uint64_t)t->pr[i].pid);
}

static uint64_t
thkey(const struct trace *t, int i)
{
	return mix64((uint64_t)t->th[i].pid * 0x9e3779b97f4a7c15ULL ^
	    (uint64_t)t->th[i].tid);
}

static int
getproc(struct trace *t, int64_t pid, int create)
{
	size_t j;

	if (t->hpr.cap) {
		j = mix64((uint64_t)pid) & (t->hpr.cap - 1);
		for (; t->hpr.slot[j]; j = (j + 1) & (t->hpr.cap - 1))
			if (t->pr[t->hpr.slot[j] - 1].pid == pid)
				return t->hpr.slot[j] - 1;
	}
	if (!create)
		return -1;
	if (t->npr == t->cpr) {
		t->cpr = t->cpr ? t->cpr * 2 : 16;
		t->pr = xreallocarray(t->pr, t->cpr, sizeof *t->pr);
	}
	memset(&t->pr[t->npr], 0, sizeof t->pr[0]);
	t->pr[t->npr].pid = pid;
	t->pr[t->npr].dev = -2;
	t->npr++;
	ht_grow(&t->hpr, t->npr, prkey, t);
	j = mix64((uint64_t)pid) & (t->hpr.cap - 1);
	while (t->hpr.slot[j])
		j = (j + 1) & (t->hpr.cap - 1);
	t->hpr.slot[j] = (int)t->npr;
	return (int)t->npr - 1;
}

static int
getthr(struct trace *t, int64_t pid, int64_t tid, int create)
{
	uint64_t k = mix64((uint64_t)pid * 0x9e3779b97f4a7c15ULL ^ (uint64_t)tid);
	size_t j;

	if (t->lastth >= 0 && t->lastpid == pid && t->lasttid == tid)
		return t->lastth;
	if (t->hth.cap) {
		j = k & (t->hth.cap - 1);
		for (; t->hth.slot[j]; j = (j + 1) & (t->hth.cap - 1)) {
			struct thr *h = &t->th[t->hth.slot[j] - 1];

			if (h->pid == pid && h->tid == tid) {
				t->lastth = t->hth.slot[j] - 1;
				t->lastpid = pid;
				t->lasttid = tid;
				return t->lastth;
			}
		}
	}
	if (!create)
		return -1;
	if (t->nth == t->cth) {
		t->cth = t->cth ? t->cth * 2 : 64;
		t->th = xreallocarray(t->th, t->cth, sizeof *t->th);
	}
	memset(&t->th[t->nth], 0, sizeof t->th[0]);
	t->th[t->nth].pid = pid;
	t->th[t->nth].tid = tid;
	t->th[t->nth].pi = -1;
	t->th[t->nth].minx = INT64_MAX;
	t->th[t->nth].gen = (unsigned long)-1;
	t->nth++;
	ht_grow(&t->hth, t->nth, thkey, t);
	j = k & (t->hth.cap - 1);
	while (t->hth.slot[j])
		j = (j + 1) & (t->hth.cap - 1);
	t->hth.slot[j] = (int)t->nth;
	t->lastth = (int)t->nth - 1;
	t->lastpid = pid;
	t->lasttid = tid;
	return t->lastth;
}

static const char *const hostnames[] = {
	"Python", "CANN", "Python GC", "MindSpore", "CPU OP", "Scope Layer",
	"OS Runtime API", NULL
};

static int
prole(const struct proc *p)
{
	if (p->name) {
		for (int i = 0; hostnames[i]; i++)
			if (strcmp(p->name, hostnames[i]) == 0)
				return R_HOST;
		if (strcmp(p->name, "Ascend Hardware") == 0)
			return R_HW;
		if (strcmp(p->name, "HCCL") == 0 ||
		    strcmp(p->name, "Communication") == 0)
			return R_COMM;
	}
	return p->cpu ? R_HOST : R_IGN;
}

/* ---------- JSON scanning ---------- */

static unsigned char stopc[256];	/* '"', '\\', control characters */

static void
initstop(void)
{
	for (int i = 0; i < 0x20; i++)
		stopc[i] = 1;
	stopc['"'] = 1;
	stopc['\\'] = 1;
}

static const char *
ws(const char *p, const char *e)
{
	while (p < e && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
		p++;
	return p;
}

static int
ishex(int c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/* c->p at '"': span of the body, c->p after the closing quote. */
static int
pstr(struct pc *c, struct span *sp)
{
	const char *p = c->p + 1, *e = c->e;
	int esc = 0;

	for (;;) {
#ifdef __SSE2__
		{
			const __m128i q = _mm_set1_epi8('"');
			const __m128i bs = _mm_set1_epi8('\\');
			const __m128i lo = _mm_set1_epi8(0x1f);

			while (e - p >= 16) {
				__m128i x = _mm_loadu_si128((const __m128i *)(const void *)p);
				__m128i m = _mm_or_si128(_mm_or_si128(
				    _mm_cmpeq_epi8(x, q), _mm_cmpeq_epi8(x, bs)),
				    _mm_cmpeq_epi8(_mm_min_epu8(x, lo), x));
				int bits = _mm_movemask_epi8(m);

				if (bits) {
					p += __builtin_ctz((unsigned)bits);
					break;
				}
				p += 16;
			}
		}
#endif
		while (e - p >= 8 && !stopc[(unsigned char)p[0]] &&
		    !stopc[(unsigned char)p[1]] && !stopc[(unsigned char)p[2]] &&
		    !stopc[(unsigned char)p[3]] && !stopc[(unsigned char)p[4]] &&
		    !stopc[(unsigned char)p[5]] && !stopc[(unsigned char)p[6]] &&
		    !stopc[(unsigned char)p[7]])
			p += 8;
		while (p < e && !stopc[(unsigned char)*p])
			p++;
		if (p >= e)
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
			if (!ishex(p[2]) || !ishex(p[3]) || !ishex(p[4]) ||
			    !ishex(p[5])) {
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

	if (*p == '-' || (*p >= '0' && *p <= '9')) {
#define NEED(c) do { if (p == e) return P_MORE; if (!(c)) goto badnum; } while (0)
#define DIG(x) ((unsigned)(x) - '0' < 10)
		if (*p == '-')
			p++;
		NEED(DIG(*p));
		if (*p++ != '0')
			while (p < e && DIG(*p))
				p++;
		if (p == e)
			return P_MORE;
		if (*p == '.') {
			p++;
			NEED(DIG(*p));
			while (p < e && DIG(*p))
				p++;
			if (p == e)
				return P_MORE;
		}
		if (*p == 'e' || *p == 'E') {
			p++;
			NEED(1);
			if (*p == '+' || *p == '-')
				p++;
			NEED(DIG(*p));
			while (p < e && DIG(*p))
				p++;
			if (p == e)
				return P_MORE;
		}
		if (isnumc((unsigned char)*p)) {
badnum:
			c->ep = c->p;
			c->what = "bad number";
			return P_BAD;
		}
#undef NEED
#undef DIG
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

static int pskip(struct pc *, int);

/* After a member value: ',' (1 more member) or the closer (0). */
static int
psep(struct pc *c, int closer, int *more)
{
	c->p = ws(c->p, c->e);
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
static int
pkey(struct pc *c, struct span *k)
{
	int r;

	c->p = ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p != '"') {
		c->ep = c->p;
		c->what = "expected a string key in object";
		return P_BAD;
	}
	if ((r = pstr(c, k)) != P_OK)
		return r;
	c->p = ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p != ':') {
		c->ep = c->p;
		c->what = "expected \":\" after key";
		return P_BAD;
	}
	c->p = ws(c->p + 1, c->e);
	if (c->p == c->e)
		return P_MORE;
	return P_OK;
}

static int
pskip(struct pc *c, int depth)
{
	int r, more;

	c->p = ws(c->p, c->e);
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
		c->p = ws(c->p + 1, c->e);
		if (c->p == c->e)
			return P_MORE;
		if (*c->p == '}') {
			c->p++;
			return P_OK;
		}
		do {
			struct span k;

			if ((r = pkey(c, &k)) != P_OK ||
			    (r = pskip(c, depth + 1)) != P_OK ||
			    (r = psep(c, '}', &more)) != P_OK)
				return r;
		} while (more);
		return P_OK;
	case '[':
		c->p = ws(c->p + 1, c->e);
		if (c->p == c->e)
			return P_MORE;
		if (*c->p == ']') {
			c->p++;
			return P_OK;
		}
		do {
			if ((r = pskip(c, depth + 1)) != P_OK ||
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
		if ((r = pskip(c, depth)) != P_OK)
			return r;
		sp->p = s;
		sp->n = (size_t)(c->p - s);
		sp->k = 'o';
		sp->esc = 0;
		return P_OK;
	}
	return pscalar(c, sp);
}

#define KEYIS(k, lit) ((k).n == sizeof(lit) - 1 && \
	memcmp((k).p, lit, sizeof(lit) - 1) == 0)

/* Key text for matching: raw, or unescaped into a small buffer. */
static void
keytext(struct span *k, char *tmp, size_t ntmp)
{
	struct buf o = { 0 };

	if (!k->esc)
		return;
	unesc(&o, k->p, k->n);
	if (o.len < ntmp) {
		memcpy(tmp, o.p, o.len);
		k->p = tmp;
		k->n = o.len;
	} else
		k->n = 0;
	k->esc = 0;
	buf_free(&o);
}

static int
pargs(struct pc *c, struct ev *ev)
{
	int r, more;
	char tmp[64];

	c->p++;
	c->p = ws(c->p, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p == '}') {
		c->p++;
		return P_OK;
	}
	do {
		struct span k, *dst = NULL, junk;

		if ((r = pkey(c, &k)) != P_OK)
			return r;
		if (k.esc)
			keytext(&k, tmp, sizeof tmp);
		switch (k.n) {
		case 4:
			if (KEYIS(k, "name"))
				dst = &ev->aname;
			break;
		case 6:
			if (KEYIS(k, "labels"))
				dst = &ev->labels;
			break;
		case 7:
			if (KEYIS(k, "Task Id"))
				dst = &ev->taskid;
			break;
		case 9:
			if (KEYIS(k, "Stream Id"))
				dst = &ev->stream;
			else if (KEYIS(k, "Task Type"))
				dst = &ev->ttype;
			break;
		case 10:
			if (KEYIS(k, "Call stack"))
				dst = &ev->stack;
			break;
		case 16:
			if (KEYIS(k, "Physic Stream Id"))
				dst = &ev->pstream;
			break;
		}
		if (dst)
			r = pval(c, dst, 2);
		else if (*c->p == '"')
			r = pstr(c, NULL);
		else
			r = pval(c, &junk, 2);
		if (r != P_OK || (r = psep(c, '}', &more)) != P_OK)
			return r;
	} while (more);
	return P_OK;
}

/* c->p at '{' of an event. */
static int
pevent(struct pc *c, struct ev *ev)
{
	int r, more;
	char tmp[64];

	ev->ph.k = ev->name.k = ev->pid.k = ev->tid.k = ev->ts.k = 0;
	ev->dur.k = ev->cat.k = ev->id.k = ev->stack.k = ev->pstream.k = 0;
	ev->stream.k = ev->taskid.k = ev->ttype.k = ev->aname.k = 0;
	ev->labels.k = 0;
	c->p = ws(c->p + 1, c->e);
	if (c->p == c->e)
		return P_MORE;
	if (*c->p == '}') {
		c->p++;
		return P_OK;
	}
	do {
		struct span k, *dst = NULL, junk;

		if ((r = pkey(c, &k)) != P_OK)
			return r;
		if (k.esc)
			keytext(&k, tmp, sizeof tmp);
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
			else if (KEYIS(k, "args")) {
				if (*c->p == '{')
					r = pargs(c, ev);
				else
					r = pval(c, &junk, 1);
				goto sep;
			}
			break;
		}
		if (dst)
			r = pval(c, dst, 1);
		else if (*c->p == '"')
			r = pstr(c, NULL);
		else
			r = pval(c, &junk, 1);
sep:
		if (r != P_OK || (r = psep(c, '}', &more)) != P_OK)
			return r;
	} while (more);
	return P_OK;
}

/* ---------- input buffer ---------- */

static double
tdiff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static void
progress(struct trace *t, int final)
{
	struct timespec now;
	double dt;

	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!final && tdiff(&t->tlast, &now) < 0.5)
		return;
	t->tlast = now;
	dt = tdiff(&t->t0, &now);
	fprintf(stderr, "\r%s: %llu MB, %.0f MB/s%s", t->disp,
	    (unsigned long long)(t->nread >> 20),
	    dt > 0 ? (double)t->nread / 1048576.0 / dt : 0.0,
	    final ? "\n" : "");
}

/* Drop b[0..keep), read more.  Returns bytes read, 0 at EOF. */
static size_t
fill(struct trace *t, size_t keep)
{
	size_t rem = t->len - keep;
	ssize_t n;

	if (keep) {
		t->bline += countnl(t->b, keep);
		t->boff += keep;
		memmove(t->b, t->b + keep, rem);
		t->len = rem;
		t->pos -= keep;
	}
	if (t->cap - t->len < t->chunk) {
		t->cap = t->len + t->chunk;
		t->b = xrealloc(t->b, t->cap);
	}
	for (;;) {
		n = read(t->fd, t->b + t->len, t->chunk);
		if (n >= 0)
			break;
		if (errno != EINTR)
			dieerr("%s", t->disp);
	}
	if (n == 0)
		t->eof = 1;
	t->len += (size_t)n;
	t->nread += (uint64_t)n;
	if (t->progress)
		progress(t, 0);
	return (size_t)n;
}

/* ---------- spill runs ---------- */

static int
rcmp(int64_t as, int64_t ad, uint64_t ao, int64_t bs, int64_t bd, uint64_t bo)
{
	if (as != bs)
		return as < bs ? -1 : 1;
	if (ad != bd)
		return ad > bd ? -1 : 1;
	if (ao != bo)
		return ao < bo ? -1 : 1;
	return 0;
}

static int
ixcmp(const void *a, const void *b)
{
	const struct ridx *x = a, *y = b;

	return rcmp(x->start, x->dur, x->off, y->start, y->dur, y->off);
}

/*
 * Sort the run index by (start asc, dur desc, off asc): LSD radix on
 * start (stable, and the index is in offset order already), then
 * insertion sort of equal starts by dur.
 */
static void
sortix(struct trace *t)
{
	size_t n = t->nix, cnt[2048];
	struct ridx *a = t->ix, *b, *tmp;
	int64_t mn = INT64_MAX, mx = INT64_MIN;
	uint64_t range;

	if (n < 64) {
		qsort(a, n, sizeof *a, ixcmp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		if (a[i].start < mn)
			mn = a[i].start;
		if (a[i].start > mx)
			mx = a[i].start;
	}
	range = (uint64_t)mx - (uint64_t)mn;
	b = xreallocarray(t->ixtmp, t->cix, sizeof *b);
	t->ixtmp = b;
	for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof cnt);
		for (size_t i = 0; i < n; i++)
			cnt[(((uint64_t)a[i].start - (uint64_t)mn) >> sh) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			b[cnt[(((uint64_t)a[i].start - (uint64_t)mn) >> sh) &
			    2047]++] = a[i];
		tmp = a;
		a = b;
		b = tmp;
	}
	t->ix = a;
	t->ixtmp = b;
	for (size_t i = 1; i < n; i++) {
		if (a[i].start != a[i - 1].start || a[i].dur <= a[i - 1].dur)
			continue;
		struct ridx x = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1].start == x.start &&
		    ixcmp(&a[j - 1], &x) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = x;
	}
}

static FILE *
tmprun(struct trace *t)
{
	struct buf p = { 0 };
	int fd;
	FILE *fp;

	buf_adds(&p, t->tmpdir);
	buf_adds(&p, "/asc-trace-XXXXXX");
	buf_addc(&p, 0);
	if ((fd = mkstemp(p.p)) < 0)
		dieerr("%s", p.p);
	unlink(p.p);
	buf_free(&p);
	if ((fp = fdopen(fd, "w+")) == NULL)
		dieerr("fdopen");
	return fp;
}

static void
addrun(struct trace *t, int set, FILE *fp, uint64_t n)
{
	if (fflush(fp) == EOF || ferror(fp))
		dieerr("%s: spill file", t->tmpdir);
	t->runs[set] = xreallocarray(t->runs[set], (size_t)t->nruns[set] + 1,
	    sizeof *t->runs[set]);
	t->runs[set][t->nruns[set]].fp = fp;
	t->runs[set][t->nruns[set]].n = n;
	t->nruns[set]++;
}

static void consolidate(struct trace *, int);

static void
flushrun(struct trace *t)
{
	FILE *fp[NSET] = { NULL, NULL };
	uint64_t n[NSET] = { 0, 0 };

	if (t->nix == 0)
		return;
	sortix(t);
	for (size_t i = 0; i < t->nix; i++) {
		const struct ridx *x = &t->ix[i];
		const struct shdr *h = (const void *)(t->arena.p + x->pos);
		size_t len = sizeof *h + slen(h);

		if (fp[x->set] == NULL)
			fp[x->set] = tmprun(t);
		if (fwrite(h, 1, len, fp[x->set]) != len)
			dieerr("%s: spill file", t->tmpdir);
		n[x->set]++;
	}
	for (int s = 0; s < NSET; s++) {
		if (fp[s]) {
			addrun(t, s, fp[s], n[s]);
			if (t->nruns[s] >= MAXRUNS)
				consolidate(t, s);
		}
	}
	t->nix = 0;
	t->arena.len = 0;
}

static void
spill(struct trace *t, int set, struct shdr *h, const char *name,
    const char *cat, const char *frame, const char *ttype)
{
	size_t len = sizeof *h + slen(h), pos;

	if (t->nix && t->arena.len + len + (t->nix + 1) * 2 * sizeof *t->ix >
	    t->runbytes)
		flushrun(t);
	if (t->arena.len + len > UINT32_MAX)
		flushrun(t);
	/* keep headers 8-aligned in the arena */
	pos = (t->arena.len + 7) & ~(size_t)7;
	buf_grow(&t->arena, pos - t->arena.len + len);
	{
		char *d = t->arena.p + pos;

		memcpy(d, h, sizeof *h);
		d += sizeof *h;
		memcpy(d, name, h->nname);
		d += h->nname;
		memcpy(d, cat, h->ncat);
		d += h->ncat;
		memcpy(d, frame, h->nframe);
		d += h->nframe;
		memcpy(d, ttype, h->nttype);
	}
	t->arena.len = pos + len;
	if (t->nix == t->cix) {
		t->cix = t->cix ? t->cix * 2 : 4096;
		t->ix = xreallocarray(t->ix, t->cix, sizeof *t->ix);
	}
	t->ix[t->nix].start = h->start;
	t->ix[t->nix].dur = h->dur;
	t->ix[t->nix].off = h->off;
	t->ix[t->nix].pos = (uint32_t)pos;
	t->ix[t->nix].set = (uint32_t)set;
	t->nix++;
}

static void
rd_read(struct rdr *r, void *dst, size_t n)
{
	char *d = dst;

	while (n) {
		if (r->bpos == r->blen) {
			ssize_t k = read(r->fd, r->b, RDBUF);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				die("spill file: %s", k < 0 ? strerror(errno) :
				    "unexpected end");
			r->bpos = 0;
			r->blen = (size_t)k;
		}
		size_t m = r->blen - r->bpos;

		if (m > n)
			m = n;
		memcpy(d, r->b + r->bpos, m);
		r->bpos += m;
		d += m;
		n -= m;
	}
}

static int
rd_next(struct rdr *r)
{
	size_t n;

	if (r->left == 0)
		return 0;
	r->left--;
	rd_read(r, &r->h, sizeof r->h);
	n = slen(&r->h);
	if (n > r->scap) {
		r->scap = n + 256;
		r->s = xrealloc(r->s, r->scap);
	}
	rd_read(r, r->s, n);
	return 1;
}

static int
hless(const struct mrg *m, int a, int b)
{
	const struct shdr *x = &m->r[a].h, *y = &m->r[b].h;

	return rcmp(x->start, x->dur, x->off, y->start, y->dur, y->off) < 0;
}

static void
siftdown(struct mrg *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i, tmp;

		if (l < m->nh && hless(m, m->hp[l], m->hp[s]))
			s = l;
		if (r < m->nh && hless(m, m->hp[r], m->hp[s]))
			s = r;
		if (s == i)
			return;
		tmp = m->hp[i];
		m->hp[i] = m->hp[s];
		m->hp[s] = tmp;
		i = s;
	}
}

static void
mrg_open(struct trace *t, struct mrg *m, unsigned mask)
{
	int n = 0;

	for (int s = 0; s < NSET; s++)
		if (mask & (1u << s))
			n += t->nruns[s];
	m->r = xcalloc((size_t)n + 1, sizeof *m->r);
	m->hp = xcalloc((size_t)n + 1, sizeof *m->hp);
	m->n = m->nh = 0;
	for (int s = 0; s < NSET; s++) {
		if (!(mask & (1u << s)))
			continue;
		for (int i = 0; i < t->nruns[s]; i++) {
			struct rdr *r = &m->r[m->n];

			r->fd = fileno(t->runs[s][i].fp);
			if (lseek(r->fd, 0, SEEK_SET) < 0)
				dieerr("spill file");
			r->left = t->runs[s][i].n;
			r->b = xmalloc(RDBUF);
			if (rd_next(r))
				m->hp[m->nh++] = m->n;
			m->n++;
		}
	}
	for (int i = m->nh / 2 - 1; i >= 0; i--)
		siftdown(m, i);
}

static struct rdr *
mrg_top(struct mrg *m)
{
	return m->nh ? &m->r[m->hp[0]] : NULL;
}

static void
mrg_pop(struct mrg *m)
{
	if (!rd_next(&m->r[m->hp[0]]))
		m->hp[0] = m->hp[--m->nh];
	siftdown(m, 0);
}

static void
mrg_close(struct mrg *m)
{
	for (int i = 0; i < m->n; i++) {
		free(m->r[i].b);
		free(m->r[i].s);
	}
	free(m->r);
	free(m->hp);
	memset(m, 0, sizeof *m);
}

/* Merge all runs of a set into one, to bound open files and readers. */
static void
consolidate(struct trace *t, int set)
{
	struct mrg m;
	struct rdr *r;
	FILE *fp = tmprun(t);
	uint64_t n = 0;

	mrg_open(t, &m, 1u << set);
	while ((r = mrg_top(&m)) != NULL) {
		if (fwrite(&r->h, sizeof r->h, 1, fp) != 1 ||
		    fwrite(r->s, 1, slen(&r->h), fp) != slen(&r->h))
			dieerr("%s: spill file", t->tmpdir);
		n++;
		mrg_pop(&m);
	}
	mrg_close(&m);
	for (int i = 0; i < t->nruns[set]; i++)
		fclose(t->runs[set][i].fp);
	t->nruns[set] = 0;
	addrun(t, set, fp, n);
}

/* ---------- events ---------- */

static const char *const fwpat[] = {
	"site-packages/", "dist-packages/", "/lib/python3", "/torch/",
	"/torch_npu/", NULL
};

static int
framework(const char *s, size_t n)
{
	if (n && s[0] == '<')
		return 1;
	for (int i = 0; fwpat[i]; i++)
		if (memmem(s, n, fwpat[i], strlen(fwpat[i])))
			return 1;
	return 0;
}

int
trace_is_framework(const char *s, size_t n)
{
	return framework(s, n);
}

/* First non-framework frame of a call stack (innermost first). */
static int
topframe(const char *s, size_t n, const char **fs, size_t *fn)
{
	const char *e = s + n;

	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		const char *q = nl ? nl : e;

		while (q > s && (q[-1] == '\r' || q[-1] == ';' ||
		    q[-1] == ' ' || q[-1] == '\t'))
			q--;
		while (s < q && (*s == ' ' || *s == '\t'))
			s++;
		if (q > s && !framework(s, (size_t)(q - s))) {
			*fs = s;
			*fn = (size_t)(q - s);
			return 1;
		}
		if (!nl)
			break;
		s = nl + 1;
	}
	return 0;
}

/* Is name a step marker?  Sets the kind length and step digits. */
static int
ismarker(const struct trace *t, const char *s, size_t n, size_t *kind)
{
	const char *h = memrchr(s, '#', n);
	size_t k;

	if (h == NULL || h + 1 == s + n)
		return 0;
	for (const char *p = h + 1; p < s + n; p++)
		if (*p < '0' || *p > '9')
			return 0;
	k = (size_t)(h - s);
	if ((k == 12 && memcmp(s, "ProfilerStep", 12) == 0) ||
	    (k == 9 && memcmp(s, "Iteration", 9) == 0) ||
	    (k == 4 && memcmp(s, "Step", 4) == 0) ||
	    (t->pattern && k == t->npattern && memcmp(s, t->pattern, k) == 0)) {
		*kind = k;
		return 1;
	}
	return 0;
}

static int
provhost(struct trace *t, struct thr *h)
{
	if (h->gen != t->gen) {
		int pi = getproc(t, h->pid, 0);

		h->prov = pi >= 0 && prole(&t->pr[pi]) == R_HOST;
		h->gen = t->gen;
	}
	return h->prov;
}

static int
evid(struct trace *t, const struct ev *ev, const struct span *sp, int64_t *v)
{
	if (sp->k == 0 || spani64(sp, v) == 0)
		return 0;
	if (sp->k == 's') {
		/* a non-numeric id: a stable value from its text */
		*v = (int64_t)(hashb(sp->p, sp->n, 14695981039346656037ULL) |
		    (1ULL << 63));
		return 0;
	}
	return -1;
}

static int
xevent(struct trace *t, const struct ev *ev, const char *at, uint64_t off)
{
	struct shdr h;
	struct thr *th;
	const char *name, *cat = "", *frame = "", *tt = "";
	size_t nname, ncat = 0, nframe = 0, ntt = 0, kind;
	int set, ti;

	memset(&h, 0, sizeof h);
	if (ev->ts.k == 0)
		return bad(t, at, "X event without \"ts\"");
	if (spanus(&ev->ts, &h.start) < 0)
		return bad(t, at, "bad \"ts\"");
	if (ev->dur.k == 0)
		return bad(t, at, "X event without \"dur\"");
	if (spanus(&ev->dur, &h.dur) < 0 || h.dur < 0)
		return bad(t, at, "bad \"dur\"");
	if (evid(t, ev, &ev->pid, &h.pid) < 0)
		return bad(t, at, "bad \"pid\"");
	if (evid(t, ev, &ev->tid, &h.tid) < 0)
		return bad(t, at, "bad \"tid\"");
	h.off = off;
	if (ev->name.k == 's')
		spanstr(&ev->name, &t->sc, &name, &nname);
	else
		name = "", nname = 0;
	ti = getthr(t, h.pid, h.tid, 1);
	th = &t->th[ti];
	th->nx++;
	if (h.start < th->minx)
		th->minx = h.start;
	if (ev->cat.k == 's') {
		spanstr(&ev->cat, &t->sc2, &cat, &ncat);
		h.flags |= F_CAT;
	}
	if (ismarker(t, name, nname, &kind)) {
		struct marker *m;

		h.flags |= F_MARK;
		th->nmark++;
		if (t->nmk == t->cmk) {
			t->cmk = t->cmk ? t->cmk * 2 : 64;
			t->mk = xreallocarray(t->mk, t->cmk, sizeof *t->mk);
		}
		m = &t->mk[t->nmk++];
		m->start = h.start;
		m->dur = h.dur;
		m->pid = h.pid;
		m->tid = h.tid;
		m->off = off;
		m->name = t->mka.len;
		m->nname = nname;
		m->kind = kind;
		m->step = kind + 1;
		m->nstep = nname - kind - 1;
		buf_add(&t->mka, name, nname);
	}
	if (ev->stack.k == 's') {
		const char *s;
		size_t n;

		h.flags |= F_STACK;
		th->stack = 1;
		spanstr(&ev->stack, &t->sc4, &s, &n);
		if (topframe(s, n, &frame, &nframe))
			h.flags |= F_FRAME;
	}
	if (spani64(&ev->pstream, &h.stream) == 0 ||
	    spani64(&ev->stream, &h.stream) == 0)
		h.flags |= F_STREAM;
	if (spani64(&ev->taskid, &h.taskid) == 0)
		h.flags |= F_TASKID;
	if (ev->ttype.k == 's') {
		spanstr(&ev->ttype, &t->sc3, &tt, &ntt);
		h.flags |= F_TTYPE;
	}
	h.nname = (uint32_t)nname;
	h.ncat = (uint32_t)ncat;
	h.nframe = (uint32_t)nframe;
	h.nttype = (uint32_t)ntt;
	set = provhost(t, th) ? SET_H : SET_O;
	if (set == SET_H) {
		int pi = getproc(t, h.pid, 0);

		t->pr[pi].spill_h = 1;
	}
	spill(t, set, &h, name, cat, frame, tt);
	return 0;
}

static void
setname(char **dst, const struct span *sp, struct buf *sc)
{
	const char *s;
	size_t n;

	if (sp->k != 's')
		return;
	spanstr(sp, sc, &s, &n);
	free(*dst);
	*dst = xstrndup(s, n);
}

static int
mevent(struct trace *t, const struct ev *ev, const char *at)
{
	int64_t pid = 0, tid = 0;
	struct proc *p;

	if (evid(t, ev, &ev->pid, &pid) < 0)
		return bad(t, at, "bad \"pid\"");
	if (evid(t, ev, &ev->tid, &tid) < 0)
		return bad(t, at, "bad \"tid\"");
	if (speq(&ev->name, "process_name")) {
		int pi = getproc(t, pid, 1);

		p = &t->pr[pi];
		setname(&p->name, &ev->aname, &t->sc);
	} else if (speq(&ev->name, "process_labels")) {
		const char *s;
		size_t n;

		int pi = getproc(t, pid, 1);

		p = &t->pr[pi];
		if (ev->labels.k != 's')
			return 0;
		spanstr(&ev->labels, &t->sc, &s, &n);
		if (n == 3 && memcmp(s, "CPU", 3) == 0)
			p->cpu = 1;
		else if (n >= 3 && memcmp(s, "NPU", 3) == 0) {
			int64_t d;
			struct span sp = { s + 3, n - 3, 'v', 0 };

			while (sp.n && *sp.p == ' ')
				sp.p++, sp.n--;
			if (sp.n && spani64(&sp, &d) == 0 && d >= 0 &&
			    d < INT32_MAX)
				p->dev = (int)d;
			else
				p->dev = -1;
		}
	} else if (speq(&ev->name, "thread_name")) {
		int ti = getthr(t, pid, tid, 1);
		struct thr *h = &t->th[ti];

		setname(&h->name, &ev->aname, &t->sc);
	} else
		return 0;
	t->gen++;
	return 0;
}

static int
flowkind(const struct ev *ev)
{
	if (speq(&ev->cat, "async_npu") ||
	    (ev->cat.k == 0 && speq(&ev->name, "torch_to_npu")))
		return 1;
	if (speq(&ev->cat, "HostToDevice"))
		return 2;
	return 0;
}

static int
fevent(struct trace *t, const struct ev *ev, const char *at, int isstart)
{
	int64_t ts;
	uint64_t id = 0;
	const char *s;
	size_t n, i;
	int kind = flowkind(ev);

	if (kind == 0 || ev->id.k == 0 || ev->ts.k == 0)
		return 0;
	if (spanus(&ev->ts, &ts) < 0)
		return bad(t, at, "bad \"ts\"");
	spanstr(&ev->id, &t->sc, &s, &n);
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++) {
		if (id > (UINT64_MAX - 9) / 10)
			break;
		id = id * 10 + (uint64_t)(s[i] - '0');
	}
	if (i < n || n == 0) {
		id = hashb(s, n, 14695981039346656037ULL);
		kind |= 0x80;
	}
	if (isstart) {
		struct flow *f;
		int64_t pid, tid;

		if (evid(t, ev, &ev->pid, &pid) < 0 ||
		    evid(t, ev, &ev->tid, &tid) < 0)
			return bad(t, at, "bad \"pid\" or \"tid\"");
		if (t->nfs == t->cfs) {
			t->cfs = t->cfs ? t->cfs * 2 : 1024;
			t->fs = xreallocarray(t->fs, t->cfs, sizeof *t->fs);
		}
		f = &t->fs[t->nfs++];
		f->id = id;
		f->kind = kind;
		f->pid = pid;
		f->tid = tid;
		f->ts = ts;
	} else {
		struct fend *f;

		if (t->nff == t->cff) {
			t->cff = t->cff ? t->cff * 2 : 1024;
			t->ff = xreallocarray(t->ff, t->cff, sizeof *t->ff);
		}
		f = &t->ff[t->nff++];
		f->id = id;
		f->kind = kind;
		f->ts = ts;
	}
	return 0;
}

static int
event(struct trace *t, const struct ev *ev, const char *at)
{
	uint64_t off = t->boff + (uint64_t)(at - t->b);

	t->c.events++;
	if (ev->ph.k != 's' || ev->ph.n != 1) {
		t->c.other++;
		return 0;
	}
	switch (ev->ph.p[0]) {
	case 'X':
		t->c.x_events++;
		return xevent(t, ev, at, off);
	case 'M':
		t->c.meta++;
		return mevent(t, ev, at);
	case 's':
	case 'f':
	case 't':
		t->c.flows++;
		if (ev->ph.p[0] == 't')
			return 0;
		return fevent(t, ev, at, ev->ph.p[0] == 's');
	case 'C':
		t->c.counters++;
		return 0;
	default:
		t->c.other++;
		return 0;
	}
}

/* ---------- finishing ---------- */

static int
mkcmp(const void *a, const void *b)
{
	const struct marker *x = a, *y = b;

	return rcmp(x->start, x->dur, x->off, y->start, y->dur, y->off);
}

static int
fecmp(const void *a, const void *b)
{
	const struct fend *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return 0;
}

static int
lkcmp(const void *a, const void *b)
{
	const struct link *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->kts != y->kts)
		return x->kts < y->kts ? -1 : 1;
	return 0;
}

static int
throle(struct trace *t, int64_t pid, int64_t tid)
{
	int i = getthr(t, pid, tid, 0);

	return i < 0 ? T_IGN : t->th[i].role;
}

static void
finish(struct trace *t)
{
	size_t k;

	flushrun(t);
	for (size_t i = 0; i < t->npr; i++) {
		struct proc *p = &t->pr[i];

		p->role = prole(p);
		if (p->name && strcmp(p->name, "Python") == 0)
			t->c.has_python = 1;
		if (p->name && strcmp(p->name, "CANN") == 0)
			t->c.has_cann = 1;
		if (p->spill_h && p->role != R_HOST)
			t->kern_h = 1;
	}
	t->mints = t->minkts = INT64_MAX;
	for (size_t i = 0; i < t->nth; i++) {
		struct thr *h = &t->th[i];
		int r = R_IGN;
		size_t n;

		h->pi = getproc(t, h->pid, 0);
		if (h->pi >= 0)
			r = t->pr[h->pi].role;
		if (r == R_HOST)
			h->role = T_HOST;
		else if (r == R_HW)
			h->role = T_DEV;
		else if (r == R_COMM && h->name &&
		    (n = strlen(h->name)) >= 13 &&
		    strcmp(h->name + n - 13, "Communication") == 0)
			h->role = T_DEV;
		else
			h->role = T_IGN;
		if (h->role == T_HOST) {
			t->c.host += h->nx;
			if (h->stack)
				t->c.has_stacks = 1;
		} else if (h->role == T_DEV)
			t->c.device += h->nx;
		else
			t->c.ignored += h->nx;
		if (h->role != T_IGN && h->nx && h->minx < t->mints)
			t->mints = h->minx;
		if (h->role == T_DEV && h->nx && h->minx < t->minkts)
			t->minkts = h->minx;
	}
	/* markers: host processes only, outermost of nested kept */
	k = 0;
	for (size_t i = 0; i < t->nmk; i++)
		if (throle(t, t->mk[i].pid, t->mk[i].tid) == T_HOST)
			t->mk[k++] = t->mk[i];
	t->nmk = k;
	if (t->nmk)
		qsort(t->mk, t->nmk, sizeof *t->mk, mkcmp);
	k = 0;
	{
		unsigned long merged = 0;
		int64_t end = INT64_MIN;

		for (size_t i = 0; i < t->nmk; i++) {
			if (k && t->mk[i].start < end) {
				merged++;
				continue;
			}
			t->mk[k++] = t->mk[i];
			end = t->mk[i].start + t->mk[i].dur;
		}
		t->nmk = k;
		if (merged)
			addwarn(t, "nested_markers",
			    "%s: %lu nested or overlapping step markers merged "
			    "into their outermost marker", t->disp, merged);
	}
	t->c.markers = t->nmk;
	/* flows: link host s ends to the earliest f end of the same id */
	if (t->nff)
		qsort(t->ff, t->nff, sizeof *t->ff, fecmp);
	/* the links are built in place over the s ends (a link is smaller) */
	t->lk = (struct link *)(void *)t->fs;
	t->nlk = 0;
	for (size_t i = 0; i < t->nfs; i++) {
		const struct flow sv = t->fs[i], *s = &sv;
		struct fend key = { s->id, INT64_MIN, s->kind };
		size_t lo = 0, hi = t->nff;

		if (throle(t, s->pid, s->tid) != T_HOST)
			continue;
		while (lo < hi) {	/* first f end >= (id, kind) */
			size_t mid = (lo + hi) / 2;

			if (fecmp(&t->ff[mid], &key) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo < t->nff && t->ff[lo].id == s->id &&
		    t->ff[lo].kind == s->kind) {
			t->lk[t->nlk].ts = s->ts;
			t->lk[t->nlk].pid = s->pid;
			t->lk[t->nlk].tid = s->tid;
			t->lk[t->nlk].kts = t->ff[lo].ts;
			t->nlk++;
		}
	}
	if (t->nlk)
		qsort(t->lk, t->nlk, sizeof *t->lk, lkcmp);
	k = 0;
	for (size_t i = 0; i < t->nlk; i++) {
		if (k && t->lk[k - 1].ts == t->lk[i].ts &&
		    t->lk[k - 1].pid == t->lk[i].pid &&
		    t->lk[k - 1].tid == t->lk[i].tid)
			continue;
		t->lk[k++] = t->lk[i];
	}
	t->nlk = k;
	t->c.flows_linked = k;
	free(t->ff);
	t->fs = NULL;
	t->ff = NULL;
	t->done = 1;
}

/* ---------- public: open/read ---------- */

struct trace *
trace_open(const char *path, const struct trace_opts *o)
{
	struct trace *t = xcalloc(1, sizeof *t);
	const char *td;

	if (!stopc['"'])
		initstop();
	t->path = xstrdup(path);
	t->disp = xstrdup(o && o->display ? o->display : dispname(path));
	td = o && o->tmpdir ? o->tmpdir : getenv("TMPDIR");
	t->tmpdir = xstrdup(td && *td ? td : "/tmp");
	if (o && o->step_pattern && *o->step_pattern) {
		t->pattern = xstrdup(o->step_pattern);
		t->npattern = strlen(t->pattern);
	}
	t->runbytes = o && o->run_bytes ? o->run_bytes : DEFRUN;
	if (t->runbytes < 1024)
		t->runbytes = 1024;
	t->progress = o ? o->progress : 0;
	t->lastth = -1;
	t->chunk = CHUNK;
	t->mints = t->minkts = INT64_MAX;
	if (strcmp(path, "-") == 0)
		t->fd = 0;
	else if ((t->fd = open(path, O_RDONLY)) < 0) {
		int e = errno;

		trace_close(t);
		errno = e;
		return NULL;
	}
	return t;
}

void
trace_set_chunk(struct trace *t, size_t n)
{
	t->chunk = n ? n : CHUNK;
}

const char *
trace_err(const struct trace *t)
{
	return t->err;
}

enum {
	ST_START, ST_OBJ0, ST_OBJKEY, ST_OBJNEXT, ST_ARR0, ST_ARRNEXT,
	ST_ARRELEM, ST_DONE
};

int
trace_read(struct trace *t)
{
	int st = ST_START, inobj = 0, sawarr = 0, r;
	struct ev ev;

	clock_gettime(CLOCK_MONOTONIC, &t->t0);
	t->tlast = t->t0;
	for (;;) {
		struct pc c;
		const char *p, *e;

		p = ws(t->b + t->pos, t->b + t->len);
		t->pos = (size_t)(p - t->b);
		e = t->b + t->len;
		if (p == e) {
			if (!t->eof) {
				fill(t, t->pos);
				continue;
			}
			switch (st) {
			case ST_START:
				return bad(t, p, "empty file, expected \"[\" "
				    "or \"{\"");
			case ST_ARR0:
			case ST_ARRNEXT:
			case ST_ARRELEM:
				addwarn(t, "trace_unterminated",
				    "%s: the event array has no closing \"]\"",
				    t->disp);
				break;
			case ST_OBJ0:
			case ST_OBJKEY:
			case ST_OBJNEXT:
				if (!sawarr)
					return bad(t, p, "truncated top-level "
					    "object");
				addwarn(t, "trace_unterminated",
				    "%s: the top-level object has no closing "
				    "\"}\"", t->disp);
				break;
			}
			break;
		}
		c.p = p;
		c.e = e;
		c.ep = NULL;
		c.what = NULL;
		r = P_OK;
		switch (st) {
		case ST_START:
			if (e - p >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
				t->pos += 3;
				continue;
			}
			if (*p == '[')
				st = ST_ARR0;
			else if (*p == '{')
				st = ST_OBJ0, inobj = 1;
			else
				return bad(t, p, "expected \"[\" or \"{\" at "
				    "the top level");
			t->pos++;
			continue;
		case ST_OBJ0:
			if (*p == '}') {
				t->pos++;
				st = ST_DONE;
				continue;
			}
			/* FALLTHROUGH */
		case ST_OBJKEY: {
			struct span k;

			if ((r = pkey(&c, &k)) != P_OK)
				break;
			if (KEYIS(k, "traceEvents") && !k.esc) {
				if (*c.p != '[')
					return bad(t, c.p, "\"traceEvents\" "
					    "is not an array");
				if (sawarr)
					return bad(t, p, "duplicate "
					    "\"traceEvents\"");
				sawarr = 1;
				t->pos = (size_t)(c.p + 1 - t->b);
				st = ST_ARR0;
				continue;
			}
			if ((r = pskip(&c, 1)) != P_OK)
				break;
			t->pos = (size_t)(c.p - t->b);
			st = ST_OBJNEXT;
			continue;
		}
		case ST_OBJNEXT:
			if (*p == ',')
				st = ST_OBJKEY;
			else if (*p == '}')
				st = ST_DONE;
			else
				return bad(t, p, "expected \",\" or \"}\" "
				    "in the top-level object");
			t->pos++;
			continue;
		case ST_ARR0:
		case ST_ARRELEM:
			if (*p == ']') {
				if (st == ST_ARRELEM)
					addwarn(t, "trace_trailing_comma",
					    "%s: trailing \",\" before the "
					    "closing \"]\"", t->disp);
				t->pos++;
				st = inobj ? ST_OBJNEXT : ST_DONE;
				continue;
			}
			if (*p != '{')
				return bad(t, p, "expected an event object");
			if ((r = pevent(&c, &ev)) != P_OK)
				break;
			t->pos = (size_t)(c.p - t->b);
			if (event(t, &ev, p) < 0)
				return -1;
			st = ST_ARRNEXT;
			continue;
		case ST_ARRNEXT:
			if (*p == ',')
				st = ST_ARRELEM;
			else if (*p == ']')
				st = inobj ? ST_OBJNEXT : ST_DONE;
			else
				return bad(t, p, "expected \",\" or \"]\" "
				    "after an event");
			t->pos++;
			continue;
		case ST_DONE:
			return bad(t, p, "unexpected data after the "
			    "top-level value");
		}
		if (r == P_BAD)
			return bad(t, c.ep, c.what);
		/* P_MORE: the unit at pos continues past the buffer */
		if (t->eof) {
			if (st == ST_ARR0 || st == ST_ARRELEM)
				return bad(t, p, "truncated event object");
			return bad(t, p, "truncated JSON");
		}
		fill(t, t->pos);
	}
	if (inobj && !sawarr)
		return bad(t, t->b + t->len, "no \"traceEvents\" array in "
		    "the top-level object");
	finish(t);
	if (t->progress)
		progress(t, 1);
	return 0;
}

int64_t
trace_min_ts(const struct trace *t)
{
	return t->mints;
}

int64_t
trace_min_kernel_ts(const struct trace *t)
{
	return t->minkts;
}

void
trace_counts(const struct trace *t, struct trace_counts *c)
{
	*c = t->c;
}

const char *
trace_warning(const struct trace *t, int i, const char **msg)
{
	if (i < 0 || i >= t->nw)
		return NULL;
	if (msg)
		*msg = t->w[i].msg;
	return t->w[i].code;
}

/* ---------- writers ---------- */

static void
outsrc(struct trace *t, struct buf *b, uint64_t off)
{
	char tmp[24];
	int n = 0;

	do {
		tmp[sizeof tmp - 1 - n++] = (char)('0' + off % 10);
		off /= 10;
	} while (off);
	t->sc.len = 0;
	buf_adds(&t->sc, t->disp);
	buf_addc(&t->sc, '@');
	buf_add(&t->sc, tmp + sizeof tmp - n, (size_t)n);
	out_str(b, "src", t->sc.p, t->sc.len);
}

void
trace_put_markers(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	struct buf *b = &t->ob;

	for (size_t i = 0; i < t->nmk; i++) {
		const struct marker *m = &t->mk[i];
		const char *a = t->mka.p + m->name;

		out_begin(b, "marker");
		out_cstr(b, "profile", profile);
		outsrc(t, b, m->off);
		out_str(b, "name", a, m->nname);
		out_str(b, "kind", a, m->kind);
		out_str(b, "step", a + m->step, m->nstep);
		out_i64(b, "pid", m->pid);
		out_i64(b, "tid", m->tid);
		out_i64(b, "start_ns", m->start - origin);
		out_i64(b, "dur_ns", m->dur);
		out_i64(b, "end_ns", m->start + m->dur - origin);
		rec_put(b, fp);
	}
}

static int
i64cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void
trace_put_kernels(struct trace *t, FILE *fp, const char *profile,
    int64_t origin)
{
	int64_t *devs = xcalloc(t->npr + 1, sizeof *devs);
	size_t nd = 0;
	struct buf *b = &t->ob;
	unsigned mask = 1u << SET_O | (t->kern_h ? 1u << SET_H : 0);

	for (size_t i = 0; i < t->nth; i++) {
		const struct thr *h = &t->th[i];

		if (h->role != T_DEV || h->nx == 0)
			continue;
		int64_t d = t->pr[h->pi].dev < 0 ? -1 : t->pr[h->pi].dev;
		size_t j;

		for (j = 0; j < nd && devs[j] != d; j++)
			;
		if (j == nd) {
			if (nd == t->npr)
				break;
			devs[nd++] = d;
		}
	}
	qsort(devs, nd, sizeof *devs, i64cmp);
	for (size_t di = 0; di < nd; di++) {
		struct mrg m;
		struct rdr *r;

		mrg_open(t, &m, mask);
		for (; (r = mrg_top(&m)) != NULL; mrg_pop(&m)) {
			const struct shdr *h = &r->h;
			int ti = getthr(t, h->pid, h->tid, 0);
			const struct proc *p;
			const char *s = r->s;

			if (ti < 0 || t->th[ti].role != T_DEV)
				continue;
			p = &t->pr[t->th[ti].pi];
			if ((p->dev < 0 ? -1 : p->dev) != devs[di])
				continue;
			out_begin(b, "kernel");
			out_cstr(b, "profile", profile);
			outsrc(t, b, h->off);
			if (p->dev < 0)
				out_null(b, "device");
			else
				out_i64(b, "device", p->dev);
			out_i64(b, "stream", h->flags & F_STREAM ? h->stream :
			    h->tid);
			if (h->flags & F_TASKID)
				out_i64(b, "task_id", h->taskid);
			else
				out_null(b, "task_id");
			out_null(b, "step");
			out_str(b, "name", s, h->nname);
			out_null(b, "op_type");
			s += h->nname + h->ncat + h->nframe;
			if (p->role == R_COMM || (h->nttype == 4 &&
			    memcmp(s, "HCCL", 4) == 0))
				out_cstr(b, "task_type", "COMMUNICATION");
			else if (h->flags & F_TTYPE)
				out_str(b, "task_type", s, h->nttype);
			else
				out_null(b, "task_type");
			out_i64(b, "start_ns", h->start - origin);
			out_i64(b, "dur_ns", h->dur);
			out_i64(b, "end_ns", h->start + h->dur - origin);
			out_null(b, "wait_ns");
			rec_put(b, fp);
		}
		mrg_close(&m);
	}
	free(devs);
}

struct pend {
	struct shdr	 h;
	char		*s;
	size_t		 scap;
	int		 ti, depth, leaf, resolved, hask;
	int64_t		 kns;
};

struct hth {
	uint64_t	 last;		/* seq + 1 of its last queued event */
	int64_t		*stk;
	size_t		 nstk, cstk;
};

struct hq {
	struct pend	*q;
	uint64_t	 head, tail, cap;
};

static void
put_host1(struct trace *t, FILE *fp, const char *profile, int64_t origin,
    const struct pend *e)
{
	struct buf *b = &t->ob;
	const struct shdr *h = &e->h;
	const struct thr *th = &t->th[e->ti];
	const char *s = e->s;

	out_begin(b, "host");
	out_cstr(b, "profile", profile);
	outsrc(t, b, h->off);
	out_str(b, "name", s, h->nname);
	s += h->nname;
	if (h->flags & F_CAT)
		out_str(b, "cat", s, h->ncat);
	else
		out_null(b, "cat");
	s += h->ncat;
	out_cstr(b, "process", th->pi >= 0 ? t->pr[th->pi].name : NULL);
	out_i64(b, "pid", h->pid);
	out_i64(b, "tid", h->tid);
	out_i64(b, "start_ns", h->start - origin);
	out_i64(b, "dur_ns", h->dur);
	out_i64(b, "end_ns", h->start + h->dur - origin);
	out_i64(b, "depth", e->depth);
	out_bool(b, "leaf", e->leaf);
	if (h->flags & F_STACK) {
		if (h->flags & F_FRAME)
			out_str(b, "frame", s, h->nframe);
		else
			out_null(b, "frame");
	}
	if (e->hask)
		out_i64(b, "kernel_ns", e->kns - origin);
	rec_put(b, fp);
}

void
trace_put_host(struct trace *t, FILE *fp, const char *profile, int64_t origin)
{
	struct mrg m;
	struct rdr *r;
	struct hth *ht = xcalloc(t->nth + 1, sizeof *ht);
	struct hq q = { NULL, 0, 0, 0 };
	size_t cur = 0;

	t->c.host_linked = 0;
	q.cap = 64;
	q.q = xcalloc(q.cap, sizeof *q.q);
	mrg_open(t, &m, 1u << SET_H | 1u << SET_O);
	for (;;) {
		r = mrg_top(&m);
		int64_t now = r ? r->h.start : INT64_MAX;
		int ti = -1;

		if (r) {
			ti = getthr(t, r->h.pid, r->h.tid, 0);
			if (ti < 0 || t->th[ti].role != T_HOST) {
				mrg_pop(&m);
				continue;
			}
			/* the thread's previous event: does this start in it? */
			struct hth *x = &ht[ti];

			if (x->last && x->last - 1 >= q.head) {
				struct pend *l = &q.q[(x->last - 1) & (q.cap - 1)];

				if (!l->resolved) {
					l->leaf = !(now < l->h.start + l->h.dur) &&
					    !(l->h.flags & F_MARK);
					l->resolved = 1;
				}
			}
		}
		/* write what is resolved, or can no longer get a child */
		while (q.head < q.tail) {
			struct pend *e = &q.q[q.head & (q.cap - 1)];

			if (!e->resolved) {
				if (e->h.start + e->h.dur > now)
					break;
				e->leaf = !(e->h.flags & F_MARK);
				e->resolved = 1;
			}
			put_host1(t, fp, profile, origin, e);
			q.head++;
		}
		if (!r)
			break;
		if (q.tail - q.head == q.cap) {
			struct pend *nq = xcalloc(q.cap * 2, sizeof *nq);

			for (uint64_t sq = q.head; sq < q.head + q.cap; sq++)
				nq[sq & (q.cap * 2 - 1)] = q.q[sq & (q.cap - 1)];
			free(q.q);
			q.q = nq;
			q.cap *= 2;
		}
		struct pend *e = &q.q[q.tail & (q.cap - 1)];
		struct hth *x = &ht[ti];
		size_t n = slen(&r->h), k = 0;

		e->h = r->h;
		if (n > e->scap) {
			e->scap = n + 256;
			e->s = xrealloc(e->s, e->scap);
		}
		memcpy(e->s, r->s, n);
		e->ti = ti;
		e->resolved = 0;
		e->leaf = 0;
		for (size_t i = 0; i < x->nstk; i++)
			if (x->stk[i] > now)
				x->stk[k++] = x->stk[i];
		x->nstk = k;
		e->depth = (int)k;
		if (e->h.dur > 0) {
			if (x->nstk == x->cstk) {
				x->cstk = x->cstk ? x->cstk * 2 : 16;
				x->stk = xreallocarray(x->stk, x->cstk,
				    sizeof *x->stk);
			}
			x->stk[x->nstk++] = now + e->h.dur;
		} else {
			e->leaf = !(e->h.flags & F_MARK);
			e->resolved = 1;
		}
		/* linked kernel: s end at exactly this (pid, tid, ts) */
		e->hask = 0;
		while (cur < t->nlk && t->lk[cur].ts < now)
			cur++;
		for (size_t j = cur; j < t->nlk && t->lk[j].ts == now; j++) {
			if (t->lk[j].pid == e->h.pid && t->lk[j].tid == e->h.tid) {
				e->hask = 1;
				t->c.host_linked++;
				e->kns = t->lk[j].kts;
				break;
			}
		}
		x->last = ++q.tail;
		mrg_pop(&m);
	}
	mrg_close(&m);
	for (uint64_t i = 0; i < q.cap; i++)
		free(q.q[i].s);
	free(q.q);
	for (size_t i = 0; i < t->nth; i++)
		free(ht[i].stk);
	free(ht);
}

void
trace_close(struct trace *t)
{
	if (t == NULL)
		return;
	if (t->fd > 0)
		close(t->fd);
	for (int s = 0; s < NSET; s++) {
		for (int i = 0; i < t->nruns[s]; i++)
			fclose(t->runs[s][i].fp);
		free(t->runs[s]);
	}
	for (size_t i = 0; i < t->npr; i++)
		free(t->pr[i].name);
	for (size_t i = 0; i < t->nth; i++)
		free(t->th[i].name);
	for (int i = 0; i < t->nw; i++)
		free(t->w[i].msg);
	free(t->w);
	free(t->pr);
	free(t->th);
	free(t->hpr.slot);
	free(t->hth.slot);
	free(t->b);
	free(t->ix);
	free(t->ixtmp);
	free(t->mk);
	free(t->fs);
	free(t->ff);
	free(t->lk);
	buf_free(&t->arena);
	buf_free(&t->mka);
	buf_free(&t->sc);
	buf_free(&t->sc2);
	buf_free(&t->sc3);
	buf_free(&t->sc4);
	buf_free(&t->ob);
	free(t->path);
	free(t->disp);
	free(t->tmpdir);
	free(t->pattern);
	free(t);
}
