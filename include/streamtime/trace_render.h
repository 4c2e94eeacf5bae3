/* trace_render.h - what the renderers of trace outputs share: a name as
 * a JSON string value. */
#ifndef STREAMTIME_TRACE_RENDER_H
#define STREAMTIME_TRACE_RENDER_H

#include <stddef.h>

struct json_t;

/* Name S[0..LEN) as a JSON string value (text.h): as it is when it is
 * UTF-8, else its escaped text; with HEX (may be NULL) its bytes in hex
 * appended to the array HEX.  New reference; NULL out of memory. */
struct json_t *st_trace_name_json(const char *s, size_t len,
				  struct json_t *hex);

#endif
