/* rules: the one rules file, defaults compiled in, user file merged over. */
#include <fnmatch.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "rules.h"
#include "util.h"

extern const char rules_default_json[];	/* generated from lib/rules.json */

static jv rules;
static int loaded;
static char *dumped;

struct cached {
	char		 *key;
	const char	**list;
};
static struct cached *cache;
static int ncache;

static jv
parsefile(const char *path)
{
	FILE *fp = fopen(path, "r");
	struct buf b = {0};
	char chunk[8192];
	size_t n;
	jv v;

	if (fp == NULL)
		dieerr("rules file %s", path);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	fclose(fp);
	v = jv_parse_sized(b.p ? b.p : "", (int)b.len);
	buf_free(&b);
	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		const char *s = jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "invalid JSON";
		const char *cut = strstr(s, " (while parsing");

		die("rules file %s: %.*s", path, cut ? (int)(cut - s) : (int)strlen(s), s);
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT)
		die("rules file %s: not a JSON object", path);
	return v;
}

/* Every key of the user file must exist in the defaults with its kind. */
static void
checkkeys(jv def, jv user, const char *path, const char *prefix)
{
	jv_object_foreach(user, k, v) {
		jv d = jv_object_has(jv_copy(def), jv_copy(k)) ?
		    jv_object_get(jv_copy(def), jv_copy(k)) : jv_invalid();
		char full[256];

		snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", jv_string_value(k));
		if (!jv_is_valid(d))
			die("rules file %s: unknown key \"%s\"", path, full);
		if (jv_get_kind(d) != jv_get_kind(v) &&
		    !(jv_get_kind(d) == JV_KIND_TRUE && jv_get_kind(v) == JV_KIND_FALSE) &&
		    !(jv_get_kind(d) == JV_KIND_FALSE && jv_get_kind(v) == JV_KIND_TRUE))
			die("rules file %s: key \"%s\" must be a %s", path, full, jv_kind_name(jv_get_kind(d)));
		if (jv_get_kind(v) == JV_KIND_OBJECT)
			checkkeys(jv_copy(d), jv_copy(v), path, full);
		jv_free(d);
		jv_free(k);
		jv_free(v);
	}
	jv_free(def);
	jv_free(user);
}

/*
 * Which filters read a key (the longest matching prefix wins), so that a
 * rerun of one stage with -r can say which changed keys it cannot apply
 * (asc(7), rules).  tests/cases/rules checks this table against the
 * code.
 */
static const struct { const char *prefix, *readers; } readers[] = {
	{ "steps.marker_kinds", "asc-ingest asc-steps" },
	{ "steps.", "asc-steps" },
	{ "bubbles.min_bubble_us", "asc-gaps asc-attrib asc-segment asc-ops asc-parts" },
	{ "bubbles.heavy_gap_", "asc-gaps" },
	{ "bubbles.high_underfeed_ratio", "asc-gaps asc-judge" },
	{ "bubbles.comm_exposed_", "asc-gaps asc-judge" },
	{ "bubbles.evidence_time_share", "asc-attrib asc-judge" },
	{ "bubbles.", "asc-judge" },
	{ "verdict.report_max_steps", "asc-report" },
	{ "verdict.", "asc-judge" },
	{ "comm.straggler_min_ms", "asc-judge asc-cluster" },
	{ "comm.", "asc-judge" },
	{ "attribution.framework_frames", "asc-ingest asc-attrib" },
	{ "attribution.device_tasks", "asc-ingest" },
	{ "attribution.", "asc-attrib" },
	{ "ops.comm_task_types", "asc-gaps asc-merge asc-trace asc-ops asc-segment asc-fia asc-cluster asc-parts" },
	{ "ops.aicpu_task_types", "asc-ops asc-segment asc-fia asc-parts" },
	{ "ops.compute_task_types", "asc-ops asc-segment asc-parts" },
	{ "ops.name_strip_regex", "asc-ops asc-segment asc-fia asc-trace asc-parts" },
	{ "ops.small_op_us", "asc-ops asc-segment asc-parts" },
	{ "ops.", "asc-ops" },
	{ "pmu.", "asc-ops" },
	{ "segment.", "asc-segment" },
	{ "fia.", "asc-fia asc-archmd asc-parts" },
	{ "cluster.", "asc-cluster" },
};

static const char *
readers_of(const char *key)
{
	const char *best = NULL;
	size_t bl = 0;

	for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
		size_t l = strlen(readers[i].prefix);

		if (l > bl && strncmp(key, readers[i].prefix, l) == 0) {
			best = readers[i].readers;
			bl = l;
		}
	}
	return best;
}

/* Is word w one of the space-separated words of list? */
static int
inlist(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)) != NULL; p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

/* Keys of user that change a default and that this filter does not read. */
static void
warnunread(jv def, jv user, const char *prefix)
{
	jv_object_foreach(user, k, v) {
		char full[256];
		jv d = jv_object_get(jv_copy(def), jv_copy(k));
		const char *who;

		snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", jv_string_value(k));
		/* Sections are walked; deeper objects are one value. */
		if (jv_get_kind(v) == JV_KIND_OBJECT && jv_get_kind(d) == JV_KIND_OBJECT &&
		    strchr(full, '.') == NULL)
			warnunread(jv_copy(d), jv_copy(v), full);
		else if (!jv_equal(jv_copy(d), jv_copy(v)) &&
		    (who = readers_of(full)) != NULL && !inlist(who, progname))
			warnmsg("rules key \"%s\" has no effect here: %s read%s it "
			    "(rerun from there)", full, who, strchr(who, ' ') ? "" : "s");
		jv_free(d);
		jv_free(k);
		jv_free(v);
	}
	jv_free(def);
	jv_free(user);
}

/*
 * The range of every number of the rules, checked when they are read so
 * that no filter converts a NaN, a negative count or 1e300 to an integer.
 * Durations are bounded at about 11.6 days (10^6 s) so that their ns fit
 * int64_t; counts that size an allocation have lower bounds of their own.
 * A number of the built-in rules without an entry here is a program error.
 */
enum range { R_SHARE, R_RATIO, R_POINTS, R_US, R_MS, R_MB, R_GBPS, R_COUNT };
static const struct {
	const char	*glob;
	enum range	 kind;
	double		 max;		/* R_COUNT only */
} ranges[] = {
	{ "steps.group_count_tolerance", R_SHARE, 0 },
	{ "steps.group_share_tolerance_points", R_POINTS, 0 },
	{ "bubbles.*_us", R_US, 0 },
	{ "bubbles.*_ms", R_MS, 0 },
	{ "bubbles.*_share", R_SHARE, 0 },
	{ "bubbles.high_underfeed_ratio", R_SHARE, 0 },
	{ "bubbles.top_n", R_COUNT, 1e6 },
	{ "bubbles.keep_windows", R_COUNT, 1e7 },
	{ "verdict.*_steps", R_COUNT, 1e9 },
	{ "verdict.*_share", R_SHARE, 0 },
	{ "verdict.launch_lag_median_us", R_US, 0 },
	{ "verdict.launch_lag_gaps_per_kernel", R_RATIO, 0 },
	{ "verdict.launch_lag_ratio", R_RATIO, 0 },
	{ "verdict.readback_max_mb", R_MB, 0 },
	{ "comm.wait_dominant_ratio", R_SHARE, 0 },
	{ "comm.straggler_min_ms", R_MS, 0 },
	{ "comm.straggler_share", R_SHARE, 0 },
	{ "comm.late_op_ratio", R_RATIO, 0 },
	{ "comm.bandwidth_min_size_mb", R_MB, 0 },
	{ "comm.bandwidth_low_gbps.*", R_GBPS, 0 },
	{ "attribution.*_ratio", R_SHARE, 0 },
	{ "attribution.*_coverage", R_SHARE, 0 },
	{ "attribution.serial_parallelism", R_RATIO, 0 },
	{ "attribution.*_us", R_US, 0 },
	{ "ops.*_us", R_US, 0 },
	{ "ops.wait_anchor_wait_ratio", R_SHARE, 0 },
	{ "ops.wait_anchor_max_rank", R_COUNT, 1e9 },
	{ "ops.wait_pollution_overlap", R_SHARE, 0 },
	{ "ops.aicpu_*", R_SHARE, 0 },
	{ "ops.small_run_min_kernels", R_COUNT, 1e9 },
	{ "ops.small_run_gap_ratio", R_RATIO, 0 },
	{ "pmu.balanced_sum", R_RATIO, 0 },
	{ "pmu.*", R_SHARE, 0 },
	{ "segment.large_gap_us", R_US, 0 },
	{ "segment.period_candidates", R_COUNT, 1e3 },
	{ "segment.top_kernels", R_COUNT, 1e3 },
	{ "segment.*", R_COUNT, 1e9 },
	{ "fia.*_ms", R_MS, 0 },
	{ "fia.*_us", R_US, 0 },
	{ "fia.warmup_ratio", R_RATIO, 0 },
	{ "fia.template_max", R_COUNT, 1e7 },
	{ "fia.*", R_COUNT, 1e9 },
	{ "cluster.*_us", R_US, 0 },
	{ "cluster.*_mb", R_MB, 0 },
	{ "cluster.msprof_range_ratio", R_RATIO, 0 },
	{ "cluster.top_collectives", R_COUNT, 1e6 },
	{ "cluster.*", R_SHARE, 0 },
};

/* "" when d is in the range of key, else what the range is. */
static const char *
outofrange(const char *key, double d)
{
	static char why[96];

	for (size_t i = 0; i < sizeof ranges / sizeof ranges[0]; i++) {
		double max;

		if (fnmatch(ranges[i].glob, key, 0) != 0)
			continue;
		switch (ranges[i].kind) {
		case R_SHARE:	max = 1; break;
		case R_POINTS:	max = 100; break;
		case R_RATIO:	max = 1e6; break;
		case R_US:	max = 1e12; break;
		case R_MS:	max = 1e9; break;
		case R_MB:	max = 1e12; break;
		case R_GBPS:	max = 1e6; break;
		default:	max = ranges[i].max; break;
		}
		if (ranges[i].kind == R_GBPS) {
			snprintf(why, sizeof why, "a number above 0, at most %g", max);
			return isfinite(d) && d > 0 && d <= max ? "" : why;
		}
		if (ranges[i].kind == R_COUNT) {
			snprintf(why, sizeof why, "an integer from 0 to %.0f", max);
			return isfinite(d) && d >= 0 && d <= max && d == floor(d) ? "" : why;
		}
		snprintf(why, sizeof why, "a number from 0 to %g", max);
		return isfinite(d) && d >= 0 && d <= max ? "" : why;
	}
	die("built-in rules: no range for \"%s\"", key);
}

/* Every number of v (at dotted prefix) in its range, or exit EX_SYS. */
static void
checkranges(jv v, const char *path, const char *prefix)
{
	if (jv_get_kind(v) == JV_KIND_NUMBER) {
		double d = jv_number_value(v);
		const char *why = outofrange(prefix, d);

		if (*why != '\0') {
			char shown[32];

			if (isnan(d))
				snprintf(shown, sizeof shown, "NaN");
			else
				snprintf(shown, sizeof shown, "%.15g", d);
			die("%s%s: key \"%s\" must be %s, not %s", path ? "rules file " : "built-in rules",
			    path ? path : "", prefix, why, shown);
		}
	} else if (jv_get_kind(v) == JV_KIND_OBJECT) {
		jv_object_foreach(v, k, e) {
			char full[256];

			snprintf(full, sizeof full, "%s%s%s", prefix, *prefix ? "." : "", jv_string_value(k));
			checkranges(e, path, full);
			jv_free(k);
		}
	}
	jv_free(v);
}

void
rules_load(const char *path)
{
	int given = path != NULL;

	if (loaded)
		return;
	rules = jv_parse(rules_default_json);
	if (!jv_is_valid(rules))
		die("built-in rules are invalid");
	checkranges(jv_copy(rules), NULL, "");
	if (path == NULL)
		path = getenv("ASC_RULES");
	if (path && *path) {
		jv user = parsefile(path);

		checkkeys(jv_copy(rules), jv_copy(user), path, "");
		checkranges(jv_copy(user), path, "");
		/* Only for -r: $ASC_RULES serves a whole pipeline. */
		if (given)
			warnunread(jv_copy(rules), jv_copy(user), "");
		rules = jv_object_merge_recursive(rules, user);
	}
	loaded = 1;
}

/*
 * $ASC_RULES_TRACE names a file that gets "progname key" for every key a
 * filter looks up: tests/cases/rules checks that every key is read, and
 * by the filters the readers table names.
 */
static void
trace_key(const char *key)
{
	const char *path = getenv("ASC_RULES_TRACE");
	FILE *fp;

	if (path == NULL || *path == '\0' || (fp = fopen(path, "a")) == NULL)
		return;
	fprintf(fp, "%s %s\n", progname, key);
	fclose(fp);
}

static jv
lookup(const char *key)
{
	jv v = jv_copy(rules);
	char *k = xstrdup(key), *part, *save = NULL;

	if (!loaded)
		rules_load(NULL);
	trace_key(key);
	jv_free(v);
	v = jv_copy(rules);
	for (part = strtok_r(k, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		if (jv_get_kind(v) != JV_KIND_OBJECT || !jv_object_has(jv_copy(v), jv_string(part)))
			die("rules: no key \"%s\"", key);
		v = jv_object_get(v, jv_string(part));
	}
	free(k);
	return v;
}

jv
rules_get(const char *key)
{
	return lookup(key);
}

int64_t
rules_ns(const char *key, double unit_ns)
{
	return llround(rules_num(key) * unit_ns);
}

double
rules_num(const char *key)
{
	jv v = lookup(key);
	double d;

	if (jv_get_kind(v) != JV_KIND_NUMBER)
		die("rules: \"%s\" is not a number", key);
	d = jv_number_value(v);
	jv_free(v);
	return d;
}

const char *
rules_str(const char *key)
{
	const char *const *l;
	jv v = lookup(key);

	if (jv_get_kind(v) != JV_KIND_STRING)
		die("rules: \"%s\" is not a string", key);
	jv_free(v);
	/* Cache through the list machinery so the string outlives the jv. */
	for (int i = 0; i < ncache; i++)
		if (strcmp(cache[i].key, key) == 0)
			return cache[i].list[0];
	cache = xreallocarray(cache, (size_t)ncache + 1, sizeof *cache);
	cache[ncache].key = xstrdup(key);
	cache[ncache].list = xcalloc(2, sizeof(char *));
	v = lookup(key);
	cache[ncache].list[0] = xstrdup(jv_string_value(v));
	jv_free(v);
	l = cache[ncache++].list;
	return l[0];
}

const char *const *
rules_list(const char *key)
{
	jv v;
	int n;

	for (int i = 0; i < ncache; i++)
		if (strcmp(cache[i].key, key) == 0)
			return cache[i].list;
	v = lookup(key);
	if (jv_get_kind(v) != JV_KIND_ARRAY)
		die("rules: \"%s\" is not a list", key);
	n = jv_array_length(jv_copy(v));
	cache = xreallocarray(cache, (size_t)ncache + 1, sizeof *cache);
	cache[ncache].key = xstrdup(key);
	cache[ncache].list = xcalloc((size_t)n + 1, sizeof(char *));
	for (int i = 0; i < n; i++) {
		jv s = jv_array_get(jv_copy(v), i);

		if (jv_get_kind(s) != JV_KIND_STRING)
			die("rules: \"%s\" must hold strings", key);
		cache[ncache].list[i] = xstrdup(jv_string_value(s));
		jv_free(s);
	}
	jv_free(v);
	return cache[ncache++].list;
}

int
rules_match(const char *key, const char *name)
{
	for (const char *const *p = rules_list(key); *p; p++)
		if (fnmatch(*p, name, 0) == 0)
			return 1;
	return 0;
}

const char *
rules_json(void)
{
	if (!loaded)
		rules_load(NULL);
	if (dumped == NULL) {
		jv s = jv_dump_string(jv_copy(rules), JV_PRINT_SORTED);

		dumped = xstrdup(jv_string_value(s));
		jv_free(s);
	}
	return dumped;
}
