/*
 * spool: a record input that can be read twice.  asc-trace and asc-html
 * read a stream once to learn what the verdict picked (the drill-down
 * step, the wait anchors) and again for the kernels of that choice, so
 * that memory stays bounded by one step.  A regular file is read in
 * place; standard input or a pipe is first copied to an unlinked-on-exit
 * file under $TMPDIR (spool), or copied as the first pass reads it
 * (spool_open), to a file of the caller's when it names one.
 */
#ifndef ASC_SPOOL_H
#define ASC_SPOOL_H

#include "rec.h"

/* A path that can be opened again; exits EX_SYS on a system error. */
const char	*spool(const char *path);
/*
 * Open path ("-": standard input) for the first pass.  A regular file,
 * when keep is NULL, is read in place; anything else is copied block by
 * block as it is read, to keep (created or truncated, and kept) or to a
 * spool file.
 */
struct rin	*spool_open(const char *path, const char *keep);
/*
 * After the first pass, wherever it stopped: the rest of the input
 * copied, r freed; the path the second pass reads.
 */
const char	*spool_again(struct rin *r, const char *path);
/* Remove the spool file, if one was made. */
void		 spool_done(void);

#endif
