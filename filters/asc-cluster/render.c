/*
 * cluster_report.md rendered by filters/asc-cluster.jq (built in after
 * filters/fmt.jq, as asc-report's template is).  Its input, per job: the
 * job's records as cluster.json holds them, grouped by kind ("job":
 * [...], "warning": [...], ...), plus "view", what C computed for the
 * report alone, and "section", the part of the report to write.  The C
 * keeps the computation; the template only words and formats it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "jqprog.h"
#include "util.h"

#include "cluster.h"

static const char asc_cluster_jq[] =
#include "asc-cluster.jq.inc"
;

static struct jqprog *prog;
static jv doc;			/* the job's records by kind, and view */
static int started;

/* A new job: no records yet. */
void
doc_begin(void)
{
	if (started)
		jv_free(doc);
	doc = JV_OBJECT(jv_string("view"), jv_object());
	started = 1;
}

/* One record as written (the object's text without its closing brace). */
void
doc_add(const char *p, size_t len)
{
	struct buf b = {0};
	jv r, k, a;

	if (!md)
		return;
	buf_add(&b, p, len);
	buf_addc(&b, '}');
	r = jv_parse_sized(b.p, (int)b.len);
	free(b.p);
	if (!jv_is_valid(r))
		die("a record of its own does not parse");
	k = jv_object_get(jv_copy(r), jv_string("kind"));
	/* Taken out of doc first: the array appended to is then not shared,
	 * and grows in place instead of being copied for each record. */
	a = jv_object_get(jv_copy(doc), jv_copy(k));
	doc = jv_object_delete(doc, jv_copy(k));
	if (jv_get_kind(a) != JV_KIND_ARRAY) {
		jv_free(a);
		a = jv_array();
	}
	doc = jv_object_set(doc, k, jv_array_append(a, r));
}

/* A duration in ns for the template: null when unknown. */
jv
nsjv(int64_t v)
{
	return v == UNSET ? jv_null() : jv_number((double)v);
}

/* A rank for the template's rname: its id (null when unknown) and profile. */
jv
rankjv(const struct rank *r)
{
	return JV_OBJECT(jv_string("rank"), r->rankid >= 0 ? jv_number(r->rankid) : jv_null(),
	    jv_string("profile"), jv_string(r->profile));
}

/*
 * A link destination for the template: every byte but [A-Za-z0-9/._~-]
 * percent-encoded here, since a path's bytes need not be UTF-8, which a
 * jq string would make them.
 */
jv
urljv(const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	struct buf b = {0};
	jv v;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    strchr("/._~-", *p))
			buf_addc(&b, (char)*p);
		else {
			buf_addc(&b, '%');
			buf_addc(&b, hex[*p >> 4]);
			buf_addc(&b, hex[*p & 15]);
		}
	buf_addc(&b, '\0');
	v = jv_string(b.p);
	free(b.p);
	return v;
}

/* What the report needs beyond the records: view.key = v. */
void
doc_view(const char *key, jv v)
{
	jv w = jv_object_get(jv_copy(doc), jv_string("view"));

	doc = jv_object_set(doc, jv_string("view"), jv_object_set(w, jv_string(key), v));
}

static void
put(jv s, void *arg)
{
	(void)arg;
	if (jv_get_kind(s) != JV_KIND_STRING)
		die("asc-cluster.jq: output is not text");
	fputs(jv_string_value(s), md);
	jv_free(s);
}

static void
run(jv in)
{
	char err[512];

	if (!prog)
		prog = jqprog_new("asc-cluster.jq", asc_cluster_jq);
	if (jqprog_run(prog, in, put, NULL, err, sizeof err) != 0)
		die("%s", err);
}

/* Write one section of the report from the records so far. */
void
mdsection(const char *section)
{
	if (md)
		run(jv_object_set(jv_copy(doc), jv_string("section"), jv_string(section)));
}

/* The report's last line, after every job: what made it. */
void
mdfoot(const char *version, const char *rules)
{
	if (md)
		run(JV_OBJECT(jv_string("section"), jv_string("foot"), jv_string("view"),
		    JV_OBJECT(jv_string("version"), jv_string(version), jv_string("rules_file"), jv_string(rules))));
}
