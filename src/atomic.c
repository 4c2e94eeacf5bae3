/* atomic.c - temp + fsync + rename output files, directories and paths. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"

char *st_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a && dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

bool st_path_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory part of PATH in a new string ("." for a bare name). */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

int st_atomic_open(st_atomic_file *af, const char *path, st_error *err)
{
	char *dir = NULL, *base, *copy;
	int fd;

	memset(af, 0, sizeof(*af));
	if (strcmp(path, "-") == 0) {
		af->fp = stdout;
		af->is_stdout = true;
		return 0;
	}
	af->path = strdup(path);
	dir = dir_of(path);
	copy = strdup(path);
	if (!af->path || !dir || !copy)
		goto oom;
	base = basename(copy);
	af->tmp = malloc(strlen(dir) + strlen(base) + 16);
	if (!af->tmp)
		goto oom;
	sprintf(af->tmp, "%s/.%s.XXXXXX", dir, base);
	free(copy);
	free(dir);
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     path, strerror(e));
		free(af->tmp);
		af->tmp = NULL;
		st_atomic_abort(af);
		return -1;
	}
	/* mkstemp makes 0600; outputs are ordinary files */
	{
		mode_t um = umask(0);

		umask(um);
		(void)fchmod(fd, 0666 & ~um);
	}
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		close(fd);
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     path, strerror(errno));
		st_atomic_abort(af);
		return -1;
	}
	return 0;
oom:
	free(copy);
	free(dir);
	st_atomic_abort(af);
	return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
}

/* fsync the directory holding PATH so that the rename itself is durable. */
static int sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd, rc = 0;

	if (!dir)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = -1;
	close(fd);
	return rc;
}

int st_atomic_commit(st_atomic_file *af, st_error *err)
{
	int rc = 0;

	if (af->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = st_error_set(err, ST_EXIT_IOERR,
					  "cannot write to standard output: %s",
					  strerror(errno));
		memset(af, 0, sizeof(*af));
		return rc;
	}
	if (fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0) {
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				  af->path, strerror(errno));
		st_atomic_abort(af);
		return rc;
	}
	if (fclose(af->fp) != 0) {
		af->fp = NULL;
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				  af->path, strerror(errno));
		st_atomic_abort(af);
		return rc;
	}
	af->fp = NULL;
	if (rename(af->tmp, af->path) != 0) {
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot rename %s to %s: %s",
				  af->tmp, af->path, strerror(errno));
		st_atomic_abort(af);
		return rc;
	}
	free(af->tmp);
	af->tmp = NULL;
	if (sync_dir(af->path) != 0)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot sync the directory of %s: %s",
				  af->path, strerror(errno));
	st_atomic_abort(af);
	return rc;
}

void st_atomic_abort(st_atomic_file *af)
{
	if (!af)
		return;
	if (af->fp && !af->is_stdout)
		fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

int st_mkdir_p(const char *path, st_error *err)
{
	char *p = strdup(path);
	struct stat st;

	if (!p)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st_error_set(err, ST_EXIT_CANTCREAT,
				     "cannot create directory %s: %s", p,
				     strerror(errno));
			free(p);
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT,
				    "cannot create directory %s: not a directory",
				    path);
	return 0;
}
