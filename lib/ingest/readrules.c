/*
 * readrules: the rules the readers share and the step markers they name.
 * A leaf: it calls no other part of the timeline reader, so events.c
 * (each event) and put.c (the marker records) both use it; the SQLite
 * reader (dbread.c, dbstep.c) calls trace_rules, trace_is_framework,
 * trace_mkname and trace_mkkind.
 */
#include "trace_int.h"

#include <fnmatch.h>

#include "rules.h"

/*
 * The two rules the readers share: step marker kinds
 * (steps.marker_kinds) and framework frames
 * (attribution.framework_frames), read once by trace_rules() before any
 * reader thread starts.  A glob "*text*", "text*", "*text" or "text" is
 * matched with memmem / memcmp (frames are spans, not strings, and this
 * runs for every frame of every call stack); any other glob by fnmatch.
 */
enum { FW_SUB, FW_PRE, FW_SUF, FW_EQ, FW_GLOB };

static struct fwpat {
	const char	*p;		/* the literal, or the whole glob */
	size_t		 n;
	int		 how;
} *fw;
static size_t nfw;
static const char *const *mkkind;
static size_t nmkkind, *mklen;

void
trace_rules(void)
{
	const char *const *l;

	if (mkkind != NULL)
		return;
	mkkind = rules_list("steps.marker_kinds");
	for (nmkkind = 0; mkkind[nmkkind]; nmkkind++)
		;
	/* Marker kinds are bytes of struct marker; one more is the -p pattern. */
	if (nmkkind > 254)
		die("rules: \"steps.marker_kinds\" has over 254 kinds");
	mklen = xcalloc(nmkkind + 1, sizeof *mklen);
	for (size_t i = 0; i < nmkkind; i++)
		mklen[i] = strlen(mkkind[i]);
	l = rules_list("attribution.framework_frames");
	for (nfw = 0; l[nfw]; nfw++)
		;
	fw = xcalloc(nfw + 1, sizeof *fw);
	for (size_t i = 0; i < nfw; i++) {
		const char *p = l[i];
		size_t n = strlen(p);
		int lead = n && p[0] == '*', trail = n > (size_t)lead && p[n - 1] == '*';

		fw[i].p = p + lead;
		fw[i].n = n - (size_t)lead - (size_t)trail;
		fw[i].how = lead ? (trail ? FW_SUB : FW_SUF) : (trail ? FW_PRE : FW_EQ);
		if (strcspn(fw[i].p, "*?[\\") < fw[i].n) {
			fw[i].p = p;
			fw[i].n = n;
			fw[i].how = FW_GLOB;
		}
	}
}

static int
framework(const char *s, size_t n)
{
	for (size_t i = 0; i < nfw; i++) {
		const struct fwpat *f = &fw[i];
		char sb[512], *z;
		int m;

		switch (f->how) {
		case FW_SUB:
			if (n >= f->n && memmem(s, n, f->p, f->n))
				return 1;
			break;
		case FW_PRE:
			if (n >= f->n && memcmp(s, f->p, f->n) == 0)
				return 1;
			break;
		case FW_SUF:
			if (n >= f->n && memcmp(s + n - f->n, f->p, f->n) == 0)
				return 1;
			break;
		case FW_EQ:
			if (n == f->n && memcmp(s, f->p, n) == 0)
				return 1;
			break;
		default:
			z = n < sizeof sb ? sb : xmalloc(n + 1);
			memcpy(z, s, n);
			z[n] = '\0';
			m = fnmatch(f->p, z, 0) == 0;
			if (z != sb)
				free(z);
			if (m)
				return 1;
		}
	}
	return 0;
}

int
trace_is_framework(const char *s, size_t n)
{
	return framework(s, n);
}

long
trace_mkname(const char *s, size_t n)
{
	const char *h = memrchr(s, '#', n);

	if (h == NULL || h + 1 == s + n)
		return -1;
	for (const char *p = h + 1; p < s + n; p++)
		if (*p < '0' || *p > '9')
			return -1;
	return h - s;
}

int
trace_mkkind(const char *s, size_t n)
{
	for (size_t i = 0; i < nmkkind; i++)
		if (n == mklen[i] && memcmp(s, mkkind[i], n) == 0)
			return (int)i;
	return -1;
}

/* The prefix of a marker kind. */
const char *
tr_mkprefix(const struct trace *t, int kind)
{
	return (size_t)kind < nmkkind ? mkkind[kind] : t->pattern;
}

/* Is name a step marker?  Sets the kind and its length. */
int
tr_ismarker(const struct trace *t, const char *s, size_t n, size_t *klen,
    int *kind)
{
	long m = trace_mkname(s, n);
	size_t k = (size_t)m;

	if (m < 0)
		return 0;
	if ((*kind = trace_mkkind(s, k)) >= 0) {
		*klen = k;
		return 1;
	}
	if (t->pattern && k == t->npattern && memcmp(s, t->pattern, k) == 0) {
		*klen = k;
		*kind = (int)nmkkind;
		return 1;
	}
	return 0;
}
