/* rec_jq: the record reader's fallback to libjq, for lines the fast scan
 * does not handle (escaped keys, libjq's leniencies). */
#include <stdio.h>
#include <string.h>

#include <jv.h>

#include "rec.h"
#include "rec_int.h"

/* Parse with libjq; on success r->norm holds the compact form. */
int
rec_jvnorm(struct rin *r)
{
	jv v = jv_parse_sized(r->line, (int)r->len);

	if (!jv_is_valid(v)) {
		jv m = jv_invalid_get_msg(v);
		const char *s = jv_get_kind(m) == JV_KIND_STRING ?
		    jv_string_value(m) : "invalid JSON";
		const char *cut = strstr(s, " (while parsing");

		rin_error(r, "invalid JSON: %.*s",
		    cut ? (int)(cut - s) : (int)strlen(s), s);
		jv_free(m);
		return -1;
	}
	if (jv_get_kind(v) != JV_KIND_OBJECT) {
		rin_error(r, "record is a %s, not an object",
		    jv_kind_name(jv_get_kind(v)));
		jv_free(v);
		return -1;
	}
	jv d = jv_dump_string(v, 0);

	r->norm.len = 0;
	buf_add(&r->norm, jv_string_value(d), (size_t)jv_string_length_bytes(jv_copy(d)));
	jv_free(d);
	return 0;
}
