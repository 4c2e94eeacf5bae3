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
#include "streamtime/slurm_run.h"
#include "streamtime/slurmrest.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

static const struct st_cmd_desc jobs_desc = {
	.path = "streamtime slurm jobs",
	.description =
	"Slurm accounting rows with the header of the paper's slurm_job_info.csv:\n"
	"  Job Name,Job ID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,User,ExitCode\n"
	"By default sacct runs (binary: $STREAMTIME_SACCT, else sacct on PATH) over\n"
	"contiguous --window-days windows from --since to --until, with a rare\n"
	"delimiter and JobName last, so no job name can break a row.  Steps are\n"
	"dropped and each job id is kept once.\n"
	"slurmrestd v0.0.38/v0.0.39 say ExitCode 0:0 for failed jobs: there a job\n"
	"whose state is FAILED, TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY,\n"
	"BOOT_FAIL, DEADLINE or PREEMPTED gets 1:0 (a warning counts them), so that\n"
	"--exit-code 0:0 drops it.\n",
	.required_msg = "--out is required",
};

static int set_user(const struct st_option *o, char *arg,
                    st_error *err)
{
	(void)err;
	*(const char **)o->target = *arg ? arg : NULL;     /* empty: no filter */
	return 0;
}

/* Options that exclude each other or need --rest; the exit status or 0.
 * REST_ONLY: --token-file or --timeout given. */
static int check_options(const char *prog, const char *input, bool range,
			 const st_sacct_opts *so, const st_slurmrest_opts *ro,
			 bool rest_only)
{
	if (so->user && so->all_users)
		return st_msg_usage(prog, "--user and --allusers exclude each "
				    "other");
	if (input && (range || so->all_users || ro->url))
		return st_msg_usage(prog, "--input reads a dump: --since, "
				    "--until, --allusers and --rest are for "
				    "live queries");
	if (!ro->url && (rest_only || ro->cacert || ro->version || ro->user ||
			 ro->max_body))
		return st_msg_usage(prog, "--token-file, --cacert, "
				    "--api-version, --rest-user, --timeout and "
				    "--max-response-size need --rest URL");
	if (ro->url && so->all_users)
		return st_msg_usage(prog, "--allusers is for sacct; slurmrestd "
				    "returns what the token may see");
	return 0;
}

/* Load the zone, read the slurmrestd token (--token-file, else
 * $SLURM_JWT), run and say what was written.  Returns the exit status. */
static int run_jobs(const char *prog, st_slurm_jobs_opts *jo,
		    const char *token_file)
{
	const char *env = getenv("SLURM_JWT");
	st_slurm_jobs_result res;
	st_log notes, log;
	char *token = NULL;
	st_tz *tz;
	st_error err;
	int rc;

	st_log_stderr(&log);
	st_log_verbose(&notes);
	if (!(tz = st_tz_load(jo->zone, &err)))
		return st_msg_fail(&err);
	if (!jo->input && jo->rest.url) {
		if (token_file) {
			if (!(token = st_secret_read(token_file, &err))) {
				st_tz_free(tz);
				return st_msg_fail(&err);
			}
		} else if (env && *env && !(token = strdup(env))) {
			st_tz_free(tz);
			st_msg_error("out of memory");
			return ST_EXIT_IOERR;
		}
	}
	jo->rest.token = token;
	jo->tz = tz;
	jo->sacct.notes = &notes;
	if (st_slurm_jobs_run(jo, &res, &log, &err) < 0) {
		rc = st_msg_fail_usage(prog, &err);
	} else {
		st_msg_info("slurm jobs: %zu rows read, %zu kept, written to %s",
			    res.fetched, res.kept, strcmp(jo->out, "-") ?
			    jo->out : "stdout");
		rc = st_finish_stdout(ST_EXIT_OK);
	}
	st_secret_free(token);
	st_tz_free(tz);
	return rc;
}

static int slurm_jobs(int argc, char **argv)
{
	const char *out = NULL, *since = NULL, *until = NULL, *input = NULL;
	const char *delim = NULL, *zone = "UTC", *token_file = NULL;
	st_slurmrest_opts ro = { .timeout_s = 60, .retries = 3 };
	char *url = NULL;
	st_duration tmo = 0;            /* 0: not given, 60 s */
	st_slurm_filter f = {
		.name_contains = "distiller-count", .req_nodes = "4",
		.qos_contains = "realtime_", .exit_code = "0:0", .need_start = true,
	};
	st_sacct_opts so = { 0 };
	int64_t days = 30;
	const struct st_option opts[] = {
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "the CSV ('-' for stdout)", ST_OPT_REQUIRED) },
		{ ST_O("since", 0, ST_OPT_STRING, &since, "T",
		       "an ISO date/time, naive in --tz (default: 30 days before "
		       "--until)", 0) },
		{ ST_O("until", 0, ST_OPT_STRING, &until, "T",
		       "an ISO date/time, naive in --tz (default: now)", 0) },
		{ ST_O("window-days", 0, ST_OPT_INT, &days, "N",
		       "days per sacct query (default 30; halved when Slurm "
		       "refuses a range as too large)", 0), .min = 1,
		  .max = 3660, .expect = "1 to 3660" },
		{ ST_O("tz", 0, ST_OPT_ZONE, &zone, "ZONE",
		       "zone of sacct's naive times (default UTC; sacct runs with "
		       "TZ=ZONE)", 0) },
		{ ST_O("user", 0, ST_OPT_CALLBACK, &so.user, "U",
		       "passed to sacct", 0), .cb = set_user },
		{ ST_O("allusers", 'a', ST_OPT_FLAG, &so.all_users, NULL,
		       "passed to sacct", 0) },
		{ ST_O("input", 0, ST_OPT_PATH, &input, "FILE",
		       "parse a saved dump instead (sacct -P or -p output with its "
		       "header, any column order)", 0) },
		{ ST_O("delimiter", 0, ST_OPT_CALLBACK, &delim, "D",
		       "the dump's delimiter (default: '|' or ',' from the header)",
		       0), .cb = st_opt_cb_nonempty },
		{ ST_O("rest", 0, ST_OPT_CALLBACK, &url, "URL",
		       "query slurmrestd instead (GET /slurmdb/vX/jobs per "
		       "window); token from $SLURM_JWT or --token-file, user from "
		       "--rest-user or $USER; never printed.  No password in URL: "
		       "the process list shows it", 0),
		  .expect = "give a token in $SLURM_JWT or --token-file",
		  .cb = st_opt_cb_url },
		{ ST_O("token-file", 0, ST_OPT_PATH, &token_file, "F",
		       "the slurmrestd token file (else $SLURM_JWT)", 0) },
		{ ST_O("rest-user", 0, ST_OPT_STRING, &ro.user, "U",
		       "the slurmrestd user name (default $USER)", 0) },
		{ ST_O("api-version", 0, ST_OPT_STRING, &ro.version, "V",
		       "v0.0.38..v0.0.41 (default: detected)", 0) },
		{ ST_O("cacert", 0, ST_OPT_PATH, &ro.cacert, "FILE",
		       "CA bundle for https", 0) },
		{ ST_O("timeout", 0, ST_OPT_SECONDS, &tmo, "S",
		       "the most one request to slurmrestd may take, its 3 retries "
		       "(connection errors, 5xx) included (default 60): a silent "
		       "server fails the run after S seconds", ST_OPT_WHOLE),
		  .max = 86400, .expect = "whole seconds, 1 to 86400" },
		{ ST_O("max-response-size", 0, ST_OPT_CALLBACK, &ro.max_body,
		       "SIZE", "the largest answer taken, e.g. 512M or 2G "
		       "(default 256M); a larger one fails the run", 0),
		  .cb = st_opt_cb_http_size },
		ST_OPT_GROUP_ROW("filters (the paper's defaults; an empty value "
				 "turns one off):"),
		{ ST_O("name-contains", 0, ST_OPT_STRING, &f.name_contains, "S",
		       "default 'distiller-count'", 0) },
		{ ST_O("req-nodes", 0, ST_OPT_STRING, &f.req_nodes, "N",
		       "default 4", 0) },
		{ ST_O("qos-contains", 0, ST_OPT_STRING, &f.qos_contains, "S",
		       "default 'realtime_'", 0) },
		{ ST_O("exit-code", 0, ST_OPT_STRING, &f.exit_code, "C",
		       "default '0:0'", 0) },
		{ ST_O("any-start", 0, ST_OPT_UNSET, &f.need_start, NULL,
		       "keep jobs that never started (Start Unknown/None)", 0) },
		ST_OPT_END_ROW,
	};
	const char *prog = jobs_desc.path;
	st_slurm_jobs_opts jo = { 0 };
	int n, rc;

	if (!st_opt_go(&jobs_desc, opts, argc, argv, &n, &rc))
		goto out;
	f.user = so.user;
	ro.url = url;
	if (tmo)
		ro.timeout_s = (long)(tmo / ST_NS_PER_SEC);
	if (!(rc = check_options(prog, input, since || until, &so, &ro,
				 token_file || tmo))) {
		so.window = days * 86400;
		jo = (st_slurm_jobs_opts){
			.out = out, .input = input, .delim = delim,
			.zone = zone, .since = since, .until = until,
			.filter = f, .sacct = so, .rest = ro,
		};
		rc = run_jobs(prog, &jo, token_file);
	}
out:
	st_secret_free(url);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "jobs", slurm_jobs, "accounting rows from sacct or a saved dump", NULL },
};

ST_CMD_GROUP_FN(cmd_slurm, st_slurm_group, "streamtime slurm", subcommands)
