/* grow.c - growing arrays (see grow.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"

int st_grow(void *pp, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t c = *cap ? *cap : (first ? first : 1);
	void *p;

	while (c <= n) {
		if (c > SIZE_MAX / 2)
			return -1;
		c *= 2;
	}
	if (c == *cap)
		return 0;
	if (elem && c > SIZE_MAX / elem)
		return -1;
	/* the pointer through memcpy: PP points at a T *, not a void * */
	memcpy(&p, pp, sizeof(p));
	if (!(p = realloc(p, c * elem)))
		return -1;
	memcpy(pp, &p, sizeof(p));
	*cap = c;
	return 0;
}
