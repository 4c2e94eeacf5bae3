/* pass.c - what the single-pass readers share (pass.h). */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "pass.h"
#include "trace_int.h"

/* ---- many filters at once ------------------------------------------- */

#define FSET_KNOWN (UINT64_C(1) << 63)

/* The field (name, cat, host, file) a term is on, or -1 for a number. */
static int term_field(const st_trace_term *t)
{
	enum st_trace_field fl = t->field;

	if (fl == ST_TRACE_BASENAME || fl == ST_TRACE_PATTERN)
		fl = ST_TRACE_FILE;
	return fl <= ST_TRACE_FILE ? (int)fl : -1;
}

int st_trace_fset_add(struct st_trace_fset *s, const st_trace_filter *f)
{
	uint64_t bit;
	int j;

	if (s->n == ST_TRACE_FSET_MAX)
		return -1;
	j = (int)s->n++;
	bit = UINT64_C(1) << j;
	s->f[j] = f;
	s->all |= bit;
	for (size_t i = 0; i < f->n; i++) {
		int k = term_field(&f->v[i]);

		if (k < 0)
			s->nums |= bit;
		else
			s->has[k] |= bit;
	}
	for (int k = 0; k < 4; k++)
		if (!(s->has[k] & bit) ||
		    st_trace_filter_field(f, (enum st_trace_field)k, NULL, 0,
					  NULL) > 0)
			s->none_ok[k] |= bit;
	/* the answers kept are of fewer filters, and only for the fields
	 * the filters had terms on: start again */
	for (int k = 0; k < 4; k++) {
		free(s->ok[k]);
		s->ok[k] = NULL;
	}
	s->cap = 0;
	return j;
}

void st_trace_fset_reader(struct st_trace_fset *s)
{
	for (int k = 0; k < 4; k++)
		if (s->ok[k])
			memset(s->ok[k], 0, s->cap * sizeof(*s->ok[k]));
}

void st_trace_fset_release(struct st_trace_fset *s)
{
	for (int k = 0; k < 4; k++)
		free(s->ok[k]);
	memset(s, 0, sizeof(*s));
}

/* Room for string id ID in the answers on the fields some filter has
 * terms on (new room: not yet).  0, -1. */
static int fset_room(struct st_trace_fset *s, uint32_t id)
{
	size_t cap = s->cap ? s->cap : 1024;

	while (cap <= id)
		cap *= 2;
	for (int k = 0; k < 4; k++) {
		uint64_t *v;

		if (!s->has[k])
			continue;
		if (!(v = realloc(s->ok[k], cap * sizeof(*v))))
			return -1;
		memset(v + s->cap, 0, (cap - s->cap) * sizeof(*v));
		s->ok[k] = v;
	}
	s->cap = cap;
	return 0;
}

/* The answers of the filters on field K for string ID of R into *A.  0,
 * or -1 with ERR when a filter failed. */
static int fset_field(const struct st_trace_fset *s, const st_pfw_reader *r,
		      int k, uint32_t id, uint64_t *a, st_error *err)
{
	size_t len;
	const char *str = k == ST_TRACE_FILE ? st_pfw_file_str(r, id, &len)
						   : st_pfw_str(r, id, &len);

	if (!str)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	*a = (s->all & ~s->has[k]) | FSET_KNOWN;
	for (uint64_t b = s->has[k]; b; b &= b - 1) {
		int j = __builtin_ctzll(b);
		int m = st_trace_filter_field(s->f[j], (enum st_trace_field)k,
					      str, len, err);

		if (m < 0)
			return trace_filter_failed(r, err);
		if (m)
			*a |= UINT64_C(1) << j;
	}
	return 0;
}

int st_trace_fset_eval(struct st_trace_fset *s, const st_pfw_reader *r,
		       const st_pfw_event *ev, uint64_t *mask, st_error *err)
{
	const uint32_t ids[4] = { ev->name, ev->cat, ev->host, ev->file };
	uint64_t m = s->all;

	for (int k = 0; k < 4; k++) {
		uint32_t id = ids[k];
		uint64_t a;

		if (!s->has[k])
			continue;
		if (id == ST_PFW_NONE) {
			a = s->none_ok[k];
		} else {
			if (id >= s->cap && fset_room(s, id) < 0)
				return OOM(err);
			if (!(a = s->ok[k][id])) {
				if (fset_field(s, r, k, id, &a, err) < 0)
					return -1;
				s->ok[k][id] = a;
			}
		}
		if (!(m &= a))
			break;   /* no filter left to ask */
	}
	for (uint64_t b = m & s->nums; b; b &= b - 1) {
		int j = __builtin_ctzll(b);

		if (!st_trace_filter_nums(s->f[j], ev->pid, ev->tid, ev->ts,
					  ev->dur, ev->bytes))
			m &= ~(UINT64_C(1) << j);
	}
	*mask = m & ~FSET_KNOWN;
	return 0;
}

st_pfw_reader *st_trace_input_open(st_trace_file *tf, const char *path,
				   const st_trace_source *src, bool *oom)
{
	st_pfw_reader *r;
	st_error err;

	tf->path = path;
	r = src && src->open ? src->open(src->ctx, path, false, &err)
			     : st_pfw_open(path, &err);
	if (r)
		return r;
	tf->err_code = err.code;
	if (!(tf->err_text = strdup(err.text)))
		*oom = true;
	return NULL;
}

int st_trace_input_close(st_trace_file *tf, st_pfw_reader *r, int rc,
			 const st_error *rerr, bool complete,
			 st_trace_progress *p, uint64_t seen)
{
	int ret = 0;

	if (rc == ST_PFW_ERROR) {
		tf->err_code = rerr->code;
		if (!(tf->err_text = strdup(rerr->text)))
			ret = -1;
	}
	tf->st = *st_pfw_stats_get(r);
	/* read to its end and no line an event of any phase */
	tf->not_trace = complete && rc != ST_PFW_ERROR && ret == 0 &&
			tf->st.events == 0 && tf->st.meta == 0 &&
			tf->st.other == 0;
	if (p) {
		atomic_fetch_add(&p->bytes, st_pfw_offset(r) - seen);
		atomic_fetch_add(&p->events, tf->st.events);
	}
	st_pfw_close(r);
	return ret;
}

int st_trace_bad_keep(st_trace_bad **bad, size_t *n, uint64_t *count,
		      size_t max, size_t fi, const st_pfw_reader *r)
{
	const char *why;
	uint64_t line = st_pfw_bad_line(r, &why);
	st_trace_bad *b;

	(*count)++;
	if (*n >= max)
		return 0;
	if (!*bad && !(*bad = calloc(max, sizeof(**bad))))
		return -1;
	b = &(*bad)[*n];
	b->file = fi;
	b->line = line;
	if (!(b->why = strdup(why)))
		return -1;
	(*n)++;
	return 0;
}

void st_trace_inputs_free(st_trace_file *files, size_t nfiles,
			  st_trace_bad *bad, size_t nbad)
{
	for (size_t i = 0; i < nfiles; i++)
		free(files[i].err_text);
	free(files);
	for (size_t i = 0; i < nbad; i++)
		free(bad[i].why);
	free(bad);
}

int st_trace_key_text(const st_trace_key *k, const st_trace_rec *e,
		      char **buf, size_t *cap, size_t *len)
{
	size_t n = st_trace_key_format(k, e, *buf, *cap);
	char *b;

	*len = n;
	if (n == ST_TRACE_KEY_NONE || n < *cap)
		return 0;
	if (!(b = realloc(*buf, n + 1)))
		return -1;
	*buf = b;
	*cap = n + 1;
	st_trace_key_format(k, e, *buf, *cap);
	return 0;
}
