/* file.c - reading whole files into memory. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/file.h"

int st_file_read_fd(int fd, size_t hint, size_t max, char **buf, size_t *len)
{
	/* room for HINT bytes, the read that sees the end, and the NUL */
	size_t cap = hint < SIZE_MAX - 2 && hint + 2 > 65536 ? hint + 2 : 65536;
	size_t n = 0;
	char *b;

	*buf = NULL;
	*len = 0;
	if (max < SIZE_MAX - 2 && cap > max + 2)
		cap = max + 2;
	if (!(b = malloc(cap)))
		return -1;
	for (;;) {
		ssize_t r;

		if (n + 1 == cap) {
			size_t nc = cap < SIZE_MAX / 2 ? cap * 2 : SIZE_MAX;
			char *nb = nc > cap ? realloc(b, nc) : NULL;

			if (!nb) {
				free(b);
				errno = ENOMEM;
				return -1;
			}
			b = nb;
			cap = nc;
		}
		r = read(fd, b + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;

			free(b);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		n += (size_t)r;
		if (n > max) {
			free(b);
			errno = EFBIG;
			return -1;
		}
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

char *st_file_read(const char *path, size_t *len, st_error *err)
{
	bool in = strcmp(path, "-") == 0;
	int fd = in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	size_t hint = 0;
	char *buf;

	*len = 0;
	if (fd < 0) {
		st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s", path,
			     strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
		hint = (size_t)st.st_size;
	if (st_file_read_fd(fd, hint, SIZE_MAX, &buf, len) < 0) {
		if (errno == ENOMEM)
			st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", path);
		else
			st_error_set(err, errno == EISDIR ? ST_EXIT_NOINPUT :
				     ST_EXIT_IOERR, "cannot read %s: %s", path,
				     strerror(errno));
	}
	if (!in)
		close(fd);
	return buf;
}

int st_dir_read(DIR *d, const char *path, struct dirent **de, st_error *err)
{
	errno = 0;
	*de = readdir(d);
	if (*de)
		return 1;
	if (errno)
		return st_error_set(err, ST_EXIT_IOERR, "cannot read directory %s: %s",
				    path, strerror(errno));
	return 0;
}
