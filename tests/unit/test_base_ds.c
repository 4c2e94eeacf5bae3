/* test_base_ds.c - the generic data structures of src/base: intervals,
 * the pair map, interned strings, the heap and the output buffer. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/heap.h"
#include "streamtime/interval.h"
#include "streamtime/outbuf.h"
#include "streamtime/pairmap.h"
#include "streamtime/strtab.h"

#include "rnd.h"

static int cmp_start(const void *x, const void *y)
{
	const st_interval *a = x, *b = y;

	return a->s < b->s ? -1 : a->s > b->s;
}

/* Random, sorted, reversed and all-equal inputs (the last two drive a
 * naive quicksort deep: the heapsort fallback), against qsort. */
static void test_interval_sort(void **state)
{
	enum { N = 5000 };
	st_interval *v = malloc(N * sizeof(*v)), *w = malloc(N * sizeof(*w));

	(void)state;
	for (int kind = 0; kind < 5; kind++) {
		size_t n = kind == 4 ? 7 : N;

		for (size_t i = 0; i < n; i++) {
			int64_t s = kind == 0 ? (int64_t)(rnd() % 1000) - 500
				  : kind == 1 ? (int64_t)i
				  : kind == 2 ? (int64_t)(n - i) : 42;

			if (kind == 4)
				s = (int64_t)(rnd() % 5);
			v[i] = w[i] = (st_interval){ s, s + (int64_t)i };
		}
		st_interval_sort(v, n);
		qsort(w, n, sizeof(*w), cmp_start);
		for (size_t i = 0; i < n; i++)
			assert_true(v[i].s == w[i].s);
	}
	st_interval_sort(v, 0);
	free(v);
	free(w);
}

static void test_interval_union(void **state)
{
	st_interval v[] = { { 50, 60 }, { 0, 10 }, { 5, 5 }, { 10, 20 },
			    { 55, 70 }, { 30, 31 } };
	st_interval b[] = { { 15, 35 }, { 65, 100 } };
	size_t k;

	(void)state;
	k = st_interval_union(v, 6);
	assert_int_equal(k, 3);
	assert_true(v[0].s == 0 && v[0].e == 20);
	assert_true(v[1].s == 30 && v[1].e == 31);
	assert_true(v[2].s == 50 && v[2].e == 70);
	assert_true(st_interval_length(v, k) == 41);
	/* [15, 20) + [30, 31) + [65, 70) */
	assert_true(st_interval_overlap(v, k, b, 2) == 11);
	assert_int_equal(st_interval_union(v, 0), 0);
}

/* A thousand pairs through several grows, each found again. */
static void test_pairmap(void **state)
{
	st_pairmap m = { 0 };
	uint64_t *v;
	bool added;

	(void)state;
	assert_null(st_pairmap_find(&m, 1, 2));
	for (uint64_t i = 0; i < 1000; i++) {
		v = st_pairmap_get(&m, i, i * 7, &added);
		assert_true(v && added);
		if (v)
			*v = i + 1;
	}
	assert_int_equal(m.n, 1000);
	assert_true(m.n * 4 <= m.cap * 3);
	for (uint64_t i = 0; i < 1000; i++) {
		const uint64_t *f = st_pairmap_find(&m, i, i * 7);

		if (!f)
			fail();
		assert_int_equal(*f, i + 1);
		assert_null(st_pairmap_find(&m, i, i * 7 + 1));
	}
	v = st_pairmap_get(&m, 3, 21, &added);
	if (!v)
		fail();
	assert_int_equal(*v, 4);
	assert_false(added);
	assert_non_null(st_pairmap_get(&m, UINT64_MAX, 0, NULL));
	st_pairmap_release(&m);
	assert_null(m.e);
	assert_int_equal(m.n, 0);
}

/* Pops come out in key order, with their values. */
/* Ids are dense in the order of first sight, the one-entry cache gives
 * the same answer as the map, and a forgotten cache is looked up again. */
static void test_pairids(void **state)
{
	st_pairids p = { 0 };
	bool added;

	(void)state;
	assert_int_equal(st_pairids_find(&p, 1, 2), -1);
	assert_int_equal(st_pairids_get(&p, 1, 2, &added), 0);
	assert_true(added);
	assert_int_equal(st_pairids_get(&p, 1, 2, &added), 0);
	assert_false(added);
	assert_int_equal(st_pairids_get(&p, 2, 1, &added), 1);
	assert_true(added);
	assert_int_equal(st_pairids_get(&p, 1, 2, &added), 0);
	assert_false(added);
	for (uint64_t i = 0; i < 1000; i++)
		assert_int_equal(st_pairids_get(&p, 7, i, &added), (int64_t)i + 2);
	st_pairids_forget(&p);
	assert_int_equal(st_pairids_get(&p, 7, 999, &added), 1001);
	assert_false(added);
	assert_int_equal(st_pairids_find(&p, 2, 1), 1);
	assert_int_equal(st_pairids_find(&p, 7, 1000), -1);
	st_pairids_release(&p);
	assert_int_equal(st_pairids_find(&p, 1, 2), -1);
}

static void test_strtab(void **state)
{
	st_strtab t;
	char buf[32];
	size_t len;

	(void)state;
	st_strtab_init(&t);
	assert_int_equal(st_strtab_find(&t, "a", 1), -1);
	for (int i = 0; i < 5000; i++) {
		bool added;

		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(st_strtab_intern(&t, buf, strlen(buf), &added), i);
		assert_true(added);
	}
	for (int i = 0; i < 5000; i++) {
		bool added;

		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(st_strtab_intern(&t, buf, strlen(buf), &added), i);
		assert_false(added);
		assert_string_equal(st_strtab_str(&t, (uint32_t)i, &len), buf);
		assert_int_equal(len, strlen(buf));
	}
	/* bytes, not C strings: NUL inside, and the empty string */
	assert_int_equal(st_strtab_intern(&t, "a\0b", 3, NULL), 5000);
	assert_int_equal(st_strtab_intern(&t, "a\0c", 3, NULL), 5001);
	assert_int_equal(st_strtab_intern(&t, "", 0, NULL), 5002);
	assert_int_equal(st_strtab_find(&t, "a\0b", 3), 5000);
	/* a string bigger than a block */
	{
		size_t n = 200000;
		char *big = malloc(n);

		memset(big, 'x', n);
		assert_int_equal(st_strtab_intern(&t, big, n, NULL), 5003);
		assert_int_equal(st_strtab_find(&t, big, n), 5003);
		free(big);
	}
	assert_string_equal(st_strtab_str(&t, 4999, NULL), "s4999");
	st_strtab_release(&t);
}

/* Ids across the entries' segments (64, 128, 256, ... of them) map to
 * their strings, which stay at their addresses while the table grows. */
static void test_strtab_segments(void **state)
{
	enum { N = 70000 };
	st_strtab t;
	const char **at = malloc(N * sizeof(*at));
	char buf[32];

	(void)state;
	assert_non_null(at);
	st_strtab_init(&t);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "/data/f%d", i);
		assert_int_equal(st_strtab_intern(&t, buf, strlen(buf), NULL), i);
		at[i] = st_strtab_str(&t, (uint32_t)i, NULL);
	}
	for (int i = 0; i < N; i++) {
		size_t len;

		snprintf(buf, sizeof(buf), "/data/f%d", i);
		assert_ptr_equal(st_strtab_str(&t, (uint32_t)i, &len), at[i]);
		assert_int_equal(len, strlen(buf));
		assert_string_equal(at[i], buf);
		assert_int_equal(st_strtab_find(&t, buf, len), i);
	}
	assert_int_equal(t.n, N);
	free(at);
	st_strtab_release(&t);
}

/* A compact table keeps a path as its directory's id and its base name:
 * every string comes back whole, ids and lookups as a plain table's,
 * whatever the slashes (none, several, at the ends) and bytes. */
/* A first string longer than a block (64 KiB) gets a block of its own;
 * the short strings after it must not be written over it (they were:
 * the long one then read back as the short one, a second id, and in a
 * compact table its directory past a short string's end).  Plain and
 * compact tables, a long name and a long directory. */
static void test_strtab_long_first_string(void **state)
{
	enum { LONG = 70000 };
	char *big = malloc(LONG + 3), *got = NULL;
	size_t cap = 0, len;

	(void)state;
	assert_non_null(big);
	for (int kind = 0; kind < 3; kind++) {
		st_strtab t;
		int64_t id;

		/* "/LLL...", "/DDD.../a" (compact: a long directory) */
		big[0] = '/';
		memset(big + 1, kind == 2 ? 'D' : 'L', LONG);
		memcpy(big + 1 + LONG, "/a", 2);
		len = kind == 2 ? LONG + 3 : LONG + 1;
		st_strtab_init(&t);
		if (kind)
			st_strtab_compact(&t);
		assert_int_equal(st_strtab_intern(&t, big, len, NULL), 0);
		assert_int_equal(st_strtab_intern(&t, "/b", 2, NULL), 1);
		assert_int_equal(st_strtab_intern(&t, "/x/c", 4, NULL), 2);
		id = st_strtab_intern(&t, big, len, NULL);
		assert_int_equal(id, 0);
		assert_int_equal(st_strtab_find(&t, big, len), 0);
		if (kind) {
			const char *s = st_strtab_get(&t, 0, &got, &cap, &len);

			assert_int_equal(len, kind == 2 ? LONG + 3 : LONG + 1);
			assert_memory_equal(s, big, len);
			s = st_strtab_get(&t, 1, &got, &cap, &len);
			assert_int_equal(len, 2);
			assert_memory_equal(s, "/b", 2);
		} else {
			const char *s = st_strtab_str(&t, 0, &len);

			assert_int_equal(len, LONG + 1);
			assert_memory_equal(s, big, len);
		}
		assert_int_equal(t.n, 3);
		st_strtab_release(&t);
	}
	free(got);
	free(big);
}

static void test_strtab_compact(void **state)
{
	static const char *const odd[] = { "", "/", "//", "a/", "/a", "x",
					   "ab/c", "a/bc", "a\0/b/c", "/p/q/" };
	static const size_t oddlen[] = { 0, 1, 2, 2, 2, 1, 4, 4, 7, 5 };
	enum { N = 20000, ODD = 10 };
	st_strtab t, plain;
	char buf[96], *got = NULL;
	size_t cap = 0, len;

	(void)state;
	st_strtab_init(&t);
	st_strtab_init(&plain);
	st_strtab_compact(&t);
	for (int i = 0; i < N; i++) {
		snprintf(buf, sizeof(buf), "/p/lustre1/dlio/data/%s/img_%06d.npz",
			 i % 3 ? "train" : "valid", i / 2);
		assert_int_equal(st_strtab_intern(&t, buf, strlen(buf), NULL),
				 st_strtab_intern(&plain, buf, strlen(buf),
						  NULL));
	}
	for (int i = 0; i < ODD; i++)
		assert_int_equal(st_strtab_intern(&t, odd[i], oddlen[i], NULL),
				 st_strtab_intern(&plain, odd[i], oddlen[i],
						  NULL));
	assert_int_equal(t.n, plain.n);
	for (uint32_t id = 0; id < plain.n; id++) {
		size_t pl;
		const char *p = st_strtab_str(&plain, id, &pl);
		const char *c = st_strtab_get(&t, id, &got, &cap, &len);

		assert_non_null(c);
		assert_int_equal(len, pl);
		assert_memory_equal(c, p, pl);
		assert_int_equal(c[len], '\0');
		assert_int_equal(st_strtab_find(&t, p, pl), (int64_t)id);
		assert_int_equal(st_strtab_intern(&t, p, pl, NULL), (int64_t)id);
	}
	/* the directories are kept once: two, here, and those of ODD */
	assert_non_null(t.dirs);
	assert_true(t.dirs->n <= 2 + ODD);
	assert_int_equal(st_strtab_find(&t, "/p/lustre1/dlio/data/train/", 27),
			 -1);
	/* a plain table's string is its own address */
	assert_ptr_equal(st_strtab_get(&plain, 3, &got, &cap, &len),
			 st_strtab_str(&plain, 3, NULL));
	free(got);
	st_strtab_release(&t);
	st_strtab_release(&plain);
}

struct shared_arg {
	st_strtab *t;
	int first, n;           /* the strings common to both, from FIRST */
	int own;                /* and this many of its own */
	int64_t *ids;           /* by common string */
	int bad;
};

static void *shared_main(void *arg)
{
	struct shared_arg *a = arg;
	char buf[48], *got = NULL;
	size_t cap = 0;

	for (int k = 0; k < a->n + a->own; k++) {
		int i = (a->first + k) % a->n;
		size_t len;
		int64_t id;
		const char *s;

		if (k < a->n)
			snprintf(buf, sizeof(buf), "/p/lustre/img_%06d.npz", i);
		else
			snprintf(buf, sizeof(buf), "own/%p/%d", (void *)a, k);
		id = st_strtab_intern(a->t, buf, strlen(buf), NULL);
		s = id < 0 ? NULL : st_strtab_get(a->t, (uint32_t)id, &got, &cap,
						  &len);
		/* read while the other thread adds */
		if (!s || len != strlen(buf) || memcmp(s, buf, len) != 0)
			a->bad++;
		if (k < a->n)
			a->ids[i] = id;
	}
	free(got);
	return NULL;
}

/* A table two threads intern into at once (st_strtab_share): one id per
 * string whoever added it, every id's text right while the other adds;
 * plain and compact. */
static void shared_run(bool compact)
{
	enum { N = 30000, OWN = 5000 };
	st_strtab t;
	struct shared_arg a[2];
	pthread_t th[2];

	st_strtab_init(&t);
	if (compact)
		st_strtab_compact(&t);
	assert_int_equal(st_strtab_share(&t), 0);
	for (int j = 0; j < 2; j++) {
		a[j] = (struct shared_arg){ &t, j * N / 2, N, OWN,
					    calloc(N, sizeof(int64_t)), 0 };
		assert_non_null(a[j].ids);
		assert_int_equal(pthread_create(&th[j], NULL, shared_main,
						&a[j]), 0);
	}
	for (int j = 0; j < 2; j++)
		assert_int_equal(pthread_join(th[j], NULL), 0);
	assert_int_equal(a[0].bad + a[1].bad, 0);
	assert_int_equal(t.n, N + 2 * OWN);
	for (int i = 0; i < N; i++) {
		char buf[48];

		snprintf(buf, sizeof(buf), "/p/lustre/img_%06d.npz", i);
		assert_true(a[0].ids[i] >= 0);
		assert_int_equal(a[0].ids[i], a[1].ids[i]);
		assert_int_equal(st_strtab_find(&t, buf, strlen(buf)),
				 a[0].ids[i]);
	}
	free(a[0].ids);
	free(a[1].ids);
	st_strtab_release(&t);
}

static void test_strtab_shared(void **state)
{
	(void)state;
	shared_run(false);
	shared_run(true);
}

static void test_heap(void **state)
{
	enum { N = 3000 };
	st_heap h = { 0 };
	int64_t last = INT64_MIN;

	(void)state;
	for (uint32_t i = 0; i < N; i++) {
		int64_t k = (int64_t)(rnd() % 100) - 50;

		assert_int_equal(st_heap_push(&h, k, (uint32_t)(k + 50)), 0);
	}
	for (uint32_t i = 0; i < N; i++) {
		st_heap_entry e = st_heap_pop(&h);

		assert_true(e.key >= last);
		assert_int_equal(e.val, (uint32_t)(e.key + 50));
		last = e.key;
	}
	assert_int_equal(h.n, 0);
	st_heap_release(&h);
	st_heap_release(&h);
}

/* Pieces small and larger than the buffer, integers at the extremes and
 * JSON escapes, read back from a file. */
static void test_outbuf(void **state)
{
	static st_outbuf o;
	volatile size_t bigsize = 100000;   /* not a constant: gcc's bounds
					     * check cannot see the branch */
	char *big = malloc(bigsize), got[256];
	FILE *f = tmpfile();
	size_t n;

	(void)state;
	memset(big, 'x', bigsize);
	st_outbuf_init(&o, f);
	st_outbuf_str(&o, "a");
	st_outbuf_put(&o, big, bigsize);
	st_outbuf_int(&o, INT64_MIN);
	st_outbuf_put(&o, " ", 1);
	st_outbuf_int(&o, 0);
	st_outbuf_put(&o, " ", 1);
	st_outbuf_int(&o, INT64_MAX);
	st_outbuf_json(&o, "q\"b\\c\n\x01", 7);
	st_outbuf_flush(&o);
	assert_false(o.failed);
	assert_int_equal(ftell(f), 100001 + 20 + 3 + 19 + 21);
	fseek(f, 100001, SEEK_SET);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	assert_string_equal(got, "-9223372036854775808 0 9223372036854775807"
			    "\"q\\\"b\\\\c\\u000a\\u0001\"");
	fclose(f);
	free(big);
}

/* Doubling from FIRST, no realloc while there is room, and a size that
 * would overflow refused with the array left as it was. */
static void test_grow(void **state)
{
	int64_t *v = NULL, *before;
	size_t n = 0, cap = 0;

	(void)state;
	for (; n < 1000; n++) {
		assert_int_equal(ST_GROW(v, n, cap, 8), 0);
		assert_true(cap > n);
		assert_true(cap == 8 || (cap & (cap - 1)) == 0);
		v[n] = (int64_t)n;
	}
	assert_int_equal(cap, 1024);
	before = v;
	assert_int_equal(ST_GROW(v, 1023, cap, 8), 0);
	assert_ptr_equal(v, before);
	for (size_t i = 0; i < n; i++)
		assert_true(v[i] == (int64_t)i);
	assert_int_equal(st_grow(&v, &cap, SIZE_MAX / 4, sizeof(*v), 8), -1);
	assert_ptr_equal(v, before);
	assert_int_equal(cap, 1024);
	free(v);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interval_sort),
		cmocka_unit_test(test_interval_union),
		cmocka_unit_test(test_pairmap),
		cmocka_unit_test(test_pairids),
		cmocka_unit_test(test_strtab),
		cmocka_unit_test(test_strtab_segments),
		cmocka_unit_test(test_strtab_shared),
		cmocka_unit_test(test_strtab_long_first_string),
		cmocka_unit_test(test_strtab_compact),
		cmocka_unit_test(test_heap),
		cmocka_unit_test(test_outbuf),
		cmocka_unit_test(test_grow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
