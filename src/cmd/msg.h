/* msg.h - messages to stderr, logs that print through them, the
 * check of stdout at exit (msg.c). */
#ifndef STREAMTIME_CMD_MSG_H
#define STREAMTIME_CMD_MSG_H

#include "streamtime/error.h"

/* Messages: all go to stderr, prefixed "streamtime: ". */
extern int st_verbosity;          /* -1 quiet, 0 normal, 1 verbose */
/* The whole command line, as main got it (for provenance.json). */
extern int st_main_argc;
extern char **st_main_argv;
void st_msg_error(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_warn(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_info(const char *fmt, ...) ST_PRINTF(1, 2);
void st_msg_verbose(const char *fmt, ...) ST_PRINTF(1, 2);

/* Print ERR and return its exit code. */
int st_msg_fail(const st_error *err);

/* As st_msg_fail, but a usage error (64) of the command PROG is said as
 * st_msg_usage says it. */
int st_msg_fail_usage(const char *prog, const st_error *err);

/* A usage error: the message, a pointer to --help, exit 64. */
int st_msg_usage(const char *prog, const char *fmt, ...) ST_PRINTF(2, 3);

/* A st_log that prints warnings through st_msg_warn: st_log_stderr(&log),
 * or st_log log = ST_LOG_STDERR. */
void st_log_stderr(st_log *log);
void st_log_warn_stderr(void *ctx, const char *msg);
#define ST_LOG_STDERR ((st_log){ .warn = st_log_warn_stderr })

/* A st_log for notes shown only with -v (st_msg_verbose). */
void st_log_verbose(st_log *log);

/* Flush and check stdout; a failure becomes exit 74 (unless RC is already
 * an error). */
int st_finish_stdout(int rc);

#endif
