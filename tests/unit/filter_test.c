/*
 * filter_test: the record loop of lib/filter.c for a stage that reads
 * profiles section by section (FILTER_SECTIONS): each profile's
 * kernels_end is called once, at its first host record and before that
 * record passes, also when other records split its host events; a
 * profile without host records has none; the stage's own types are
 * dropped; with no .rec the other records pass unchanged, in order.
 * The callbacks write marker lines into the output, so the order of
 * the calls is read from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "filter.h"
#include "util.h"

static struct sr_sect sect;
static int nkernels;

static int
kernelrec(struct rin *r)
{
	nkernels++;
	sr_pass(r);
	return 0;
}

static void
kernels_end(void)
{
	fputs("KERNELS_END\n", stdout);
}

static void
profile_end(struct rin *r, void *arg)
{
	if (sect.active)
		fputs("PROFILE_END\n", stdout);
}

static const char input[] =
    "{\"type\":\"profile\",\"profile\":\"p1\"}\n"
    "{\"type\":\"kernel\",\"profile\":\"p1\",\"n\":1}\n"
    "{\"type\":\"op\",\"profile\":\"p1\"}\n"
    "{\"type\":\"kernel\",\"profile\":\"p1\",\"n\":2}\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":1}\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":2}\n"
    "{\"type\":\"warning\",\"profile\":\"p1\"}\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":3}\n"
    "{\"type\":\"profile\",\"profile\":\"p2\"}\n"
    "{\"type\":\"kernel\",\"profile\":\"p2\",\"n\":1}\n"
    "{\"type\":\"profile\",\"profile\":\"p3\"}\n"
    "{\"type\":\"host\",\"profile\":\"p3\",\"n\":1}\n";

static const char want[] =
    "{\"type\":\"profile\",\"profile\":\"p1\"}\n"
    "{\"type\":\"kernel\",\"profile\":\"p1\",\"n\":1}\n"
    "{\"type\":\"kernel\",\"profile\":\"p1\",\"n\":2}\n"
    "KERNELS_END\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":1}\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":2}\n"
    "{\"type\":\"warning\",\"profile\":\"p1\"}\n"
    "{\"type\":\"host\",\"profile\":\"p1\",\"n\":3}\n"
    "PROFILE_END\n"
    "{\"type\":\"profile\",\"profile\":\"p2\"}\n"
    "{\"type\":\"kernel\",\"profile\":\"p2\",\"n\":1}\n"
    "PROFILE_END\n"
    "{\"type\":\"profile\",\"profile\":\"p3\"}\n"
    "KERNELS_END\n"
    "{\"type\":\"host\",\"profile\":\"p3\",\"n\":1}\n"
    "PROFILE_END\n";

int
main(void)
{
	const struct filter f = {
		.on = FILTER_ON({ .type = "kernel", .rec = kernelrec }),
		.own = FILTER_OWN("op"),
		.stdout_asis = 1,
		FILTER_SECTIONS(&sect, NULL, profile_end, NULL, kernels_end),
	};
	struct filter_opts o = FILTER_OPTS("[file]");
	char in[4096], *files[1], got[4096];
	size_t n;
	FILE *fp;
	int rc;

	check_tmpfile("filter_test", input, sizeof input - 1);
	snprintf(in, sizeof in, "%s", tmppath);
	check_tmpfile("filter_test", "", 0);
	if (freopen(tmppath, "w", stdout) == NULL) {
		perror(tmppath);
		return 2;
	}
	files[0] = in;
	rc = filter_run(1, files, &o, &f);
	CHECK(fflush(stdout) == 0);
	CHECK(rc == EX_OK);
	CHECK(nkernels == 3);
	CHECK((fp = fopen(tmppath, "r")) != NULL);
	n = fp ? fread(got, 1, sizeof got - 1, fp) : 0;
	got[n] = '\0';
	if (fp)
		fclose(fp);
	CHECK(strcmp(got, want) == 0);
	if (strcmp(got, want) != 0)
		fprintf(stderr, "filter_test: got:\n%s", got);
	unlink(in);
	unlink(tmppath);
	return check_status("filter_test");
}
