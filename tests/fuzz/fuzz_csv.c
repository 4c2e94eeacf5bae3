/* libFuzzer target: CSV tables.  Beyond "no crash", the hand-split fast
 * path must agree with libcsv on every input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/csv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_table a, b;
	st_error ea, eb;
	int ra, rb;

	st_table_init(&a);
	st_table_init(&b);
	ra = st_table_parse_ex(&a, "fuzz.csv", (const char *)data, size, 0, &ea);
	rb = st_table_parse_ex(&b, "fuzz.csv", (const char *)data, size,
			       ST_CSV_LIBCSV_ONLY, &eb);
	if (ra != rb)
		abort();
	if (ra == 0) {
		if (a.ncols != b.ncols || a.nrows != b.nrows)
			abort();
		for (size_t r = 0; r < a.nrows; r++) {
			if (a.lines[r] != b.lines[r])
				abort();
			for (size_t c = 0; c < a.ncols; c++)
				if (strcmp(st_table_get(&a, r, (int)c),
					   st_table_get(&b, r, (int)c)) != 0)
					abort();
		}
	}
	st_table_release(&a);
	st_table_release(&b);
	return 0;
}
