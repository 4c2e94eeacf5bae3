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

static const char jobs_usage[] =
	"usage: streamtime distiller jobs --out-dir DIR [--size N]...\n"
	"                                 [--dsn DSN] [--schema auto|legacy|current]\n"
	"                                 [--api URL [--api-key-header H]\n"
	"                                 [--token-file F] [--cacert F] [--retries N]\n"
	"                                 [--page-size N] [--max-response-size SIZE]]\n"
	"                                 [--job-type T] [--timeout S]\n"
	"\n"
	"Writes DIR/{N}_{N}.csv with `id,slurm_id,elapsed` for every scan/job pair\n"
	"whose scan has both dimensions equal to N: scans.id, jobs.slurm_id and\n"
	"jobs.elapsed as HH:MM:SS (hours count past 24: 26:00:00; a fraction only\n"
	"when non-zero); an empty field for NULL.  Rows in job id, then scan id\n"
	"order.  Every file is written atomically; a failed run writes none.\n"
	"\n"
	"  --out-dir DIR      where the CSVs go (created if missing)\n"
	"  --size N           a scan size (repeatable or N,N,...; default the\n"
	"                     paper's 128, 256, 512 and 1024)\n"
	"  --job-type T       only jobs of this type, e.g. count (default: all)\n"
	"  --dsn DSN          libpq conninfo ('host=H dbname=D user=U') or URI\n"
	"                     (postgresql://U@H/D); default: the PG* environment.\n"
	"                     Put the password in ~/.pgpass or $PGPASSFILE, not in\n"
	"                     DSN: a command line is visible to every local user\n"
	"  --schema S         legacy (jobs.scan_id), current (scan_job_table) or\n"
	"                     auto (default: read from the catalog)\n"
	"  --timeout S        connect timeout for PostgreSQL (when neither DSN nor\n"
	"                     $PGCONNECT_TIMEOUT sets one); for the API the most one\n"
	"                     request may take, its retries included (default 30)\n"
	"  --api URL          the Distiller REST API instead (GET URL/api/v1/jobs,\n"
	"                     paged, and URL/api/v1/scans/ID once per scan).  No\n"
	"                     password in URL: the process list shows it\n"
	"  --api-key-header H header for $DISTILLER_API_KEY (default X-API-KEY)\n"
	"  --token-file F     bearer token file (else $DISTILLER_TOKEN)\n"
	"  --cacert F         CA bundle for https\n"
	"  --retries N        extra attempts on connection errors and 5xx (default 3)\n"
	"  --page-size N      jobs per page (default 100)\n"
	"  --max-response-size SIZE  the largest answer taken, e.g. 512M or 2G\n"
	"                     (default 256M); a larger one fails the run\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

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

/* Parse "N" or "N,N,..." into the growing size list, rejecting anything
 * but positive integers and repeats. */
static int push_sizes(const char *prog, const char *arg, int64_t **v,
		      size_t *n)
{
	const char *p = arg;

	for (;;) {
		size_t len = strspn(p, "0123456789");
		int64_t x = 0, *grown;

		/* digits only: no sign, space or empty item */
		if (len == 0 || len > 9 || (p[len] && p[len] != ','))
			return st_msg_usage(prog, "--size '%s': expected positive "
					    "integers, e.g. 128 or 128,256", arg);
		for (size_t i = 0; i < len; i++)
			x = x * 10 + (p[i] - '0');
		if (x < 1)
			return st_msg_usage(prog, "--size '%s': a size must be "
					    "positive", arg);
		for (size_t i = 0; i < *n; i++)
			if ((*v)[i] == x)
				return st_msg_usage(prog, "--size %" PRId64
						    " given twice", x);
		if (!(grown = realloc(*v, (*n + 1) * sizeof(**v))))
			return st_msg_usage(prog, "out of memory");
		*v = grown;
		(*v)[(*n)++] = x;
		p += len;
		if (!*p)
			return 0;
		p++;            /* the comma */
	}
}

static int distiller_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out-dir", required_argument, NULL, 'o' },
		{ "size", required_argument, NULL, 's' },
		{ "job-type", required_argument, NULL, 'j' },
		{ "dsn", required_argument, NULL, 'd' },
		{ "schema", required_argument, NULL, 'S' },
		{ "timeout", required_argument, NULL, 't' },
		{ "api", required_argument, NULL, 'A' },
		{ "api-key-header", required_argument, NULL, 'H' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "retries", required_argument, NULL, 'r' },
		{ "page-size", required_argument, NULL, 'p' },
		{ "max-response-size", required_argument, NULL, 'M' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	static const int64_t paper_sizes[] = { 128, 256, 512, 1024 };
	const char *prog = "streamtime distiller jobs";
	const char *dir = NULL, *token_file = NULL;
	st_distiller_pg_opts po = { .timeout_s = 30 };
	st_distiller_api_opts ao = { .timeout_s = 30, .retries = 3 };
	enum st_distiller_schema found = ST_DISTILLER_SCHEMA_AUTO;
	st_distiller_query q = { 0 };
	struct outputs out = { 0 };
	int64_t *sizes = NULL, x;
	char *token = NULL, *dsn = NULL, *url = NULL;
	size_t opened = 0;
	bool made_dir = false;
	st_duration tmo;
	st_log log;
	st_error err;
	int c, rc = ST_EXIT_USAGE;

	while ((c = getopt_long(argc, argv, "hqv", opts, NULL)) != -1) {
		switch (c) {
		case 'o': dir = optarg; break;
		case 's':
			if (push_sizes(prog, optarg, &sizes, &q.n_sizes))
				goto out;
			break;
		case 'j':
			if (!*optarg) {
				rc = st_msg_usage(prog, "--job-type: empty");
				goto out;
			}
			q.job_type = optarg;
			break;
		case 'd':
			free(dsn);
			if (!(dsn = strdup(optarg))) {
				rc = st_msg_usage(prog, "out of memory");
				goto out;
			}
			po.dsn = dsn;
			if (st_distiller_dsn_has_password(dsn)) {
				/* out of the process list (ps, /proc/PID/
				 * cmdline) from now on; it was there until
				 * here */
				memset(optarg, '*', strlen(optarg));
				st_msg_warn("--dsn holds a password, which "
					    "other local users could read in "
					    "the process list: put it in "
					    "~/.pgpass or $PGPASSFILE instead");
			}
			break;
		case 'S':
			if (!strcmp(optarg, "legacy"))
				po.schema = ST_DISTILLER_SCHEMA_LEGACY;
			else if (!strcmp(optarg, "current"))
				po.schema = ST_DISTILLER_SCHEMA_CURRENT;
			else if (!strcmp(optarg, "auto"))
				po.schema = ST_DISTILLER_SCHEMA_AUTO;
			else {
				rc = st_msg_usage(prog, "--schema '%s': expected "
						  "auto, legacy or current",
						  optarg);
				goto out;
			}
			break;
		case 't':
			if (st_parse_seconds(optarg, false, 86400, &tmo) < 0 ||
			    tmo % ST_NS_PER_SEC) {
				rc = st_msg_usage(prog, "--timeout '%s': expected "
						  "whole seconds, 1 to 86400",
						  optarg);
				goto out;
			}
			po.timeout_s = ao.timeout_s = (long)(tmo / ST_NS_PER_SEC);
			break;
		case 'A':
			if (url) {
				explicit_bzero(url, strlen(url));
				free(url);
			}
			if (!(url = st_url_arg_take("--api", optarg, "give an "
						    "API key in "
						    "$DISTILLER_API_KEY or a "
						    "token in --token-file or "
						    "$DISTILLER_TOKEN"))) {
				rc = st_msg_usage(prog, "out of memory");
				goto out;
			}
			ao.url = url;
			break;
		case 'M':
			if (st_http_parse_size(optarg, &ao.max_body) < 0) {
				rc = st_msg_usage(prog, "--max-response-size '%s': "
						  "expected a size such as "
						  "65536, 64K, 256M or 1G", optarg);
				goto out;
			}
			break;
		case 'H':
			if (!*optarg || strpbrk(optarg, ": \t\r\n")) {
				rc = st_msg_usage(prog, "--api-key-header '%s': "
						  "not a header name", optarg);
				goto out;
			}
			ao.api_key_header = optarg;
			break;
		case 'T': token_file = optarg; break;
		case 'C': ao.cacert = optarg; break;
		case 'r':
			if (st_num_parse_int(optarg, &x) < 0 || strchr(optarg, '.') ||
			    x < 0 || x > 20) {
				rc = st_msg_usage(prog, "--retries '%s': expected "
						  "0 to 20", optarg);
				goto out;
			}
			ao.retries = (int)x;
			break;
		case 'p':
			if (st_num_parse_int(optarg, &x) < 0 || strchr(optarg, '.') ||
			    x < 1 || x > 100000) {
				rc = st_msg_usage(prog, "--page-size '%s': expected "
						  "1 to 100000", optarg);
				goto out;
			}
			ao.page_size = (long)x;
			break;
		case 'h':
			fputs(jobs_usage, stdout);
			rc = st_finish_stdout(ST_EXIT_OK);
			goto out;
		default:
			if (st_common_option(c))
				break;
			rc = st_msg_usage(prog, "bad option");
			goto out;
		}
	}
	if (optind < argc) {
		rc = st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
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
		q.sizes = sizes;
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
	free(sizes);
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
