/* systrace_calls.c - the call files of a set read as events through
 * st_pfw_reader: one bpftrace (or strace) line, one event. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/grow.h"
#include "streamtime/num.h"
#include "systrace_int.h"

/* The kinds of call: event name, category. */
enum kind {
	K_READ, K_WRITE, K_OPENAT, K_CLOSE, K_BIO_R, K_BIO_W, K_BIO,
	K_MMAP, K_MUNMAP, K_MKDIR, K_RMDIR, K_UNLINK, K_OTHER, K_N
};

static const char *const kind_name[K_N] = {
	"read", "write", "openat", "close", "bio_read", "bio_write", "bio",
	"mmap", "munmap", "mkdir", "rmdir", "unlink", "call",
};

static const char *kind_cat(int k)
{
	if (k >= K_BIO_R && k <= K_BIO)
		return "block";
	if (k == K_MMAP || k == K_MUNMAP)
		return "memory";
	return "syscall";
}

const char *st_systrace_track_name(int64_t tid)
{
	if (tid < ST_SYS_TRACK_BASE || tid >= ST_SYS_TRACK_BASE + K_N)
		return NULL;
	return kind_name[tid - ST_SYS_TRACK_BASE];
}

struct callrd {
	struct st_systrace *s;
	size_t fi;
	enum st_sys_file kind;
	bool tracks;
	st_sys_header h;
	bool have_h;
	int section;              /* mmap / create_del: K_MMAP ... */
	bool in_section;          /* a section line came */
	/* the seed's mmap and create_del scripts print every section's
	 * line and header first, then the calls of all sections mixed */
	st_sys_header sh[K_N];
	bool has_sh[K_N];
	int nsh;
	int64_t name_id[K_N], cat_id[3], host_id;
	/* the last event's details, for the timeline's args */
	int64_t fd, tid, lat, ret;
	bool err;
	/* strace: calls left unfinished, (pid, 0) -> start µs + 1 */
	st_pairmap open;
	/* COMM columns: the name of each pid, given to the set at the end */
	struct comm { int64_t pid; char name[16]; } *comm;
	size_t ncomm, comm_cap;
	st_pairmap comm_of;       /* (pid, 0) -> index + 1 */
	/* counts, added to the set's at the end */
	uint64_t lat_wrapped, path_cut, errors;
};

/* MONO (ns since boot, >= 0) as UTC µs into *US: 0, or -1 when the time
 * does not fit in int64 ns (a TIMESTAMP near 2^63 with the manifest's
 * offset added); never a wrapped time.  The manifest's slope is at most
 * 1 % (manifest_read), so slope * (MONO - mono0) fits. */
static int utc_us(const struct st_systrace *s, int64_t mono, int64_t *us)
{
	int64_t off = s->al.offset_ns, ns, d;

	if (s->al.slope != 0 &&
	    (__builtin_sub_overflow(mono, s->al.mono0, &d) ||
	     __builtin_add_overflow(off, (int64_t)llround(s->al.slope *
							    (double)d),
				    &off)))
		return -1;
	if (__builtin_add_overflow(mono, off, &ns))
		return -1;
	*us = st_floor_div(ns, 1000);
	return 0;
}

static int ids(struct callrd *c, st_pfw_reader *r, int k, st_pfw_event *ev)
{
	const char *cat = kind_cat(k);
	int ci = cat[0] == 's' ? 0 : cat[0] == 'b' ? 1 : 2;

	if (c->name_id[k] < 0 &&
	    (c->name_id[k] = st_pfw_intern(r, kind_name[k],
					   strlen(kind_name[k]))) < 0)
		return -1;
	if (c->cat_id[ci] < 0 &&
	    (c->cat_id[ci] = st_pfw_intern(r, cat, strlen(cat))) < 0)
		return -1;
	ev->name = (uint32_t)c->name_id[k];
	ev->cat = (uint32_t)c->cat_id[ci];
	return 0;
}

/* Keep PID's COMM[0..LEN) (the first seen) for the set's names. */
static int comm_keep(struct callrd *c, int64_t pid, const char *comm,
		     size_t len)
{
	bool added;
	uint64_t *v = st_pairmap_get(&c->comm_of, (uint64_t)pid, 0, &added);

	if (!v)
		return -1;
	if (!added)
		return 0;
	if (ST_GROW(c->comm, c->ncomm, c->comm_cap, 16) < 0)
		return -1;
	if (len >= sizeof(c->comm[0].name))
		len = sizeof(c->comm[0].name) - 1;
	c->comm[c->ncomm].pid = pid;
	memcpy(c->comm[c->ncomm].name, comm, len);
	c->comm[c->ncomm].name[len] = 0;
	*v = ++c->ncomm;
	return 0;
}

static int section_of(const char *line, size_t len)
{
	static const struct { const char *n; int k; } sec[] = {
		{ "mmap():", K_MMAP }, { "munmap():", K_MUNMAP },
		{ "mkdir():", K_MKDIR }, { "rmdir():", K_RMDIR },
		{ "unlink():", K_UNLINK },
	};

	for (size_t i = 0; i < sizeof(sec) / sizeof(sec[0]); i++)
		if (strlen(sec[i].n) == len && memcmp(line, sec[i].n, len) == 0)
			return sec[i].k;
	return len > 3 && memcmp(line + len - 3, "():", 3) == 0 ? K_OTHER : -1;
}

/* The section of C whose header reads LINE (into *K): the current one
 * first (sections that each hold their calls), then the others; where
 * the header has a FUNCTION column, only the one it names ("mkdir()").
 * -1 when none does. */
static int section_fit(const struct callrd *c, const char *line,
		       size_t len, st_sys_call *k)
{
	for (int i = -1; i < K_N; i++) {
		int s = i < 0 ? c->section : i;
		const char *why;
		size_t n = strlen(kind_name[s]);

		if (i == c->section)
			continue;
		if (!c->has_sh[s] ||
		    st_sys_call_parse(&c->sh[s], line, len, k, &why) < 0)
			continue;
		if (c->sh[s].pos[ST_SC_FUNC] < 0 || s == K_OTHER ||
		    (k->fnlen == n + 2 && memcmp(k->func, kind_name[s], n) == 0 &&
		     memcmp(k->func + n, "()", 2) == 0))
			return s;
	}
	return -1;
}

/* Is LINE[0..LEN) (trailing blanks cut) not a call: empty, bpftrace's
 * "Attaching", a section's title ("mmap():", its header then comes next)
 * or a header (C's, and its section's)? */
static bool call_not_call(struct callrd *c, const char *line, size_t len)
{
	int sec;

	if (len == 0 || (len > 10 && memcmp(line, "Attaching ", 10) == 0))
		return true;
	if (line[len - 1] == ':' && (sec = section_of(line, len)) >= 0) {
		c->section = sec;
		c->in_section = true;
		c->have_h = false;
		return true;
	}
	if (len >= 9 && memcmp(line, "TIMESTAMP", 9) == 0) {
		c->have_h = st_sys_header_parse(line, len, &c->h) == 1;
		if (c->have_h && c->in_section) {
			c->nsh += !c->has_sh[c->section];
			c->has_sh[c->section] = true;
			c->sh[c->section] = c->h;
		}
		return true;
	}
	return false;
}

/* EV's host (the set's, if it names one) and file, K's (for a read, write
 * or close of a dentry's name: the path its openat gave, if any), as ids
 * of R; KIND is the call's.  0, or -1 when memory runs out. */
static int call_where(struct callrd *c, st_pfw_reader *r, st_sys_call *k,
		      int kind, st_pfw_event *ev)
{
	ev->host = ST_PFW_NONE;
	if (c->s->host[0]) {
		if (c->host_id < 0)
			c->host_id = st_pfw_intern(r, c->s->host,
						   strlen(c->s->host));
		if (c->host_id >= 0)
			ev->host = (uint32_t)c->host_id;
	}
	ev->file = ST_PFW_NONE;
	if (k->flen && (kind == K_READ || kind == K_WRITE || kind == K_CLOSE) &&
	    k->fd >= 0 && !memchr(k->file, '/', k->flen)) {
		size_t n;
		const char *path = sys_open_path(c->s, k->pid, k->fd, k->ts,
						 k->file, k->flen, &n);

		if (path) {
			k->file = path;
			k->flen = n;
		}
	}
	if (k->flen) {
		int64_t f = st_pfw_intern(r, k->file, k->flen);

		if (f < 0)
			return -1;
		ev->file = (uint32_t)f;
	}
	return 0;
}

static int call_feed(void *ctx, st_pfw_reader *r, const char *line,
		     size_t len, st_pfw_event *ev)
{
	struct callrd *c = ctx;
	st_sys_call k;
	const char *why;
	int kind, sec;
	int64_t start, end_us;

	while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (call_not_call(c, line, len))
		return ST_PFW_EOF;
	if (!c->have_h)
		return st_pfw_mark_bad(r, "a line before the header");
	sec = c->section;
	if (c->nsh > 1) {
		if ((sec = section_fit(c, line, len, &k)) < 0)
			return st_pfw_mark_bad(r, "a line that fits none of "
					       "the sections' headers");
	} else if (st_sys_call_parse(&c->h, line, len, &k, &why) < 0) {
		return st_pfw_mark_bad(r, why);
	}
	c->lat_wrapped += k.lat_wrapped;
	c->path_cut += k.path_cut;
	if (k.clen && comm_keep(c, k.pid, k.comm, k.clen) < 0)
		return st_pfw_mark_bad(r, "out of memory");
	switch (c->kind) {
	case ST_SYS_READ: kind = K_READ; break;
	case ST_SYS_WRITE: kind = K_WRITE; break;
	case ST_SYS_OPENAT: kind = K_OPENAT; break;
	case ST_SYS_CLOSE: kind = K_CLOSE; break;
	case ST_SYS_BIO:
		kind = k.rw == 'R' ? K_BIO_R : k.rw == 'W' ? K_BIO_W : K_BIO;
		break;
	default:
		kind = sec;
		break;
	}
	if (ids(c, r, kind, ev) < 0)
		return st_pfw_mark_bad(r, "out of memory");
	start = k.ts - (k.lat > 0 ? k.lat : 0);
	ev->pid = k.pid;
	c->tid = k.tid >= 0 ? k.tid : k.pid;
	ev->tid = c->tracks ? ST_SYS_TRACK_BASE + kind : c->tid;
	if (utc_us(c->s, start, &ev->ts) < 0 || utc_us(c->s, k.ts, &end_us) < 0)
		return st_pfw_mark_bad(r, "a timestamp that, with the clock "
				       "offset, is out of range (64-bit ns: "
				       "1677 to 2262)");
	ev->dur = end_us - ev->ts;
	if (call_where(c, r, &k, kind, ev) < 0)
		return st_pfw_mark_bad(r, "out of memory");
	c->fd = k.fd;
	c->lat = k.lat;
	c->ret = kind == K_OPENAT ? k.fd
		 : c->h.pos[ST_SC_RET] >= 0 ? k.ret : 0;
	c->err = c->ret < 0 && c->ret >= -4095 &&
		 (kind == K_READ || kind == K_WRITE || kind == K_OPENAT ||
		  kind == K_CLOSE);
	c->errors += c->err;
	ev->bytes = -1;
	if ((kind == K_READ || kind == K_WRITE) && k.ret >= 0)
		ev->bytes = k.ret;
	else if (kind >= K_BIO_R && kind <= K_BIO && k.bytes >= 0)
		ev->bytes = k.bytes;
	else if ((kind == K_MMAP || kind == K_MUNMAP) && k.bytes >= 0)
		ev->bytes = k.bytes;
	return ST_PFW_EVENT;
}

/* strace -ttt -f lines as events (when there is no bpftrace trace). */
static int strace_feed(void *ctx, st_pfw_reader *r, const char *line,
		       size_t len, st_pfw_event *ev)
{
	struct callrd *c = ctx;
	st_sys_strace t;
	int rc = st_sys_strace_parse(line, len, &t);
	int64_t name, cat, start;
	uint64_t *v;

	if (rc < 0)
		return st_pfw_mark_bad(r, "not a strace -ttt line");
	if (rc == 0 || t.exited)
		return ST_PFW_EOF;
	if (t.unfinished) {
		if (!(v = st_pairmap_get(&c->open, (uint64_t)t.pid, 0, NULL)))
			return st_pfw_mark_bad(r, "out of memory");
		*v = (uint64_t)t.t_us + 1;
		return ST_PFW_EOF;
	}
	start = t.t_us;
	if (t.resumed) {
		v = st_pairmap_get(&c->open, (uint64_t)t.pid, 0, NULL);
		if (!v || !*v)
			return ST_PFW_EOF;   /* its start was not seen */
		start = (int64_t)*v - 1;
		*v = 0;
		t.dur_us = t.t_us - start;
	}
	if ((name = st_pfw_intern(r, t.name, t.nlen)) < 0 ||
	    (cat = c->cat_id[0] >= 0 ? c->cat_id[0]
		   : (c->cat_id[0] = st_pfw_intern(r, "syscall", 7))) < 0)
		return st_pfw_mark_bad(r, "out of memory");
	ev->name = (uint32_t)name;
	ev->cat = (uint32_t)cat;
	ev->pid = t.pid >= 0 ? t.pid : 0;
	ev->tid = c->tid = ev->pid;
	if (c->tracks)
		ev->tid = ST_SYS_TRACK_BASE + K_OTHER;
	ev->ts = start;
	ev->dur = t.dur_us > 0 ? t.dur_us : 0;
	ev->host = ST_PFW_NONE;
	ev->file = ST_PFW_NONE;
	ev->bytes = -1;
	c->fd = -1;
	c->lat = ev->dur * 1000;
	c->ret = t.has_ret ? t.ret : 0;
	c->err = t.err;
	c->errors += t.err;
	if (t.has_ret && !t.err && t.ret >= 0 &&
	    ((t.nlen >= 4 && memcmp(t.name, "read", 4) == 0) ||
	     (t.nlen >= 5 && memcmp(t.name, "write", 5) == 0) ||
	     (t.nlen >= 5 && memcmp(t.name, "pread", 5) == 0) ||
	     (t.nlen >= 6 && memcmp(t.name, "pwrite", 6) == 0)))
		ev->bytes = t.ret;
	return ST_PFW_EVENT;
}

static void call_done(void *ctx, const st_pfw_reader *r)
{
	struct callrd *c = ctx;
	struct st_systrace *s = c->s;

	if (r) {
		const st_pfw_stats *st = st_pfw_stats_get(r);
		st_sys_file_stat *f = &s->files[c->fi];

		pthread_mutex_lock(&s->mu);
		/* the summary reads each file once; the timeline again */
		if (f->lines < st->lines) {
			f->lines = st->lines;
			f->events = st->events;
			f->bad = st->bad;
			f->lat_wrapped = c->lat_wrapped;
			f->path_cut = c->path_cut;
			f->errors = c->errors;
		}
		/* out of memory here only leaves a pid unnamed */
		for (size_t i = 0; i < c->ncomm; i++)
			sys_name_set(s, c->comm[i].pid, c->comm[i].name,
				     strlen(c->comm[i].name), "comm", 0);
		pthread_mutex_unlock(&s->mu);
	}
	free(c->comm);
	st_pairmap_release(&c->comm_of);
	st_pairmap_release(&c->open);
	free(c);
}

st_pfw_reader *st_systrace_open_file(const st_systrace *cs, const char *path,
				     bool tracks, st_error *err)
{
	struct st_systrace *s = (struct st_systrace *)cs;
	struct callrd *c;
	size_t fi = s->nfiles;

	for (size_t i = 0; i < s->nfiles; i++)
		if (strcmp(s->files[i].path, path) == 0)
			fi = i;
	if (fi == s->nfiles)
		return st_pfw_open(path, err);
	if (!(c = calloc(1, sizeof(*c)))) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	c->s = s;
	c->fi = fi;
	c->kind = s->files[fi].kind;
	c->tracks = tracks;
	c->section = K_OTHER;
	for (int k = 0; k < K_N; k++)
		c->name_id[k] = -1;
	c->cat_id[0] = c->cat_id[1] = c->cat_id[2] = -1;
	c->host_id = -1;
	return st_pfw_open_with(path, c->kind == ST_SYS_STRACE ? strace_feed
					: call_feed, c, call_done, err);
}

bool st_systrace_event_args(const st_pfw_reader *r, st_ctrace *w)
{
	void *ctx;
	st_pfw_feed_fn f = st_pfw_feed_of(r, &ctx);
	const struct callrd *c = ctx;

	if (f != call_feed && f != strace_feed)
		return false;
	if (c->fd >= 0)
		st_ctrace_arg_int(w, "fd", c->fd);
	st_ctrace_arg_int(w, "tid", c->tid);
	st_ctrace_arg_int(w, "latency_ns", c->lat);
	if (c->err)
		st_ctrace_arg_int(w, "error", c->ret);
	else if (c->ret >= 0)
		st_ctrace_arg_int(w, "ret", c->ret);
	return true;
}
