/*
 * meta: profiler_metadata.json, torch_npu's file beside the export, read
 * into the profile's one "metadata" record (schemas/metadata.schema.json):
 * the parallel groups of parallel_group_info, in file order, with their
 * names, this rank's place and the global ranks.  asc-ingest alone opens
 * the file; asc-fia and asc-comm read the record.
 */
#ifndef ASC_META_H
#define ASC_META_H

#include "tables.h"
#include "util.h"

/*
 * Read dir/profiler_metadata.json into rec (emptied first) as the
 * metadata record of profile.  A missing file, or one without
 * parallel_group_info, is no error: the record says so in "note".  A
 * malformed one (invalid JSON, or a group not as torch_npu writes it)
 * goes to tc->bad() as FILE:LINE: MESSAGE; if that returns (-k), the
 * record says the file was not used.
 */
void	meta_read(const struct tab_ctx *tc, const char *dir, const char *profile, struct buf *rec);

#endif
