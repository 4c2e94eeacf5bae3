/* msg.c - messages to stderr, option helpers. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/http.h"
#include "streamtime/merge.h"
#include "streamtime/num.h"

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

int st_parse_seconds(const char *s, bool zero_ok, double max, st_duration *out)
{
	double v;

	if (st_num_parse_double(s, &v) < 0 || v < 0 || (v == 0 && !zero_ok) ||
	    v > max)
		return -1;
	*out = (st_duration)(v * 1e9);
	return 0;
}

int st_finish_stdout(int rc)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		st_msg_error("cannot write to standard output: %s", strerror(errno));
		return rc ? rc : ST_EXIT_IOERR;
	}
	return rc;
}

int st_parse_size_range(const char *s, int64_t *size, st_range *r)
{
	char buf[128], *colon, *dash;
	int64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	dash = strchr(colon + 1, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	if (st_num_parse_int(buf, size) < 0 || *size <= 0 ||
	    st_num_parse_int(colon + 1, &a) < 0 ||
	    st_num_parse_int(dash + 1, &b) < 0 || a > b || strchr(buf, '.'))
		return -1;
	r->first = a;
	r->last = b;
	return 0;
}

int st_parse_size_path(const char *s, int64_t *size, const char **path)
{
	const char *colon = strchr(s, ':');
	char buf[32];

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(buf) ||
	    !colon[1])
		return -1;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	if (st_num_parse_int(buf, size) < 0 || *size <= 0)
		return -1;
	*path = colon + 1;
	return 0;
}

int st_push_size_range(st_size_range **v, size_t *n, const char *arg)
{
	st_size_range *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	if (st_parse_size_range(arg, &nv[*n].size, &nv[*n].range) < 0)
		return -1;
	(*n)++;
	return 0;
}

int st_load_experiments(const char *config, const char *data,
			st_experiments *ex, st_error *err)
{
	char *auto_config = NULL;
	int rc;

	if (!config && data) {
		auto_config = st_path_join(data, "experiments.json");
		if (auto_config && st_path_is_file(auto_config))
			config = auto_config;
	}
	rc = config ? st_experiments_load(ex, config, err)
		    : st_experiments_default(ex, err);
	if (rc == 0)
		st_msg_verbose("experiments: %s", config ? config :
			       "the paper's (built in)");
	free(auto_config);
	return rc;
}

char *st_secret_read(const char *path, st_error *err)
{
	size_t n;
	char *s = st_file_read(path, &n, err);

	if (!s)
		return NULL;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	if (n == 0 || strlen(s) != n) {
		explicit_bzero(s, n);
		free(s);
		st_error_set(err, ST_EXIT_DATAERR, "%s: %s", path, n ?
			     "the secret holds a NUL byte" : "empty");
		return NULL;
	}
	return s;
}

int st_strv_push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}

char *st_url_arg_take(const char *opt, char *arg, const char *instead)
{
	char *copy = strdup(arg);
	size_t off, len;

	if (copy && st_http_url_password(arg, &off, &len)) {
		/* out of the process list (ps, /proc/PID/cmdline) from now
		 * on; it was there until here */
		memset(arg + off, '*', len);
		st_msg_warn("%s holds a password, which other local users "
			    "could read in the process list: %s instead", opt,
			    instead);
	}
	return copy;
}

void st_secret_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}
