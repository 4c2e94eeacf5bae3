/* reproduce_sources.c - a session's live sources, asked by reproduce:
 * sacct or slurmrestd for the count jobs, Distiller's database or REST API
 * for its job table.  Each answer is a snapshot in the output set
 * (OUT/sources/), which the analysis reads and provenance.json hashes. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "reproduce_sources.h"
#include "streamtime/atomic.h"
#include "streamtime/distiller.h"
#include "streamtime/slurm_run.h"
#include "streamtime/tz.h"

void st_reproduce_sources_release(struct st_reproduce_sources *r)
{
	free(r->jobs);
	free(r->db);
	for (size_t i = 0; i < r->nlive; i++) {
		free(r->text[i][0]);
		free(r->text[i][1]);
	}
	memset(r, 0, sizeof(*r));
}

static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
	va_list ap;
	char *s;

	va_start(ap, f);
	if (vasprintf(&s, f, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

/* The count jobs from sacct or slurmrestd into R->jobs. */
static int slurm_live(const st_session *s, struct st_reproduce_sources *r,
		      st_log *log, st_error *err)
{
	const st_session_live *l = &s->slurm_live;
	bool rest = s->slurm_source == ST_SLURM_REST;
	st_slurm_jobs_opts jo = {
		.out = r->jobs, .zone = s->ex.slurm_tz, .since = l->since,
		.until = l->until,
		.filter = { .name_contains = "distiller-count", .req_nodes = "4",
			    .qos_contains = "realtime_", .exit_code = "0:0",
			    .need_start = true, .user = l->user },
		.sacct = { .user = rest ? NULL : l->user,
			   .all_users = l->all_users, .window = 30 * 86400 },
		.rest = { .url = rest ? l->url : NULL, .user = l->user,
			  .timeout_s = 60, .retries = 3 },
	};
	st_provenance_live *pl = &r->live[r->nlive];
	st_slurm_jobs_result res;
	char host[256] = "";
	char *token = NULL;
	st_tz *tz = st_tz_load(s->ex.slurm_tz, err);
	int rc = -1;

	if (!tz)
		return -1;
	jo.tz = tz;
	if (rest && l->token_file &&
	    !(token = st_secret_read(l->token_file, err)))
		goto out;
	jo.rest.token = token;
	gethostname(host, sizeof(host) - 1);
	r->text[r->nlive][0] = rest ?
		fmt("GET /slurmdb/VERSION/jobs (the version slurmrestd offers, "
		    "v0.0.38 to v0.0.41) from %s to %s (naive in %s), "
		    "user %s; filters: name contains distiller-count, 4 nodes, "
		    "QOS realtime_, exit 0:0, started", l->since ? l->since :
		    "30 days before", l->until ? l->until : "now",
		    s->ex.slurm_tz, l->user ? l->user : "$USER") :
		fmt("sacct -X -P from %s to %s (naive in %s)%s%s%s; filters: "
		    "name contains distiller-count, 4 nodes, QOS realtime_, "
		    "exit 0:0, started", l->since ? l->since : "30 days before",
		    l->until ? l->until : "now", s->ex.slurm_tz,
		    l->user ? ", --user " : "", l->user ? l->user : "",
		    l->all_users ? ", --allusers" : "");
	r->text[r->nlive][1] = rest ? strdup(l->url) :
		fmt("sacct on %s (%s)", host, getenv("STREAMTIME_SACCT") ?
		    getenv("STREAMTIME_SACCT") : "sacct on PATH");
	if (!r->text[r->nlive][0] || !r->text[r->nlive][1]) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_slurm_jobs_run(&jo, &res, log, err) < 0) {
		st_error_prefix(err, "inputs.slurm_jobs");
		goto out;
	}
	st_msg_verbose("inputs.slurm_jobs: %zu rows read, %zu kept", res.fetched,
		       res.kept);
	*pl = (st_provenance_live){
		"inputs.slurm_jobs", rest ? "slurmrestd" : "sacct",
		r->text[r->nlive][0], r->text[r->nlive][1], r->jobs,
		"sources/slurm_job_info.csv" };
	r->nlive++;
	rc = 0;
out:
	if (rc < 0 && !r->live[r->nlive].key) {
		free(r->text[r->nlive][0]);
		free(r->text[r->nlive][1]);
		r->text[r->nlive][0] = r->text[r->nlive][1] = NULL;
	}
	st_secret_free(token);
	st_tz_free(tz);
	return rc;
}

/* Distiller's table for the session's sizes into R->db. */
static int distiller_live(const st_session *s, struct st_reproduce_sources *r,
			  st_log *log, st_error *err)
{
	const st_session_live *l = &s->distiller_live;
	bool api = s->distiller_source == ST_DISTILLER_API;
	int64_t *sizes = calloc(s->ex.n + 1, sizeof(*sizes));
	st_distiller_jobs_opts jo = {
		.out_dir = r->db, .use_api = api,
		.pg = { .timeout_s = 30 },
		.api = { .url = api ? l->url : NULL, .timeout_s = 30,
			 .retries = 3 },
	};
	st_distiller_jobs_result res = { 0 };
	char *secret = NULL, *dsn = NULL;
	int rc = -1;

	if (!sizes)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0; i < s->ex.n; i++)
		sizes[i] = s->ex.v[i].size;
	jo.query = (st_distiller_query){ sizes, s->ex.n, l->job_type };
	if (l->token_file || l->dsn_file) {
		secret = st_secret_read(l->token_file ? l->token_file :
					l->dsn_file, err);
		if (!secret)
			goto out;
	}
	if (api) {
		jo.api.token = secret;
	} else if (l->service) {
		/* a service name is no secret: libpq reads pg_service.conf */
		if (!(dsn = fmt("service=%s", l->service)))
			goto oom;
		jo.pg.dsn = dsn;
	} else {
		jo.pg.dsn = secret;
	}
	{
		char list[512] = "";
		size_t len = 0;

		for (size_t i = 0; i < s->ex.n && len < sizeof(list) - 24; i++)
			len += (size_t)snprintf(list + len, sizeof(list) - len,
						"%s%" PRId64, i ? ", " : "",
						sizes[i]);
		r->text[r->nlive][0] = fmt("distiller jobs: the %s%sjobs of the "
					   "scans of sizes %s (both dimensions)",
					   l->job_type ? l->job_type : "",
					   l->job_type ? " " : "", list);
	}
	r->text[r->nlive][1] = api ? strdup(l->url) : l->service ?
		fmt("PostgreSQL, service %s", l->service) :
		fmt("PostgreSQL, the DSN in %s", l->dsn_file);
	if (!r->text[r->nlive][0] || !r->text[r->nlive][1])
		goto oom;
	if (st_distiller_jobs_run(&jo, &res, log, err) < 0) {
		if (err->code == ST_EXIT_USAGE)
			/* libpq could not parse the DSN: the file is wrong,
			 * and what it holds is never shown */
			st_error_set(err, ST_EXIT_CONFIG, "inputs.distiller."
				     "postgresql: %s does not hold a libpq "
				     "conninfo or URI", l->dsn_file ?
				     l->dsn_file : l->service);
		else
			st_error_prefix(err, "inputs.distiller");
		goto out;
	}
	r->live[r->nlive] = (st_provenance_live){
		"inputs.distiller", api ? "api" : "postgresql",
		r->text[r->nlive][0], r->text[r->nlive][1], r->db,
		"sources/distiller_db" };
	r->nlive++;
	rc = 0;
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "out of memory");
out:
	if (rc < 0) {
		free(r->text[r->nlive][0]);
		free(r->text[r->nlive][1]);
		r->text[r->nlive][0] = r->text[r->nlive][1] = NULL;
	}
	free(res.rows);
	free(sizes);
	free(dsn);
	st_secret_free(secret);
	return rc;
}

int st_reproduce_sources(const st_session *s, const char *out,
			 struct st_reproduce_sources *r, st_log *log,
			 st_error *err)
{
	char *dir;

	memset(r, 0, sizeof(*r));
	if (s->slurm_source == ST_SLURM_FILE &&
	    s->distiller_source == ST_DISTILLER_FILES)
		return 0;
	dir = st_path_join(out, "sources");
	r->jobs = dir ? st_path_join(dir, "slurm_job_info.csv") : NULL;
	r->db = dir ? st_path_join(dir, "distiller_db") : NULL;
	if (!r->jobs || !r->db) {
		free(dir);
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	if (st_mkdir_p(dir, err) < 0) {
		free(dir);
		return -1;
	}
	free(dir);
	if (s->slurm_source != ST_SLURM_FILE &&
	    slurm_live(s, r, log, err) < 0)
		return -1;
	if (s->distiller_source != ST_DISTILLER_FILES &&
	    distiller_live(s, r, log, err) < 0)
		return -1;
	return 0;
}
