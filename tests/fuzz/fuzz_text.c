/* libFuzzer target: names as text (text.h).  The input is one name, any
 * bytes.  Its escaped text must be valid UTF-8 with no control byte,
 * within ST_TEXT_GROWTH per byte, and undo (an unescaper written here) to
 * the same bytes, with ST_TEXT_COMMA too; st_outbuf_json must write a
 * JSON string jansson reads, the name itself when it is UTF-8 (as jansson
 * judges it), else its escaped text. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "streamtime/outbuf.h"
#include "streamtime/text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(char c)
{
	return c >= 'a' ? c - 'a' + 10 : c - '0';
}

/* Undo escaped text T[0..N) into OUT; its length, or -1 abort-worthy. */
static long unescape(const char *t, size_t n, char *out)
{
	long k = 0;

	for (size_t i = 0; i < n;) {
		unsigned char c = (unsigned char)t[i];

		if (c < 0x20 || c == 0x7f)
			return -1;
		if (c != '\\') {
			out[k++] = t[i++];
		} else if (i + 1 < n && (t[i + 1] == '\\' || t[i + 1] == ',')) {
			out[k++] = t[i + 1];
			i += 2;
		} else if (i + 3 < n && t[i + 1] == 'x') {
			out[k++] = (char)(hexval(t[i + 2]) * 16 +
					  hexval(t[i + 3]));
			i += 4;
		} else if (i + 5 < n && t[i + 1] == 'u') {
			int v = hexval(t[i + 4]) * 16 + hexval(t[i + 5]);

			if (v >= 0x80)
				out[k++] = (char)0xc2;
			out[k++] = (char)v;
			i += 6;
		} else {
			return -1;
		}
	}
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	char *t, *back, *buf = NULL;
	size_t len = 0, m;
	st_outbuf *o;
	FILE *f;
	json_t *j, *ref;

	if (size > 4096)
		return 0;
	t = malloc(ST_TEXT_GROWTH * size + 1);
	back = malloc(ST_TEXT_GROWTH * size + 1);
	o = malloc(sizeof(*o));
	if (!t || !back || !o)
		abort();
	for (unsigned flags = 0; flags <= ST_TEXT_COMMA; flags++) {
		m = st_text_escape(t, s, size, flags);
		if (m > ST_TEXT_GROWTH * size || !st_utf8_valid(t, m) ||
		    unescape(t, m, back) != (long)size ||
		    memcmp(back, s, size) != 0)
			abort();
	}
	ref = json_stringn(s, size);
	if ((ref != NULL) != st_utf8_valid(s, size))
		abort();     /* jansson's judgment of UTF-8 differs */
	if (!(f = open_memstream(&buf, &len)))
		abort();
	st_outbuf_init(o, f);
	st_outbuf_json(o, s, size);
	st_outbuf_flush(o);
	fclose(f);
	j = json_loadb(buf, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
	if (!json_is_string(j))
		abort();
	if (ref ? !json_equal(j, ref)
		: (unescape(json_string_value(j), json_string_length(j),
			    back) != (long)size || memcmp(back, s, size) != 0))
		abort();
	json_decref(j);
	json_decref(ref);
	free(buf);
	free(o);
	free(t);
	free(back);
	return 0;
}
