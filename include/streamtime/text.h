/* text.h - names as text: the one rule by which every output writes a
 * name (a file, host, function, key) whatever its bytes (README, "Names
 * that are not UTF-8").
 *
 * The escaped text of a name: a backslash "\\", a control character
 * (U+0000-U+001F, U+007F-U+009F) "\u00XX", a byte that is not part of a
 * valid UTF-8 sequence "\xHH" (lower-case hex), every other byte as it
 * is; with ST_TEXT_COMMA a ',' is "\," too (keys of several values joined
 * by ',').  The result is valid UTF-8 on one line, two names never give
 * the same text, and the bytes come back by undoing the escapes.  CSV
 * cells, text tables and keys (JSON member names, table rows) hold it.
 *
 * A JSON string value holds a name exactly (JSON's escapes) when it is
 * UTF-8, else its escaped text, and then its bytes in hex beside it
 * ("file_hex").
 */
#ifndef STREAMTIME_TEXT_H
#define STREAMTIME_TEXT_H

#include <stdbool.h>
#include <stddef.h>

enum { ST_TEXT_COMMA = 1 };

/* The most bytes the escaped text takes per byte of the name. */
#define ST_TEXT_GROWTH 6

/* Length of the valid UTF-8 sequence S[0..LEN) begins with (1-4; 1 for
 * ASCII), 0 when S[0] does not begin one.  Strict as jansson is: no
 * overlong forms, no surrogates, nothing past U+10FFFF. */
size_t st_utf8_seq(const char *s, size_t len);

/* Is S[0..LEN) valid UTF-8 (NULs included)? */
bool st_utf8_valid(const char *s, size_t len);

/* The escaped text of S[0..LEN) with FLAGS into DST, which has room for
 * ST_TEXT_GROWTH * LEN bytes; its length (no NUL added). */
size_t st_text_escape(char *dst, const char *s, size_t len, unsigned flags);

/* The escaped text of S[0..LEN) (FLAGS), NUL-terminated; new (free it),
 * NULL out of memory. */
char *st_text_escape_dup(const char *s, size_t len, unsigned flags);

/* S[0..LEN) in lower-case hex, 2 * LEN bytes and a NUL, into DST. */
void st_text_hex(char *dst, const char *s, size_t len);

#endif
