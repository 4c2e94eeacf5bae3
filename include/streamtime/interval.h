/* interval.h - half-open intervals [s, e) of int64 (times, offsets):
 * sorting, unions, lengths and overlaps.
 */
#ifndef STREAMTIME_INTERVAL_H
#define STREAMTIME_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_interval {
	int64_t s, e;
} st_interval;

/* Sort V[0..N) by start (introsort: not stable, O(n log n) at worst). */
void st_interval_sort(st_interval *v, size_t n);

/* Replace V[0..N) by its union: sorted, disjoint, non-touching; empty
 * intervals (e <= s) dropped.  Returns the new count. */
size_t st_interval_union(st_interval *v, size_t n);

/* The summed length of V[0..N). */
int64_t st_interval_length(const st_interval *v, size_t n);

/* The length of the intersection of two unions (st_interval_union). */
int64_t st_interval_overlap(const st_interval *a, size_t na,
			    const st_interval *b, size_t nb);

#endif
