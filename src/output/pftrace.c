/* pftrace.c - Perfetto's protobuf trace, encoded by hand (pftrace.h): a
 * few varint and length-delimited writers, the packets built in small
 * buffers and written through the caller's st_outbuf. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/pairmap.h"
#include "streamtime/pftrace.h"
#include "streamtime/strtab.h"
#include "streamtime/text.h"

/* Field numbers of data/perfetto/streamtime_trace.proto. */
enum {
	TRACE_PACKET = 1,
	PK_CLOCK_SNAPSHOT = 6, PK_TIMESTAMP = 8, PK_SEQ_ID = 10,
	PK_TRACK_EVENT = 11, PK_INTERNED = 12, PK_SEQ_FLAGS = 13,
	PK_CLOCK_ID = 58, PK_DEFAULTS = 59, PK_TRACK_DESC = 60,
	CS_CLOCKS = 1, CK_ID = 1, CK_TS = 2, CK_INCREMENTAL = 3, CK_UNIT = 4,
	IN_CATEGORY = 1, IN_NAME = 2, IN_ARG_NAME = 3, IN_ARG_STRING = 29,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4,
	TD_PARENT = 5, TD_COUNTER = 8,
	PD_PID = 1, PD_SORT = 3, PD_NAME = 6,
	THD_PID = 1, THD_TID = 2, THD_SORT = 3, THD_NAME = 5,
	TE_CATEGORY = 3, TE_ANNOTATION = 4, TE_LEGACY = 6, TE_TYPE = 9,
	TE_NAME_IID = 10, TE_TRACK = 11, TE_DOUBLE_VALUE = 44,
	LE_PHASE = 2, LE_DURATION = 3,
	DA_NAME_IID = 1, DA_BOOL = 2, DA_INT = 4, DA_DOUBLE = 5,
	DA_STRING_IID = 17,
};

enum { TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { CLOCK_BOOTTIME = 6, CLOCK_US = 64, NCLOCKS = 64 };
enum { EV_NONE, EV_SLICE, EV_INSTANT, EV_COUNTER };
enum { PEND_NONE, PEND_PROCESS, PEND_THREAD };

struct buf {
	uint8_t *b;
	size_t n, cap;
};

/* Interned strings, with a cache of the last strings seen at each of a
 * few addresses: a trace's strings come again and again from the same
 * places (a reader's string table), so that most lookups are one memcmp
 * against the string kept. */
#define ICACHE 256
struct icache {
	const char *s;
	uint32_t len, iid;
	bool utf8;                /* the string is UTF-8 */
};

struct itab {
	st_strtab t;
	struct icache c[ICACHE];
};

struct st_pftrace {
	st_outbuf *o;
	bool oom;                 /* memory ran out: the output is incomplete */
	int64_t first_before_0;   /* < 0: the first event before time 0,
				   * not written right (timestamps are
				   * unsigned); 0: none */
	uint64_t uuids, stride;   /* the last uuid given, the step to the next */
	int64_t last_pid, last_tid;  /* the thread of the last event, */
	uint64_t last_uuid;       /* its track (0: none yet) */
	uint32_t seq;             /* the sequence written */
	int64_t last_us[NCLOCKS]; /* clocks 64.. 127's values */
	int64_t low_us;           /* at most the least of them */
	int clock;                /* the default, 64 + clock */
	struct itab names, cats, arg_names, arg_values;
	uint64_t key_file, key_bytes;  /* the iids of "file" and "bytes" */
	st_pairmap procs;         /* (pid, 0) -> uuid */
	st_pairmap threads;       /* (pid, tid) -> uuid */
	st_strtab counters;       /* "PID NAME KEY" -> index into cuuid */
	uint64_t *cuuid;
	size_t ncu, cucap;
	struct {                  /* a descriptor being gathered */
		int kind;
		int64_t pid, tid, sort;
		bool has_sort;
		char *name;
	} pend;
	int ev;                   /* the event open */
	int64_t ev_pid, ev_ts, ev_dur;
	struct buf cname;         /* a counter's name */
	struct buf te, intern, pkt, sub, arg;
};

/* ---- encoding ---------------------------------------------------------- */

static void itab_release(struct itab *t)
{
	st_strtab_release(&t->t);
	memset(t->c, 0, sizeof(t->c));
}

static bool buf_room(st_pftrace *p, struct buf *b, size_t more)
{
	if (b->n + more <= b->cap)
		return true;
	if (st_grow(&b->b, &b->cap, b->n + more - 1, 1, 256) < 0) {
		p->oom = true;
		return false;
	}
	return true;
}

static void put_raw(st_pftrace *p, struct buf *b, const void *s, size_t len)
{
	if (!buf_room(p, b, len))
		return;
	memcpy(b->b + b->n, s, len);
	b->n += len;
}

static inline size_t varint(uint8_t *t, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		t[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	t[n++] = (uint8_t)v;
	return n;
}

static inline void put_varint(st_pftrace *p, struct buf *b, uint64_t v)
{
	if (b->n + 10 > b->cap && !buf_room(p, b, 10))
		return;
	b->n += varint(b->b + b->n, v);
}

static inline void put_uint(st_pftrace *p, struct buf *b, unsigned field,
			    uint64_t v)
{
	if (b->n + 20 > b->cap && !buf_room(p, b, 20))
		return;
	b->n += varint(b->b + b->n, (uint64_t)field << 3);
	b->n += varint(b->b + b->n, v);
}

static void put_len(st_pftrace *p, struct buf *b, unsigned field,
		    const void *s, size_t len)
{
	put_varint(p, b, (uint64_t)field << 3 | 2);
	put_varint(p, b, len);
	put_raw(p, b, s, len);
}

static void put_str(st_pftrace *p, struct buf *b, unsigned field,
		    const char *s)
{
	put_len(p, b, field, s, strlen(s));
}

static void put_double(st_pftrace *p, struct buf *b, unsigned field, double v)
{
	uint64_t u;
	uint8_t t[8];

	memcpy(&u, &v, sizeof(u));
	for (int i = 0; i < 8; i++)
		t[i] = (uint8_t)(u >> (8 * i));
	put_varint(p, b, (uint64_t)field << 3 | 1);
	put_raw(p, b, t, 8);
}

/* B as submessage FIELD of TO; B emptied. */
static void put_msg(st_pftrace *p, struct buf *to, unsigned field,
		    struct buf *b)
{
	put_len(p, to, field, b->b, b->n);
	b->n = 0;
}

/* The packet in p->pkt (with the sequence added) to the output. */
static void packet_out(st_pftrace *p)
{
	uint8_t t[11];
	size_t k;

	put_uint(p, &p->pkt, PK_SEQ_ID, p->seq);
	t[0] = TRACE_PACKET << 3 | 2;
	k = 1 + varint(t + 1, p->pkt.n);
	st_outbuf_put(p->o, (const char *)t, k);
	st_outbuf_put(p->o, (const char *)p->pkt.b, p->pkt.n);
	p->pkt.n = 0;
}

/* The first packet of a new sequence: the incremental state cleared (no
 * string interned yet), clocks 64 to 127 (µs, incremental) tied to
 * BOOTTIME at 0, 64 the default. */
static void start(st_pftrace *p)
{
	struct buf *s = &p->sub, *c = &p->arg;

	p->seq++;
	itab_release(&p->names);
	itab_release(&p->cats);
	itab_release(&p->arg_names);
	itab_release(&p->arg_values);
	p->key_file = p->key_bytes = 0;
	put_uint(p, &p->pkt, PK_SEQ_FLAGS, 1);
	put_uint(p, s, PK_CLOCK_ID, CLOCK_US);
	put_msg(p, &p->pkt, PK_DEFAULTS, s);
	put_uint(p, c, CK_ID, CLOCK_BOOTTIME);
	put_uint(p, c, CK_TS, 0);
	put_msg(p, s, CS_CLOCKS, c);
	for (int k = 0; k < NCLOCKS; k++) {
		put_uint(p, c, CK_ID, CLOCK_US + (unsigned)k);
		put_uint(p, c, CK_TS, 0);
		put_uint(p, c, CK_INCREMENTAL, 1);
		put_uint(p, c, CK_UNIT, 1000);
		put_msg(p, s, CS_CLOCKS, c);
		p->last_us[k] = 0;
	}
	p->low_us = 0;
	put_msg(p, &p->pkt, PK_CLOCK_SNAPSHOT, s);
	packet_out(p);
	p->clock = 0;
}

/* The iid of S in T (1 up), its InternedData entry (field FIELD of
 * interned_data) added to the packet when new; 0 when memory runs out.
 * *UTF8 (UTF8 may be NULL) says whether S is UTF-8. */
static uint64_t intern(st_pftrace *p, struct itab *t, unsigned field,
		       const char *s, size_t len, bool *utf8)
{
	size_t h = ((uintptr_t)s >> 3 ^ len) % ICACHE;
	bool added, valid = true;
	int64_t id;
	struct buf *e = &p->sub;

	if (t->c[h].s == s && t->c[h].len == len &&
	    memcmp(st_strtab_str(&t->t, t->c[h].iid - 1, NULL), s, len) == 0) {
		if (utf8)
			*utf8 = t->c[h].utf8;
		return t->c[h].iid;
	}
	if (utf8)
		*utf8 = valid = st_utf8_valid(s, len);
	if ((id = st_strtab_intern(&t->t, s, len, &added)) < 0) {
		p->oom = true;
		return 0;
	}
	if (added) {
		put_uint(p, e, 1, (uint64_t)id + 1);
		put_len(p, e, 2, s, len);
		put_msg(p, &p->intern, field, e);
	}
	if (len <= UINT32_MAX && id < UINT32_MAX)
		t->c[h] = (struct icache){ s, (uint32_t)len, (uint32_t)id + 1,
					   valid };
	return (uint64_t)id + 1;
}

/* ---- tracks ------------------------------------------------------------ */

/* A descriptor packet of the track in p->sub. */
static void descriptor_out(st_pftrace *p)
{
	put_msg(p, &p->pkt, PK_TRACK_DESC, &p->sub);
	packet_out(p);
}

/* The uuid of process PID, described (with NAME and SORT when given) when
 * new or when NAME is given; 0 when memory runs out. */
static uint64_t process_track(st_pftrace *p, int64_t pid, const char *name,
			      const int64_t *sort)
{
	bool added;
	uint64_t *v = st_pairmap_get(&p->procs, (uint64_t)pid, 0, &added);
	struct buf *d = &p->arg;

	if (!v) {
		p->oom = true;
		return 0;
	}
	if (added)
		*v = p->uuids += p->stride;
	if (!added && !name && !sort)
		return *v;
	put_uint(p, d, PD_PID, (uint64_t)(int32_t)pid);
	if (name)
		put_str(p, d, PD_NAME, name);
	if (sort)
		put_uint(p, d, PD_SORT, (uint64_t)(int32_t)*sort);
	put_uint(p, &p->sub, TD_UUID, *v);
	put_msg(p, &p->sub, TD_PROCESS, d);
	descriptor_out(p);
	return *v;
}

/* The uuid of thread TID of process PID, as process_track. */
static uint64_t thread_track(st_pftrace *p, int64_t pid, int64_t tid,
			     const char *name, const int64_t *sort)
{
	bool added;
	uint64_t *v, uuid, parent;
	struct buf *d = &p->arg;

	/* most events are of the thread of the one before */
	if (p->last_uuid && p->last_pid == pid && p->last_tid == tid && !name &&
	    !sort)
		return p->last_uuid;
	v = st_pairmap_get(&p->threads, (uint64_t)pid, (uint64_t)tid, &added);
	if (!v) {
		p->oom = true;
		return 0;
	}
	if (added)
		*v = p->uuids += p->stride;
	uuid = *v;
	p->last_pid = pid;
	p->last_tid = tid;
	p->last_uuid = uuid;
	if (!added && !name && !sort)
		return uuid;
	parent = process_track(p, pid, NULL, NULL);
	put_uint(p, d, THD_PID, (uint64_t)(int32_t)pid);
	put_uint(p, d, THD_TID, (uint64_t)tid);
	if (name)
		put_str(p, d, THD_NAME, name);
	if (sort)
		put_uint(p, d, THD_SORT, (uint64_t)(int32_t)*sort);
	put_uint(p, &p->sub, TD_UUID, uuid);
	put_uint(p, &p->sub, TD_PARENT, parent);
	put_msg(p, &p->sub, TD_THREAD, d);
	descriptor_out(p);
	return uuid;
}

/* The gathered descriptor written. */
static void pend_flush(st_pftrace *p)
{
	int64_t *sort = p->pend.has_sort ? &p->pend.sort : NULL;

	if (p->pend.kind == PEND_PROCESS)
		process_track(p, p->pend.pid, p->pend.name ? p->pend.name : "",
			      sort);
	else if (p->pend.kind == PEND_THREAD)
		thread_track(p, p->pend.pid, p->pend.tid,
			     p->pend.name ? p->pend.name : "", sort);
	free(p->pend.name);
	memset(&p->pend, 0, sizeof(p->pend));
}

void st_pftrace_meta(st_pftrace *p, const char *what, int64_t pid,
		     int64_t tid, const char *text, int64_t num)
{
	int kind = strncmp(what, "process_", 8) == 0 ? PEND_PROCESS
						     : PEND_THREAD;

	if (kind == PEND_PROCESS)
		tid = 0;
	if (p->pend.kind != kind || p->pend.pid != pid || p->pend.tid != tid)
		pend_flush(p);
	p->pend.kind = kind;
	p->pend.pid = pid;
	p->pend.tid = tid;
	if (strstr(what, "_sort_index")) {
		p->pend.sort = num;
		p->pend.has_sort = true;
	} else if (text) {
		free(p->pend.name);
		if (!(p->pend.name = strdup(text)))
			p->oom = true;
	}
}

/* The uuid of counter series NAME KEY of process PID, described when
 * new. */
static uint64_t counter_track(st_pftrace *p, int64_t pid, const char *key)
{
	struct buf *k = &p->arg;
	char num[24];
	bool added;
	int64_t id;
	uint64_t parent = process_track(p, pid, NULL, NULL);

	snprintf(num, sizeof(num), "%lld ", (long long)pid);
	put_raw(p, k, num, strlen(num));
	put_raw(p, k, p->cname.b, p->cname.n);
	put_raw(p, k, " ", 1);
	put_raw(p, k, key, strlen(key));
	id = p->oom ? -1 : st_strtab_intern(&p->counters, (const char *)k->b,
					     k->n, &added);
	if (id < 0 || (added && ST_GROW(p->cuuid, p->ncu, p->cucap, 16) < 0)) {
		k->n = 0;
		p->oom = true;
		return 0;
	}
	if (!added) {
		k->n = 0;
		return p->cuuid[id];
	}
	p->cuuid[p->ncu++] = p->uuids += p->stride;
	put_uint(p, &p->sub, TD_UUID, p->uuids);
	put_uint(p, &p->sub, TD_PARENT, parent);
	/* the name without the pid */
	put_len(p, &p->sub, TD_NAME, k->b + strlen(num),
		k->n - strlen(num));
	put_len(p, &p->sub, TD_COUNTER, "", 0);
	k->n = 0;
	descriptor_out(p);
	return p->uuids;
}

/* ---- events ------------------------------------------------------------ */

/* The clock of a packet at TS: the default when TS is not before its
 * value; else the clock whose value is the latest not after TS (traces
 * interleave processes and files, each in time order but not with the
 * others); -1 when every clock is past TS. */
static int packet_clock(st_pftrace *p, int64_t ts)
{
	int k = -1;
	int64_t low = INT64_MAX;

	if (ts >= p->last_us[p->clock])
		return p->clock;
	/* clocks only go forward: a time before the least seen is before
	 * them all, with no search */
	if (ts < p->low_us)
		return -1;
	for (int j = 0; j < NCLOCKS; j++) {
		if (p->last_us[j] < low)
			low = p->last_us[j];
		if (p->last_us[j] <= ts &&
		    (k < 0 || p->last_us[j] > p->last_us[k]))
			k = j;
	}
	p->low_us = low;
	return k;
}

/* TS in nanoseconds, held to what int64 holds; a TS before 0, which
 * Perfetto's unsigned timestamps cannot hold, kept in P to fail the
 * output (st_pftrace_finish). */
static uint64_t abs_ns(st_pftrace *p, int64_t ts)
{
	if (ts < 0 && !p->first_before_0)
		p->first_before_0 = ts;
	if (ts > INT64_MAX / 1000 || ts < INT64_MIN / 1000)
		ts = ts < 0 ? INT64_MIN / 1000 : INT64_MAX / 1000;
	return (uint64_t)(ts * 1000);
}

/* The packet's time into p->pkt: the delta on its clock (packet_clock),
 * made the default in this packet when it is another; when every clock
 * is past TS, absolute on BOOTTIME (as Perfetto's own writer does). */
static void packet_time(st_pftrace *p, int64_t ts)
{
	int k = packet_clock(p, ts);

	if (k >= 0 && k != p->clock) {
		put_uint(p, &p->sub, PK_CLOCK_ID, CLOCK_US + (unsigned)k);
		put_msg(p, &p->pkt, PK_DEFAULTS, &p->sub);
		p->clock = k;
	}
	if (k >= 0) {
		put_uint(p, &p->pkt, PK_TIMESTAMP,
			 (uint64_t)ts - (uint64_t)p->last_us[k]);
		p->last_us[k] = ts;
		return;
	}
	put_uint(p, &p->pkt, PK_TIMESTAMP, abs_ns(p, ts));
	put_uint(p, &p->pkt, PK_CLOCK_ID, CLOCK_BOOTTIME);
}

/* Room for LEN bytes at the end of O's buffer (written out first when
 * short), or NULL when LEN is more than it holds. */
static uint8_t *out_room(st_outbuf *o, size_t len)
{
	if (len > sizeof(o->b) - o->n) {
		st_outbuf_flush(o);
		if (len > sizeof(o->b))
			return NULL;
	}
	return (uint8_t *)o->b + o->n;
}

/* The track event TE[0..N) as a packet at TS: the packet's other fields
 * in p->pkt, the whole written at once. */
static void event_out(st_pftrace *p, int64_t ts, const uint8_t *te, size_t n)
{
	uint8_t head[11], mid[11], *q;
	size_t kh, km, len;

	if (p->oom) {             /* the output is incomplete anyway */
		p->pkt.n = p->intern.n = 0;
		return;
	}
	packet_time(p, ts);
	if (p->intern.n)
		put_msg(p, &p->pkt, PK_INTERNED, &p->intern);
	put_uint(p, &p->pkt, PK_SEQ_ID, p->seq);
	mid[0] = PK_TRACK_EVENT << 3 | 2;
	km = 1 + varint(mid + 1, n);
	len = p->pkt.n + km + n;
	head[0] = TRACE_PACKET << 3 | 2;
	kh = 1 + varint(head + 1, len);
	if ((q = out_room(p->o, kh + len))) {
		memcpy(q, head, kh);
		memcpy(q + kh, p->pkt.b, p->pkt.n);
		memcpy(q + kh + p->pkt.n, mid, km);
		memcpy(q + kh + p->pkt.n + km, te, n);
		p->o->n += kh + len;
	} else {
		st_outbuf_put(p->o, (const char *)head, kh);
		st_outbuf_put(p->o, (const char *)p->pkt.b, p->pkt.n);
		st_outbuf_put(p->o, (const char *)mid, km);
		st_outbuf_put(p->o, (const char *)te, n);
	}
	p->pkt.n = 0;
}

/* The track event in p->te as a packet at TS. */
static void event_te_out(st_pftrace *p, int64_t ts)
{
	event_out(p, ts, p->te.b, p->te.n);
	p->te.n = 0;
}

static void event_open(st_pftrace *p, int ev, const char *name, size_t nlen,
		       const char *cat, size_t clen, uint64_t track)
{
	p->ev = ev;
	if (cat)
		put_uint(p, &p->te, TE_CATEGORY,
			 intern(p, &p->cats, IN_CATEGORY, cat, clen, NULL));
	put_uint(p, &p->te, TE_NAME_IID,
		 intern(p, &p->names, IN_NAME, name, nlen, NULL));
	put_uint(p, &p->te, TE_TRACK, track);
}

void st_pftrace_slice(st_pftrace *p, const char *name, size_t nlen,
		      const char *cat, size_t clen, int64_t pid, int64_t tid,
		      int64_t ts, int64_t dur)
{
	uint64_t track;

	pend_flush(p);
	track = thread_track(p, pid, tid, NULL, NULL);
	event_open(p, EV_SLICE, name, nlen, cat, clen, track);
	p->ev_ts = ts;
	p->ev_dur = dur;
}

void st_pftrace_instant(st_pftrace *p, const char *name, size_t nlen,
			const char *cat, size_t clen, int64_t pid,
			int64_t tid, int64_t ts)
{
	uint64_t track;

	pend_flush(p);
	track = thread_track(p, pid, tid, NULL, NULL);
	event_open(p, EV_INSTANT, name, nlen, cat, clen, track);
	put_uint(p, &p->te, TE_TYPE, TYPE_INSTANT);
	p->ev_ts = ts;
}

void st_pftrace_counter(st_pftrace *p, const char *name, size_t nlen,
			int64_t pid, int64_t ts)
{
	pend_flush(p);
	p->ev = EV_COUNTER;
	p->ev_pid = pid;
	p->ev_ts = ts;
	p->cname.n = 0;
	put_raw(p, &p->cname, name, nlen);
}

/* Start an arg of name KEY in p->arg. */
static void arg_name(st_pftrace *p, const char *key)
{
	put_uint(p, &p->arg, DA_NAME_IID,
		 intern(p, &p->arg_names, IN_ARG_NAME, key, strlen(key), NULL));
}

static void arg_done(st_pftrace *p)
{
	put_msg(p, &p->te, TE_ANNOTATION, &p->arg);
}

void st_pftrace_arg_str(st_pftrace *p, const char *key, const char *s,
			size_t len)
{
	uint64_t iid;
	bool utf8;

	if (p->ev == EV_COUNTER)
		return;
	iid = intern(p, &p->arg_values, IN_ARG_STRING, s, len, &utf8);
	arg_name(p, key);
	put_uint(p, &p->arg, DA_STRING_IID, iid);
	arg_done(p);
	if (!utf8) {
		/* the bytes as well, in hex, as the JSON has them */
		char k[80], hex[2 * 64 + 1];
		struct buf *h = &p->cname;
		size_t at = h->n;

		snprintf(k, sizeof(k), "%s_hex", key);
		for (size_t i = 0; i < len; i += 64) {
			size_t n = len - i < 64 ? len - i : 64;

			st_text_hex(hex, s + i, n);
			put_raw(p, h, hex, 2 * n);
		}
		iid = intern(p, &p->arg_values, IN_ARG_STRING,
			     (const char *)h->b + at, h->n - at, NULL);
		h->n = at;
		arg_name(p, k);
		put_uint(p, &p->arg, DA_STRING_IID, iid);
		arg_done(p);
	}
}

/* A counter's series KEY at V: a packet of its own. */
static void counter_value(st_pftrace *p, const char *key, double v)
{
	uint64_t track = counter_track(p, p->ev_pid, key);

	put_uint(p, &p->te, TE_TYPE, TYPE_COUNTER);
	put_uint(p, &p->te, TE_TRACK, track);
	put_double(p, &p->te, TE_DOUBLE_VALUE, v);
	event_te_out(p, p->ev_ts);
}

void st_pftrace_arg_int(st_pftrace *p, const char *key, int64_t v)
{
	if (p->ev == EV_COUNTER) {
		counter_value(p, key, (double)v);
		return;
	}
	arg_name(p, key);
	put_uint(p, &p->arg, DA_INT, (uint64_t)v);
	arg_done(p);
}

void st_pftrace_arg_real(st_pftrace *p, const char *key, double v)
{
	if (p->ev == EV_COUNTER) {
		counter_value(p, key, v);
		return;
	}
	arg_name(p, key);
	put_double(p, &p->arg, DA_DOUBLE, v);
	arg_done(p);
}

void st_pftrace_arg_bool(st_pftrace *p, const char *key, bool v)
{
	if (p->ev == EV_COUNTER)
		return;
	arg_name(p, key);
	put_uint(p, &p->arg, DA_BOOL, v);
	arg_done(p);
}

void st_pftrace_end(st_pftrace *p)
{
	if (p->ev == EV_SLICE) {
		put_uint(p, &p->sub, LE_PHASE, 'X');
		put_uint(p, &p->sub, LE_DURATION, (uint64_t)p->ev_dur);
		put_msg(p, &p->te, TE_LEGACY, &p->sub);
	}
	if (p->ev == EV_SLICE || p->ev == EV_INSTANT)
		event_te_out(p, p->ev_ts);
	p->ev = EV_NONE;
	p->te.n = 0;
}

/* ---- slices of interned strings --------------------------------------- */

uint64_t st_pftrace_iid(st_pftrace *p, st_pftrace_string kind, const char *s,
			size_t len, bool *utf8)
{
	if (kind == ST_PFTRACE_NAME)
		return intern(p, &p->names, IN_NAME, s, len, utf8);
	if (kind == ST_PFTRACE_CATEGORY)
		return intern(p, &p->cats, IN_CATEGORY, s, len, utf8);
	return intern(p, &p->arg_values, IN_ARG_STRING, s, len, utf8);
}

static inline uint8_t *enc_uint(uint8_t *q, unsigned field, uint64_t v)
{
	q += varint(q, (uint64_t)field << 3);
	return q + varint(q, v);
}

/* The bytes of varint V. */
static inline size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* The iid of arg name KEY (a literal) in this sequence, kept in *IID. */
static uint64_t key_iid(st_pftrace *p, uint64_t *iid, const char *key)
{
	if (!*iid)
		*iid = intern(p, &p->arg_names, IN_ARG_NAME, key, strlen(key),
			      NULL);
	return *iid;
}

/* A slice's TrackEvent: what it holds beside the call, and the lengths
 * of its submessages (each under 128 bytes: a length of one byte). */
struct call_enc {
	uint64_t track, file_key, bytes_key;
	size_t file, bytes, legacy, len;
};

/* The TrackEvent of C measured into E (its track and keys set), the
 * fields of st_pftrace_slice + _arg_str + _arg_int + _end in the same
 * order: the same bytes. */
static void call_measure(const st_pftrace_call *c, struct call_enc *e)
{
	e->file = c->file ? 1 + vlen(e->file_key) + 2 + vlen(c->file) : 0;
	e->bytes = c->bytes >= 0
		   ? 1 + vlen(e->bytes_key) + 1 + vlen((uint64_t)c->bytes) : 0;
	e->legacy = 2 + 1 + vlen((uint64_t)c->dur);
	e->len = (c->cat ? 1 + vlen(c->cat) : 0) + 1 + vlen(c->name) +
		 1 + vlen(e->track) + (c->file ? 2 + e->file : 0) +
		 (c->bytes >= 0 ? 2 + e->bytes : 0) + 2 + e->legacy;
}

/* The TrackEvent of C (measured in E) at Q; the end. */
static uint8_t *call_put(uint8_t *q, const st_pftrace_call *c,
			 const struct call_enc *e)
{
	if (c->cat)
		q = enc_uint(q, TE_CATEGORY, c->cat);
	q = enc_uint(q, TE_NAME_IID, c->name);
	q = enc_uint(q, TE_TRACK, e->track);
	if (c->file) {
		*q++ = TE_ANNOTATION << 3 | 2;
		*q++ = (uint8_t)e->file;
		q = enc_uint(q, DA_NAME_IID, e->file_key);
		q = enc_uint(q, DA_STRING_IID, c->file);
	}
	if (c->bytes >= 0) {
		*q++ = TE_ANNOTATION << 3 | 2;
		*q++ = (uint8_t)e->bytes;
		q = enc_uint(q, DA_NAME_IID, e->bytes_key);
		q = enc_uint(q, DA_INT, (uint64_t)c->bytes);
	}
	*q++ = TE_LEGACY << 3 | 2;
	*q++ = (uint8_t)e->legacy;
	q = enc_uint(q, LE_PHASE, 'X');
	return enc_uint(q, LE_DURATION, (uint64_t)c->dur);
}

/* Slice C (measured in E) as a packet straight into the output buffer,
 * when nothing is to be interned and its time is on the default clock or
 * absolute (K, packet_clock's); false when it must go through event_out
 * (or memory ran out). */
static bool call_out(st_pftrace *p, const st_pftrace_call *c,
		     const struct call_enc *e, int k)
{
	uint64_t t = k >= 0 ? (uint64_t)c->ts - (uint64_t)p->last_us[k]
			    : abs_ns(p, c->ts);
	size_t len = 1 + vlen(t) + (k < 0 ? 3 : 0) + 1 + vlen(p->seq) + 1 +
		     vlen(e->len) + e->len;
	uint8_t *q;

	if (p->oom || p->intern.n || (k >= 0 && k != p->clock) ||
	    !(q = out_room(p->o, 1 + vlen(len) + len)))
		return false;
	*q++ = TRACE_PACKET << 3 | 2;
	q += varint(q, len);
	q = enc_uint(q, PK_TIMESTAMP, t);
	if (k < 0)
		q = enc_uint(q, PK_CLOCK_ID, CLOCK_BOOTTIME);
	q = enc_uint(q, PK_SEQ_ID, p->seq);
	*q++ = PK_TRACK_EVENT << 3 | 2;
	q += varint(q, e->len);
	q = call_put(q, c, e);
	p->o->n = (size_t)(q - (uint8_t *)p->o->b);
	if (k >= 0)
		p->last_us[k] = c->ts;
	return true;
}

void st_pftrace_slice_iid(st_pftrace *p, const st_pftrace_call *c)
{
	uint8_t te[128], *q;
	struct call_enc e;

	pend_flush(p);
	e.track = thread_track(p, c->pid, c->tid, NULL, NULL);
	e.file_key = c->file ? key_iid(p, &p->key_file, "file") : 0;
	e.bytes_key = c->bytes >= 0 ? key_iid(p, &p->key_bytes, "bytes") : 0;
	call_measure(c, &e);
	/* most slices: the packet written straight into the output buffer */
	if (call_out(p, c, &e, packet_clock(p, c->ts)))
		return;
	q = call_put(te, c, &e);
	event_out(p, c->ts, te, (size_t)(q - te));
}

/* ---- the writer -------------------------------------------------------- */

st_pftrace *st_pftrace_new(st_outbuf *o, uint32_t seq, uint64_t stride,
			   uint64_t offset)
{
	st_pftrace *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->o = o;
	p->seq = seq - 1;
	p->stride = stride;
	p->uuids = offset - stride;   /* modulo 2^64: the first is OFFSET */
	st_strtab_init(&p->counters);
	start(p);
	return p;
}

void st_pftrace_sequence(st_pftrace *p)
{
	pend_flush(p);
	start(p);
}

int st_pftrace_finish(st_pftrace *p, const char *what, st_error *err)
{
	pend_flush(p);
	if (p->first_before_0 < 0)
		return st_error_set(err, ST_EXIT_DATAERR, "cannot write %s as "
				    "Perfetto's protobuf: an event at ts %" PRId64
				    " us, before 1970-01-01 (time 0), which its "
				    "unsigned timestamps cannot hold (--format "
				    "json can)", what, p->first_before_0);
	if (p->oom)
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: out "
				    "of memory", what);
	return 0;
}

void st_pftrace_free(st_pftrace *p)
{
	if (!p)
		return;
	free(p->cname.b);
	free(p->te.b);
	free(p->intern.b);
	free(p->pkt.b);
	free(p->sub.b);
	free(p->arg.b);
	itab_release(&p->names);
	itab_release(&p->cats);
	itab_release(&p->arg_names);
	itab_release(&p->arg_values);
	st_strtab_release(&p->counters);
	st_pairmap_release(&p->procs);
	st_pairmap_release(&p->threads);
	free(p->cuuid);
	free(p->pend.name);
	free(p);
}
