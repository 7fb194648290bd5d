/* cell: the cell writers and messages of the table readers. */
#include <stdint.h>
#include <string.h>

#include "cell.h"
#include "dec.h"
#include "rec.h"

int
cell_digits(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return 0;
	return 1;
}

int
cell_int(const char *s, size_t n, int64_t *v)
{
	cell_trim(&s, &n);
	if (dec_parse(s, n, 0, v) != 0 ||
	    !cell_digits(s[0] == '-' ? s + 1 : s, s[0] == '-' ? n - 1 : n))
		return -1;
	return 0;
}

/* Integer cell: N/A, empty and UINT32_MAX ("invalid") are null. */
void
cell_putint(struct buf *b, const char *key, const char *s, size_t n)
{
	int64_t v;

	cell_trim(&s, &n);
	if (cell_isnull(s, n) || (n == 10 && memcmp(s, "4294967295", 10) == 0) ||
	    cell_int(s, n, &v) != 0)
		out_null(b, key);
	else
		out_i64(b, key, v);
}

/* Text cell; unquote: strip one literal pair of quotes (shapes). */
void
cell_putstr(struct buf *b, const char *key, const char *s, size_t n, int unquote)
{
	cell_trim(&s, &n);
	if (cell_isnulltext(s, n)) {
		out_null(b, key);
		return;
	}
	/* msprof wraps shapes in one literal pair of quotes. */
	if (unquote && n >= 2 && s[0] == '"' && s[n - 1] == '"')
		s++, n -= 2;
	out_str(b, key, s, n);
}

/* Number cell: a JSON number as written, else a string. */
void
cell_putnum(struct buf *b, const char *key, const char *s, size_t n)
{
	cell_trim(&s, &n);
	if (cell_isnull(s, n))
		out_null(b, key);
	else if (cell_isnum(s, n))
		out_raw(b, key, s, n);
	else
		out_str(b, key, s, n);
}

const char *
cell_snip(const char *s, size_t n)
{
	static char b[48];
	size_t i, j = 0;

	for (i = 0; i < n && j < 32; i++)
		b[j++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
	if (i < n) {
		memcpy(b + j, "...", 3);
		j += 3;
	}
	b[j] = '\0';
	return b;
}
