/* file.h - reading whole files into memory, and directories. */
#ifndef STREAMTIME_FILE_H
#define STREAMTIME_FILE_H

#include <dirent.h>
#include <stddef.h>

#include "streamtime/error.h"

/* Read FD from where it stands to its end into a new NUL-terminated buffer
 * *BUF of *LEN bytes (the NUL not counted); FD stays open.  HINT, the size
 * expected (fstat's st_size, 0 when unknown), sizes the buffer so that a
 * file of that size takes one allocation; more than MAX bytes (SIZE_MAX: no
 * limit) fail with EFBIG -- with MAX = st_size that is a file that grew
 * while read.  EINTR is retried.  Returns 0, or -1 with errno set (EFBIG,
 * ENOMEM, or read's) and *BUF NULL. */
int st_file_read_fd(int fd, size_t hint, size_t max, char **buf, size_t *len);

/* The whole of PATH ("-" is stdin) in a new NUL-terminated buffer of *LEN
 * bytes.  Errors: 66 when it is missing, unreadable or a directory, 74 on
 * a read error or when memory runs out. */
char *st_file_read(const char *path, size_t *len, st_error *err);

/* The next entry of directory D (opened from PATH, for messages) in *DE.
 * Returns 1, 0 at its end, or -1 with ERR set (74 "cannot read directory
 * PATH: ..."): readdir's NULL means both, errno tells them apart. */
int st_dir_read(DIR *d, const char *path, struct dirent **de, st_error *err);

#endif
