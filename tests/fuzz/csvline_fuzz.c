/* lib/ingest/csvline: every record of any byte string, fields within the
 * record, and csv_seek back to a record giving it again. */
#include "fuzz.h"
#include "csvline.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file("csv", data, size);
	struct csvin c;
	unsigned long long off2 = 0;
	unsigned long line2 = 0;
	int r, nf2 = -1, n = 0;

	if (csv_open(&c, path) != 0)
		return 0;
	while ((r = csv_next(&c)) != 0) {
		if (r < 0)
			continue;
		for (int i = 0; i < c.nf; i++) {
			size_t len;
			const char *f = csv_field(&c, i, &len);

			if (f[len] != '\0')
				abort();
		}
		if (++n == 2) {
			off2 = c.recoff;
			line2 = c.recline;
			nf2 = c.nf;
		}
	}
	if (nf2 >= 0 && csv_seek(&c, off2, line2) == 0) {
		if (csv_next(&c) != 1 || c.nf != nf2 || c.recline != line2)
			abort();
	}
	csv_close(&c);
	return 0;
}
