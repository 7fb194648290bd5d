/*
 * rules: the one rules file.  Thresholds and name patterns (marker
 * families, FIA and MoE names, op-name normalisation, PMU limits) live in
 * lib/rules.json, compiled into every filter as the defaults.  A user file
 * given with -r (or $ASC_RULES) is merged over them key by key, so it
 * needs only the values it changes.  Keys are dotted paths:
 * "bubbles.min_bubble_us".  Patterns are fnmatch(3) globs.
 */
#ifndef ASC_RULES_H
#define ASC_RULES_H

#include <stdint.h>

/* Load the defaults, then path if not NULL (else $ASC_RULES if set).
 * A missing or invalid file, or a key of the wrong kind, exits EX_SYS. */
void		 rules_load(const char *path);
/* A number, string, or NULL-terminated list of strings by dotted path;
 * a missing key is a program error and exits EX_SYS naming it. */
double		 rules_num(const char *key);
/* A duration of the rules in integer ns, rounded once, the same way in
 * every filter: rules_ns("bubbles.min_bubble_us", 1e3). */
int64_t		 rules_ns(const char *key, double unit_ns);
const char	*rules_str(const char *key);
const char	*const *rules_list(const char *key);
/* Does name match any glob of the list at key? */
int		 rules_match(const char *key, const char *name);
/* The merged rules as one line of JSON (for provenance in outputs). */
const char	*rules_json(void);

#endif
