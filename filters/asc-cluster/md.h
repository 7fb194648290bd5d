/*
 * md: names are data in the Markdown reports.  A profile, kernel, op,
 * group or path name is written so that a Markdown viewer shows it as it
 * is, whatever bytes it holds: no HTML, link, emphasis or line break comes
 * from it.  Control characters are shown as \n, \r, \t or \xHH.
 */
#ifndef ASC_MD_H
#define ASC_MD_H

#include "util.h"

/* Text: Markdown punctuation backslash-escaped, < > & as entities; in a
 * table cell (cell != 0) '|' as well. */
void	 md_text(struct buf *b, const char *s, int cell);
/* A code span whose fence is longer than any run of backticks in s. */
void	 md_code(struct buf *b, const char *s, int cell);
/* Inside a fenced code block: control characters shown, the rest as is
 * (a line that holds more than the name cannot close the fence). */
void	 md_verbatim(struct buf *b, const char *s);
/* A link destination: every byte but [A-Za-z0-9/._~-] percent-encoded. */
void	 md_url(struct buf *b, const char *s);

/* The same for printf arguments: one of 16 buffers in turn, valid until
 * 16 more calls. */
const char *mdt(const char *s, int cell);
const char *mdc(const char *s, int cell);
const char *mdu(const char *s);
const char *mdv(const char *s);

#endif
