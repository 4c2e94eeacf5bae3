/* libFuzzer target: counted HDF5 file names (src/sources/h5.c, SPEC 4.2).  What
 * parses is rebuilt from its parts: the id as written, the scan number,
 * the suffix, and the fixed date and time fields. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/h5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *name = malloc(size + 1), *rebuilt = NULL;
	const char *scan_at;
	st_h5_name nm;
	size_t len;

	if (!name)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	if (st_h5_parse_name(name, &nm)) {
		len = strlen(name);
		/* the suffix is inside the name and ends it: ".h5" or "_X.h5" */
		if (nm.suffix < name || nm.suffix > name + len ||
		    strlen(nm.suffix) < 3 ||
		    strcmp(nm.suffix + strlen(nm.suffix) - 3, ".h5") != 0 ||
		    (strlen(nm.suffix) > 3 &&
		     (nm.suffix[0] != '_' || strlen(nm.suffix) < 5)))
			abort();
		/* the id: digits as written, its value, at most 15 digits */
		if (!nm.id[0] || strlen(nm.id) >= ST_H5_ID_MAX ||
		    strspn(nm.id, "0123456789") != strlen(nm.id) ||
		    strtoll(nm.id, NULL, 10) != nm.id_num || nm.id_num < 0 ||
		    nm.scan < 0)
			abort();
		/* FOURD_yymmdd_HHMM_ID_SCAN SUFFIX, byte for byte */
		scan_at = name + 6 + 6 + 1 + 4 + 1 + strlen(nm.id) + 1;
		if (scan_at >= nm.suffix ||
		    strspn(scan_at, "0123456789") != (size_t)(nm.suffix - scan_at) ||
		    strtoll(scan_at, NULL, 10) != nm.scan)
			abort();
		if (asprintf(&rebuilt, "FOURD_%.6s_%.4s_%s_%.*s%s", name + 6,
			     name + 13, nm.id, (int)(nm.suffix - scan_at), scan_at,
			     nm.suffix) < 0)
			abort();
		if (strcmp(rebuilt, name) != 0 ||
		    strspn(name + 6, "0123456789") != 6 ||
		    strspn(name + 13, "0123456789") != 4)
			abort();
		free(rebuilt);
	}
	free(name);
	return 0;
}
