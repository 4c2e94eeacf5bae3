/* timeline.c - every scan's journey as a Chrome trace.
 *
 * The slices are gathered first (a few per scan), then given lanes so that
 * no two on one track overlap, then written one event at a time through
 * the Chrome trace writer (ctrace.c, which escapes every string), so
 * memory holds the slices, never the JSON document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


#include "streamtime/atomic.h"
#include "streamtime/clockfix.h"
#include "streamtime/csv.h"
#include "streamtime/merge.h"
#include "streamtime/receivers.h"
#include "streamtime/search.h"
#include "streamtime/timeline.h"
#include "streamtime/tz.h"

static const char *const stage_names[ST_STAGE_N] = {
	"receivers", "NCEM offload", "Slurm queue", "Slurm run", "NERSC write",
	"streaming",
};

const char *st_stage_name(enum st_stage s)
{
	return (unsigned)s < ST_STAGE_N ? stage_names[s] : "?";
}

struct slice {
	int stage;
	int track;              /* receiver index, or the size */
	int lane;               /* 0.. within (stage, track) */
	int receiver;           /* receivers stage: which one */
	int64_t size, scan, did, job;   /* -1: not known */
	st_instant start;
	st_duration dur;
	bool streaming;         /* receivers: a streaming scan */
	bool corrected;
	double correction_s;
};

struct slices {
	struct slice *v;
	size_t n, cap;
};

static struct slice *slice_new(struct slices *s, st_error *err)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		struct slice *v = realloc(s->v, cap * sizeof(*v));

		if (!v) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			return NULL;
		}
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n] = (struct slice){ .size = -1, .scan = -1, .did = -1,
				     .job = -1 };
	return &s->v[s->n++];
}

/* Read the CSV table at PATH into T, which the caller releases, and find
 * its columns NEED in IDX.  -1 with ERR set when either fails. */
static int read_table(st_table *t, const char *path,
		      const char *const need[], int idx[], size_t n,
		      st_error *err)
{
	st_table_init(t);
	if (st_table_read(t, path, err) < 0)
		return -1;
	return st_table_require(t, need, idx, n, err);
}

/* A receivers slice for each of T's NREC receiver columns RC that has a
 * time in row R, for scan SCAN of SIZE; *FIRST is lowered to the earliest
 * of them.  -1 with ERR set on a bad time or when memory runs out. */
static int receiver_slices(const st_table *t, size_t r, const int *rc,
			   int nrec, int64_t size, int64_t scan,
			   bool streaming, const st_clock_fix *fix,
			   st_instant *first, struct slices *s, st_error *err)
{
	for (int k = 0; k < nrec; k++) {
		struct slice *sl;
		st_instant at;
		st_duration bound = 0;

		if (!*st_table_get(t, r, rc[k]))
			continue;       /* a receiver that said nothing */
		if (st_table_get_time(t, r, rc[k], NULL, &at, err) < 0 ||
		    (fix && (size_t)k < fix->nreceivers &&
		     st_clock_fix_time(fix, fix->receiver[k], &at, &bound,
				       err) < 0) ||
		    !(sl = slice_new(s, err)))
			return -1;
		sl->stage = ST_STAGE_RECEIVERS;
		sl->track = sl->receiver = k;
		sl->size = size;
		sl->scan = scan;
		sl->start = at;
		sl->streaming = streaming;
		if (at < *first)
			*first = at;
	}
	return 0;
}

/* A slice that ends before it starts (clock skew) is kept at its start
 * with no length, and said once per stage. */
static void set_span(struct slice *sl, st_instant start, st_instant end,
		     bool *warned, st_log *log)
{
	sl->start = start;
	sl->dur = end - start;
	if (sl->dur < 0) {
		if (!warned[sl->stage])
			st_warn(log, "%s: a slice ends before it starts (first: "
				"scan %" PRId64 ", job %" PRId64 "); kept with no "
				"length", stage_names[sl->stage], sl->scan,
				sl->job);
		warned[sl->stage] = true;
		sl->dur = 0;
	}
}

static const st_experiment *offload_experiment(const st_experiments *ex,
					       int64_t scan)
{
	for (size_t i = 0; i < ex->n; i++)
		if (scan >= ex->v[i].offload.first &&
		    scan <= ex->v[i].offload.last)
			return &ex->v[i];
	return NULL;
}

/* Receivers and offload slices of the file-transfer scans. */
static int add_offload(const st_timeline_input *in, struct slices *s,
		       st_timeline_counts *c, bool *warned, st_log *log,
		       st_error *err)
{
	static const char *const need[] = { "scan_number",
					    "time_last_written" };
	int idx[2], rc[ST_RECEIVERS_MAX], nrec;
	st_table t;
	int ret = -1;

	if (read_table(&t, in->write_times, need, idx, 2, err) < 0)
		goto out;
	if ((nrec = st_receiver_columns(&t, rc, ST_RECEIVERS_MAX, err)) < 0)
		goto out;
	for (size_t r = 0; r < t.nrows; r++) {
		const st_experiment *e;
		st_instant first = INT64_MAX, last;
		int64_t scan;

		if (st_table_get_int(&t, r, idx[0], &scan, err) < 0)
			goto out;
		if (!(e = offload_experiment(in->ex, scan)))
			continue;
		if (st_table_get_time(&t, r, idx[1], NULL, &last, err) < 0)
			goto out;
		if (in->fix && in->fix->data_host) {
			st_duration bound = 0;

			if (st_clock_fix_time(in->fix, in->fix->data_host, &last,
					      &bound, err) < 0)
				goto out;
		}
		if (receiver_slices(&t, r, rc, nrec, e->size, scan, false,
				    in->fix, &first, s, err) < 0)
			goto out;
		if (first != INT64_MAX) {
			struct slice *sl = slice_new(s, err);

			if (!sl)
				goto out;
			sl->stage = ST_STAGE_OFFLOAD;
			sl->track = (int)e->size;
			sl->size = e->size;
			sl->scan = scan;
			set_span(sl, first, last, warned, log);
		}
		c->offload_scans++;
	}
	ret = 0;
out:
	st_table_release(&t);
	return ret;
}

/* Queue and run slices of every merged job. */
static int add_jobs(const st_timeline_input *in, struct slices *s,
		    st_timeline_counts *c, bool *warned, st_log *log,
		    st_error *err)
{
	static const char *const need[] = { "Job ID", "Submit", "Start", "End",
					    "id", "size" };
	st_tz *tz = NULL;
	int idx[6];
	st_table t;
	int ret = -1;

	if (read_table(&t, in->merged, need, idx, 6, err) < 0)
		goto out;
	if (in->ex->slurm_tz && !(tz = st_tz_load(in->ex->slurm_tz, err)))
		goto out;
	for (size_t r = 0; r < t.nrows; r++) {
		st_instant submit, start, end;
		double did, size;
		int64_t job;
		bool has_start, has_end;
		struct slice *sl;

		/* the paper's golden file prints id and size as floats */
		if (st_table_get_int(&t, r, idx[0], &job, err) < 0 ||
		    st_table_get_double(&t, r, idx[4], &did, err) < 0 ||
		    st_table_get_double(&t, r, idx[5], &size, err) < 0)
			goto out;
		if (!(size >= 1 && size <= 1e6 && size == (double)(int64_t)size)) {
			st_table_cell_error(&t, r, idx[5], "not a scan size (a "
					    "whole number, 1 to 1000000)", err);
			goto out;
		}
		if (!(did >= 0 && did < 9e15 && did == (double)(int64_t)did)) {
			st_table_cell_error(&t, r, idx[4], "not a distiller id",
					    err);
			goto out;
		}
		/* a job that never started (or never ended) has no queue and
		 * run slices (no run slice), as stats queue skips it */
		has_start = !st_time_unset(st_table_get(&t, r, idx[2]));
		has_end = !st_time_unset(st_table_get(&t, r, idx[3]));
		if ((has_start && st_table_get_time(&t, r, idx[2], tz, &start,
						    err) < 0) ||
		    (has_end && st_table_get_time(&t, r, idx[3], tz, &end,
						  err) < 0))
			goto out;
		c->transfer_jobs++;
		if (!has_start || st_time_unset(st_table_get(&t, r, idx[1])))
			continue;
		if (st_table_get_time(&t, r, idx[1], tz, &submit, err) < 0)
			goto out;
		for (int k = 0; k < (has_end ? 2 : 1); k++) {
			if (!(sl = slice_new(s, err)))
				goto out;
			sl->stage = k == 0 ? ST_STAGE_QUEUE : ST_STAGE_RUN;
			sl->size = (int64_t)size;
			sl->track = (int)sl->size;
			sl->did = (int64_t)did;
			sl->job = job;
			if (k == 0)
				set_span(sl, submit, start, warned, log);
			else
				set_span(sl, start, end, warned, log);
		}
	}
	ret = 0;
out:
	st_tz_free(tz);
	st_table_release(&t);
	return ret;
}

/* (scan, size) of the joined streaming scans, for the receivers. */
struct joined {
	int64_t scan, size;
};

static int cmp_joined(const void *a, const void *b)
{
	const struct joined *x = a, *y = b;

	return x->scan < y->scan ? -1 : x->scan > y->scan;
}

/* NERSC write and streaming slices per size; the scans joined. */
static int add_streaming(const st_timeline_input *in, struct slices *s,
			 st_timeline_counts *c, struct joined **joined,
			 size_t *njoined, bool *warned, st_log *log,
			 st_error *err)
{
	static const char *const need[] = { "distiller_id", "scan_number",
					    "nersc_write_time",
					    "ncem_created_time" };
	size_t cap = 0;
	st_tz *tz = NULL;
	int ret = -1;

	if (in->ex->tz && !(tz = st_tz_load(in->ex->tz, err)))
		return -1;
	for (size_t i = 0; i < in->ex->n; i++) {
		int64_t size = in->ex->v[i].size;
		char name[64], *path;
		int idx[4], corr;
		st_table t;
		int ok = -1;

		snprintf(name, sizeof(name), "streaming_times_%" PRId64 ".csv",
			 size);
		if (!(path = st_path_join(in->streaming_dir, name))) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		st_table_init(&t);
		if (!st_path_is_file(path)) {
			free(path);
			continue;       /* a size not streamed */
		}
		if (read_table(&t, path, need, idx, 4, err) < 0)
			goto next;
		corr = st_table_col(&t, "clock_correction_seconds");
		for (size_t r = 0; r < t.nrows; r++) {
			st_instant nersc, created;
			int64_t did, scan;
			struct slice *w, *st;
			double cs = 0;

			if (st_table_get_int(&t, r, idx[0], &did, err) < 0 ||
			    st_table_get_int(&t, r, idx[1], &scan, err) < 0 ||
			    st_table_get_time(&t, r, idx[2], tz, &nersc, err) < 0 ||
			    st_table_get_time(&t, r, idx[3], tz, &created, err) < 0 ||
			    (corr >= 0 && *st_table_get(&t, r, corr) &&
			     st_table_get_double(&t, r, corr, &cs, err) < 0))
				goto next;
			if (!(w = slice_new(s, err)) || !(st = slice_new(s, err)))
				goto next;
			w = st - 1;
			for (struct slice *sl = w; sl <= st; sl++) {
				sl->stage = sl == w ? ST_STAGE_NERSC_WRITE
						    : ST_STAGE_STREAMING;
				sl->size = size;
				sl->track = (int)size;
				sl->scan = scan;
				sl->did = did;
				sl->corrected = corr >= 0;
				sl->correction_s = cs;
			}
			set_span(w, nersc, nersc, warned, log);
			set_span(st, created, nersc, warned, log);
			if (*njoined == cap) {
				size_t nc = cap ? cap * 2 : 1024;
				struct joined *v = realloc(*joined,
							   nc * sizeof(*v));

				if (!v) {
					st_error_set(err, ST_EXIT_IOERR,
						     "out of memory");
					goto next;
				}
				*joined = v;
				cap = nc;
			}
			(*joined)[(*njoined)++] = (struct joined){ scan, size };
			c->streaming_scans++;
		}
		ok = 0;
next:
		st_table_release(&t);
		free(path);
		if (ok < 0)
			goto out;
	}
	ret = 0;
out:
	st_tz_free(tz);
	return ret;
}

/* Receiver slices of the joined streaming scans. */
static int add_created(const st_timeline_input *in, struct slices *s,
		       struct joined *joined, size_t njoined, st_error *err)
{
	int col, rc[ST_RECEIVERS_MAX], nrec;
	st_table t;
	int ret = -1;

	qsort(joined, njoined, sizeof(*joined), cmp_joined);
	st_table_init(&t);
	if (st_table_read(&t, in->created, err) < 0)
		goto out;
	if ((col = st_table_col(&t, "scan_number")) < 0) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: no column scan_number",
			     in->created);
		goto out;
	}
	/* a created file without receiver columns has no receiver slices */
	if ((nrec = st_receiver_columns(&t, rc, ST_RECEIVERS_MAX, NULL)) < 0)
		nrec = 0;
	for (size_t r = 0; r < t.nrows; r++) {
		struct joined key, *j;
		st_instant first = INT64_MAX;
		int64_t scan;

		if (st_table_get_int(&t, r, col, &scan, err) < 0)
			goto out;
		key.scan = scan;
		if (!(j = bsearch(&key, joined, njoined, sizeof(*joined),
				  cmp_joined)))
			continue;
		if (receiver_slices(&t, r, rc, nrec, j->size, scan, true,
				    in->fix, &first, s, err) < 0)
			goto out;
	}
	ret = 0;
out:
	st_table_release(&t);
	return ret;
}

static int cmp_track_time(const void *a, const void *b)
{
	const struct slice *x = a, *y = b;

	if (x->stage != y->stage)
		return x->stage - y->stage;
	if (x->track != y->track)
		return x->track < y->track ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	/* the longer first, so that an equal start nests */
	return x->dur > y->dur ? -1 : x->dur < y->dur;
}

/* A track: one (stage, track, lane) and its tid. */
struct lane_key {
	int stage, track, lane;
};

/* Give every slice a lane: the first lane of its track whose last slice
 * has ended.  Slices come sorted by (stage, track, start).  Returns the
 * number of tracks written to *KEYS (owned), or -1. */
static long assign_lanes(struct slices *s, struct lane_key **keys,
			 st_error *err)
{
	st_instant *ends = NULL;
	size_t nends = 0, cap = 0, nkeys = 0, kcap = 0;

	*keys = NULL;
	for (size_t i = 0; i < s->n; i++) {
		struct slice *sl = &s->v[i];
		st_instant end = sl->start + sl->dur;
		size_t l;

		if (i == 0 || sl->stage != s->v[i - 1].stage ||
		    sl->track != s->v[i - 1].track)
			nends = 0;      /* a new track */
		for (l = 0; l < nends && ends[l] > sl->start; l++)
			;
		if (l == nends) {
			if (nends == cap) {
				size_t nc = cap ? cap * 2 : 16;
				st_instant *v = realloc(ends, nc * sizeof(*v));

				if (!v)
					goto nomem;
				ends = v;
				cap = nc;
			}
			nends++;
			if (nkeys == kcap) {
				size_t nc = kcap ? kcap * 2 : 64;
				struct lane_key *v = realloc(*keys,
							     nc * sizeof(*v));

				if (!v)
					goto nomem;
				*keys = v;
				kcap = nc;
			}
			(*keys)[nkeys++] = (struct lane_key){ sl->stage,
							      sl->track,
							      (int)l };
		}
		ends[l] = end;
		sl->lane = (int)l;
	}
	free(ends);
	return (long)nkeys;
nomem:
	free(ends);
	free(*keys);
	*keys = NULL;
	st_error_set(err, ST_EXIT_IOERR, "out of memory");
	return -1;
}

static int lane_key_cmp(const void *key, const void *elem)
{
	const struct lane_key *a = key, *b = elem;

	if (a->stage != b->stage)
		return a->stage < b->stage ? -1 : 1;
	if (a->track != b->track)
		return a->track < b->track ? -1 : 1;
	return (a->lane > b->lane) - (a->lane < b->lane);
}

/* Lanes were handed out in order: key index of (stage, track, lane), the
 * tid (from 1), or 0 when it has none. */
static long tid_of(const struct lane_key *keys, long nkeys,
		   const struct slice *sl)
{
	struct lane_key k = { sl->stage, sl->track, sl->lane };
	size_t i = st_lower_bound(keys, (size_t)nkeys, sizeof(*keys), &k,
				  lane_key_cmp);

	return i < (size_t)nkeys && !lane_key_cmp(&k, &keys[i]) ? (long)i + 1 : 0;
}

/* Microseconds, rounded to nearest. */
static int64_t us(int64_t ns)
{
	return (ns >= 0 ? (ns + 500) / 1000 : -((-ns + 500) / 1000));
}

/* The slice SL as an X event on thread TID of process PID_BASE + stage
 * + 1. */
static void slice_event(st_ctrace *w, const struct slice *sl, int pid_base,
			long tid)
{
	static const char *const secs_key[ST_STAGE_N] = {
		[ST_STAGE_OFFLOAD] = "offload_s",
		[ST_STAGE_QUEUE] = "queue_s",
		[ST_STAGE_RUN] = "elapsed_s",
		[ST_STAGE_STREAMING] = "latency_s",
	};
	const char *cat = stage_names[sl->stage];
	char name[96];

	if (sl->stage == ST_STAGE_QUEUE || sl->stage == ST_STAGE_RUN)
		snprintf(name, sizeof(name), "job %" PRId64 " (%" PRId64 "x%"
			 PRId64 ", distiller %" PRId64 ")", sl->job, sl->size,
			 sl->size, sl->did);
	else
		snprintf(name, sizeof(name), "scan %" PRId64 " (%" PRId64 "x%"
			 PRId64 ")", sl->scan, sl->size, sl->size);
	st_ctrace_slice(w, name, strlen(name), cat, strlen(cat),
			pid_base + sl->stage + 1, tid, us(sl->start),
			us(sl->start + sl->dur) - us(sl->start));
	if (sl->scan >= 0)
		st_ctrace_arg_int(w, "scan", sl->scan);
	st_ctrace_arg_int(w, "size", sl->size);
	if (sl->did >= 0)
		st_ctrace_arg_int(w, "distiller_id", sl->did);
	if (sl->job >= 0)
		st_ctrace_arg_int(w, "job_id", sl->job);
	if (sl->stage == ST_STAGE_RECEIVERS) {
		const char *e = sl->streaming ? "streaming" : "file transfer";

		st_ctrace_arg_int(w, "receiver", sl->receiver);
		st_ctrace_arg_str(w, "experiment", e, strlen(e));
	} else if (secs_key[sl->stage]) {
		st_ctrace_arg_real(w, secs_key[sl->stage],
				   st_duration_seconds(sl->dur));
	}
	if (sl->stage == ST_STAGE_STREAMING || sl->stage == ST_STAGE_NERSC_WRITE) {
		st_ctrace_arg_bool(w, "clock_corrected", sl->corrected);
		if (sl->corrected)
			st_ctrace_arg_real(w, "clock_correction_s",
					   sl->correction_s);
	}
	st_ctrace_end(w);
}

/* The metadata and slices of S as events of the traceEvents array W is
 * writing, processes PID_BASE + 1..6. */
static int emit_events(const st_timeline_input *in, st_ctrace *w,
		       struct slices *s, int pid_base, st_timeline_counts *c,
		       st_error *err)
{
	struct lane_key *keys = NULL;
	long nkeys;

	if (s->n)                /* qsort must not get NULL, even for none */
		qsort(s->v, s->n, sizeof(*s->v), cmp_track_time);
	if ((nkeys = assign_lanes(s, &keys, err)) < 0)
		return -1;
	for (int p = 0; p < ST_STAGE_N; p++) {
		/* the sites' own names on the processes; the categories stay
		 * the stages' names (what a query of the trace asks for) */
		char label[96];

		if (p == ST_STAGE_OFFLOAD && in->acq)
			snprintf(label, sizeof(label), "%s offload", in->acq);
		else if (p == ST_STAGE_NERSC_WRITE && in->compute)
			snprintf(label, sizeof(label), "%s write", in->compute);
		else
			snprintf(label, sizeof(label), "%s", stage_names[p]);
		st_ctrace_meta(w, "process_name", pid_base + p + 1, -1, "name",
			       label, 0);
		st_ctrace_meta(w, "process_sort_index", pid_base + p + 1, -1,
			       "sort_index", NULL, pid_base + p + 1);
	}
	for (long k = 0; k < nkeys; k++) {
		char name[64];

		if (keys[k].stage == ST_STAGE_RECEIVERS)
			snprintf(name, sizeof(name), "receiver %d",
				 keys[k].track);
		else
			snprintf(name, sizeof(name), "%dx%d", keys[k].track,
				 keys[k].track);
		if (keys[k].lane)
			snprintf(name + strlen(name), sizeof(name) - strlen(name),
				 " (%d)", keys[k].lane + 1);
		st_ctrace_meta(w, "thread_name", pid_base + keys[k].stage + 1,
			       k + 1, "name", name, 0);
		st_ctrace_meta(w, "thread_sort_index",
			       pid_base + keys[k].stage + 1, k + 1,
			       "sort_index", NULL, k);
	}
	for (size_t i = 0; i < s->n; i++) {
		slice_event(w, &s->v[i], pid_base,
			    tid_of(keys, nkeys, &s->v[i]));
		c->slices[s->v[i].stage]++;
	}
	free(keys);
	return 0;
}

/* Read every input of IN into S. */
static int gather(const st_timeline_input *in, struct slices *s,
		  st_timeline_counts *c, st_log *log, st_error *err)
{
	struct joined *joined = NULL;
	size_t njoined = 0;
	bool warned[ST_STAGE_N] = { false };
	int rc = -1;

	if ((in->write_times && add_offload(in, s, c, warned, log, err) < 0) ||
	    (in->merged && add_jobs(in, s, c, warned, log, err) < 0) ||
	    (in->streaming_dir && add_streaming(in, s, c, &joined, &njoined,
						warned, log, err) < 0) ||
	    (in->created && njoined &&
	     add_created(in, s, joined, njoined, err) < 0))
		goto out;
	rc = 0;
out:
	free(joined);
	return rc;
}

int st_timeline_append(const st_timeline_input *in, st_ctrace *w,
		       int pid_base, st_timeline_counts *counts, st_log *log,
		       st_error *err)
{
	st_timeline_counts c = { 0 };
	struct slices s = { 0 };
	uint64_t before = w->n;
	int rc = -1;

	if (gather(in, &s, &c, log, err) < 0 ||
	    emit_events(in, w, &s, pid_base, &c, err) < 0)
		goto out;
	c.events = (size_t)(w->n - before);
	if (counts)
		*counts = c;
	rc = 0;
out:
	free(s.v);
	return rc;
}

int st_timeline_write(const st_timeline_input *in, FILE *out,
		      st_timeline_counts *counts, st_log *log, st_error *err)
{
	st_ctrace *w = malloc(sizeof(*w));
	int rc = -1;

	if (!w)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_ctrace_init_format(w, out, in->format, err) < 0) {
		free(w);
		return -1;
	}
	st_ctrace_raw(w, "{\"displayTimeUnit\": \"ms\",\n\"otherData\": "
		      "{\"producer\": \"streamtime timeline\", \"ts_unit\": "
		      "\"microseconds since 1970-01-01T00:00:00Z\"},\n"
		      "\"traceEvents\": [");
	if (st_timeline_append(in, w, 0, counts, log, err) < 0)
		goto out;
	st_ctrace_raw(w, "\n]}\n");
	rc = st_ctrace_finish(w, "the timeline", err);
out:
	st_ctrace_release(w);
	free(w);
	return rc;
}

int st_timeline_write_file(const st_timeline_input *in, const char *path,
			   st_timeline_counts *counts, st_log *log,
			   st_error *err)
{
	st_ctrace_file cf;

	if (st_ctrace_file_open(&cf, path, in->gzip, err) < 0)
		return -1;
	if (st_timeline_write(in, cf.fp, counts, log, err) < 0) {
		st_ctrace_file_abort(&cf);
		return -1;
	}
	return st_ctrace_file_commit(&cf, err);
}
