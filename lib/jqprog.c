/* jqprog: run a jq program compiled into a filter. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jq.h>

#include "jqprog.h"
#include "rules.h"
#include "util.h"

struct jqprog {
	jq_state	*jq;
	const char	*name;
};

static void
compile_err(void *arg, jv msg)
{
	const char *name = arg;

	if (jv_get_kind(msg) == JV_KIND_STRING)
		warnmsg("%s: %s", name, jv_string_value(msg));
	jv_free(msg);
}

struct jqprog *
jqprog_new(const char *name, const char *text)
{
	struct jqprog *p = xcalloc(1, sizeof *p);
	jv args, rules;
	char *home;
	int ok;

	if ((p->jq = jq_init()) == NULL)
		die("out of memory");
	p->name = name;
	jq_set_error_cb(p->jq, compile_err, (void *)name);
	rules = jv_parse(rules_json());
	args = jv_object_set(jv_object(), jv_string("rules"), rules);
	/* libjq 1.6 binds the definitions of $HOME/.jq into every program
	 * it compiles, ahead of its builtins: a user's file would change
	 * the reports (a `def length` of its own).  The program is ours
	 * alone: compiled without HOME. */
	home = getenv("HOME");
	if (home) {
		home = xstrdup(home);
		unsetenv("HOME");
	}
	ok = jq_compile_args(p->jq, text, args);
	if (home) {
		setenv("HOME", home, 1);
		free(home);
	}
	if (!ok)
		die("%s: the built-in jq program does not compile", name);
	return p;
}

int
jqprog_run(struct jqprog *p, jv input, void (*out)(jv, void *), void *arg,
    char *err, size_t errlen)
{
	jv r;

	jq_start(p->jq, input, 0);
	while (jv_is_valid(r = jq_next(p->jq)))
		out(r, arg);
	if (jv_invalid_has_msg(jv_copy(r))) {
		jv m = jv_invalid_get_msg(r);
		jv s = jv_get_kind(m) == JV_KIND_STRING ? m : jv_dump_string(m, 0);

		snprintf(err, errlen, "%s: %s", p->name, jv_string_value(s));
		jv_free(s);
		return -1;
	}
	jv_free(r);
	return 0;
}

void
jqprog_free(struct jqprog *p)
{
	if (p) {
		jq_teardown(&p->jq);
		free(p);
	}
}
