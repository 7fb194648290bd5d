/* lib/rec: the record reader (lines, type, the whole-line scan with its
 * structural check and duplicate keys, field decoding) on any bytes, and rin_bulk's pass-through. */
#include "fuzz.h"
#include "rec.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("rec", data, size);
	static const char *keys[] = { "type", "profile", "start_ns", "dur_ns", "name", "src", "x" };
	struct rin *r;
	struct buf b = {0};
	FILE *null = fopen("/dev/null", "w");
	int k;

	if (null == NULL || (r = rin_new(path, 4096)) == NULL)
		abort();
	while ((k = rin_next(r)) != 0) {
		const char *t;
		size_t tn;

		if (k < 0)
			continue;
		if (rin_type(r, &t, &tn) == 0 && tn == 4 && memcmp(t, "host", 4) == 0) {
			rin_bulk(r, t, tn, null);
			continue;
		}
		if (rin_scan(r) != 0)
			continue;
		for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
			const struct rfield *f = rin_get(r, keys[i]);
			int64_t v;
			int bv;

			if (f == NULL)
				continue;
			(void)rf_isnull(f);
			(void)rf_i64(f, &v);
			(void)rf_bool(f, &bv);
			b.len = 0;
			(void)rf_str(f, &b);
		}
	}
	rin_free(r);
	buf_free(&b);
	fclose(null);
	return 0;
}
