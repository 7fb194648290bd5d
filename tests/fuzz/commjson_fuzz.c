/* lib/ingest/commjson: the streaming reader of communication.json, and
 * the comm record of every op it gives. */
#include "fuzz.h"
#include "commjson.h"

static int
op(const struct cjop *o, void *arg)
{
	struct buf *b = arg;
	struct cjrec r;

	cj_oprec(o, &r);
	cj_putrec(b, "p", "communication.json", &r);
	if (b->len == 0 || b->p[b->len - 1] != '\n')
		abort();
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("comm.json", data, size);
	struct buf b = {0};
	char err[256];

	(void)cj_read(path, op, &b, err, sizeof err);
	buf_free(&b);
	return 0;
}
