/* filter: the options and the record loop every stage shares, with a
 * profile's bookkeeping and the gathering of a whole profile. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "filter.h"
#include "rules.h"
#include "util.h"

/* Keeps the argument of c when args has it, or sets its flag when
 * flags has it: 1, else 0. */
static int
takearg(const struct filter_arg *a, const struct filter_flag *fl, int c)
{
	for (; a != NULL && a->letter != 0; a++)
		if (a->letter == c) {
			*a->to = optarg;
			return 1;
		}
	for (; fl != NULL && fl->letter != 0; fl++)
		if (fl->letter == c) {
			*fl->to = 1;
			return 1;
		}
	return 0;
}

int
filter_getopt(int argc, char *argv[], const char *own, struct filter_opts *o)
{
	static int named;
	const char *common = o->common ? o->common : "km:r:";
	char opts[64];
	int c;

	if (!named) {
		named = 1;
		setprogname_(argv[0]);
		version_opt(argc, argv);
	}
	if ((size_t)snprintf(opts, sizeof opts, "%s%s", common, own) >= sizeof opts)
		die("filter_getopt: too many options");
	while ((c = o->longopts ? getopt_long(argc, argv, opts, o->longopts, NULL) :
	    getopt(argc, argv, opts)) != -1)
		switch (strchr(common, c) ? c : 0) {
		case 'k':
			o->kflag = 1;
			break;
		case 'm':
			o->maxline = (size_t)xnum(optarg, 1, 1 << 30, "maxline");
			break;
		case 'r':
			o->rules = optarg;
			break;
		case 0:
			if (c == '?')
				filter_usage(o);
			if (takearg(o->args, o->flags, c))
				break;
			return c;
		}
	return -1;
}

const char *
filter_operand(int argc, char *argv[], const struct filter_opts *o)
{
	if (argc - optind > 1)
		filter_usage(o);
	return optind < argc ? argv[optind] : "-";
}

void
filter_usage(const struct filter_opts *o)
{
	fprintf(stderr, "usage: %s %s\n", progname, o->usage);
	exit(EX_SYS);
}

static int
isown(const struct filter *f, const char *t, size_t tn)
{
	if (f->own)
		for (const char *const *o = f->own; *o; o++) {
			size_t n = strlen(*o);

			if (n && (*o)[n - 1] == '*' ? tn >= n - 1 && memcmp(t, *o, n - 1) == 0 :
			    sr_is(t, tn, *o))
				return 1;
		}
	return 0;
}

/* A "profile" record, with sect set: close the last profile, open this. */
static int
profile(const struct filter *f, struct rin *r)
{
	const struct rfield *p;

	if (rin_scan(r) != 0)
		return -1;
	if (f->profile_end)
		f->profile_end(r, f->arg);
	if (f->check)
		sr_sect_end(f->sect, f->check, stdout);
	sr_sect_profile(f->sect, r);
	if (f->prof) {
		f->prof->len = 0;
		if ((p = rin_get(r, "profile")) != NULL)
			buf_add(f->prof, p->v, p->vlen);
		else
			buf_adds(f->prof, "null");
	}
	return f->profile ? f->profile(r, f->arg) : 0;
}

/* A "host" record, with sect_host set: the first ends the kernel section. */
static void
host(const struct filter *f)
{
	if (f->kernels_end && f->sect->active && f->sect->sec != SR_HOST)
		f->kernels_end();
	sr_sect_host(f->sect);
}

/* The stage's function for type t[0..tn): its entry in on, else rec. */
static int
dispatch(const struct filter *f, struct rin *r, const char *t, size_t tn)
{
	const struct filter_on *on;

	for (on = f->on; on != NULL && on->type != NULL; on++)
		if (sr_is(t, tn, on->type))
			return on->rec(r);
	if (f->rec == NULL) {
		sr_pass(r);
		return 0;
	}
	return f->rec(r, t, tn, f->arg);
}

/* One record of type t[0..tn): 0, or -1 (r's error set). */
static int
onerec(const struct filter *f, struct rin *r, const char *t, size_t tn)
{
	if (f->sect && sr_is(t, tn, "profile") && profile(f, r) != 0)
		return -1;
	if (f->sect_host && sr_is(t, tn, "host"))
		host(f);
	if (dispatch(f, r, t, tn) != 0)
		return -1;
	if (f->bulk && sr_is(t, tn, f->bulk))
		rin_bulk(r, f->bulk, strlen(f->bulk), f->bulk_drop ? NULL : stdout);
	return 0;
}

/* In gather mode; *have: a profile is being gathered. */
static int
gatherrec(const struct filter *f, struct rin *r, const char *t, size_t tn, int *have)
{
	int k = f->gather_as ? f->gather_as(r, t, tn, f->arg) : gather_index(f->gather, t, tn);

	if (!f->gather_pass && k == -1) {
		rin_bulk(r, t, tn, NULL);	/* not gathered: skip the run */
		return 0;
	}
	if (k == 0) {
		if (*have)
			f->whole(f->gather, f->arg);
		*have = 1;
		if (f->profile && f->profile(r, f->arg) != 0)
			return -1;
	}
	if (f->rec && f->rec(r, t, tn, f->arg) != 0)
		return -1;
	if (f->gather_pass) {
		sr_pass(r);
		if (k == -1)
			rin_bulk(r, t, tn, stdout);	/* not gathered: the run passes */
	}
	if (k < 0 || !*have)
		return 0;	/* records before any profile: ignored */
	return gather_add(f->gather, k, r);
}

/* One file's records; 1: the loop stops (a bad record without -k, *stop). */
static int
readfile(const struct filter *f, const struct filter_opts *o, const char *file, int *have, int *rc)
{
	struct rin *r;
	int st, end = 0;

	if ((r = f->open ? f->open(file, o->maxline, f->arg) : rin_new(file, o->maxline)) == NULL)
		dieerr("%s", file);
	while (!end && (st = rin_next(r)) != 0) {
		const char *t;
		size_t tn;

		if (st > 0 && rin_type(r, &t, &tn) == 0 && isown(f, t, tn))
			continue;
		if ((st <= 0 || rin_type(r, &t, &tn) != 0 ||
		    (f->gather ? gatherrec(f, r, t, tn, have) : onerec(f, r, t, tn)) != 0) &&
		    rin_bad(r, o->kflag, rc))
			end = 1;
		else if (f->stop && *f->stop)
			end = 1;
	}
	if (f->close)
		f->close(r, f->arg);
	else
		rin_free(r);
	return end;
}

int
filter_run(int nfiles, char **files, const struct filter_opts *o, const struct filter *f)
{
	static char *stdinonly[] = { "-" };
	int rc = EX_OK, have = 0;

	if (nfiles == 0) {
		nfiles = 1;
		files = stdinonly;
	}
	if (!f->stdout_asis)
		stdout_big();
	for (int i = 0; i < nfiles; i++)
		if (readfile(f, o, files[i], &have, &rc))
			return rc;
	if (f->gather && have)
		f->whole(f->gather, f->arg);
	if (f->sect && f->profile_end)
		f->profile_end(NULL, f->arg);
	if (f->sect && f->check)
		sr_sect_end(f->sect, f->check, stdout);
	if (f->end)
		f->end();
	return rc;
}

int
filter_main(int argc, char *argv[], const struct filter_opts *o, const struct filter *f)
{
	int rc;

	/* The stages without -r read no rules. */
	if (strchr(o->common ? o->common : "r", 'r'))
		rules_load(o->rules);	/* nothing when loaded already */
	rc = filter_run(argc - optind, argv + optind, o, f);
	xclose_stdout();
	return rc;
}
