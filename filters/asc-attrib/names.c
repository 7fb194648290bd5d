/*
 * asc-attrib: interned names (host event names and frames as raw JSON
 * text, each with its class and families from the rules), the label and
 * scope names, and qsort for empty arrays.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "rec.h"
#include "rules.h"
#include "util.h"

#include "attrib.h"

const char *const lname[NLABEL] = {
	"possible_sync_or_h2d", "possible_comm_wait",
	"possible_untraced_host_blocking", "possible_host_launch_lag",
	"possible_python_serialization_or_lock", "insufficient_evidence",
};
const char *const scopename[NSCOPE] = { "prelaunch", "step_internal", "tail", "global" };
struct istrtab I;

/* qsort, which may not be passed the null pointer of an empty array. */
void
sortv(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int
globs(const char *const *l, const char *s)
{
	for (; *l; l++)
		if (fnmatch(*l, s, 0) == 0)
			return 1;
	return 0;
}

/*
 * A python_function name of user code that names its source line
 * ("main.py(483): __str__"): its path is relative to sys.path, so the
 * framework globs (which match absolute stack paths) see it after a '/'.
 */
static int
userframe(const char *s)
{
	static const char *const *fw;
	char *p;
	int r;

	if (fnmatch("*.py([0-9]*): *", s, 0) != 0)
		return 0;
	if (fw == NULL)
		fw = rules_list("attribution.framework_frames");
	p = xmalloc(strlen(s) + 2);
	p[0] = '/';
	strcpy(p + 1, s);
	r = !globs(fw, p) && !globs(fw, s);
	free(p);
	return r;
}

/*
 * A call in the profiler's own code (attribution.profiler_frames): its
 * time exists only while profiling.  Matched as userframe's paths are.
 */
static int
profcode(const char *s)
{
	static const char *const *pf;
	char *p;
	int r;

	if (pf == NULL)
		pf = rules_list("attribution.profiler_frames");
	p = xmalloc(strlen(s) + 2);
	p[0] = '/';
	strcpy(p + 1, s);
	r = globs(pf, p) || globs(pf, s);
	free(p);
	return r;
}

/* The id of raw JSON string text s[0..n), added when new: the name's
 * class and families are found once. */
uint32_t
intern(const char *s, size_t n)
{
	size_t id = intern_add(&I.names, s, n);
	struct rfield f = { NULL, s, 0, n };
	struct istr *e;

	if (id < I.n)
		return (uint32_t)id;
	if (I.n == I.cap) {
		I.cap = I.cap ? 2 * I.cap : 1024;
		I.v = xreallocarray(I.v, I.cap, sizeof *I.v);
	}
	e = &I.v[I.n++];
	e->cls = 0;
	e->nfam = e->cfam = NOFAM;
	if (rf_str(&f, &tmp) != 0)
		return (uint32_t)id;
	e->cls = (globs(syncmarks, tmp.p) ? 1 : 0) |
	    (globs(commmarks, tmp.p) ? 2 : 0) |
	    (globs(stepmarks, tmp.p) ? 4 : 0) |
	    (globs(dispops, tmp.p) ? 8 : 0) |
	    (globs(copycalls, tmp.p) ? 16 : 0) |
	    (globs(copyev, tmp.p) ? 32 : 0) |
	    (globs(todevcalls, tmp.p) ? 64 : 0) |
	    (userframe(tmp.p) ? 128 : 0) |
	    (profcode(tmp.p) ? 256 : 0);
	for (int k = nfam - 1; k >= 0; k--) {
		if (globs(famnames[k], tmp.p))
			e->nfam = (unsigned char)k;
		if (globs(famcats[k], tmp.p))
			e->cfam = (unsigned char)k;
	}
	return (uint32_t)id;
}

void
putistr(uint32_t id)
{
	if (id == NOID)
		buf_adds(&ob, "null");
	else
		buf_add(&ob, I.names.v[id].s, I.names.v[id].n);
}
