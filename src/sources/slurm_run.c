/* slurm_run.c - `slurm jobs` at file level: read, filter, write. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "streamtime/atomic.h"
#include "streamtime/file.h"
#include "streamtime/slurm_run.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

/* Parse T (ISO date/time; naive in TZ) to epoch seconds. */
static int parse_when(const char *s, const st_tz *tz, int64_t *out)
{
	st_instant t;

	if (st_time_parse(s, tz, &t, NULL, NULL) < 0)
		return -1;
	*out = t / ST_NS_PER_SEC;
	return 0;
}

static int read_dump(const st_slurm_jobs_opts *o, st_slurm_jobs *jobs,
		     st_error *err)
{
	size_t len;
	char *buf = st_file_read(o->input, &len, err);
	int rc = buf ? st_sacct_parse_dump(buf, len, o->input, o->delim, jobs,
					   err) : -1;

	free(buf);
	return rc;
}

/* The range of a live query into SO (epoch seconds). */
static int query_range(const st_slurm_jobs_opts *o, const st_tz *tz,
		       st_sacct_opts *so, st_error *err)
{
	int64_t now = (int64_t)time(NULL);

	so->until = now;
	so->since = now - 30 * 86400;
	if (o->until && parse_when(o->until, tz, &so->until) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--until '%s': not a "
				    "date/time", o->until);
	if (o->since && parse_when(o->since, tz, &so->since) < 0)
		return st_error_set(err, ST_EXIT_USAGE, "--since '%s': not a "
				    "date/time", o->since);
	if (so->since >= so->until)
		return st_error_set(err, ST_EXIT_USAGE, "--since must be before "
				    "--until");
	return 0;
}

/* sacct or slurmrestd over the range. */
static int fetch_live(const st_slurm_jobs_opts *o, st_slurm_jobs *jobs,
		      st_log *log, st_error *err)
{
	st_slurmrest_opts ro = o->rest;
	st_sacct_opts so = o->sacct;

	ro.tz = o->tz;
	so.sacct = getenv("STREAMTIME_SACCT");
	if (!so.sacct || !*so.sacct)
		so.sacct = "sacct";
	so.tz = o->zone;
	so.log = log;
	if (query_range(o, o->tz, &so, err) < 0)
		return -1;
	return ro.url ? st_slurmrest_fetch(&ro, so.since, so.until, so.window,
					   so.user, jobs, log, err) :
			st_sacct_fetch(&so, jobs, err);
}

static int write_jobs(const char *out, const st_slurm_jobs *jobs,
		      st_error *err)
{
	st_atomic_file af;

	if (st_atomic_open(&af, out, err) < 0)
		return -1;
	if (st_slurm_jobs_write(af.fp, jobs) < 0) {
		int e = errno;

		st_atomic_abort(&af);
		return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				    out, strerror(e));
	}
	return st_atomic_commit(&af, err);
}

int st_slurm_jobs_run(const st_slurm_jobs_opts *o, st_slurm_jobs_result *res,
		      st_log *log, st_error *err)
{
	st_slurm_jobs jobs = { 0 };
	int rc = -1;

	*res = (st_slurm_jobs_result){ 0 };
	if (o->input ? read_dump(o, &jobs, err) : fetch_live(o, &jobs, log, err))
		goto out;
	res->fetched = jobs.n;
	res->kept = jobs.n - st_slurm_filter_apply(&jobs, &o->filter);
	rc = write_jobs(o->out, &jobs, err);
out:
	st_slurm_jobs_release(&jobs);
	return rc;
}
