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

/* An exclusive advisory lock (flock) on the file PATH, created 0666 & ~umask
 * when missing and never removed: unlinking a lock file races with the next
 * run that already opened it.  WAIT blocks until the holder lets go;
 * otherwise a held lock is error 75 at once.  Error 73 when PATH cannot be
 * created.  Returns the descriptor that holds the lock, or -1. */
int st_atomic_lock(const char *path, bool wait, st_error *err);

/* Let go of a lock from st_atomic_lock (FD < 0 is ignored). */
void st_atomic_unlock(int fd);

/* A file that only grows by whole lines (SPEC 5.1).  st_atomic_append_open()
 * opens or creates it and reads what it holds; bytes after the last newline
 * are a row torn by a writer that was killed mid-write, and are cut off
 * (their count in DROPPED) so the row can be written again whole.  Unless
 * WHOLE (may be NULL) says those bytes are a complete line that only lacks
 * its newline: then the newline is added (COMPLETED), and nothing is lost.  Each
 * st_atomic_append_write() writes its lines in one go and fsyncs: a kill
 * leaves at most one torn line, which the next open repairs. */
typedef struct st_atomic_append {
	int fd;
	char *path;        /* owned */
	char *data;        /* content after repair, NUL-terminated (owned) */
	size_t len;        /* bytes in DATA, always the file's size */
	size_t dropped;    /* bytes of torn last line cut off at open */
	bool completed;    /* a last line without newline was kept, newline added */
	bool created;      /* the file did not exist: its directory needs a sync */
} st_atomic_append;

/* Open (creating) PATH.  Error 73 when it cannot be created or opened for
 * writing, 74 on a read or truncate failure. */
int st_atomic_append_open(st_atomic_append *ap, const char *path,
			  bool (*whole)(const char *line, size_t len, void *ctx),
			  void *ctx, st_error *err);

/* Append LEN bytes (whole lines) and fsync.  Error 74. */
int st_atomic_append_write(st_atomic_append *ap, const char *buf, size_t len,
			   st_error *err);

/* Close and free.  Safe on a zeroed AP. */
void st_atomic_append_close(st_atomic_append *ap);

/* Create directory PATH and its parents (mode 0777 & ~umask).  Error 73. */
int st_mkdir_p(const char *path, st_error *err);

/* "DIR/NAME" in a new string (malloc); NULL on allocation failure. */
char *st_path_join(const char *dir, const char *name);

/* Does PATH exist as a regular file? */
bool st_path_is_file(const char *path);

#endif
