/* strtab.c - interned strings (strtab.h): open addressing over ids, the
 * bytes in blocks that never move. */
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

#define STRTAB_BLK (64u << 10)

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
	free(t->v);
	free(t->slot);
	st_strtab_init(t);
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
		e = &t->v[k - 1];
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
		uint32_t i = t->v[id].hash & (n - 1);

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

static int64_t strtab_add(st_strtab *t, const char *s, size_t len,
			  bool *added, bool ref)
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
	if (t->n == t->cap) {
		uint32_t cap = t->cap ? t->cap * 2 : 64;
		struct st_strtab_ent *v = realloc(t->v, (size_t)cap * sizeof(*v));

		if (!v)
			return -1;
		t->v = v;
		t->cap = cap;
	}
	if (!(copy = ref ? s : strtab_copy(t, s, len)))
		return -1;
	t->v[t->n] = (struct st_strtab_ent){ copy, (uint32_t)len, h };
	t->slot[pos] = t->n + 1;
	if (added)
		*added = true;
	return t->n++;
}

int64_t st_strtab_intern(st_strtab *t, const char *s, size_t len, bool *added)
{
	return strtab_add(t, s, len, added, false);
}

int64_t st_strtab_intern_ref(st_strtab *t, const char *s, size_t len,
			     bool *added)
{
	return strtab_add(t, s, len, added, true);
}

int64_t st_strtab_find(const st_strtab *t, const char *s, size_t len)
{
	uint32_t pos;

	if (!t->mask)
		return -1;
	return strtab_lookup(t, s, len, (uint32_t)st_strtab_hash(s, len), &pos);
}

const char *st_strtab_str(const st_strtab *t, uint32_t id, size_t *len)
{
	if (len)
		*len = t->v[id].len;
	return t->v[id].s;
}
