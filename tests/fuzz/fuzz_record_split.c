/* libFuzzer target: `trace record`'s split of bpftrace's combined output
 * into the trace_*.out files (st_record_split).  The promises checked:
 *  - every output starts with its header line (after the "Attaching"
 *    line when the input starts with one) and ends with a newline;
 *  - every input line of a known kind ("R ", "W ", "O ", "C ", "P ") is
 *    in its file, whole, without its tag, once: the outputs hold as many
 *    lines as the input has of those kinds, plus their first lines;
 *  - the kinds dropped (a NULL output) cost nothing else. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_lines(const char *s, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += s[i] == '\n';
	return k;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char tags[ST_RF_COUNT] = { 'R', 'W', 'O', 'C', 'P' };
	char *buf[ST_RF_COUNT] = { 0 };
	size_t len[ST_RF_COUNT] = { 0 }, want[ST_RF_COUNT] = { 0 };
	FILE *out[ST_RF_COUNT] = { 0 }, *in;
	uint64_t lost, bad;
	bool att, drop_proc = size && (data[0] & 1);
	size_t first = 1, i = 0;

	if (!size || !(in = fmemopen((void *)data, size, "r")))
		return 0;
	for (int k = 0; k < ST_RF_COUNT; k++)
		if (!(k == ST_RF_PROC && drop_proc) &&
		    !(out[k] = open_memstream(&buf[k], &len[k])))
			abort();
	att = size >= 10 && !memcmp(data, "Attaching ", 10);
	/* the input's lines of each kind */
	while (i < size) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - data) : size;

		if (!(att && i == 0) && end - i >= 2 && data[i + 1] == ' ')
			for (int k = 0; k < ST_RF_COUNT; k++)
				if (data[i] == tags[k])
					want[k]++;
		i = end + 1;
	}
	if (st_record_split(in, out, &lost, &bad, NULL) < 0)
		abort();
	fclose(in);
	first += att;
	for (int k = 0; k < ST_RF_COUNT; k++) {
		if (!out[k])
			continue;
		fclose(out[k]);
		if (len[k] == 0 || buf[k][len[k] - 1] != '\n')
			abort();
		/* an input line holding a NUL is one line here, and one there */
		if (count_lines(buf[k], len[k]) != want[k] + first)
			abort();
		if (att && memcmp(buf[k], "Attaching ", 10))
			abort();
		free(buf[k]);
	}
	return 0;
}
