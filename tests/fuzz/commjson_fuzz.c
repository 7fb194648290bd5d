/* lib/ingest/commjson: the streaming reader of communication.json, and
 * the comm record of every op it gives. */
#include "fuzz.h"
#include "commjson.h"

static int
op(const struct cjop *o, void *arg)
{
	struct buf *b = arg;
	struct cjrec r = {
		.kind = o->kind, .kindlen = o->kindlen, .op = o->key, .oplen = o->keylen,
		.elapse_ms = o->elapse_ms, .transit_ms = o->transit_ms, .wait_ms = o->wait_ms,
		.sync_ms = o->sync_ms, .idle_ms = o->idle_ms, .wait_ratio = o->wait_ratio,
		.sync_ratio = o->sync_ratio, .ntransport = o->has_bw ? o->ntransport : 0,
		.transport = o->transport
	};

	if (o->step)
		r.step = cj_step(o->step, o->steplen, &r.steplen);
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
