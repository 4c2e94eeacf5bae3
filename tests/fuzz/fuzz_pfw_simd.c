/* libFuzzer target: the fast scanner's paths (SPEC 5.10).  The input, as
 * one line and line by line, shifted by 0 to 31 bytes of leading white
 * space so that its strings, escapes and numbers meet every 16- and
 * 32-byte block edge, is read by st_pfw_scan_fast on every path the CPU
 * has (scalar, SSE2, AVX2): the paths agree on whether they take a line
 * and on its fields, and a line taken is one jansson accepts with the same
 * fields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/pfw.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void paths_agree(const char *line, size_t len)
{
	st_pfw_raw first, a, b;
	int took = -1;

	for (int level = ST_PFW_SCALAR; level <= ST_PFW_AVX2; level++) {
		int t;

		if (st_pfw_simd_force(level) != level)
			continue;   /* the CPU has no such path */
		t = st_pfw_scan_fast(line, len, &a);
		if (took < 0) {
			took = t;
			first = a;
		} else if (t != took || (t && !st_pfw_raw_equal(&a, &first))) {
			abort();   /* two paths disagree */
		}
	}
	st_pfw_simd_force(-1);
	if (took == 1) {
		if (st_pfw_scan_json(line, len, &b, NULL, 0) < 0)
			abort();   /* a path took invalid JSON */
		if (!st_pfw_raw_equal(&first, &b))
			abort();   /* ... or read other fields than jansson */
		st_pfw_raw_release(&b);
	}
}

/* LINE after SHIFT spaces, in a heap block of the exact size (ASan sees
 * any read past its end). */
static void shifted(const char *line, size_t len, size_t shift)
{
	char *copy = malloc(len + shift ? len + shift : 1);

	if (!copy)
		return;
	memset(copy, ' ', shift);
	memcpy(copy + shift, line, len);
	paths_agree(copy, len + shift);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data, *e = s + size;
	size_t shift = size ? data[0] % 32 : 0;

	shifted(s, size, 0);
	shifted(s, size, shift);
	while (s < e) {
		const char *nl = memchr(s, '\n', (size_t)(e - s));
		size_t len = nl ? (size_t)(nl - s) : (size_t)(e - s);

		shifted(s, len, shift);
		s += len + (nl != NULL);
	}
	return 0;
}
