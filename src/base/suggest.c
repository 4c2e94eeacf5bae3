/* suggest.c - "did you mean" (suggest.h). */
#include <stdlib.h>
#include <string.h>

#include "streamtime/suggest.h"

size_t st_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), w = lb + 1, r;
	size_t *d = malloc((la + 1) * w * sizeof(*d));

	if (!d)
		return (size_t)-1;
	for (size_t i = 0; i <= la; i++)
		d[i * w] = i;
	for (size_t j = 0; j <= lb; j++)
		d[j] = j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[(i - 1) * w + j] + 1;

			if (d[i * w + j - 1] + 1 < v)
				v = d[i * w + j - 1] + 1;
			if (d[(i - 1) * w + j - 1] + cost < v)
				v = d[(i - 1) * w + j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
			    a[i - 2] == b[j - 1] && d[(i - 2) * w + j - 2] + 1 < v)
				v = d[(i - 2) * w + j - 2] + 1;
			d[i * w + j] = v;
		}
	r = d[la * w + lb];
	free(d);
	return r;
}

const char *st_suggest(const char *word, const char *const *cands, size_t n)
{
	const char *best = NULL;
	size_t bestd = (size_t)-1, ties = 0;

	for (size_t i = 0; n == (size_t)-1 ? cands[i] != NULL : i < n; i++) {
		size_t d = st_edit_distance(word, cands[i]);

		if (d < bestd) {
			bestd = d;
			best = cands[i];
			ties = 0;
		} else if (d == bestd) {
			ties++;
		}
	}
	if (!best || ties) {
		return NULL;
	} else {
		size_t lw = strlen(word), lc = strlen(best);
		size_t lim = (lw > lc ? lw : lc) / 3;

		return bestd <= (lim < 1 ? 1 : lim) ? best : NULL;
	}
}
