/* libFuzzer target: POSIX TZ strings, the footer of TZif files (src/base/tz.c).
 * A string that parses makes a zone that passes the checks of tz_probe.h;
 * one with a NUL in it never parses. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/tz.h"
#include "tz_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;
	st_tz *zone;
	st_error err;

	if (size > 4096)
		return 0;
	s = malloc(size + 1);
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	zone = st_tz_from_posix(s, &err);
	if (zone) {
		if (strcmp(st_tz_name(zone), s) != 0)
			abort();
		tz_probe_all(zone, data, size);
		st_tz_free(zone);
	} else if (err.code != ST_EXIT_CONFIG) {
		abort();
	}
	free(s);
	return 0;
}
