/* libFuzzer target: Distiller REST API bodies (SPEC 4.4), a jobs page or a
 * scan, chosen by the first byte.  Whatever parses keeps the promises of
 * distiller_api.h: scan ids ascending and unique, durations in whole
 * microseconds, no more jobs kept than the page held, sizes not negative. */
#include <stdint.h>
#include <stdlib.h>

#include "streamtime/distiller_api.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *body = (const char *)data + 1;
	st_distiller_api_jobs js = { 0 };
	st_distiller_api_page pg;
	st_distiller_api_scan sc;
	st_error err;

	if (size < 1)
		return 0;
	if (data[0] % 3 == 2) {
		if (st_distiller_api_parse_scan(body, size - 1, "fuzz", &sc,
						&err) == 0 && sc.size < 0)
			abort();
		return 0;
	}
	if (st_distiller_api_parse_jobs(body, size - 1, "fuzz",
					data[0] % 3 ? "count" : NULL, &js, &pg,
					&err) == 0) {
		if (js.n > pg.n_jobs)
			abort();
		for (size_t i = 0; i < js.n; i++) {
			const st_distiller_api_job *j = &js.v[i];

			if (j->has_elapsed && j->elapsed % 1000)
				abort();
			for (size_t k = 1; k < j->n_scan_ids; k++)
				if (j->scan_ids[k - 1] >= j->scan_ids[k])
					abort();
		}
	} else if (js.n) {
		abort();        /* a failed page leaves OUT as it was */
	}
	st_distiller_api_jobs_release(&js);
	return 0;
}
