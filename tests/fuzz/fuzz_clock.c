/* libFuzzer target: the clock wire format (SPEC 5.3).  What parses
 * re-encodes to the same bytes; the stream resync never overruns. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/clock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned char out[ST_CLOCK_REPLY_LEN];
	st_clock_reply r;
	uint64_t id;
	size_t at;

	if (st_clock_parse_request(data, size, &id)) {
		st_clock_encode_request(id, out);
		if (memcmp(out, data, ST_CLOCK_REQUEST_LEN) != 0)
			abort();
	}
	if (st_clock_parse_reply(data, size, &r)) {
		st_clock_encode_reply(&r, out);
		if (memcmp(out, data, ST_CLOCK_REPLY_LEN) != 0 || r.t3 < r.t2)
			abort();
	}
	at = st_clock_sync(data, size);
	if (at > size || (at < size && data[at] != 'S'))
		abort();
	return 0;
}
