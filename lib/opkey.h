/*
 * opkey: what asc-segment and asc-ops share about ops: the op key (the
 * kernel name without its instance suffix, by the rules regex
 * "ops.name_strip_regex"), the task-type classes of the rules
 * ("ops.compute_task_types", "ops.comm_task_types",
 * "ops.aicpu_task_types").  Its users hash with intern.h's fnv().
 */
#ifndef ASC_OPKEY_H
#define ASC_OPKEY_H

#include <stddef.h>
#include <stdint.h>

#include "intern.h"
#include "util.h"

/* Compile the regex (after rules_load); a bad regex exits EX_SYS. */
void	opkey_init(void);

/*
 * Append the key of name[0..n) (NUL-terminated at n) to out: the name
 * with the first match of the regex removed; the name itself when
 * nothing matches or nothing would be left.
 */
void	opkey(const char *name, size_t n, struct buf *out);

enum { TT_UNKNOWN, TT_COMPUTE, TT_COMM, TT_AICPU, TT_OTHER };
/* Class of a task type (unescaped; NULL, "" or "N/A": TT_UNKNOWN). */
int	tt_class(const char *tt);
const char *tt_classname(int);

#endif
