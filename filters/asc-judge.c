/*
 * asc-judge: gather what the analysis stages wrote about a profile (step
 * metrics, bubbles, attribution, op rankings, structures) and decide:
 * write one "anomaly_discovery" record per profile, after its records.
 * The decision tables are the jq program asc-judge.jq, built in.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jv.h>

#include "jqprog.h"
#include "rec.h"
#include "rules.h"
#include "util.h"

extern const char asc_judge_jq[];

/* Record types consumed (kept per profile); everything passes through. */
static const char *kept[] = {
	"profile", "warning", "step_trace", "step", "step_metrics", "bubble",
	"attribution", "attribution_summary", "attribution_step", "step_groups",
	"capture_gaps", "op", "op_summary", "structure", "step_structure",
	"comm", NULL
};

static int kflag;
static size_t keepwin;		/* significant bubble windows kept */
static struct jqprog *prog;
static jv acc;			/* {type: [records]} of the current profile */
static int have;		/* acc holds a profile */
static long nbubbles;		/* every bubble seen, kept or not */
static int rc = EX_OK;
static FILE *jfp;		/* -j: anomaly_discovery objects, pretty */

static void usage(void) __attribute__((noreturn));

static void
usage(void)
{
	fprintf(stderr, "usage: %s [-k] [-j file] [-r rules] [file ...]\n", progname);
	exit(EX_SYS);
}

static int
iskept(const char *t, size_t n)
{
	for (int i = 0; kept[i]; i++)
		if (strlen(kept[i]) == n && memcmp(kept[i], t, n) == 0)
			return i;
	return -1;
}

static void
emit(jv obj, void *arg)
{
	const char *profile = arg;
	struct buf b = {0};
	jv s;
	const char *t;

	if (jv_get_kind(obj) != JV_KIND_OBJECT)
		die("asc-judge.jq: output is not an object");
	s = jv_dump_string(obj, 0);
	t = jv_string_value(s);
	out_begin(&b, "anomaly_discovery");
	out_cstr(&b, "profile", profile);
	if (t[1] != '}')
		buf_addc(&b, ',');
	buf_add(&b, t + 1, strlen(t + 1) - 1);
	if (jfp) {
		/* The same object, pretty, for people and validators. */
		jv o;

		buf_addc(&b, '}');
		o = jv_parse_sized(b.p, (int)b.len);
		b.len--;
		if (!jv_is_valid(o))
			die("asc-judge: internal error: invalid anomaly_discovery");
		jv_dumpf(o, jfp, JV_PRINT_PRETTY | JV_PRINT_INDENT_FLAGS(2));
		fputc('\n', jfp);
	}
	rec_put(&b, stdout);
	jv_free(s);
	buf_free(&b);
}

/* Keep the longest significant windows when there are too many. */
static jv
trimbubbles(jv a)
{
	int n = jv_array_length(jv_copy(a));
	double *d;
	double cut;
	jv out = jv_array();

	if ((size_t)n <= keepwin)
		return a;
	d = xreallocarray(NULL, (size_t)n, sizeof *d);
	for (int i = 0; i < n; i++) {
		jv v = jv_object_get(jv_array_get(jv_copy(a), i), jv_string("dur_ns"));

		d[i] = jv_get_kind(v) == JV_KIND_NUMBER ? jv_number_value(v) : 0;
		jv_free(v);
	}
	{
		double *s = xreallocarray(NULL, (size_t)n, sizeof *s);
		int k = 0;

		memcpy(s, d, (size_t)n * sizeof *s);
		/* Partial selection would do; n is bounded by 2 * keepwin. */
		for (int i = 1; i < n; i++)
			for (int j = i; j > 0 && s[j - 1] < s[j]; j--) {
				double t = s[j];

				s[j] = s[j - 1];
				s[j - 1] = t;
			}
		cut = s[keepwin - 1];
		for (int i = 0; i < n && (size_t)k < keepwin; i++)
			if (d[i] >= cut) {
				out = jv_array_append(out, jv_array_get(jv_copy(a), i));
				k++;
			}
		free(s);
	}
	free(d);
	jv_free(a);
	return out;
}

static void
flush(void)
{
	char err[512];
	jv p;
	char *name;

	if (!have)
		return;
	p = jv_getpath(jv_copy(acc), JV_ARRAY(jv_string("profile"), jv_number(0), jv_string("profile")));
	name = xstrdup(jv_get_kind(p) == JV_KIND_STRING ? jv_string_value(p) : "");
	jv_free(p);
	acc = jv_object_set(acc, jv_string("bubble_total"), jv_number((double)nbubbles));
	acc = jv_object_set(acc, jv_string("bubble"),
	    trimbubbles(jv_object_get(jv_copy(acc), jv_string("bubble"))));
	if (jqprog_run(prog, acc, emit, name, err, sizeof err) != 0)
		die("%s", err);
	free(name);
	have = 0;
}

static void
reset(void)
{
	acc = jv_object();
	for (int i = 0; kept[i]; i++)
		acc = jv_object_set(acc, jv_string(kept[i]), jv_array());
	nbubbles = 0;
	have = 1;
}

static void
add(const char *type, jv v)
{
	jv a = jv_object_get(jv_copy(acc), jv_string(type));

	acc = jv_object_set(acc, jv_string(type), jv_array_append(a, v));
}

static int
isbubblekept(struct rin *r)
{
	int sig = 0;

	/* Only significant windows go to the judge; all are counted. */
	if (rin_scan(r) != 0)
		return -1;
	nbubbles++;
	if (rf_bool(rin_get(r, "significant"), &sig) != 0)
		sig = 1;
	return sig;
}

static void
run(const char *path)
{
	struct rin r;
	const char *t;
	size_t tn;
	int k;

	if (rin_open(&r, path, 0) != 0)
		dieerr("%s", path);
	for (;;) {
		int n = rin_next(&r);

		if (n == 0)
			break;
		if (n < 0 || rin_type(&r, &t, &tn) != 0) {
			warnmsg("%s:%lu: %s", r.name, r.lineno, r.err);
			rc = EX_DATA;
			if (!kflag)
				break;
			continue;
		}
		k = iskept(t, tn);
		if (k == 0) {
			flush();	/* the previous profile's verdict */
			reset();
		}
		/* Pass through: the record is not changed. */
		fwrite(r.line, 1, r.len, stdout);
		putchar('\n');
		if (k < 0 || !have)
			continue;	/* records before any profile: ignored */
		if (strcmp(kept[k], "bubble") == 0) {
			int s = isbubblekept(&r);

			if (s <= 0) {
				if (s < 0) {
					warnmsg("%s:%lu: %s", r.name, r.lineno, r.err);
					rc = EX_DATA;
					if (!kflag)
						break;
				}
				continue;
			}
		}
		{
			jv v = jv_parse_sized(r.line, (int)r.len);

			if (!jv_is_valid(v)) {
				jv_free(v);
				warnmsg("%s:%lu: invalid JSON", r.name, r.lineno);
				rc = EX_DATA;
				if (!kflag)
					break;
				continue;
			}
			add(kept[k], v);
			if (strcmp(kept[k], "bubble") == 0 &&
			    (size_t)jv_array_length(jv_object_get(jv_copy(acc), jv_string("bubble"))) > 2 * keepwin)
				acc = jv_object_set(acc, jv_string("bubble"),
				    trimbubbles(jv_object_get(jv_copy(acc), jv_string("bubble"))));
		}
	}
	rin_close(&r);
}

int
main(int argc, char *argv[])
{
	int ch;
	const char *rules = NULL;

	setprogname_(argv[0]);
	while ((ch = getopt(argc, argv, "j:kr:")) != -1) {
		switch (ch) {
		case 'j':
			if ((jfp = fopen(optarg, "w")) == NULL)
				dieerr("%s", optarg);
			break;
		case 'k':
			kflag = 1;
			break;
		case 'r':
			rules = optarg;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	rules_load(rules);
	keepwin = (size_t)rules_num("bubbles.keep_windows");
	if (keepwin < 1)
		keepwin = 1;
	prog = jqprog_new("asc-judge.jq", asc_judge_jq);
	setvbuf(stdout, NULL, _IOFBF, 1 << 20);
	if (argc == 0)
		run("-");
	for (int i = 0; i < argc && (rc == EX_OK || kflag); i++)
		run(argv[i]);
	if (rc == EX_OK || kflag)
		flush();
	if (have)
		jv_free(acc);
	jqprog_free(prog);
	if (jfp && (fflush(jfp) != 0 || ferror(jfp) || fclose(jfp) != 0))
		dieerr("anomaly_discovery file");
	xclose_stdout();
	return rc;
}
