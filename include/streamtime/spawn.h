/* spawn.h - child processes on pipes, started with posix_spawn.
 *
 * One way to run another program for the modules that need it: sacct (run
 * to its end, stdout and stderr collected) and the clock probe's exec: and
 * ssh targets (a responder talked to over its stdin and stdout).  The pipes
 * are plain file descriptors: nothing is buffered between the caller and
 * the child, so timing an exchange through them costs what the pipe costs.
 */
#ifndef STREAMTIME_SPAWN_H
#define STREAMTIME_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "streamtime/error.h"

/* Which standard streams of the child become pipes (the others are ours,
 * shared), and whether it leads a process group of its own. */
enum {
	ST_SPAWN_STDIN = 1,     /* we write its stdin on ->in */
	ST_SPAWN_STDOUT = 2,    /* we read its stdout on ->out */
	ST_SPAWN_STDERR = 4,    /* we read its stderr on ->err */
	ST_SPAWN_GROUP = 8,     /* its own process group: a shell's children
				 * go with it when it is killed */
	ST_SPAWN_NULL_IN = 16,  /* its stdin is /dev/null */
};

typedef struct st_spawn_opts {
	unsigned flags;          /* ST_SPAWN_* */
	/* NULL, or changes to our environment for the child, NULL-terminated:
	 * "NAME=VALUE" sets NAME, "NAME" removes it */
	const char *const *env;
} st_spawn_opts;

typedef struct st_child {
	pid_t pid;              /* -1: none */
	int in, out, err;       /* our ends of its pipes, -1 when not piped */
} st_child;

/* Start ARGV[0] with arguments ARGV (NULL-terminated), looked up in PATH
 * as execvp does, with the pipes and files O asks for (our ends close on
 * exec) and SIGPIPE at its default whatever ours is.
 * Returns 0 with *C filled, or -1 with ERR (69 "cannot run ARGV[0]: ..."
 * when it cannot be executed, or a pipe/spawn failure) and nothing left
 * open. */
int st_spawn(st_child *c, char *const argv[], const st_spawn_opts *o,
	     st_error *err);

/* st_spawn with the child's stdout on OUT_FD and its stderr on ERR_FD
 * (files of ours, e.g. a log; -1: as O says). */
int st_spawn_to(st_child *c, char *const argv[], const st_spawn_opts *o,
		int out_fd, int err_fd, st_error *err);

/* Close C's pipes and wait for it to end: its exit status, 128 + the signal
 * that ended it, or -1 when it cannot be waited for.  C's pid is -1 then. */
int st_child_wait(st_child *c);

/* Close C's pipes, give it GRACE_MS milliseconds to end, then SIGKILL it
 * (with its process group when it has one) and reap it.  For children that
 * are done with once their pipes close; C may be one that never started. */
void st_child_stop(st_child *c, int grace_ms);

/* Run ARGV to its end (stdin shared, stdout and stderr piped; O's flags
 * are ignored, its env used): its stdout in *OUT (*OUTLEN bytes) and its
 * stderr in *ERRTXT, new NUL-terminated buffers (empty when it wrote
 * nothing).  Returns its status as st_child_wait does, or -1 with ERR set
 * and both buffers NULL: 69 when it cannot be run, 74 when its output
 * cannot be read. */
int st_spawn_collect(char *const argv[], const st_spawn_opts *o, char **out,
		     size_t *outlen, char **errtxt, st_error *err);

#endif
