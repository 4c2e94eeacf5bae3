/* libFuzzer target: receiver status JSON and the collectors' file names
 * (SPEC 4.1, 4.2).  A name that parses has the shape it claims. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/h5.h"
#include "streamtime/receivers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char name[300], again[300];
	st_instant t;
	st_h5_name h5;
	int64_t scan;
	int r;

	(void)st_receivers_parse_status((const char *)data, size, NULL, &t, NULL);
	if (size >= sizeof(name))
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	if (st_receivers_parse_status_name(name, &r, &scan)) {
		snprintf(again, sizeof(again), "4dstem_rec_status_%d_scan_%lld.json",
			 r, (long long)scan);
		if (strcmp(again, name) != 0)
			abort();
	}
	if (st_receivers_parse_data_name(name, &scan)) {
		snprintf(again, sizeof(again), "data_scan%010lld", (long long)scan);
		if (strncmp(again, name, strlen(again)) != 0)
			abort();
	}
	if (st_h5_parse_name(name, &h5)) {
		snprintf(again, sizeof(again), "_%s_", h5.id);
		if (!strstr(name, again) || strtoll(h5.id, NULL, 10) != h5.id_num ||
		    strcmp(h5.suffix + strlen(h5.suffix) - 3, ".h5") != 0)
			abort();
	}
	return 0;
}
