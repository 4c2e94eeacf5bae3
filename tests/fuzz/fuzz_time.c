/* libFuzzer target: timestamps and durations.  A parsed instant formats
 * and parses back to itself; a parsed duration too. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/time.h"
#include "streamtime/tz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static st_tz *la;
	char s[128], buf[64];
	st_instant t, t2;
	st_duration d, d2;

	if (!la)
		la = st_tz_load("America/Los_Angeles", NULL);
	if (size >= sizeof(s))
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	if (st_time_parse(s, la, &t, NULL, NULL) == 0) {
		if (t > INT64_MIN / 2 && t < INT64_MAX / 2) {
			st_time_format_utc(t, buf, sizeof(buf));
			if (st_time_parse(buf, NULL, &t2, NULL, NULL) != 0 || t2 != t)
				abort();
		}
		st_time_format_naive(t, la, buf, sizeof(buf));
	}
	if (st_duration_parse(s, &d, NULL) == 0) {
		st_duration_format_hms(d, buf, sizeof(buf));
		if (st_duration_parse(buf, &d2, NULL) != 0 || d2 != d)
			abort();
	}
	return 0;
}
