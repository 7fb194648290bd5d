/* md: names as data in Markdown (see md.h). */
#include <string.h>

#include "md.h"

static const char hex[] = "0123456789abcdef", HEX[] = "0123456789ABCDEF";

/* A control character as visible text: \n, \r, \t or \xHH. */
static void
visible(struct buf *b, unsigned char c)
{
	buf_addc(b, '\\');
	if (c == '\n')
		buf_addc(b, 'n');
	else if (c == '\r')
		buf_addc(b, 'r');
	else if (c == '\t')
		buf_addc(b, 't');
	else {
		buf_addc(b, 'x');
		buf_addc(b, hex[c >> 4]);
		buf_addc(b, hex[c & 15]);
	}
}

static int
alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c >= 0x80;
}

void
md_text(struct buf *b, const char *s, int cell)
{
	const unsigned char *p = (const unsigned char *)s;

	for (size_t i = 0; p[i]; i++) {
		unsigned char c = p[i];

		if (c < 0x20 || c == 0x7f) {
			buf_addc(b, '\\');	/* the backslash shown, not an escape */
			visible(b, c);
		} else if (c == '<')
			buf_adds(b, "&lt;");
		else if (c == '>')
			buf_adds(b, "&gt;");
		else if (c == '&')
			buf_adds(b, "&amp;");
		else if (c == '_') {
			/* A run of '_' inside a word opens no emphasis: left as it is. */
			size_t z = i;
			int keep;

			while (p[z] == '_')
				z++;
			keep = i > 0 && alnum(p[i - 1]) && alnum(p[z]);
			for (; i < z; i++) {
				if (!keep)
					buf_addc(b, '\\');
				buf_addc(b, '_');
			}
			i--;
		} else if (strchr("\\`*[]~", c) || (cell && c == '|') ||
		    (i == 0 && strchr("#+-=", c))) {
			buf_addc(b, '\\');
			buf_addc(b, (char)c);
		} else
			buf_addc(b, (char)c);
	}
}

void
md_code(struct buf *b, const char *s, int cell)
{
	size_t run = 0, longest = 0, n = strlen(s);
	int pad;

	for (size_t i = 0; i < n; i++)
		if (s[i] == '`' && ++run > longest)
			longest = run;
		else if (s[i] != '`')
			run = 0;
	/* A space each side keeps a leading or trailing backtick (or space) in. */
	pad = n == 0 || s[0] == '`' || s[0] == ' ' || s[n - 1] == '`' || s[n - 1] == ' ';
	for (size_t i = 0; i <= longest; i++)
		buf_addc(b, '`');
	if (pad)
		buf_addc(b, ' ');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			visible(b, c);
		else {
			if (cell && c == '|')
				buf_addc(b, '\\');
			buf_addc(b, (char)c);
		}
	}
	if (pad)
		buf_addc(b, ' ');
	for (size_t i = 0; i <= longest; i++)
		buf_addc(b, '`');
}

void
md_verbatim(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			visible(b, *p);
		else
			buf_addc(b, (char)*p);
}

void
md_url(struct buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (alnum(*p) && *p < 0x80)
			buf_addc(b, (char)*p);
		else if (strchr("/._~-", *p))
			buf_addc(b, (char)*p);
		else {
			buf_addc(b, '%');
			buf_addc(b, HEX[*p >> 4]);
			buf_addc(b, HEX[*p & 15]);
		}
}

static struct buf *
ring(void)
{
	static struct buf r[16];
	static int i;

	i = (i + 1) % 16;
	r[i].len = 0;
	buf_grow(&r[i], 0);
	r[i].p[0] = '\0';
	return &r[i];
}

const char *
mdt(const char *s, int cell)
{
	struct buf *b = ring();

	md_text(b, s, cell);
	return b->p;
}

const char *
mdc(const char *s, int cell)
{
	struct buf *b = ring();

	md_code(b, s, cell);
	return b->p;
}

const char *
mdu(const char *s)
{
	struct buf *b = ring();

	md_url(b, s);
	return b->p;
}

const char *
mdv(const char *s)
{
	struct buf *b = ring();

	md_verbatim(b, s);
	return b->p;
}
