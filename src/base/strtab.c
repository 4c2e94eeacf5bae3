/* strtab.c - interned strings (strtab.h): open addressing over ids, the
 * entries in segments and the bytes in blocks, neither of which moves. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/strtab.h"

/* An entry: where its bytes are (block << 16 | offset) and its hash,
 * 8 bytes.  The bytes: the length as a varint, then the string and a
 * NUL, or for a compact table the id + 1 of its directory (0 none) as a
 * varint and the rest of the string. */
struct st_strtab_ent {
	uint32_t at;
	uint32_t hash;
};

struct st_strtab_lock {
	pthread_mutex_t mu;
};

#define STRTAB_BLK (64u << 10)
#define STRTAB_MAXBLK (1u << 16)

/* Index I of a segmented array: segment K = floor(log2(I / SEG0 + 1))
 * holds SEG0 << K of them from SEG0 * (2^K - 1). */
static inline uint32_t seg_of(uint32_t i)
{
	return 31u - (uint32_t)__builtin_clz(i / ST_STRTAB_SEG0 + 1);
}

static inline uint32_t seg_at(uint32_t i, uint32_t k)
{
	return i - ST_STRTAB_SEG0 * ((1u << k) - 1);
}

/* Room for index I in the segmented array SEG of elements ELEM bytes:
 * 0, -1 out of memory. */
static int seg_room(void **seg, uint32_t i, size_t elem)
{
	uint32_t k = seg_of(i);

	if (!seg[k] && !(seg[k] = malloc(((size_t)ST_STRTAB_SEG0 << k) * elem)))
		return -1;
	return 0;
}

static inline struct st_strtab_ent *ent(const st_strtab *t, uint32_t id)
{
	uint32_t k = seg_of(id);

	return &t->seg[k][seg_at(id, k)];
}

static inline char *blk(const st_strtab *t, uint32_t b)
{
	uint32_t k = seg_of(b);

	return t->blk[k][seg_at(b, k)];
}

static inline const char *at(const st_strtab *t, uint32_t a)
{
	return blk(t, a >> 16) + (a & 0xffff);
}

static size_t varint_put(unsigned char *p, uint32_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		p[n++] = (unsigned char)(v | 0x80);
	p[n++] = (unsigned char)v;
	return n;
}

static const char *varint_get(const char *s, uint32_t *v)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;

	*v = 0;
	do
		*v |= (uint32_t)(p[n] & 0x7f) << (7 * n);
	while (p[n++] & 0x80);
	return s + n;
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
	if (!t)
		return;
	for (uint32_t b = 0; b < t->nblk; b++)
		free(blk(t, b));
	for (int k = 0; k < ST_STRTAB_NSEG; k++) {
		free(t->seg[k]);
		free(t->blk[k]);
	}
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

/* Entry E's length (*LEN) and bytes: the string (NUL-terminated) or, for
 * a compact table, its directory (*DIR, *DLEN; "" when none) and the
 * rest (returned). */
static const char *ent_bytes(const st_strtab *t,
			     const struct st_strtab_ent *e, uint32_t *len,
			     const char **dir, size_t *dlen)
{
	const char *p = varint_get(at(t, e->at), len);
	uint32_t d;

	*dir = "";
	*dlen = 0;
	if (!t->compact)
		return p;
	p = varint_get(p, &d);
	if (d)
		*dir = st_strtab_str(t->dirs, d - 1, dlen);
	return p;
}

/* Is entry E the string S[0..LEN) (its hash matched)? */
static inline bool ent_is(const st_strtab *t, const struct st_strtab_ent *e,
			  const char *s, size_t len)
{
	const char *dir, *rest;
	size_t dlen;
	uint32_t n;

	if (!t->compact) {
		/* the usual case first: a plain string under 128 bytes */
		const char *p = at(t, e->at);

		if (!((unsigned char)*p & 0x80))
			return (unsigned char)*p == len &&
			       memcmp(p + 1, s, len) == 0;
	}
	rest = ent_bytes(t, e, &n, &dir, &dlen);
	return n == len && dlen <= len && memcmp(s, dir, dlen) == 0 &&
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
		if (e->hash == h && ent_is(t, e, s, len))
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

/* A new block of CAP bytes, the NBLK-th: 0, -1 out of memory (or of
 * block numbers). */
static int blk_new(st_strtab *t, size_t cap)
{
	uint32_t b = t->nblk, k = seg_of(b);
	char *d;

	if (b == STRTAB_MAXBLK ||
	    seg_room((void **)t->blk, b, sizeof(char *)) < 0 ||
	    !(d = malloc(cap)))
		return -1;
	t->blk[k][seg_at(b, k)] = d;
	t->nblk++;
	return 0;
}

/* PRE[0..PN) then S[0..LEN), and a NUL unless NONUL, into T's blocks:
 * where (block << 16 | offset), or -1 when memory runs out. */
static int64_t strtab_copy(st_strtab *t, const unsigned char *pre, size_t pn,
			   const char *s, size_t len, bool nonul)
{
	size_t n = pn + len + !nonul;
	uint32_t b, off = 0;
	char *d;

	if (n > STRTAB_BLK) {
		/* a block of its own; the one filling keeps filling */
		if (blk_new(t, n) < 0)
			return -1;
		b = t->nblk - 1;
	} else {
		if (!t->filling || STRTAB_BLK - t->used < n) {
			if (blk_new(t, STRTAB_BLK) < 0)
				return -1;
			t->cur = t->nblk - 1;
			t->used = 0;
			t->filling = true;
		}
		b = t->cur;
		off = t->used;
		t->used += (uint32_t)n;
	}
	d = blk(t, b) + off;
	memcpy(d, pre, pn);
	if (len)
		memcpy(d + pn, s, len);
	if (!nonul)
		d[pn + len] = '\0';
	return (int64_t)b << 16 | off;
}

static int64_t strtab_add(st_strtab *t, const char *s, size_t len,
			  bool *added);

/* S[0..LEN)'s bytes as T keeps them, in its blocks: where, or -1 when
 * memory runs out. */
static int64_t strtab_keep(st_strtab *t, const char *s, size_t len)
{
	unsigned char pre[10];
	const char *slash;
	size_t pn = varint_put(pre, (uint32_t)len), dlen = 0;
	int64_t d = -1;

	if (!t->compact)
		return strtab_copy(t, pre, pn, s, len, false);
	if ((slash = memrchr(s, '/', len))) {
		dlen = (size_t)(slash - s) + 1;
		if (!t->dirs && !(t->dirs = calloc(1, sizeof(*t->dirs))))
			return -1;
		if ((d = strtab_add(t->dirs, s, dlen, NULL)) < 0)
			return -1;
	}
	pn += varint_put(pre + pn, (uint32_t)(d + 1));
	return strtab_copy(t, pre, pn, s + dlen, len - dlen, true);
}

static int64_t strtab_add(st_strtab *t, const char *s, size_t len,
			  bool *added)
{
	uint32_t h = (uint32_t)st_strtab_hash(s, len), pos;
	int64_t id, a;

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
	if (seg_room((void **)t->seg, t->n, sizeof(struct st_strtab_ent)) < 0 ||
	    (a = strtab_keep(t, s, len)) < 0)
		return -1;
	*ent(t, t->n) = (struct st_strtab_ent){ (uint32_t)a, h };
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
	uint32_t n;
	const char *p = varint_get(at(t, ent(t, id)->at), &n);

	if (len)
		*len = n;
	return p;
}

const char *st_strtab_get(const st_strtab *t, uint32_t id, char **buf,
			  size_t *cap, size_t *len)
{
	const char *dir, *rest;
	size_t dlen;
	uint32_t n;

	rest = ent_bytes(t, ent(t, id), &n, &dir, &dlen);
	*len = n;
	if (!t->compact)
		return rest;
	if (*cap < (size_t)n + 1) {
		char *b = realloc(*buf, (size_t)n + 1);

		if (!b)
			return NULL;
		*buf = b;
		*cap = (size_t)n + 1;
	}
	memcpy(*buf, dir, dlen);
	memcpy(*buf + dlen, rest, n - dlen);
	(*buf)[n] = '\0';
	return *buf;
}
