/* slurm.c - accounting rows, the paper's filters, the output CSV. */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/csv.h"
#include "streamtime/slurm.h"
#include "streamtime/time.h"

const char *const st_slurm_header[ST_SLURM_NFIELDS] = {
	"Job Name", "Job ID", "Timelimit", "Elapsed", "Submit", "Start", "End",
	"ReqNodes", "QOS", "User", "ExitCode",
};

const char *const st_slurm_sacct_names[ST_SLURM_NFIELDS] = {
	"JobName", "JobID", "Timelimit", "Elapsed", "Submit", "Start", "End",
	"ReqNodes", "QOS", "User", "ExitCode",
};

int st_slurm_jobs_add(st_slurm_jobs *js, const char *const f[ST_SLURM_NFIELDS],
		      st_error *err)
{
	st_slurm_job *j;

	if (js->n == js->cap) {
		size_t cap = js->cap ? js->cap * 2 : 64;
		st_slurm_job *nv = realloc(js->v, cap * sizeof(*nv));

		if (!nv)
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		js->v = nv;
		js->cap = cap;
	}
	j = &js->v[js->n];
	for (int i = 0; i < ST_SLURM_NFIELDS; i++) {
		j->f[i] = strdup(f[i] ? f[i] : "");
		if (!j->f[i]) {
			while (i-- > 0)
				free(j->f[i]);
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		}
	}
	js->n++;
	return 0;
}

/* Is S a time as sacct prints it: a timestamp, or its words for unset? */
static int check_time(const char *s, char *why, size_t size)
{
	st_instant t;
	st_error e;

	if (!*s) {
		snprintf(why, size, "empty (sacct prints Unknown or None for an "
			 "unset time)");
		return -1;
	}
	if (strcmp(s, "Unknown") == 0 || strcmp(s, "None") == 0)
		return 0;
	if (st_time_parse(s, NULL, &t, NULL, &e) == 0)
		return 0;
	snprintf(why, size, "%s", e.text);
	return -1;
}

int st_slurm_job_check(const char *const f[ST_SLURM_NFIELDS], char *why,
		       size_t size)
{
	static const enum st_slurm_field times[] = {
		ST_SLURM_SUBMIT, ST_SLURM_START, ST_SLURM_END,
	};
	const char *id = f[ST_SLURM_ID] ? f[ST_SLURM_ID] : "";
	const char *el = f[ST_SLURM_ELAPSED] ? f[ST_SLURM_ELAPSED] : "";
	st_duration d;
	st_error e;

	if (!isdigit((unsigned char)id[0])) {
		snprintf(why, size, "'%.60s' is not a job id (N, N.step, N_T or "
			 "N+K)", id);
		return ST_SLURM_ID;
	}
	for (size_t i = 0; i < sizeof(times) / sizeof(times[0]); i++)
		if (check_time(f[times[i]] ? f[times[i]] : "", why, size) < 0)
			return (int)times[i];
	if (st_duration_parse(el, &d, &e) < 0) {
		snprintf(why, size, "%s", e.text);
		return ST_SLURM_ELAPSED;
	}
	if (d < 0) {
		snprintf(why, size, "'%.60s' is negative", el);
		return ST_SLURM_ELAPSED;
	}
	return -1;
}

static void job_free(st_slurm_job *j)
{
	for (int i = 0; i < ST_SLURM_NFIELDS; i++)
		free(j->f[i]);
}

void st_slurm_jobs_release(st_slurm_jobs *js)
{
	if (!js)
		return;
	for (size_t i = 0; i < js->n; i++)
		job_free(&js->v[i]);
	free(js->v);
	memset(js, 0, sizeof(*js));
}

static bool set(const char *s)
{
	return s && *s;
}

/* A set of job id strings (open addressing, FNV-1a), for "a job id
 * appears once": windows overlap at their edges, so one job can come back. */
struct idset {
	const char **slot;
	size_t cap;
};

static uint64_t hash(const char *s)
{
	uint64_t h = UINT64_C(1469598103934665603);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
	return h;
}

/* Insert ID; false when it was there already. */
static bool idset_add(struct idset *set, const char *id)
{
	size_t i = hash(id) & (set->cap - 1);

	while (set->slot[i]) {
		if (strcmp(set->slot[i], id) == 0)
			return false;
		i = (i + 1) & (set->cap - 1);
	}
	set->slot[i] = id;
	return true;
}

size_t st_slurm_filter_apply(st_slurm_jobs *js, const st_slurm_filter *f)
{
	size_t k = 0, dropped = 0;
	struct idset ids = { NULL, 16 };

	while (ids.cap < 2 * js->n)
		ids.cap *= 2;
	ids.slot = calloc(ids.cap, sizeof(*ids.slot));

	for (size_t i = 0; i < js->n; i++) {
		st_slurm_job *j = &js->v[i];
		const char *start = j->f[ST_SLURM_START];
		bool keep = !strchr(j->f[ST_SLURM_ID], '.');

		if (keep && f) {
			if (set(f->name_contains) &&
			    !strstr(j->f[ST_SLURM_NAME], f->name_contains))
				keep = false;
			else if (f->need_start && (!*start || !strcmp(start, "Unknown") ||
						   !strcmp(start, "None")))
				keep = false;
			else if (set(f->req_nodes) &&
				 strcmp(j->f[ST_SLURM_REQNODES], f->req_nodes) != 0)
				keep = false;
			else if (set(f->qos_contains) &&
				 !strstr(j->f[ST_SLURM_QOS], f->qos_contains))
				keep = false;
			else if (set(f->exit_code) &&
				 strcmp(j->f[ST_SLURM_EXITCODE], f->exit_code) != 0)
				keep = false;
			else if (set(f->user) && strcmp(j->f[ST_SLURM_USER], f->user) != 0)
				keep = false;
		}
		/* without memory for the set, fall back to keeping duplicates
		 * rather than losing jobs */
		if (keep && ids.slot && !idset_add(&ids, j->f[ST_SLURM_ID]))
			keep = false;
		if (!keep) {
			job_free(j);
			dropped++;
			continue;
		}
		js->v[k++] = *j;
	}
	js->n = k;
	free(ids.slot);
	return dropped;
}

int st_slurm_jobs_write(FILE *out, const st_slurm_jobs *js)
{
	if (st_csv_write_row(out, ST_SLURM_NFIELDS, st_slurm_header) < 0)
		return -1;
	for (size_t i = 0; i < js->n; i++)
		if (st_csv_write_row(out, ST_SLURM_NFIELDS,
				     (const char *const *)js->v[i].f) < 0)
			return -1;
	return 0;
}
