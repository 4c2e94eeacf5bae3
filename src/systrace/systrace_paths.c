/* systrace_paths.c - the paths of openat for the names of read, write
 * and close.  The seed's read, write and close scripts print the file's
 * dentry name (a basename: sample_003.npz), its openat script the path as
 * passed; a call's name is the path of the last open of its (pid, fd)
 * before it when that path ends in the name. */
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/num.h"
#include "systrace_int.h"

struct opens_ctx {
	struct st_systrace *s;
	size_t cap, used, arena_cap;
};

static int open_call(void *ctx, const st_sys_call *c, st_error *err)
{
	struct opens_ctx *o = ctx;
	struct st_systrace *s = o->s;

	/* a failed open, or a name with no directory: nothing to add */
	if (c->fd < 0 || !c->flen || !memchr(c->file, '/', c->flen))
		return 0;
	if (ST_GROW(s->opens, s->nopens, o->cap, 1024) < 0 ||
	    st_grow(&s->open_paths, &o->arena_cap, o->used + c->flen, 1,
		    65536) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	memcpy(s->open_paths + o->used, c->file, c->flen);
	s->opens[s->nopens++] = (struct sys_open){ c->pid, c->fd, c->ts,
						   o->used, c->flen };
	o->used += c->flen;
	return 0;
}

static int cmp_open(const void *x, const void *y)
{
	const struct sys_open *a = x, *b = y;
	int c = ST_CMP(a->pid, b->pid);

	if (!c)
		c = ST_CMP(a->fd, b->fd);
	return c ? c : ST_CMP(a->ts, b->ts);
}

int sys_opens_read(struct st_systrace *s, const char *path, st_error *err)
{
	struct opens_ctx o = { .s = s };

	if (sys_each_call(path, NULL, open_call, &o, NULL, err) < 0)
		return -1;
	if (s->nopens)
		qsort(s->opens, s->nopens, sizeof(*s->opens), cmp_open);
	/* each (pid, fd) -> its run of opens: the start << 32 | the count */
	for (size_t i = 0, j; i < s->nopens && s->nopens < UINT32_MAX; i = j) {
		uint64_t *v = st_pairmap_get(&s->open_run,
					     (uint64_t)s->opens[i].pid,
					     (uint64_t)s->opens[i].fd, NULL);

		if (!v)
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		for (j = i + 1; j < s->nopens && s->opens[j].pid ==
		     s->opens[i].pid && s->opens[j].fd == s->opens[i].fd; j++)
			;
		*v = (uint64_t)i << 32 | (uint64_t)(j - i);
	}
	return 0;
}

const char *sys_open_path(const struct st_systrace *s, int64_t pid,
			  int64_t fd, int64_t ts, const char *name,
			  size_t nlen, size_t *len)
{
	const uint64_t *run = st_pairmap_find(&s->open_run, (uint64_t)pid,
					      (uint64_t)fd);
	size_t lo, hi, first;
	const struct sys_open *o;
	const char *p;

	if (!run)
		return NULL;
	first = lo = (size_t)(*run >> 32);
	hi = lo + (size_t)(*run & UINT32_MAX);
	/* the first open of the run after ts; the one before it is the last
	 * at or before ts */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->opens[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == first)
		return NULL;
	o = &s->opens[lo - 1];
	if (o->len <= nlen)
		return NULL;
	p = s->open_paths + o->off;
	if (p[o->len - nlen - 1] != '/' ||
	    memcmp(p + o->len - nlen, name, nlen) != 0)
		return NULL;
	*len = o->len;
	return p;
}
