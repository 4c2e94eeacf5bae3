/* atomic.h - output files that appear whole or not at all.
 *
 * st_atomic_open() creates a temporary file beside the target (same
 * directory, so rename() is atomic); st_atomic_commit() flushes, fsyncs,
 * renames over the target and fsyncs the directory; st_atomic_abort() removes
 * the temporary.  The path "-" means stdout: no temporary, commit flushes.
 */
#ifndef STREAMTIME_ATOMIC_H
#define STREAMTIME_ATOMIC_H

#include <stdbool.h>
#include <stdio.h>

#include "streamtime/error.h"

typedef struct st_atomic_file {
	FILE *fp;          /* write here */
	char *path;        /* target (owned) */
	char *tmp;         /* temporary, NULL for stdout (owned) */
	bool is_stdout;
} st_atomic_file;

/* Open PATH for atomic writing.  Error 73 when the temporary cannot be
 * created (directory missing, not writable). */
int st_atomic_open(st_atomic_file *af, const char *path, st_error *err);

/* Publish the file.  Error 74 on a write, fsync or rename failure; the
 * temporary is removed in every case and AF is released. */
int st_atomic_commit(st_atomic_file *af, st_error *err);

/* Drop the temporary and release AF.  Safe on a released or zeroed AF. */
void st_atomic_abort(st_atomic_file *af);

/* Create directory PATH and its parents (mode 0777 & ~umask).  Error 73. */
int st_mkdir_p(const char *path, st_error *err);

/* "DIR/NAME" in a new string (malloc); NULL on allocation failure. */
char *st_path_join(const char *dir, const char *name);

/* Does PATH exist as a regular file? */
bool st_path_is_file(const char *path);

#endif
