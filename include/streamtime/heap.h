/* heap.h - a binary min-heap of (int64 key, uint32 value) pairs. */
#ifndef STREAMTIME_HEAP_H
#define STREAMTIME_HEAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct st_heap_entry {
	int64_t key;
	uint32_t val;
} st_heap_entry;

/* Zero-initialized is empty; v[0] is the least key when n > 0. */
typedef struct st_heap {
	st_heap_entry *v;
	size_t n, cap;
} st_heap;

/* Add (KEY, VAL).  0, or -1 when memory runs out (H unchanged). */
int st_heap_push(st_heap *h, int64_t key, uint32_t val);

/* Remove and return an entry of the least key; H must not be empty. */
st_heap_entry st_heap_pop(st_heap *h);

/* Free what H holds; it is empty again. */
void st_heap_release(st_heap *h);

#endif
