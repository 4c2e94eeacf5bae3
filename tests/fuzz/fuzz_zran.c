/* libFuzzer target: the access points of a .pfw.gz as kept in the cache
 * (src/trace/zran.c, st_zran_decode).  Beyond "no crash": an index the
 * decoder takes encodes back to the very same bytes, holds together (its
 * points in file order, each window 32 KiB at most, each line number and
 * M-event count within the file's), and cuts into ranges at points in
 * order. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "zran.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_zran *x = st_zran_decode((const char *)data, size);
	char *e;
	size_t len, cut[8];

	if (!x)
		return 0;
	if (st_zran_encode(x, &e, &len) < 0)
		abort();
	if (len != size || memcmp(e, data, size) != 0)
		abort();
	free(e);
	for (size_t i = 0; i < x->n; i++) {
		const st_zran_ap *a = &x->ap[i];

		if (a->p.win_len > ST_ZIN_WINDOW || a->line_out < a->p.out ||
		    a->line_out >= x->total || a->lineno > x->lines ||
		    a->nmeta > x->nmeta ||
		    (i && a->line_out <= x->ap[i - 1].line_out))
			abort();
	}
	for (size_t parts = 1; parts <= 8; parts++) {
		size_t k = st_zran_cut(x, parts, cut);

		if (k >= parts)
			abort();
		for (size_t j = 0; j < k; j++)
			if (cut[j] >= x->n || (j && cut[j] <= cut[j - 1]))
				abort();
	}
	st_zran_free(x);
	return 0;
}
