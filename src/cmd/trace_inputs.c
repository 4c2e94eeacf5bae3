/* trace_inputs.c - the trace commands' inputs, collected by the library
 * and said here (trace_inputs.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "trace_inputs.h"

int trace_notes_say(st_trace_notes *nt)
{
	int rc = st_trace_notes_status(nt);

	for (size_t i = 0; i < nt->n; i++)
		if (nt->v[i].level == ST_NOTE_ERROR)
			st_msg_error("%s", nt->v[i].reason);
		else if (nt->v[i].level == ST_NOTE_WARN)
			st_msg_warn("%s", nt->v[i].reason);
		else
			st_msg_verbose("%s", nt->v[i].reason);
	st_trace_notes_release(nt);
	return rc;
}

int trace_notes_said(st_trace_notes *nt, int r, const st_error *err)
{
	int rc = trace_notes_say(nt);

	return r < 0 ? st_msg_fail(err) : rc;
}

int trace_inputs_open(struct st_trace_inputs *in, struct st_trace_sets *ts,
		      char *const *args, size_t n,
		      const struct st_trace_sys_opts *so, size_t max_bad)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int r = st_trace_sets_collect(in, ts, args, n, so, max_bad, &nt, &err);

	return trace_notes_said(&nt, r, &err);
}

int trace_sets_check(char *const *dirs, size_t n)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int r = st_trace_sets_check(dirs, n, &nt, &err);

	return trace_notes_said(&nt, r, &err);
}

int trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		    const struct st_trace_sys_opts *so, size_t max_bad,
		    char ***paths, size_t *npaths)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int r = st_trace_sets_open(ts, dirs, n, so, max_bad, paths, npaths, &nt,
				   &err);

	return trace_notes_said(&nt, r, &err);
}

int trace_sets_phases(struct st_trace_sets *ts)
{
	st_error err;

	return st_trace_sets_phases(ts, &err) < 0 ? st_msg_fail(&err) : 0;
}

int trace_inputs_report(const st_trace_file *files, size_t nfiles,
			const st_trace_bad *bad, size_t nbad,
			uint64_t bad_lines, const st_systrace_list *sets)
{
	st_trace_notes nt = { 0 };
	st_error err;
	int r = st_trace_inputs_report(files, nfiles, bad, nbad, bad_lines,
				       sets, &nt, &err);

	return trace_notes_said(&nt, r, &err);
}

int trace_opt_filter(const struct st_option *o, char *arg, st_error *err)
{
	if (st_trace_filter_parse(o->target, arg, err) < 0) {
		err->code = ST_EXIT_USAGE;
		return -1;
	}
	return 0;
}

int trace_cache_begin(st_trace_cache *c, const struct trace_cache_opt *co,
		      const char *prog)
{
	const char *dir = co->dir ? co->dir : getenv("STREAMTIME_CACHE");
	st_error err;

	memset(c, 0, sizeof(*c));
	if (!dir || !*dir)
		return 0;
	if (st_trace_cache_open(c, dir, (uint64_t)(co->max_mb ? co->max_mb
						   : 1024) << 20, &err) < 0) {
		st_msg_warn("%s: %s; reading without the cache", prog,
			    err.text);
		return 0;
	}
	return 1;
}

void trace_cache_end(st_trace_cache *c, bool on, const char *prog)
{
	if (!on)
		return;
	if (c->st.warning[0])
		st_msg_warn("%s: %s", prog, c->st.warning);
	st_msg_verbose("%s: cache %s: %s%" PRIu64 " files from it, %" PRIu64
		       " read, %" PRIu64 " not cacheable, %" PRIu64
		       " changed in the last 2 s (not kept yet); %" PRIu64
		       " entries written, %" PRIu64 " evicted; %" PRIu64
		       " indexed, %" PRIu64 " read in ranges", prog, c->dir,
		       c->st.run_hit ? "the run's entry, " : "", c->st.hits,
		       c->st.misses, c->st.uncached, c->st.recent,
		       c->st.written, c->st.evicted, c->st.indexed,
		       c->st.split);
	st_trace_cache_release(c);
}
