/*
 * partops: the kernels of each model part of asc-parts summed by op, so
 * that asc-diff can key its comparison by part, then op.
 */
#ifndef ASC_DIFF_PARTOPS_H
#define ASC_DIFF_PARTOPS_H

#include <jv.h>

/*
 * The kernels of the records file path that fall in the parts (an array
 * of "part" records; consumed), summed per step, part and op (the op
 * key of asc-ops): [{step_id, part, op, op_type, calls, dur_ns,
 * wait_ns}].  opkey_init() first.  Exits on a read error or bad line.
 */
jv	partops(const char *path, jv parts);

#endif
