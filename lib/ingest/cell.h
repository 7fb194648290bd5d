/*
 * cell: the one rule for a table cell, whatever it was read from (a CSV
 * kernel or step table, a SQLite TEXT column): blanks around it are not
 * part of it; it is null when what is left is empty, N/A, NA, None or
 * null, bare or inside one pair of literal quotes (dec_isnull); a cell
 * written as a JSON number is one.  In a text column a quoted empty value
 * ("") is the empty string, not null: msprof writes an empty shape list
 * so.  Inline: they run on every cell.
 */
#ifndef ASC_CELL_H
#define ASC_CELL_H

#include <stddef.h>
#include <string.h>

#include "dec.h"
#include "simd.h"

/* Blanks at the start (space, TAB) and end (also CR) dropped. */
static inline __attribute__((always_inline)) void
cell_trim(const char **s, size_t *n)
{
	while (*n && ((*s)[0] == ' ' || (*s)[0] == '\t'))
		(*s)++, (*n)--;
	while (*n && ((*s)[*n - 1] == ' ' || (*s)[*n - 1] == '\t' || (*s)[*n - 1] == '\r'))
		(*n)--;
}

/* Null-like (dec_isnull); a cell that starts with none of blank, quote,
 * N or n is not, which most cells show at their first byte. */
static inline __attribute__((always_inline)) int
cell_isnull(const char *s, size_t n)
{
	if (n && s[0] != ' ' && s[0] != '\t' && s[0] != '\r' && s[0] != '\n' &&
	    s[0] != '"' && s[0] != 'N' && s[0] != 'n')
		return 0;
	if (n == 3 && memcmp(s, "N/A", 3) == 0)
		return 1;
	return dec_isnull(s, n);
}

/* cell_isnull for a text column: "" is a value. */
static inline __attribute__((always_inline)) int
cell_isnulltext(const char *s, size_t n)
{
	return cell_isnull(s, n) && !(n == 2 && s[0] == '"' && s[1] == '"');
}

/* Is s[0..n) a JSON number? */
static inline int
cell_isnum(const char *s, size_t n)
{
	size_t i = 0;

	if (i < n && s[i] == '-')
		i++;
	if (i >= n || s[i] < '0' || s[i] > '9')
		return 0;
	if (s[i] == '0')
		i++;
	else
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	if (i < n && s[i] == '.') {
		if (++i >= n || s[i] < '0' || s[i] > '9')
			return 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < n && (s[i] == '+' || s[i] == '-'))
			i++;
		if (i >= n || s[i] < '0' || s[i] > '9')
			return 0;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == n;
}

/* cell_isnum for a cell whose 16 bytes can be read (a CSV field): the
 * short plain forms are told at once (simd_num16). */
static inline __attribute__((always_inline)) int
cell_isnum16(const char *s, size_t n)
{
	return simd_num16(s, n) || cell_isnum(s, n);
}

/* 1..18 digits, no leading zero (or just "0"), not UINT32_MAX: an
 * integer cell that is its own JSON text. */
static inline __attribute__((always_inline)) int
cell_plainint(const char *s, size_t n)
{
	if (n == 0 || n > 18 || (s[0] == '0' && n > 1))
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)(s[i] - '0') > 9)
			return 0;
	return !(n == 10 && memcmp(s, "4294967295", 10) == 0);
}

struct buf;

/* ,"key": and the cell by the rule: an integer (UINT32_MAX, "invalid",
 * is null too), a text, a number. */
void	cell_putint(struct buf *, const char *key, const char *s, size_t n);
void	cell_putstr(struct buf *, const char *key, const char *s, size_t n, int unquote);
void	cell_putnum(struct buf *, const char *key, const char *s, size_t n);
/* 1 when s[0..n) is one or more ASCII digits. */
int	cell_digits(const char *s, size_t n);
/* 0 and *v when trimmed s[0..n) is an integer, [-]digits; else -1. */
int	cell_int(const char *s, size_t n, int64_t *v);
/* A bounded, printable snippet of a bad cell for messages (static). */
const char *cell_snip(const char *s, size_t n);

#endif
