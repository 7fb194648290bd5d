/*
 * filter: the skeleton of a stage.  main() takes the options common to
 * the stages with filter_getopt(), fills a struct filter with designated
 * initialisers (each field below says what it does; a field left out is
 * off) and hands its inputs to filter_main() (the rules, the run, stdout
 * closed) or filter_run(), which reads the records of every file (none:
 * stdin) in order and calls the stage back.
 *
 * The loop prints a bad record as FILE:LINE: err and stops, or with -k
 * skips it; it drops the records the stage writes itself (a rerun
 * replaces them, never appends); it can do a profile's bookkeeping (the
 * stream protocol of steprec.h) and gather a whole profile (gather.h) for
 * the stages that judge or render one.
 */
#ifndef ASC_FILTER_H
#define ASC_FILTER_H

#include <getopt.h>

#include "gather.h"
#include "rec.h"
#include "steprec.h"

/*
 * The options of every stage: -k (go on past bad records), -m maxline
 * (the longest line, in bytes), -r rules.  filter_getopt() is getopt(3)
 * over the common letters and the stage's own (own, spelled as for
 * getopt): it takes the common ones into *o, and the own letters of
 * o->args and o->flags, and returns the stage's other letters, -1 at the end; an
 * unknown letter prints the usage (filter_usage).  Its first call also
 * names the program (progname) and answers --version.
 */

/* An own letter whose argument the stage keeps as given: *to = optarg. */
struct filter_arg {
	int		 letter;
	const char	**to;
};
/* An own letter without an argument that turns a switch on: *to = 1. */
struct filter_flag {
	int		 letter;
	int		*to;
};

struct filter_opts {
	size_t		 maxline;
	int		 kflag;
	const char	*rules;		/* NULL: the rules built in */
	const char	*common;	/* the common letters taken (NULL: "km:r:") */
	const struct option *longopts;	/* NULL: none; else as getopt_long(3) */
	const struct filter_arg *args;	/* ended by letter 0; NULL: none */
	const struct filter_flag *flags; /* ended by letter 0; NULL: none */
	const char	*usage;		/* the synopsis after the program's name */
};
#define FILTER_MAXLINE		((size_t)1 << 28)	/* -m by default */
/*
 * A stage's options: the -m default, the synopsis, then any other fields
 * as designated initialisers, e.g.
 * FILTER_OPTS("[-k] [-a pattern] ...", .args = FILTER_ARGS({ .letter = 'a', .to = &annot })).
 */
#define FILTER_OPTS(...)	{ .maxline = FILTER_MAXLINE, .usage = __VA_ARGS__ }
/* The tables of .args and .flags, their entries given, their end added. */
#define FILTER_ARGS(...)	((const struct filter_arg[]){ __VA_ARGS__, { .letter = 0 } })
#define FILTER_FLAGS(...)	((const struct filter_flag[]){ __VA_ARGS__, { .letter = 0 } })
int	filter_getopt(int argc, char *argv[], const char *own, struct filter_opts *o);
/* The one operand after the options ("-" when none); two: the usage. */
const char *filter_operand(int argc, char *argv[], const struct filter_opts *o);
/* "usage: PROG SYNOPSIS" on stderr; exits EX_SYS. */
void	filter_usage(const struct filter_opts *o) __attribute__((noreturn));

/* A record type and the stage's function for its records. */
struct filter_on {
	const char *type;
	int	(*rec)(struct rin *r);
};
/* The table of .on, its entries given, its end added. */
#define FILTER_ON(...)	((const struct filter_on[]){ __VA_ARGS__, { .type = NULL } })
/* The types of .own, their end added: FILTER_OWN("op", "op_summary"). */
#define FILTER_OWN(...)	((const char *const[]){ __VA_ARGS__, NULL })

struct filter {
	/*
	 * Every record but the stage's own, with its "type" (tlen bytes, not
	 * NUL-terminated).  Returns 0, or -1 with r's error set.
	 * The stage passes the records on itself (sr_pass).  NULL: they
	 * pass on unchanged.
	 */
	int	(*rec)(struct rin *r, const char *type, size_t tlen, void *arg);
	/*
	 * on: the types a stage reads with a function of their own, ended
	 * by a NULL type; such a record goes to its entry's rec() (as
	 * above) instead of the stage's.  Not in gather mode.
	 */
	const struct filter_on *on;
	/* After the last record of the last file; not after a stop. */
	void	(*end)(void);
	void	 *arg;		/* given to the callbacks that take one */
	/*
	 * bulk: a record type that rec() passes unchanged (bulk_drop: drops)
	 * from its second consecutive record on; the loop then moves such
	 * runs without calling rec() (rin_bulk).
	 */
	const char *bulk;
	int	 bulk_drop;
	/*
	 * own: the record types this stage writes, NULL-terminated (FILTER_OWN
	 * ends the list; "x_*":
	 * every type that starts with x_).  Such records in the input come
	 * from an earlier run of the stage and are dropped before rec() sees
	 * them.
	 */
	const char *const *own;
	/*
	 * open: opens file as rin_new() does (NULL: rin_new) and may name
	 * it or copy it aside (a spool); the reader, or NULL with errno set.
	 * close: frees it when the loop is done with it, stopped or not
	 * (NULL: rin_free).
	 */
	struct rin *(*open)(const char *file, size_t maxline, void *arg);
	void	(*close)(struct rin *r, void *arg);
	/*
	 * stop: a callback that sets *stop ends the loop after the record it
	 * is given, -k or not (a second profile in a one-profile output); as
	 * after a bad record without -k, nothing more is called.
	 */
	int	*stop;
	/* stdout_asis: standard output keeps its buffer (the stage wrote to
	 * it already, or writes elsewhere); else the loop makes it 1 MiB. */
	int	 stdout_asis;

	/*
	 * A profile's bookkeeping (when sect is set).  At a "profile" record,
	 * before rec() sees it: the record is scanned (bad: -1), the previous
	 * profile closed by profile_end(r), its counts compared when check
	 * holds SR_CHECK_* (sr_sect_end), sect restarted on it
	 * (sr_sect_profile), its "profile" value (raw JSON, null when
	 * missing) copied into *prof when prof is set, and profile(r) called
	 * (0, or -1 with r's error set).  After the last record (not after a
	 * stop): profile_end(NULL) and the counts, before end().
	 */
	struct sr_sect *sect;
	int	 check;
	struct buf *prof;
	void	(*profile_end)(struct rin *r, void *arg);
	int	(*profile)(struct rin *r, void *arg);
	/*
	 * sect_host: the loop, not the stage, follows the host section: it
	 * counts each "host" record (sr_sect_host) and calls kernels_end,
	 * when set, at a profile's first one, before the section turns to
	 * the host events and before rec() sees it: the profile's kernels
	 * and steps are complete and the stage writes what it found.
	 */
	int	 sect_host;
	void	(*kernels_end)(void);

	/*
	 * Gather mode (when gather is set): the records of one profile are
	 * kept by type in gather, from its "profile" record (type index 0)
	 * on, and whole(gather) gets them at the next "profile" record and
	 * after the last record (not after a stop).  profile(r), when set,
	 * is called at each "profile" record after whole(); rec(), when
	 * set, sees each record before it is passed on or kept and may refuse
	 * it (-1: neither).  Records before the first profile are not kept.
	 *
	 * gather_pass: every record is passed on unchanged (else none is).
	 * gather_as: the type index a record is kept as (NULL: its type's,
	 * gather_index()); -1: not kept, nor the rest of its run, which is
	 * passed or skipped unread; FILTER_ONE: this record is not kept,
	 * the next of its type may be.
	 */
	struct gather *gather;
	int	 gather_pass;
	int	(*gather_as)(const struct rin *r, const char *type, size_t tlen, void *arg);
	void	(*whole)(struct gather *g, void *arg);
};
#define FILTER_ONE	(-2)

/*
 * The bookkeeping of a stage that reads each profile section by section
 * (steprec.h) and passes on its host events, the last section, unread:
 * its section sect, where the profile's "profile" value goes (prof, NULL:
 * not kept), its calls at a profile's end and start and at the end of
 * its kernels (NULL: none).  The fields of its struct filter, as
 * designated initialisers.
 */
#define FILTER_SECTIONS(sect_, prof_, end_, start_, kernels_end_) \
	.bulk = "host", .sect = (sect_), .prof = (prof_), \
	.profile_end = (end_), .profile = (start_), \
	.sect_host = 1, .kernels_end = (kernels_end_)

/* Returns EX_OK or EX_DATA; an unreadable file exits EX_SYS. */
int	filter_run(int nfiles, char **files, const struct filter_opts *o,
	    const struct filter *f);
/*
 * The rest of a main() after filter_getopt(): the rules loaded when the
 * stage takes -r (o->rules; nothing when the stage loaded them already to
 * read its thresholds), the
 * operands after the options (argv[optind..]) run by filter_run(), and
 * standard output closed.  Returns filter_run()'s status.
 */
int	filter_main(int argc, char *argv[], const struct filter_opts *o,
	    const struct filter *f);

#endif
