/* trace_events_cols.c - the rows of `trace events` as columns in memory
 * (trace_events.h), for a binding. */
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/trace_events.h"
#include "trace_int.h"

#include "pass.h"
#include "trace_events_int.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")

/* What reading needs besides the columns: the reader's string ids to
 * STRS's (id + 1; 0 not seen in this input), a key of a file by the
 * file's reader id, the buffer of a key's text. */
struct st_trace_cols_state {
	const st_trace_events_opts *o;
	size_t cap;                        /* rows allocated */
	uint32_t *map;                     /* reader id -> strs id + 1 */
	size_t mapcap;
	uint32_t *kmap[ST_TRACE_KEYS_MAX]; /* file's reader id -> key's
					    * strs id + 1 (0: not yet, or
					    * none: made again) */
	size_t kcap[ST_TRACE_KEYS_MAX];
	char *kb;
	size_t kbcap;
};

/* Room for row N in every column. */
static int cols_room(st_trace_event_cols *c)
{
	struct st_trace_cols_state *s = c->state;
	size_t cap = s->cap;
	int64_t **iv[] = { &c->ts, &c->dur, &c->pid, &c->tid, &c->bytes };
	uint32_t **uv[4 + ST_TRACE_KEYS_MAX] = { &c->host, &c->name, &c->cat,
						 &c->file };

	if (c->n < s->cap)
		return 0;
	for (size_t k = 0; k < c->nkeys; k++)
		uv[4 + k] = &c->key[k];
	for (size_t i = 0; i < sizeof(iv) / sizeof(*iv); i++) {
		cap = s->cap;
		if (st_grow(iv[i], &cap, c->n, sizeof(int64_t), 1024) < 0)
			return -1;
	}
	for (size_t i = 0; i < 4 + c->nkeys; i++) {
		cap = s->cap;
		if (st_grow(uv[i], &cap, c->n, sizeof(uint32_t), 1024) < 0)
			return -1;
	}
	s->cap = cap;
	return 0;
}

/* Room for reader id ID in the map *M (*CAP entries, new ones 0). */
static int map_room(uint32_t **m, size_t *cap, uint32_t id)
{
	size_t old = *cap;

	if (id < old)
		return 0;
	if (st_grow(m, cap, id, sizeof(**m), 256) < 0)
		return -1;
	memset(*m + old, 0, (*cap - old) * sizeof(**m));
	return 0;
}

/* The strs id of text S[0..LEN), reader id ID (ST_PFW_NONE: none), into
 * *OUT.  0, -1 out of memory. */
static int text_id(st_trace_event_cols *c, uint32_t id, const char *s,
		   size_t len, uint32_t *out)
{
	struct st_trace_cols_state *st = c->state;
	int64_t v;

	*out = ST_TRACE_COL_NONE;
	if (id == ST_PFW_NONE)
		return 0;
	if (map_room(&st->map, &st->mapcap, id) < 0)
		return -1;
	if (!st->map[id]) {
		if ((v = st_strtab_intern(&c->strs, s, len, NULL)) < 0)
			return -1;
		st->map[id] = (uint32_t)v + 1;
	}
	*out = st->map[id] - 1;
	return 0;
}

/* Key K's cell of E (EV's record) into *OUT; a key of the file is kept
 * by the file's reader id.  0, -1 out of memory. */
static int key_id(st_trace_event_cols *c, size_t k, const st_pfw_event *ev,
		  const st_trace_rec *e, uint32_t *out)
{
	struct st_trace_cols_state *st = c->state;
	enum st_trace_key_kind kind = st->o->keys->v[k].kind;
	bool of_file = kind == ST_TRACE_KEY_BASENAME ||
		       kind == ST_TRACE_KEY_PATTERN ||
		       kind == ST_TRACE_KEY_PREFIX;
	size_t len;
	int64_t v;

	*out = ST_TRACE_COL_NONE;
	if (of_file && !e->file)
		return 0;
	if (of_file) {
		if (map_room(&st->kmap[k], &st->kcap[k], ev->file) < 0)
			return -1;
		if (st->kmap[k][ev->file]) {
			*out = st->kmap[k][ev->file] - 1;
			return 0;
		}
	}
	if (st_trace_key_text(&st->o->keys->v[k], e, &st->kb, &st->kbcap,
			      &len) < 0)
		return -1;
	if (len != ST_TRACE_KEY_NONE) {
		if ((v = st_strtab_intern(&c->strs, st->kb, len, NULL)) < 0)
			return -1;
		*out = (uint32_t)v;
	}
	if (of_file)
		st->kmap[k][ev->file] = *out + 1;
	return 0;
}

static void cols_reader(void *ctx)
{
	st_trace_event_cols *c = ctx;
	struct st_trace_cols_state *s = c->state;

	if (s->map)
		memset(s->map, 0, s->mapcap * sizeof(*s->map));
	for (size_t k = 0; k < c->nkeys; k++)
		if (s->kmap[k])
			memset(s->kmap[k], 0, s->kcap[k] * sizeof(uint32_t));
}

static int cols_put(void *ctx, const st_pfw_reader *r, const st_pfw_event *ev)
{
	st_trace_event_cols *c = ctx;
	const st_trace_events_opts *o = c->state->o;
	size_t i = c->n;
	st_trace_rec e;

	if (cols_room(c) < 0)
		return -1;
	trace_events_rec(o->seg_us, o->nseg, o->seg_phase, r, ev, &e);
	c->ts[i] = ev->ts;
	c->dur[i] = ev->dur;
	c->pid[i] = ev->pid;
	c->tid[i] = ev->tid;
	c->bytes[i] = ev->bytes >= 0 ? ev->bytes : -1;
	if (text_id(c, ev->host, e.host, e.host_len, &c->host[i]) < 0 ||
	    text_id(c, ev->name, e.name, e.name_len, &c->name[i]) < 0 ||
	    text_id(c, ev->cat, e.cat, e.cat_len, &c->cat[i]) < 0 ||
	    text_id(c, ev->file, e.file, e.file_len, &c->file[i]) < 0)
		return -1;
	for (size_t k = 0; k < c->nkeys; k++)
		if (key_id(c, k, ev, &e, &c->key[k][i]) < 0)
			return -1;
	c->n++;
	return 0;
}

/* The state's memory, freed (the columns stay). */
static void state_free(st_trace_event_cols *c)
{
	struct st_trace_cols_state *s = c->state;

	if (!s)
		return;
	free(s->map);
	for (size_t k = 0; k < ST_TRACE_KEYS_MAX; k++)
		free(s->kmap[k]);
	free(s->kb);
	free(s);
	c->state = NULL;
}

int st_trace_events_cols(const char *const *paths, size_t n,
			 const st_trace_events_opts *o,
			 st_trace_event_cols *c, st_trace_events_result *res,
			 st_error *err)
{
	int ret;

	memset(c, 0, sizeof(*c));
	memset(res, 0, sizeof(*res));
	st_strtab_init(&c->strs);
	c->nkeys = o->keys ? o->keys->n : 0;
	for (size_t k = 0; k < c->nkeys; k++) {
		st_trace_key_name(&o->keys->v[k], c->knames[k],
				  sizeof(c->knames[k]));
		if (st_trace_events_key_is_column(&o->keys->v[k]))
			return st_error_set(err, ST_EXIT_USAGE, "key '%s' is a "
					    "column already (host, pid, tid, "
					    "name, cat and file always are)",
					    c->knames[k]);
	}
	if (!(c->state = calloc(1, sizeof(*c->state))) ||
	    !(res->files_in = calloc(n ? n : 1, sizeof(*res->files_in))))
		return OOM(err);
	c->state->o = o;
	ret = trace_events_read(paths, n, o, &(struct trace_events_sink){
		cols_reader, cols_put, NULL, c }, res, err);
	state_free(c);
	return ret;
}

void st_trace_event_cols_release(st_trace_event_cols *c)
{
	if (!c)
		return;
	state_free(c);
	free(c->ts);
	free(c->dur);
	free(c->pid);
	free(c->tid);
	free(c->bytes);
	free(c->host);
	free(c->name);
	free(c->cat);
	free(c->file);
	for (size_t k = 0; k < ST_TRACE_KEYS_MAX; k++)
		free(c->key[k]);
	st_strtab_release(&c->strs);
	memset(c, 0, sizeof(*c));
}
