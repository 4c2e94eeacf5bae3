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
#include "../unit/unescape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


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
