/* libFuzzer target: the size in a Distiller export's file name
 * ("DIR/{N}_{N}.csv", read by merge transfer).  st_db_size_from_name must
 * agree with a plain reference reading of the rule: the base name is two
 * runs of decimal digits joined by '_' and followed by ".csv", both runs
 * the same number, positive and within int64; anything else is 0. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/merge.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value of the digit run S..S+N with leading zeros dropped, or -1
 * when it does not fit in int64. */
static int64_t digits_value(const char *s, size_t n)
{
	int64_t v = 0;

	for (size_t i = 0; i < n; i++) {
		int d = s[i] - '0';

		if (v > (INT64_MAX - d) / 10)
			return -1;
		v = v * 10 + d;
	}
	return v;
}

static int64_t reference(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t a, b;
	int64_t x, y;

	base = base ? base + 1 : path;
	a = strspn(base, "0123456789");
	if (a == 0 || base[a] != '_')
		return 0;
	b = strspn(base + a + 1, "0123456789");
	if (b == 0 || strcmp(base + a + 1 + b, ".csv") != 0)
		return 0;
	x = digits_value(base, a);
	y = digits_value(base + a + 1, b);
	if (x <= 0 || y <= 0 || x != y)
		return 0;
	return x;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (st_db_size_from_name(s) != reference(s))
		abort();
	free(s);
	return 0;
}
