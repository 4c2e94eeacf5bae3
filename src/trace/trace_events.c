/* trace_events.c - `trace events`: selected events as CSV or JSON lines
 * (trace_events.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/grow.h"
#include "streamtime/outbuf.h"
#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_sets.h"
#include "trace_int.h"

#include "pass.h"
#include "trace_events_int.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")

/* The fixed columns, then the keys. */
enum { C_TS, C_DUR, C_START, C_END, C_HOST, C_PID, C_TID, C_NAME, C_CAT,
       C_FILE, C_BYTES, C_N };
static const char *const col_names[C_N] = {
	"ts", "dur", "start", "end", "host", "pid", "tid", "name", "cat",
	"file", "bytes",
};

#define NCOLS (C_N + ST_TRACE_KEYS_MAX)

/* The text of the last whole second formatted. */
struct tcache {
	bool valid;
	int64_t sec;
	size_t n;
	char text[48];
};

/* Per reader string id: the cell's final text (escaped; for CSV quoted
 * when it must be) at AT[id] - 1 in the writer's arena, LEN[id] long; AT
 * 0 not made yet. */
struct idcache {
	uint32_t *at, *len;
	size_t cap;
};

struct st_trace_rows {
	enum st_trace_events_format format;
	struct idcache ids;       /* host, name, cat, file */
	struct idcache kfile[ST_TRACE_KEYS_MAX];  /* a key of a file id */
	char *arena;
	size_t an, acap;
	FILE *out;
	st_outbuf ob;             /* the rows, to OUT */
	char *row;                /* the row's cells, each NUL-terminated */
	size_t rn, rcap;
	size_t off[NCOLS];        /* each cell's offset in ROW; SIZE_MAX: none */
	char *kb;                 /* a key's value */
	size_t kcap;
	size_t nkeys;
	st_trace_key keys[ST_TRACE_KEYS_MAX];
	char knames[ST_TRACE_KEYS_MAX][16];
	struct tcache t_start, t_end;
	/* the phase key's segments (st_trace_rows_phases), borrowed */
	const int64_t *seg_us;
	size_t nseg;
	const char *const *seg_phase;
};

#define writer st_trace_rows

static void idcache_release(struct idcache *c)
{
	free(c->at);
	free(c->len);
	memset(c, 0, sizeof(*c));
}

bool st_trace_events_key_is_column(const st_trace_key *k)
{
	return k->kind == ST_TRACE_KEY_HOST || k->kind == ST_TRACE_KEY_PID ||
	       k->kind == ST_TRACE_KEY_NAME || k->kind == ST_TRACE_KEY_CAT ||
	       k->kind == ST_TRACE_KEY_FILE;
}

int st_trace_events_keys_parse(st_trace_keys *k, const char *list,
			       st_error *err)
{
	char name[16];

	if (st_trace_keys_parse(k, list, err) < 0)
		return -1;
	for (size_t i = 0; i < k->n; i++)
		if (st_trace_events_key_is_column(&k->v[i]))
			return st_error_set(err, ST_EXIT_USAGE, "'%s': a "
					    "column already (host, pid, tid, "
					    "name, cat and file always are)",
					    st_trace_key_name(&k->v[i], name,
							      sizeof(name)));
	return 0;
}

/* ---- cells ----------------------------------------------------------- */

/* Room for N more bytes in the row. */
static int row_room(struct writer *w, size_t n)
{
	if (w->rn + n <= w->rcap)
		return 0;
	return st_grow(&w->row, &w->rcap, w->rn + n, 1, 4096);
}

/* Start cell COL; the text goes at w->row + w->rn. */
static void cell_begin(struct writer *w, size_t col)
{
	w->off[col] = w->rn;
}

static int cell_end(struct writer *w)
{
	if (row_room(w, 1) < 0)
		return -1;
	w->row[w->rn++] = 0;
	return 0;
}

/* V in decimal at P; returns the length. */
static size_t put_int(char *p, int64_t v)
{
	char t[24], *q = t + sizeof(t);
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
	size_t n;

	do
		*--q = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--q = '-';
	n = (size_t)(t + sizeof(t) - q);
	memcpy(p, q, n);
	return n;
}

static int cell_int(struct writer *w, size_t col, int64_t v)
{
	if (row_room(w, 24) < 0)
		return -1;
	cell_begin(w, col);
	w->rn += put_int(w->row + w->rn, v);
	return cell_end(w);
}

/* An instant US microseconds after the epoch as st_time_format_utc
 * writes it, the date and time of its second cached in C (rows come
 * in time order, mostly); none beyond st_instant. */
static int cell_time(struct writer *w, size_t col, struct tcache *c,
		     int64_t us)
{
	int64_t sec, frac;
	char *p;

	if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000 + 1000000) {
		w->off[col] = SIZE_MAX;
		return 0;
	}
	sec = us / 1000000;
	frac = us % 1000000;
	if (frac < 0) {
		sec--;
		frac += 1000000;
	}
	if (!c->valid || c->sec != sec) {
		/* "...T HH:MM:SS+00:00" of the whole second, less the zone */
		c->n = st_time_format_utc(sec * 1000000000, c->text,
					  sizeof(c->text)) - 6;
		c->sec = sec;
		c->valid = true;
	}
	if (row_room(w, c->n + 16) < 0)
		return -1;
	cell_begin(w, col);
	p = w->row + w->rn;
	memcpy(p, c->text, c->n);
	p += c->n;
	if (frac) {
		*p++ = '.';
		for (int i = 5; i >= 0; i--, frac /= 10)
			p[i] = (char)('0' + frac % 10);
		p += 6;
	}
	memcpy(p, "+00:00", 6);
	w->rn = (size_t)(p + 6 - w->row);
	return cell_end(w);
}

/* Text S[0..LEN) as trace_events.h says: for CSV its escaped text
 * (text.h); for JSON its JSON string's inside when it is UTF-8, else
 * the JSON string's inside of its escaped text, a NUL and its bytes in
 * hex (the row writes them as the column's _hex member). */
static int cell_text(struct writer *w, size_t col, const char *s, size_t len,
		     bool json)
{
	size_t run = 0, n;
	char *t;

	if (len > (SIZE_MAX - 1) / (2 * ST_TEXT_GROWTH) ||
	    row_room(w, 2 * ST_TEXT_GROWTH * len + 1) < 0)
		return -1;
	cell_begin(w, col);
	if (!json || !st_utf8_valid(s, len)) {
		/* the escaped text; for JSON its backslashes and quotes
		 * escaped again, from its end down (it sits at the start of
		 * the room, which has twice its length) */
		t = w->row + w->rn;
		n = st_text_escape(t, s, len, 0);
		if (json) {
			size_t m = n;

			for (size_t i = 0; i < n; i++)
				m += t[i] == '\\' || t[i] == '"';
			for (size_t i = n, k = m; i-- > 0;) {
				t[--k] = t[i];
				if (t[i] == '\\' || t[i] == '"')
					t[--k] = '\\';
			}
			n = m;
		}
		w->rn += n;
		if (json) {
			if (row_room(w, 2 * len + 2) < 0)
				return -1;
			w->row[w->rn++] = 0;
			st_text_hex(w->row + w->rn, s, len);
			w->rn += 2 * len;
		}
		return cell_end(w);
	}
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		size_t skip = 1;

		if (c == 0xc2 && i + 1 < len &&
		    (unsigned char)s[i + 1] <= 0x9f) {
			c = (unsigned char)s[i + 1];    /* U+0080-U+009F */
			skip = 2;
		} else if (c >= 0x20 && c != 0x7f && c != '\\' && c != '"') {
			continue;
		}
		memcpy(w->row + w->rn, s + run, i - run);
		w->rn += i - run;
		w->row[w->rn++] = '\\';
		if (c < 0x20 || c >= 0x7f)
			w->rn += (size_t)snprintf(w->row + w->rn, 6, "u%04x",
						  c);
		else
			w->row[w->rn++] = (char)c;
		i += skip - 1;
		run = i + 1;
	}
	memcpy(w->row + w->rn, s + run, len - run);
	w->rn += len - run;
	return cell_end(w);
}

/* ---- rows ------------------------------------------------------------ */

int st_trace_rows_new(struct st_trace_rows **out,
		      enum st_trace_events_format format,
		      const st_trace_keys *keys, st_error *err)
{
	struct writer *w;

	*out = NULL;
	if (!(w = calloc(1, sizeof(*w))))
		return OOM(err);
	w->format = format;
	for (size_t i = 0; keys && i < keys->n; i++) {
		w->keys[i] = keys->v[i];
		st_trace_key_name(&w->keys[i], w->knames[i],
				  sizeof(w->knames[i]));
		if (st_trace_events_key_is_column(&w->keys[i])) {
			st_error_set(err, ST_EXIT_USAGE, "key '%s' is a column "
				     "already (host, pid, tid, name, cat and "
				     "file always are)", w->knames[i]);
			free(w);
			return -1;
		}
	}
	w->nkeys = keys ? keys->n : 0;
	st_outbuf_init(&w->ob, NULL);
	*out = w;
	return 0;
}

void st_trace_rows_out(struct st_trace_rows *w, FILE *out)
{
	if (w->out)
		st_outbuf_flush(&w->ob);
	w->out = out;
	w->ob.f = out;
}

int st_trace_rows_flush(struct st_trace_rows *w)
{
	if (w->out)
		st_outbuf_flush(&w->ob);
	return w->ob.failed || (w->out && ferror(w->out)) ? -2 : 0;
}

void st_trace_rows_free(struct st_trace_rows *w)
{
	if (!w)
		return;
	free(w->row);
	free(w->kb);
	free(w->arena);
	idcache_release(&w->ids);
	for (size_t i = 0; i < ST_TRACE_KEYS_MAX; i++)
		idcache_release(&w->kfile[i]);
	free(w);
}

/* Cell S[0..LEN) as CSV: quoted when st_csv_quote_needed says so. */
static void csv_cell(st_outbuf *ob, const char *s, size_t len)
{
	size_t run = 0;

	if (!st_csv_quote_needed(s, len)) {
		st_outbuf_put(ob, s, len);
		return;
	}
	st_outbuf_put(ob, "\"", 1);
	for (size_t i = 0; i < len; i++)
		if (s[i] == '"') {
			st_outbuf_put(ob, s + run, i + 1 - run);
			run = i;
		}
	st_outbuf_put(ob, s + run, len - run);
	st_outbuf_put(ob, "\"", 1);
}

int st_trace_rows_header(struct st_trace_rows *w)
{
	if (w->format == ST_TRACE_EVENTS_JSONL)
		return 0;
	for (size_t i = 0; i < C_N + w->nkeys; i++) {
		const char *name = i < C_N ? col_names[i] : w->knames[i - C_N];

		if (i)
			st_outbuf_put(&w->ob, ",", 1);
		csv_cell(&w->ob, name, strlen(name));
	}
	st_outbuf_put(&w->ob, "\n", 1);
	return w->ob.failed ? -2 : 0;
}

void st_trace_rows_reader(struct st_trace_rows *w)
{
	if (w->ids.at)
		memset(w->ids.at, 0, w->ids.cap * sizeof(uint32_t));
	for (size_t i = 0; i < w->nkeys; i++)
		if (w->kfile[i].at)
			memset(w->kfile[i].at, 0,
			       w->kfile[i].cap * sizeof(uint32_t));
	w->an = 0;
}

/* Text S[0..LEN) as its cell's final text at the end of the arena: the
 * escapes of trace_events.h, and for CSV the quotes st_csv_quote_needed
 * asks for.  Its offset into *AT, its length into *N.  0, -1 out of
 * memory. */
static int render(struct writer *w, const char *s, size_t len, size_t *at,
		  size_t *n)
{
	bool json = w->format == ST_TRACE_EVENTS_JSONL;
	const char *t;
	size_t tl, k;

	w->rn = 0;
	if (cell_text(w, 0, s, len, json) < 0)
		return -1;
	t = w->row + w->off[0];
	tl = w->rn - 1 - w->off[0];
	if (w->an > UINT32_MAX - 2 * tl - 3 ||
	    st_grow(&w->arena, &w->acap, w->an + 2 * tl + 2, 1, 4096) < 0)
		return -1;
	*at = w->an;
	if (json || !st_csv_quote_needed(t, tl)) {
		memcpy(w->arena + w->an, t, tl);
		w->an += tl;
	} else {
		w->arena[w->an++] = '"';
		for (k = 0; k < tl; k++) {
			if (t[k] == '"')
				w->arena[w->an++] = '"';
			w->arena[w->an++] = t[k];
		}
		w->arena[w->an++] = '"';
	}
	*n = w->an - *at;
	return 0;
}

/* The cell of string ID of R (text S[0..LEN)) through cache C: its
 * offset in the arena into *AT, length *N.  0, -1 out of memory. */
static int cached(struct writer *w, struct idcache *c, uint32_t id,
		  const char *s, size_t len, size_t *at, size_t *n)
{
	if (id >= c->cap) {
		size_t cap = c->cap ? c->cap : 256;
		uint32_t *v;

		while (cap <= id)
			cap *= 2;
		if (!(v = realloc(c->at, cap * sizeof(*v))))
			return -1;
		memset(v + c->cap, 0, (cap - c->cap) * sizeof(*v));
		c->at = v;
		if (!(v = realloc(c->len, cap * sizeof(*v))))
			return -1;
		c->len = v;
		c->cap = cap;
	}
	if (c->at[id]) {
		*at = c->at[id] - 1;
		*n = c->len[id];
		return 0;
	}
	if (render(w, s, len, at, n) < 0)
		return -1;
	c->at[id] = (uint32_t)*at + 1;
	c->len[id] = (uint32_t)*n;
	return 0;
}

void st_trace_rows_phases(struct st_trace_rows *w, const int64_t *seg_us,
			  size_t nseg, const char *const *seg_phase)
{
	w->seg_us = seg_phase ? seg_us : NULL;
	w->nseg = seg_phase ? nseg : 0;
	w->seg_phase = seg_phase;
}

void trace_events_rec(const int64_t *seg_us, size_t nseg,
		      const char *const *seg_phase, const st_pfw_reader *r,
		      const st_pfw_event *ev, st_trace_rec *e)
{
	memset(e, 0, sizeof(*e));
	e->pid = ev->pid;
	e->tid = ev->tid;
	e->name = st_pfw_str(r, ev->name, &e->name_len);
	e->cat = st_pfw_str(r, ev->cat, &e->cat_len);
	if (nseg && seg_phase) {
		uint32_t seg = trace_phase_seg(seg_us, nseg, ev->ts);

		if (seg && seg_phase[seg - 1]) {
			e->phase = seg_phase[seg - 1];
			e->phase_len = strlen(e->phase);
		}
	}
	if (ev->host != ST_PFW_NONE)
		e->host = st_pfw_str(r, ev->host, &e->host_len);
	if (ev->file != ST_PFW_NONE)
		e->file = st_pfw_str(r, ev->file, &e->file_len);
}

/* EV of R as the record the keys are formatted from (*E): its strings,
 * and the phase of W's segments it starts in. */
static void row_rec(const struct writer *w, const st_pfw_reader *r,
		    const st_pfw_event *ev, st_trace_rec *e)
{
	trace_events_rec(w->seg_us, w->nseg, w->seg_phase, r, ev, e);
}

/* The keys' cells of E (EV's record) into the arena, at AT[C_N + i], N[C_N
 * + i] (SIZE_MAX: none): the keys of the file first (cached by file id),
 * then the others, whose text goes from the arena after the row (*MARK:
 * where they start).  0, or -1 when memory runs out. */
static int row_keys(struct writer *w, const st_pfw_event *ev,
		    const st_trace_rec *e, size_t *at, size_t *n, bool *text,
		    size_t *mark)
{
	int ret = 0;

	*mark = w->an;
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			*mark = w->an;
		for (size_t i = 0; i < w->nkeys && ret == 0; i++) {
			enum st_trace_key_kind kind = w->keys[i].kind;
			bool of_file = kind == ST_TRACE_KEY_BASENAME ||
				       kind == ST_TRACE_KEY_PATTERN ||
				       kind == ST_TRACE_KEY_PREFIX;
			struct idcache *c = &w->kfile[i];
			size_t kn;

			if (of_file == (pass == 1))
				continue;
			n[C_N + i] = SIZE_MAX;
			text[C_N + i] = true;
			if (of_file && !e->file)
				continue;
			if (of_file && ev->file < c->cap && c->at[ev->file]) {
				at[C_N + i] = c->at[ev->file] - 1;
				n[C_N + i] = c->len[ev->file];
				continue;
			}
			if (st_trace_key_text(&w->keys[i], e, &w->kb,
					      &w->kcap, &kn) < 0) {
				ret = -1;
				break;
			}
			if (of_file)
				ret = cached(w, c, ev->file, w->kb, kn,
					     &at[C_N + i], &n[C_N + i]);
			else if (kn != ST_TRACE_KEY_NONE)
				ret = render(w, w->kb, kn, &at[C_N + i],
					     &n[C_N + i]);
		}
	}
	return ret;
}

/* Cell NAME, P[0..LEN) (NULL: null), as a JSON member into OB: TEXT, a
 * string whose bytes after a NUL are its hex (then also NAME_hex);
 * QUOTED, a string as it is; else a number.  FIRST: the row's first. */
static void row_json_cell(st_outbuf *ob, const char *name, const char *p,
			  size_t len, bool text, bool quoted, bool first)
{
	st_outbuf_put(ob, first ? "{\"" : ",\"", 2);
	/* key names need no escape */
	st_outbuf_str(ob, name);
	st_outbuf_put(ob, "\":", 2);
	if (!p) {
		st_outbuf_put(ob, "null", 4);
	} else if (text || quoted) {
		const char *hex = text ? memchr(p, 0, len) : NULL;
		size_t tl = hex ? (size_t)(hex - p) : len;

		st_outbuf_put(ob, "\"", 1);
		st_outbuf_put(ob, p, tl);
		st_outbuf_put(ob, "\"", 1);
		if (hex) {
			st_outbuf_put(ob, ",\"", 2);
			st_outbuf_str(ob, name);
			st_outbuf_put(ob, "_hex\":\"", 7);
			st_outbuf_put(ob, hex + 1, len - tl - 1);
			st_outbuf_put(ob, "\"", 1);
		}
	} else {
		st_outbuf_put(ob, p, len);
	}
}

int st_trace_rows_put(struct st_trace_rows *w, const st_pfw_reader *r,
		      const st_pfw_event *ev)
{
	static const bool quoted[C_N] = { [C_START] = true, [C_END] = true };
	bool json = w->format == ST_TRACE_EVENTS_JSONL;
	st_trace_rec e;
	size_t at[NCOLS], n[NCOLS], mark;
	bool text[NCOLS] = { false };
	const uint32_t ids[4] = { ev->host, ev->name, ev->cat, ev->file };
	static const int idcol[4] = { C_HOST, C_NAME, C_CAT, C_FILE };
	st_outbuf *ob = &w->ob;
	int ret = 0;

	row_rec(w, r, ev, &e);
	/* the text cells first, into the arena (render uses ROW) */
	for (int k = 0; k < 4 && ret == 0; k++) {
		const char *str = k == 0 ? e.host : k == 1 ? e.name :
				  k == 2 ? e.cat : e.file;
		size_t len = k == 0 ? e.host_len : k == 1 ? e.name_len :
			     k == 2 ? e.cat_len : e.file_len;

		n[idcol[k]] = SIZE_MAX;
		text[idcol[k]] = true;
		if (ids[k] == ST_PFW_NONE)
			continue;
		ret = cached(w, &w->ids, ids[k], str, len, &at[idcol[k]],
			     &n[idcol[k]]);
	}
	mark = w->an;
	if (ret == 0)
		ret = row_keys(w, ev, &e, at, n, text, &mark);
	/* then the numbers and times, into ROW */
	w->rn = 0;
	w->off[C_BYTES] = SIZE_MAX;
	if (ret < 0 || cell_int(w, C_TS, ev->ts) < 0 ||
	    cell_int(w, C_DUR, ev->dur) < 0 ||
	    cell_time(w, C_START, &w->t_start, ev->ts) < 0 ||
	    cell_time(w, C_END, &w->t_end, ev->ts + ev->dur) < 0 ||
	    cell_int(w, C_PID, ev->pid) < 0 || cell_int(w, C_TID, ev->tid) < 0 ||
	    (ev->bytes >= 0 && cell_int(w, C_BYTES, ev->bytes) < 0)) {
		w->an = mark;
		return -1;
	}
	for (size_t i = 0; i < C_N + w->nkeys; i++) {
		const char *p;
		size_t len;

		if (text[i]) {
			p = n[i] == SIZE_MAX ? NULL : w->arena + at[i];
			len = n[i];
		} else {
			p = w->off[i] == SIZE_MAX ? NULL : w->row + w->off[i];
			len = p ? strlen(p) : 0;
		}
		if (json) {
			row_json_cell(ob, i < C_N ? col_names[i]
					     : w->knames[i - C_N], p, len,
				      text[i], i < C_N && quoted[i], i == 0);
			continue;
		}
		if (i)
			st_outbuf_put(ob, ",", 1);
		if (p)
			st_outbuf_put(ob, p, len);
	}
	st_outbuf_put(ob, json ? "}\n" : "\n", json ? 2 : 1);
	w->an = mark;
	return w->ob.failed ? -2 : 0;
}

/* ---- reading --------------------------------------------------------- */

static int write_failed(st_trace_events_result *res, st_error *err)
{
	res->write_errno = errno ? errno : EIO;
	res->write_failed = true;
	return st_error_set(err, ST_EXIT_IOERR, "cannot write the events");
}

/* Read input FI to its end (or the limit), each event kept given to
 * SINK.  0, or -1 with ERR set (74: OUT failed or memory ran out). */
static int read_one(const struct trace_events_sink *sink,
		    const st_trace_events_opts *o, const char *path, size_t fi,
		    st_trace_events_result *res, st_error *err)
{
	st_trace_file *tf = &res->files_in[fi];
	struct st_trace_fset fs = { 0 };
	st_pfw_reader *r;
	st_pfw_event ev;
	st_error rerr;
	uint64_t seen = 0, tick = 0;
	int rc, ret = 0;
	bool oom = false;

	if (!(r = st_trace_input_open(tf, path, o->src, &oom)))
		return oom ? OOM(err) : 0;
	if (o->filter && o->filter->n)
		st_trace_fset_add(&fs, o->filter);
	sink->reader(sink->ctx);
	while ((rc = st_pfw_next(r, &ev, &rerr)) > 0) {
		uint64_t keep = 1;
		int k;

		if (rc == ST_PFW_BAD) {
			if (st_trace_bad_keep(&res->bad, &res->n_bad,
					      &res->bad_lines, o->max_bad, fi,
					      r) < 0) {
				ret = OOM(err);
				break;
			}
			continue;
		}
		res->events++;
		if (fs.n && st_trace_fset_eval(&fs, r, &ev, &keep, err) < 0) {
			ret = -1;
			break;
		}
		if (!keep)
			continue;
		if ((k = sink->put(sink->ctx, r, &ev)) < 0) {
			ret = k == -1 ? OOM(err) : write_failed(res, err);
			break;
		}
		if (++res->rows == o->limit) {
			res->limited = true;
			break;
		}
		if ((++tick & 8191) == 0) {
			if (sink->flush && sink->flush(sink->ctx) < 0) {
				ret = write_failed(res, err);
				break;
			}
			trace_progress_add(o->progress, &seen, r, NULL);
		}
	}
	if (st_trace_input_close(tf, r, rc, &rerr, !res->limited && ret == 0,
				 o->progress, seen) < 0 && !ret)
		ret = OOM(err);
	st_trace_fset_release(&fs);
	return ret;
}

int trace_events_read(const char *const *paths, size_t n,
		      const st_trace_events_opts *o,
		      const struct trace_events_sink *sink,
		      st_trace_events_result *res, st_error *err)
{
	int ret = 0;

	for (size_t i = 0; ret == 0 && i < n && !res->limited; i++) {
		res->n_files = i + 1;
		ret = read_one(sink, o, paths[i], i, res, err);
	}
	return ret;
}

static void rows_reader(void *w)
{
	st_trace_rows_reader(w);
}

static int rows_put(void *w, const st_pfw_reader *r, const st_pfw_event *ev)
{
	return st_trace_rows_put(w, r, ev);
}

static int rows_flush(void *w)
{
	return st_trace_rows_flush(w);
}

int st_trace_events_write(const char *const *paths, size_t n,
			  const st_trace_events_opts *o, FILE *out,
			  st_trace_events_result *res, st_error *err)
{
	struct writer *w;
	int ret = 0;

	memset(res, 0, sizeof(*res));
	if (st_trace_rows_new(&w, o->format, o->keys, err) < 0)
		return -1;
	st_trace_rows_phases(w, o->seg_us, o->nseg, o->seg_phase);
	st_trace_rows_out(w, out);
	if (!(res->files_in = calloc(n ? n : 1, sizeof(*res->files_in)))) {
		st_trace_rows_free(w);
		return OOM(err);
	}
	if (st_trace_rows_header(w) < 0)
		ret = write_failed(res, err);
	if (ret == 0)
		ret = trace_events_read(paths, n, o, &(struct trace_events_sink){
			rows_reader, rows_put, rows_flush, w }, res, err);
	if (st_trace_rows_flush(w) < 0 && ret == 0)
		ret = write_failed(res, err);
	st_trace_rows_free(w);
	return ret;
}

void st_trace_events_result_release(st_trace_events_result *res)
{
	if (!res)
		return;
	st_trace_inputs_free(res->files_in, res->n_files, res->bad,
			     res->n_bad);
	memset(res, 0, sizeof(*res));
}

int st_trace_events_save(st_atomic_file *af, const char *out,
			 const char *const *paths, size_t n,
			 const st_trace_events_opts *o,
			 const st_systrace_list *sets,
			 st_trace_events_result *res, st_trace_notes *nt,
			 st_error *err)
{
	st_error nerr;
	int wrc = st_trace_events_write(paths, n, o, af->fp, res, err);

	if (wrc < 0 && res->write_failed)
		st_error_set(err, err->code, "cannot write %s: %s",
			     strcmp(out, "-") ? out : "to standard output",
			     strerror(res->write_errno));
	if (st_trace_sets_notes(sets, nt, &nerr) < 0 ||
	    st_trace_inputs_report(res->files_in, res->n_files, res->bad,
				   res->n_bad, res->bad_lines, sets, nt,
				   &nerr) < 0) {
		if (wrc == 0)
			*err = nerr;
		wrc = -1;
	}
	if (wrc < 0 || st_trace_notes_status(nt)) {
		st_atomic_abort(af);
		return wrc;
	}
	return st_atomic_commit(af, err);
}
