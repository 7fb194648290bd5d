/*
 * tables: the small files of a text export, beside its events:
 * step_trace_time.csv and op_statistic*.csv ("step_trace" and "op_stat"
 * records, buffered in out to be written after the markers),
 * communication.json ("comm" records, read twice: checked and counted
 * first, written later) and profiler_info*.json (the profile record's
 * config).  A bad file is said in a warning and not used; a bad row goes
 * to bad().
 */
#ifndef ASC_TABLES_H
#define ASC_TABLES_H

#include <stdint.h>

#include "source.h"
#include "util.h"

struct tab_ctx {
	void		(*bad)(const char *msg);
	void		(*warn)(const char *code, const char *msg);
	struct buf	*out;
};

void	tab_steptrace(const struct tab_ctx *, struct src_file *, const char *profile);
/* The op_stat records; the sum of the rows' Count cells, or -1 when the
 * file has no Count column or a row without one. */
int64_t	tab_opstat(const struct tab_ctx *, struct src_file *, const char *profile);
/* Check and count; *origin, if INT64_MAX, becomes the first op start. */
void	tab_comm_read(const struct tab_ctx *, struct src_file *, int64_t *origin);
/* The comm records of a file tab_comm_read() accepted, to stdout. */
void	tab_comm_put(const struct src_file *, const char *profile, int64_t origin);
/* communication_matrix.json: check and count its links, then write each
 * as a "comm_link" record to stdout. */
void	tab_commx_read(const struct tab_ctx *, struct src_file *);
void	tab_commx_put(const struct src_file *, const char *profile);
/* The config object text into cfg, the profiler level into *level. */
void	tab_info(const struct tab_ctx *, struct src_file *, struct buf *cfg, char **level);

#endif
