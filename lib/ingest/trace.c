/* trace: the timeline reader: open, read loop, input buffer, messages. */
#include "trace_int.h"

/* ---------- small helpers ---------- */

void
tr_addwarn(struct trace *t, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void
tr_addwarn(struct trace *t, const char *code, const char *fmt, ...)
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

/* Error at buffer position ep: FILE:LINE: byte OFFSET: what. */
int
tr_bad(struct trace *t, const char *ep, const char *what)
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


/* ---------- input buffer ---------- */

static double
tdiff(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) +
	    (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

void
tr_progress(struct trace *t, int final)
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
	/* no more than the bound on one unit past its start (the unit at
	 * keep is shorter: the read loop refuses it else) */
	if (len - (size_t)(noff - aoff) > t->maxev + pg) {
		size_t cap = ((size_t)(noff - aoff) + t->maxev + pg) & ~(pg - 1);

		if (aoff + cap > oend)
			len = cap;
	}
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
		tr_progress(t, 0);
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
		tr_progress(t, 0);
	return (size_t)n;
}

/* ---------- public: open/read ---------- */

/* The empty sorted-run state of a reader (or of a split half). */
void
tr_sortstate_init(struct trace *t, size_t chunk)
{
	t->lastth = -1;
	t->chunk = chunk;
	t->mints = t->minkts = INT64_MAX;
	t->maxte = INT64_MIN;
	tr_frs_init(&t->fs, sizeof(struct fl), t->runbytes / 32, tr_flcmp, 0);
	tr_frs_init(&t->ff, sizeof(struct fl), t->runbytes / 32, tr_flcmp, 0);
	tr_frs_init(&t->lk, sizeof(struct lk), t->runbytes / 8, tr_lkcmp, 1);
	tr_frs_init(&t->mk, sizeof(struct marker), t->runbytes / 64, tr_mkcmp, 1);
	tr_frs_init(&t->mko, sizeof(struct marker), t->runbytes / 64, tr_mkcmp, 1);
	tr_frs_init(&t->ct, sizeof(struct ctask), t->runbytes / 64, tr_ctcmp, 1);
}

struct trace *
trace_open(const char *path, const struct trace_opts *o)
{
	struct trace *t = xcalloc(1, sizeof *t);
	const char *td;

	tr_initstop();
	trace_rules();
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
	t->bad = o ? o->bad : NULL;
	t->splitmin = SPLITMIN;
	if ((td = getenv("ASC_TRACE_SPLIT")) != NULL && *td)
		t->splitmin = strtoull(td, NULL, 10);
	t->maxev = MAXEVENT;
	if ((td = getenv("ASC_TRACE_MAXEVENT")) != NULL && *td)
		t->maxev = strtoull(td, NULL, 10);
	if (t->maxev < 64)
		t->maxev = 64;
	tr_sortstate_init(t, CHUNK);
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



/*
 * Past the event object at pos, read through without holding it (the
 * buffer is dropped as it goes): 0, or -1 when the file ends in it.
 */
static int
skipevent(struct trace *t)
{
	int depth = 0, instr = 0, esc = 0;

	for (;;) {
		const char *p = t->b + t->pos, *e = t->b + t->len;

		for (; p < e; p++) {
			char ch = *p;

			if (instr) {
				if (esc)
					esc = 0;
				else if (ch == '\\')
					esc = 1;
				else if (ch == '"')
					instr = 0;
			} else if (ch == '"')
				instr = 1;
			else if (ch == '{' || ch == '[')
				depth++;
			else if ((ch == '}' || ch == ']') && --depth == 0) {
				t->pos = (size_t)(p + 1 - t->b);
				return 0;
			}
		}
		t->pos = t->len;
		if (t->eof)
			return tr_bad(t, e, "truncated event object");
		fill(t, t->pos);
	}
}

/*
 * The unit at p (an event when ev) reached the bound on one unit: it is
 * refused, as a bad row; with -k an event is skipped and counted.
 */
static int
toolong(struct trace *t, const char *p, int ev)
{
	char what[160];

	snprintf(what, sizeof what, "%s longer than %zu bytes (the bound on "
	    "one event): refused", ev ? "event" : "top-level value", t->maxev);
	tr_bad(t, p, what);
	if (!ev || t->bad == NULL || t->nomsg)
		return -1;
	t->bad(t->err);
	t->c.rejected++;
	return skipevent(t);
}

/*
 * Read events from pos on: 0 at the end of the file, -1 on bad data, 1
 * (the first thread) at the second thread's start.
 */
int
tr_readloop(struct trace *t, struct rdst *rs)
{
	int st = rs->st, inobj = rs->inobj, sawarr = rs->sawarr, r;
	struct ev ev;

	for (;;) {
		struct pc c;
		const char *p, *e;

		/* No buffer before the first fill: NULL + 0 is undefined. */
		p = t->b ? ws(t->b + t->pos, t->b + t->len) : NULL;
		t->pos = t->b ? (size_t)(p - t->b) : 0;
		e = t->b ? t->b + t->len : NULL;
		if (p != e && t->split &&
		    t->boff + (uint64_t)(p - t->b) >= t->split) {
			if (t->boff + (uint64_t)(p - t->b) == t->split &&
			    st == ST_ARRELEM) {
				rs->st = st;
				rs->inobj = inobj;
				rs->sawarr = sawarr;
				return 1;
			}
			tr_split_drop(t);	/* not an event start: a wrong guess */
		}
		if (p == e) {
			if (!t->eof) {
				fill(t, t->pos);
				continue;
			}
			switch (st) {
			case ST_START:
				return tr_bad(t, p, "empty file, expected \"[\" "
				    "or \"{\"");
			case ST_ARR0:
			case ST_ARRNEXT:
			case ST_ARRELEM:
				tr_addwarn(t, "trace_unterminated",
				    "%s: the event array has no closing \"]\"",
				    t->disp);
				break;
			case ST_OBJ0:
			case ST_OBJKEY:
			case ST_OBJNEXT:
				if (!sawarr)
					return tr_bad(t, p, "truncated top-level "
					    "object");
				tr_addwarn(t, "trace_unterminated",
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
				return tr_bad(t, p, "expected \"[\" or \"{\" at "
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

			if ((r = tr_pkey(&c, &k)) != P_OK)
				break;
			if (KEYIS(k, "traceEvents") && !k.esc) {
				if (*c.p != '[')
					return tr_bad(t, c.p, "\"traceEvents\" "
					    "is not an array");
				if (sawarr)
					return tr_bad(t, p, "duplicate "
					    "\"traceEvents\"");
				sawarr = 1;
				t->pos = (size_t)(c.p + 1 - t->b);
				st = ST_ARR0;
				continue;
			}
			if ((r = tr_pskip(&c, 1)) != P_OK)
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
				return tr_bad(t, p, "expected \",\" or \"}\" "
				    "in the top-level object");
			t->pos++;
			continue;
		case ST_ARR0:
		case ST_ARRELEM:
			if (*p == ']') {
				if (st == ST_ARRELEM)
					tr_addwarn(t, "trace_trailing_comma",
					    "%s: trailing \",\" before the "
					    "closing \"]\"", t->disp);
				t->pos++;
				st = inobj ? ST_OBJNEXT : ST_DONE;
				continue;
			}
			if (*p != '{')
				return tr_bad(t, p, "expected an event object");
			if (t->cancel && atomic_load_explicit(t->cancel,
			    memory_order_relaxed))
				return -1;
			if ((r = tr_pevent(&c, &ev)) != P_OK)
				break;
			t->pos = (size_t)(c.p - t->b);
			if (tr_event(t, &ev, p) < 0)
				return -1;
			st = ST_ARRNEXT;
			continue;
		case ST_ARRNEXT:
			if (*p == ',')
				st = ST_ARRELEM;
			else if (*p == ']')
				st = inobj ? ST_OBJNEXT : ST_DONE;
			else
				return tr_bad(t, p, "expected \",\" or \"]\" "
				    "after an event");
			t->pos++;
			continue;
		case ST_DONE:
			return tr_bad(t, p, "unexpected data after the "
			    "top-level value");
		}
		if (r == P_BAD)
			return tr_bad(t, c.ep, c.what);
		/* P_MORE: the unit at pos continues past the buffer */
		if (t->eof) {
			if (st == ST_ARR0 || st == ST_ARRELEM)
				return tr_bad(t, p, "truncated event object");
			return tr_bad(t, p, "truncated JSON");
		}
		if (t->len - t->pos >= t->maxev) {
			if (toolong(t, p, st == ST_ARR0 || st == ST_ARRELEM) < 0)
				return -1;
			st = ST_ARRNEXT;
			continue;
		}
		fill(t, t->pos);
	}
	rs->st = st;
	rs->inobj = inobj;
	rs->sawarr = sawarr;
	return 0;
}

/* ---------- public: read, results ---------- */

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
	/* The read loop starts at b + pos: never NULL + 0 (an empty file,
	 * or before the first window is mapped). */
	if (t->mm && t->b == NULL)
		(void)fillmap(t, 0);
	else if (t->b == NULL) {
		t->cap = t->chunk;
		t->b = xmalloc(t->cap);
	}
	if (t->mm && t->splitmin && t->fsize >= t->splitmin)
		tr_split_start(t);
	while ((r = tr_readloop(t, &rs)) == 1)
		if (tr_split_join(t, &rs) == 0)
			break;
	if (r < 0) {
		if (t->sp)
			tr_split_drop(t);
		return -1;
	}
	if (rs.inobj && !rs.sawarr)
		return tr_bad(t, t->b + t->len, "no \"traceEvents\" array in "
		    "the top-level object");
	tr_finish(t);
	if (t->progress)
		tr_progress(t, 1);
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
trace_max_end(const struct trace *t)
{
	return t->maxte;
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
