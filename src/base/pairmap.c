/* pairmap.c - growing and freeing the pair maps (lookups: pairmap.h). */
#include <stdlib.h>
#include <string.h>

#include "streamtime/pairmap.h"

int st_pairmap_grow(st_pairmap *m)
{
	size_t cap = m->cap ? m->cap * 2 : 256;
	st_pairmap_entry *e = calloc(cap, sizeof(*e));

	if (!e)
		return -1;
	for (size_t i = 0; i < m->cap; i++) {
		size_t j;

		if (!m->e[i].used)
			continue;
		j = st_pairmap_hash(m->e[i].a, m->e[i].b) & (cap - 1);
		while (e[j].used)
			j = (j + 1) & (cap - 1);
		e[j] = m->e[i];
	}
	free(m->e);
	m->e = e;
	m->cap = cap;
	return 0;
}

void st_pairmap_release(st_pairmap *m)
{
	free(m->e);
	memset(m, 0, sizeof(*m));
}
