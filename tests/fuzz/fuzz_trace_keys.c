/* libFuzzer target: key lists (--keys, --group-by, a metric's "per";
 * trace_keys.h).  The input is "LIST\nFILE": LIST is parsed; when it is
 * taken, every key must print back as a name that parses to the same key,
 * and every value of an event on FILE must keep snprintf's contract (the
 * length it returns is what it wrote when it fits, a cut copy of that
 * when it does not) and the pattern is never longer than the basename. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace_keys.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	size_t ll = nl ? (size_t)(nl - (const char *)data) : size;
	char *list, *file;
	st_trace_keys k, again;
	st_trace_rec e = { .name = "n", .name_len = 1, .cat = "c",
			   .cat_len = 1, .host = "h", .host_len = 1 };

	if (!(list = malloc(ll + 1)))
		return 0;
	memcpy(list, data, ll);
	list[ll] = 0;
	e.file_len = nl ? size - ll - 1 : 0;
	if (!(file = malloc(e.file_len ? e.file_len : 1))) {
		free(list);
		return 0;
	}
	memcpy(file, nl ? nl + 1 : "", e.file_len);
	e.file = file;
	if (strlen(list) == ll && st_trace_keys_parse(&k, list, NULL) == 0) {
		size_t off, blen = st_trace_basename(file, e.file_len, &off);

		if (off + blen > e.file_len)
			abort();
		for (size_t i = 0; i < k.n; i++) {
			char name[16], full[4096], cut[3];
			size_t n, m;

			st_trace_key_name(&k.v[i], name, sizeof(name));
			if (st_trace_keys_parse(&again, name, NULL) < 0 ||
			    again.n != 1 || again.v[0].kind != k.v[i].kind ||
			    again.v[0].depth != k.v[i].depth)
				abort();
			n = st_trace_key_format(&k.v[i], &e, full, sizeof(full));
			m = st_trace_key_format(&k.v[i], &e, cut, sizeof(cut));
			if (n != m)
				abort();
			if (n == ST_TRACE_KEY_NONE) {
				if (full[0] || cut[0])
					abort();
				continue;
			}
			if (n < sizeof(full) &&
			    (full[n] || strncmp(cut, full, sizeof(cut) - 1)))
				abort();
			if (k.v[i].kind == ST_TRACE_KEY_PATTERN && n > blen)
				abort();
		}
	}
	free(list);
	free(file);
	return 0;
}
