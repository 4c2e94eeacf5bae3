/* systrace.c - a directory of system traces as a set (systrace.h): its
 * small files read once (clock relation, phases, names, CPU and GPU per
 * phase), its call files read as events through st_pfw_reader. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/atomic.h"
#include "streamtime/file.h"
#include "streamtime/grow.h"
#include "streamtime/num.h"
#include "streamtime/record.h"
#include "streamtime/systrace.h"
#include "streamtime/time.h"
#include "systrace_int.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")
#define MAX_STDOUT_WRITES 1000000
/* The longest kernel tick (HZ 100): how far time(2)'s coarse clock may lag
 * the real time. */
#define TICK_MAX INT64_C(10000000)

/* ---- small helpers --------------------------------------------------- */

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

void sys_bad(struct st_systrace *s, size_t fi, uint64_t line, const char *why)
{
	s->files[fi].bad++;
	if (s->nbad < s->max_bad && s->bad) {
		s->bad[s->nbad].file = fi;
		s->bad[s->nbad].line = line;
		s->bad[s->nbad].why = why;
		s->nbad++;
	}
}

/* UTC ns of local date Y-M-D at SECS of the day in the set's zone. */
static int64_t local_ns(const struct st_systrace *s, int y, int m, int d,
			int64_t secs)
{
	int64_t local = st_days_from_civil(y, (unsigned)m, (unsigned)d) * 86400
			+ secs;

	return st_tz_local_to_utc(s->tz, local, NULL) * INT64_C(1000000000);
}

/* ---- names ----------------------------------------------------------- */

static int cmp_name(const void *x, const void *y)
{
	const st_sys_proc_name *a = x, *b = y;

	return ST_CMP(a->pid, b->pid);
}

/* The entry of PID, added when new; NULL out of memory. */
static st_sys_proc_name *name_of(struct st_systrace *s, int64_t pid)
{
	size_t lo = 0, hi = s->nnames;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->names[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < s->nnames && s->names[lo].pid == pid)
		return &s->names[lo];
	if (ST_GROW(s->names, s->nnames, s->names_cap, 64) < 0)
		return NULL;
	memmove(s->names + lo + 1, s->names + lo,
		(s->nnames - lo) * sizeof(*s->names));
	s->nnames++;
	memset(&s->names[lo], 0, sizeof(s->names[lo]));
	s->names[lo].pid = pid;
	s->names[lo].ppid = -1;
	return &s->names[lo];
}

int sys_name_set(struct st_systrace *s, int64_t pid, const char *name,
		 size_t len, const char *source, int prio)
{
	st_sys_proc_name *n = name_of(s, pid);

	if (!n)
		return -1;
	if (len && prio >= n->prio) {
		if (len >= sizeof(n->name))
			len = sizeof(n->name) - 1;
		memcpy(n->name, name, len);
		n->name[len] = 0;
		n->source = source;
		n->prio = prio;
	}
	return 0;
}

static int parent_set(struct st_systrace *s, int64_t pid, int64_t ppid)
{
	st_sys_proc_name *n = name_of(s, pid);

	if (!n)
		return -1;
	if (ppid >= 0 && ppid != pid)
		n->ppid = ppid;
	return 0;
}

struct names_file {
	struct st_systrace *s;
	const char *path;
};

/* --names FILE: "PID NAME" lines, '#' comments, blank lines. */
static int names_line(void *ctx, const char *line, size_t len,
		      uint64_t no, st_error *err)
{
	struct names_file *nf = ctx;
	const char *p = line, *e = line + len;
	char *end;
	long long pid;

	while (p < e && (*p == ' ' || *p == '\t'))
		p++;
	if (p == e || *p == '#')
		return 0;
	errno = 0;
	pid = strtoll(p, &end, 10);
	if (end == p || errno || pid < 0 || pid > 4194304 || end >= e ||
	    (*end != ' ' && *end != '\t'))
		return st_error_set(err, ST_EXIT_DATAERR, "%s:%" PRIu64 ": not "
				    "'PID NAME'", nf->path, no);
	while (end < e && (*end == ' ' || *end == '\t'))
		end++;
	if (end == e)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:%" PRIu64 ": no "
				    "name after the pid", nf->path, no);
	if (sys_name_set(nf->s, pid, end, (size_t)(e - end), "--names", 9) < 0)
		return OOM(err);
	return 0;
}

struct proc_ctx {
	struct st_systrace *s;
	size_t fi;
};

static int proc_line(void *ctx, const char *line, size_t len, uint64_t no,
		     st_error *err)
{
	struct proc_ctx *pc = ctx;
	struct st_systrace *s = pc->s;
	st_sys_proc p;
	int rc = st_sys_proc_parse(line, len, &p);

	s->files[pc->fi].lines++;
	if (rc < 0) {
		sys_bad(s, pc->fi, no, "not 'TIMESTAMP EVENT PID PPID COMM'");
		return 0;
	}
	if (rc == 0)
		return 0;
	s->files[pc->fi].events++;
	if (p.event == 'f') {
		st_sys_proc_name *par = name_of(s, p.ppid);

		if (!par || parent_set(s, p.pid, p.ppid) < 0 ||
		    sys_name_set(s, p.ppid, p.comm, p.clen, "comm", 1) < 0 ||
		    sys_name_set(s, p.pid, p.comm, p.clen, "comm", 1) < 0)
			return OOM(err);
	} else if (p.event == 'e') {
		if (sys_name_set(s, p.pid, p.comm, p.clen, "exec", 3) < 0)
			return OOM(err);
	}
	return 0;
}

/* ps.out: a snapshot's names (below exec's and --names, above COMM
 * columns) and parents. */
struct ps_ctx {
	struct st_systrace *s;
	size_t fi;
	st_sys_ps_header h;
};

static int ps_line(void *ctx, const char *line, size_t len, uint64_t no,
		   st_error *err)
{
	struct ps_ctx *c = ctx;
	st_sys_ps_row r;
	int rc = st_sys_ps_parse(line, len, &c->h, &r);

	c->s->files[c->fi].lines++;
	if (rc < 0) {
		sys_bad(c->s, c->fi, no, "not a ps row under a 'PID ... CMD' "
			"header");
		return 0;
	}
	if (rc != 1)
		return 0;
	c->s->files[c->fi].events++;
	if (parent_set(c->s, r.pid, r.ppid) < 0 ||
	    sys_name_set(c->s, r.pid, r.cmd, r.cmdlen, "ps", 2) < 0)
		return OOM(err);
	return 0;
}

/* strace: execve names, clone/fork parents, threads. */
struct strace_ctx {
	struct st_systrace *s;
	size_t fi;
	st_pairmap tgid;          /* (tid, 0) -> tgid + 1 */
	st_pairmap pending;       /* for sys_strace_note */
};

static int64_t strace_tgid(struct strace_ctx *c, int64_t tid)
{
	const uint64_t *v = st_pairmap_find(&c->tgid, (uint64_t)tid, 0);

	return v && *v ? (int64_t)*v - 1 : tid;
}

static int strace_line(void *ctx, const char *line, size_t len, uint64_t no,
		       st_error *err)
{
	struct strace_ctx *c = ctx;
	struct st_systrace *s = c->s;
	st_sys_strace t;
	int rc = st_sys_strace_parse(line, len, &t);
	int64_t pid;

	s->files[c->fi].lines++;
	if (rc < 0) {
		sys_bad(s, c->fi, no, "not a strace -ttt line");
		return 0;
	}
	if (rc == 0 || t.exited || t.pid < 0)
		return 0;
	s->files[c->fi].events++;
	pid = strace_tgid(c, t.pid);
	if (sys_strace_note(s, &c->pending, &t, pid) < 0)
		return OOM(err);
	if (!t.has_ret || t.err)
		return 0;
	if (t.nlen == 6 && memcmp(t.name, "execve", 6) == 0 && t.args &&
	    t.alen > 1 && t.args[0] == '"') {
		const char *q = memchr(t.args + 1, '"', t.alen - 1), *b;

		if (q) {
			b = q;
			while (b > t.args + 1 && b[-1] != '/')
				b--;
			if (sys_name_set(s, pid, b, (size_t)(q - b), "strace",
				     2) < 0)
				return OOM(err);
		}
	} else if ((t.nlen >= 5 && memcmp(t.name, "clone", 5) == 0) ||
		   (t.nlen == 4 && memcmp(t.name, "fork", 4) == 0) ||
		   (t.nlen == 5 && memcmp(t.name, "vfork", 5) == 0)) {
		bool thread = t.args && t.alen >= 12 &&
			      memmem(t.args, t.alen, "CLONE_THREAD", 12);

		if (t.ret <= 0)
			return 0;
		if (thread) {
			uint64_t *v = st_pairmap_get(&c->tgid, (uint64_t)t.ret,
						     0, NULL);

			if (!v)
				return OOM(err);
			*v = (uint64_t)pid + 1;
		} else if (parent_set(s, t.ret, pid) < 0) {
			return OOM(err);
		} else {
			const st_sys_proc_name *par = st_systrace_name(s, pid);

			if (par && par->name[0] &&
			    sys_name_set(s, t.ret, par->name, strlen(par->name),
				     "strace", 1) < 0)
				return OOM(err);
		}
	}
	return 0;
}

/* ---- MLPerf logs: phases, instants, the lines' bytes ------------------ */

struct log_ctx {
	struct st_systrace *s;
	size_t fi;
	struct ml_log *L;
	uint64_t off;
};

static int log_line(void *ctx, const char *line, size_t len, uint64_t no,
		    st_error *err)
{
	struct log_ctx *c = ctx;
	struct st_systrace *s = c->s;
	struct ml_log *L = c->L;
	st_sys_mllog m;
	const char *why;
	int rc = st_sys_mllog_parse(line, len, &m, &why);
	uint64_t start = c->off;

	/* getline gave the line with its newline: len + 1 bytes (the last
	 * line may have none: it ends at the file's size, fixed later) */
	c->off += len + 1;
	s->files[c->fi].lines++;
	if (ST_GROW(L->ends, L->nends, L->ends_cap, 256) < 0)
		return OOM(err);
	L->ends[L->nends++] = c->off;
	if (rc < 0) {
		sys_bad(s, c->fi, no, why);
		return 0;
	}
	if (rc == 0)
		return 0;
	s->files[c->fi].events++;
	if (ST_GROW(s->ml, s->nml, s->ml_cap, 64) < 0)
		return OOM(err);
	s->ml[s->nml].m = m;
	s->ml[s->nml].log = (size_t)(L - s->logs);
	s->ml[s->nml].off = start;
	s->nml++;
	return 0;
}

/* The phase name of an MLLOG key ("epoch_start" -> "epoch N"), into BUF;
 * 0, or -1 when KEY is not *_start / *_stop / *_end. */
static int phase_base(const char *key, char *buf, size_t size)
{
	size_t n = strlen(key);
	size_t cut = 0;

	if (n > 6 && strcmp(key + n - 6, "_start") == 0)
		cut = 6;
	else if (n > 5 && strcmp(key + n - 5, "_stop") == 0)
		cut = 5;
	else if (n > 4 && strcmp(key + n - 4, "_end") == 0)
		cut = 4;
	else
		return -1;
	snprintf(buf, size, "%.*s", (int)(n - cut), key);
	return 0;
}

static int cmp_ml(const void *x, const void *y)
{
	const struct ml_rec *a = x, *b = y;
	int c = ST_CMP(a->m.time_ms, b->m.time_ms);

	return c ? c : ST_CMP(a->seq, b->seq);
}

/* Pair the MLLOG intervals into phases, the points into instants. */
static int make_phases(struct st_systrace *s, st_error *err)
{
	struct ml_rec *v;

	if (!s->nml)
		return 0;
	if (!(v = malloc(s->nml * sizeof(*v))))
		return OOM(err);
	memcpy(v, s->ml, s->nml * sizeof(*v));
	for (size_t i = 0; i < s->nml; i++)
		v[i].seq = i;
	qsort(v, s->nml, sizeof(*v), cmp_ml);
	for (size_t i = 0; i < s->nml; i++) {
		const st_sys_mllog *m = &v[i].m;
		char base[64], name[80];

		if (m->type == ST_ML_POINT) {
			st_sys_instant *in;

			if (ST_GROW(s->inst, s->ninst, s->inst_cap, 32) < 0)
				goto oom;
			in = &s->inst[s->ninst++];
			memset(in, 0, sizeof(*in));
			snprintf(in->key, sizeof(in->key), "%s", m->key);
			snprintf(in->value, sizeof(in->value), "%s", m->value);
			in->t_ns = m->time_ms * 1000000;
			continue;
		}
		if (phase_base(m->key, base, sizeof(base)) < 0)
			snprintf(base, sizeof(base), "%s", m->key);
		if (m->num >= 0)
			snprintf(name, sizeof(name), "%s %" PRId64, base, m->num);
		else
			snprintf(name, sizeof(name), "%s", base);
		if (m->type == ST_ML_START) {
			st_sys_phase *p;

			if (ST_GROW(s->ph, s->nph, s->ph_cap, 32) < 0)
				goto oom;
			p = &s->ph[s->nph++];
			memset(p, 0, sizeof(*p));
			snprintf(p->name, sizeof(p->name), "%s", name);
			p->s_ns = m->time_ms * 1000000;
			p->e_ns = -1;
			p->num = m->num;
			continue;
		}
		/* an end closes the latest open phase of its name */
		for (size_t k = s->nph; k-- > 0;)
			if (s->ph[k].e_ns < 0 && strcmp(s->ph[k].name, name) == 0) {
				s->ph[k].e_ns = m->time_ms * 1000000;
				break;
			}
	}
	free(v);
	return 0;
oom:
	free(v);
	return OOM(err);
}

/* ---- the clock: time-align, MLLOG writes, the manifest ---------------- */

struct align_ctx {
	struct st_systrace *s;
	size_t fi;
	int y, m, d;              /* the date of the current line */
	int prev_secs;
	int64_t prev_ns;
	int prev_lsecs;
	bool any;
	int64_t hi;               /* min over lines of (S + 1 s) - ns */
	int64_t best_gap, seed_off;
};

static int align_line(void *ctx, const char *line, size_t len, uint64_t no,
		      st_error *err)
{
	struct align_ctx *a = ctx;
	struct st_systrace *s = a->s;
	int64_t ns, utc;
	int secs, rc = st_sys_align_parse(line, len, &ns, &secs);

	(void)err;
	s->files[a->fi].lines++;
	if (rc < 0) {
		sys_bad(s, a->fi, no, "not 'NSECS HH:MM:SS' (an interleaved or "
			"truncated line)");
		return 0;
	}
	if (rc == 0)
		return 0;
	if (a->any && secs < a->prev_lsecs - 43200) {
		/* past midnight */
		int64_t days = st_days_from_civil(a->y, (unsigned)a->m,
						  (unsigned)a->d) + 1;
		unsigned mm, dd;
		int64_t yy;

		st_civil_from_days(days, &yy, &mm, &dd);
		a->y = (int)yy;
		a->m = (int)mm;
		a->d = (int)dd;
	}
	s->files[a->fi].events++;
	utc = local_ns(s, a->y, a->m, a->d, secs);
	/* the second was printed at or after the event, from the coarse
	 * realtime clock (time(2)), which lags by up to a tick: before
	 * S + 1 s + TICK_MAX */
	if (utc + INT64_C(1000000000) + TICK_MAX - ns < a->hi)
		a->hi = utc + INT64_C(1000000000) + TICK_MAX - ns;
	if (a->any && secs != a->prev_lsecs && ns > a->prev_ns &&
	    ns - a->prev_ns < a->best_gap) {
		/* the seed's method: the transition of least gap, its
		 * midpoint taken as the second */
		a->best_gap = ns - a->prev_ns;
		a->seed_off = utc - (ns - a->best_gap / 2);
	}
	a->any = true;
	a->prev_lsecs = secs;
	a->prev_ns = ns;
	s->al.align_lines++;
	return 0;
}

/* Writes of the application's stdout/stderr (fd 1, 2) from trace_write. */
struct wr {
	int64_t pid, fd, start, end, ret;
};

static int cmp_wr(const void *x, const void *y)
{
	const struct wr *a = x, *b = y;
	int c = ST_CMP(a->pid, b->pid);

	if (!c)
		c = ST_CMP(a->fd, b->fd);
	return c ? c : ST_CMP(a->start, b->start);
}

struct wscan {
	struct wr *v;
	size_t n, cap;
};

/* Is the FD column of LINE (under H) "1" or "2"?  A quick look before
 * the whole line is parsed: most writes are not to stdout or stderr. */
static bool fd_is_std(const st_sys_header *h, const char *line, size_t len)
{
	const char *p = line, *e = line + len;
	int col = h->pos[ST_SC_FD];

	if (col < 0)
		return false;
	for (int k = 0; k <= col; k++) {
		const char *w;

		while (p < e && (*p == ' ' || *p == '\t'))
			p++;
		w = p;
		while (p < e && *p != ' ' && *p != '\t')
			p++;
		if (k == col)
			return p - w == 1 && (*w == '1' || *w == '2');
	}
	return false;
}

static int wscan_call(void *ctx, const st_sys_call *c, st_error *err)
{
	struct wscan *w = ctx;

	if ((c->fd != 1 && c->fd != 2) || c->ret <= 0 ||
	    w->n >= MAX_STDOUT_WRITES)
		return 0;
	if (ST_GROW(w->v, w->n, w->cap, 256) < 0)
		return OOM(err);
	w->v[w->n++] = (struct wr){ c->pid, c->fd, c->ts - c->lat, c->ts,
				    c->ret };
	return 0;
}

static bool is_end(const struct ml_log *L, uint64_t off)
{
	size_t lo = 0, hi = L->nends;

	if (off == 0)
		return true;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (L->ends[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < L->nends && L->ends[lo] == off;
}

/* Hold the writes V[0..N) (one stream, by start) against log L: when
 * their bytes end the log exactly, each at a line's end (or followed by
 * the writes that finish its line, the last its newline alone: a write's
 * start is then its first one's, its end its last one's), every MLLOG
 * line
 * they carry bounds the offset from below (the line's time_ms was taken
 * before its write began; 0.5 ms for time_ms rounded rather than cut),
 * and, the log being written in order by one thread, the first line of a
 * write bounds it from above by the end of the MLLOG write before it
 * (its time_ms was taken after that write returned; 1 ms for the cut).
 * A line with a prefix (a launcher's "0: ") may have been relayed by
 * another process, after the application's own write: it bounds only
 * from below.  Returns how many writes carried one (*LO, *HI the
 * bounds), 0 no match. */
static uint64_t match_stream(const struct st_systrace *s, size_t log,
			     const struct wr *v, size_t n, int64_t *lo,
			     int64_t *hi)
{
	const struct ml_log *L = &s->logs[log];
	uint64_t total = 0, pos, used = 0;
	size_t k = 0;
	int64_t best = INT64_MIN, top = INT64_MAX, prev_end = -1;

	for (size_t i = 0; i < n; i++)
		total += (uint64_t)v[i].ret;
	if (total > L->size || !is_end(L, L->size - total))
		return 0;
	pos = L->size - total;
	while (k < s->nml && (s->ml[k].log != log || s->ml[k].off < pos))
		k++;
	for (size_t i = 0, j; i < n; i = j) {
		uint64_t end = pos;
		int64_t tms = INT64_MIN, first = INT64_MIN;
		bool relayed = false;

		/* a line written in parts (an unbuffered print() writes the
		 * text, then "\n"): the writes up to a line's end as one,
		 * the last of them its newline alone */
		j = i;
		do
			end += (uint64_t)v[j++].ret;
		while (j < n && !is_end(L, end));
		if (!is_end(L, end) || (j - i > 1 && v[j - 1].ret != 1))
			return 0;
		for (; k < s->nml && s->ml[k].off < end; k++)
			if (s->ml[k].log == log) {
				if (first == INT64_MIN)
					first = s->ml[k].m.time_ms;
				if (s->ml[k].m.time_ms > tms)
					tms = s->ml[k].m.time_ms;
				relayed |= s->ml[k].m.prefixed;
			}
		while (k < s->nml && s->ml[k].log != log)
			k++;
		if (tms != INT64_MIN) {
			int64_t b = tms * 1000000 - 500000 - v[i].start;

			if (b > best)
				best = b;
			if (prev_end >= 0 && !relayed) {
				b = first * 1000000 + 1000000 - prev_end;
				if (b < top)
					top = b;
			}
			prev_end = relayed ? -1 : v[j - 1].end;
			used++;
		} else {
			prev_end = -1;   /* another line between: no pair */
		}
		pos = end;
	}
	*lo = best;
	*hi = top;
	return used;
}

/* The bounds from the MLLOG writes found in trace_write.out: of the
 * streams (pid, fd) that match a log, the one with the most lines. */
static int mllog_writes(struct st_systrace *s, const char *wpath,
			int64_t *lo, int64_t *hi, uint64_t *nused,
			st_error *err)
{
	struct wscan w = { 0 };
	int64_t first = INT64_MAX;
	int rc;

	*nused = 0;
	if ((rc = sys_each_call(wpath, fd_is_std, wscan_call, &w, NULL,
				err)) < 0)
		goto out;
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), cmp_wr);
	for (size_t i = 0; i < w.n;) {
		size_t j = i;

		while (j < w.n && w.v[j].pid == w.v[i].pid &&
		       w.v[j].fd == w.v[i].fd)
			j++;
		for (size_t l = 0; l < s->nlogs; l++) {
			int64_t b, t;
			uint64_t u = match_stream(s, l, w.v + i, j - i, &b, &t);

			/* the most lines; of equals, the earliest stream
			 * (the application's own, not a relay's copy) */
			if (u > *nused || (u && u == *nused &&
					   w.v[i].start < first)) {
				*nused = u;
				*lo = b;
				*hi = t;
				first = w.v[i].start;
			}
		}
		i = j;
	}
out:
	free(w.v);
	return rc;
}

/* The clock pairs of the manifest PATH (at most two: start, end) into
 * s->al.  65 when they do not fit in int64 arithmetic or imply a rate
 * more than 1 % away from 1 s per s: such a manifest was not written by
 * trace record, and its times would be wrong by years. */
static int manifest_clock(struct st_systrace *s, const char *path,
			  json_t *clock, st_error *err)
{
	int64_t mono[2], real[2], off[2], bound = 0, dm, dr, doff;
	size_t n = 0, i;
	json_t *e;

	json_array_foreach(clock, i, e) {
		json_t *m = json_object_get(e, "mono_ns"),
		       *r = json_object_get(e, "real_ns"),
		       *b = json_object_get(e, "bound_ns");

		if (!json_is_integer(m) || !json_is_integer(r) || n == 2)
			continue;
		mono[n] = json_integer_value(m);
		real[n] = json_integer_value(r);
		if (mono[n] < 0 || json_integer_value(b) < 0 ||
		    __builtin_sub_overflow(real[n], mono[n], &off[n]))
			return st_error_set(err, ST_EXIT_DATAERR, "%s: clock[%zu]: "
					    "mono_ns %" PRId64 ", real_ns %"
					    PRId64 ": out of range (mono_ns and "
					    "bound_ns >= 0, real_ns - mono_ns "
					    "within 64 bits)", path, i, mono[n],
					    real[n]);
		if (json_integer_value(b) > bound)
			bound = json_integer_value(b);
		n++;
	}
	if (n == 0)
		return 0;
	s->al.known = true;
	s->al.offset_ns = off[0];
	s->al.mono0 = mono[0];
	s->al.bound_ns = bound;
	if (n == 2 && (mono[1] != mono[0] || real[1] != real[0])) {
		double rate;

		/* both mono >= 0: dm fits */
		dm = mono[1] - mono[0];
		if (__builtin_sub_overflow(real[1], real[0], &dr) || dm == 0 ||
		    !((rate = (double)dr / (double)dm) >= 0.99 && rate <= 1.01) ||
		    __builtin_sub_overflow(off[1], off[0], &doff) ||
		    __builtin_add_overflow(bound, doff < 0 ? -doff : doff,
					   &s->al.bound_ns))
			return st_error_set(err, ST_EXIT_DATAERR, "%s: clock: "
					    "real_ns %" PRId64 " to %" PRId64
					    " over mono_ns %" PRId64 " to %"
					    PRId64 ": not a rate within 1 %% "
					    "of 1 s per s in 64-bit ns", path,
					    real[0], real[1], mono[0], mono[1]);
		s->al.slope = (double)doff / (double)dm;
	}
	if (__builtin_sub_overflow(s->al.offset_ns, s->al.bound_ns,
				   &s->al.lo_ns) ||
	    __builtin_add_overflow(s->al.offset_ns, s->al.bound_ns,
				   &s->al.hi_ns))
		return st_error_set(err, ST_EXIT_DATAERR, "%s: clock: the offset "
				    "%" PRId64 " ns, give or take bound_ns %"
				    PRId64 ", leaves 64-bit ns", path,
				    s->al.offset_ns, s->al.bound_ns);
	snprintf(s->al.method, sizeof(s->al.method), "trace record's direct "
		 "CLOCK_MONOTONIC/CLOCK_REALTIME measurements (%zu, "
		 "interpolated)", n);
	return 0;
}

static int manifest_read(struct st_systrace *s, const char *path,
			 st_error *err)
{
	json_error_t je;
	json_t *j = json_load_file(path, 0, &je);
	const char *host, *tz;
	int rc;

	if (!j && je.line < 1)   /* not read at all: jansson gives no line */
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot read %s: %s",
				    path, je.text);
	if (!j)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:%d: not a trace "
				    "record manifest (%s)", path, je.line,
				    je.text);
	if (!json_is_object(j)) {
		json_decref(j);
		return st_error_set(err, ST_EXIT_DATAERR, "%s: not a trace "
				    "record manifest (not a JSON object)",
				    path);
	}
	if ((host = json_string_value(json_object_get(j, "host"))))
		snprintf(s->host, sizeof(s->host), "%s", host);
	tz = json_string_value(json_object_get(j, "tz"));
	if (tz && !s->tz_given) {
		st_error e2;

		if ((s->own_tz = st_tz_load(tz, &e2)))
			s->tz = s->own_tz;
	}
	s->manifest_pid = json_integer_value(json_object_get(j, "pid"));
	if (json_is_boolean(json_object_get(j, "complete"))) {
		json_t *tr = json_object_get(j, "tracers"), *e;
		size_t i;

		s->rec.manifest = true;
		s->rec.complete = json_is_true(json_object_get(j, "complete"));
		/* the io and proc tracers share bpftrace's output: both
		 * carry its counts, so the larger, not the sum */
		json_array_foreach(tr, i, e) {
			json_int_t l = json_integer_value(json_object_get(
					   e, "lost_events")),
				   b = json_integer_value(json_object_get(
					   e, "bad_lines"));

			if (l > 0 && (uint64_t)l > s->rec.lost_events)
				s->rec.lost_events = (uint64_t)l;
			if (b > 0 && (uint64_t)b > s->rec.bad_lines)
				s->rec.bad_lines = (uint64_t)b;
		}
	}
	rc = manifest_clock(s, path, json_object_get(j, "clock"), err);
	json_decref(j);
	return rc;
}

/* The date for times of day: --date, mpstat's header, pmon's Date. */
static int find_date(struct st_systrace *s, const struct st_systrace_opts *o,
		     const char *cpu, const char *gpu, st_error *err)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (o->date) {
		int y, m, d;
		char c;

		if (sscanf(o->date, "%4d-%2d-%2d%c", &y, &m, &d, &c) != 3 ||
		    m < 1 || m > 12 || d < 1 ||
		    d > (int)st_days_in_month(y, (unsigned)m))
			return st_error_set(err, ST_EXIT_USAGE, "--date '%s': "
					    "not YYYY-MM-DD", o->date);
		s->y = y;
		s->m = m;
		s->d = d;
		snprintf(s->date_src, sizeof(s->date_src), "--date");
		return 1;
	}
	if (cpu && (f = fopen(cpu, "r"))) {
		for (int k = 0; k < 8 && (n = getline(&line, &cap, f)) >= 0; k++) {
			st_sys_cpu_header h = { 0 };
			st_sys_cpu_row r;
			int rc = st_sys_cpu_parse(line, (size_t)n, &h, &r,
						  &s->y, &s->m, &s->d);

			if (rc == -2) {
				st_error_set(err, ST_EXIT_DATAERR, "%s:%d: the "
					     "date of mpstat's header, %04d-%02d-"
					     "%02d, does not exist", cpu, k + 1,
					     s->y, s->m, s->d);
				free(line);
				fclose(f);
				return -1;
			}
			if (rc == 3) {
				snprintf(s->date_src, sizeof(s->date_src),
					 "the mpstat header of cpu.out");
				break;
			}
		}
		fclose(f);
	}
	if (!s->y && gpu && (f = fopen(gpu, "r"))) {
		st_sys_gpu_header h = { 0 };

		for (int k = 0; k < 64 && (n = getline(&line, &cap, f)) >= 0; k++) {
			st_sys_gpu_row r;

			if (st_sys_gpu_parse(line, (size_t)n, &h, &r) == 1 &&
			    r.y) {
				s->y = r.y;
				s->m = r.m;
				s->d = r.d;
				snprintf(s->date_src, sizeof(s->date_src),
					 "the Date column of gpu.out");
				break;
			}
		}
		fclose(f);
	}
	free(line);
	return s->y ? 1 : 0;
}

/* Narrow [*LO, *HI] to [LO2, HI2] when they meet (1), else leave it (0). */
static int narrow(int64_t *lo, int64_t *hi, int64_t lo2, int64_t hi2)
{
	int64_t l = lo2 > *lo ? lo2 : *lo, h = hi2 < *hi ? hi2 : *hi;

	if (l > h)
		return 0;
	*lo = l;
	*hi = h;
	return 1;
}

/* The clock relation of a seed layout, bounded from both sides by what
 * the directory offers: the time-align trace (above), strace's calls
 * matched with bpftrace's (both sides), the MLLOG writes (both sides).
 * A source that contradicts the ones before it is dropped and said. */
static int align_seed(struct st_systrace *s, const char *talign,
		      const char *rpath, const char *wpath, st_error *err)
{
	struct align_ctx a = { .s = s, .y = s->y, .m = s->m, .d = s->d,
			       .hi = INT64_MAX, .best_gap = INT64_MAX };
	int64_t lo = INT64_MIN, hi = INT64_MAX, l2 = INT64_MIN, h2 = INT64_MAX;
	uint64_t used = 0, pairs = 0;
	char how[160] = "", srcs[224] = "";
	size_t k = 0;

	if (talign) {
		a.fi = s->fi_align;
		if (sys_each_line(talign, align_line, &a, err) < 0)
			return -1;
		if (!a.any)
			return st_error_set(err, ST_EXIT_DATAERR, "%s:1: not a "
					    "time-align trace: no 'NSECS "
					    "HH:MM:SS' line", talign);
		hi = a.hi;
		if (a.best_gap != INT64_MAX)
			s->al.seed_offset_ns = a.seed_off;
		k += (size_t)snprintf(srcs + k, sizeof(srcs) - k, "the "
				      "time-align trace (each line before its "
				      "second + 1 s + a 10 ms tick)");
	}
	if (s->nsc && (rpath || wpath) &&
	    sys_strace_bounds(s, rpath, wpath, &l2, &h2, &pairs, err) < 0)
		return -1;
	if (pairs) {
		if (narrow(&lo, &hi, l2, h2)) {
			k += (size_t)snprintf(srcs + k, sizeof(srcs) - k,
					      "%s%" PRIu64 " strace calls matched "
					      "with bpftrace's (each within its "
					      "stamp and the next's)",
					      k ? ", " : "", pairs);
		} else {
			snprintf(how, sizeof(how), "; the strace bounds "
				 "contradicted the time-align trace and were "
				 "dropped");
			pairs = 0;
		}
	}
	l2 = INT64_MIN;
	h2 = INT64_MAX;
	if (s->nml && wpath &&
	    mllog_writes(s, wpath, &l2, &h2, &used, err) < 0)
		return -1;
	if (used) {
		if (narrow(&lo, &hi, l2, h2)) {
			k += (size_t)snprintf(srcs + k, sizeof(srcs) - k,
					      "%s%" PRIu64 " MLLOG writes (each "
					      "after its time_ms, before the "
					      "next's)", k ? ", " : "", used);
		} else {
			size_t n = strlen(how);

			snprintf(how + n, sizeof(how) - n, "; the MLLOG bounds "
				 "contradicted the others and were dropped");
			used = 0;
		}
	}
	s->al.mllog_writes = used;
	s->al.strace_pairs = pairs;
	s->al.lo_ns = lo;
	s->al.hi_ns = hi;
	if (lo == INT64_MIN && hi == INT64_MAX)
		return 0;
	s->al.known = true;
	if (lo != INT64_MIN && hi != INT64_MAX) {
		s->al.offset_ns = lo + (hi - lo) / 2;
		s->al.bound_ns = (hi - lo + 1) / 2;
		snprintf(s->al.method, sizeof(s->al.method), "the middle of "
			 "the bounds from %s%s", srcs, how);
	} else if (hi != INT64_MAX) {
		s->al.offset_ns = hi;
		s->al.bound_ns = -1;
		snprintf(s->al.method, sizeof(s->al.method), "an upper bound "
			 "only, from %s: times are never early but may be late "
			 "by an unknown amount%s", srcs, how);
	} else {
		s->al.offset_ns = lo;
		s->al.bound_ns = -1;
		snprintf(s->al.method, sizeof(s->al.method), "a lower bound "
			 "only, from %s: times are never late but may be early "
			 "by an unknown amount%s", srcs, how);
	}
	return 0;
}

/* ---- CPU and GPU samples per phase ------------------------------------ */

static void phase_cpu(struct st_systrace *s, int64_t t,
		      const st_sys_cpu_row *r)
{
	for (size_t i = 0; i < s->nph; i++) {
		st_sys_phase *p = &s->ph[i];

		if (t < p->s_ns || (p->e_ns >= 0 && t >= p->e_ns))
			continue;
		if (!p->cpu_samples)
			p->cpu_usr = p->cpu_sys = p->cpu_iowait = p->cpu_idle = 0;
		p->cpu_samples++;
		p->cpu_usr += isnan(r->usr) ? 0 : r->usr;
		p->cpu_sys += isnan(r->sys) ? 0 : r->sys;
		p->cpu_iowait += isnan(r->iowait) ? 0 : r->iowait;
		p->cpu_idle += isnan(r->idle) ? 0 : r->idle;
	}
}

struct cpu_ctx {
	struct st_systrace *s;
	size_t fi;
	st_sys_cpu_header h;
	int y, m, d, prev;
	bool any;
	bool dated;               /* mpstat's first line, with the date */
	/* the timeline: counters written as they are read */
	st_ctrace *w;
	int64_t pid;
	/* st_systrace_each_sample: each sample to FN */
	st_sys_sample_fn fn;
	void *fctx;
};

static void next_day(int *y, int *m, int *d)
{
	int64_t days = st_days_from_civil(*y, (unsigned)*m, (unsigned)*d) + 1,
		yy;
	unsigned mm, dd;

	st_civil_from_days(days, &yy, &mm, &dd);
	*y = (int)yy;
	*m = (int)mm;
	*d = (int)dd;
}

static int cpu_line(void *ctx, const char *line, size_t len, uint64_t no,
		    st_error *err)
{
	struct cpu_ctx *c = ctx;
	struct st_systrace *s = c->s;
	st_sys_cpu_row r;
	int y, m, d, rc = st_sys_cpu_parse(line, len, &c->h, &r, &y, &m, &d);
	int64_t t;

	(void)err;
	if (!c->w && !c->fn)
		s->files[c->fi].lines++;
	if (rc < 0) {
		if (!c->w && !c->fn)
			sys_bad(s, c->fi, no, rc == -2 ? "a date that does not "
				"exist in mpstat's header" : "not an mpstat row");
		return 0;
	}
	if (rc == 3)
		c->dated = true;
	if (rc != 1 || !r.all || !s->y)
		return 0;
	if (c->any && r.secs < c->prev - 43200)
		next_day(&c->y, &c->m, &c->d);
	c->any = true;
	c->prev = r.secs;
	/* the row is the average of the second that ends at its time */
	t = local_ns(s, c->y, c->m, c->d, r.secs) - 500000000;
	if (c->fn) {
		st_sys_sample x = {
			.t_ns = t, .gpu = -1,
			.usr = isnan(r.usr) ? 0 : r.usr,
			.nice = isnan(r.nice) ? 0 : r.nice,
			.sys = isnan(r.sys) ? 0 : r.sys,
			.iowait = isnan(r.iowait) ? 0 : r.iowait,
			.idle = isnan(r.idle) ? 0 : r.idle,
		};

		return c->fn(c->fctx, &x, err);
	}
	if (c->w) {
		st_ctrace_counter(c->w, "CPU %", 5, c->pid, t / 1000);
		st_ctrace_arg_real(c->w, "usr", isnan(r.usr) ? 0 : r.usr);
		st_ctrace_arg_real(c->w, "sys", isnan(r.sys) ? 0 : r.sys);
		st_ctrace_arg_real(c->w, "iowait",
				   isnan(r.iowait) ? 0 : r.iowait);
		st_ctrace_arg_real(c->w, "idle", isnan(r.idle) ? 0 : r.idle);
		st_ctrace_end(c->w);
		return 0;
	}
	s->files[c->fi].events++;
	phase_cpu(s, t, &r);
	return 0;
}

struct gpu_ctx {
	struct st_systrace *s;
	size_t fi;
	st_sys_gpu_header h;
	/* the sample being summed over its processes */
	bool open;
	int64_t t;
	int gpu;
	double sm, mem, fb;
	st_ctrace *w;
	int64_t pid0;
	st_sys_sample_fn fn;        /* as cpu_ctx's */
	void *fctx;
	st_error *err;              /* FN's */
};

static int gpu_grow(struct st_systrace *s, int gpu)
{
	size_t n = (size_t)gpu + 1;

	if (n <= s->ngpu)
		return 0;
	for (size_t i = 0; i < s->nph; i++) {
		st_sys_phase *p = &s->ph[i];
		double *a = realloc(p->gpu_sm, n * sizeof(*a));

		if (!a)
			return -1;
		p->gpu_sm = a;
		if (!(a = realloc(p->gpu_mem, n * sizeof(*a))))
			return -1;
		p->gpu_mem = a;
		if (!(a = realloc(p->gpu_fb, n * sizeof(*a))))
			return -1;
		p->gpu_fb = a;
		uint64_t *c = realloc(p->gpu_samples, n * sizeof(*c));

		if (!c)
			return -1;
		p->gpu_samples = c;
		for (size_t k = s->ngpu; k < n; k++) {
			p->gpu_sm[k] = p->gpu_mem[k] = p->gpu_fb[k] = 0;
			p->gpu_samples[k] = 0;
		}
	}
	s->ngpu = n;
	return 0;
}

static int gpu_flush(struct gpu_ctx *c)
{
	struct st_systrace *s = c->s;

	if (!c->open)
		return 0;
	c->open = false;
	if (c->fn) {
		st_sys_sample x = { .t_ns = c->t, .gpu = c->gpu, .sm = c->sm,
				    .mem = c->mem, .fb = c->fb };

		return c->fn(c->fctx, &x, c->err) < 0 ? -2 : 0;
	}
	if (c->w) {
		st_ctrace_counter(c->w, "GPU", 3, c->pid0 + c->gpu, c->t / 1000);
		st_ctrace_arg_real(c->w, "sm %", c->sm);
		st_ctrace_arg_real(c->w, "mem %", c->mem);
		st_ctrace_arg_real(c->w, "fb MB", c->fb);
		st_ctrace_end(c->w);
		return 0;
	}
	if (gpu_grow(s, c->gpu) < 0)
		return -1;
	for (size_t i = 0; i < s->nph; i++) {
		st_sys_phase *p = &s->ph[i];

		if (c->t < p->s_ns || (p->e_ns >= 0 && c->t >= p->e_ns))
			continue;
		p->gpu_samples[c->gpu]++;
		p->gpu_sm[c->gpu] += c->sm;
		p->gpu_mem[c->gpu] += c->mem;
		if (c->fb > p->gpu_fb[c->gpu])
			p->gpu_fb[c->gpu] = c->fb;
	}
	return 0;
}

static int gpu_line(void *ctx, const char *line, size_t len, uint64_t no,
		    st_error *err)
{
	struct gpu_ctx *c = ctx;
	struct st_systrace *s = c->s;
	st_sys_gpu_row r;
	int rc = st_sys_gpu_parse(line, len, &c->h, &r);
	int64_t t;

	if (!c->w && !c->fn)
		s->files[c->fi].lines++;
	if (rc < 0) {
		if (!c->w && !c->fn)
			sys_bad(s, c->fi, no, "not an nvidia-smi pmon row");
		return 0;
	}
	if (rc != 1)
		return 0;
	if (r.y)
		t = local_ns(s, r.y, r.m, r.d, r.secs);
	else if (s->y)
		t = local_ns(s, s->y, s->m, s->d, r.secs);
	else
		return 0;
	if (!c->w && !c->fn)
		s->files[c->fi].events++;
	if (!c->fn && r.gpu > s->max_gpu_seen)
		s->max_gpu_seen = r.gpu;
	if (c->open && (c->t != t || c->gpu != r.gpu)) {
		int f = gpu_flush(c);

		if (f == -2)
			return -1;
		if (f < 0)
			return OOM(err);
	}
	if (!c->open) {
		c->open = true;
		c->t = t;
		c->gpu = r.gpu;
		c->sm = c->mem = c->fb = 0;
	}
	if (r.pid >= 0) {
		c->sm += r.sm > 0 ? r.sm : 0;
		c->mem += r.mem > 0 ? r.mem : 0;
		c->fb += r.fb > 0 ? r.fb : 0;
		if (!c->w && !c->fn && r.cmdlen && sys_name_set(s, r.pid, r.cmd, r.cmdlen,
						  "comm", 0) < 0)
			return OOM(err);
	}
	return 0;
}

/* ---- opening a set --------------------------------------------------- */

static int cmp_path(const void *x, const void *y)
{
	const st_sys_file_stat *a = x, *b = y;

	return strcmp(a->path, b->path);
}

/* The first line of PATH that is not blank or "Attaching ...", and its
 * number; whether a header line (TIMESTAMP ...) comes within 64 lines:
 * 1, 0 none, -1 one of more columns than are read (*BAD_LINE its line). */
static int calls_kind_ok(const char *path, uint64_t *bad_line)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	uint64_t no = 0;
	int hdr = 0;

	*bad_line = 0;
	if (!f)
		return 0;   /* said when it is read */
	while (no < 64 && (n = getline(&line, &cap, f)) >= 0) {
		st_sys_header h;

		no++;
		while (n && (line[n - 1] == '\n' || line[n - 1] == '\r' ||
			     line[n - 1] == ' '))
			n--;
		if (n == 0 || strncmp(line, "Attaching ", 10) == 0 ||
		    (n > 3 && strcmp(line + n - 3, "():") == 0))
			continue;
		if ((hdr = st_sys_header_parse(line, (size_t)n, &h)) != 0) {
			if (hdr < 0)
				*bad_line = no;
			break;
		}
		if (!*bad_line)
			*bad_line = no;
	}
	free(line);
	fclose(f);
	if (hdr)
		return hdr;
	return *bad_line ? 0 : 1;   /* empty: bpftrace stopped before its
				     * header */
}

bool st_systrace_is_set(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	bool yes = false;

	if (!d)
		return false;
	while (!yes && (de = readdir(d))) {
		enum st_sys_file k = st_sys_classify(de->d_name);

		if (k == ST_SYS_NONE)
			continue;
		if (k != ST_SYS_LOG) {
			yes = true;
		} else {
			char *p = st_path_join(dir, de->d_name);
			FILE *f = p ? fopen(p, "r") : NULL;
			char buf[65536];
			size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

			buf[n] = 0;
			yes = memmem(buf, n, ":::MLLOG", 8) != NULL;
			if (f)
				fclose(f);
			free(p);
		}
	}
	closedir(d);
	return yes;
}

static int list_dir(struct st_systrace *s, const char *dir, st_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;

	if (!d)
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot read %s: %s",
				    dir, strerror(errno));
	while ((rc = st_dir_read(d, dir, &de, err)) > 0) {
		enum st_sys_file k = st_sys_classify(de->d_name);
		st_sys_file_stat *f;
		struct stat sb;

		if (k == ST_SYS_NONE)
			continue;
		if (ST_GROW(s->files, s->nfiles, cap, 16) < 0) {
			rc = OOM(err);
			break;
		}
		f = &s->files[s->nfiles];
		memset(f, 0, sizeof(*f));
		if (!(f->path = st_path_join(dir, de->d_name))) {
			rc = OOM(err);
			break;
		}
		s->nfiles++;
		if (stat(f->path, &sb) < 0 || !S_ISREG(sb.st_mode)) {
			free(f->path);
			s->nfiles--;
			continue;
		}
		f->kind = k;
	}
	closedir(d);
	if (rc < 0)
		return -1;
	if (s->nfiles)
		qsort(s->files, s->nfiles, sizeof(*s->files), cmp_path);
	return 0;
}

static const char *path_of(const struct st_systrace *s, enum st_sys_file k,
			   size_t *fi)
{
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].kind == k) {
			if (fi)
				*fi = i;
			return s->files[i].path;
		}
	return NULL;
}

static int read_logs(struct st_systrace *s, st_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < s->nfiles; i++)
		n += s->files[i].kind == ST_SYS_LOG;
	if (!(s->logs = calloc(n + 1, sizeof(*s->logs))))
		return OOM(err);
	for (size_t i = 0; i < s->nfiles; i++) {
		struct log_ctx c = { s, i, NULL, 0 };
		struct stat sb;

		if (s->files[i].kind != ST_SYS_LOG)
			continue;
		c.L = &s->logs[s->nlogs++];
		c.L->fi = i;
		if (sys_each_line(s->files[i].path, log_line, &c, err) < 0)
			return -1;
		c.L->size = stat(s->files[i].path, &sb) == 0
			    ? (uint64_t)sb.st_size : c.off;
		if (c.L->nends && c.L->ends[c.L->nends - 1] > c.L->size)
			c.L->ends[c.L->nends - 1] = c.L->size;
	}
	return make_phases(s, err);
}

/* A record stopped before its end (killed, a full disk) leaves bpftrace's
 * one output unsplit in DIR/.bpftrace.out and no trace_*.out files of its
 * own.  Split it as trace record would (st_record_split), into a
 * temporary directory of our own (the input directory is not ours to
 * write), and read those files as the set's.  0 (nothing to recover, or
 * done), -1 with ERR set: 74. */
static int recover_raw(struct st_systrace *s, const char *dir, size_t *cap,
		       st_error *err)
{
	const char *tmp = getenv("TMPDIR");
	char *raw = st_path_join(dir, ST_RECORD_RAW), *tpl = NULL;
	FILE *in = NULL, *out[ST_RF_COUNT] = { 0 };
	struct stat sb;
	int rc = -1, k;

	if (!raw)
		return OOM(err);
	if (stat(raw, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		free(raw);
		return 0;
	}
	for (size_t i = 0; i < s->nfiles; i++)
		for (k = 0; k < ST_RF_COUNT; k++)
			if (strcmp(base_of(s->files[i].path),
				   st_record_file_names[k]) == 0) {
				/* split already: the raw output is what a
				 * kill between the split and its removal
				 * left */
				free(raw);
				return 0;
			}
	if (!(in = fopen(raw, "r"))) {
		st_error_set(err, ST_EXIT_NOINPUT, "cannot read %s: %s", raw,
			     strerror(errno));
		goto out;
	}
	if (!(tpl = st_path_join(tmp && *tmp ? tmp : "/tmp",
				 "streamtime-recover.XXXXXX"))) {
		OOM(err);
		goto out;
	}
	if (!mkdtemp(tpl)) {
		st_error_set(err, ST_EXIT_IOERR, "cannot create a directory "
			     "to split %s into (%s): %s", raw, tpl,
			     strerror(errno));
		goto out;
	}
	s->recover_dir = tpl;
	for (k = 0; k < ST_RF_COUNT; k++) {
		st_sys_file_stat *f;

		if (ST_GROW(s->files, s->nfiles, *cap, 16) < 0) {
			OOM(err);
			goto out;
		}
		f = &s->files[s->nfiles];
		memset(f, 0, sizeof(*f));
		if (!(f->path = st_path_join(tpl, st_record_file_names[k]))) {
			OOM(err);
			goto out;
		}
		f->kind = st_sys_classify(st_record_file_names[k]);
		s->nfiles++;
		if (!(out[k] = fopen(f->path, "w"))) {
			st_error_set(err, ST_EXIT_IOERR, "cannot create %s: %s",
				     f->path, strerror(errno));
			goto out;
		}
	}
	if (st_record_split(in, out, &s->rec.lost_events, &s->rec.bad_lines,
			    err) < 0)
		goto out;
	rc = 0;
out:
	for (k = 0; k < ST_RF_COUNT; k++)
		if (out[k] && fclose(out[k]) != 0 && rc == 0)
			rc = st_error_set(err, ST_EXIT_IOERR, "cannot write a "
					  "file in %s: %s", tpl,
					  strerror(errno));
	if (in)
		fclose(in);
	if (!s->recover_dir)
		free(tpl);
	free(raw);
	if (rc == 0) {
		s->rec.recovered = true;
		qsort(s->files, s->nfiles, sizeof(*s->files), cmp_path);
	}
	return rc;
}

/* Check every bpftrace calls file of S starts with a header it can read;
 * *CALLS: S has one.  0, or -1 with ERR set: 65. */
static int calls_headers(struct st_systrace *s, bool *calls, st_error *err)
{
	int ok;

	for (size_t i = 0; i < s->nfiles; i++) {
		uint64_t bl;

		if (!st_sys_is_calls(s->files[i].kind))
			continue;
		*calls = true;
		if ((ok = calls_kind_ok(s->files[i].path, &bl)) < 0)
			return st_error_set(err, ST_EXIT_DATAERR, "%s:%" PRIu64
					    ": a header of more than %d "
					    "columns (streamtime reads at "
					    "most %d)", s->files[i].path, bl,
					    ST_SYS_MAXCOL, ST_SYS_MAXCOL);
		if (!ok)
			return st_error_set(err, ST_EXIT_DATAERR, "%s:%" PRIu64
					    ": not a bpftrace trace: no "
					    "header line (TIMESTAMP PID ...) "
					    "before it", s->files[i].path, bl);
	}
	return 0;
}

/* Read what names S's processes and tells the run's phases: the manifest,
 * O's names file, the proc and ps snapshots, strace's outputs and the
 * MLPerf logs.  0, or -1 with ERR set. */
static int read_processes(struct st_systrace *s, const st_systrace_opts *o,
			  st_error *err)
{
	const char *p;
	size_t fi;

	if ((p = path_of(s, ST_SYS_MANIFEST, NULL)) &&
	    manifest_read(s, p, err) < 0)
		return -1;
	if (o->names) {
		struct names_file nf = { s, o->names };

		if (sys_each_line(o->names, names_line, &nf, err) < 0)
			return -1;
	}
	if ((p = path_of(s, ST_SYS_PROC, &fi))) {
		struct proc_ctx pc = { s, fi };

		if (sys_each_line(p, proc_line, &pc, err) < 0)
			return -1;
	}
	if ((p = path_of(s, ST_SYS_PS, &fi))) {
		struct ps_ctx pc = { .s = s, .fi = fi };

		if (sys_each_line(p, ps_line, &pc, err) < 0)
			return -1;
		if (s->files[fi].lines && !pc.h.valid)
			return st_error_set(err, ST_EXIT_DATAERR, "%s:1: not a "
					    "ps snapshot: no header naming PID "
					    "and, last, CMD, COMMAND, ARGS or "
					    "COMM", p);
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		struct strace_ctx sc = { s, i, { 0 }, { 0 } };
		int rc;

		if (s->files[i].kind != ST_SYS_STRACE)
			continue;
		rc = sys_each_line(s->files[i].path, strace_line, &sc, err);
		st_pairmap_release(&sc.tgid);
		st_pairmap_release(&sc.pending);
		if (rc < 0)
			return -1;
	}
	return read_logs(s, err);
}

/* Read S's mpstat samples (cpu.out), when it has them.  0, or -1 with ERR
 * set. */
static int read_cpu(struct st_systrace *s, st_error *err)
{
	size_t fi = 0;
	const char *p = path_of(s, ST_SYS_CPU, &fi);
	struct cpu_ctx c = { .s = s, .fi = fi, .y = s->y, .m = s->m,
			     .d = s->d };

	if (!p)
		return 0;
	if (sys_each_line(p, cpu_line, &c, err) < 0)
		return -1;
	/* only mpstat's first line: the run ended before its first sample
	 * (shorter than the interval); no samples, no error */
	if (s->files[fi].lines && !c.h.valid && !c.dated)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:1: not mpstat "
				    "output: no 'HH:MM:SS CPU %%usr ... %%idle' "
				    "header", p);
	return 0;
}

/* Read S's nvidia-smi pmon samples (gpu.out), when it has them.  0, or -1
 * with ERR set. */
static int read_gpu(struct st_systrace *s, st_error *err)
{
	size_t fi = 0;
	const char *p = path_of(s, ST_SYS_GPU, &fi);
	struct gpu_ctx c = { .s = s, .fi = fi, .gpu = -1 };

	if (!p)
		return 0;
	s->max_gpu_seen = -1;
	if (sys_each_line(p, gpu_line, &c, err) < 0)
		return -1;
	if (gpu_flush(&c) < 0)
		return OOM(err);
	if (s->files[fi].lines && !c.h.valid)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:1: not "
				    "nvidia-smi pmon output: no '#Date Time "
				    "gpu pid ...' header", p);
	if (gpu_grow(s, s->max_gpu_seen) < 0)
		return OOM(err);
	return 0;
}

/* S's event files, in S->events: bpftrace's calls (CALLS: it has some),
 * else strace's.  0, or -1 with ERR set: out of memory. */
static int list_events(struct st_systrace *s, bool calls, st_error *err)
{
	for (size_t i = 0; i < s->nfiles; i++) {
		enum st_sys_file k = s->files[i].kind;

		if (calls ? !st_sys_is_calls(k) : k != ST_SYS_STRACE)
			continue;
		if (ST_GROW(s->events, s->nevents, s->events_cap, 8) < 0)
			return OOM(err);
		s->events[s->nevents++] = s->files[i].path;
	}
	return 0;
}

st_systrace *st_systrace_open(const char *dir, const st_systrace_opts *o,
			      st_error *err)
{
	struct st_systrace *s = calloc(1, sizeof(*s));
	const char *cpu, *gpu, *talign, *wpath, *rpath, *p;
	size_t fcap;
	bool calls = false;

	if (!s) {
		OOM(err);
		return NULL;
	}
	pthread_mutex_init(&s->mu, NULL);
	s->tz = o->tz;
	s->tz_given = o->tz_given;
	s->max_bad = o->max_bad;
	if (!(s->dir = strdup(dir)) ||
	    !(s->bad = calloc(o->max_bad + 1, sizeof(*s->bad)))) {
		OOM(err);
		goto fail;
	}
	if (list_dir(s, dir, err) < 0)
		goto fail;
	fcap = s->nfiles;
	if (recover_raw(s, dir, &fcap, err) < 0 ||
	    calls_headers(s, &calls, err) < 0)
		goto fail;
	if (!s->nfiles) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: not a trace set: no "
			     ".pfw or .pfw.gz file and no system-trace file "
			     "(trace_*.out, cpu.out, gpu.out, *.log with MLLOG "
			     "lines, strace.out, manifest.json; see "
			     "docs/systrace.md)", dir);
		goto fail;
	}
	if (read_processes(s, o, err) < 0)
		goto fail;
	cpu = path_of(s, ST_SYS_CPU, NULL);
	gpu = path_of(s, ST_SYS_GPU, NULL);
	talign = path_of(s, ST_SYS_TIME_ALIGN, &s->fi_align);
	wpath = path_of(s, ST_SYS_WRITE, NULL);
	rpath = path_of(s, ST_SYS_READ, NULL);
	if (find_date(s, o, cpu, gpu, err) < 0)
		goto fail;
	if (!s->al.known && talign && !s->y) {
		st_error_set(err, ST_EXIT_USAGE, "%s gives times of day without "
			     "a date: give --date YYYY-MM-DD (and --tz ZONE, "
			     "default UTC), or keep cpu.out (mpstat) or gpu.out "
			     "(nvidia-smi pmon) beside it", talign);
		goto fail;
	}
	if ((!s->al.known && align_seed(s, talign, rpath, wpath, err) < 0) ||
	    read_cpu(s, err) < 0 || read_gpu(s, err) < 0)
		goto fail;
	if (calls && (p = path_of(s, ST_SYS_OPENAT, NULL)) &&
	    sys_opens_read(s, p, err) < 0)
		goto fail;
	if (list_events(s, calls, err) < 0)
		goto fail;
	for (size_t i = 0; i < s->nnames; i++)
		if (!s->names[i].name[0])
			snprintf(s->names[i].name, sizeof(s->names[i].name),
				 "pid %" PRId64, s->names[i].pid);
	if (!s->al.known)
		snprintf(s->al.method, sizeof(s->al.method), "none: no "
			 "time-align trace, MLLOG writes or manifest; call "
			 "times are ns since boot");
	return s;
fail:
	st_systrace_free(s);
	return NULL;
}

void st_systrace_free(st_systrace *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->recover_dir &&
		    strncmp(s->files[i].path, s->recover_dir,
			    strlen(s->recover_dir)) == 0)
			unlink(s->files[i].path);
		free(s->files[i].path);
	}
	if (s->recover_dir)
		rmdir(s->recover_dir);
	free(s->recover_dir);
	free(s->files);
	for (size_t i = 0; i < s->nph; i++) {
		free(s->ph[i].gpu_sm);
		free(s->ph[i].gpu_mem);
		free(s->ph[i].gpu_fb);
		free(s->ph[i].gpu_samples);
	}
	free(s->ph);
	free(s->inst);
	free(s->names);
	free(s->ml);
	free(s->sc);
	for (size_t i = 0; i < s->nlogs; i++)
		free(s->logs[i].ends);
	free(s->logs);
	free(s->events);
	free(s->opens);
	free(s->open_paths);
	st_pairmap_release(&s->open_run);
	free(s->bad);
	free(s->dir);
	st_tz_free(s->own_tz);
	pthread_mutex_destroy(&s->mu);
	free(s);
}

/* ---- accessors ------------------------------------------------------- */

size_t st_systrace_event_files(const st_systrace *s, const char *const **v)
{
	*v = (const char *const *)s->events;
	return s->nevents;
}

const st_sys_record *st_systrace_record(const st_systrace *s)
{
	return &s->rec;
}

const st_sys_align *st_systrace_align(const st_systrace *s)
{
	return &s->al;
}

size_t st_systrace_phases(const st_systrace *s, const st_sys_phase **v,
			  size_t *ngpu)
{
	*v = s->ph;
	*ngpu = s->ngpu;
	return s->nph;
}

size_t st_systrace_instants(const st_systrace *s, const st_sys_instant **v)
{
	*v = s->inst;
	return s->ninst;
}

const st_sys_proc_name *st_systrace_name(const st_systrace *s, int64_t pid)
{
	const st_sys_proc_name key = { .pid = pid };

	if (!s->nnames)
		return NULL;
	return bsearch(&key, s->names, s->nnames, sizeof(key), cmp_name);
}

size_t st_systrace_names(const st_systrace *s, const st_sys_proc_name **v)
{
	*v = s->names;
	return s->nnames;
}

const char *st_systrace_host(const st_systrace *s)
{
	return s->host;
}

const char *st_systrace_dir(const st_systrace *s)
{
	return s->dir;
}

size_t st_systrace_file_stats(const st_systrace *s,
			      const st_sys_file_stat **v)
{
	*v = s->files;
	return s->nfiles;
}

size_t st_systrace_bad(const st_systrace *s, const st_sys_bad **v)
{
	*v = s->bad;
	return s->nbad;
}

/* ---- the timeline's extras ------------------------------------------- */

int st_systrace_write_extras(const st_systrace *cs, st_ctrace *w,
			     int64_t pid0, int64_t *used, st_error *err)
{
	struct st_systrace *s = (struct st_systrace *)cs;
	const char *p;
	int64_t pid = pid0;
	char name[160];
	size_t fi;

	*used = 0;
	if (s->nph || s->ninst) {
		snprintf(name, sizeof(name), "application (%s)",
			 base_of(s->dir));
		st_ctrace_meta(w, "process_name", pid, -1, "name", name, 0);
		st_ctrace_meta(w, "thread_name", pid, 1, "name", "phases", 0);
		for (size_t i = 0; i < s->nph; i++) {
			const st_sys_phase *ph = &s->ph[i];
			int64_t e = ph->e_ns >= 0 ? ph->e_ns : ph->s_ns;
			/* nested phases: a lane by depth */
			int64_t lane = 1;

			for (size_t k = 0; k < s->nph; k++)
				if (k != i && s->ph[k].s_ns <= ph->s_ns &&
				    (s->ph[k].e_ns < 0 || s->ph[k].e_ns >= e) &&
				    (s->ph[k].s_ns < ph->s_ns ||
				     s->ph[k].e_ns > e || k < i))
					lane++;
			if (lane > 1) {
				snprintf(name, sizeof(name), "phases (%" PRId64
					 ")", lane);
				st_ctrace_meta(w, "thread_name", pid, lane,
					       "name", name, 0);
			}
			st_ctrace_slice(w, ph->name, strlen(ph->name), "phase",
					5, pid, lane, ph->s_ns / 1000,
					(e - ph->s_ns) / 1000);
			if (ph->e_ns < 0)
				st_ctrace_arg_bool(w, "never_closed", true);
			st_ctrace_end(w);
		}
		for (size_t i = 0; i < s->ninst; i++) {
			st_ctrace_instant(w, s->inst[i].key,
					  strlen(s->inst[i].key), "mllog", 5,
					  pid, 1, s->inst[i].t_ns / 1000);
			if (s->inst[i].value[0])
				st_ctrace_arg_str(w, "value", s->inst[i].value,
						  strlen(s->inst[i].value));
			st_ctrace_end(w);
		}
		pid++;
	}
	if ((p = path_of(s, ST_SYS_CPU, &fi)) && s->y) {
		struct cpu_ctx c = { .s = s, .fi = fi, .y = s->y, .m = s->m,
				     .d = s->d, .w = w, .pid = pid };

		st_ctrace_meta(w, "process_name", pid, -1, "name",
			       "CPU (mpstat, all)", 0);
		if (sys_each_line(p, cpu_line, &c, err) < 0)
			return -1;
		pid++;
	}
	if ((p = path_of(s, ST_SYS_GPU, &fi)) && s->ngpu) {
		struct gpu_ctx c = { .s = s, .fi = fi, .gpu = -1, .w = w,
				     .pid0 = pid };

		for (size_t g = 0; g < s->ngpu; g++) {
			snprintf(name, sizeof(name), "GPU %zu (pmon)", g);
			st_ctrace_meta(w, "process_name", pid + (int64_t)g, -1,
				       "name", name, 0);
		}
		if (sys_each_line(p, gpu_line, &c, err) < 0)
			return -1;
		gpu_flush(&c);
		pid += (int64_t)s->ngpu;
	}
	*used = pid - pid0;
	return 0;
}

/* ---- the samples as a stream ------------------------------------------ */

int st_systrace_each_sample(const st_systrace *cs, st_sys_sample_fn fn,
			    void *ctx, st_error *err)
{
	struct st_systrace *s = (struct st_systrace *)cs;
	const char *p;
	size_t fi;

	if ((p = path_of(s, ST_SYS_CPU, &fi)) && s->y) {
		struct cpu_ctx c = { .s = s, .fi = fi, .y = s->y, .m = s->m,
				     .d = s->d, .fn = fn, .fctx = ctx };

		if (sys_each_line(p, cpu_line, &c, err) < 0)
			return -1;
	}
	if ((p = path_of(s, ST_SYS_GPU, &fi)) && s->ngpu) {
		struct gpu_ctx c = { .s = s, .fi = fi, .gpu = -1, .fn = fn,
				     .fctx = ctx, .err = err };

		if (sys_each_line(p, gpu_line, &c, err) < 0 ||
		    gpu_flush(&c) < 0)
			return -1;
	}
	return 0;
}
