/*
 * spool: a record input that can be read twice.  asc-trace and asc-html
 * read a stream once to learn what the verdict picked (the drill-down
 * step, the wait anchors) and again for the kernels of that choice, so
 * that memory stays bounded by one step.  A regular file is read in
 * place; standard input or a pipe is first copied to an unlinked-on-exit
 * file under $TMPDIR.
 */
#ifndef ASC_SPOOL_H
#define ASC_SPOOL_H

/* A path that can be opened again; exits EX_SYS on a system error. */
const char	*spool(const char *path);
/* Remove the spool file, if one was made. */
void		 spool_done(void);

#endif
