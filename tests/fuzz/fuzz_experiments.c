/* libFuzzer target: experiments.json. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "streamtime/session.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	st_experiments ex;
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/st-fuzz-exp-%d.json", (int)getpid());
	f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	if (st_experiments_load(&ex, path, NULL) == 0) {
		for (size_t i = 0; i < ex.n; i++)
			if (ex.v[i].offload.first > ex.v[i].offload.last ||
			    !ex.v[i].h5)
				abort();
		st_experiments_release(&ex);
	}
	return 0;
}
