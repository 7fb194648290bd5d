/*
 * asc-ingest: a data error said (the run stops but under -k), and the
 * warnings of the profile being read, kept for its record (profile.c).
 * The files of filters/asc-ingest/ and asc-ingest.c call these and the
 * readers of lib/ingest/ report through them; they call nothing back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ingest.h"

int exitcode = EX_OK;

/* A data error: report; stop unless -k. */
void
baddata(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exitcode = EX_DATA;
	if (!kflag) {
		xclose_stdout();
		exit(EX_DATA);
	}
}

/* Warnings are collected per profile and written after its record. */
struct warn *warns;
int nwarns;

void
addwarn(const char *code, const char *fmt, ...)
{
	va_list ap;
	char m[512];

	va_start(ap, fmt);
	vsnprintf(m, sizeof m, fmt, ap);
	va_end(ap);
	warns = xreallocarray(warns, (size_t)nwarns + 1, sizeof *warns);
	warns[nwarns].code = xstrdup(code);
	warns[nwarns].msg = xstrdup(m);
	nwarns++;
}

/* The readers' data errors, as baddata's. */
void
tbad(const char *msg)
{
	baddata("%s", msg);
}

void
dbbad(void *arg, const char *msg)
{
	baddata("%s", msg);
}
