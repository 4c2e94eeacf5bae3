/* trace_sets.c - the system-trace directories of a trace command, open
 * (trace_sets.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "streamtime/trace_sets.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")

/* What DIR's trace record manifest says went wrong, as warnings: a record
 * that did not end (killed, a full disk), bpftrace's lost events and the
 * lines it printed that fit no trace file, its output read unsplit. */
static int record_notes(const char *dir, const st_sys_record *r,
			st_trace_notes *nt, st_error *err)
{
#define WARN(...) st_trace_notes_add(nt, ST_NOTE_WARN, 0, dir, err, __VA_ARGS__)
	if (r->manifest && !r->complete &&
	    WARN("%s: an incomplete record: manifest.json says \"complete\": "
		 "false (trace record was killed or failed before the command "
		 "ended); the traces stop early", dir) < 0)
		return -1;
	if (r->recovered)
		return WARN("%s: bpftrace's output was never split into "
			    "trace_*.out: read from .bpftrace.out (%" PRIu64
			    " lost events, %" PRIu64 " lines of no trace file)",
			    dir, r->lost_events, r->bad_lines);
	if (r->lost_events || r->bad_lines)
		return WARN("%s: bpftrace lost %" PRIu64 " events and printed "
			    "%" PRIu64 " lines of no trace file (manifest.json)",
			    dir, r->lost_events, r->bad_lines);
	return 0;
#undef WARN
}

int st_trace_sets_check(char *const *dirs, size_t n, st_trace_notes *nt,
			st_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		int r = 0;

		if (stat(dirs[i], &sb) < 0)
			r = st_trace_notes_add(nt, ST_NOTE_ERROR, ST_EXIT_NOINPUT,
					       dirs[i], err, "cannot read %s: %s",
					       dirs[i], strerror(errno));
		else if (!S_ISDIR(sb.st_mode) || !st_systrace_is_set(dirs[i]))
			r = st_trace_notes_add(nt, ST_NOTE_ERROR, ST_EXIT_DATAERR,
					       dirs[i], err, "%s: not a trace "
					       "set: no system-trace file "
					       "(trace_*.out, cpu.out, gpu.out, "
					       "*.log with MLLOG lines, "
					       "strace.out, manifest.json; see "
					       "docs/systrace.md)", dirs[i]);
		if (r < 0)
			return -1;
	}
	return 0;
}

int st_trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		       const struct st_trace_sys_opts *so, size_t max_bad,
		       char ***paths, size_t *npaths, st_trace_notes *nt,
		       st_error *err)
{
	st_systrace_opts o = { .date = so->date, .names = so->names,
			       .max_bad = max_bad };

	if (!n)
		return 0;
	if (so->tz) {
		if (!(ts->tz = st_tz_load(so->tz, err)))
			return -1;
		o.tz = ts->tz;
		o.tz_given = true;
	}
	if (!(ts->sets.v = calloc(n, sizeof(*ts->sets.v))))
		return OOM(err);
	for (size_t i = 0; i < n; i++) {
		st_systrace *s = st_systrace_open(dirs[i], &o, err);
		const char *const *ev;
		size_t ne;

		if (!s)
			return -1;
		ts->sets.v[ts->sets.n++] = s;
		if (record_notes(dirs[i], st_systrace_record(s), nt, err) < 0)
			return -1;
		ne = st_systrace_event_files(s, &ev);
		for (size_t k = 0; paths && k < ne; k++) {
			char **v = realloc(*paths, (*npaths + 1) * sizeof(*v));

			if (!v)
				return OOM(err);
			*paths = v;
			if (!(v[*npaths] = strdup(ev[k])))
				return OOM(err);
			(*npaths)++;
		}
	}
	st_systrace_source(&ts->sets, &ts->src);
	return 0;
}

int st_trace_sets_phases(struct st_trace_sets *ts, st_error *err)
{
	if (st_systrace_segments(&ts->sets, &ts->seg, &ts->nseg) < 0 ||
	    !(ts->phase = st_systrace_phase_names(&ts->sets, ts->seg,
						  ts->nseg)))
		return OOM(err);
	return 0;
}

int st_trace_sets_summary_opts(struct st_trace_sets *ts, st_trace_opts *o,
			       st_error *err)
{
	static const char *const io[] = { "POSIX", "STDIO", "syscall",
					  "block" };

	if (!ts->sets.n)
		return 0;
	if (st_trace_sets_phases(ts, err) < 0)
		return -1;
	o->src = &ts->src;
	if (!o->io_cats) {
		o->io_cats = io;
		o->n_io = sizeof(io) / sizeof(*io);
	}
	o->seg_us = ts->seg;
	o->nseg = ts->nseg;
	o->seg_phase = ts->phase;
	return 0;
}

void st_trace_sets_release(struct st_trace_sets *ts)
{
	free(ts->seg);
	free(ts->phase);
	for (size_t i = 0; i < ts->sets.n; i++)
		st_systrace_free(ts->sets.v[i]);
	free(ts->sets.v);
	st_tz_free(ts->tz);
	memset(ts, 0, sizeof(*ts));
}

int st_trace_sets_notes(const st_systrace_list *l, st_trace_notes *nt,
			st_error *err)
{
	uint64_t shown = 0, all = 0;

	for (size_t i = 0; i < l->n; i++) {
		const st_sys_bad *b;
		const st_sys_file_stat *fs;
		size_t nb = st_systrace_bad(l->v[i], &b);

		st_systrace_file_stats(l->v[i], &fs);
		for (size_t k = 0; k < nb && shown < 10; k++, shown++)
			if (st_trace_notes_add(nt, ST_NOTE_WARN, 0, NULL, err,
					       "%s:%" PRIu64 ": corrupt line "
					       "skipped: %s",
					       fs[b[k].file].path, b[k].line,
					       b[k].why) < 0)
				return -1;
		for (size_t k = 0; st_systrace_file_stats(l->v[i], &fs) > k;
		     k++)
			if (!st_sys_is_calls(fs[k].kind) &&
			    fs[k].kind != ST_SYS_STRACE)
				all += fs[k].bad;
	}
	if (all > shown)
		return st_trace_notes_add(nt, ST_NOTE_WARN, 0, NULL, err,
					  "%" PRIu64 " more corrupt lines "
					  "skipped in the system traces (%"
					  PRIu64 " in all)", all - shown, all);
	return 0;
}

int st_trace_sets_summary_notes(const st_trace_summary *s,
				const st_systrace_list *l, st_trace_notes *nt,
				st_error *err)
{
	if (st_trace_inputs_report(s->files_in, s->n_files, s->bad, s->n_bad,
				   s->bad_lines, l, nt, err) < 0 ||
	    (l && st_trace_sets_notes(l, nt, err) < 0))
		return -1;
	return st_trace_span_report(s, nt, err);
}

int st_trace_sets_output_notes(const st_trace_summary *s,
			       const st_systrace_list *l, const char *what,
			       st_trace_notes *nt, st_error *err)
{
	if (st_trace_sets_summary_notes(s, l, nt, err) < 0)
		return -1;
	if (!st_trace_notes_status(nt))
		return 0;
	return st_trace_notes_add(nt, ST_NOTE_ERROR, ST_EXIT_OK, NULL, err,
				  "%s: nothing written (an output file is "
				  "left as it was)", what);
}

int st_trace_sets_collect(struct st_trace_inputs *in, struct st_trace_sets *ts,
			  char *const *args, size_t n,
			  const struct st_trace_sys_opts *so, size_t max_bad,
			  st_trace_notes *nt, st_error *err)
{
	if (st_trace_inputs_collect(in, args, n, nt, err) < 0)
		return -1;
	if (st_trace_notes_status(nt))
		return 0;
	return st_trace_sets_open(ts, in->sysdirs, in->nsys, so, max_bad,
				  &in->v, &in->n, nt, err);
}
