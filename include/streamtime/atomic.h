/* atomic.h - output files that appear whole or not at all.
 *
 * st_atomic_open() creates a temporary file ".NAME.PID.XXXXXX" beside the
 * target (same directory, so rename() is atomic) and holds an flock on it
 * until it is renamed or removed; st_atomic_commit() flushes, fsyncs,
 * renames over the target and fsyncs the directory; st_atomic_abort() removes
 * the temporary.  The path "-" means stdout: no temporary, commit flushes.
 * A successful commit also removes the temporaries of the same target that
 * a killed run left: unlocked, and named after a dead process or older than
 * 15 minutes (also the ".NAME.XXXXXX" of earlier versions).
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
	bool direct;       /* PATH is a device or FIFO: written in place */
	bool prepared;     /* st_atomic_prepare done: complete on disk */
	void *node;        /* private: the signal handler's record of TMP */
	void *sink;        /* private: FP's write errors */
	int fd;            /* private: FP's descriptor (holds TMP's lock) */
} st_atomic_file;

/* Open PATH for atomic writing.  Error 73 when the temporary cannot be
 * created (directory missing, not writable).  A symlink is followed: the
 * file it names is replaced, the link stays.  A device or FIFO (/dev/null,
 * a pipe) is written in place, never replaced by a regular file. */
int st_atomic_open(st_atomic_file *af, const char *path, st_error *err);

/* The errno of the first write to AF->fp that failed (EIO when none was
 * seen): for "cannot write FILE: No space left on device" when a writer
 * only learnt that fprintf failed. */
int st_atomic_errno(const st_atomic_file *af);

/* Make the temporary complete on disk (flush, fsync) without publishing
 * it, so that several files can all be complete before the first is
 * renamed.  It stays open (and locked) until commit or abort.  Error 74;
 * then the temporary is removed and AF released. */
int st_atomic_prepare(st_atomic_file *af, st_error *err);

/* Publish the file (st_atomic_prepare first if not done).  Error 74 on a
 * write, fsync or rename failure; the temporary is removed in every case
 * and AF is released. */
int st_atomic_commit(st_atomic_file *af, st_error *err);

/* Several files published together: each is complete on disk (flushed,
 * fsynced) before the first is renamed, and the renames run back to back
 * with SIGINT, SIGTERM and SIGHUP held off, so such a signal leaves the old
 * set or the new one whole.  Only a SIGKILL or a crash inside the rename
 * loop (microseconds) can leave a mix.  Zero-initialise. */
typedef struct st_atomic_set {
	st_atomic_file *v;
	size_t n, cap;
} st_atomic_set;

/* Prepare AF (st_atomic_prepare) and move it into SET; AF is released
 * either way.  Error 74. */
int st_atomic_set_add(st_atomic_set *set, st_atomic_file *af, st_error *err);

/* Rename every file of SET into place, then sync their directories and
 * release SET.  Error 74 naming the file when a rename fails; the files
 * not yet renamed are then removed. */
int st_atomic_set_commit(st_atomic_set *set, st_error *err);

/* Drop every temporary of SET and release it.  NULL is accepted. */
void st_atomic_set_abort(st_atomic_set *set);

/* A whole directory of outputs published as one set.  Steps that read
 * each other's outputs write them into a private directory beside them
 * (DIR/.streamtime-stage.PID.XXXXXX, locked, removed by the signal handler
 * and, when a run was killed, by the next run's commit); the commit moves
 * every file into DIR at the same relative path as one st_atomic_set.
 * Until then DIR is untouched. */
typedef struct st_atomic_stage {
	char *dir;         /* the target directory (owned) */
	char *path;        /* the stage: write the outputs here (owned) */
	int fd;            /* holds the stage's lock */
	void *node;        /* private */
} st_atomic_stage;

/* Create DIR (and parents) and a stage in it.  Error 73. */
int st_atomic_stage_open(st_atomic_stage *sg, const char *dir, st_error *err);

/* Publish every regular file below SG->path into SG->dir (subdirectories
 * created), then remove the stage and release SG in every case.  Error 73
 * when a target is a directory, 74 on a rename or I/O failure; before the
 * first rename nothing in DIR has changed. */
int st_atomic_stage_commit(st_atomic_stage *sg, st_error *err);

/* Remove the stage with what it holds and release SG.  Safe on a zeroed
 * or released SG. */
void st_atomic_stage_abort(st_atomic_stage *sg);

/* Remove every temporary still open when SIGINT, SIGTERM or SIGHUP ends
 * the process, then die of the signal: a killed run leaves no
 * ".NAME.PID.XXXXXX" behind.  Called once by main(). */
void st_atomic_cleanup_on_signals(void);

/* Drop the temporary and release AF.  Safe on a released or zeroed AF. */
void st_atomic_abort(st_atomic_file *af);

/* An exclusive advisory lock (flock) on the file PATH, created 0666 & ~umask
 * when missing and never removed: unlinking a lock file races with the next
 * run that already opened it.  WAIT blocks until the holder lets go;
 * otherwise a held lock is error 75 at once.  Error 73 when PATH cannot be
 * created or opened.  Returns the descriptor that holds the lock, or -1. */
int st_atomic_lock(const char *path, bool wait, st_error *err);

/* Let go of a lock from st_atomic_lock (FD < 0 is ignored). */
void st_atomic_unlock(int fd);

/* A file that only grows by whole lines (SPEC 5.1), locked through its own
 * descriptor (it is never replaced, so every path to it, symlink or hard
 * link, meets the same lock).
 *
 * st_atomic_append_open() opens or creates it, takes the lock and reads it,
 * changing nothing: bytes after the last newline (TAIL of them) are a row
 * torn by a writer killed mid-write.  The caller checks that the whole lines
 * are what it expects, then st_atomic_append_repair() cuts the torn line off
 * (DROPPED) so the row can be written again whole, unless WHOLE (may be NULL)
 * says it is a complete line that only lacks its newline: then the newline
 * is added (COMPLETED) and nothing is lost.  Each st_atomic_append_write()
 * writes its lines in one go and fsyncs: a kill leaves at most one torn
 * line, which the next run repairs. */
typedef struct st_atomic_append {
	int fd;
	char *path;        /* owned */
	char *data;        /* the content, NUL-terminated (owned) */
	size_t len;        /* bytes in DATA, always the file's size */
	size_t tail;       /* bytes after the last newline */
	size_t dropped;    /* bytes of a torn last line cut off by repair */
	bool completed;    /* a whole last line lacked its newline; added */
	bool created;      /* the file did not exist: its directory needs a sync */
} st_atomic_append;

/* Open (creating) and lock PATH.  Errors: 75 lock held (unless WAIT), 73
 * it cannot be created or opened for writing, 74 on a read failure. */
int st_atomic_append_open(st_atomic_append *ap, const char *path, bool wait,
			  st_error *err);

/* Does the file AP holds start with HEADER, so that it can be ours?  An
 * empty file does; a file with a whole first line when that line (less a
 * trailing CR) is HEADER; a file with no whole line yet only when all it
 * holds is a prefix of HEADER and its newline (a first write cut short).
 * Anything else (a foreign file, whose last line without a newline must not
 * be "repaired") is error 65 naming the file and line 1; WHAT says what
 * kind of file was expected.  Check this before st_atomic_append_repair. */
int st_atomic_append_check_header(const st_atomic_append *ap,
				  const char *header, const char *what,
				  st_error *err);

/* Repair a torn last line (see above).  Error 74. */
int st_atomic_append_repair(st_atomic_append *ap,
			    bool (*whole)(const char *line, size_t len, void *ctx),
			    void *ctx, st_error *err);

/* Append LEN bytes (whole lines) and fsync.  Error 74; on a short write the
 * file is cut back to where it was. */
int st_atomic_append_write(st_atomic_append *ap, const char *buf, size_t len,
			   st_error *err);

/* Close (dropping the lock) and free.  Safe on a zeroed AP. */
void st_atomic_append_close(st_atomic_append *ap);

/* Create directory PATH and its parents (mode 0777 & ~umask).  Error 73,
 * also for an empty PATH. */
int st_mkdir_p(const char *path, st_error *err);

/* "DIR/NAME" in a new string (malloc); NULL on allocation failure. */
char *st_path_join(const char *dir, const char *name);

/* Does PATH exist as a regular file? */
bool st_path_is_file(const char *path);

#endif
