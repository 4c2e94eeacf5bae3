/* interval.c - sorting and merging half-open intervals. */
#include <stdbool.h>

#include "streamtime/interval.h"

static void iv_swap(st_interval *a, st_interval *b)
{
	st_interval t = *a;

	*a = *b;
	*b = t;
}

static void iv_insertion(st_interval *v, size_t n)
{
	for (size_t i = 1; i < n; i++) {
		st_interval x = v[i];
		size_t j = i;

		for (; j > 0 && v[j - 1].s > x.s; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static void iv_sift(st_interval *v, size_t root, size_t n)
{
	for (;;) {
		size_t c = 2 * root + 1;

		if (c >= n)
			return;
		if (c + 1 < n && v[c + 1].s > v[c].s)
			c++;
		if (v[root].s >= v[c].s)
			return;
		iv_swap(&v[root], &v[c]);
		root = c;
	}
}

static void iv_heapsort(st_interval *v, size_t n)
{
	for (size_t i = n / 2; i-- > 0;)
		iv_sift(v, i, n);
	for (size_t i = n; i-- > 1;) {
		iv_swap(&v[0], &v[i]);
		iv_sift(v, 0, i);
	}
}

/* Introsort by start: quicksort with a median of three, heapsort when it
 * goes DEPTH levels deep, insertion sort for short runs. */
static void iv_sort(st_interval *v, size_t n, int depth)
{
	while (n > 24) {
		int64_t a = v[0].s, b = v[n / 2].s, c = v[n - 1].s, p;
		ptrdiff_t i = -1, j = (ptrdiff_t)n;

		if (depth-- == 0) {
			iv_heapsort(v, n);
			return;
		}
		p = a < b ? (b < c ? b : (a < c ? c : a))
			  : (a < c ? a : (b < c ? c : b));
		for (;;) {
			do
				i++;
			while (v[i].s < p);
			do
				j--;
			while (v[j].s > p);
			if (i >= j)
				break;
			iv_swap(&v[i], &v[j]);
		}
		/* [0, j] and [j + 1, n): recurse into the smaller */
		if ((size_t)j + 1 < n - (size_t)j - 1) {
			iv_sort(v, (size_t)j + 1, depth);
			v += j + 1;
			n -= (size_t)j + 1;
		} else {
			iv_sort(v + j + 1, n - (size_t)j - 1, depth);
			n = (size_t)j + 1;
		}
	}
	iv_insertion(v, n);
}

void st_interval_sort(st_interval *v, size_t n)
{
	int depth = 2;

	for (size_t m = n; m > 1; m >>= 1)
		depth += 2;
	iv_sort(v, n, depth);
}

size_t st_interval_union(st_interval *v, size_t n)
{
	size_t k = 0;
	bool sorted = true;

	for (size_t i = 0; i < n; i++) {
		if (v[i].e <= v[i].s)
			continue;
		if (k && v[i].s < v[k - 1].s)
			sorted = false;
		v[k++] = v[i];
	}
	n = k;
	if (!sorted)
		st_interval_sort(v, n);
	k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && v[i].s <= v[k - 1].e) {
			if (v[i].e > v[k - 1].e)
				v[k - 1].e = v[i].e;
		} else {
			v[k++] = v[i];
		}
	}
	return k;
}

int64_t st_interval_length(const st_interval *v, size_t n)
{
	int64_t t = 0;

	for (size_t i = 0; i < n; i++)
		t += v[i].e - v[i].s;
	return t;
}

int64_t st_interval_overlap(const st_interval *a, size_t na,
			    const st_interval *b, size_t nb)
{
	size_t i = 0, j = 0;
	int64_t t = 0;

	while (i < na && j < nb) {
		int64_t lo = a[i].s > b[j].s ? a[i].s : b[j].s;
		int64_t hi = a[i].e < b[j].e ? a[i].e : b[j].e;

		if (hi > lo)
			t += hi - lo;
		if (a[i].e < b[j].e)
			i++;
		else
			j++;
	}
	return t;
}
