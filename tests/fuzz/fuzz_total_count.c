/* libFuzzer target: the X-Total-Count value of the Distiller API
 * (st_distiller_api_parse_total), checked against libc: accepted exactly
 * when the input is 1 to 18 decimal digits (strspn), and then equal to
 * what strtoll reads; a refused input leaves *OUT alone. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/distiller_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	int64_t v = -7;
	bool want;
	int rc;

	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	want = size >= 1 && size <= 18 && strspn(s, "0123456789") == size;
	rc = st_distiller_api_parse_total((const char *)data, size, &v);
	if ((rc == 0) != want)
		abort();
	if (rc == 0 && v != strtoll(s, NULL, 10))
		abort();
	if (rc != 0 && v != -7)
		abort();
	free(s);
	return 0;
}
