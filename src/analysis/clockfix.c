/* clockfix.c - measured clock offsets applied to timestamps. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/clockfix.h"
#include "streamtime/num.h"
#include "streamtime/search.h"

static int offset_cmp(const void *a, const void *b)
{
	const st_clock_offset *x = a, *y = b;
	int c = strcmp(x->target, y->target);

	if (c)
		return c;
	return (x->at > y->at) - (x->at < y->at);
}

/* CELL (decimal milliseconds) as ns. */
static int cell_ms(const st_table *t, size_t row, int col, st_duration *out,
		   st_error *err)
{
	double ms;

	if (st_table_get_double(t, row, col, &ms, err) < 0)
		return -1;
	if (ms > 1e12 || ms < -1e12)
		return st_table_cell_error(t, row, col, "out of range", err);
	*out = (st_duration)(ms * 1e6 + (ms < 0 ? -0.5 : 0.5));
	return 0;
}

int st_clock_offsets_load(st_clock_offsets *o, const st_table *t,
			  st_error *err)
{
	static const char *const need[] = { "measured_at", "reference", "target",
					    "offset_ms", "bound_ms" };
	int idx[5];

	memset(o, 0, sizeof(*o));
	if (st_table_require(t, need, idx, 5, err) < 0)
		return -1;
	if (t->nrows == 0)
		return st_error_set(err, ST_EXIT_DATAERR, "%s: no measurements",
				    t->name);
	o->v = calloc(t->nrows, sizeof(*o->v));
	if (!o->v)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	snprintf(o->reference, sizeof(o->reference), "%s", st_table_get(t, 0, idx[1]));
	for (size_t i = 0; i < t->nrows; i++) {
		st_clock_offset *m = &o->v[i];
		st_error terr;

		if (strcmp(st_table_get(t, i, idx[1]), o->reference) != 0) {
			st_table_cell_error(t, i, idx[1], "another reference clock than "
					    "the first row's; use one file per "
					    "reference", err);
			goto fail;
		}
		m->target = st_table_get(t, i, idx[2]);
		if (!*m->target) {
			st_table_cell_error(t, i, idx[2], "empty", err);
			goto fail;
		}
		if (st_time_parse(st_table_get(t, i, idx[0]), NULL, &m->at, NULL,
				  &terr) < 0) {
			st_table_cell_error(t, i, idx[0], terr.text, err);
			goto fail;
		}
		if (cell_ms(t, i, idx[3], &m->offset, err) < 0 ||
		    cell_ms(t, i, idx[4], &m->bound, err) < 0)
			goto fail;
		if (m->bound < 0) {
			st_table_cell_error(t, i, idx[4], "negative", err);
			goto fail;
		}
	}
	o->n = t->nrows;
	qsort(o->v, o->n, sizeof(*o->v), offset_cmp);
	return 0;
fail:
	st_clock_offsets_release(o);
	return -1;
}

void st_clock_offsets_release(st_clock_offsets *o)
{
	if (!o)
		return;
	free(o->v);
	memset(o, 0, sizeof(*o));
}

/* st_lower_bound comparators: a host name, an instant against an entry. */
static int cmp_target(const void *host, const void *elem)
{
	return strcmp(host, ((const st_clock_offset *)elem)->target);
}

static int cmp_at(const void *t, const void *elem)
{
	st_instant a = *(const st_instant *)t, b = ((const st_clock_offset *)elem)->at;

	return (a > b) - (a < b);
}

const st_clock_offset *st_clock_offsets_at(const st_clock_offsets *o,
					   const char *host, st_instant t,
					   st_error *err)
{
	size_t lo, first, end;
	const st_clock_offset *best = NULL;

	/* the block of HOST */
	first = st_lower_bound(o->v, o->n, sizeof(*o->v), host, cmp_target);
	for (end = first; end < o->n && strcmp(o->v[end].target, host) == 0; end++)
		;
	if (first == end) {
		st_error_set(err, ST_EXIT_DATAERR, "no clock measurement of host "
			     "'%s' (the offsets file names its targets in the "
			     "'target' column)", host);
		return NULL;
	}
	/* nearest in time: the first at >= t, or the one before it */
	lo = first + st_lower_bound(o->v + first, end - first, sizeof(*o->v), &t,
				    cmp_at);
	if (lo < end)
		best = &o->v[lo];
	if (lo > first && (!best || t - o->v[lo - 1].at <= best->at - t))
		best = &o->v[lo - 1];
	return best;
}

int st_clock_fix_time(const st_clock_fix *f, const char *host, st_instant *t,
		      st_duration *bound, st_error *err)
{
	const st_clock_offset *m;

	if (!f || !host)
		return 0;
	m = st_clock_offsets_at(f->offsets, host, *t, err);
	if (!m)
		return -1;
	if (f->far) {
		st_duration away;

		/* more than 292 years apart is far too */
		if (__builtin_sub_overflow(m->at, *t, &away) || away == INT64_MIN)
			away = INT64_MAX;
		else if (away < 0)
			away = -away;
		f->far->total++;
		if (away > ST_CLOCK_FAR_NS)
			f->far->count++;
		if (away > f->far->worst)
			f->far->worst = away;
	}
	*t -= m->offset;
	if (bound)
		*bound += m->bound;
	return 0;
}

int st_clock_fix_parse_hosts(st_clock_fix *f, char *s, st_error *err)
{
	char *save = NULL;

	f->nreceivers = 0;
	for (char *h = strtok_r(s, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
		if (f->nreceivers == ST_CLOCKFIX_MAX_HOSTS)
			return st_error_set(err, ST_EXIT_USAGE, "--receiver-hosts: "
					    "more than %d hosts", ST_CLOCKFIX_MAX_HOSTS);
		f->receiver[f->nreceivers++] = h;
	}
	if (f->nreceivers == 0)
		return st_error_set(err, ST_EXIT_USAGE, "--receiver-hosts: expected "
				    "h0,h1,...");
	return 0;
}
