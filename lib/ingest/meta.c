/* meta: profiler_metadata.json into the profile's "metadata" record. */
#define _GNU_SOURCE		/* memmem */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jv.h>

#include "meta.h"
#include "rec.h"

#define MFILE	"profiler_metadata.json"

/* Line (from 1) of byte off of t. */
static unsigned long
lineat(const char *t, size_t off)
{
	unsigned long line = 1;

	for (size_t i = 0; i < off; i++)
		line += t[i] == '\n';
	return line;
}

/* Line of the first byte that is not blank from the end (last), or from
 * the start. */
static unsigned long
blankline(const struct buf *t, int last)
{
	size_t i;

	if (last) {
		for (i = t->len; i > 0 && strchr(" \t\r\n", t->p[i - 1]); i--)
			;
		return lineat(t->p, i ? i - 1 : 0);
	}
	for (i = 0; i < t->len && strchr(" \t\r\n", t->p[i]); i++)
		;
	return lineat(t->p, i);
}

/* Line where key k is written after byte from, or where from is: libjq
 * keeps no places, so the key's JSON text is looked for. */
static unsigned long
keyline(const struct buf *t, size_t from, jv k)
{
	jv s = jv_dump_string(k, 0);
	const char *q = jv_string_value(s), *at = memmem(t->p + from, t->len - from, q, strlen(q));
	unsigned long line = lineat(t->p, at ? (size_t)(at - t->p) : from);

	jv_free(s);
	return line;
}

/* A JSON number that is a whole number from 0 to 2^53. */
static int
isrank(jv v)
{
	double d;

	if (jv_get_kind(v) != JV_KIND_NUMBER)
		return 0;
	d = jv_number_value(v);
	return d >= 0 && d <= 9007199254740992.0 && d == floor(d);
}

/* What is wrong with group g as torch_npu writes it, or NULL. */
static const char *
badgroup(jv g)
{
	jv v;
	int bad = 0;

	if (jv_get_kind(g) != JV_KIND_OBJECT)
		return "not an object";
	v = jv_object_get(jv_copy(g), jv_string("group_name"));
	bad = jv_get_kind(v) != JV_KIND_STRING;
	jv_free(v);
	if (bad)
		return "\"group_name\" is not a string";
	v = jv_object_get(jv_copy(g), jv_string("global_ranks"));
	bad = jv_get_kind(v) != JV_KIND_ARRAY;
	for (int i = 0; !bad && i < jv_array_length(jv_copy(v)); i++) {
		jv r = jv_array_get(jv_copy(v), i);

		bad = !isrank(r);
		jv_free(r);
	}
	jv_free(v);
	if (bad)
		return "\"global_ranks\" is not an array of ranks (whole numbers from 0)";
	v = jv_object_get(jv_copy(g), jv_string("group_rank"));
	bad = jv_get_kind(v) != JV_KIND_INVALID && jv_get_kind(v) != JV_KIND_NULL && !isrank(v);
	jv_free(v);
	return bad ? "\"group_rank\" is not a whole number from 0" : NULL;
}

/* One group of the record: {"key","name","group_rank","global_ranks"}. */
static void
putgroup(struct buf *b, jv k, jv g)
{
	jv n = jv_object_get(jv_copy(g), jv_string("group_name"));
	jv rk = jv_object_get(jv_copy(g), jv_string("group_rank"));
	jv gr = jv_object_get(jv_copy(g), jv_string("global_ranks"));

	buf_adds(b, "{\"key\":");
	out_esc(b, jv_string_value(k), (size_t)jv_string_length_bytes(jv_copy(k)));
	out_str(b, "name", jv_string_value(n), (size_t)jv_string_length_bytes(jv_copy(n)));
	if (jv_get_kind(rk) == JV_KIND_NUMBER)
		out_i64(b, "group_rank", (int64_t)jv_number_value(rk));
	else
		out_null(b, "group_rank");
	out_key(b, "global_ranks");
	buf_addc(b, '[');
	for (int i = 0; i < jv_array_length(jv_copy(gr)); i++) {
		jv r = jv_array_get(jv_copy(gr), i);

		if (i)
			buf_addc(b, ',');
		out_int(b, (int64_t)jv_number_value(r));
		jv_free(r);
	}
	buf_adds(b, "]}");
	jv_free(n);
	jv_free(rk);
	jv_free(gr);
}

/* The file's bytes into t: 0, or -1 when there is no such file.  As the
 * profile's other files: stat first, never open a FIFO (it would wait
 * for a writer). */
static int
slurp(const char *path, struct buf *t)
{
	struct stat st;
	FILE *fp;
	char chunk[65536];
	size_t n;

	if (stat(path, &st) != 0 && errno == ENOENT)
		return -1;
	if (stat(path, &st) != 0)
		dieerr("%s", path);
	if (!S_ISREG(st.st_mode))
		die("%s: %s, not a regular file", path, S_ISDIR(st.st_mode) ? "a directory" :
		    S_ISFIFO(st.st_mode) ? "a FIFO" : "a special file");
	if ((fp = fopen(path, "r")) == NULL)
		dieerr("%s", path);
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(t, chunk, n);
	if (ferror(fp))
		dieerr("%s", path);
	fclose(fp);
	return 0;
}

/* The parsed file, or invalid with *line and msg set: libjq's message
 * without the text it quotes, its line from "at line N". */
static jv
parse(const struct buf *t, unsigned long *line, char *msg, size_t nmsg)
{
	jv v = t->len == 0 ? jv_invalid_with_msg(jv_string("empty file")) :
	    t->len > INT_MAX / 2 ? jv_invalid_with_msg(jv_string("over 1 GiB: not a metadata file")) :
	    jv_parse_sized(t->p, (int)t->len);
	jv m;
	const char *s, *cut, *at;

	if (jv_is_valid(v))
		return v;
	m = jv_invalid_get_msg(v);
	s = jv_get_kind(m) == JV_KIND_STRING ? jv_string_value(m) : "invalid JSON";
	cut = strstr(s, " (while parsing");
	snprintf(msg, nmsg, "%.*s", cut ? (int)(cut - s) : (int)strlen(s), s);
	if ((at = strstr(msg, " at line ")) != NULL) {
		*line = strtoul(at + 9, NULL, 10);
		msg[at - msg] = '\0';
	} else	/* empty, or a second JSON text after the first */
		*line = blankline(t, 1);
	jv_free(m);
	return jv_invalid();
}

/* The groups of parallel_group_info pg into b, or a message on what is
 * wrong and its *line. */
static const char *
putgroups(struct buf *b, const struct buf *t, size_t from, jv pg, unsigned long *line,
    char *msg, size_t nmsg)
{
	const char *why = NULL;
	int n = 0;

	jv_object_foreach(pg, k, v) {
		if (why == NULL && (why = badgroup(v)) != NULL) {
			jv q = jv_dump_string(jv_copy(k), 0);

			*line = keyline(t, from, jv_copy(k));
			snprintf(msg, nmsg, "group %s: %s", jv_string_value(q), why);
			why = msg;
			jv_free(q);
		}
		if (why == NULL) {
			if (n++)
				buf_addc(b, ',');
			putgroup(b, k, v);
		}
		jv_free(k);
		jv_free(v);
	}
	return why;
}

void
meta_read(const struct tab_ctx *tc, const char *dir, const char *profile, struct buf *rec)
{
	struct buf path = {0}, t = {0}, g = {0};
	unsigned long line = 1;
	const char *why = NULL, *note = NULL, *pgat;
	char msg[512];
	jv doc, pg = jv_invalid();

	buf_adds(&path, dir ? dir : ".");
	buf_adds(&path, "/" MFILE);
	rec->len = 0;
	out_begin(rec, "metadata");
	out_cstr(rec, "profile", profile);
	if (dir == NULL || slurp(path.p, &t) != 0) {
		out_null(rec, "file");
		out_cstr(rec, "note", "no " MFILE " in the profile's directory: no parallel_group_info");
		out_null(rec, "groups");
		buf_free(&path);
		return;
	}
	doc = parse(&t, &line, msg, sizeof msg);
	if (!jv_is_valid(doc))
		why = msg;
	else if (jv_get_kind(doc) != JV_KIND_OBJECT) {
		why = "the top level is not an object";
		line = blankline(&t, 0);
	} else {
		pg = jv_object_get(jv_copy(doc), jv_string("parallel_group_info"));
		pgat = memmem(t.p, t.len, "\"parallel_group_info\"", 21);
		line = lineat(t.p, pgat ? (size_t)(pgat - t.p) : 0);
		if (jv_get_kind(pg) == JV_KIND_INVALID)
			note = "no parallel_group_info in " MFILE;
		else if (jv_get_kind(pg) != JV_KIND_OBJECT)
			why = "\"parallel_group_info\" is not an object";
		else {
			buf_addc(&g, '[');
			why = putgroups(&g, &t, pgat ? (size_t)(pgat - t.p) : 0, pg, &line, msg, sizeof msg);
			buf_addc(&g, ']');
		}
	}
	if (why != NULL) {
		char m[1024];

		snprintf(m, sizeof m, "%s:%lu: %s", path.p, line, why);
		tc->bad(m);	/* returns with -k */
		snprintf(m, sizeof m, MFILE ":%lu: %s: not used", line, why);
		g.len = 0;
		note = NULL;
		out_cstr(rec, "file", MFILE);
		out_cstr(rec, "note", m);
	} else {
		out_cstr(rec, "file", MFILE);
		out_cstr(rec, "note", note);
	}
	out_key(rec, "groups");
	if (g.len)
		buf_add(rec, g.p, g.len);
	else
		buf_adds(rec, "null");
	jv_free(pg);
	jv_free(doc);
	buf_free(&g);
	buf_free(&t);
	buf_free(&path);
}
