/* trace: the timeline reader: open, read loop, input buffer (its
 * messages: msg.c). */
#include "trace_int.h"

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

struct trace *
trace_open(const char *path, const struct trace_opts *o)
{
	struct trace *t = xcalloc(1, sizeof *t);
	const char *td;

	t->w.max = 512;		/* a warning's message, with its NUL */
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

/* The read loop's state kept for the next call (or the join). */
static void
rdsave(struct rdst *rs, int st, int inobj, int sawarr)
{
	rs->st = st;
	rs->inobj = inobj;
	rs->sawarr = sawarr;
}

/*
 * The end of the file at p in state st: -1 when nothing was read or the
 * top-level object ended before its event array, else 0 (a warning when
 * the array or the object is not closed).
 */
static int
atend(struct trace *t, const char *p, int st, int sawarr)
{
	switch (st) {
	case ST_START:
		return tr_bad(t, p, "empty file, expected \"[\" "
		    "or \"{\"");
	case ST_ARR0:
	case ST_ARRNEXT:
	case ST_ARRELEM:
		warns_add(&t->w, "trace_unterminated",
		    "%s: the event array has no closing \"]\"",
		    t->disp);
		break;
	case ST_OBJ0:
	case ST_OBJKEY:
	case ST_OBJNEXT:
		if (!sawarr)
			return tr_bad(t, p, "truncated top-level "
			    "object");
		warns_add(&t->w, "trace_unterminated",
		    "%s: the top-level object has no closing "
		    "\"}\"", t->disp);
		break;
	}
	return 0;
}

/*
 * Read events from pos on: 0 at the end of the file, -1 on bad data, 1
 * (the first thread) at the second thread's start.  split.c is given it
 * to run on the second thread.
 */
static int
tr_readloop(struct trace *t, struct rdst *rs)
{
	int st = rs->st, inobj = rs->inobj, sawarr = rs->sawarr, r;
	struct ev ev;

	for (;;) {
		struct pc c;
		const char *p, *e;

		/* No buffer before the first fill: NULL + 0 is undefined. */
		p = t->b ? js_ws(t->b + t->pos, t->b + t->len) : NULL;
		t->pos = t->b ? (size_t)(p - t->b) : 0;
		e = t->b ? t->b + t->len : NULL;
		if (p != e && t->split &&
		    t->boff + (uint64_t)(p - t->b) >= t->split) {
			if (t->boff + (uint64_t)(p - t->b) == t->split &&
			    st == ST_ARRELEM) {
				rdsave(rs, st, inobj, sawarr);
				return 1;
			}
			tr_split_drop(t);	/* not an event start: a wrong guess */
		}
		if (p == e) {
			if (!t->eof) {
				fill(t, t->pos);
				continue;
			}
			if (atend(t, p, st, sawarr) < 0)
				return -1;
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
					warns_add(&t->w, "trace_trailing_comma",
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
	rdsave(rs, st, inobj, sawarr);
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
		tr_split_start(t, tr_readloop);
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

const struct trace_span *
trace_span(const struct trace *t)
{
	return &t->span;
}

void
trace_counts(const struct trace *t, struct trace_counts *c)
{
	*c = t->c;
}

const char *
trace_warning(const struct trace *t, int i, const char **msg)
{
	return warns_get(&t->w, i, msg);
}
