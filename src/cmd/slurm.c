/* slurm.c - `streamtime slurm jobs` (SPEC 5.4). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/csv.h"
#include "streamtime/http.h"
#include "streamtime/num.h"
#include "streamtime/sacct.h"
#include "streamtime/slurm.h"
#include "streamtime/slurmrest.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

static const char jobs_usage[] =
	"usage: streamtime slurm jobs --out FILE [--since T] [--until T]\n"
	"                             [--window-days N] [--input FILE [--delimiter D]]\n"
	"                             [--rest URL [--token-file F] [--cacert F]\n"
	"                             [--api-version V] [--timeout S]\n"
	"                             [--max-response-size SIZE]]\n"
	"                             [--tz ZONE] [--user U | -a] [filters]\n"
	"\n"
	"Slurm accounting rows with the header of the paper's slurm_job_info.csv:\n"
	"  Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,User,ExitCode\n"
	"By default sacct runs (binary: $STREAMTIME_SACCT, else sacct on PATH) over\n"
	"contiguous --window-days windows from --since to --until, with a rare\n"
	"delimiter and JobName last, so no job name can break a row.  Steps are\n"
	"dropped and each job id is kept once.\n"
	"\n"
	"  --out FILE            the CSV ('-' for stdout)\n"
	"  --since T, --until T  ISO dates/times, naive ones in --tz (default: the\n"
	"                        last 30 days up to now)\n"
	"  --window-days N       days per sacct query (default 30; halved when Slurm\n"
	"                        refuses a range as too large)\n"
	"  --tz ZONE             zone of sacct's naive times (default UTC; sacct\n"
	"                        runs with TZ=ZONE)\n"
	"  --user U / -a, --allusers   passed to sacct\n"
	"  --input FILE          parse a saved dump instead (sacct -P or -p output\n"
	"                        with its header, any column order)\n"
	"  --delimiter D         the dump's delimiter (default: '|' or ',' from the\n"
	"                        header)\n"
	"  --rest URL            query slurmrestd instead (GET /slurmdb/vX/jobs per\n"
	"                        window); token from $SLURM_JWT or --token-file,\n"
	"                        user from --rest-user or $USER; never printed.\n"
	"                        No password in URL: the process list shows it\n"
	"  --api-version V       v0.0.38..v0.0.41 (default: detected)\n"
	"  --cacert FILE         CA bundle for https\n"
	"  --timeout S           the most one request to slurmrestd may take, its\n"
	"                        3 retries (connection errors, 5xx) included\n"
	"                        (default 60): a silent server fails the run after\n"
	"                        S seconds\n"
	"  --max-response-size SIZE  the largest answer taken, e.g. 512M or 2G\n"
	"                        (default 256M); a larger one fails the run\n"
	"filters (the paper's defaults; an empty value turns one off):\n"
	"  --name-contains S     default 'distiller-count'\n"
	"  --req-nodes N         default 4\n"
	"  --qos-contains S      default 'realtime_'\n"
	"  --exit-code C         default '0:0'\n"
	"  --any-start           keep jobs that never started (Start Unknown/None)\n"
	"  -q, --quiet / -v, --verbose / -h, --help\n";

/* Parse T (ISO date/time; naive in TZ) to epoch seconds. */
static int parse_when(const char *s, const st_tz *tz, int64_t *out)
{
	st_instant t;

	if (st_time_parse(s, tz, &t, NULL, NULL) < 0)
		return -1;
	*out = t / ST_NS_PER_SEC;
	return 0;
}

static int slurm_jobs(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'E' },
		{ "window-days", required_argument, NULL, 'w' },
		{ "tz", required_argument, NULL, 'z' },
		{ "user", required_argument, NULL, 'u' },
		{ "allusers", no_argument, NULL, 'a' },
		{ "input", required_argument, NULL, 'i' },
		{ "delimiter", required_argument, NULL, 'd' },
		{ "name-contains", required_argument, NULL, 'n' },
		{ "req-nodes", required_argument, NULL, 'r' },
		{ "qos-contains", required_argument, NULL, 'Q' },
		{ "exit-code", required_argument, NULL, 'x' },
		{ "any-start", no_argument, NULL, 'A' },
		{ "rest", required_argument, NULL, 'R' },
		{ "token-file", required_argument, NULL, 'T' },
		{ "cacert", required_argument, NULL, 'C' },
		{ "api-version", required_argument, NULL, 'V' },
		{ "rest-user", required_argument, NULL, 'U' },
		{ "timeout", required_argument, NULL, 't' },
		{ "max-response-size", required_argument, NULL, 'M' },
		ST_COMMON_LONGOPTS,
		{ NULL, 0, NULL, 0 },
	};
	const char *prog = "streamtime slurm jobs";
	const char *out = NULL, *since = NULL, *until = NULL, *input = NULL;
	const char *delim = NULL, *zone = "UTC", *token_file = NULL;
	st_slurmrest_opts ro = { .timeout_s = 60, .retries = 3 };
	char *token = NULL, *url = NULL;
	bool rest_opts = false;
	st_duration tmo;
	st_slurm_filter f = {
		.name_contains = "distiller-count", .req_nodes = "4",
		.qos_contains = "realtime_", .exit_code = "0:0", .need_start = true,
	};
	st_sacct_opts so = { 0 };
	st_slurm_jobs jobs = { 0 };
	st_log notes, log;
	st_atomic_file af;
	st_tz *tz = NULL;
	st_error err;
	int64_t days = 30;
	size_t fetched, dropped;
	int c, rc = ST_EXIT_USAGE;

	while ((c = getopt_long(argc, argv, "hqva", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'S': since = optarg; break;
		case 'E': until = optarg; break;
		case 'z': zone = optarg; break;
		case 'u':       /* empty: no user filter */
			so.user = *optarg ? optarg : NULL;
			f.user = so.user;
			break;
		case 'a': so.all_users = true; break;
		case 'i': input = optarg; break;
		case 'd':
			if (!*optarg) {
				rc = st_msg_usage(prog, "--delimiter: empty");
				goto out;
			}
			delim = optarg;
			break;
		case 'n': f.name_contains = optarg; break;
		case 'r': f.req_nodes = optarg; break;
		case 'Q': f.qos_contains = optarg; break;
		case 'x': f.exit_code = optarg; break;
		case 'A': f.need_start = false; break;
		case 'R':
			if (url) {
				explicit_bzero(url, strlen(url));
				free(url);
			}
			if (!(url = st_url_arg_take("--rest", optarg, "give a "
						    "token in $SLURM_JWT or "
						    "--token-file"))) {
				rc = st_msg_usage(prog, "out of memory");
				goto out;
			}
			ro.url = url;
			break;
		case 't':
			if (st_parse_seconds(optarg, false, 86400, &tmo) < 0 ||
			    tmo % ST_NS_PER_SEC) {
				rc = st_msg_usage(prog, "--timeout '%s': expected "
						  "whole seconds, 1 to 86400",
						  optarg);
				goto out;
			}
			ro.timeout_s = (long)(tmo / ST_NS_PER_SEC);
			rest_opts = true;
			break;
		case 'M':
			if (st_http_parse_size(optarg, &ro.max_body) < 0) {
				rc = st_msg_usage(prog, "--max-response-size '%s': "
						  "expected a size such as "
						  "65536, 64K, 256M or 1G", optarg);
				goto out;
			}
			rest_opts = true;
			break;
		case 'T': token_file = optarg; break;
		case 'C': ro.cacert = optarg; break;
		case 'V': ro.version = optarg; break;
		case 'U': ro.user = optarg; break;
		case 'w':
			if (st_num_parse_int(optarg, &days) < 0 || strchr(optarg, '.') ||
			    days < 1 || days > 3660) {
				rc = st_msg_usage(prog, "--window-days '%s': "
						  "expected 1 to 3660", optarg);
				goto out;
			}
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
	if (optind < argc)
		rc = st_msg_usage(prog, "unexpected argument '%s'", argv[optind]);
	else if (!out)
		rc = st_msg_usage(prog, "--out is required");
	else if (so.user && so.all_users)
		rc = st_msg_usage(prog, "--user and --allusers exclude each other");
	else if (input && (since || until || so.all_users || ro.url))
		rc = st_msg_usage(prog, "--input reads a dump: --since, --until, "
				  "--allusers and --rest are for live queries");
	else if (!ro.url && (token_file || ro.cacert || ro.version || ro.user ||
			     rest_opts))
		rc = st_msg_usage(prog, "--token-file, --cacert, --api-version, "
				  "--rest-user, --timeout and "
				  "--max-response-size need --rest URL");
	else if (ro.url && so.all_users)
		rc = st_msg_usage(prog, "--allusers is for sacct; slurmrestd "
				  "returns what the token may see");
	else
		rc = ST_EXIT_OK;
	if (rc != ST_EXIT_OK)
		goto out;
	rc = ST_EXIT_USAGE;
	st_log_stderr(&log);
	st_log_verbose(&notes);
	tz = st_tz_load(zone, &err);
	if (!tz) {
		rc = st_msg_fail(&err);
		goto out;
	}
	if (input) {
		size_t len;
		char *buf = st_file_read(input, &len, &err);

		if (!buf || st_sacct_parse_dump(buf, len, input, delim, &jobs,
						&err) < 0) {
			free(buf);
			rc = st_msg_fail(&err);
			goto out;
		}
		free(buf);
	} else {
		int64_t now = (int64_t)time(NULL);

		if (ro.url) {
			const char *env = getenv("SLURM_JWT");

			if (token_file) {
				token = st_secret_read(token_file, &err);
				if (!token) {
					rc = st_msg_fail(&err);
					goto out;
				}
			} else if (env && *env) {
				token = strdup(env);
			}
			ro.token = token;
			ro.tz = tz;
		}
		so.sacct = getenv("STREAMTIME_SACCT");
		if (!so.sacct || !*so.sacct)
			so.sacct = "sacct";
		so.tz = zone;
		so.window = days * 86400;
		so.notes = &notes;
		so.log = &log;
		so.until = now;
		so.since = now - 30 * 86400;
		if (until && parse_when(until, tz, &so.until) < 0) {
			rc = st_msg_usage(prog, "--until '%s': not a date/time", until);
			goto out;
		}
		if (since && parse_when(since, tz, &so.since) < 0) {
			rc = st_msg_usage(prog, "--since '%s': not a date/time", since);
			goto out;
		}
		if (so.since >= so.until) {
			rc = st_msg_usage(prog, "--since must be before --until");
			goto out;
		}
		if (ro.url ? st_slurmrest_fetch(&ro, so.since, so.until, so.window,
						so.user, &jobs, &log, &err) < 0 :
			     st_sacct_fetch(&so, &jobs, &err) < 0) {
			rc = err.code == ST_EXIT_USAGE ? st_msg_usage(prog, "%s", err.text) :
			     st_msg_fail(&err);
			goto out;
		}
	}
	fetched = jobs.n;
	dropped = st_slurm_filter_apply(&jobs, &f);
	if (st_atomic_open(&af, out, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	if (st_slurm_jobs_write(af.fp, &jobs) < 0) {
		st_atomic_abort(&af);
		st_msg_error("cannot write %s: %s", out, strerror(errno));
		rc = ST_EXIT_IOERR;
		goto out;
	}
	if (st_atomic_commit(&af, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	st_msg_info("slurm jobs: %zu rows read, %zu kept, written to %s", fetched,
		    fetched - dropped, strcmp(out, "-") ? out : "stdout");
	rc = st_finish_stdout(ST_EXIT_OK);
out:
	if (url) {
		explicit_bzero(url, strlen(url));
		free(url);
	}
	if (token) {
		/* wipe the secret before the memory goes back */
		explicit_bzero(token, strlen(token));
		free(token);
	}
	st_slurm_jobs_release(&jobs);
	st_tz_free(tz);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "jobs", slurm_jobs, "accounting rows from sacct or a saved dump", NULL },
};

ST_CMD_GROUP(st_slurm_group, "streamtime slurm", subcommands);

int cmd_slurm(int argc, char **argv)
{
	return st_cmd_dispatch(&st_slurm_group, argc, argv);
}
