/* msg.c - messages to stderr, logs that print through them, and the
 * check of stdout at exit (msg.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

int st_verbosity;
int st_main_argc;
char **st_main_argv;

static void vmsg(const char *prefix, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0)));

static void vmsg(const char *prefix, const char *fmt, va_list ap)
{
	fputs("streamtime: ", stderr);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* The body of the st_msg_* functions: FMT and what follows it, through
 * vmsg with PREFIX. */
#define VMSG(prefix)                                                         \
	do {                                                                 \
		va_list ap;                                                  \
		va_start(ap, fmt);                                           \
		vmsg(prefix, fmt, ap);                                       \
		va_end(ap);                                                  \
	} while (0)

void st_msg_error(const char *fmt, ...)
{
	VMSG("");
}

/* Warnings are printed even with -q: they name something that needs a
 * person (a bad file a cron job keeps skipping), and -q exists to keep
 * cron's mail to exactly those. */
void st_msg_warn(const char *fmt, ...)
{
	VMSG("warning: ");
}

void st_msg_info(const char *fmt, ...)
{
	if (st_verbosity >= 0)
		VMSG("");
}

void st_msg_verbose(const char *fmt, ...)
{
	if (st_verbosity >= 1)
		VMSG("");
}

int st_msg_fail(const st_error *err)
{
	st_msg_error("%s", err->text[0] ? err->text : "unknown error");
	return err->code ? err->code : ST_EXIT_IOERR;
}

int st_msg_fail_usage(const char *prog, const st_error *err)
{
	if (err->code == ST_EXIT_USAGE)
		return st_msg_usage(prog, "%s", err->text);
	return st_msg_fail(err);
}

int st_msg_usage(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\ntry '%s --help'\n", prog);
	return ST_EXIT_USAGE;
}

void st_log_warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	st_msg_warn("%s", msg);
}

static void log_verbose(void *ctx, const char *msg)
{
	(void)ctx;
	st_msg_verbose("%s", msg);
}

static void log_init(st_log *log, void (*warn)(void *, const char *))
{
	log->warn = warn;
	log->ctx = NULL;
	log->count = 0;
}

void st_log_stderr(st_log *log)
{
	log_init(log, st_log_warn_stderr);
}

void st_log_verbose(st_log *log)
{
	log_init(log, log_verbose);
}

int st_finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		st_msg_error("cannot write to standard output: %s", strerror(errno));
		return rc ? rc : ST_EXIT_IOERR;
	}
	return rc;
}
