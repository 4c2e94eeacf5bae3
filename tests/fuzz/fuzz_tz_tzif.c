/* libFuzzer target: TZif images (src/base/tz.c, RFC 8536).  A zone that loads
 * passes the checks of tz_probe.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/tz.h"
#include "tz_probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_tz *zone = st_tz_from_tzif("fuzz", data, size, NULL);

	if (zone) {
		if (strcmp(st_tz_name(zone), "fuzz") != 0)
			abort();
		tz_probe_all(zone, data, size);
		st_tz_free(zone);
	}
	return 0;
}
