/* grow.h - room for one more element in a growing array (git's
 * ALLOC_GROW): the capacity doubles, FIRST the first time.
 */
#ifndef STREAMTIME_GROW_H
#define STREAMTIME_GROW_H

#include <stddef.h>

/* Make room in the array *PP (of elements ELEM bytes, capacity *CAP) for
 * at least N + 1 elements.  0, or -1 when memory runs out or the size
 * overflows (*PP and *CAP unchanged). */
int st_grow(void *pp, size_t *cap, size_t n, size_t elem, size_t first);

/* ST_GROW(v, n, cap, first): st_grow on the pointer V and the size_t CAP
 * when N has reached it; 0 when there is room already. */
#define ST_GROW(v, n, cap, first) \
	((n) < (cap) ? 0 : st_grow(&(v), &(cap), (n), sizeof(*(v)), (first)))

#endif
