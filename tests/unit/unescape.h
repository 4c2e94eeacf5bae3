/* unescape.h - the tests' own way back from the escaped text of
 * base/text.c (docs/trace.md's "Names whatever their bytes"), written apart
 * from the code under test: "\\", "\,", "\xHH", "\u00XX" (C1 controls
 * as their UTF-8 bytes).  Shared by test_text and fuzz_text; include it
 * once, in the test's .c file. */
#ifndef STREAMTIME_TEST_UNESCAPE_H
#define STREAMTIME_TEST_UNESCAPE_H

#include <stddef.h>

static int hexval(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* The bytes of escaped text T[0..N) into OUT; their number, or -1 when
 * T is not escaped text (a raw control byte, an unknown escape). */
static long unescape(const char *t, size_t n, char *out)
{
	long k = 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)t[i];

		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c != '\\') {
			out[k++] = t[i++];
			continue;
		}
		if (i + 1 >= n)
			return -1;
		if (t[i + 1] == '\\' || t[i + 1] == ',') {
			out[k++] = t[i + 1];
			i += 2;
		} else if (t[i + 1] == 'x' && i + 3 < n) {
			out[k++] = (char)(hexval(t[i + 2]) * 16 +
					  hexval(t[i + 3]));
			i += 4;
		} else if (t[i + 1] == 'u' && i + 5 < n) {
			unsigned v = (unsigned)(hexval(t[i + 4]) * 16 +
						hexval(t[i + 5]));

			if (v < 0x80) {
				out[k++] = (char)v;
			} else {
				out[k++] = (char)0xc2;
				out[k++] = (char)v;
			}
			i += 6;
		} else {
			return -1;
		}
	}
	return k;
}

#endif
