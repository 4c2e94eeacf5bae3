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

static int inputs_add(struct st_trace_inputs *in, const char *path)
{
	char **v = realloc(in->v, (in->n + 1) * sizeof(*v));

	if (!v)
		return -1;
	in->v = v;
	if (!(in->v[in->n] = strdup(path)))
		return -1;
	in->n++;
	return 0;
}

void st_trace_inputs_release(struct st_trace_inputs *in)
{
	for (size_t i = 0; i < in->n; i++)
		free(in->v[i]);
	free(in->v);
}

/* Can PATH, an input file, be read?  Exit 66 naming it when it is
 * missing, unreadable, a directory (DIR_MEMBER: found in a directory given,
 * which is not searched further) or a symbolic link that leads nowhere or
 * in a circle (ELOOP, said as such); 0 when it opens.  A pipe or device is
 * not opened here: the reader says what it finds. */
static int input_check(const char *path, bool dir_member)
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
			if (input_check(args[i], false))
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
		if (in->n == first) {
			st_msg_error("%s: no .pfw or .pfw.gz file in it",
				     args[i]);
			rc = ST_EXIT_NOINPUT;
			continue;
		}
		qsort(in->v + first, in->n - first, sizeof(*in->v), cmp_str);
		for (size_t k = first; k < in->n; k++)
			if (input_check(in->v[k], true))
				rc = ST_EXIT_NOINPUT;
	}
	return rc;
oom:
	st_msg_error("out of memory");
	return ST_EXIT_IOERR;
}

int st_trace_inputs_report(const st_trace_file *files, size_t nfiles,
			   const st_trace_bad *bad, size_t nbad,
			   uint64_t bad_lines)
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
