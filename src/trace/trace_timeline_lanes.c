/* trace_timeline_lanes.c - first-fit lanes for overlapping slices of a
 * track (trace_timeline.h). */
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace_timeline.h"
#include "trace_int.h"

/* By track, start, the longer first (so that an equal start nests), then
 * the order of writing. */
int trace_cmp_lrec(const void *x, const void *y)
{
	const struct lrec *a = x, *b = y;

	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static bool lrec_less(const struct lrec *a, const struct lrec *b)
{
	if (a->track != b->track)
		return a->track < b->track;
	if (a->s != b->s)
		return a->s < b->s;
	if (a->e != b->e)
		return a->e > b->e;
	return a->seq < b->seq;
}

/* Move V[I] down the max heap V[0..N). */
static void lrec_sift(struct lrec *v, size_t i, size_t n)
{
	struct lrec x = v[i];

	for (size_t c; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && lrec_less(&v[c], &v[c + 1]))
			c++;
		if (!lrec_less(&x, &v[c]))
			break;
		v[i] = v[c];
	}
	v[i] = x;
}

/* Heapsort of V[0..N): the introsort's way out of a bad pivot run. */
static void lrec_heapsort(struct lrec *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		lrec_sift(v, i, n);
	for (size_t i = n; i-- > 1;) {
		struct lrec x = v[0];

		v[0] = v[i];
		v[i] = x;
		lrec_sift(v, 0, i);
	}
}

static void lrec_swap(struct lrec *a, struct lrec *b)
{
	struct lrec x = *a;

	*a = *b;
	*b = x;
}

/* Introsort of V[0..N): quicksort on the median of three, insertion sort
 * below 16, heapsort past DEPTH levels; the smaller side recursed. */
static void lrec_intro(struct lrec *v, size_t n, int depth)
{
	while (n > 16) {
		struct lrec *m = v + n / 2, *hi = v + n - 1, p;
		size_t i = 0, j = n - 1;

		if (depth-- == 0) {
			lrec_heapsort(v, n);
			return;
		}
		if (lrec_less(m, v))
			lrec_swap(m, v);
		if (lrec_less(hi, m)) {
			lrec_swap(hi, m);
			if (lrec_less(m, v))
				lrec_swap(m, v);
		}
		p = *m;
		/* Hoare's partition: v[0] <= p <= v[n-1] stop the scans */
		for (;;) {
			while (lrec_less(&v[i], &p))
				i++;
			while (lrec_less(&p, &v[j]))
				j--;
			if (i >= j)
				break;
			lrec_swap(&v[i++], &v[j--]);
		}
		/* [0, j] <= p <= [j + 1, n) */
		if (j + 1 < n - j - 1) {
			lrec_intro(v, j + 1, depth);
			v += j + 1;
			n -= j + 1;
		} else {
			lrec_intro(v + j + 1, n - j - 1, depth);
			n = j + 1;
		}
	}
	for (size_t i = 1; i < n; i++) {
		struct lrec x = v[i];
		size_t k = i;

		for (; k > 0 && lrec_less(&x, &v[k - 1]); k--)
			v[k] = v[k - 1];
		v[k] = x;
	}
}

void trace_lrec_sort(struct lrec *v, size_t n)
{
	size_t i = 1;
	int depth = 0;

	while (i < n && !lrec_less(&v[i], &v[i - 1]))
		i++;
	if (i >= n)
		return;           /* sorted already: one track, in time order */
	for (size_t k = n; k > 1; k /= 2)
		depth += 2;
	lrec_intro(v, n, depth);
}

static void laner_set(struct laner *L, size_t lane, int64_t room)
{
	size_t i = L->leaves + lane;

	L->tree[i] = room;
	for (i /= 2; i >= 1; i /= 2)
		L->tree[i] = L->tree[2 * i] > L->tree[2 * i + 1]
			     ? L->tree[2 * i] : L->tree[2 * i + 1];
}

/* Room for twice the leaves (or the first 16). */
static int laner_grow(struct laner *L)
{
	size_t leaves = L->leaves ? L->leaves * 2 : 16;
	int64_t *tree = malloc(2 * leaves * sizeof(*tree));
	struct lstack *st = realloc(L->st, leaves * sizeof(*st));

	if (st)
		L->st = st;
	if (!tree || !st) {
		free(tree);
		return -1;
	}
	memset(st + L->leaves, 0, (leaves - L->leaves) * sizeof(*st));
	for (size_t i = 0; i < leaves; i++)
		tree[leaves + i] = i < L->leaves ? L->tree[L->leaves + i]
						 : INT64_MAX;
	for (size_t i = leaves - 1; i >= 1; i--)
		tree[i] = tree[2 * i] > tree[2 * i + 1] ? tree[2 * i]
							: tree[2 * i + 1];
	free(L->tree);
	L->tree = tree;
	L->leaves = leaves;
	return 0;
}

/* A new track: every lane empty. */
void trace_laner_reset(struct laner *L)
{
	for (size_t l = 0; l < L->nlanes; l++) {
		L->st[l].n = 0;
		laner_set(L, l, INT64_MAX);
	}
	L->nlanes = 0;
	L->heap.n = 0;
}

void trace_laner_release(struct laner *L)
{
	for (size_t l = 0; l < L->leaves; l++)
		free(L->st[l].v);
	free(L->st);
	free(L->tree);
	st_heap_release(&L->heap);
	memset(L, 0, sizeof(*L));
}

/* The lane of [S, E), the slices coming in trace_cmp_lrec's order; -1 when
 * memory runs out. */
int64_t trace_laner_place(struct laner *L, int64_t s, int64_t e)
{
	struct lstack *st;
	size_t i;

	/* close what ended by s (a pop closes the innermost slices first:
	 * those above an ended one end no later) */
	while (L->heap.n && L->heap.v[0].key <= s) {
		uint32_t l = st_heap_pop(&L->heap).val;

		st = &L->st[l];
		if (!st->n || st->v[st->n - 1] > s)
			continue;       /* closed already */
		while (st->n && st->v[st->n - 1] <= s)
			st->n--;
		laner_set(L, l, st->n ? st->v[st->n - 1] : INT64_MAX);
	}
	if (L->nlanes + 1 >= L->leaves && laner_grow(L) < 0)
		return -1;
	for (i = 1; i < L->leaves;)
		i = L->tree[2 * i] >= e ? 2 * i : 2 * i + 1;
	i -= L->leaves;
	if (i == L->nlanes)
		L->nlanes++;
	st = &L->st[i];
	if (ST_GROW(st->v, st->n, st->cap, 8) < 0)
		return -1;
	st->v[st->n++] = e;
	laner_set(L, i, e);
	if (st_heap_push(&L->heap, e, (uint32_t)i) < 0)
		return -1;
	return (int64_t)i;
}

int64_t st_trace_lanes(const st_trace_iv *v, size_t n, uint32_t *lane)
{
	struct lrec *r;
	struct laner L = { 0 };
	int64_t nl = 0;

	if (n == 0)
		return 0;
	if (n > UINT32_MAX || !(r = malloc(n * sizeof(*r))))
		return -1;
	for (size_t i = 0; i < n; i++)
		r[i] = (struct lrec){ v[i].s, v[i].e, 0, (uint32_t)i };
	qsort(r, n, sizeof(*r), trace_cmp_lrec);
	for (size_t i = 0; i < n; i++) {
		int64_t l = trace_laner_place(&L, r[i].s, r[i].e);

		if (l < 0) {
			nl = -1;
			break;
		}
		lane[r[i].seq] = (uint32_t)l;
	}
	if (nl == 0)
		nl = (int64_t)L.nlanes;
	trace_laner_release(&L);
	free(r);
	return nl;
}

