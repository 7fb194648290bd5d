/*
 * asc-archmd: the report in R to its file, model_architecture_report_
 * <name>.md in the output directory or the -O file, written aside and
 * renamed (archmd.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "archmd.h"

static int nreports;

/* The profile's name as a file name part: [A-Za-z0-9._-], and a name
 * too long for a directory entry cut to its head and a hash of it all. */
static void
sanitize(char *s)
{
	uint32_t h = 2166136261u;
	size_t n = strlen(s);

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	for (char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			*p = '_';
	if (n > 180)
		snprintf(s + 160, n - 160 + 1, "~%08x", h);
}

/* Write the report of the profile whose directory is named dir (a name
 * cut to its last part; changed here). */
void
save(char *dir)
{
	struct stat st;

	if (outfile && strcmp(outfile, "-") == 0) {
		fwrite(R.p, 1, R.len, stdout);
	} else if (outfile && stat(outfile, &st) == 0 && !S_ISREG(st.st_mode)) {
		/* A device or a pipe (-O /dev/null): written in place, never replaced. */
		FILE *fp;

		if (nreports > 0)
			die("%s: several profiles in the stream: use -o dir", outfile);
		if ((fp = fopen(outfile, "w")) == NULL)
			dieerr("%s", outfile);
		if (fwrite(R.p, 1, R.len, fp) != R.len || fclose(fp) != 0)
			dieerr("%s", outfile);
		printf("%s\n", outfile);
	} else {
		char *final, *tmpn;
		int fd;
		FILE *fp;

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
		tmpn = xmalloc(strlen(final) + 16);
		sprintf(tmpn, "%s.XXXXXX", final);
		if ((fd = mkstemp(tmpn)) < 0)
			dieerr("%s", tmpn);
		if (fchmod(fd, 0640) != 0 || (fp = fdopen(fd, "w")) == NULL) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", tmpn);
		}
		if (fwrite(R.p, 1, R.len, fp) != R.len || fflush(fp) != 0 || fsync(fd) != 0) {
			int e = errno;

			fclose(fp);
			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		if (fclose(fp) != 0) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		if (rename(tmpn, final) != 0) {
			int e = errno;

			unlink(tmpn);
			errno = e;
			dieerr("%s", final);
		}
		printf("%s\n", final);
		free(final);
		free(tmpn);
	}
	nreports++;
}
