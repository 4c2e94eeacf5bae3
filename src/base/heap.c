/* heap.c - a binary min-heap of (key, value). */
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/heap.h"

int st_heap_push(st_heap *h, int64_t key, uint32_t val)
{
	size_t i;

	if (ST_GROW(h->v, h->n, h->cap, 64) < 0)
		return -1;
	for (i = h->n++; i > 0 && h->v[(i - 1) / 2].key > key; i = (i - 1) / 2)
		h->v[i] = h->v[(i - 1) / 2];
	h->v[i] = (st_heap_entry){ key, val };
	return 0;
}

st_heap_entry st_heap_pop(st_heap *h)
{
	st_heap_entry top = h->v[0], last = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->v[c + 1].key < h->v[c].key)
			c++;
		if (last.key <= h->v[c].key)
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n)
		h->v[i] = last;
	return top;
}

void st_heap_release(st_heap *h)
{
	free(h->v);
	memset(h, 0, sizeof(*h));
}
