/* lib/ingest/dbread: a mutated SQLite export opened and every record
 * kind written (to /dev/null); bad rows go to a callback (-k). */
#include "fuzz.h"
#include "dbread.h"

static void
bad(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("ascend_pytorch_profiler_0.db", data, size);
	struct db_opts o = { .display = "db", .python = "Python", .bad = bad };
	struct dbread *d;
	struct buf b = {0};
	char err[1200];
	FILE *null = fopen("/dev/null", "w");
	int from;

	if (null == NULL)
		abort();
	if ((d = db_open(path, &o, err, sizeof err)) != NULL) {
		int64_t origin = db_min_ts(d, &from);

		if (origin == INT64_MAX)
			origin = 0;
		(void)db_steptrace(d, "p", &b);
		if (db_comm_scan(d) == 0)
			(void)db_put_comm(d, null, "p", origin);
		(void)db_put_markers(d, null, "p", origin);
		(void)db_put_kernels(d, null, "p", origin);
		(void)db_put_host(d, null, "p", origin);
		db_close(d);
	}
	buf_free(&b);
	fclose(null);
	return 0;
}
