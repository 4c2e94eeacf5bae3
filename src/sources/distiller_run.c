/* distiller_run.c - `distiller jobs` at file level: one atomic CSV per scan
 * size, filled from PostgreSQL or the REST API. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/distiller.h"

/* One output file per size, and the rows counted into it. */
struct outputs {
	st_atomic_file *files;
	size_t *rows;
	size_t opened;
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

/* Open DIR/{N}_{N}.csv for each size with its header; OUT->opened counts
 * the files to abort on failure. */
static int open_outputs(const char *dir, const st_distiller_query *q,
			struct outputs *out, st_error *err)
{
	for (; out->opened < q->n_sizes; out->opened++) {
		st_atomic_file *af = &out->files[out->opened];
		char name[64], *path;
		int ok;

		snprintf(name, sizeof(name), "%" PRId64 "_%" PRId64 ".csv",
			 q->sizes[out->opened], q->sizes[out->opened]);
		if (!(path = st_path_join(dir, name)))
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		ok = st_atomic_open(af, path, err);
		free(path);
		if (ok < 0)
			return -1;
		if (fputs("id,slurm_id,elapsed\n", af->fp) < 0) {
			out->opened++;
			return st_error_set(err, ST_EXIT_IOERR,
					    "cannot write %s: %s", af->path,
					    strerror(errno));
		}
	}
	return 0;
}

/* All or nothing: every file complete on disk before the first is renamed. */
static int commit_outputs(struct outputs *out, size_t n,
			  st_distiller_jobs_result *res, st_error *err)
{
	for (size_t i = 0; i < n; i++)
		if (st_atomic_prepare(&out->files[i], err) < 0)
			return -1;
	for (size_t i = 0; i < n; i++) {
		/* only a rename or directory sync fails here */
		if (st_atomic_commit(&out->files[i], err) < 0)
			return -1;
		res->committed++;
	}
	out->opened = 0;
	return 0;
}

int st_distiller_jobs_run(const st_distiller_jobs_opts *o,
			  st_distiller_jobs_result *res, st_log *log,
			  st_error *err)
{
	const st_distiller_query *q = &o->query;
	struct outputs out = { 0 };
	struct stat st;
	bool made_dir = stat(o->out_dir, &st) != 0;
	int rc = -1;

	*res = (st_distiller_jobs_result){ .schema = ST_DISTILLER_SCHEMA_AUTO };
	if (st_mkdir_p(o->out_dir, err) < 0)
		goto out;
	out.files = calloc(q->n_sizes, sizeof(*out.files));
	out.rows = calloc(q->n_sizes, sizeof(*out.rows));
	if (!out.files || !out.rows) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	res->rows = out.rows;
	if (open_outputs(o->out_dir, q, &out, err) < 0)
		goto out;
	if (o->use_api ? st_distiller_api_fetch(&o->api, q, write_row, &out,
						log, err) < 0 :
			 st_distiller_pg_fetch(&o->pg, q, write_row, &out,
					       &res->schema, log, err) < 0)
		goto out;
	res->fetched = true;
	if (commit_outputs(&out, q->n_sizes, res, err) < 0)
		goto out;
	made_dir = false;
	rc = 0;
out:
	for (size_t i = 0; i < out.opened; i++)
		st_atomic_abort(&out.files[i]);
	if (made_dir && rc < 0)
		(void)rmdir(o->out_dir);        /* made by this run, left empty */
	free(out.files);
	if (!res->rows)
		free(out.rows);
	return rc;
}
