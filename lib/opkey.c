/* opkey: op keys and task-type classes (opkey.h). */
#include <regex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "opkey.h"
#include "rules.h"

static regex_t	re;
static int	compiled;

void
opkey_init(void)
{
	const char *s = rules_str("ops.name_strip_regex");
	int e;

	if (compiled)
		return;
	if ((e = regcomp(&re, s, REG_EXTENDED)) != 0) {
		char msg[128];

		regerror(e, &re, msg, sizeof msg);
		die("rules: \"ops.name_strip_regex\": %s", msg);
	}
	compiled = 1;
}

/*
 * The regex's answer for the names seen last, by a hash of the name: a
 * capture has a few hundred kernel names and a million kernels, each
 * asked for by several stages.
 */
#define NCACHE	1024
static struct {
	char		*name;
	size_t		 n, so, eo;	/* so == eo: nothing stripped */
} cache[NCACHE];

void
opkey(const char *name, size_t n, struct buf *out)
{
	regmatch_t m;
	uint32_t h = fnv32(name, n) % NCACHE;
	size_t so = 0, eo = 0;

	if (!compiled)
		opkey_init();
	if (cache[h].name && cache[h].n == n && memcmp(cache[h].name, name, n) == 0) {
		so = cache[h].so;
		eo = cache[h].eo;
	} else {
		if (regexec(&re, name, 1, &m, 0) == 0 && m.rm_so >= 0 &&
		    (size_t)m.rm_eo <= n && (size_t)(m.rm_eo - m.rm_so) < n) {
			so = (size_t)m.rm_so;
			eo = (size_t)m.rm_eo;
		}
		free(cache[h].name);
		cache[h].name = xstrndup(name, n);
		cache[h].n = n;
		cache[h].so = so;
		cache[h].eo = eo;
	}
	buf_add(out, name, so);
	buf_add(out, name + eo, n - eo);
}

static int
tt_match(const char *tt)
{
	if (rules_match("ops.compute_task_types", tt))
		return TT_COMPUTE;
	if (rules_match("ops.comm_task_types", tt))
		return TT_COMM;
	if (rules_match("ops.aicpu_task_types", tt))
		return TT_AICPU;
	return TT_OTHER;
}

int
tt_class(const char *tt)
{
	/* A handful of task types in a capture: remember them. */
	static char *seen[16];
	static int cls[16], nseen;

	if (tt == NULL || *tt == '\0' || strcmp(tt, "N/A") == 0)
		return TT_UNKNOWN;
	for (int i = 0; i < nseen; i++)
		if (strcmp(seen[i], tt) == 0)
			return cls[i];
	if (nseen == 16)
		return tt_match(tt);
	seen[nseen] = xstrdup(tt);
	cls[nseen] = tt_match(tt);
	return cls[nseen++];
}

const char *
tt_classname(int c)
{
	static const char *const names[] = { "unknown", "compute", "communication",
	    "ai_cpu", "other" };

	return c >= 0 && c <= TT_OTHER ? names[c] : "unknown";
}
