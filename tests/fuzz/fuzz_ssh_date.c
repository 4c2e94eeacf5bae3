/* libFuzzer target: what `date +%s%N` printed over ssh-date:// (src/sources/clock.c
 * st_clock_parse_date) and the sample it makes.  An accepted line is its
 * value in decimal; a sample st_clock_sample_check accepts goes through the
 * offset, delay and bound arithmetic without overflow (UBSan watches), and
 * one it refuses was one that arithmetic could not hold or believe. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int64_t be64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return (int64_t)v;
}

/* The arithmetic on S, which st_clock_sample_check accepted. */
static void arithmetic(const st_clock_sample *s)
{
	st_duration off = st_clock_sample_offset(s);
	st_duration bound = st_clock_sample_bound(s);

	(void)st_clock_sample_delay(s);
	if (off > ST_CLOCK_MAX_OFFSET || off < -ST_CLOCK_MAX_OFFSET || bound < 1)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *line = (const char *)data;
	const uint8_t *nl = memchr(data, '\n', size);
	size_t len = nl ? (size_t)(nl - data) : size;
	st_clock_sample s = { .t1 = INT64_C(1700000000000000000),
			      .remote_res = 1, .local_res = 1 };
	st_instant t;
	char back[32];

	if (st_clock_parse_date(line, len, &t) == 0) {
		size_t n = len, z = 0;

		if (n && line[n - 1] == '\r')
			n--;
		while (z + 1 < n && line[z] == '0')
			z++;
		snprintf(back, sizeof(back), "%" PRId64, t);
		if (t <= 0 || strlen(back) != n - z ||
		    memcmp(back, line + z, n - z) != 0)
			abort();
		/* as date_probe makes it: t2 = t3 = T, within a round trip */
		s.t2 = s.t3 = t;
		s.t4 = s.t1 + (nl && size > len + 1 ? data[len + 1] : 0) * 1000;
		if (!st_clock_sample_check(&s))
			arithmetic(&s);
	}
	/* any four times and two resolutions after the line */
	if (nl && size - len - 1 >= 40) {
		const uint8_t *p = nl + 1;

		s.t1 = be64(p);
		s.t2 = be64(p + 8);
		s.t3 = be64(p + 16);
		s.t4 = be64(p + 24);
		s.remote_res = (uint32_t)be64(p + 32) >> 1;
		s.local_res = 1 + (uint32_t)(be64(p + 32) >> 40);
		if (!st_clock_sample_check(&s))
			arithmetic(&s);
	}
	return 0;
}
