/* trace_inputs.c - the inputs of the trace commands and the notes about them
 * (trace_inputs.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/time.h"
#include "streamtime/trace_inputs.h"

#define OOM(err) st_error_set(err, ST_EXIT_IOERR, "out of memory")

int st_trace_notes_add(st_trace_notes *nt, enum st_trace_note_level level,
		       int code, const char *path, st_error *err,
		       const char *fmt, ...)
{
	st_trace_note *v = realloc(nt->v, (nt->n + 1) * sizeof(*v)), *x;
	va_list ap;
	int len;

	if (!v)
		return OOM(err);
	nt->v = v;
	x = &v[nt->n];
	*x = (st_trace_note){ .level = level, .code = code };
	va_start(ap, fmt);
	len = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (len < 0 || !(x->reason = malloc((size_t)len + 1)) ||
	    (path && !(x->path = strdup(path)))) {
		free(x->reason);
		return OOM(err);
	}
	va_start(ap, fmt);
	vsnprintf(x->reason, (size_t)len + 1, fmt, ap);
	va_end(ap);
	nt->n++;
	return 0;
}

int st_trace_notes_fail(st_trace_notes *nt, st_error *err)
{
	return st_trace_notes_add(nt, ST_NOTE_ERROR, err->code ? err->code
				  : ST_EXIT_IOERR, NULL, err, "%s",
				  err->text[0] ? err->text : "unknown error");
}

/* A note about PATH into the NT of the caller, ERR set if it fails. */
#define NOTE_ERROR(code, path, ...) \
	st_trace_notes_add(nt, ST_NOTE_ERROR, code, path, err, __VA_ARGS__)
#define NOTE_WARN(path, ...) \
	st_trace_notes_add(nt, ST_NOTE_WARN, 0, path, err, __VA_ARGS__)
#define NOTE_VERBOSE(path, ...) \
	st_trace_notes_add(nt, ST_NOTE_VERBOSE, 0, path, err, __VA_ARGS__)

int st_trace_notes_status(const st_trace_notes *nt)
{
	int rc = 0;

	for (size_t i = 0; i < nt->n; i++) {
		int code = nt->v[i].level == ST_NOTE_ERROR ? nt->v[i].code : 0;

		if (code == ST_EXIT_IOERR ||
		    (code == ST_EXIT_NOINPUT && rc != ST_EXIT_IOERR) ||
		    (code && !rc))
			rc = code;
	}
	return rc;
}

void st_trace_notes_release(st_trace_notes *nt)
{
	for (size_t i = 0; i < nt->n; i++) {
		free(nt->v[i].path);
		free(nt->v[i].reason);
	}
	free(nt->v);
	nt->v = NULL;
	nt->n = 0;
}

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

void st_trace_inputs_release(struct st_trace_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i]);
	free(in->v);
	for (size_t i = 0; i < in->nsys; i++)
		free(in->sysdirs[i]);
	free(in->sysdirs);
	memset(in, 0, sizeof(*in));
}

int st_trace_input_check(const char *path, bool dir_member,
			 st_trace_notes *nt, st_error *err)
{
	struct stat sb;
	const char *why = NULL;
	int fd, e;

	if (stat(path, &sb) < 0) {
		e = errno;
		if (e == ELOOP)
			return NOTE_ERROR(ST_EXIT_NOINPUT, path, "cannot read "
					  "%s: a loop of symbolic links (%s)",
					  path, strerror(e)) < 0
			       ? -1 : ST_EXIT_NOINPUT;
		why = strerror(e);
	} else if (S_ISDIR(sb.st_mode) && dir_member) {
		why = "a directory, not a trace file";
	} else if (!S_ISREG(sb.st_mode)) {
		return 0;
	} else if ((fd = open(path, O_RDONLY)) < 0) {
		why = strerror(errno);
	} else {
		close(fd);
		return 0;
	}
	return NOTE_ERROR(ST_EXIT_NOINPUT, path, "cannot read %s: %s", path,
			  why) < 0 ? -1 : ST_EXIT_NOINPUT;
}

/* The traces in directory DIR (opened as D) into IN, sorted and checked;
 * a directory with none (and no system traces) a note of 65.  0, or -1
 * with ERR set. */
static int collect_dir(struct st_trace_inputs *in, const char *dir, DIR *d,
		       st_trace_notes *nt, st_error *err)
{
	size_t first = in->n;
	bool sys = st_systrace_is_set(dir);
	struct dirent *de;

	if (sys && paths_add(&in->sysdirs, &in->nsys, dir) < 0)
		return OOM(err);
	while ((de = readdir(d))) {
		char *p;
		int r;

		if (!is_trace_name(de->d_name))
			continue;
		if (!(p = st_path_join(dir, de->d_name)))
			return OOM(err);
		r = paths_add(&in->v, &in->n, p);
		free(p);
		if (r < 0)
			return OOM(err);
	}
	if (in->n == first)
		return sys ? 0 : NOTE_ERROR(ST_EXIT_DATAERR, dir, "%s: not a "
					    "trace set: no .pfw or .pfw.gz file "
					    "and no system-trace file "
					    "(trace_*.out, cpu.out, gpu.out, "
					    "*.log with MLLOG lines, strace.out, "
					    "manifest.json; see "
					    "docs/systrace.md)", dir);
	qsort(in->v + first, in->n - first, sizeof(*in->v), cmp_str);
	for (size_t k = first; k < in->n; k++)
		if (st_trace_input_check(in->v[k], true, nt, err) < 0)
			return -1;
	return 0;
}

int st_trace_inputs_collect(struct st_trace_inputs *in, char *const *args,
			    size_t n, st_trace_notes *nt, st_error *err)
{
	for (size_t i = 0; i < n; i++) {
		struct stat sb;
		DIR *d;
		int r;

		if (strcmp(args[i], "-") == 0) {
			if (paths_add(&in->v, &in->n, args[i]) < 0)
				return OOM(err);
			continue;
		}
		if (stat(args[i], &sb) < 0 || !S_ISDIR(sb.st_mode)) {
			if ((r = st_trace_input_check(args[i], false, nt,
						      err)) < 0)
				return -1;
			if (!r && paths_add(&in->v, &in->n, args[i]) < 0)
				return OOM(err);
			continue;
		}
		if (!(d = opendir(args[i]))) {
			if (NOTE_ERROR(ST_EXIT_NOINPUT, args[i], "cannot read "
				       "%s: %s", args[i], strerror(errno)) < 0)
				return -1;
			continue;
		}
		r = collect_dir(in, args[i], d, nt, err);
		closedir(d);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* The notes about input F (NAME as said), SETS as for
 * st_trace_inputs_report.  0, or -1 with ERR set. */
static int report_file(const st_trace_file *f, const char *name,
		       const st_systrace_list *sets, st_trace_notes *nt,
		       st_error *err)
{
	int r = 0;

	if (f->err_code)
		r = NOTE_ERROR(f->err_code, f->path, "%s",
			       f->err_text ? f->err_text : f->path);
	else if (sets && st_systrace_owner(sets, f->path))
		r = f->st.events ? 0
				 : NOTE_VERBOSE(f->path, "%s: no calls", name);
	else if (f->not_trace && f->st.lines == 0)
		r = NOTE_ERROR(ST_EXIT_DATAERR, f->path, "%s: not a DFTracer "
			       "trace: it is empty", name);
	else if (f->not_trace)
		r = NOTE_ERROR(ST_EXIT_DATAERR, f->path, "%s: not a DFTracer "
			       "trace: none of its %" PRIu64 " lines is an "
			       "event", name, f->st.lines);
	else if (f->st.events == 0)
		r = NOTE_WARN(f->path, "%s: no X events (only metadata or "
			      "other phases)", name);
	if (r < 0)
		return -1;
	return NOTE_VERBOSE(f->path, "%s: %" PRIu64 " lines, %" PRIu64
			    " X events, %" PRIu64 " M, %" PRIu64 " other, %"
			    PRIu64 " corrupt; %" PRIu64 " by the fast scanner",
			    f->path, f->st.lines, f->st.events, f->st.meta,
			    f->st.other, f->st.bad, f->st.fast);
}

/* The corrupt lines BAD[0..NBAD) (BAD_LINES in all) of the inputs
 * FILES (or PATHS, when FILES is NULL) as warnings in NT. */
static int bad_notes(const st_trace_file *files, const char *const *paths,
		     const st_trace_bad *bad, size_t nbad, uint64_t bad_lines,
		     st_trace_notes *nt, st_error *err)
{
	for (size_t i = 0; i < nbad; i++) {
		const char *path = files ? files[bad[i].file].path
					 : paths[bad[i].file];

		if (NOTE_WARN(path, "%s:%" PRIu64 ": corrupt line skipped: %s",
			      path, bad[i].line, bad[i].why) < 0)
			return -1;
	}
	if (bad_lines > nbad &&
	    NOTE_WARN(NULL, "%" PRIu64 " more corrupt lines skipped (%" PRIu64
		      " in all)", bad_lines - nbad, bad_lines) < 0)
		return -1;
	return 0;
}

int st_trace_bad_notes(const char *const *paths, const st_trace_bad *bad,
		       size_t nbad, uint64_t bad_lines, st_trace_notes *nt,
		       st_error *err)
{
	return bad_notes(NULL, paths, bad, nbad, bad_lines, nt, err);
}

int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines, const st_systrace_list *sets,
			   st_trace_notes *nt, st_error *err)
{
	if (bad_notes(files, NULL, bad, nbad, bad_lines, nt, err) < 0)
		return -1;
	for (size_t i = 0; i < nfiles; i++) {
		const st_trace_file *f = &files[i];

		if (report_file(f, strcmp(f->path, "-") ? f->path
			       : "standard input", sets, nt, err) < 0)
			return -1;
	}
	return 0;
}

int st_trace_span_report(const st_trace_summary *s, st_trace_notes *nt,
			 st_error *err)
{
	size_t a, b;
	int64_t gap;
	char ta[40], tb[40];

	if (st_trace_span_gap(s->files_in, s->n_files, &a, &b, &gap) < 0)
		return 0;
	st_time_format_utc(s->files_in[a].end_us * 1000, ta, sizeof(ta));
	st_time_format_utc(s->files_in[b].first_us * 1000, tb, sizeof(tb));
	return NOTE_WARN(NULL, "the inputs look like unrelated runs: %s's "
			 "events end at %s and %s's begin at %s, %.1f days "
			 "later; the totals and the span cover both "
			 "(summarise them apart, or --filter ts>... to keep "
			 "one)", s->files_in[a].path, ta, s->files_in[b].path,
			 tb, (double)gap / 86400e6);
}
