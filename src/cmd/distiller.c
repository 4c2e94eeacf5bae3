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

/* One output file per size, and the rows counted into it. */
struct outputs {
	st_atomic_file *files;
	size_t *rows;
};

static int write_row(void *ctx, const st_distiller_row *row, st_error *err)
{
	struct outputs *o = ctx;
	st_atomic_file *af = &o->files[row->size_index];
	char line[96];
	size_t n = st_distiller_row_format(row, line, sizeof(line));

	if (fwrite(line, 1, n, af->fp) != n)
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				    af->path, strerror(errno));
	o->rows[row->size_index]++;
	return 0;
}

struct sizes {
	int64_t *v;
	size_t n;
};

/* --size: "N" or "N,N,..." into the growing size list, rejecting anything
 * but positive integers and repeats. */
static int push_sizes(const struct st_option *o, char *arg,
                      st_error *err)
{
	struct sizes *s = o->target;
	const char *p = arg;

	for (;;) {
		size_t len = strspn(p, "0123456789");
		int64_t x = 0, *grown;

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
		if (!(grown = realloc(s->v, (s->n + 1) * sizeof(*s->v))))
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		s->v = grown;
		s->v[s->n++] = x;
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

static int distiller_jobs(int argc, char **argv)
{
	static const int64_t paper_sizes[] = { 128, 256, 512, 1024 };
	const char *dir = NULL, *token_file = NULL;
	st_distiller_pg_opts po = { .timeout_s = 30 };
	st_distiller_api_opts ao = { .timeout_s = 30, .retries = 3 };
	st_distiller_query q = { 0 };
	struct sizes sizes = { 0 };
	char *token = NULL, *dsn = NULL, *url = NULL;
	st_duration tmo = 30 * ST_NS_PER_SEC;
	int64_t retries = ao.retries, page_size = 0;
	int schema = 0;
	const struct st_option opts[] = {
		{ ST_O("out-dir", 0, ST_OPT_PATH, &dir, "DIR",
		       "where the CSVs go (created if missing)", ST_OPT_REQUIRED) },
		{ ST_O("size", 0, ST_OPT_CALLBACK, &sizes, "N",
		       "a scan size (repeatable or N,N,...; default the paper's "
		       "128, 256, 512 and 1024)", ST_OPT_REPEAT),
		  .cb = push_sizes },
		{ ST_O("job-type", 0, ST_OPT_CALLBACK, &q.job_type, "T",
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
		{ ST_O("api-key-header", 0, ST_OPT_CALLBACK, &ao.api_key_header,
		       "H", "header for $DISTILLER_API_KEY (default X-API-KEY)",
		       0), .cb = set_key_header },
		{ ST_O("token-file", 0, ST_OPT_PATH, &token_file, "F",
		       "bearer token file (else $DISTILLER_TOKEN)", 0) },
		{ ST_O("cacert", 0, ST_OPT_PATH, &ao.cacert, "F",
		       "CA bundle for https", 0) },
		{ ST_O("retries", 0, ST_OPT_INT, &retries, "N",
		       "extra attempts on connection errors and 5xx (default 3)",
		       0), .min = 0, .max = 20, .expect = "0 to 20" },
		{ ST_O("page-size", 0, ST_OPT_INT, &page_size, "N",
		       "jobs per page (default 100)", 0), .min = 1,
		  .max = 100000, .expect = "1 to 100000" },
		{ ST_O("max-response-size", 0, ST_OPT_CALLBACK, &ao.max_body,
		       "SIZE", "the largest answer taken, e.g. 512M or 2G "
		       "(default 256M); a larger one fails the run", 0),
		  .cb = st_opt_cb_http_size },
		ST_OPT_END_ROW,
	};
	const char *prog = jobs_desc.path;
	enum st_distiller_schema found = ST_DISTILLER_SCHEMA_AUTO;
	struct outputs out = { 0 };
	size_t opened = 0;
	bool made_dir = false;
	st_log log;
	st_error err;
	int n, rc;

	if ((rc = st_opt_parse(&jobs_desc, opts, argc, argv, &n)) !=
	    ST_OPT_CONTINUE)
		goto out;
	rc = ST_EXIT_USAGE;
	po.dsn = dsn;
	ao.url = url;
	po.schema = schema_values[schema];
	po.timeout_s = ao.timeout_s = (long)(tmo / ST_NS_PER_SEC);
	ao.retries = (int)retries;
	ao.page_size = (long)page_size;
	q.n_sizes = sizes.n;
	if (!dir || !*dir) {
		rc = st_msg_usage(prog, "--out-dir is required");
		goto out;
	}
	if (ao.url && (po.dsn || po.schema != ST_DISTILLER_SCHEMA_AUTO)) {
		rc = st_msg_usage(prog, "--api reads the REST API: --dsn and "
				  "--schema are for PostgreSQL");
		goto out;
	}
	if (!ao.url && (ao.api_key_header || token_file || ao.cacert ||
			ao.page_size || ao.max_body)) {
		rc = st_msg_usage(prog, "--api-key-header, --token-file, --cacert, "
				  "--page-size and --max-response-size need "
				  "--api URL");
		goto out;
	}
	if (q.n_sizes) {
		q.sizes = sizes.v;
	} else {
		q.sizes = paper_sizes;
		q.n_sizes = sizeof(paper_sizes) / sizeof(paper_sizes[0]);
	}
	st_log_stderr(&log);
	if (ao.url) {
		const char *env = getenv("DISTILLER_TOKEN");

		if (token_file) {
			if (!(token = st_secret_read(token_file, &err))) {
				rc = st_msg_fail(&err);
				goto out;
			}
		} else if (env && *env && !(token = strdup(env))) {
			rc = st_msg_usage(prog, "out of memory");
			goto out;
		}
		ao.token = token;
		ao.api_key = getenv("DISTILLER_API_KEY");
		if (ao.api_key && !*ao.api_key)
			ao.api_key = NULL;
		if (!ao.token && !ao.api_key)
			st_msg_verbose("no $DISTILLER_API_KEY, --token-file or "
				       "$DISTILLER_TOKEN: asking without "
				       "credentials");
	}

	{
		struct stat st;

		made_dir = stat(dir, &st) != 0;
	}
	if (st_mkdir_p(dir, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	out.files = calloc(q.n_sizes, sizeof(*out.files));
	out.rows = calloc(q.n_sizes, sizeof(*out.rows));
	if (!out.files || !out.rows) {
		rc = st_msg_usage(prog, "out of memory");
		goto out;
	}
	for (; opened < q.n_sizes; opened++) {
		char name[64], *path;
		int ok;

		snprintf(name, sizeof(name), "%" PRId64 "_%" PRId64 ".csv",
			 q.sizes[opened], q.sizes[opened]);
		if (!(path = st_path_join(dir, name))) {
			rc = st_msg_usage(prog, "out of memory");
			goto out;
		}
		ok = st_atomic_open(&out.files[opened], path, &err);
		free(path);
		if (ok < 0) {
			rc = st_msg_fail(&err);
			goto out;
		}
		if (fputs("id,slurm_id,elapsed\n", out.files[opened].fp) < 0) {
			opened++;
			st_error_set(&err, ST_EXIT_IOERR, "cannot write %s: %s",
				     out.files[opened - 1].path,
				     strerror(errno));
			rc = st_msg_fail(&err);
			goto out;
		}
	}

	if (ao.url ? st_distiller_api_fetch(&ao, &q, write_row, &out, &log,
					    &err) < 0 :
		     st_distiller_pg_fetch(&po, &q, write_row, &out, &found,
					   &log, &err) < 0) {
		rc = err.code == ST_EXIT_USAGE ? st_msg_usage(prog, "%s", err.text)
					       : st_msg_fail(&err);
		goto out;
	}
	if (!ao.url)
		st_msg_verbose("distiller jobs: %s schema",
			       st_distiller_schema_name(found));
	/* all or nothing: every file complete on disk before the first is
	 * renamed */
	for (size_t i = 0; i < q.n_sizes; i++)
		if (st_atomic_prepare(&out.files[i], &err) < 0) {
			rc = st_msg_fail(&err);
			goto out;
		}
	for (size_t i = 0; i < q.n_sizes; i++) {
		if (st_atomic_commit(&out.files[i], &err) < 0) {
			/* only a rename or directory sync fails here */
			rc = st_msg_fail(&err);
			goto out;
		}
		st_msg_info("distiller jobs: %zu rows for %" PRId64 "x%" PRId64
			    " in %s/%" PRId64 "_%" PRId64 ".csv", out.rows[i],
			    q.sizes[i], q.sizes[i], dir, q.sizes[i],
			    q.sizes[i]);
	}
	opened = 0;
	made_dir = false;
	rc = ST_EXIT_OK;
out:
	for (size_t i = 0; i < opened; i++)
		st_atomic_abort(&out.files[i]);
	if (made_dir && rc != ST_EXIT_OK)
		(void)rmdir(dir);       /* made by this run, left empty */
	if (dsn) {
		explicit_bzero(dsn, strlen(dsn));
		free(dsn);
	}
	if (url) {
		explicit_bzero(url, strlen(url));
		free(url);
	}
	free(out.files);
	free(out.rows);
	if (token) {
		explicit_bzero(token, strlen(token));
		free(token);
	}
	free(sizes.v);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "jobs", distiller_jobs, "the job table per scan size", NULL },
};

ST_CMD_GROUP(st_distiller_group, "streamtime distiller", subcommands);

int cmd_distiller(int argc, char **argv)
{
	return st_cmd_dispatch(&st_distiller_group, argc, argv);
}
