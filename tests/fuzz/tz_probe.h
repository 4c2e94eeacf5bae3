/* tz_probe.h - the checks the TZ fuzz targets make on a zone that loaded:
 * offsets within 26 h at every instant, and local_to_utc inverting
 * offset_at wherever it says the wall-clock time is unique. */
#ifndef STREAMTIME_FUZZ_TZ_PROBE_H
#define STREAMTIME_FUZZ_TZ_PROBE_H

#include <stdint.h>
#include <stdlib.h>

#include "streamtime/tz.h"

/* Check ZONE at UTC second T. */
static void tz_probe(const st_tz *zone, int64_t t)
{
	int32_t off = st_tz_offset_at(zone, t);
	int64_t back;
	int flags;

	if (off > 93600 || off < -93600)
		abort();
	if (t > INT64_C(1) << 46 || t < -(INT64_C(1) << 46))
		return;         /* beyond the walk's window: clamped, not exact */
	back = st_tz_local_to_utc(zone, t + off, &flags);
	if (flags == 0 && back != t)
		abort();
	if (flags & ~(ST_TZ_GAP | ST_TZ_AMBIGUOUS))
		abort();
}

/* The checks on a zone that loaded, at fixed instants and at those the
 * input's bytes name. */
static void tz_probe_all(const st_tz *zone, const uint8_t *data,
			 size_t size)
{
	static const int64_t fixed[] = {
		0, 1, -1, 86399, 1000000000, 1696523100, 1699088400, 1710064800,
		INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1, 4102444800,
		253402300799, -62135596800, INT64_C(1) << 40, -(INT64_C(1) << 40),
		INT64_C(100000000000000), -INT64_C(100000000000000), INT64_MAX,
		INT64_MIN, INT64_MAX - 93600, INT64_MIN + 93600,
	};
	int flags;

	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		tz_probe(zone, fixed[i]);
		(void)st_tz_local_to_utc(zone, fixed[i], &flags);
	}
	/* every aligned 8 bytes of the input, as a big-endian second */
	for (size_t at = 0; at + 8 <= size && at < 4096; at += 8) {
		uint64_t v = 0;

		for (int k = 0; k < 8; k++)
			v = v << 8 | data[at + k];
		tz_probe(zone, (int64_t)v);
		tz_probe(zone, (int64_t)(int32_t)(v >> 32));
		(void)st_tz_local_to_utc(zone, (int64_t)v, &flags);
	}
}

#endif
