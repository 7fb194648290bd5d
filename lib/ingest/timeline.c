/*
 * timeline: the parts of the timeline reader compiled as one unit, so
 * that the per-event path (read loop -> tokenizer -> events -> spill) is
 * inlined across them as it was when they were one file (with psep
 * inlined by force: 39.2 M instructions on AlexNet's trace as six
 * units, 38.1 M so, 37.4 M before the cut).  Each part stays a file of its own, with
 * its own job, and compiles on its own as well.
 */
#include "msg.c"
#include "readrules.c"
#include "trace.c"
#include "json.c"
#include "runs.c"
#include "events.c"
#include "split.c"
#include "put.c"
#include "devtask.c"
#include "hwwait.c"
