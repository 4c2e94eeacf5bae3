/* pairmap.h - a hash map from pairs of 64-bit integers to a 64-bit value
 * (open addressing, linear probing, a power-of-two table at most 3/4
 * full).  Lookups are inline: they sit in the trace readers' inner loops.
 */
#ifndef STREAMTIME_PAIRMAP_H
#define STREAMTIME_PAIRMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct st_pairmap_entry {
	uint64_t a, b, v;
	bool used;
} st_pairmap_entry;

/* Zero-initialized is empty. */
typedef struct st_pairmap {
	st_pairmap_entry *e;
	size_t cap, n;
} st_pairmap;

static inline size_t st_pairmap_hash(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull) *
		     0xbf58476d1ce4e5b9ull;

	h ^= h >> 29;
	h *= 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 32));
}

/* Double the table (256 entries the first time).  0, or -1 when memory
 * runs out (M unchanged). */
int st_pairmap_grow(st_pairmap *m);

/* The value of (A, B), added as 0 when new (*ADDED says which; it may be
 * NULL); NULL when memory runs out.  Borrowed: valid until the next
 * st_pairmap_get. */
static inline uint64_t *st_pairmap_get(st_pairmap *m, uint64_t a, uint64_t b,
				       bool *added)
{
	size_t j;

	if ((m->n + 1) * 4 > m->cap * 3 && st_pairmap_grow(m) < 0)
		return NULL;
	j = st_pairmap_hash(a, b) & (m->cap - 1);
	for (;; j = (j + 1) & (m->cap - 1)) {
		st_pairmap_entry *e = &m->e[j];

		if (!e->used) {
			e->used = true;
			e->a = a;
			e->b = b;
			e->v = 0;
			m->n++;
			if (added)
				*added = true;
			return &e->v;
		}
		if (e->a == a && e->b == b) {
			if (added)
				*added = false;
			return &e->v;
		}
	}
}

/* The value of (A, B), or NULL when it has none (borrowed). */
static inline const uint64_t *st_pairmap_find(const st_pairmap *m, uint64_t a,
					      uint64_t b)
{
	if (!m->cap)
		return NULL;
	for (size_t j = st_pairmap_hash(a, b) & (m->cap - 1);;
	     j = (j + 1) & (m->cap - 1)) {
		const st_pairmap_entry *e = &m->e[j];

		if (!e->used)
			return NULL;
		if (e->a == a && e->b == b)
			return &e->v;
	}
}

/* Free the table; M is empty again. */
void st_pairmap_release(st_pairmap *m);

/* Dense ids 0, 1, 2, ... of pairs in the order they were first seen (the
 * map holds id + 1), with a one-entry cache for runs of the same pair, as
 * the events of one process or thread come.  Zero-initialized is empty. */
typedef struct st_pairids {
	st_pairmap map;
	uint64_t n;               /* ids given */
	uint64_t last_a, last_b, last_id;
	bool have_last;
} st_pairids;

/* The id of (A, B), the next one when new (*ADDED says which); -1 when
 * memory runs out. */
static inline int64_t st_pairids_get(st_pairids *p, uint64_t a, uint64_t b,
				     bool *added)
{
	uint64_t *v;
	bool add = false;

	if (!(p->have_last && p->last_a == a && p->last_b == b)) {
		if (!(v = st_pairmap_get(&p->map, a, b, &add)))
			return -1;
		if (add)
			*v = ++p->n;
		p->have_last = true;
		p->last_a = a;
		p->last_b = b;
		p->last_id = *v - 1;
	}
	*added = add;
	return (int64_t)p->last_id;
}

/* The id of (A, B), or -1 when it has none. */
static inline int64_t st_pairids_find(const st_pairids *p, uint64_t a,
				      uint64_t b)
{
	const uint64_t *v = st_pairmap_find(&p->map, a, b);

	return v ? (int64_t)(*v - 1) : -1;
}

/* Forget the cached pair (its keys are about to mean something else). */
static inline void st_pairids_forget(st_pairids *p)
{
	p->have_last = false;
}

static inline void st_pairids_release(st_pairids *p)
{
	st_pairmap_release(&p->map);
	*p = (st_pairids){ 0 };
}

#endif
