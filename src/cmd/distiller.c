/* distiller.c - `streamtime distiller jobs` (SPEC 5.5). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/distiller.h"
#include "streamtime/http.h"
#include "streamtime/num.h"

static const struct st_cmd_desc jobs_desc = {
	.path = "streamtime distiller jobs",
	.description =
	"Writes DIR/{N}_{N}.csv with `id,slurm_id,elapsed` for every scan/job pair\n"
	"whose scan has both dimensions equal to N: scans.id, jobs.slurm_id and\n"
	"jobs.elapsed as HH:MM:SS (hours count past 24: 26:00:00; a fraction only\n"
	"when non-zero); an empty field for NULL.  Rows in job id, then scan id\n"
	"order.  Every file is written atomically; a failed run writes none.\n",
};

static const char *const schema_choices[] = {
	"auto", "legacy", "current", NULL,
};
static const enum st_distiller_schema schema_values[] = {
	ST_DISTILLER_SCHEMA_AUTO, ST_DISTILLER_SCHEMA_LEGACY,
	ST_DISTILLER_SCHEMA_CURRENT,
};

/* --size: "N" or "N,N,..." into the growing size list, rejecting anything
 * but positive integers and repeats. */
static int push_sizes(const struct st_option *o, char *arg,
                      st_error *err)
{
	struct st_i64list *s = o->target;
	const char *p = arg;

	for (;;) {
		size_t len = strspn(p, "0123456789");
		int64_t x = 0;

		/* digits only: no sign, space or empty item */
		if (len == 0 || len > 9 || (p[len] && p[len] != ','))
			return st_error_set(err, ST_EXIT_USAGE, "--size '%s': "
					    "expected positive integers, e.g. "
					    "128 or 128,256", arg);
		for (size_t i = 0; i < len; i++)
			x = x * 10 + (p[i] - '0');
		if (x < 1)
			return st_error_set(err, ST_EXIT_USAGE, "--size '%s': a "
					    "size must be positive", arg);
		for (size_t i = 0; i < s->n; i++)
			if (s->v[i] == x)
				return st_error_set(err, ST_EXIT_USAGE, "--size %"
						    PRId64 " given twice", x);
		if (st_i64list_push(s, x, err) < 0)
			return -1;
		p += len;
		if (!*p)
			return 0;
		p++;            /* the comma */
	}
}

/* --dsn: a copy at *TARGET (new); a password in it is wiped from argv. */
static int set_dsn(const struct st_option *o, char *arg,
                   st_error *err)
{
	char **dsn = o->target;

	if (*dsn) {
		explicit_bzero(*dsn, strlen(*dsn));
		free(*dsn);
	}
	if (!(*dsn = strdup(arg)))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_distiller_dsn_has_password(*dsn)) {
		/* out of the process list (ps, /proc/PID/cmdline) from now
		 * on; it was there until here */
		memset(arg, '*', strlen(arg));
		st_msg_warn("--dsn holds a password, which other local users "
			    "could read in the process list: put it in "
			    "~/.pgpass or $PGPASSFILE instead");
	}
	return 0;
}

static int set_key_header(const struct st_option *o, char *arg,
                          st_error *err)
{
	if (!*arg || strpbrk(arg, ": \t\r\n"))
		return st_error_set(err, ST_EXIT_USAGE, "--api-key-header '%s': "
				    "not a header name", arg);
	*(const char **)o->target = arg;
	return 0;
}

/* The bearer token for --api: --token-file's, else $DISTILLER_TOKEN's (a
 * copy in *TOKEN, or NULL); the API key from $DISTILLER_API_KEY.  Returns
 * 0 or the exit status after a message. */
static int read_credentials(const char *token_file,
			    char **token, st_distiller_api_opts *ao)
{
	const char *env = getenv("DISTILLER_TOKEN");
	st_error err;

	if (token_file) {
		if (!(*token = st_secret_read(token_file, &err)))
			return st_msg_fail(&err);
	} else if (env && *env && !(*token = strdup(env))) {
		st_msg_error("out of memory");
		return ST_EXIT_IOERR;
	}
	ao->token = *token;
	ao->api_key = getenv("DISTILLER_API_KEY");
	if (ao->api_key && !*ao->api_key)
		ao->api_key = NULL;
	if (!ao->token && !ao->api_key)
		st_msg_verbose("no $DISTILLER_API_KEY, --token-file or "
			       "$DISTILLER_TOKEN: asking without credentials");
	return 0;
}

/* Options that belong to one back end only; the exit status or 0. */
static int check_backend(const char *prog, const st_distiller_jobs_opts *o,
			 const char *token_file)
{
	const st_distiller_api_opts *ao = &o->api;

	if (ao->url && (o->pg.dsn || o->pg.schema != ST_DISTILLER_SCHEMA_AUTO))
		return st_msg_usage(prog, "--api reads the REST API: --dsn and "
				    "--schema are for PostgreSQL");
	if (!ao->url && (ao->api_key_header || token_file || ao->cacert ||
			 ao->page_size || ao->max_body))
		return st_msg_usage(prog, "--api-key-header, --token-file, "
				    "--cacert, --page-size and "
				    "--max-response-size need --api URL");
	return 0;
}

/* Run the fetch and say what it did: the schema (-v), one line per file
 * renamed into place, then the error if any.  Returns the exit status. */
static int run_jobs(const char *prog, const st_distiller_jobs_opts *o)
{
	const st_distiller_query *q = &o->query;
	st_distiller_jobs_result res;
	st_log log = ST_LOG_STDERR;
	st_error err;
	int ok, rc = ST_EXIT_OK;

	ok = st_distiller_jobs_run(o, &res, &log, &err);
	if (res.fetched && !o->use_api)
		st_msg_verbose("distiller jobs: %s schema",
			       st_distiller_schema_name(res.schema));
	for (size_t i = 0; i < res.committed; i++)
		st_msg_info("distiller jobs: %zu rows for %" PRId64 "x%" PRId64
			    " in %s/%" PRId64 "_%" PRId64 ".csv", res.rows[i],
			    q->sizes[i], q->sizes[i], o->out_dir, q->sizes[i],
			    q->sizes[i]);
	if (ok < 0)
		rc = err.code == ST_EXIT_USAGE && !res.fetched ?
		     st_msg_usage(prog, "%s", err.text) : st_msg_fail(&err);
	free(res.rows);
	return rc;
}


static int distiller_jobs(int argc, char **argv)
{
	static const int64_t paper_sizes[] = { 128, 256, 512, 1024 };
	const char *dir = NULL, *token_file = NULL;
	st_distiller_jobs_opts jo = {
		.pg = { .timeout_s = 30 },
		.api = { .timeout_s = 30, .retries = 3 },
	};
	st_distiller_api_opts *ao = &jo.api;
	st_distiller_query *q = &jo.query;
	struct st_i64list sizes = { 0 };
	char *token = NULL, *dsn = NULL, *url = NULL;
	st_duration tmo = 30 * ST_NS_PER_SEC;
	int64_t retries = ao->retries, page_size = 0;
	int schema = 0;
	const struct st_option opts[] = {
		ST_ROW_OUT_DIR(dir,
			       "where the CSVs go (created if missing)"),
		{ ST_O("size", 0, ST_OPT_CALLBACK, &sizes, "N",
		       "a scan size (repeatable or N,N,...; default the paper's "
		       "128, 256, 512 and 1024)", ST_OPT_REPEAT),
		  .cb = push_sizes },
		{ ST_O("job-type", 0, ST_OPT_CALLBACK, &q->job_type, "T",
		       "only jobs of this type, e.g. count (default: all)", 0),
		  .cb = st_opt_cb_nonempty },
		{ ST_O("dsn", 0, ST_OPT_CALLBACK, &dsn, "DSN",
		       "libpq conninfo ('host=H dbname=D user=U') or URI "
		       "(postgresql://U@H/D); default: the PG* environment.  Put "
		       "the password in ~/.pgpass or $PGPASSFILE, not in DSN: a "
		       "command line is visible to every local user", 0),
		  .cb = set_dsn },
		{ ST_O("schema", 0, ST_OPT_CHOICE, &schema, "S",
		       "legacy (jobs.scan_id), current (scan_job_table) or auto "
		       "(default: read from the catalog)", 0),
		  .choices = schema_choices },
		{ ST_O("timeout", 0, ST_OPT_SECONDS, &tmo, "S",
		       "connect timeout for PostgreSQL (when neither DSN nor "
		       "$PGCONNECT_TIMEOUT sets one); for the API the most one "
		       "request may take, its retries included (default 30)",
		       ST_OPT_WHOLE), .max = 86400,
		  .expect = "whole seconds, 1 to 86400" },
		{ ST_O("api", 0, ST_OPT_CALLBACK, &url, "URL",
		       "the Distiller REST API instead (GET URL/api/v1/jobs, "
		       "paged, and URL/api/v1/scans/ID once per scan).  No "
		       "password in URL: the process list shows it", 0),
		  .expect = "give an API key in $DISTILLER_API_KEY or a token "
			    "in --token-file or $DISTILLER_TOKEN",
		  .cb = st_opt_cb_url },
		{ ST_O("api-key-header", 0, ST_OPT_CALLBACK, &ao->api_key_header,
		       "H", "header for $DISTILLER_API_KEY (default X-API-KEY)",
		       0), .cb = set_key_header },
		{ ST_O("token-file", 0, ST_OPT_PATH, &token_file, "F",
		       "bearer token file (else $DISTILLER_TOKEN)", 0) },
		{ ST_O("cacert", 0, ST_OPT_PATH, &ao->cacert, "F",
		       "CA bundle for https", 0) },
		{ ST_O("retries", 0, ST_OPT_INT, &retries, "N",
		       "extra attempts on connection errors and 5xx (default 3)",
		       0), .min = 0, .max = 20, .expect = "0 to 20" },
		{ ST_O("page-size", 0, ST_OPT_INT, &page_size, "N",
		       "jobs per page (default 100)", 0), .min = 1,
		  .max = 100000, .expect = "1 to 100000" },
		{ ST_O("max-response-size", 0, ST_OPT_CALLBACK, &ao->max_body,
		       "SIZE", "the largest answer taken, e.g. 512M or 2G "
		       "(default 256M); a larger one fails the run", 0),
		  .cb = st_opt_cb_http_size },
		ST_OPT_END_ROW,
	};
	const char *prog = jobs_desc.path;
	int n, rc;

	if (!st_opt_go(&jobs_desc, opts, argc, argv, &n, &rc))
		goto out;
	jo.out_dir = dir;
	jo.pg.dsn = dsn;
	ao->url = url;
	jo.use_api = url != NULL;
	jo.pg.schema = schema_values[schema];
	jo.pg.timeout_s = ao->timeout_s = (long)(tmo / ST_NS_PER_SEC);
	ao->retries = (int)retries;
	ao->page_size = (long)page_size;
	q->n_sizes = sizes.n;
	q->sizes = sizes.v;
	if (!sizes.n) {
		q->sizes = paper_sizes;
		q->n_sizes = sizeof(paper_sizes) / sizeof(paper_sizes[0]);
	}
	if (!dir || !*dir)
		rc = st_msg_usage(prog, "--out-dir is required");
	else if (!(rc = check_backend(prog, &jo, token_file)) &&
		 !(url && (rc = read_credentials(token_file, &token, ao))))
		rc = run_jobs(prog, &jo);
out:
	st_secret_free(dsn);
	st_secret_free(url);
	st_secret_free(token);
	free(sizes.v);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "jobs", distiller_jobs, "the job table per scan size", NULL },
};

ST_CMD_GROUP_FN(cmd_distiller, st_distiller_group,
		"streamtime distiller", subcommands)
