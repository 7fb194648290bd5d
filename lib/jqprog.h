/*
 * jqprog: run a jq program compiled into a filter.  asc-judge's decision
 * tables and asc-report's Markdown templates are jq programs (the .jq files
 * beside them in filters/, built into the binaries), run by libjq over the few records a profile
 * has at that level (steps, bubbles, ops), with $rules bound to the merged
 * rules file.  Consumes its input jv; outputs go to the callback, which
 * owns them.
 */
#ifndef ASC_JQPROG_H
#define ASC_JQPROG_H

#include <stddef.h>

#include <jv.h>

struct jqprog;

/* Compile text (name for messages); a compile error exits EX_SYS. */
struct jqprog	*jqprog_new(const char *name, const char *text);
/* Run on input; 0, or -1 with a runtime error message in err. */
int		 jqprog_run(struct jqprog *, jv input,
		    void (*out)(jv, void *), void *arg, char *err, size_t errlen);
void		 jqprog_free(struct jqprog *);

#endif
