/* search.h - binary search in sorted arrays.
 *
 * Lower bound: the first element that is not less than the key; upper
 * bound: the first element greater than the key.  Both return N when there
 * is none, so "is KEY there" is `i < n && v[i] == key`, and the last
 * element <= KEY is at upper bound - 1.
 */
#ifndef STREAMTIME_SEARCH_H
#define STREAMTIME_SEARCH_H

#include <stddef.h>
#include <stdint.h>

/* The lower bound of KEY in the N elements of SIZE bytes at BASE, sorted
 * by CMP(KEY, element) (negative: the key sorts before the element).  Of
 * equal elements the first is found, unlike bsearch's any one. */
size_t st_lower_bound(const void *base, size_t n, size_t size, const void *key,
		      int (*cmp)(const void *key, const void *elem));

/* The lower and upper bound of KEY in the sorted int64 array V[N].  Inline:
 * time zone lookups run once per parsed time. */
static inline size_t st_i64_lower_bound(const int64_t *v, size_t n, int64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] < key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static inline size_t st_i64_upper_bound(const int64_t *v, size_t n, int64_t key)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
