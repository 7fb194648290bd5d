/*
 * dec: exact decimal text <-> integer conversions.  Profiler timestamps are
 * ~1.7e15 us with three decimals; a double resolves only 0.25 us there, so
 * every time is parsed digit by digit into int64 and printed back from it.
 */
#ifndef ASC_DEC_H
#define ASC_DEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * Parse decimal text s[0..n) scaled by 10^scale into *out: scale 3 turns
 * microseconds into nanoseconds, 6 turns milliseconds into nanoseconds.
 * Accepts surrounding [ \t\r\n] and one pair of surrounding double quotes,
 * a sign, digits with an optional fraction and an optional exponent
 * (Python prints 1e-05).  Digits beyond the scale are rounded half away
 * from zero.  Returns 0, or -1 when the text is not a number or overflows.
 */
int	dec_parse(const char *s, size_t n, int scale, int64_t *out);

/* dec_parse with scale 3: microsecond text to nanoseconds. */
int	dec_us2ns(const char *s, size_t n, int64_t *out);

/*
 * Is s[0..n) (after trimming as above) null-like: empty, "N/A", "NA",
 * "None", "null"?
 */
int	dec_isnull(const char *s, size_t n);

/*
 * Write v / 10^scale as exact, minimal decimal text into buf (at least 32
 * bytes): 17902502 with scale 6 gives "17.902502", 25744000 gives
 * "25.744", 0 gives "0".  Returns the length.
 */
int	dec_fmt(char *buf, int64_t v, int scale);

/* Exact ratio num/den rounded to 6 decimals, as text (den > 0). */
int	dec_ratio(char *buf, int64_t num, int64_t den);

#endif
