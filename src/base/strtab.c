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
	if (t->dirs) {
		st_strtab_release(t->dirs);
		free(t->dirs);
	}
	if (t->lock) {
		pthread_mutex_destroy(&t->lock->mu);
		free(t->lock);
	}
	st_strtab_init(t);
}

void st_strtab_compact(st_strtab *t)
{
	t->compact = true;
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

/* A compact entry's bytes: the id + 1 of its directory (0 none) as a
 * varint of 7 bits a byte, low first, then the rest of the string. */
static size_t varint_put(unsigned char *p, uint32_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (unsigned char)(v | 0x80);
	p[n++] = (unsigned char)v;
	return n;
}

static size_t varint_get(const char *s, uint32_t *v)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	*v = 0;
	do
		*v |= (uint32_t)(p[n] & 0x7f) << (7 * n);
	while (p[n++] & 0x80);
	return n;
}

/* Compact entry E's directory (*DIR, *DLEN; "" when none) and the rest
 * (returned; LEN - *DLEN bytes). */
static const char *ent_split(const st_strtab *t,
			     const struct st_strtab_ent *e, const char **dir,
			     size_t *dlen)
{
	uint32_t d;
	size_t n = varint_get(e->s, &d);

	*dir = d ? st_strtab_str(t->dirs, d - 1, dlen) : "";
	if (!d)
		*dlen = 0;
	return e->s + n;
}

/* Is entry E the string S[0..LEN) (its hash and length matched)? */
static bool ent_is(const st_strtab *t, const struct st_strtab_ent *e,
		   const char *s, size_t len)
{
	const char *dir, *rest;
	size_t dlen;

	if (!t->compact)
		return memcmp(e->s, s, len) == 0;
	rest = ent_split(t, e, &dir, &dlen);
	return dlen <= len && memcmp(s, dir, dlen) == 0 &&
	       memcmp(s + dlen, rest, len - dlen) == 0;
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
		if (e->hash == h && e->len == len && ent_is(t, e, s, len))
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

/* PRE[0..PN) then S[0..LEN) and a NUL into T's blocks: where. */
static char *strtab_copy(st_strtab *t, const unsigned char *pre, size_t pn,
			 const char *s, size_t len)
{
	struct st_strtab_blk *b = t->blk;
	char *d;

	len += pn;
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
	if (pn)
		memcpy(d, pre, pn);
	if (len > pn)
		memcpy(d + pn, s, len - pn);
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
			  bool *added);

/* S[0..LEN)'s bytes as T keeps them, in its blocks: where; NULL when
 * memory runs out. */
static const char *strtab_keep(st_strtab *t, const char *s, size_t len)
{
	unsigned char pre[5];
	const char *slash;
	size_t dlen = 0;
	int64_t d = -1;

	if (!t->compact)
		return strtab_copy(t, NULL, 0, s, len);
	if ((slash = memrchr(s, '/', len))) {
		dlen = (size_t)(slash - s) + 1;
		if (!t->dirs && !(t->dirs = calloc(1, sizeof(*t->dirs))))
			return NULL;
		if ((d = strtab_add(t->dirs, s, dlen, NULL)) < 0)
			return NULL;
	}
	return strtab_copy(t, pre, varint_put(pre, (uint32_t)(d + 1)),
			   s + dlen, len - dlen);
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
	if (strtab_room(t) < 0 || !(copy = strtab_keep(t, s, len)))
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

const char *st_strtab_get(const st_strtab *t, uint32_t id, char **buf,
			  size_t *cap, size_t *len)
{
	const struct st_strtab_ent *e = ent(t, id);
	const char *dir, *rest;
	size_t dlen;

	*len = e->len;
	if (!t->compact)
		return e->s;
	if (*cap < (size_t)e->len + 1) {
		char *b = realloc(*buf, (size_t)e->len + 1);

		if (!b)
			return NULL;
		*buf = b;
		*cap = (size_t)e->len + 1;
	}
	rest = ent_split(t, e, &dir, &dlen);
	memcpy(*buf, dir, dlen);
	memcpy(*buf + dlen, rest, e->len - dlen);
	(*buf)[e->len] = '\0';
	return *buf;
}
