/* trace_inputs.c - the inputs of the trace commands (trace_inputs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "trace_inputs.h"
#include "streamtime/atomic.h"

static bool is_trace_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 4 && strcmp(n + l - 4, ".pfw") == 0) ||
	       (l > 7 && strcmp(n + l - 7, ".pfw.gz") == 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int paths_add(char ***v, size_t *n, const char *s);

static int inputs_add(struct st_trace_inputs *in, const char *path)
{
	return paths_add(&in->v, &in->n, path);
}

void st_trace_inputs_release(struct st_trace_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i]);
	free(in->v);
	for (size_t i = 0; i < in->nsys; i++)
		free(in->sysdirs[i]);
	free(in->sysdirs);
}

/* Append a copy of S to *V (*N).  0, or -1 out of memory. */
static int paths_add(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

/* Say what DIR's trace record manifest says went wrong: a record that
 * did not end (killed, a full disk), bpftrace's lost events and the lines
 * it printed that fit no trace file, its output read unsplit. */
static void record_warn(const char *dir, const st_sys_record *r)
{
	if (r->manifest && !r->complete)
		st_msg_warn("%s: an incomplete record: manifest.json says "
			    "\"complete\": false (trace record was killed or "
			    "failed before the command ended); the traces stop "
			    "early", dir);
	if (r->recovered)
		st_msg_warn("%s: bpftrace's output was never split into "
			    "trace_*.out: read from .bpftrace.out (%" PRIu64
			    " lost events, %" PRIu64 " lines of no trace "
			    "file)", dir, r->lost_events, r->bad_lines);
	else if (r->lost_events || r->bad_lines)
		st_msg_warn("%s: bpftrace lost %" PRIu64 " events and printed "
			    "%" PRIu64 " lines of no trace file (manifest.json)",
			    dir, r->lost_events, r->bad_lines);
}

int st_trace_sets_open(struct st_trace_sets *ts, char *const *dirs, size_t n,
		       const struct st_trace_sys_opts *so, size_t max_bad,
		       char ***paths, size_t *npaths)
{
	st_systrace_opts o = { .date = so->date, .names = so->names,
			       .max_bad = max_bad };
	st_error err;

	if (!n)
		return 0;
	if (so->tz) {
		if (!(ts->tz = st_tz_load(so->tz, &err)))
			return st_msg_fail(&err);
		o.tz = ts->tz;
		o.tz_given = true;
	}
	if (!(ts->sets.v = calloc(n, sizeof(*ts->sets.v)))) {
		st_msg_error("out of memory");
		return ST_EXIT_IOERR;
	}
	for (size_t i = 0; i < n; i++) {
		st_systrace *s = st_systrace_open(dirs[i], &o, &err);
		const char *const *ev;
		size_t ne;

		if (!s)
			return st_msg_fail(&err);
		ts->sets.v[ts->sets.n++] = s;
		record_warn(dirs[i], st_systrace_record(s));
		ne = st_systrace_event_files(s, &ev);
		for (size_t k = 0; paths && k < ne; k++)
			if (paths_add(paths, npaths, ev[k]) < 0) {
				st_msg_error("out of memory");
				return ST_EXIT_IOERR;
			}
	}
	st_systrace_source(&ts->sets, &ts->src);
	return 0;
}

int st_trace_sets_phases(struct st_trace_sets *ts)
{
	if (st_systrace_segments(&ts->sets, &ts->seg, &ts->nseg) < 0 ||
	    !(ts->phase = st_systrace_phase_names(&ts->sets, ts->seg,
						  ts->nseg))) {
		st_msg_error("out of memory");
		return ST_EXIT_IOERR;
	}
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

int st_trace_input_check(const char *path, bool dir_member)
{
	struct stat sb;
	int fd;

	if (stat(path, &sb) < 0) {
		if (errno == ELOOP)
			st_msg_error("cannot read %s: a loop of symbolic links "
				     "(%s)", path, strerror(errno));
		else
			st_msg_error("cannot read %s: %s", path,
				     strerror(errno));
		return ST_EXIT_NOINPUT;
	}
	if (S_ISDIR(sb.st_mode) && dir_member) {
		st_msg_error("cannot read %s: a directory, not a trace "
			     "file", path);
		return ST_EXIT_NOINPUT;
	}
	if (!S_ISREG(sb.st_mode))
		return 0;
	if ((fd = open(path, O_RDONLY)) < 0) {
		st_msg_error("cannot read %s: %s", path, strerror(errno));
		return ST_EXIT_NOINPUT;
	}
	close(fd);
	return 0;
}

int st_trace_inputs_collect(struct st_trace_inputs *in, char **args,
			    size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		DIR *d;
		struct dirent *de;
		size_t first = in->n;

		if (strcmp(args[i], "-") == 0) {
			if (inputs_add(in, args[i]) < 0)
				goto oom;
			continue;
		}
		if (stat(args[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			if (st_trace_input_check(args[i], false))
				rc = ST_EXIT_NOINPUT;
			else if (inputs_add(in, args[i]) < 0)
				goto oom;
			continue;
		}
		if (!(d = opendir(args[i]))) {
			st_msg_error("cannot read %s: %s", args[i],
				     strerror(errno));
			rc = ST_EXIT_NOINPUT;
			continue;
		}
		if (st_systrace_is_set(args[i]) &&
		    paths_add(&in->sysdirs, &in->nsys, args[i]) < 0) {
			closedir(d);
			goto oom;
		}
		while ((de = readdir(d))) {
			char *p;

			if (!is_trace_name(de->d_name))
				continue;
			if (!(p = st_path_join(args[i], de->d_name)) ||
			    inputs_add(in, p) < 0) {
				free(p);
				closedir(d);
				goto oom;
			}
			free(p);
		}
		closedir(d);
		if (in->nsys && strcmp(in->sysdirs[in->nsys - 1], args[i]) == 0
		    && in->n == first)
			continue;
		if (in->n == first) {
			st_msg_error("%s: not a trace set: no .pfw or .pfw.gz "
				     "file and no system-trace file (trace_*.out, "
				     "cpu.out, gpu.out, *.log with MLLOG lines, "
				     "strace.out, manifest.json; see "
				     "docs/systrace.md)", args[i]);
			if (!rc)
				rc = ST_EXIT_DATAERR;
			continue;
		}
		qsort(in->v + first, in->n - first, sizeof(*in->v), cmp_str);
		for (size_t k = first; k < in->n; k++)
			if (st_trace_input_check(in->v[k], true))
				rc = ST_EXIT_NOINPUT;
	}
	return rc;
oom:
	st_msg_error("out of memory");
	return ST_EXIT_IOERR;
}

int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines, const st_systrace_list *sets)
{
	int rc = 0;
	size_t shown = nbad;

	for (size_t i = 0; i < nbad; i++)
		st_msg_warn("%s:%" PRIu64 ": corrupt line skipped: %s",
			    files[bad[i].file].path, bad[i].line,
			    bad[i].why);
	if (bad_lines > shown)
		st_msg_warn("%" PRIu64 " more corrupt lines skipped (%" PRIu64
			    " in all)", bad_lines - shown, bad_lines);
	for (size_t i = 0; i < nfiles; i++) {
		const st_trace_file *f = &files[i];
		const char *name = strcmp(f->path, "-") ? f->path
							: "standard input";
		int code = f->err_code;

		if (code) {
			st_msg_error("%s", f->err_text ? f->err_text : f->path);
			if (code == ST_EXIT_IOERR ||
			    (code == ST_EXIT_NOINPUT && rc != ST_EXIT_IOERR) ||
			    (code == ST_EXIT_DATAERR && !rc))
				rc = code;
		} else if (sets && st_systrace_owner(sets, f->path)) {
			if (f->st.events == 0)
				st_msg_verbose("%s: no calls", name);
		} else if (f->not_trace) {
			if (f->st.lines == 0)
				st_msg_error("%s: not a DFTracer trace: it is "
					     "empty", name);
			else
				st_msg_error("%s: not a DFTracer trace: none "
					     "of its %" PRIu64 " lines is an "
					     "event", name, f->st.lines);
			if (!rc)
				rc = ST_EXIT_DATAERR;
		} else if (f->st.events == 0) {
			st_msg_warn("%s: no X events (only metadata or other "
				    "phases)", name);
		}
		st_msg_verbose("%s: %" PRIu64 " lines, %" PRIu64 " X events, %"
			       PRIu64 " M, %" PRIu64 " other, %" PRIu64
			       " corrupt; %" PRIu64 " by the fast scanner",
			       f->path, f->st.lines, f->st.events, f->st.meta,
			       f->st.other, f->st.bad, f->st.fast);
	}
	return rc;
}
