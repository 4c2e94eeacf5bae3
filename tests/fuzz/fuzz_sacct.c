/* libFuzzer target: sacct output, live (rare delimiter, JobName last) and
 * saved dumps (header, any delimiter).  Every job has all its fields. */
#include <stdint.h>
#include <stdlib.h>

#include "streamtime/sacct.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	st_slurm_jobs js = { 0 };
	st_error err;

	if (st_sacct_parse_live((const char *)data, size, ST_SACCT_DELIM, &js,
				&err) == 0)
		for (size_t i = 0; i < js.n; i++)
			for (int k = 0; k < ST_SLURM_NFIELDS; k++)
				if (!js.v[i].f[k])
					abort();
	st_slurm_jobs_release(&js);
	if (st_sacct_parse_dump((const char *)data, size, "fuzz", NULL, &js,
				&err) == 0) {
		st_slurm_filter f = { .need_start = true };

		st_slurm_filter_apply(&js, &f);
	}
	st_slurm_jobs_release(&js);
	return 0;
}
