/*
 * asc-archmd: the report in R to its file, model_architecture_report_
 * <name>.md in the output directory or the -O file, written aside and
 * renamed (archmd.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "intern.h"

#include "archmd.h"

static int nreports;

/* The profile's name as a file name part: [A-Za-z0-9._-], and a name
 * too long for a directory entry cut to its head and a hash of it all. */
static void
sanitize(char *s)
{
	size_t n = strlen(s);
	uint32_t h = fnv32(s, n);

	for (char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	if (n > 180)
		snprintf(s + 160, n - 160 + 1, "~%08x", h);
}

/* Write the report of the profile whose directory is named dir (a name
 * cut to its last part; changed here).  -O - is stdout; a device or a
 * pipe is written in place (lib/util.c aside_open()). */
void
save(char *dir)
{
	struct aside a;
	char *final;

	if (outfile && strcmp(outfile, "-") == 0) {
		fwrite(R.p, 1, R.len, stdout);
		nreports++;
		return;
	}
	if (outfile) {
		if (nreports > 0)
			die("%s: several profiles in the stream: use -o dir", outfile);
		final = xstrdup(outfile);
	} else {
		size_t n = strlen(outdir) + strlen(dir) + 64;

		sanitize(dir);
		final = xmalloc(n);
		snprintf(final, n, "%s/model_architecture_report_%s.md", outdir, dir);
	}
	if (aside_open(&a, final) != 0)
		dieerr("%s", a.tmp ? a.tmp : final);	/* a.tmp: mkstemp failed */
	aside_save(&a, final, R.p, R.len);
	printf("%s\n", final);
	free(final);
	nreports++;
}
