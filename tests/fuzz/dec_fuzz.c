/* lib/dec: parsing decimal text at every scale; what parses prints back
 * (dec_fmt) as text that parses to the same value. */
#include "fuzz.h"
#include "dec.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int64_t v, w, num, den;
	char buf[64];
	int scale;

	if (size == 0)
		return 0;
	scale = data[0] % 10;
	data++, size--;
	(void)dec_isnull((const char *)data, size);
	(void)dec_us2ns((const char *)data, size, &v);
	if (dec_parse((const char *)data, size, scale, &v) == 0) {
		int n = dec_fmt(buf, v, scale);

		if (dec_parse(buf, (size_t)n, scale, &w) != 0 || w != v)
			abort();
	}
	if (size >= 16) {
		memcpy(&num, data, 8);
		memcpy(&den, data + 8, 8);
		if (den > 0)
			(void)dec_ratio(buf, num, den);
	}
	return 0;
}
