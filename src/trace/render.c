/* render.c - what the renderers of trace outputs share (trace_render.h). */
#include <stdlib.h>

#include <jansson.h>

#include "streamtime/text.h"
#include "streamtime/trace_render.h"

json_t *st_trace_name_json(const char *s, size_t len, json_t *hex)
{
	bool utf8 = st_utf8_valid(s, len);
	char *t = utf8 ? NULL : malloc(ST_TEXT_GROWTH * len + 1);
	json_t *v;

	if (!utf8 && !t)
		return NULL;
	v = utf8 ? json_stringn(s, len)
		 : json_stringn(t, st_text_escape(t, s, len, 0));
	if (v && hex) {
		free(t);
		if (!(t = malloc(2 * len + 1))) {
			json_decref(v);
			return NULL;
		}
		st_text_hex(t, s, len);
		json_array_append_new(hex, json_string(t));
	}
	free(t);
	return v;
}
