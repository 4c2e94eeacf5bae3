/* strtab.c - interned strings (strtab.h): open addressing over ids, the
 * entries in segments and the bytes in blocks, neither of which moves. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/strtab.h"

struct st_strtab_ent {
	const char *s;
	uint32_t len;
	uint32_t hash;
};

struct st_strtab_blk {
	struct st_strtab_blk *next;
	size_t used, cap;
	char data[];
};

struct st_strtab_lock {
	pthread_mutex_t mu;
};

#define STRTAB_BLK (64u << 10)

/* Entry ID: segment K = floor(log2(ID / SEG0 + 1)) holds SEG0 << K ids
 * from SEG0 * (2^K - 1). */
static inline uint32_t seg_of(uint32_t id)
{
	return 31u - (uint32_t)__builtin_clz(id / ST_STRTAB_SEG0 + 1);
}

static inline struct st_strtab_ent *ent(const st_strtab *t, uint32_t id)
{
	uint32_t k = seg_of(id);

	return &t->seg[k][id - ST_STRTAB_SEG0 * ((1u << k) - 1)];
}

uint64_t st_strtab_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (len * 0xff51afd7ed558ccdull);
	uint64_t w;

	while (len >= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
		s += 8;
		len -= 8;
	}
	w = 0;
	memcpy(&w, s, len);
	h = (h ^ w) * 0x94d049bb133111ebull;
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 32);
}

void st_strtab_init(st_strtab *t)
{
	memset(t, 0, sizeof(*t));
}

void st_strtab_release(st_strtab *t)
{
	struct st_strtab_blk *b, *next;

	if (!t)
		return;
	for (b = t->blk; b; b = next) {
		next = b->next;
		free(b);
	}
	for (int k = 0; k < ST_STRTAB_NSEG; k++)
		free(t->seg[k]);
	free(t->slot);
	if (t->lock) {
		pthread_mutex_destroy(&t->lock->mu);
		free(t->lock);
	}
	st_strtab_init(t);
}

int st_strtab_share(st_strtab *t)
{
	struct st_strtab_lock *l = malloc(sizeof(*l));

	if (!l || pthread_mutex_init(&l->mu, NULL) != 0) {
		free(l);
		return -1;
	}
	t->lock = l;
	return 0;
}

static int64_t strtab_lookup(const st_strtab *t, const char *s, size_t len,
			     uint32_t h, uint32_t *pos)
{
	uint32_t i = h & t->mask;

	for (;; i = (i + 1) & t->mask) {
		uint32_t k = t->slot[i];
		const struct st_strtab_ent *e;

		if (!k) {
			*pos = i;
			return -1;
		}
		e = ent(t, k - 1);
		if (e->hash == h && e->len == len && memcmp(e->s, s, len) == 0)
			return k - 1;
	}
}

static int strtab_grow_slots(st_strtab *t)
{
	uint32_t n = t->mask ? (t->mask + 1) * 2 : 64, *slot;

	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -1;
	for (uint32_t id = 0; id < t->n; id++) {
		uint32_t i = ent(t, id)->hash & (n - 1);

		while (slot[i])
			i = (i + 1) & (n - 1);
		slot[i] = id + 1;
	}
	free(t->slot);
	t->slot = slot;
	t->mask = n - 1;
	return 0;
}

static char *strtab_copy(st_strtab *t, const char *s, size_t len)
{
	struct st_strtab_blk *b = t->blk;
	char *d;

	if (!b || b->cap - b->used < len + 1) {
		size_t cap = len + 1 > STRTAB_BLK ? len + 1 : STRTAB_BLK;

		b = malloc(sizeof(*b) + cap);
		if (!b)
			return NULL;
		b->used = 0;
		b->cap = cap;
		/* a big string gets a block of its own behind the current one,
		 * so the current one keeps filling */
		if (t->blk && cap > STRTAB_BLK) {
			b->next = t->blk->next;
			t->blk->next = b;
		} else {
			b->next = t->blk;
			t->blk = b;
		}
	}
	d = b->data + b->used;
	if (len)
		memcpy(d, s, len);
	d[len] = '\0';
	b->used += len + 1;
	return d;
}

/* Room for entry T->n: its segment, allocated when it starts one.
 * 0, -1 out of memory. */
static int strtab_room(st_strtab *t)
{
	uint32_t k = seg_of(t->n);

	if (!t->seg[k] &&
	    !(t->seg[k] = malloc(((size_t)ST_STRTAB_SEG0 << k) *
				 sizeof(struct st_strtab_ent))))
		return -1;
	return 0;
}

static int64_t strtab_add(st_strtab *t, const char *s, size_t len,
			  bool *added)
{
	uint32_t h = (uint32_t)st_strtab_hash(s, len), pos;
	int64_t id;
	const char *copy;

	if (added)
		*added = false;
	if (len > UINT32_MAX - 1)
		return -1;
	if (!t->mask && strtab_grow_slots(t) < 0)
		return -1;
	if ((id = strtab_lookup(t, s, len, h, &pos)) >= 0)
		return id;
	if (t->n == UINT32_MAX - 1)
		return -1;
	if ((uint64_t)(t->n + 1) * 4 > (uint64_t)(t->mask + 1) * 3) {
		if (strtab_grow_slots(t) < 0)
			return -1;
		(void)strtab_lookup(t, s, len, h, &pos);
	}
	if (strtab_room(t) < 0 || !(copy = strtab_copy(t, s, len)))
		return -1;
	*ent(t, t->n) = (struct st_strtab_ent){ copy, (uint32_t)len, h };
	t->slot[pos] = t->n + 1;
	if (added)
		*added = true;
	return t->n++;
}

int64_t st_strtab_intern(st_strtab *t, const char *s, size_t len, bool *added)
{
	int64_t id;

	if (!t->lock)
		return strtab_add(t, s, len, added);
	pthread_mutex_lock(&t->lock->mu);
	id = strtab_add(t, s, len, added);
	pthread_mutex_unlock(&t->lock->mu);
	return id;
}

int64_t st_strtab_find(const st_strtab *t, const char *s, size_t len)
{
	uint32_t pos;
	int64_t id = -1;

	if (t->lock)
		pthread_mutex_lock(&t->lock->mu);
	if (t->mask)
		id = strtab_lookup(t, s, len,
				   (uint32_t)st_strtab_hash(s, len), &pos);
	if (t->lock)
		pthread_mutex_unlock(&t->lock->mu);
	return id;
}

const char *st_strtab_str(const st_strtab *t, uint32_t id, size_t *len)
{
	const struct st_strtab_ent *e = ent(t, id);

	if (len)
		*len = e->len;
	return e->s;
}
