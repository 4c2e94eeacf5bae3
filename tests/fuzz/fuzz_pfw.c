/* libFuzzer target: DFTracer trace lines (SPEC 5.10).  Beyond "no crash",
 * the fast scanner must agree with jansson on every line it takes: jansson
 * accepts it, as an object, with the same fields.  The wide scanner
 * (st_pfw_scan_wide) must read every line jansson reads, the same, and
 * beyond it only lines jansson refuses for its limits.  The input is also fed
 * line by line through the reader's interpretation (hash maps, trimming,
 * corrupt lines). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/pfw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void agree(const char *line, size_t len)
{
	st_pfw_raw a, b, w;
	char why[256];
	int json, wide;

	if (st_pfw_scan_fast(line, len, &a)) {
		if (st_pfw_scan_json(line, len, &b, NULL, 0) < 0)
			abort();   /* the fast scanner took invalid JSON */
		if (!st_pfw_raw_equal(&a, &b))
			abort();   /* ... or read other fields */
		st_pfw_raw_release(&b);
	}
	/* the wide scanner: what jansson reads, the same fields; beyond it
	 * only what jansson refuses for its limits (numbers, U+0000, lone
	 * surrogates, "NUL byte in object key"), never a syntax error */
	json = st_pfw_scan_json(line, len, &b, why, sizeof(why));
	wide = st_pfw_scan_wide(line, len, &w);
	if (wide == -2)
		abort();
	if (json == 0) {
		/* jansson also passes over a raw NUL byte between tokens,
		 * which JSON (and Python) refuse; such lines never reach the
		 * wide scanner */
		if ((wide != 0 && !memchr(line, '\0', len)) ||
		    (wide == 0 && !st_pfw_raw_equal(&w, &b)))
			abort();
		st_pfw_raw_release(&b);
	} else if (wide == 0 && !strstr(why, "too big") &&
		   !strstr(why, "overflow") && !strstr(why, "\\u0000") &&
		   !strstr(why, "Unicode") && !strstr(why, "NUL byte")) {
		abort();
	}
	if (wide == 0)
		st_pfw_raw_release(&w);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *e = s + size;
	st_pfw_reader *r;
	st_pfw_event ev;
	char *copy;

	/* an exact-size heap copy, so that ASan sees any read past the end */
	if (!(copy = malloc(size ? size : 1)))
		return 0;
	memcpy(copy, data, size);
	agree(copy, size);
	free(copy);
	if (!(r = st_pfw_reader_mem()))
		return 0;
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(e - s);
		const char *t = s;
		size_t tl = len;

		if (st_pfw_line_trim(&t, &tl))
			agree(t, tl);
		if (st_pfw_feed(r, s, len, &ev) == ST_PFW_EVENT) {
			if (ev.dur < 0 || st_pfw_str(r, ev.name, NULL) == NULL ||
			    st_pfw_str(r, ev.cat, NULL) == NULL)
				abort();
			if (ev.host != ST_PFW_NONE)
				(void)st_pfw_str(r, ev.host, NULL);
			if (ev.file != ST_PFW_NONE)
				(void)st_pfw_str(r, ev.file, NULL);
		}
		s += len + 1;
	}
	st_pfw_close(r);
	return 0;
}
