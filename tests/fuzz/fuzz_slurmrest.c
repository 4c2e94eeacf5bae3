/* libFuzzer target: slurmrestd job lists of every version (SPEC 4.3).
 * Whatever parses gives jobs with all their fields. */
#include <stdint.h>
#include <stdlib.h>

#include "streamtime/slurmrest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const versions[] = { "v0.0.38", "v0.0.39", "v0.0.40",
						"v0.0.41" };
	st_slurm_jobs js = { 0 };
	st_error err;

	if (st_slurmrest_parse((const char *)data, size,
			       versions[size % 4], NULL, &js, NULL, &err) == 0)
		for (size_t i = 0; i < js.n; i++)
			for (int k = 0; k < ST_SLURM_NFIELDS; k++)
				if (!js.v[i].f[k])
					abort();
	st_slurm_jobs_release(&js);
	return 0;
}
