/* error.h - exit codes, error reports and warning sinks shared by all modules.
 *
 * Library modules never print and never exit.  A function that can fail returns
 * 0 / -1 (or NULL) and fills a caller-supplied st_error, which may be NULL.  The
 * error carries the exit code the command should return (SPEC section 3), so the
 * command layer decides nothing but what to print.
 */
#ifndef STREAMTIME_ERROR_H
#define STREAMTIME_ERROR_H

#include <stdarg.h>

/* The one documented set of exit codes (sysexits.h values). */
enum st_exit {
	ST_EXIT_OK = 0,
	ST_EXIT_USAGE = 64,       /* bad command line */
	ST_EXIT_DATAERR = 65,     /* bad input data */
	ST_EXIT_NOINPUT = 66,     /* an input file is missing or unreadable */
	ST_EXIT_UNAVAILABLE = 69, /* PostgreSQL, HTTP, sacct unavailable */
	ST_EXIT_CANTCREAT = 73,   /* cannot create an output */
	ST_EXIT_IOERR = 74,       /* I/O error while reading or writing */
	ST_EXIT_TEMPFAIL = 75,    /* lock held, retry later */
	ST_EXIT_CONFIG = 78,      /* bad configuration */
};

#define ST_ERROR_TEXT_MAX 1024

typedef struct st_error {
	int code;                       /* an enum st_exit value, 0 when unset */
	char text[ST_ERROR_TEXT_MAX];   /* lower-case, no trailing full stop */
} st_error;

#if defined(__GNUC__)
#define ST_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ST_PRINTF(a, b)
#endif

/* Reset ERR to "no error".  ERR may be NULL. */
void st_error_clear(st_error *err);

/* Record an error with exit CODE and a printf-style message.  ERR may be NULL,
 * then the call does nothing.  Always returns -1 so that callers can write
 * `return st_error_set(err, ...)`. */
int st_error_set(st_error *err, int code, const char *fmt, ...) ST_PRINTF(3, 4);

/* Prefix the message already in ERR with a printf-style context, "ctx: old". */
void st_error_prefix(st_error *err, const char *fmt, ...) ST_PRINTF(2, 3);

/* A sink for warnings that do not stop the work (a scan skipped, a negative
 * latency).  Library code calls st_warn(); the command layer decides where the
 * text goes.  A NULL sink drops warnings. */
typedef struct st_log {
	void (*warn)(void *ctx, const char *msg);
	void *ctx;
	unsigned long count;            /* warnings emitted through this sink */
} st_log;

void st_warn(st_log *log, const char *fmt, ...) ST_PRINTF(2, 3);

#endif
