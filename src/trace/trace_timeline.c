/* trace_timeline.c - DFTracer traces as one Chrome trace (SPEC 5.10): a pass
 * for the summary, one for the slices' lanes, one that writes.  Perfetto's
 * form (pftrace.h) has no lanes: the pass that writes is the only one
 * (st_trace_timeline_stream), or follows the summary's when events are
 * sampled. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/ctrace.h"
#include "streamtime/pftrace.h"
#include "streamtime/trace_timeline.h"
#include "pass.h"
#include "trace_int.h"

struct tl;
struct tl_par;
static int tl_part_head(struct tl *t, st_error *err);

/* Per host of the trace: its clock correction state. */
struct hostfix {
	bool known, warned;
};

struct tl {
	const st_trace_timeline_opts *o;
	const st_trace_summary *s;  /* the first pass's; NULL: none */
	bool pf;                  /* Perfetto's form: the tracks as they come */
	st_trace_summary *rs;     /* without a first pass: the inputs' record */
	st_trace_bad **bad;       /* rs's corrupt lines, or a part's */
	size_t *n_bad;
	uint64_t *bad_lines;
	bool part;                /* one input of a trace written in parts */
	struct tl_par *par;       /* a worker's part: its trace, its index */
	size_t part_i;
	uint64_t nproc;           /* pf: the processes so far */
	uint64_t pid_stride, pid_next;  /* pf: trace pids given so far */
	struct {                  /* pf: the last event's (host, pid, tid) */
		bool set;
		uint32_t hid;
		int64_t pid, tid;
		uint64_t tp;
	} last;
	st_strtab hosts;          /* host -> index into fix */
	struct hostfix *fix;      /* nfix of them set */
	size_t nfix, fix_cap;
	st_pairmap pids;         /* (host, pid) -> trace pid */
	st_ctrace w;
	uint64_t k;               /* events seen, for sampling */
	bool writing;             /* pass 3; pass 2 only gathers lrecs */
	st_log *log;
	/* pass 2: the slices to be written, and their tracks */
	struct lrec *rec;
	size_t nrec, rec_cap;
	st_pairids tracks;       /* (trace pid, tid) -> track */
	struct track {
		int64_t tid;
		uint32_t nlanes;
		size_t first;     /* its lanes in lane_tid */
	} *trk;
	size_t ntrk, trk_cap;
	/* pass 3 */
	uint32_t *slot;           /* by slice: its track's first + lane */
	int64_t *lane_tid;        /* by slot: the tid written */
	uint64_t seq;             /* slices so far */
};

/* The track of (PID, TID), added when new; -1 when memory runs out. */
static int64_t tl_track(struct tl *t, uint64_t pid, int64_t tid)
{
	bool added;
	int64_t id = st_pairids_get(&t->tracks, pid, (uint64_t)tid, &added);

	if (id < 0)
		return -1;
	if (added) {
		if (ST_GROW(t->trk, t->ntrk, t->trk_cap, 64) < 0)
			return -1;
		t->trk[t->ntrk++] = (struct track){ tid, 1, 0 };
	}
	return id;
}

/* Pass 2 keeps the slice [TS, TS + DUR) of track TRK. */
static int tl_gather(struct tl *t, uint32_t trk, int64_t ts, int64_t dur,
		     st_error *err)
{
	if (t->nrec == UINT32_MAX)
		return st_error_set(err, ST_EXIT_USAGE, "more than %" PRIu32
				    " slices: lower --max-events", UINT32_MAX);
	if (ST_GROW(t->rec, t->nrec, t->rec_cap, 4096) < 0)
		return OOM(err);
	t->rec[t->nrec] = (struct lrec){ ts, ts + dur, trk,
					 (uint32_t)t->nrec };
	t->nrec++;
	return 0;
}

static int64_t correct(struct tl *t, uint32_t host, const char *name,
		       int64_t ts, st_trace_timeline_counts *c)
{
	const st_clock_offset *m;
	struct hostfix *f = &t->fix[host];

	if (!t->o->offsets || !*name || (f->warned && !f->known))
		return ts;
	m = st_clock_offsets_at(t->o->offsets, name, ts * 1000, NULL);
	if (!m) {
		if (!f->warned)
			st_warn(t->log, "--clock-offsets: no measurement of "
				"host '%s': its times are left as they are",
				name);
		f->warned = true;
		return ts;
	}
	if (!f->known) {
		f->known = f->warned = true;
		c->corrected_hosts++;
	}
	return ts - (int64_t)llround((double)m->offset / 1000.0);
}

__extension__ typedef unsigned __int128 u128;

/* floor(K * M / N) without overflow. */
static uint64_t scaled(uint64_t k, uint64_t m, uint64_t n)
{
	return (uint64_t)((u128)k * m / n);
}

/* One file's reading state in passes 2 and 3. */
struct tl_read {
	st_pfw_reader *r;
	struct rmap m;
	uint32_t *hmap;           /* reader's host id -> t->hosts index + 1 */
	size_t hcap;
	struct tl_iids *iids;     /* Perfetto: reader's string id -> iids */
	size_t icap;
	uint64_t seen, pending;   /* for the progress meter */
};

/* Is EV kept: through the filter and, with --max-events, the sampling?
 * 1, 0, or -1 with ERR set.  Counts the events seen in C. */
static int tl_keep(struct tl *t, struct tl_read *fr, const st_pfw_event *ev,
		   st_trace_timeline_counts *c, st_error *err)
{
	const st_trace_timeline_opts *o = t->o;
	const st_trace_summary *s = t->s;
	bool keep = true;

	if (o->filter) {
		int pass = trace_rmap_pass(&fr->m, fr->r, o->filter, ev, err);

		if (pass < 0)
			return -1;
		if (!pass)
			return 0;
	}
	fr->pending++;
	if (o->max_events && s && s->events > o->max_events) {
		/* keep event k when floor(k * M / N) steps */
		keep = scaled(t->k + 1, o->max_events, s->events) >
		       scaled(t->k, o->max_events, s->events);
	}
	t->k++;
	if (t->writing)
		c->events++;
	return keep;
}

/* Host H[0..LEN) as an index of t->hosts: -1 when the first pass did not
 * see it; without a first pass (Perfetto's form) it is added, -2 when
 * memory runs out. */
static int64_t tl_host_id(struct tl *t, const char *h, size_t len)
{
	int64_t k = t->pf ? st_strtab_intern(&t->hosts, h, len, NULL)
				 : st_strtab_find(&t->hosts, h, len);

	if (k < 0)
		return t->pf ? -2 : -1;
	if ((size_t)k >= t->nfix) {
		if (ST_GROW(t->fix, (size_t)k, t->fix_cap, 64) < 0)
			return -2;
		memset(t->fix + t->nfix, 0,
		       ((size_t)k + 1 - t->nfix) * sizeof(*t->fix));
		t->nfix = (size_t)k + 1;
	}
	return k;
}

/* EV's host as an index of t->hosts in *HID, its name in *HOST, through
 * a per-reader cache.  1, 0 when the host was not seen by pass 1 (the
 * event is cut), or -1 with ERR set. */
static int tl_host(struct tl *t, struct tl_read *fr, const st_pfw_event *ev,
		   const char **host, uint32_t *hid, st_error *err)
{
	size_t hlen = 0;
	int64_t k;

	*host = "";
	if (ev->host == ST_PFW_NONE) {
		if ((k = tl_host_id(t, "", 0)) < 0)
			return k == -1 ? 0 : OOM(err);
		*hid = (uint32_t)k;
		return 1;
	}
	if (ev->host >= fr->hcap) {
		size_t cap = fr->hcap ? fr->hcap : 256;
		uint32_t *h;

		while (cap <= ev->host)
			cap *= 2;
		if (!(h = realloc(fr->hmap, cap * sizeof(*h))))
			return OOM(err);
		memset(h + fr->hcap, 0, (cap - fr->hcap) * sizeof(*h));
		fr->hmap = h;
		fr->hcap = cap;
	}
	*host = st_pfw_str(fr->r, ev->host, &hlen);
	if (!fr->hmap[ev->host]) {
		if ((k = tl_host_id(t, *host, hlen)) < 0)
			return k == -1 ? 0 : OOM(err);
		fr->hmap[ev->host] = (uint32_t)k + 1;
	}
	*hid = fr->hmap[ev->host] - 1;
	return 1;
}

/* A reader's string's iids in the Perfetto writer's sequence (the
 * reader's, a sequence per input): 0 not yet asked; FILE_RAW when the
 * string is a file name that is not UTF-8. */
struct tl_iids {
	uint32_t name, cat, file;
};

#define FILE_RAW UINT32_MAX

/* The iid of reader string ID as KIND (FILE_RAW: a value not UTF-8), kept
 * in FR->iids (*V, NULL when there is no room); 0 when memory runs out. */
static uint64_t tl_iid_new(struct tl *t, struct tl_read *fr, uint32_t id,
			   st_pftrace_string kind, uint32_t *v)
{
	const char *s;
	size_t len;
	uint64_t iid;
	bool utf8 = true;

	s = st_pfw_str(fr->r, id, &len);
	iid = st_pftrace_iid(t->w.pf, kind, s, len,
			     kind == ST_PFTRACE_VALUE ? &utf8 : NULL);
	if (!utf8)
		iid = FILE_RAW;
	if (v && iid <= UINT32_MAX)
		*v = (uint32_t)iid;
	return iid;
}

/* FR->iids[ID], grown to hold it; NULL when it cannot be. */
static struct tl_iids *tl_iids_at(struct tl_read *fr, uint32_t id)
{
	size_t cap = fr->icap ? fr->icap : 256;
	struct tl_iids *a;

	if (id == ST_PFW_NONE)
		return NULL;
	while (cap <= id)
		cap *= 2;
	if (!(a = realloc(fr->iids, cap * sizeof(*a))))
		return NULL;
	memset(a + fr->icap, 0, (cap - fr->icap) * sizeof(*a));
	fr->iids = a;
	fr->icap = cap;
	return &a[id];
}

/* The iid of reader string ID as KIND, as tl_iid_new, from FR->iids when
 * it was asked before (most of the time). */
static inline uint64_t tl_iid(struct tl *t, struct tl_read *fr, uint32_t id,
			      st_pftrace_string kind)
{
	struct tl_iids *e = id < fr->icap ? &fr->iids[id] : tl_iids_at(fr, id);
	uint32_t *v = !e ? NULL : kind == ST_PFTRACE_NAME ? &e->name
			  : kind == ST_PFTRACE_CATEGORY ? &e->cat : &e->file;

	if (v && *v)
		return *v;
	return tl_iid_new(t, fr, id, kind, v);
}

/* Pass 3 in Perfetto's form: EV as a slice of its thread, its strings
 * by iid (tl_iid); false when it must go through st_ctrace_slice (a
 * file name not UTF-8, a source's own args). */
static bool tl_write_iids(struct tl *t, struct tl_read *fr,
			  const st_pfw_event *ev, uint64_t pid, int64_t ts)
{
	st_pftrace_call pc;

	if (t->o->src && t->o->src->event_args)
		return false;
	/* asked in the order st_pftrace_slice interns them */
	pc.cat = tl_iid(t, fr, ev->cat, ST_PFTRACE_CATEGORY);
	pc.name = tl_iid(t, fr, ev->name, ST_PFTRACE_NAME);
	pc.file = ev->file == ST_PFW_NONE
		  ? 0 : tl_iid(t, fr, ev->file, ST_PFTRACE_VALUE);
	if (pc.file == FILE_RAW)
		return false;
	pc.bytes = ev->bytes;
	pc.pid = (int64_t)pid;
	pc.tid = ev->tid;
	pc.ts = ts;
	pc.dur = ev->dur;
	st_pftrace_slice_iid(t->w.pf, &pc);
	t->w.n++;
	return true;
}

/* Pass 3: EV as an X event of trace process PID at TS, on its lane. */
static void tl_write_event(struct tl *t, struct tl_read *fr,
			   const st_pfw_event *ev, uint64_t pid, int64_t ts,
			   st_trace_timeline_counts *c)
{
	const st_pfw_reader *r = fr->r;
	const char *name, *cat, *file;
	size_t nlen, clen, flen;

	if (t->pf && tl_write_iids(t, fr, ev, pid, ts)) {
		c->written++;
		return;
	}
	name = st_pfw_str(r, ev->name, &nlen);
	cat = st_pfw_str(r, ev->cat, &clen);
	st_ctrace_slice(&t->w, name, nlen, cat, clen, (int64_t)pid,
			t->pf ? ev->tid : t->lane_tid[t->slot[t->seq++]], ts,
			ev->dur);
	if (ev->file != ST_PFW_NONE) {
		file = st_pfw_str(r, ev->file, &flen);
		st_ctrace_arg_str(&t->w, "file", file, flen);
	}
	if (ev->bytes >= 0)
		st_ctrace_arg_int(&t->w, "bytes", ev->bytes);
	if (t->o->src && t->o->src->event_args)
		t->o->src->event_args(t->o->src->ctx, r, &t->w);
	st_ctrace_end(&t->w);
	c->written++;
}

/* The name of process (HOST, PID) into NAME, its sort index into *PSORT
 * (set to the default before). */
static void tl_proc_name(const struct tl *t, const char *host, int64_t pid,
			 char *name, size_t size, int64_t *psort)
{
	const st_trace_source *src = t->o->src;

	if (!src || !src->proc_name ||
	    !src->proc_name(src->ctx, host, pid, name, size, psort))
		snprintf(name, size, "%s pid %" PRId64,
			 *host ? host : "(unknown host)", pid);
}

/* The name of track TID into NAME. */
static void tl_thread_name(const struct tl *t, int64_t tid, char *name,
			   size_t size)
{
	const st_trace_source *src = t->o->src;

	if (!src || !src->track_name ||
	    !src->track_name(src->ctx, tid, name, size))
		snprintf(name, size, "tid %" PRId64, tid);
}

/* Perfetto's form: the trace pid of (HID, PID), given (the next number)
 * and named when it first comes, and its thread TID named when it first
 * comes.  The trace pid, 0 when the first pass did not see the process
 * (with one), or -1 when memory runs out. */
static int64_t tl_pf_tracks(struct tl *t, uint32_t hid, const char *host,
			    int64_t pid, int64_t tid)
{
	uint64_t *v, tp;
	char name[512];
	bool added;

	/* most events are of the same thread as the one before */
	if (t->last.set && t->last.hid == hid && t->last.pid == pid &&
	    t->last.tid == tid)
		return (int64_t)t->last.tp;
	if (!(v = st_pairmap_get(&t->pids, hid, (uint64_t)pid, NULL)))
		return -1;
	if (!*v) {
		int64_t psort;

		t->nproc++;
		*v = t->pid_next;
		t->pid_next += t->pid_stride;
		psort = (int64_t)*v;
		tl_proc_name(t, host, pid, name, sizeof(name), &psort);
		st_ctrace_meta(&t->w, "process_name", (int64_t)*v, 0, "name",
			       name, 0);
		st_ctrace_meta(&t->w, "process_sort_index", (int64_t)*v, 0,
			       "sort_index", NULL, psort);
	}
	tp = *v;
	if (st_pairids_get(&t->tracks, tp, (uint64_t)tid, &added) < 0)
		return -1;
	if (added) {
		tl_thread_name(t, tid, name, sizeof(name));
		st_ctrace_meta(&t->w, "thread_name", (int64_t)tp, tid, "name",
			       name, 0);
	}
	t->last.set = true;
	t->last.hid = hid;
	t->last.pid = pid;
	t->last.tid = tid;
	t->last.tp = tp;
	return (int64_t)tp;
}

/* Open input FI at PATH for passes 2 and 3 (tracks named).  Without a
 * first pass, its record in t->rs says when it cannot be opened.  NULL
 * when it does not open (*OOM set when memory ran out). */
static st_pfw_reader *tl_open(struct tl *t, const char *path, size_t fi,
			      bool *oom)
{
	st_trace_file *tf = t->rs ? &t->rs->files_in[fi] : NULL;
	st_pfw_reader *r;
	st_error e;

	if ((r = trace_open(t->o->src, path, true, &e)) || !tf)
		return r;
	tf->path = path;
	tf->err_code = e.code;
	if (!(tf->err_text = strdup(e.text)))
		*oom = true;
	return NULL;
}

/* Without a first pass: what input FI's reader R gave (RC; ST_PFW_BAD, a
 * corrupt line, or the event EV) into t->rs.  0, or -1 when memory runs
 * out. */
static int tl_record(struct tl *t, size_t fi, const st_pfw_reader *r, int rc,
		     const st_pfw_event *ev, bool *any)
{
	st_trace_summary *rs = t->rs;
	st_trace_file *tf = &rs->files_in[fi];

	if (rc == ST_PFW_BAD)
		return st_trace_bad_keep(t->bad, t->n_bad, t->bad_lines,
					 t->o->max_bad, fi, r);
	if (!*any || ev->ts < tf->first_us)
		tf->first_us = ev->ts;
	if (!*any || ev->ts + ev->dur > tf->end_us)
		tf->end_us = ev->ts + ev->dur;
	*any = true;
	return 0;
}

/* Pass 2 or 3 keeps EV, read from FR, at TS of process PID (its trace
 * pid): pass 2 (t->writing false) gathers its slice, pass 3 writes it.
 * 0, or -1 with ERR set. */
static int tl_take(struct tl *t, struct tl_read *fr, const st_pfw_event *ev,
		   uint64_t pid, int64_t ts, st_trace_timeline_counts *c,
		   st_error *err)
{
	int64_t trk;

	if (t->writing) {
		if (t->pf || t->seq < t->nrec)  /* the same events as pass 2 */
			tl_write_event(t, fr, ev, pid, ts, c);
		return 0;
	}
	if ((trk = tl_track(t, pid, ev->tid)) < 0)
		return OOM(err);
	return tl_gather(t, (uint32_t)trk, ts, ev->dur, err);
}

/* One pass over input FI at PATH: pass 2 (t->writing false) gathers the
 * kept events' slices, pass 3 writes them.  0, or -1 with ERR set; a file
 * that does not open was reported by pass 1 (or is in t->rs) and is
 * skipped. */
static int tl_file(struct tl *t, const char *path, size_t fi,
		   st_trace_timeline_counts *c, st_error *err)
{
	struct tl_read fr = { 0 };
	st_pfw_event ev;
	st_error rerr;
	uint64_t tick = 0;
	int rc, ret = 0;
	bool oom = false, any = false;

	if (!(fr.r = tl_open(t, path, fi, &oom)))
		return oom ? OOM(err) : 0;
	if (t->writing && fi && !t->part)
		st_ctrace_sequence(&t->w);   /* Perfetto: a sequence per file */
	trace_rmap_init(&fr.m, t->o->filter);
	while ((rc = st_pfw_next(fr.r, &ev, &rerr)) > 0) {
		const char *host;
		uint32_t hid = 0;
		uint64_t *pid, tp;
		int k;

		if ((++tick & 8191) == 0) {
			trace_progress_add(t->o->progress, &fr.seen, fr.r,
					   &fr.pending);
			if (t->par && tl_part_head(t, err) < 0) {
				ret = -1;
				break;
			}
		}
		if (t->rs && tl_record(t, fi, fr.r, rc, &ev, &any) < 0) {
			ret = OOM(err);
			break;
		}
		if (rc != ST_PFW_EVENT)
			continue;
		if ((k = tl_keep(t, &fr, &ev, c, err)) <= 0 ||
		    (k = tl_host(t, &fr, &ev, &host, &hid, err)) <= 0) {
			if (k < 0) {
				ret = -1;
				break;
			}
			continue;
		}
		if (t->pf) {
			int64_t v = tl_pf_tracks(t, hid, host, ev.pid, ev.tid);

			if (v < 0) {
				ret = OOM(err);
				break;
			}
			tp = (uint64_t)v;
		} else {
			pid = st_pairmap_get(&t->pids, hid, (uint64_t)ev.pid,
					     NULL);
			tp = pid ? *pid : 0;
		}
		if (!tp)
			continue;   /* appeared after a damaged stream */
		if (tl_take(t, &fr, &ev, tp, correct(t, hid, host, ev.ts, c),
			    c, err) < 0) {
			ret = -1;
			break;
		}
	}
	trace_progress_add(t->o->progress, &fr.seen, fr.r, &fr.pending);
	free(fr.hmap);
	free(fr.iids);
	trace_rmap_release(&fr.m);
	/* closed into its record, or closed */
	if (t->rs && st_trace_input_close(&t->rs->files_in[fi], fr.r, rc,
					  &rerr, ret == 0, NULL, 0) < 0 &&
	    !ret)
		ret = OOM(err);
	else if (!t->rs)
		st_pfw_close(fr.r);
	return ret;
}

/* Pass 2's slices sorted and given lanes: T->slot and T->lane_tid (lane
 * 0 of each track filled in; the others by tl_meta_threads). */
static int tl_lanes(struct tl *t, st_error *err)
{
	struct laner L = { 0 };
	size_t first = 0, start = 0;
	int rc = -1;

	trace_lrec_sort(t->rec, t->nrec);
	if (!(t->slot = malloc((t->nrec + 1) * sizeof(*t->slot))))
		return OOM(err);
	/* the tracks are numbered densely in the order they appeared and
	 * each has a slice: the runs come in track order */
	for (size_t i = 0; i <= t->nrec; i++) {
		int64_t l;

		if (i == t->nrec || (i && t->rec[i].track !=
				     t->rec[i - 1].track)) {
			/* the run rec[start..i); none when there is no
			 * slice at all (an empty timeline) */
			if (i > start) {
				struct track *k = &t->trk[t->rec[start].track];

				k->nlanes = (uint32_t)L.nlanes;
				k->first = first;
				first += L.nlanes;
			}
			trace_laner_reset(&L);
			start = i;
			if (i == t->nrec)
				break;
		}
		if ((l = trace_laner_place(&L, t->rec[i].s, t->rec[i].e)) < 0) {
			OOM(err);
			goto out;
		}
		t->slot[t->rec[i].seq] = (uint32_t)(first + (size_t)l);
	}
	if (!(t->lane_tid = calloc(first + 1, sizeof(*t->lane_tid)))) {
		OOM(err);
		goto out;
	}
	for (size_t k = 0; k < t->ntrk; k++)
		t->lane_tid[t->trk[k].first] = t->trk[k].tid;
	rc = 0;
out:
	trace_laner_release(&L);
	free(t->rec);
	t->rec = NULL;
	t->rec_cap = 0;
	return rc;
}

static void tl_meta(struct tl *t, const char *what, int64_t pid, int64_t tid,
		    const char *key, const char *text, int64_t num)
{
	st_ctrace_meta(&t->w, what, pid, tid, key, text, num);
}

/* The next tid for a lane of a process whose threads are TIDS[0..N)
 * (sorted): *C upwards, skipping them (*J: where the skipping is). */
static int64_t free_tid(const int64_t *tids, size_t n, int64_t *c, size_t *j)
{
	for (;;) {
		while (*j < n && tids[*j] < *c)
			(*j)++;
		if (*j < n && tids[*j] == *c) {
			(*c)++;
			continue;
		}
		return (*c)++;
	}
}

/* Process I's (trace pid I + 1) names and its threads' and lanes', each
 * extra lane given a tid above the process's largest (from 0 upwards
 * between them if that would overflow). */
static void tl_meta_threads(struct tl *t, size_t i)
{
	const st_trace_process *p = &t->s->procs[i];
	int64_t pid = (int64_t)i + 1, c = 0, sort = 0, psort = pid;
	uint64_t extra = 0;
	size_t j = 0;
	char name[512];

	tl_proc_name(t, p->host, p->pid, name, sizeof(name), &psort);
	tl_meta(t, "process_name", pid, 0, "name", name, 0);
	tl_meta(t, "process_sort_index", pid, 0, "sort_index", NULL, psort);
	for (size_t k = 0; k < p->ntids; k++) {
		int64_t v = st_pairids_find(&t->tracks, (uint64_t)pid,
					    (uint64_t)p->tids[k]);

		if (v >= 0)
			extra += t->trk[v].nlanes - 1;
	}
	if (extra && p->ntids) {
		int64_t mx = p->tids[p->ntids - 1];

		if (mx < 0 || (uint64_t)(INT64_MAX - mx) > extra)
			c = mx + 1;
	}
	for (size_t k = 0; k < p->ntids; k++) {
		int64_t tid = p->tids[k];
		int64_t v = st_pairids_find(&t->tracks, (uint64_t)pid,
					    (uint64_t)tid);
		const struct track *tr = v >= 0 ? &t->trk[v] : NULL;

		char tname[256];

		tl_thread_name(t, tid, tname, sizeof(tname));
		tl_meta(t, "thread_name", pid, tid, "name", tname, 0);
		tl_meta(t, "thread_sort_index", pid, tid, "sort_index", NULL,
			sort++);
		for (uint32_t l = 1; tr && l < tr->nlanes; l++) {
			int64_t lt = free_tid(p->tids, p->ntids, &c, &j);

			t->lane_tid[tr->first + l] = lt;
			snprintf(name, sizeof(name), "%s (%" PRIu32 ")",
				 tname, l + 1);
			tl_meta(t, "thread_name", pid, lt, "name", name, 0);
			tl_meta(t, "thread_sort_index", pid, lt, "sort_index",
				NULL, sort++);
		}
	}
}

int st_trace_timeline_scan(const char *const *paths, size_t n,
			   const st_trace_timeline_opts *o,
			   st_trace_summary *s, st_error *err)
{
	st_trace_opts so = { 0 };

	so.filter = o->filter;
	so.no_overlap = true;
	so.jobs = o->jobs;
	so.max_bad = o->max_bad;
	so.progress = o->progress;
	so.src = o->src;
	so.tracks = true;
	if (o->progress) {
		/* passes 2 and 3 read it all again: the meter (reading this
		 * from its thread) counts the three passes as one run, so it
		 * never goes back when a pass begins */
		atomic_store(&o->progress->total_bytes,
			     3 * atomic_load(&o->progress->total_bytes));
	}
	return st_trace_summarize(paths, n, &so, s, err);
}

/* The trace's hosts and (host, pid) -> trace pid from the summary (in
 * Perfetto's form, they come as they are read). */
static int tl_setup(struct tl *t, st_error *err)
{
	const st_trace_summary *s = t->s;

	if (t->pf)
		return 0;
	for (size_t i = 0; i < s->n_procs; i++) {
		const st_trace_process *p = &s->procs[i];
		int64_t h = st_strtab_intern(&t->hosts, p->host,
					     strlen(p->host), NULL);
		uint64_t *v;

		if (h < 0 || !(v = st_pairmap_get(&t->pids, (uint64_t)h,
						  (uint64_t)p->pid, NULL)) ||
		    tl_host_id(t, p->host, strlen(p->host)) < 0)
			return OOM(err);
		*v = i + 1;
	}
	return 0;
}

/* The end of the traceEvents array and otherData (JSON). */
static void tl_footer(struct tl *t, const st_trace_timeline_counts *c)
{
	if (t->pf)
		return;
	st_ctrace_raw(&t->w, "\n],\n\"displayTimeUnit\":\"ms\",\n"
		      "\"otherData\":{\"generator\":\"streamtime trace "
		      "timeline\",\"events\":");
	st_outbuf_int(&t->w.ob, (int64_t)c->events);
	st_ctrace_raw(&t->w, ",\"written\":");
	st_outbuf_int(&t->w.ob, (int64_t)c->written);
	if (c->sampled) {
		char note[160];

		snprintf(note, sizeof(note), "%" PRIu64 " of %" PRIu64 " events "
			 "kept, evenly spaced (--max-events)", c->written,
			 c->events);
		st_ctrace_raw(&t->w, ",\"sampled\":");
		st_outbuf_json(&t->w.ob, note, strlen(note));
	}
	st_ctrace_raw(&t->w, ",\"clock_corrected_hosts\":");
	st_outbuf_int(&t->w.ob, (int64_t)c->corrected_hosts);
	st_ctrace_raw(&t->w, ",\"overlap_lanes\":");
	st_outbuf_int(&t->w.ob, (int64_t)c->extra_lanes);
	if (t->o->src && t->o->src->meta)
		t->o->src->meta(t->o->src->ctx, &t->w);
	st_ctrace_raw(&t->w, "}}\n");
}

/* JSON: pass 2 (the slices' tracks and times, for the lanes), the
 * metadata events.  0, or -1 with ERR set. */
static int tl_json_head(struct tl *t, const char *const *paths, size_t n,
			st_trace_timeline_counts *c, st_error *err)
{
	const st_trace_timeline_opts *o = t->o;
	const st_trace_summary *s = t->s;

	/* the slices kept are at most the events that pass the filter, and
	 * --max-events of them: room for that many at once, no slack */
	t->rec_cap = o->max_events && o->max_events < s->events
		     ? o->max_events : s->events;
	if (t->rec_cap > UINT32_MAX)
		t->rec_cap = UINT32_MAX;
	if (t->rec_cap && !(t->rec = malloc(t->rec_cap * sizeof(*t->rec))))
		return OOM(err);
	for (size_t i = 0; i < n; i++)
		if (tl_file(t, paths[i], i, c, err) < 0)
			return -1;
	if (tl_lanes(t, err) < 0)
		return -1;
	st_ctrace_raw(&t->w, "{\"traceEvents\":[");
	for (size_t i = 0; i < s->n_procs; i++)
		tl_meta_threads(t, i);
	return 0;
}

/* After the slices: the experiment's stages, the source's extras, the
 * footer, all written out.  0, or -1 with ERR set. */
static int tl_tail(struct tl *t, st_trace_timeline_counts *c, st_log *log,
		   st_error *err)
{
	const st_trace_timeline_opts *o = t->o;
	int64_t nproc = t->pf ? (int64_t)t->nproc : (int64_t)t->s->n_procs;

	c->processes = (uint64_t)nproc;
	c->sampled = o->max_events && t->s && t->s->events > o->max_events;
	for (size_t k = 0; !t->pf && k < t->ntrk; k++)
		c->extra_lanes += t->trk[k].nlanes - 1;
	if (o->experiment) {
		st_timeline_counts tc = { 0 };
		uint64_t before = t->w.n;

		if (st_timeline_append(o->experiment, &t->w, (int)nproc, &tc,
				       log, err) < 0)
			return -1;
		c->experiment_events = t->w.n - before;
	}
	if (o->src && o->src->extras) {
		int64_t used;

		if (o->src->extras(o->src->ctx, &t->w, nproc + 1 +
				   (o->experiment ? 6 : 0), &used, err) < 0)
			return -1;
	}
	tl_footer(t, c);
	return st_ctrace_finish(&t->w, "the trace", err);
}

/* A new timeline's state (O, S, RS and LOG as tl_run has them), or NULL
 * when memory runs out. */
static struct tl *tl_new(const st_trace_timeline_opts *o,
			 const st_trace_summary *s, st_trace_summary *rs,
			 st_log *log)
{
	struct tl *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->o = o;
	t->s = s;
	t->rs = rs;
	if (rs) {
		t->bad = &rs->bad;
		t->n_bad = &rs->n_bad;
		t->bad_lines = &rs->bad_lines;
	}
	t->log = log;
	t->pf = o->format == ST_CTRACE_PERFETTO;
	t->pid_stride = t->pid_next = 1;
	st_strtab_init(&t->hosts);
	return t;
}

static void tl_free(struct tl *t)
{
	if (!t)
		return;
	st_ctrace_release(&t->w);
	st_strtab_release(&t->hosts);
	st_pairmap_release(&t->pids);
	st_pairids_release(&t->tracks);
	free(t->fix);
	free(t->rec);
	free(t->trk);
	free(t->slot);
	free(t->lane_tid);
	free(t);
}

/* ---- Perfetto's form in parts: each input written by a worker -------- */

/* Input I's part: its packets in a temporary file (until it goes
 * straight onto the output), what it counted. */
struct tl_part {
	FILE *spool;
	bool direct;              /* written onto the output, not the spool */
	st_trace_timeline_counts c;
	uint64_t nproc, top_pid;  /* its processes, the largest trace pid */
	st_trace_bad *bad;
	size_t n_bad;
	uint64_t bad_lines;
	st_error err;
	int rc;
	bool done;
};

struct tl_par {
	const char *const *paths;
	size_t n, next;           /* the inputs, the next to take */
	size_t joined, ahead;     /* parts joined onto the output; how many
				   * parts a worker may be ahead of them (each
				   * holds a temporary file open) */
	const st_trace_timeline_opts *o;
	st_trace_summary *rs;
	FILE *out;                /* the trace */
	struct tl_part *parts;
	bool stop;                /* a part failed */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

/* A temporary file in $TMPDIR (else /tmp), removed already; NULL with
 * errno. */
static FILE *spool_open(void)
{
	const char *d = getenv("TMPDIR");
	char *path = st_path_join(d && *d ? d : "/tmp",
				  "streamtime-pftrace.XXXXXX");
	FILE *f = NULL;
	int fd;

	if (!path)
		return NULL;
	if ((fd = mkstemp(path)) >= 0) {
		unlink(path);
		if (!(f = fdopen(fd, "w+")))
			close(fd);
	}
	free(path);
	return f;
}

/* FROM, from its start, onto TO.  0, or -1 with ERR set (74). */
static int spool_copy(FILE *from, FILE *to, st_error *err)
{
	char b[1 << 16];
	size_t k;

	if (fflush(from) != 0 || fseek(from, 0, SEEK_SET) != 0)
		return st_error_set(err, ST_EXIT_IOERR, "cannot read a "
				    "temporary file: %s", strerror(errno));
	while ((k = fread(b, 1, sizeof(b), from)) > 0)
		if (fwrite(b, 1, k, to) != k)
			return st_error_set(err, ST_EXIT_IOERR, "cannot write "
					    "the trace: %s", strerror(errno));
	if (ferror(from))
		return st_error_set(err, ST_EXIT_IOERR, "cannot read a "
				    "temporary file: %s", strerror(errno));
	return 0;
}

/* Is part I the next to be joined (every part before it on the output)?
 * Then its worker writes it there itself. */
static bool tl_part_is_head(struct tl_par *pp, size_t i)
{
	bool head;

	pthread_mutex_lock(&pp->mu);
	head = pp->joined == i && !pp->stop;
	pthread_mutex_unlock(&pp->mu);
	return head;
}

/* A worker's part T goes on straight onto the output once it is the next
 * to be joined, what its temporary file holds copied there first: the
 * joiner waits for it to be done and copies nothing, and the output is
 * written once rather than twice.  Called now and then.  0, or -1 with
 * ERR set (74). */
static int tl_part_head(struct tl *t, st_error *err)
{
	struct tl_par *pp = t->par;
	struct tl_part *pt = &pp->parts[t->part_i];

	if (pt->direct || t->w.ob.failed || !tl_part_is_head(pp, t->part_i))
		return 0;
	st_outbuf_flush(&t->w.ob);
	if (t->w.ob.failed)
		return 0;         /* st_ctrace_finish says so */
	if (spool_copy(pt->spool, pp->out, err) < 0)
		return -1;
	fclose(pt->spool);
	pt->spool = NULL;
	t->w.ob.f = pp->out;
	pt->direct = true;
	return 0;
}

/* Input I written into its part PT by a writer of its own: sequence I + 1,
 * its tracks' uuids and its trace pids I + 1 + k (N + 1), so that no two
 * parts give the same and the numbers do not depend on which worker ran
 * first or on how many there are.  Onto TO, else a temporary file of its
 * own (PT->spool).  0, or -1 with PT->err set. */
static int tl_part_write(struct tl_par *pp, size_t i, struct tl_part *pt,
			 FILE *to)
{
	uint64_t stride = pp->n + 1;
	struct tl *t = tl_new(pp->o, NULL, pp->rs, NULL);
	int rc = -1;

	if (!t)
		return OOM(&pt->err);
	t->part = t->writing = true;
	t->bad = &pt->bad;
	t->n_bad = &pt->n_bad;
	t->bad_lines = &pt->bad_lines;
	t->pid_stride = stride;
	t->pid_next = i + 1;
	if (!to && pp->out) {     /* a worker's */
		t->par = pp;
		t->part_i = i;
		if (tl_part_is_head(pp, i))
			to = pp->out;
	}
	pt->direct = to != NULL;
	if (!to && !(to = pt->spool = spool_open())) {
		st_error_set(&pt->err, ST_EXIT_IOERR, "cannot make a temporary "
			     "file: %s", strerror(errno));
		goto out;
	}
	if (st_ctrace_init_perfetto(&t->w, to, (uint32_t)i + 1, stride,
				    i + 1, &pt->err) < 0 ||
	    tl_file(t, pp->paths[i], i, &pt->c, &pt->err) < 0 ||
	    st_ctrace_finish(&t->w, pt->direct ? "the trace"
				      : "a temporary file", &pt->err) < 0)
		goto out;
	pt->nproc = t->nproc;
	pt->top_pid = t->nproc ? t->pid_next - stride : 0;
	rc = 0;
out:
	tl_free(t);
	return rc;
}

static void *tl_worker(void *arg)
{
	struct tl_par *pp = arg;

	for (;;) {
		size_t i;
		bool stop;
		int rc;

		pthread_mutex_lock(&pp->mu);
		i = pp->next++;
		/* not too far ahead of the joiner: a part done holds its
		 * temporary file open until it is joined */
		while (!pp->stop && i < pp->n && i >= pp->joined + pp->ahead)
			pthread_cond_wait(&pp->cv, &pp->mu);
		stop = pp->stop;
		pthread_mutex_unlock(&pp->mu);
		if (stop || i >= pp->n)
			return NULL;
		rc = tl_part_write(pp, i, &pp->parts[i], NULL);
		pthread_mutex_lock(&pp->mu);
		pp->parts[i].rc = rc;
		pp->parts[i].done = true;
		if (rc < 0)
			pp->stop = true;
		pthread_cond_broadcast(&pp->cv);
		pthread_mutex_unlock(&pp->mu);
	}
}

/* The parts' counts into C and their corrupt lines into PP->rs (the first
 * max_bad in input order); the largest trace pid given into *TOP. */
static void tl_parts_gather(struct tl_par *pp, st_trace_timeline_counts *c,
			    uint64_t *top)
{
	st_trace_summary *rs = pp->rs;
	size_t max = pp->o->max_bad;

	for (size_t i = 0; i < pp->n; i++) {
		struct tl_part *pt = &pp->parts[i];

		c->events += pt->c.events;
		c->written += pt->c.written;
		c->processes += pt->nproc;
		if (pt->top_pid > *top)
			*top = pt->top_pid;
		rs->bad_lines += pt->bad_lines;
		for (size_t k = 0; k < pt->n_bad; k++) {
			if (rs->n_bad < max && (rs->bad || (rs->bad = calloc(
					max, sizeof(*rs->bad))))) {
				rs->bad[rs->n_bad++] = pt->bad[k];
				continue;
			}
			free(pt->bad[k].why);
		}
		free(pt->bad);
		pt->bad = NULL;
		pt->n_bad = 0;
	}
}

/* -j 1: PP's parts written one after the other straight onto OUT, as the
 * workers would write them (the same bytes, no temporary file). */
static void tl_parts_direct(struct tl_par *pp, FILE *out)
{
	for (size_t i = 0; i < pp->n; i++) {
		struct tl_part *pt = &pp->parts[i];

		pt->rc = tl_part_write(pp, i, pt, out);
		pt->done = true;
		if (pt->rc < 0) {
			pp->stop = true;
			break;
		}
	}
}

/* Perfetto's form of every event, the inputs written in parallel (O->jobs
 * workers, each a part at a time) and joined in order onto OUT, then the
 * experiment's stages.  As tl_run. */
static int tl_run_parts(const char *const *paths, size_t n,
			const st_trace_timeline_opts *o, st_trace_summary *rs,
			FILE *out, st_trace_timeline_counts *c, st_log *log,
			st_error *err)
{
	struct tl_par pp = { .paths = paths, .n = n, .o = o, .rs = rs,
			     .out = out };
	size_t nw = (size_t)o->jobs < n ? (size_t)o->jobs : n, started = 0;
	pthread_t *w = calloc(nw, sizeof(*w));
	struct tl *t = NULL;
	uint64_t top = 0, procs;
	int rc = -1;

	if (!w || !(pp.parts = calloc(n, sizeof(*pp.parts)))) {
		free(w);
		return OOM(err);
	}
	pthread_mutex_init(&pp.mu, NULL);
	pthread_cond_init(&pp.cv, NULL);
	pp.ahead = 2 * nw;
	if (nw > 1)
		while (started < nw &&
		       pthread_create(&w[started], NULL, tl_worker, &pp) == 0)
			started++;
	if (!started)                 /* -j 1: each part straight onto OUT */
		tl_parts_direct(&pp, out);
	/* each part onto OUT as soon as it and those before it are done */
	for (size_t i = 0; started && i < n; i++) {
		bool ok;

		pthread_mutex_lock(&pp.mu);
		while (!pp.parts[i].done && !pp.stop)
			pthread_cond_wait(&pp.cv, &pp.mu);
		ok = pp.parts[i].done && pp.parts[i].rc == 0;
		pthread_mutex_unlock(&pp.mu);
		if (!ok || (!pp.parts[i].direct &&
			    spool_copy(pp.parts[i].spool, out, err) < 0)) {
			pthread_mutex_lock(&pp.mu);
			pp.stop = true;
			pthread_cond_broadcast(&pp.cv);
			pthread_mutex_unlock(&pp.mu);
			break;
		}
		if (pp.parts[i].spool)
			fclose(pp.parts[i].spool);
		pp.parts[i].spool = NULL;
		pthread_mutex_lock(&pp.mu);
		pp.joined = i + 1;
		pthread_cond_broadcast(&pp.cv);
		pthread_mutex_unlock(&pp.mu);
	}
	for (size_t k = 0; k < started; k++)
		pthread_join(w[k], NULL);
	for (size_t i = 0; i < n && pp.stop; i++)
		if (pp.parts[i].done && pp.parts[i].rc < 0) {
			*err = pp.parts[i].err;
			break;
		}
	tl_parts_gather(&pp, c, &top);
	rs->events = c->events;
	if (pp.stop)
		goto out;
	/* the rest (the experiment's stages) in a sequence of its own */
	procs = c->processes;
	if (!(t = tl_new(o, NULL, rs, log))) {
		OOM(err);
		goto out;
	}
	t->nproc = top;               /* the stages' pids come after */
	if (st_ctrace_init_perfetto(&t->w, out, (uint32_t)n + 1, n + 1, n + 1,
				    err) < 0 ||
	    tl_tail(t, c, log, err) < 0)
		goto out;
	c->processes = procs;
	rc = 0;
out:
	for (size_t i = 0; i < n; i++)
		if (pp.parts[i].spool)
			fclose(pp.parts[i].spool);
	tl_free(t);
	pthread_mutex_destroy(&pp.mu);
	pthread_cond_destroy(&pp.cv);
	free(pp.parts);
	free(w);
	return rc;
}

/* Is the Perfetto form without a first pass written in parts?  With
 * several inputs (in parallel with -j, one after the other with -j 1:
 * the same bytes), and nothing that needs the trace's processes
 * as one (system traces' extras and names, clock corrections' warnings
 * once per host). */
static bool tl_in_parts(const st_trace_timeline_opts *o,
			const st_trace_summary *s, size_t n)
{
	return o->format == ST_CTRACE_PERFETTO && !s && n > 1 && !o->src &&
	       !o->offsets;
}

/* The timeline of PATHS in O's format to OUT: S the first pass's (NULL:
 * none, Perfetto's form only), RS the inputs' record when there is no
 * first pass. */
static int tl_run(const char *const *paths, size_t n,
		  const st_trace_timeline_opts *o, const st_trace_summary *s,
		  st_trace_summary *rs, FILE *out,
		  st_trace_timeline_counts *c, st_log *log, st_error *err)
{
	struct tl *t;
	int rc = -1;

	memset(c, 0, sizeof(*c));
	if (rs && tl_in_parts(o, s, n))
		return tl_run_parts(paths, n, o, rs, out, c, log, err);
	if (!(t = tl_new(o, s, rs, log)))
		return OOM(err);
	if (st_ctrace_init_format(&t->w, out, o->format, err) < 0)
		goto out;
	if (tl_setup(t, err) < 0 ||
	    (!t->pf && tl_json_head(t, paths, n, c, err) < 0))
		goto out;
	/* pass 3: the events (again, for JSON), written */
	t->writing = true;
	t->k = 0;
	for (size_t i = 0; i < n; i++)
		if (tl_file(t, paths[i], i, c, err) < 0)
			goto out;
	if (rs)
		rs->events = c->events;
	rc = tl_tail(t, c, log, err);
out:
	tl_free(t);
	return rc;
}

int st_trace_timeline_write(const char *const *paths, size_t n,
			    const st_trace_timeline_opts *o,
			    const st_trace_summary *s, FILE *out,
			    st_trace_timeline_counts *c, st_log *log,
			    st_error *err)
{
	return tl_run(paths, n, o, s, NULL, out, c, log, err);
}

bool st_trace_timeline_one_pass(const st_trace_timeline_opts *o)
{
	return o->format == ST_CTRACE_PERFETTO && !o->max_events;
}

int st_trace_timeline_stream(const char *const *paths, size_t n,
			     const st_trace_timeline_opts *o,
			     st_trace_summary *s, FILE *out,
			     st_trace_timeline_counts *c, st_log *log,
			     st_error *err)
{
	memset(s, 0, sizeof(*s));
	if (!(s->files_in = calloc(n ? n : 1, sizeof(*s->files_in))))
		return OOM(err);
	s->n_files = n;
	for (size_t i = 0; i < n; i++)
		s->files_in[i].path = paths[i];
	return tl_run(paths, n, o, NULL, s, out, c, log, err);
}

int st_trace_timeline_save(const char *const *paths, size_t n,
			   const st_trace_timeline_opts *o,
			   const st_trace_summary *s, const char *out,
			   st_trace_timeline_counts *c, st_log *log,
			   st_error *err)
{
	st_ctrace_file cf;

	if (st_ctrace_file_open(&cf, out, o->gzip, err) < 0)
		return -1;
	if (st_trace_timeline_write(paths, n, o, s, cf.fp, c, log, err) < 0) {
		st_ctrace_file_abort(&cf);
		return -1;
	}
	return st_ctrace_file_commit(&cf, err);
}
