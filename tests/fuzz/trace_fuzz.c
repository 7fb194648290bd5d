/* lib/ingest/trace (tokenizer, events, sorts): a trace_view.json of any
 * bytes read and its markers, kernels and host events written; once as
 * is, once with -k's skipping of bad events. */
#include "fuzz.h"
#include "trace.h"

static void
bad(const char *msg)
{
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("trace_view.json", data, size);
	FILE *null = fopen("/dev/null", "w");

	if (null == NULL)
		abort();
	for (int k = 0; k < 2; k++) {
		struct trace_opts o = { .display = "trace_view.json", .run_bytes = 1024,
		    .bad = k ? bad : NULL };
		struct trace *t = trace_open(path, &o);

		if (t == NULL)
			abort();
		if (trace_read(t) == 0) {
			int64_t origin = trace_span(t)->min_ts;

			if (origin == INT64_MAX)
				origin = 0;
			trace_put_markers(t, null, "p", origin);
			trace_put_kernels(t, null, "p", origin);
			trace_put_host(t, null, "p", origin);
		}
		trace_close(t);
	}
	fclose(null);
	return 0;
}
