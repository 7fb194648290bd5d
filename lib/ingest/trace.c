/* trace: streaming reader of Chrome-trace-style profiler timelines. */
#define _GNU_SOURCE		/* memmem, memrchr */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dec.h"
#include "nest.h"
#include "rec.h"
#include "simd.h"
#include "trace.h"
#include "util.h"

#define CHUNK		(8u << 20)	/* default read() size */
#define MAPWIN		((size_t)4 << 20)	/* mmap window of a regular file */
#define RDBUF		(128u << 10)	/* run reader buffer, at most */
#define RDMIN		(16u << 10)	/* run reader buffer, at least */
#define RDTOTAL		((size_t)4 << 20)	/* all readers of one merge */
#define WRBUF		(256u << 10)	/* run writer buffer */
#define OUTBUF		(256u << 10)	/* record output buffer */
#define MAXRUNS		48		/* runs per set before they are merged */
#define MAXDEPTH	512		/* JSON nesting limit */
#define DEFRUN		((size_t)40 << 20)
#define SPLITMIN	((uint64_t)64 << 20)	/* read on two threads from */
#define SPLITSCAN	((uint64_t)64 << 20)	/* look this far for an event */

enum { R_IGN, R_HOST, R_HW, R_COMM };	/* process roles */
enum { T_IGN, T_HOST, T_DEV };		/* thread (event) roles */
/* spill sets, by the role of the event's process when it was read:
 * host, device (or communication), known other, not yet known */
enum { SET_H, SET_D, SET_I, SET_O, NSET };

/*
 * Spill record: this header, then the stream and task id (int64 each,
 * only when flagged), then name, cat, frame and task type text, padded
 * to a multiple of 8 bytes so that headers stay aligned in a buffer.
 */
struct shdr {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 ti, flags;	/* thread index */
	uint32_t	 nname, ncat, nframe, nttype;
};
_Static_assert(sizeof(struct shdr) == 48, "spill header layout");
#define F_CAT		0x01
#define F_STACK		0x02
#define F_FRAME		0x04
#define F_MARK		0x08
#define F_STREAM	0x10
#define F_TASKID	0x20
#define F_TTYPE		0x40

static size_t
rlen(const struct shdr *h)
{
	size_t n = sizeof *h + (h->flags & F_STREAM ? 8 : 0) +
	    (h->flags & F_TASKID ? 8 : 0) + (size_t)h->nname + h->ncat +
	    h->nframe + h->nttype;

	return (n + 7) & ~(size_t)7;
}

static int64_t
rext(const struct shdr *h, int i)
{
	int64_t v;

	memcpy(&v, (const char *)(h + 1) + 8 * i, sizeof v);
	return v;
}

/* The text after the header: name, cat, frame, task type. */
static const char *
rtext(const struct shdr *h)
{
	return (const char *)(h + 1) + (h->flags & F_STREAM ? 8 : 0) +
	    (h->flags & F_TASKID ? 8 : 0);
}

struct ridx {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 pos;		/* of the record in the block */
	uint32_t	 set;		/* spill set in the low 3 bits, the
					   record length (a multiple of 8)
					   above, or 0 if it does not fit */
};
#define IXSET(x)	((int)((x)->set & 7))

struct run {
	int		 fd;
	uint64_t	 n;
	const uint32_t	*map;		/* thread indices of a run read by
					   the second thread, or NULL */
};

struct rdr {
	int		 fd;
	uint64_t	 left;
	char		*b;		/* 8-aligned records */
	size_t		 cap, pos, len;
	const struct shdr *h;		/* current record, in b */
	int64_t		 start, dur;	/* its sort key */
	uint64_t	 off;
	const uint32_t	*map;		/* of its run */
};

struct mrg {
	struct rdr	*r;
	int		 n, nh;
	int		*hp;
};

/* Sorted runs of fixed-size records (flow ends, links): an in-memory
 * buffer, spilled as sorted runs to one file when full. */
struct frun {
	uint64_t	 off, n;
};

struct frs {
	size_t		 rsz, cap, n;	/* record size, records in m */
	int		(*cmp)(const void *, const void *);
	int		 sgn;		/* the first 8 bytes of a record, its
					   first key, are signed */
	char		*m;
	int		 fd;
	uint64_t	 end;
	struct frun	*runs;
	int		 nruns;
};

struct fsrc {
	const char	*cur;
	const char	*mp;		/* in-memory source */
	int		 fd;		/* file source */
	uint64_t	 off, left;
	char		*b;
	size_t		 bpos, blen, bcap;
};

struct fmrg {
	struct fsrc	*s;
	int		 n, nh;
	int		*hp;
	int		(*cmp)(const void *, const void *);
	size_t		 rsz;
};

struct proc {
	int64_t		 pid;
	char		*name;
	int		 dev;		/* -2 no label, -1 bare "NPU", else id */
	int		 cpu;		/* label CPU */
	int		 role;
};

struct thr {
	int64_t		 pid, tid;
	char		*name;
	int		 pi;		/* proc index at finalize, or -1 */
	int		 role;		/* T_* at finalize */
	int		 prov;		/* provisional set, valid for gen */
	unsigned	 sets;		/* spill sets holding its events */
	unsigned long	 gen;
	unsigned long	 nx;
	int64_t		 minx;
	int		 stack;
	int		 seen;		/* has an X event or a thread_name */
};

struct htab {
	int		*slot;		/* index + 1, 0 empty */
	size_t		 cap, n;
};

/*
 * Step marker, a fixed-size record of sorted runs: the name is the
 * prefix of kind (0 ProfilerStep, 1 Iteration, 2 Step, 3 the -p
 * pattern), '#' and the step digits, held here when they fit (nd),
 * else (nd MKLONG) in the arena mka at the offset and length in dig
 * (only absurdly long step numbers are kept in memory).
 */
struct marker {
	int64_t		 start, dur;
	uint64_t	 off;
	uint32_t	 ti;		/* thread index */
	uint8_t		 kind, nd;
	uint16_t	 pad;
	char		 dig[32];
};
_Static_assert(sizeof(struct marker) == 64, "marker layout");
#define MKLONG		0xff

/* Flow end: id = the integer id, or a hash of a non-integer id (kind
 * then has bit 0x80); kind 1 async_npu/torch_to_npu, 2 HostToDevice;
 * ti the thread of an s end. */
struct fl {
	uint64_t	 id;
	int64_t		 ts;
	uint32_t	 ti, kind;
};

/* A host s end at (ti, ts) linked to the earliest f end (kts). */
struct lk {
	int64_t		 ts, kts;
	uint32_t	 ti, pad;
};

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
	int		 mm;		/* b is an mmap window of the file */
	uint64_t	 fsize;
	size_t		 win;		/* its size */
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
	/* spill: one block of blkcap bytes, records from the bottom
	 * (alen bytes), their index entries from the top down (nix) */
	char		*blk;
	size_t		 blkcap, alen, nix;
	struct run	*runs[NSET];
	int		 nruns[NSET];
	unsigned	 hostsets, devsets;	/* sets to merge, at finish */
	/* markers, flows */
	struct frs	 mk, mko;		/* markers: all, outermost kept */
	struct buf	 mka;			/* long step digits */
	struct frs	 fs, ff, lk;		/* s ends, f ends, links */
	/* results */
	struct warn	*w;
	int		 nw;
	struct trace_counts c;
	int64_t		 mints, minkts;
	/* scratch */
	struct buf	 sc, sc2, sc3, sc4, ob;
	/* two threads: the first reads up to split (0: none), the
	 * second from there, with cancel and nomsg set */
	uint64_t	 split, splitmin;
	struct split	*sp;
	_Atomic int	*cancel;
	int		 nomsg;
	int		 splitres;	/* 1 joined, -1 dropped */
	uint32_t	*map2;		/* its thread indices, once joined */
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
	unsigned long line = t->bline;

	if (t->nomsg)
		return -1;
	if (at > t->len)
		at = t->len;
	if (t->mm && t->boff) {
		/* lines before the window: counted now, not while reading */
		char *rb = xmalloc(1u << 20);
		uint64_t o = 0;

		line = 0;
		while (o < t->boff) {
			size_t want = t->boff - o < (1u << 20) ?
			    (size_t)(t->boff - o) : (1u << 20);
			ssize_t k = pread(t->fd, rb, want, (off_t)o);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				break;
			line += countnl(rb, (size_t)k);
			o += (uint64_t)k;
		}
		free(rb);
	}
	snprintf(t->err, sizeof t->err, "%s:%lu: byte %llu: %s", t->disp,
	    line + 1 + countnl(t->b, at),
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
#ifdef ASC_SWAR	/* swar_digits8 is fast */
	while (nd <= 8 && e - s >= 8 && swar_digits8(s) == 8) {
		x = x * 100000000 + swar_parse8(s);
		s += 8;
		nd += 8;
	}
#endif
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
pstr_slow(struct pc *c, struct span *sp)
{
	const char *p = c->p + 1, *e = c->e;
	int esc = 0;

	for (;;) {
#ifdef ASC_SSE2
		while (e - p >= 16) {
			unsigned bits = simd_stop16(p);

			if (bits) {
				p += __builtin_ctz(bits);
				break;
			}
			p += 16;
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
isws(int ch)
{
	return ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t';
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
	{
		/* the usual ": " */
		const char *p = c->p;

		if (c->e - p >= 3 && p[0] == ':') {
			p += 1 + (p[1] == ' ');
			if (!isws((unsigned char)*p)) {
				c->p = p;
				return P_OK;
			}
		}
	}
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
			return pkey(c, k);
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
					return pkey(c, k);
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
			if (!isws((unsigned char)*p)) {
				c->p = p;
				return P_OK;
			}
		}
	}
	return pkey(c, k);
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

		if ((r = pevkey(c, &k)) != P_OK)
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

/* mmap mode of fill: a window from the page of keep, longer than the
 * one before (the unit at keep did not fit). */
static size_t
fillmap(struct trace *t, size_t keep)
{
	uint64_t noff = t->boff + keep, aoff, oend = t->boff + t->len;
	size_t len = t->win, pg = (size_t)sysconf(_SC_PAGESIZE);
	void *m;

	if (oend >= t->fsize) {
		t->eof = 1;
		return 0;
	}
	aoff = noff & ~(uint64_t)(pg - 1);
	while (aoff + len <= oend)
		len *= 2;
	if (aoff + len > t->fsize)
		len = (size_t)(t->fsize - aoff);
	if (t->b)
		munmap(t->b, t->len);
	m = mmap(NULL, len, PROT_READ, MAP_PRIVATE, t->fd, (off_t)aoff);
	if (m == MAP_FAILED)
		dieerr("%s", t->disp);
	(void)madvise(m, len, MADV_SEQUENTIAL);
	t->b = m;
	t->len = len;
	t->pos = (size_t)(noff - aoff);
	t->boff = aoff;
	t->nread = aoff + len;
	if (t->progress)
		progress(t, 0);
	return (size_t)(aoff + len - oend);
}

/* Drop b[0..keep), read more.  Returns bytes read, 0 at EOF. */
static size_t
fill(struct trace *t, size_t keep)
{
	size_t rem = t->len - keep;
	ssize_t n;

	if (t->mm)
		return fillmap(t, keep);

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

/* Stable LSD radix sort of a[0..n) by start (tmp: n entries), then an
 * insertion sort of equal starts by the full order. */
static void
radixix(struct ridx *a, size_t n, struct ridx *tmp)
{
	size_t cnt[2048], i;
	struct ridx *src = a, *dst = tmp, *x;
	int64_t mn = INT64_MAX, mx = INT64_MIN;
	uint64_t range;

	for (i = 0; i < n; i++) {
		if (a[i].start < mn)
			mn = a[i].start;
		if (a[i].start > mx)
			mx = a[i].start;
	}
	range = (uint64_t)mx - (uint64_t)mn;
	for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[(((uint64_t)src[i].start - (uint64_t)mn) >> sh) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[(((uint64_t)src[i].start - (uint64_t)mn) >> sh) &
			    2047]++] = src[i];
		x = src;
		src = dst;
		dst = x;
	}
	if (src != a)
		memcpy(a, src, n * sizeof *a);
	for (i = 1; i < n; i++) {
		if (a[i].start != a[i - 1].start || ixcmp(&a[i - 1], &a[i]) <= 0)
			continue;
		struct ridx v = a[i];
		size_t j = i;

		while (j > 0 && a[j - 1].start == v.start &&
		    ixcmp(&a[j - 1], &v) > 0) {
			a[j] = a[j - 1];
			j--;
		}
		a[j] = v;
	}
}

/*
 * Sort a[0..n) by (start asc, dur desc, off asc); tmp has room for n.
 * Events come nearly in order (a thread writes an event when it ends,
 * so a parent follows its children; a few threads interleave): the
 * entries in order are kept in place, the others set aside in tmp,
 * sorted the same way (with a[m..n) as their spare room), and the two
 * merged from the back.  Deep recursion falls back to a radix sort.
 */
static void
sortrange(struct ridx *a, size_t n, struct ridx *tmp, int depth)
{
	size_t m = 1, s = 0, i, j, k;

	if (n < 2)
		return;
	if (depth > 8 || n < 16) {
		if (n < 16) {
			for (i = 1; i < n; i++) {
				struct ridx v = a[i];

				for (j = i; j > 0 && ixcmp(&a[j - 1], &v) > 0; j--)
					a[j] = a[j - 1];
				a[j] = v;
			}
		} else
			radixix(a, n, tmp);
		return;
	}
	for (i = 1; i < n; i++) {
		if (ixcmp(&a[m - 1], &a[i]) <= 0)
			a[m++] = a[i];
		else
			tmp[s++] = a[i];
	}
	if (s == 0)
		return;
	sortrange(tmp, s, a + m, depth + 1);
	/* merge a[0..m) and tmp[0..s) into a[0..n), from the back */
	i = m;
	j = s;
	k = n;
	while (j > 0) {
		if (i > 0 && ixcmp(&a[i - 1], &tmp[j - 1]) > 0)
			a[--k] = a[--i];
		else
			a[--k] = tmp[--j];
	}
}

/* The index entries at the top of the block, newest first. */
static struct ridx *
ixtop(const struct trace *t)
{
	return (struct ridx *)(void *)(t->blk + t->blkcap);
}

/*
 * Sort the run index: grouped by set (each set is its own run), each
 * group in start order.  The sorted index is built in the free room
 * between the records and the index (spill() keeps room for it); the
 * index itself is the scratch space of the sort.
 */
static struct ridx *
sortix(struct trace *t)
{
	size_t n = t->nix, cnt[NSET + 1] = { 0 }, pos[NSET];
	struct ridx *a = ixtop(t) - n;
	struct ridx *b = (struct ridx *)(void *)(t->blk + t->alen);

	for (size_t i = 0; i < n; i++)
		cnt[IXSET(&a[i]) + 1]++;
	for (int s = 0; s < NSET; s++) {
		cnt[s + 1] += cnt[s];
		pos[s] = cnt[s];
	}
	for (size_t i = n; i-- > 0;)	/* oldest first */
		b[pos[IXSET(&a[i])]++] = a[i];
	for (int s = 0; s < NSET; s++)
		sortrange(b + cnt[s], cnt[s + 1] - cnt[s], a + cnt[s], 0);
	return b;
}

/* An unlinked temporary file for spill data. */
static int
tmpfd(struct trace *t)
{
	struct buf p = { 0 };
	int fd;

	buf_adds(&p, t->tmpdir);
	buf_adds(&p, "/asc-trace-XXXXXX");
	buf_addc(&p, 0);
	if ((fd = mkstemp(p.p)) < 0)
		dieerr("%s", p.p);
	unlink(p.p);
	buf_free(&p);
	return fd;
}

static void
wall(struct trace *t, int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n) {
		ssize_t k = write(fd, s, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			dieerr("%s: spill file", t->tmpdir);
		s += k;
		n -= (size_t)k;
	}
}

static void
addrun(struct trace *t, int set, int fd, uint64_t n)
{
	t->runs[set] = xreallocarray(t->runs[set], (size_t)t->nruns[set] + 1,
	    sizeof *t->runs[set]);
	t->runs[set][t->nruns[set]].fd = fd;
	t->runs[set][t->nruns[set]].n = n;
	t->runs[set][t->nruns[set]].map = NULL;
	t->nruns[set]++;
}

static void consolidate(struct trace *, int);

/* Gathered writes of arena records to one run file. */
#define IOVN		64
struct wv {
	int		 fd;
	int		 n;
	struct iovec	 v[IOVN];
};

static void
wv_flush(struct trace *t, struct wv *w)
{
	struct iovec *v = w->v;
	int n = w->n;

	while (n > 0) {
		ssize_t k = writev(w->fd, v, n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			dieerr("%s: spill file", t->tmpdir);
		while (n > 0 && (size_t)k >= v->iov_len) {
			k -= (ssize_t)v->iov_len;
			v++;
			n--;
		}
		if (n > 0) {
			v->iov_base = (char *)v->iov_base + k;
			v->iov_len -= (size_t)k;
		}
	}
	w->n = 0;
}

static void
wv_add(struct trace *t, struct wv *w, const void *p, size_t len)
{
	if (w->n && (const char *)w->v[w->n - 1].iov_base +
	    w->v[w->n - 1].iov_len == (const char *)p) {
		w->v[w->n - 1].iov_len += len;	/* next in the arena */
		return;
	}
	if (w->n == IOVN)
		wv_flush(t, w);
	w->v[w->n].iov_base = (void *)(uintptr_t)p;
	w->v[w->n].iov_len = len;
	w->n++;
}

static void
flushrun(struct trace *t)
{
	struct wv *w[NSET] = { NULL };
	uint64_t n[NSET] = { 0 };
	const struct ridx *ix;

	if (t->nix == 0)
		return;
	ix = sortix(t);
	for (size_t i = 0; i < t->nix; i++) {
		const struct ridx *x = &ix[i];
		const struct shdr *h = (const void *)(t->blk + x->pos);
		int s = IXSET(x);
		size_t len = x->set & ~(uint32_t)7;

		if (w[s] == NULL) {
			w[s] = xcalloc(1, sizeof *w[s]);
			w[s]->fd = tmpfd(t);
		}
		wv_add(t, w[s], h, len ? len : rlen(h));
		n[s]++;
	}
	for (int s = 0; s < NSET; s++) {
		if (w[s]) {
			wv_flush(t, w[s]);
			addrun(t, s, w[s]->fd, n[s]);
			free(w[s]);
			if (t->nruns[s] >= MAXRUNS)
				consolidate(t, s);
		}
	}
	t->nix = 0;
	t->alen = 0;
}

/* Append one record (header, stream and task id, text) to the run. */
static void
spill(struct trace *t, int set, const struct shdr *h, int64_t stream,
    int64_t taskid, const char *name, const char *cat, const char *frame,
    const char *ttype)
{
	size_t len = rlen(h), pos;
	struct ridx *x;

	/* room for the record, its index entry and the sorted index */
	if (t->nix && (t->alen + len + (t->nix + 1) * 2 * sizeof *x >
	    t->blkcap || t->alen + len > UINT32_MAX))
		flushrun(t);
	if (t->nix == 0) {
		/* run_bytes, or more for a record larger than that */
		size_t want = t->runbytes & ~(size_t)7;

		if (len + 2 * sizeof *x > want)
			want = len + 2 * sizeof *x;
		if (want != t->blkcap) {
			free(t->blk);
			t->blk = NULL;
			t->blkcap = want;
		}
	}
	if (t->blk == NULL)
		t->blk = xmalloc(t->blkcap);
	pos = t->alen;			/* records keep 8-byte alignment */
	{
		char *d = t->blk + pos, *e = d + len;
		const char *hs = (const char *)h;

		/* word by word: a small memcpy here became rep movs */
		for (size_t i = 0; i < sizeof *h; i += 8)
			memcpy(d + i, hs + i, 8);
		d += sizeof *h;
		if (h->flags & F_STREAM) {
			memcpy(d, &stream, 8);
			d += 8;
		}
		if (h->flags & F_TASKID) {
			memcpy(d, &taskid, 8);
			d += 8;
		}
		memcpy(d, name, h->nname);
		d += h->nname;
		memcpy(d, cat, h->ncat);
		d += h->ncat;
		memcpy(d, frame, h->nframe);
		d += h->nframe;
		memcpy(d, ttype, h->nttype);
		d += h->nttype;
		memset(d, 0, (size_t)(e - d));
	}
	t->alen = pos + len;
	x = ixtop(t) - 1 - t->nix;
	x->start = h->start;
	x->dur = h->dur;
	x->off = h->off;
	x->pos = (uint32_t)pos;
	x->set = (uint32_t)set | (len < ((size_t)1 << 32) ?
	    (uint32_t)len : 0);
	t->nix++;
}

/* At least n bytes of the current record in the buffer. */
static void
rd_need(struct rdr *r, size_t n)
{
	if (r->len - r->pos >= n)
		return;
	memmove(r->b, r->b + r->pos, r->len - r->pos);
	r->len -= r->pos;
	r->pos = 0;
	if (n > r->cap) {
		r->cap = (n + RDMIN) & ~(size_t)7;
		r->b = xrealloc(r->b, r->cap);
	}
	while (r->len < n) {
		ssize_t k = read(r->fd, r->b + r->len, r->cap - r->len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			die("spill file: %s", k < 0 ? strerror(errno) :
			    "unexpected end");
		r->len += (size_t)k;
	}
}

static int
rd_next(struct rdr *r)
{
	const struct shdr *h;
	size_t n;

	if (r->left == 0)
		return 0;
	r->left--;
	rd_need(r, sizeof *h);
	h = (const void *)(r->b + r->pos);
	n = rlen(h);
	if (r->len - r->pos < n) {
		rd_need(r, n);
		h = (const void *)(r->b + r->pos);
	}
	if (r->map)
		((struct shdr *)(void *)(r->b + r->pos))->ti = r->map[h->ti];
	r->pos += n;
	r->h = h;
	r->start = h->start;
	r->dur = h->dur;
	r->off = h->off;
	return 1;
}

static int
hless(const struct mrg *m, int a, int b)
{
	const struct rdr *x = &m->r[a], *y = &m->r[b];

	if (x->start != y->start)
		return x->start < y->start;
	if (x->dur != y->dur)
		return x->dur > y->dur;
	return x->off < y->off;
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

/* The buffer of each of n readers sharing total bytes, in [lo, hi]. */
static size_t
rdsize(size_t total, size_t n, size_t lo, size_t hi)
{
	size_t k = n ? total / n : hi;

	k = k < lo ? lo : k > hi ? hi : k;
	return k & ~(size_t)7;
}

static void
mrg_open(struct trace *t, struct mrg *m, unsigned mask)
{
	int n = 0;
	size_t bsz;

	for (int s = 0; s < NSET; s++)
		if (mask & (1u << s))
			n += t->nruns[s];
	bsz = rdsize(RDTOTAL, (size_t)n, RDMIN, RDBUF);
	m->r = xcalloc((size_t)n + 1, sizeof *m->r);
	m->hp = xcalloc((size_t)n + 1, sizeof *m->hp);
	m->n = m->nh = 0;
	for (int s = 0; s < NSET; s++) {
		if (!(mask & (1u << s)))
			continue;
		for (int i = 0; i < t->nruns[s]; i++) {
			struct rdr *r = &m->r[m->n];

			r->fd = t->runs[s][i].fd;
			if (lseek(r->fd, 0, SEEK_SET) < 0)
				dieerr("spill file");
			r->left = t->runs[s][i].n;
			r->map = t->runs[s][i].map;
			r->cap = bsz;
			r->b = xmalloc(r->cap);
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
	for (int i = 0; i < m->n; i++)
		free(m->r[i].b);
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
	int fd = tmpfd(t);
	uint64_t n = 0;
	char *wb = xmalloc(WRBUF);
	size_t wl = 0;

	mrg_open(t, &m, 1u << set);
	while ((r = mrg_top(&m)) != NULL) {
		size_t len = rlen(r->h);

		if (wl + len > WRBUF) {
			wall(t, fd, wb, wl);
			wl = 0;
		}
		if (len > WRBUF)
			wall(t, fd, r->h, len);
		else {
			memcpy(wb + wl, r->h, len);
			wl += len;
		}
		n++;
		mrg_pop(&m);
	}
	wall(t, fd, wb, wl);
	free(wb);
	mrg_close(&m);
	for (int i = 0; i < t->nruns[set]; i++)
		close(t->runs[set][i].fd);
	t->nruns[set] = 0;
	addrun(t, set, fd, n);
}

/* ---------- sorted runs of fixed-size records ---------- */

#define FRBUF		(64u << 10)	/* reader buffer, at most */
#define FRMIN		(4u << 10)	/* reader buffer, at least */
#define FRTOTAL		((size_t)2 << 20)	/* all readers of one merge */
#define FMAXRUNS	64

static void
frs_init(struct frs *f, size_t rsz, size_t bytes,
    int (*cmp)(const void *, const void *), int sgn)
{
	memset(f, 0, sizeof *f);
	f->rsz = rsz;
	f->cap = bytes / rsz;
	if (f->cap < 64)
		f->cap = 64;
	f->cmp = cmp;
	f->sgn = sgn;
	f->fd = -1;
}

static void
frs_free(struct frs *f)
{
	free(f->m);
	f->m = NULL;
	if (f->fd >= 0)
		close(f->fd);
	f->fd = -1;
	free(f->runs);
	f->runs = NULL;
	f->n = 0;
	f->nruns = 0;
}

_Static_assert(offsetof(struct fl, id) == 0 && offsetof(struct lk, ts) == 0 &&
    offsetof(struct marker, start) == 0, "first keys of sorted records");

/* The first key of a record, in unsigned order. */
static uint64_t
frs_key(const struct frs *f, const char *r)
{
	uint64_t k;

	memcpy(&k, r, sizeof k);
	return f->sgn ? k ^ (1ULL << 63) : k;
}

/* Stable LSD radix sort of m by the first key, then an insertion sort
 * of equal first keys by cmp. */
static void
frs_radix(struct frs *f)
{
	size_t n = f->n, sz = f->rsz, cnt[2048], i;
	char *tmp = xreallocarray(NULL, n, sz), *src = f->m, *dst = tmp, *x;
	uint64_t mn = UINT64_MAX, mx = 0, range;
	char v[64];

	for (i = 0; i < n; i++) {
		uint64_t k = frs_key(f, src + i * sz);

		if (k < mn)
			mn = k;
		if (k > mx)
			mx = k;
	}
	range = mx - mn;
	for (int sh = 0; sh < 64 && (range >> sh) != 0; sh += 11) {
		size_t sum = 0;

		memset(cnt, 0, sizeof cnt);
		for (i = 0; i < n; i++)
			cnt[((frs_key(f, src + i * sz) - mn) >> sh) & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = cnt[d];

			cnt[d] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			memcpy(dst + sz * cnt[((frs_key(f, src + i * sz) - mn) >>
			    sh) & 2047]++, src + i * sz, sz);
		x = src;
		src = dst;
		dst = x;
	}
	if (src != f->m)
		memcpy(f->m, src, n * sz);
	free(tmp);
	x = f->m;
	for (i = 1; i < n; i++) {
		size_t j = i;
		uint64_t k = frs_key(f, x + i * sz);

		if (k != frs_key(f, x + (i - 1) * sz) ||
		    f->cmp(x + (i - 1) * sz, x + i * sz) <= 0)
			continue;
		memcpy(v, x + i * sz, sz);
		while (j > 0 && frs_key(f, x + (j - 1) * sz) == k &&
		    f->cmp(x + (j - 1) * sz, v) > 0)
			j--;
		memmove(x + (j + 1) * sz, x + j * sz, (i - j) * sz);
		memcpy(x + j * sz, v, sz);
	}
}

/* Sort m: insertion sort while it is cheap (input nearly in order),
 * else a radix sort. */
static void
frs_sort(struct frs *f)
{
	size_t n = f->n, sz = f->rsz, moved = 0, i;
	char *a = f->m, x[64];

	for (i = 1; i < n; i++) {
		size_t j = i;

		if (f->cmp(a + (i - 1) * sz, a + i * sz) <= 0)
			continue;
		memcpy(x, a + i * sz, sz);
		while (j > 0 && f->cmp(a + (j - 1) * sz, x) > 0)
			j--;
		memmove(a + (j + 1) * sz, a + j * sz, (i - j) * sz);
		memcpy(a + j * sz, x, sz);
		moved += i - j;
		if (moved > 4 * n + 4096) {
			frs_radix(f);
			return;
		}
	}
}

static void fmrg_open(struct fmrg *, struct frs *, int);
static const void *fmrg_top(struct fmrg *);
static void fmrg_pop(struct fmrg *);
static void fmrg_close(struct fmrg *);

static void
frs_writerun(struct trace *t, struct frs *f, const void *p, uint64_t n)
{
	if (f->fd < 0)
		f->fd = tmpfd(t);
	wall(t, f->fd, p, (size_t)n * f->rsz);
	f->runs = xreallocarray(f->runs, (size_t)f->nruns + 1, sizeof *f->runs);
	f->runs[f->nruns].off = f->end;
	f->runs[f->nruns].n = n;
	f->nruns++;
	f->end += n * f->rsz;
}

/* Merge every run (not m) into one in a new file. */
static void
frs_consolidate(struct trace *t, struct frs *f)
{
	struct fmrg m;
	struct frs g = *f;
	const void *r;
	char *wb = xmalloc(f->rsz * 4096);
	size_t wn = 0;

	g.n = 0;
	g.fd = -1;
	g.end = 0;
	g.runs = NULL;
	g.nruns = 0;
	fmrg_open(&m, f, 0);
	while ((r = fmrg_top(&m)) != NULL) {
		memcpy(wb + wn * f->rsz, r, f->rsz);
		if (++wn == 4096) {
			if (g.fd < 0)
				g.fd = tmpfd(t);
			wall(t, g.fd, wb, wn * f->rsz);
			g.end += wn * f->rsz;
			wn = 0;
		}
		fmrg_pop(&m);
	}
	fmrg_close(&m);
	if (g.fd < 0)
		g.fd = tmpfd(t);
	wall(t, g.fd, wb, wn * f->rsz);
	g.end += wn * f->rsz;
	free(wb);
	close(f->fd);
	free(f->runs);
	f->fd = g.fd;
	f->end = g.end;
	f->runs = xcalloc(1, sizeof *f->runs);
	f->runs[0].off = 0;
	f->runs[0].n = g.end / f->rsz;
	f->nruns = 1;
}

static void
frs_add(struct trace *t, struct frs *f, const void *rec)
{
	if (f->n == f->cap) {
		frs_sort(f);
		frs_writerun(t, f, f->m, f->n);
		f->n = 0;
		if (f->nruns >= FMAXRUNS)
			frs_consolidate(t, f);
	}
	if (f->m == NULL)
		f->m = xreallocarray(NULL, f->cap, f->rsz);
	memcpy(f->m + f->n * f->rsz, rec, f->rsz);
	f->n++;
}

static int
fs_next(struct fmrg *m, struct fsrc *s)
{
	if (s->left == 0)
		return 0;
	s->left--;
	if (s->mp) {
		s->cur = s->mp;
		s->mp += m->rsz;
		return 1;
	}
	if (s->bpos == s->blen) {
		uint64_t n = s->left + 1;
		size_t want, got = 0;

		if (n > s->bcap / m->rsz)
			n = s->bcap / m->rsz;
		want = (size_t)n * m->rsz;
		while (got < want) {
			ssize_t k = pread(s->fd, s->b + got, want - got,
			    (off_t)s->off);

			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				die("spill file: %s", k < 0 ? strerror(errno) :
				    "unexpected end");
			got += (size_t)k;
			s->off += (uint64_t)k;
		}
		s->bpos = 0;
		s->blen = want;
	}
	s->cur = s->b + s->bpos;
	s->bpos += m->rsz;
	return 1;
}

static int
fless(const struct fmrg *m, int a, int b)
{
	return m->cmp(m->s[a].cur, m->s[b].cur) < 0;
}

static void
fsift(struct fmrg *m, int i)
{
	for (;;) {
		int l = 2 * i + 1, r = l + 1, s = i, tmp;

		if (l < m->nh && fless(m, m->hp[l], m->hp[s]))
			s = l;
		if (r < m->nh && fless(m, m->hp[r], m->hp[s]))
			s = r;
		if (s == i)
			return;
		tmp = m->hp[i];
		m->hp[i] = m->hp[s];
		m->hp[s] = tmp;
		i = s;
	}
}

/* Merge the runs of f, and its sorted m when withmem. */
static void
fmrg_open(struct fmrg *m, struct frs *f, int withmem)
{
	int n = f->nruns + 1;
	size_t bsz = rdsize(FRTOTAL, (size_t)f->nruns, FRMIN, FRBUF);

	bsz -= bsz % f->rsz;
	m->s = xcalloc((size_t)n, sizeof *m->s);
	m->hp = xcalloc((size_t)n, sizeof *m->hp);
	m->n = m->nh = 0;
	m->cmp = f->cmp;
	m->rsz = f->rsz;
	for (int i = 0; i < f->nruns; i++) {
		struct fsrc *s = &m->s[m->n];

		s->fd = f->fd;
		s->off = f->runs[i].off;
		s->left = f->runs[i].n;
		s->bcap = bsz;
		s->b = xmalloc(bsz);
		if (fs_next(m, s))
			m->hp[m->nh++] = m->n;
		m->n++;
	}
	if (withmem && f->n) {
		struct fsrc *s = &m->s[m->n];

		s->mp = f->m;
		s->left = f->n;
		if (fs_next(m, s))
			m->hp[m->nh++] = m->n;
		m->n++;
	}
	for (int i = m->nh / 2 - 1; i >= 0; i--)
		fsift(m, i);
}

static const void *
fmrg_top(struct fmrg *m)
{
	return m->nh ? m->s[m->hp[0]].cur : NULL;
}

static void
fmrg_pop(struct fmrg *m)
{
	if (!fs_next(m, &m->s[m->hp[0]]))
		m->hp[0] = m->hp[--m->nh];
	fsift(m, 0);
}

static void
fmrg_close(struct fmrg *m)
{
	for (int i = 0; i < m->n; i++)
		free(m->s[i].b);
	free(m->s);
	free(m->hp);
	memset(m, 0, sizeof *m);
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

static const char *const mkkind[] = { "ProfilerStep", "Iteration", "Step" };

/* The prefix of a marker kind. */
static const char *
mkprefix(const struct trace *t, int kind)
{
	return kind < 3 ? mkkind[kind] : t->pattern;
}

/* Is name a step marker?  Sets the kind and its length. */
static int
ismarker(const struct trace *t, const char *s, size_t n, size_t *klen,
    int *kind)
{
	const char *h = memrchr(s, '#', n);
	size_t k;

	if (h == NULL || h + 1 == s + n)
		return 0;
	for (const char *p = h + 1; p < s + n; p++)
		if (*p < '0' || *p > '9')
			return 0;
	k = (size_t)(h - s);
	for (int i = 0; i < 3; i++) {
		if (k == strlen(mkkind[i]) && memcmp(s, mkkind[i], k) == 0) {
			*klen = k;
			*kind = i;
			return 1;
		}
	}
	if (t->pattern && k == t->npattern && memcmp(s, t->pattern, k) == 0) {
		*klen = k;
		*kind = 3;
		return 1;
	}
	return 0;
}

/* The spill set of a thread's events, from what is known now. */
static int
provset(struct trace *t, struct thr *h)
{
	if (h->gen != t->gen) {
		int pi = getproc(t, h->pid, 0);

		if (pi < 0)
			h->prov = SET_O;
		else
			switch (prole(&t->pr[pi])) {
			case R_HOST:
				h->prov = SET_H;
				break;
			case R_HW:
			case R_COMM:
				h->prov = SET_D;
				break;
			default:
				h->prov = SET_I;
				break;
			}
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
	size_t nname, ncat = 0, nframe = 0, ntt = 0, klen;
	int64_t pid, tid, stream = 0, taskid = 0;
	int set, ti, kind;

	memset(&h, 0, sizeof h);
	if (ev->ts.k == 0)
		return bad(t, at, "X event without \"ts\"");
	if (spanus(&ev->ts, &h.start) < 0)
		return bad(t, at, "bad \"ts\"");
	if (ev->dur.k == 0)
		return bad(t, at, "X event without \"dur\"");
	if (spanus(&ev->dur, &h.dur) < 0 || h.dur < 0)
		return bad(t, at, "bad \"dur\"");
	if (evid(t, ev, &ev->pid, &pid) < 0)
		return bad(t, at, "bad \"pid\"");
	if (evid(t, ev, &ev->tid, &tid) < 0)
		return bad(t, at, "bad \"tid\"");
	h.off = off;
	if (ev->name.k == 's')
		spanstr(&ev->name, &t->sc, &name, &nname);
	else
		name = "", nname = 0;
	ti = getthr(t, pid, tid, 1);
	th = &t->th[ti];
	h.ti = (uint32_t)ti;
	th->seen = 1;
	th->nx++;
	if (h.start < th->minx)
		th->minx = h.start;
	if (ev->cat.k == 's') {
		spanstr(&ev->cat, &t->sc2, &cat, &ncat);
		h.flags |= F_CAT;
	}
	if (ismarker(t, name, nname, &klen, &kind)) {
		struct marker m;
		const char *dg = name + klen + 1;
		uint64_t nd = nname - klen - 1, ao = t->mka.len;

		h.flags |= F_MARK;
		memset(&m, 0, sizeof m);
		m.start = h.start;
		m.dur = h.dur;
		m.off = off;
		m.ti = (uint32_t)ti;
		m.kind = (uint8_t)kind;
		if (nd <= sizeof m.dig) {
			m.nd = (uint8_t)nd;
			memcpy(m.dig, dg, nd);
		} else {
			m.nd = MKLONG;
			memcpy(m.dig, &ao, 8);
			memcpy(m.dig + 8, &nd, 8);
			buf_add(&t->mka, dg, nd);
		}
		frs_add(t, &t->mk, &m);
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
	if ((ev->pstream.k && spani64(&ev->pstream, &stream) == 0) ||
	    (ev->stream.k && spani64(&ev->stream, &stream) == 0))
		h.flags |= F_STREAM;
	if (ev->taskid.k && spani64(&ev->taskid, &taskid) == 0)
		h.flags |= F_TASKID;
	if (ev->ttype.k == 's') {
		spanstr(&ev->ttype, &t->sc3, &tt, &ntt);
		h.flags |= F_TTYPE;
	}
	h.nname = (uint32_t)nname;
	h.ncat = (uint32_t)ncat;
	h.nframe = (uint32_t)nframe;
	h.nttype = (uint32_t)ntt;
	set = provset(t, th);
	th->sets |= 1u << set;
	spill(t, set, &h, stream, taskid, name, cat, frame, tt);
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

		h->seen = 1;
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
	struct fl f;

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
	f.id = id;
	f.ts = ts;
	f.kind = (uint32_t)kind;
	f.ti = 0;
	if (isstart) {
		int64_t pid, tid;

		if (evid(t, ev, &ev->pid, &pid) < 0 ||
		    evid(t, ev, &ev->tid, &tid) < 0)
			return bad(t, at, "bad \"pid\" or \"tid\"");
		f.ti = (uint32_t)getthr(t, pid, tid, 1);
		frs_add(t, &t->fs, &f);
	} else
		frs_add(t, &t->ff, &f);
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

/* Flow ends by (id, kind, ts): the first of an id is its earliest. */
static int
flcmp(const void *a, const void *b)
{
	const struct fl *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ti != y->ti)
		return x->ti < y->ti ? -1 : 1;
	return 0;
}

/* Links in host pass order: (ts, thread, kernel ts). */
static int
lkcmp(const void *a, const void *b)
{
	const struct lk *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->ti != y->ti)
		return x->ti < y->ti ? -1 : 1;
	if (x->kts != y->kts)
		return x->kts < y->kts ? -1 : 1;
	return 0;
}

/*
 * Link every host s end to the earliest f end of the same id and kind:
 * a merge join of the two sorted streams.  The links, sorted by
 * (ts, thread, kts), keep the first of each (ts, thread); they end in
 * t->lk as one sorted source (in memory, or one run).
 */
static void
linkflows(struct trace *t)
{
	struct fmrg ms, mf;
	const struct fl *s, *f;
	unsigned long k = 0;

	frs_sort(&t->fs);
	frs_sort(&t->ff);
	fmrg_open(&ms, &t->fs, 1);
	fmrg_open(&mf, &t->ff, 1);
	f = fmrg_top(&mf);
	for (; (s = fmrg_top(&ms)) != NULL; fmrg_pop(&ms)) {
		const struct thr *h = &t->th[s->ti];
		struct lk l;

		if (h->role != T_HOST || !h->seen)
			continue;
		while (f && (f->id < s->id || (f->id == s->id &&
		    f->kind < s->kind))) {
			fmrg_pop(&mf);
			f = fmrg_top(&mf);
		}
		if (f == NULL)
			break;
		if (f->id != s->id || f->kind != s->kind)
			continue;
		l.ts = s->ts;
		l.kts = f->ts;
		l.ti = s->ti;
		l.pad = 0;
		frs_add(t, &t->lk, &l);
	}
	fmrg_close(&ms);
	fmrg_close(&mf);
	frs_free(&t->fs);
	frs_free(&t->ff);
	frs_sort(&t->lk);
	if (t->lk.nruns == 0) {
		struct lk *a = (struct lk *)(void *)t->lk.m;

		for (size_t i = 0; i < t->lk.n; i++) {
			if (k && a[k - 1].ts == a[i].ts && a[k - 1].ti == a[i].ti)
				continue;
			a[k++] = a[i];
		}
		t->lk.n = k;
	} else {
		/* one deduplicated run for the host pass */
		struct fmrg m;
		const struct lk *l;
		struct lk last = { 0, 0, 0, 0 };
		struct frs g;
		int fd = tmpfd(t);
		char *wb = xmalloc(sizeof *l * 4096);
		size_t wn = 0;

		fmrg_open(&m, &t->lk, 1);
		for (; (l = fmrg_top(&m)) != NULL; fmrg_pop(&m)) {
			if (k && last.ts == l->ts && last.ti == l->ti)
				continue;
			last = *l;
			k++;
			memcpy(wb + wn * sizeof *l, l, sizeof *l);
			if (++wn == 4096) {
				wall(t, fd, wb, wn * sizeof *l);
				wn = 0;
			}
		}
		wall(t, fd, wb, wn * sizeof *l);
		free(wb);
		fmrg_close(&m);
		frs_init(&g, sizeof *l, 0, lkcmp, 1);
		frs_free(&t->lk);
		t->lk = g;
		t->lk.fd = fd;
		t->lk.end = k * sizeof *l;
		t->lk.runs = xcalloc(1, sizeof *t->lk.runs);
		t->lk.runs[0].n = k;
		t->lk.nruns = 1;
	}
	t->c.flows_linked = k;
}

static void
finish(struct trace *t)
{
	size_t k;

	flushrun(t);
	free(t->blk);
	t->blk = NULL;
	for (size_t i = 0; i < t->npr; i++) {
		struct proc *p = &t->pr[i];

		p->role = prole(p);
		if (p->name && strcmp(p->name, "Python") == 0)
			t->c.has_python = 1;
		if (p->name && strcmp(p->name, "CANN") == 0)
			t->c.has_cann = 1;
	}
	t->mints = t->minkts = INT64_MAX;
	t->hostsets = t->devsets = 0;
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
			t->hostsets |= h->sets;
			if (h->stack)
				t->c.has_stacks = 1;
		} else if (h->role == T_DEV) {
			t->c.device += h->nx;
			t->devsets |= h->sets;
		} else
			t->c.ignored += h->nx;
		if (h->role != T_IGN && h->nx && h->minx < t->mints)
			t->mints = h->minx;
		if (h->role == T_DEV && h->nx && h->minx < t->minkts)
			t->minkts = h->minx;
	}
	/* the runs no thread written needs */
	for (int s = 0; s < NSET; s++) {
		if ((t->hostsets | t->devsets) & (1u << s))
			continue;
		for (int i = 0; i < t->nruns[s]; i++)
			close(t->runs[s][i].fd);
		t->nruns[s] = 0;
	}
	/* markers: host processes only, outermost of nested kept */
	k = 0;
	{
		unsigned long merged = 0;
		int64_t end = INT64_MIN;
		struct fmrg m;
		const struct marker *x;

		frs_sort(&t->mk);
		fmrg_open(&m, &t->mk, 1);
		for (; (x = fmrg_top(&m)) != NULL; fmrg_pop(&m)) {
			if (t->th[x->ti].role != T_HOST)
				continue;
			if (k && x->start < end) {
				merged++;
				continue;
			}
			frs_add(t, &t->mko, x);
			k++;
			end = x->start + x->dur;
		}
		fmrg_close(&m);
		frs_free(&t->mk);
		if (merged)
			addwarn(t, "nested_markers",
			    "%s: %lu nested or overlapping step markers merged "
			    "into their outermost marker", t->disp, merged);
	}
	t->c.markers = k;
	linkflows(t);
	t->done = 1;
}

/* ---------- public: open/read ---------- */

/* The empty sorted-run state of a reader (or of a split half). */
static void
sortstate_init(struct trace *t, size_t chunk)
{
	t->lastth = -1;
	t->chunk = chunk;
	t->mints = t->minkts = INT64_MAX;
	frs_init(&t->fs, sizeof(struct fl), t->runbytes / 32, flcmp, 0);
	frs_init(&t->ff, sizeof(struct fl), t->runbytes / 32, flcmp, 0);
	frs_init(&t->lk, sizeof(struct lk), t->runbytes / 8, lkcmp, 1);
	frs_init(&t->mk, sizeof(struct marker), t->runbytes / 64, mkcmp, 1);
	frs_init(&t->mko, sizeof(struct marker), t->runbytes / 64, mkcmp, 1);
}

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
	t->splitmin = SPLITMIN;
	if ((td = getenv("ASC_TRACE_SPLIT")) != NULL && *td)
		t->splitmin = strtoull(td, NULL, 10);
	sortstate_init(t, CHUNK);
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

/* Parser state between the two threads. */
struct rdst {
	int		 st, inobj, sawarr;
};

static void splitdrop(struct trace *);

/*
 * Read events from pos on: 0 at the end of the file, -1 on bad data, 1
 * (the first thread) at the second thread's start.
 */
static int
readloop(struct trace *t, struct rdst *rs)
{
	int st = rs->st, inobj = rs->inobj, sawarr = rs->sawarr, r;
	struct ev ev;

	for (;;) {
		struct pc c;
		const char *p, *e;

		p = ws(t->b + t->pos, t->b + t->len);
		t->pos = (size_t)(p - t->b);
		e = t->b + t->len;
		if (p != e && t->split &&
		    t->boff + (uint64_t)(p - t->b) >= t->split) {
			if (t->boff + (uint64_t)(p - t->b) == t->split &&
			    st == ST_ARRELEM) {
				rs->st = st;
				rs->inobj = inobj;
				rs->sawarr = sawarr;
				return 1;
			}
			splitdrop(t);	/* not an event start: a wrong guess */
		}
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
			if (t->cancel && atomic_load_explicit(t->cancel,
			    memory_order_relaxed))
				return -1;
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
	rs->st = st;
	rs->inobj = inobj;
	rs->sawarr = sawarr;
	return 0;
}

/* ---------- reading on two threads ---------- */

/*
 * A file of at least splitmin bytes is read by two threads: the second
 * from a guessed event start S past the middle (",{\"" after a "}"), the
 * first from the start.  When the first reaches S as the start of an
 * event, the guess is confirmed and the second thread's state (threads,
 * processes, runs, markers, flows, counts, warnings) is joined as if the
 * first had read on; events keep their file offsets, which order equal
 * starts, so the result is the sequential one.  If the first passes S
 * otherwise, or the second fails, the second's work is dropped and the
 * first reads on alone (and reports any error itself).
 */
struct split {
	pthread_t	 th;
	struct trace	*u;		/* the second reader */
	struct rdst	 rs;		/* its state at the end */
	int		 r;		/* its readloop() result */
	_Atomic int	 cancel;
};

static void *
splitmain(void *a)
{
	struct split *sp = a;
	struct trace *u = sp->u;

	sp->r = readloop(u, &sp->rs);
	if (sp->r == 0) {
		flushrun(u);
		free(u->blk);
		u->blk = NULL;
	}
	return NULL;
}

/* Offset of a likely event start ('{' after "}," and before '"') at
 * or past from, or 0. */
static uint64_t
splitguess(struct trace *t, uint64_t from)
{
	size_t bsz = 1u << 20;
	char *b = xmalloc(bsz);
	uint64_t o = from, found = 0;

	while (found == 0 && o < t->fsize && o - from < SPLITSCAN) {
		ssize_t k = pread(t->fd, b, bsz, (off_t)o);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		for (size_t i = 0; i + 1 < (size_t)k; i++) {
			size_t j = i;

			if (b[i] != '{' || b[i + 1] != '"')
				continue;
			while (j > 0 && isws((unsigned char)b[j - 1]))
				j--;
			if (j == 0 || b[j - 1] != ',')
				continue;
			j--;
			while (j > 0 && isws((unsigned char)b[j - 1]))
				j--;
			if (j == 0 || b[j - 1] != '}')
				continue;
			found = o + i;
			break;
		}
		if ((size_t)k < bsz)
			break;
		o += (uint64_t)k - 256;	/* overlap the whitespace before */
	}
	free(b);
	return found;
}

static void
splitstart(struct trace *t)
{
	char h[64];
	ssize_t k = pread(t->fd, h, sizeof h, 0);
	size_t i = 0;
	int inobj;
	uint64_t s;
	struct trace *u;
	struct split *sp;

	if (k <= 0)
		return;
	if (k >= 3 && memcmp(h, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < (size_t)k && isws((unsigned char)h[i]))
		i++;
	if (i == (size_t)k || (h[i] != '[' && h[i] != '{'))
		return;
	inobj = h[i] == '{';
	if ((s = splitguess(t, t->fsize / 2)) == 0)
		return;
	u = xcalloc(1, sizeof *u);
	if ((u->fd = dup(t->fd)) < 0)
		dieerr("%s", t->disp);
	u->path = xstrdup(t->path);
	u->disp = xstrdup(t->disp);
	u->tmpdir = xstrdup(t->tmpdir);
	if (t->pattern) {
		u->pattern = xstrdup(t->pattern);
		u->npattern = t->npattern;
	}
	u->runbytes = t->runbytes / 2 < 1024 ? 1024 : t->runbytes / 2;
	sortstate_init(u, t->chunk);
	u->mm = 1;
	u->fsize = t->fsize;
	u->win = t->win;
	u->boff = s;
	u->nomsg = 1;
	sp = xcalloc(1, sizeof *sp);
	atomic_init(&sp->cancel, 0);
	u->cancel = &sp->cancel;
	sp->u = u;
	sp->rs.st = ST_ARRELEM;
	sp->rs.inobj = inobj;
	sp->rs.sawarr = inobj;	/* it is in the traceEvents array */
	if (pthread_create(&sp->th, NULL, splitmain, sp) != 0) {
		trace_close(u);
		free(sp);
		return;
	}
	t->sp = sp;
	t->split = s;
}

/* Stop the second thread and drop its work. */
static void
splitdrop(struct trace *t)
{
	struct split *sp = t->sp;

	t->split = 0;
	if (sp == NULL)
		return;
	atomic_store(&sp->cancel, 1);
	pthread_join(sp->th, NULL);
	t->splitres = -1;
	trace_close(sp->u);
	free(sp);
	t->sp = NULL;
}

/* Add the second reader's fixed-size records, thread indices mapped. */
static void
splitfrs(struct trace *t, struct frs *dst, struct frs *src, const uint32_t *map,
    size_t tioff, uint64_t mkbase)
{
	struct fmrg m;
	const char *r;
	char x[64];

	frs_sort(src);
	fmrg_open(&m, src, 1);
	for (; (r = fmrg_top(&m)) != NULL; fmrg_pop(&m)) {
		memcpy(x, r, src->rsz);
		if (map) {
			uint32_t ti;

			memcpy(&ti, x + tioff, 4);
			ti = map[ti];
			memcpy(x + tioff, &ti, 4);
		}
		if (mkbase && ((struct marker *)(void *)x)->nd == MKLONG) {
			uint64_t ao;

			memcpy(&ao, ((struct marker *)(void *)x)->dig, 8);
			ao += mkbase;
			memcpy(((struct marker *)(void *)x)->dig, &ao, 8);
		}
		frs_add(t, dst, x);
	}
	fmrg_close(&m);
}

/*
 * At the second thread's start: wait for it, and take its results as
 * if read here.  0 joined (rs is the state at the end), -1 dropped.
 */
static int
splitjoin(struct trace *t, struct rdst *rs)
{
	struct split *sp = t->sp;
	struct trace *u = sp->u;
	uint32_t *map;
	uint64_t mkbase;

	t->split = 0;
	flushrun(t);		/* while the second thread may still run */
	pthread_join(sp->th, NULL);
	if (sp->r != 0) {
		t->splitres = -1;
		trace_close(u);
		free(sp);
		t->sp = NULL;
		return -1;
	}
	for (size_t i = 0; i < u->npr; i++) {
		struct proc *q = &u->pr[i], *p;
		int pi = getproc(t, q->pid, 1);

		p = &t->pr[pi];
		if (q->name) {
			free(p->name);
			p->name = q->name;
			q->name = NULL;
		}
		if (q->dev != -2)
			p->dev = q->dev;
		if (q->cpu)
			p->cpu = 1;
	}
	map = xreallocarray(NULL, u->nth + 1, sizeof *map);
	for (size_t i = 0; i < u->nth; i++) {
		struct thr *q = &u->th[i], *h;

		map[i] = (uint32_t)getthr(t, q->pid, q->tid, 1);
		h = &t->th[map[i]];
		if (q->name) {
			free(h->name);
			h->name = q->name;
			q->name = NULL;
		}
		h->seen |= q->seen;
		h->stack |= q->stack;
		h->sets |= q->sets;
		h->nx += q->nx;
		if (q->minx < h->minx)
			h->minx = q->minx;
	}
	t->gen++;
	for (int s = 0; s < NSET; s++) {
		for (int i = 0; i < u->nruns[s]; i++) {
			addrun(t, s, u->runs[s][i].fd, u->runs[s][i].n);
			t->runs[s][t->nruns[s] - 1].map = map;
		}
		u->nruns[s] = 0;
		if (t->nruns[s] >= MAXRUNS)
			consolidate(t, s);
	}
	mkbase = t->mka.len;
	if (u->mka.len)
		buf_add(&t->mka, u->mka.p, u->mka.len);
	splitfrs(t, &t->mk, &u->mk, map, offsetof(struct marker, ti), mkbase);
	splitfrs(t, &t->fs, &u->fs, map, offsetof(struct fl, ti), 0);
	splitfrs(t, &t->ff, &u->ff, NULL, 0, 0);
	t->c.events += u->c.events;
	t->c.x_events += u->c.x_events;
	t->c.meta += u->c.meta;
	t->c.flows += u->c.flows;
	t->c.counters += u->c.counters;
	t->c.other += u->c.other;
	if (u->nw) {
		t->w = xreallocarray(t->w, (size_t)t->nw + (size_t)u->nw,
		    sizeof *t->w);
		memcpy(t->w + t->nw, u->w, (size_t)u->nw * sizeof *t->w);
		t->nw += u->nw;
		u->nw = 0;
	}
	free(t->map2);
	t->map2 = map;
	*rs = sp->rs;
	t->splitres = 1;
	trace_close(u);
	free(sp);
	t->sp = NULL;
	return 0;
}

int
trace_read(struct trace *t)
{
	struct rdst rs = { ST_START, 0, 0 };
	int r;

	clock_gettime(CLOCK_MONOTONIC, &t->t0);
	t->tlast = t->t0;
	{
		/* a regular file with the default read size is mapped */
		struct stat sb;

		if (t->chunk % (size_t)sysconf(_SC_PAGESIZE) == 0 &&
		    t->b == NULL && t->fd > 0 &&
		    fstat(t->fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_size > 0 && lseek(t->fd, 0, SEEK_CUR) == 0) {
			t->mm = 1;
			t->fsize = (uint64_t)sb.st_size;
			t->win = t->chunk == CHUNK ? MAPWIN : t->chunk;
		}
	}
	if (t->mm && t->splitmin && t->fsize >= t->splitmin)
		splitstart(t);
	while ((r = readloop(t, &rs)) == 1)
		if (splitjoin(t, &rs) == 0)
			break;
	if (r < 0) {
		if (t->sp)
			splitdrop(t);
		return -1;
	}
	if (rs.inobj && !rs.sawarr)
		return bad(t, t->b + t->len, "no \"traceEvents\" array in "
		    "the top-level object");
	finish(t);
	if (t->progress)
		progress(t, 1);
	return 0;
}

int
trace_split(const struct trace *t)
{
	return t->splitres;
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
	struct buf *b = &t->ob, *nm = &t->sc2;
	struct fmrg mg;
	const struct marker *m;

	fmrg_open(&mg, &t->mko, 1);
	for (; (m = fmrg_top(&mg)) != NULL; fmrg_pop(&mg)) {
		const struct thr *th = &t->th[m->ti];
		size_t klen;

		nm->len = 0;
		buf_adds(nm, mkprefix(t, m->kind));
		klen = nm->len;
		buf_addc(nm, '#');
		if (m->nd == MKLONG) {
			uint64_t ao, nd;

			memcpy(&ao, m->dig, 8);
			memcpy(&nd, m->dig + 8, 8);
			buf_add(nm, t->mka.p + ao, (size_t)nd);
		} else
			buf_add(nm, m->dig, m->nd);
		out_begin(b, "marker");
		out_cstr(b, "profile", profile);
		outsrc(t, b, m->off);
		out_str(b, "name", nm->p, nm->len);
		out_str(b, "kind", nm->p, klen);
		out_str(b, "step", nm->p + klen + 1, nm->len - klen - 1);
		out_i64(b, "pid", th->pid);
		out_i64(b, "tid", th->tid);
		out_i64(b, "start_ns", m->start - origin);
		out_i64(b, "dur_ns", m->dur);
		out_i64(b, "end_ns", m->start + m->dur - origin);
		rec_put(b, fp);
	}
	fmrg_close(&mg);
}

/*
 * The bulk writers build records straight into t->ob, from prefixes
 * made once with the out_* functions (so the bytes are the same), and
 * write it in large blocks.
 */
static const char dig2[201] =
    "00010203040506070809101112131415161718192021222324"
    "25262728293031323334353637383940414243444546474849"
    "50515253545556575859606162636465666768697071727374"
    "75767778798081828384858687888990919293949596979899";

/* Digits of u, written in place from the back. */
static char *
putu(char *d, uint64_t u)
{
	static const uint64_t p10[20] = {
		1ULL, 10ULL, 100ULL, 1000ULL, 10000ULL, 100000ULL, 1000000ULL,
		10000000ULL, 100000000ULL, 1000000000ULL, 10000000000ULL,
		100000000000ULL, 1000000000000ULL, 10000000000000ULL,
		100000000000000ULL, 1000000000000000ULL, 10000000000000000ULL,
		100000000000000000ULL, 1000000000000000000ULL,
		10000000000000000000ULL
	};
	unsigned n = ((unsigned)(64 - __builtin_clzll(u | 1)) * 1233) >> 12;
	uint32_t v;
	char *e, *q;

	if (u < 10) {
		*d = (char)('0' + u);
		return d + 1;
	}
	n += u >= p10[n];		/* the number of digits */
	e = q = d + n;
	while (u >= 100000000) {	/* 8 digits at a time, in 32 bits */
		uint64_t hi = u / 100000000;
		uint32_t lo = (uint32_t)(u - hi * 100000000);
		uint32_t a = lo / 10000, b = lo % 10000;

		q -= 8;
		memcpy(q, dig2 + 2 * (a / 100), 2);
		memcpy(q + 2, dig2 + 2 * (a % 100), 2);
		memcpy(q + 4, dig2 + 2 * (b / 100), 2);
		memcpy(q + 6, dig2 + 2 * (b % 100), 2);
		u = hi;
	}
	v = (uint32_t)u;
	if (v >= 10000) {
		uint32_t b = v % 10000;

		v /= 10000;
		q -= 4;
		memcpy(q, dig2 + 2 * (b / 100), 2);
		memcpy(q + 2, dig2 + 2 * (b % 100), 2);
	}
	while (v >= 100) {
		q -= 2;
		memcpy(q, dig2 + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		q -= 2;
		memcpy(q, dig2 + 2 * v, 2);
	} else
		*--q = (char)('0' + v);
	return e;
}

static char *
puti(char *d, int64_t v)
{
	if (v < 0) {
		*d++ = '-';
		return putu(d, (uint64_t)0 - (uint64_t)v);
	}
	return putu(d, (uint64_t)v);
}

#define LIT(d, s) (memcpy((d), (s), sizeof(s) - 1), (d) += sizeof(s) - 1)

/* Room for n more bytes; the write position. */
static char *
wpos(struct buf *b, size_t n)
{
	buf_grow(b, n);
	return b->p + b->len;
}

static void
wend(struct buf *b, char *d)
{
	b->len = (size_t)(d - b->p);
}

static void
wflush(struct buf *b, FILE *fp, size_t atleast)
{
	if (b->len < atleast || b->len == 0)
		return;
	if (fwrite(b->p, 1, b->len, fp) != b->len)
		dieerr("stdout");
	b->len = 0;
}

/* {"type":TYPE,"profile":PROFILE,"src":"DISP@ (digits follow). */
static void
recprefix(struct trace *t, struct buf *pre, const char *type,
    const char *profile)
{
	out_begin(pre, type);
	out_cstr(pre, "profile", profile);
	t->sc.len = 0;
	buf_adds(&t->sc, t->disp);
	buf_addc(&t->sc, '@');
	out_str(pre, "src", t->sc.p, t->sc.len);
	pre->len--;			/* the closing quote */
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
	struct buf *b = &t->ob, pre = { 0 };

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
	recprefix(t, &pre, "kernel", profile);
	b->len = 0;
	for (size_t di = 0; di < nd; di++) {
		struct mrg m;
		struct rdr *r;

		mrg_open(t, &m, t->devsets);
		for (; (r = mrg_top(&m)) != NULL; mrg_pop(&m)) {
			const struct shdr *h = r->h;
			const struct thr *th = &t->th[h->ti];
			const struct proc *p;
			const char *s = rtext(h);
			char *d;
			int x = 0;

			if (th->role != T_DEV)
				continue;
			p = &t->pr[th->pi];
			if ((p->dev < 0 ? -1 : p->dev) != devs[di])
				continue;
			d = wpos(b, pre.len + 200);
			memcpy(d, pre.p, pre.len);
			d += pre.len;
			d = putu(d, h->off);
			LIT(d, "\",\"device\":");
			if (p->dev < 0)
				LIT(d, "null");
			else
				d = puti(d, p->dev);
			LIT(d, ",\"stream\":");
			d = puti(d, h->flags & F_STREAM ? rext(h, x++) : th->tid);
			LIT(d, ",\"task_id\":");
			if (h->flags & F_TASKID)
				d = puti(d, rext(h, x));
			else
				LIT(d, "null");
			LIT(d, ",\"step\":null,\"name\":");
			wend(b, d);
			out_esc(b, s, h->nname);
			d = wpos(b, 200);
			LIT(d, ",\"op_type\":null,\"task_type\":");
			s += h->nname + h->ncat + h->nframe;
			if (p->role == R_COMM || (h->nttype == 4 &&
			    memcmp(s, "HCCL", 4) == 0))
				LIT(d, "\"COMMUNICATION\"");
			else if (h->flags & F_TTYPE) {
				wend(b, d);
				out_esc(b, s, h->nttype);
				d = wpos(b, 128);
			} else
				LIT(d, "null");
			LIT(d, ",\"start_ns\":");
			d = puti(d, h->start - origin);
			LIT(d, ",\"dur_ns\":");
			d = puti(d, h->dur);
			LIT(d, ",\"end_ns\":");
			d = puti(d, h->start + h->dur - origin);
			LIT(d, ",\"wait_ns\":null}\n");
			wend(b, d);
			wflush(b, fp, OUTBUF);
		}
		mrg_close(&m);
	}
	wflush(b, fp, 0);
	buf_free(&pre);
	free(devs);
}

struct pend {
	char		*rec;		/* the spill record, 8-aligned */
	size_t		 cap;
	int64_t		 start, end;
	int		 ti, depth, leaf, resolved, hask, mark;
	int64_t		 kns;
};

/* nest ids: a queued event's seq, or HOLE | the index of its hole */
#define HOLE	(UINT64_C(1) << 62)

/* A host event in the deferred text whose leaf value is not known. */
struct hole {
	uint64_t	 off;		/* where the value goes in the text */
	int64_t		 end;
	int		 mark, resolved, leaf;
};

/*
 * Host events not written yet, in start order (seq): the oldest as
 * deferred text, formatted but with holes where a leaf value was not
 * known (a file, then a buffer), the others [mhead, tail) in memory.
 * The memory part is bounded (qmax events, qbytes of records): beyond,
 * the oldest events are formatted into the text, so that an event
 * whose end is far away on a thread that goes quiet holds back the
 * output, not memory.
 */
struct hq {
	struct pend	*q;
	uint64_t	 mhead, tail, cap;
	size_t		 bytes, qmax, qbytes;
	int		 fd;
	struct buf	 fb;		/* the end of the text, not in the file */
	uint64_t	 fend;		/* bytes of text in the file */
	uint64_t	 rpos;		/* bytes of text written out */
	struct hole	*h;
	uint64_t	 hhead, htail, hcap;
};
#define DQBUF		(256u << 10)	/* deferred text buffer */

struct hput {
	struct buf	 pre;		/* record prefix */
	struct buf	 tp;		/* per thread: process, pid, tid */
	size_t		*toff;
};

/*
 * One host record into b.  The leaf value is left out when it is not
 * known yet: its position in b is returned, else SIZE_MAX.
 */
static size_t
fmt_host(const struct hput *hp, struct buf *b, int64_t origin,
    const struct pend *e)
{
	const struct shdr *h = (const void *)e->rec;
	const char *s = rtext(h);
	size_t tl = hp->toff[e->ti + 1] - hp->toff[e->ti], at = SIZE_MAX;
	char *d;

	d = wpos(b, hp->pre.len + 48);
	memcpy(d, hp->pre.p, hp->pre.len);
	d += hp->pre.len;
	d = putu(d, h->off);
	LIT(d, "\",\"name\":");
	wend(b, d);
	out_esc(b, s, h->nname);
	s += h->nname;
	if (h->flags & F_CAT) {
		d = wpos(b, 8);
		LIT(d, ",\"cat\":");
		wend(b, d);
		out_esc(b, s, h->ncat);
	} else {
		d = wpos(b, 16);
		LIT(d, ",\"cat\":null");
		wend(b, d);
	}
	s += h->ncat;
	d = wpos(b, tl + 256);
	memcpy(d, hp->tp.p + hp->toff[e->ti], tl);
	d += tl;
	d = puti(d, h->start - origin);
	LIT(d, ",\"dur_ns\":");
	d = puti(d, h->dur);
	LIT(d, ",\"end_ns\":");
	d = puti(d, h->start + h->dur - origin);
	LIT(d, ",\"depth\":");
	d = puti(d, e->depth);
	LIT(d, ",\"leaf\":");
	if (!e->resolved)
		at = (size_t)(d - b->p);
	else if (e->leaf)
		LIT(d, "true");
	else
		LIT(d, "false");
	if (h->flags & F_STACK) {
		if (h->flags & F_FRAME) {
			LIT(d, ",\"frame\":");
			wend(b, d);
			out_esc(b, s, h->nframe);
			d = wpos(b, 64);
		} else
			LIT(d, ",\"frame\":null");
	}
	if (e->hask) {
		LIT(d, ",\"kernel_ns\":");
		d = puti(d, e->kns - origin);
	}
	LIT(d, "}\n");
	wend(b, d);
	return at;
}

static void
pwall(struct trace *t, int fd, const void *p, size_t n, uint64_t off)
{
	const char *s = p;

	while (n) {
		ssize_t k = pwrite(fd, s, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			dieerr("%s: spill file", t->tmpdir);
		s += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
}

/* The memory slot of an event leaves the queue. */
static void
hq_free1(struct hq *q, struct pend *e)
{
	q->bytes -= rlen((const void *)e->rec);
	if (e->cap > 4096) {
		free(e->rec);
		e->rec = NULL;
		e->cap = 0;
	}
}

/* The oldest event in memory to the deferred text. */
static void
hq_evict(struct trace *t, struct hq *q, struct nest_thr *nt, const struct hput *hp,
    int64_t origin)
{
	struct pend *e = &q->q[q->mhead & (q->cap - 1)];
	size_t at = fmt_host(hp, &q->fb, origin, e);

	if (at != SIZE_MAX) {
		struct hole *h;

		if (q->htail - q->hhead == q->hcap) {
			uint64_t nc = q->hcap ? q->hcap * 2 : 16;
			struct hole *nh = xreallocarray(NULL, nc, sizeof *nh);

			for (uint64_t i = q->hhead; i < q->htail; i++)
				nh[i & (nc - 1)] = q->h[i & (q->hcap - 1)];
			free(q->h);
			q->h = nh;
			q->hcap = nc;
		}
		h = &q->h[q->htail & (q->hcap - 1)];
		h->off = q->fend + at;
		h->end = e->end;
		h->mark = e->mark;
		h->resolved = 0;
		h->leaf = 0;
		nest_rename(&nt[e->ti], q->mhead, HOLE | q->htail++);
	} else
		nest_rename(&nt[e->ti], q->mhead, NEST_GONE);
	hq_free1(q, e);
	q->mhead++;
	if (q->fb.len >= DQBUF) {
		if (q->fd < 0)
			q->fd = tmpfd(t);
		pwall(t, q->fd, q->fb.p, q->fb.len, q->fend);
		q->fend += q->fb.len;
		q->fb.len = 0;
	}
}

/* The deferred text up to lim, out. */
static void
hq_emit(struct trace *t, FILE *fp, struct hq *q, uint64_t lim)
{
	struct buf *b = &t->ob;

	while (q->rpos < lim) {
		size_t n;
		char *d;

		if (q->rpos < q->fend) {
			uint64_t k = (lim < q->fend ? lim : q->fend) - q->rpos;
			size_t got = 0;

			n = k > OUTBUF ? OUTBUF : (size_t)k;
			d = wpos(b, n);
			while (got < n) {
				ssize_t r = pread(q->fd, d + got, n - got,
				    (off_t)(q->rpos + got));

				if (r < 0 && errno == EINTR)
					continue;
				if (r <= 0)
					die("spill file: %s", r < 0 ?
					    strerror(errno) : "unexpected end");
				got += (size_t)r;
			}
		} else {
			n = (size_t)(lim - q->rpos);
			d = wpos(b, n);
			memcpy(d, q->fb.p + (q->rpos - q->fend), n);
		}
		b->len += n;
		q->rpos += n;
		wflush(b, fp, OUTBUF);
	}
}

/* Write what is resolved, or can no longer get a child at now. */
static void
hq_drain(struct trace *t, FILE *fp, struct hq *q, const struct hput *hp,
    int64_t origin, int64_t now)
{
	struct buf *b = &t->ob;
	char *d;

	while (q->hhead < q->htail) {
		struct hole *h = &q->h[q->hhead & (q->hcap - 1)];

		hq_emit(t, fp, q, h->off);
		if (!h->resolved) {
			if (h->end > now)
				return;
			h->leaf = !h->mark;
			h->resolved = 1;
		}
		d = wpos(b, 8);
		if (h->leaf)
			LIT(d, "true");
		else
			LIT(d, "false");
		wend(b, d);
		q->hhead++;
	}
	if (q->rpos || q->fend || q->fb.len) {
		hq_emit(t, fp, q, q->fend + q->fb.len);
		q->rpos = q->fend = 0;
		q->fb.len = 0;
	}
	while (q->mhead < q->tail) {
		struct pend *e = &q->q[q->mhead & (q->cap - 1)];

		if (!e->resolved) {
			if (e->end > now)
				break;
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		fmt_host(hp, b, origin, e);
		wflush(b, fp, OUTBUF);
		hq_free1(q, e);
		q->mhead++;
	}
}

/* nest's verdict: a queued event, or one waiting in a hole, is context. */
static void
hq_ctx(void *arg, uint64_t id)
{
	struct hq *q = arg;

	if (id & HOLE) {
		id &= ~HOLE;
		if (id >= q->hhead && id < q->htail && !q->h[id & (q->hcap - 1)].resolved) {
			q->h[id & (q->hcap - 1)].leaf = 0;
			q->h[id & (q->hcap - 1)].resolved = 1;
		}
	} else if (id >= q->mhead && id < q->tail && !q->q[id & (q->cap - 1)].resolved) {
		q->q[id & (q->cap - 1)].leaf = 0;
		q->q[id & (q->cap - 1)].resolved = 1;
	}
}

void
trace_put_host(struct trace *t, FILE *fp, const char *profile, int64_t origin)
{
	struct mrg m;
	struct rdr *r;
	struct nest_thr *nt = xcalloc(t->nth + 1, sizeof *nt);
	struct hq q;
	struct hput hp = { { 0 }, { 0 }, NULL };
	struct fmrg lm;
	const struct lk *lp;
	struct lk *win = NULL;
	size_t nwin = 0, cwin = 0;
	int64_t wts = 0;
	int havew = 0;

	memset(&q, 0, sizeof q);
	q.fd = -1;
	q.qbytes = t->runbytes / 16;
	q.qmax = q.qbytes / 256 > 4 ? q.qbytes / 256 : 4;
	t->c.host_linked = 0;
	recprefix(t, &hp.pre, "host", profile);
	hp.toff = xcalloc(t->nth + 1, sizeof *hp.toff);
	for (size_t i = 0; i < t->nth; i++) {
		const struct thr *th = &t->th[i];

		hp.toff[i] = hp.tp.len;
		if (th->role == T_HOST) {
			out_cstr(&hp.tp, "process", th->pi >= 0 ?
			    t->pr[th->pi].name : NULL);
			out_i64(&hp.tp, "pid", th->pid);
			out_i64(&hp.tp, "tid", th->tid);
			out_key(&hp.tp, "start_ns");
		}
	}
	hp.toff[t->nth] = hp.tp.len;
	t->ob.len = 0;
	q.cap = 64;
	q.q = xcalloc(q.cap, sizeof *q.q);
	fmrg_open(&lm, &t->lk, 1);
	mrg_open(t, &m, t->hostsets);
	for (;;) {
		r = mrg_top(&m);
		int64_t now = r ? r->start : INT64_MAX;
		int ti = -1, depth = 0;

		if (r) {
			ti = (int)r->h->ti;
			if (t->th[ti].role != T_HOST) {
				mrg_pop(&m);
				continue;
			}
			/* before the drain: what this event makes context is
			 * known, and can go out */
			depth = nest_add(&nt[ti], now, now + r->dur, q.tail, hq_ctx, &q);
		}
		hq_drain(t, fp, &q, &hp, origin, now);
		if (!r)
			break;
		if (q.tail - q.mhead == q.cap) {
			struct pend *nq = xcalloc(q.cap * 2, sizeof *nq);

			for (uint64_t sq = q.mhead; sq < q.mhead + q.cap; sq++)
				nq[sq & (q.cap * 2 - 1)] = q.q[sq & (q.cap - 1)];
			free(q.q);
			q.q = nq;
			q.cap *= 2;
		}
		struct pend *e = &q.q[q.tail & (q.cap - 1)];
		size_t n = rlen(r->h);
		int64_t dur = r->dur;

		if (n > e->cap) {
			free(e->rec);
			e->cap = (n + 63) & ~(size_t)63;
			e->rec = xmalloc(e->cap);
		}
		memcpy(e->rec, r->h, n);
		q.bytes += n;
		e->start = now;
		e->end = now + dur;
		e->mark = (r->h->flags & F_MARK) != 0;
		e->ti = ti;
		e->resolved = 0;
		e->leaf = 0;
		e->depth = depth;
		if (dur <= 0) {
			e->leaf = !e->mark;
			e->resolved = 1;
		}
		/* linked kernel: s end at exactly this (thread, ts) */
		if (!havew || now != wts) {
			nwin = 0;
			while ((lp = fmrg_top(&lm)) != NULL && lp->ts < now)
				fmrg_pop(&lm);
			while ((lp = fmrg_top(&lm)) != NULL && lp->ts == now) {
				if (nwin == cwin) {
					cwin = cwin ? cwin * 2 : 16;
					win = xreallocarray(win, cwin,
					    sizeof *win);
				}
				win[nwin++] = *lp;
				fmrg_pop(&lm);
			}
			wts = now;
			havew = 1;
		}
		e->hask = 0;
		for (size_t j = 0; j < nwin; j++) {
			if (win[j].ti == (uint32_t)ti) {
				e->hask = 1;
				t->c.host_linked++;
				e->kns = win[j].kts;
				break;
			}
		}
		q.tail++;
		mrg_pop(&m);
		/* memory bounded: the oldest events to the deferred text */
		while (q.mhead < q.tail &&
		    (q.tail - q.mhead > q.qmax || q.bytes > q.qbytes))
			hq_evict(t, &q, nt, &hp, origin);
	}
	mrg_close(&m);
	fmrg_close(&lm);
	wflush(&t->ob, fp, 0);
	free(win);
	for (uint64_t i = 0; i < q.cap; i++)
		free(q.q[i].rec);
	free(q.q);
	free(q.h);
	buf_free(&q.fb);
	if (q.fd >= 0)
		close(q.fd);
	for (size_t i = 0; i < t->nth; i++)
		nest_free(&nt[i]);
	free(nt);
	free(hp.toff);
	buf_free(&hp.pre);
	buf_free(&hp.tp);
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
			close(t->runs[s][i].fd);
		free(t->runs[s]);
	}
	frs_free(&t->fs);
	frs_free(&t->ff);
	frs_free(&t->lk);
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
	if (t->mm) {
		if (t->b)
			munmap(t->b, t->len);
	} else
		free(t->b);
	free(t->blk);
	free(t->map2);
	frs_free(&t->mk);
	frs_free(&t->mko);
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
