/* clock_run.c - `clock probe` as a whole: targets probed in turn, rows
 * gathered, the offsets file appended to under its lock. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/clock_run.h"
#include "streamtime/csv.h"

void st_clock_format_ms(char *buf, size_t size, st_duration d)
{
	/* exact: ns as ms with 6 decimals */
	snprintf(buf, size, "%s%lld.%06lld", d < 0 ? "-" : "",
		 (long long)((d < 0 ? -d : d) / 1000000),
		 (long long)((d < 0 ? -d : d) % 1000000));
}

/* Split COMMAND at blanks into a NULL-terminated argv (new).  The words
 * point into *BLOCK (new); the caller frees both.  NULL when empty or out
 * of memory (*BLOCK NULL then). */
static char **split_words(const char *command, char **block)
{
	size_t n = 0, cap = 8;
	char **v = malloc(cap * sizeof(*v)), *save = NULL, *w;

	*block = strdup(command);
	if (!v || !*block)
		goto fail;
	for (w = strtok_r(*block, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		if (n + 1 == cap) {
			char **nv = realloc(v, (cap *= 2) * sizeof(*v));

			if (!nv)
				goto fail;
			v = nv;
		}
		v[n++] = w;
	}
	v[n] = NULL;
	if (n)
		return v;
fail:
	free(v);
	free(*block);
	*block = NULL;
	return NULL;
}

/* One CSV row for target T's result. */
static int format_row(FILE *f, const char *reference, const st_clock_target *t,
		      const st_clock_result *r)
{
	const st_clock_sample *s = &r->best;
	char when[48], off[32], del[32], bnd[32];
	const char *fields[8];
	char samples[24];

	st_time_format_utc(s->t1 + (s->t4 - s->t1) / 2, when, sizeof(when));
	st_clock_format_ms(off, sizeof(off), st_clock_sample_offset(s));
	st_clock_format_ms(del, sizeof(del), st_clock_sample_delay(s));
	st_clock_format_ms(bnd, sizeof(bnd), st_clock_sample_bound(s));
	snprintf(samples, sizeof(samples), "%zu", r->nsamples);
	fields[0] = when;
	fields[1] = reference;
	fields[2] = t->name;
	fields[3] = off;
	fields[4] = del;
	fields[5] = bnd;
	fields[6] = samples;
	fields[7] = st_clock_kind_name(t->kind);
	return st_csv_write_row(f, 8, fields);
}

/* Probe TARGETS[0..N) with O, rows into MEM, reports through RUN. */
static void probe_all(const st_clock_run_opts *run, const st_clock_probe_opts *o,
		      const st_clock_target *targets, size_t n,
		      const char *reference, FILE *mem, size_t *failed)
{
	for (size_t i = 0; i < n; i++) {
		st_clock_result r;
		st_error err;

		if (st_clock_probe(&targets[i], o, &r, &err) < 0) {
			if (run->report)
				run->report(run->report_ctx, &targets[i], NULL,
					    &err);
			(*failed)++;
			continue;
		}
		if (run->report)
			run->report(run->report_ctx, &targets[i], &r, NULL);
		if (r.nsamples < (size_t)o->samples)
			(*failed)++;
		format_row(mem, reference, &targets[i], &r);
	}
}

int st_clock_probe_run(const st_clock_run_opts *o, st_clock_run_result *res,
		       st_error *err)
{
	st_clock_probe_opts po = o->probe;
	st_clock_target *targets = calloc(o->ntargets ? o->ntargets : 1,
					  sizeof(*targets));
	const char *reference = o->reference;
	char host[256], *block = NULL, **sshv = NULL;
	size_t ntargets = 0;
	FILE *mem = NULL;
	int rc = -1;

	*res = (st_clock_run_result){ 0 };
	if (!targets)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (; ntargets < o->ntargets; ntargets++)
		if (st_clock_target_parse(o->targets[ntargets],
					  &targets[ntargets], err) < 0)
			goto out;
	if (!(sshv = split_words(o->ssh, &block))) {
		st_error_set(err, ST_EXIT_USAGE, "--ssh: empty command");
		goto out;
	}
	po.ssh_argv = sshv;
	if (!reference) {
		if (gethostname(host, sizeof(host)) != 0)
			strcpy(host, "localhost");
		host[sizeof(host) - 1] = '\0';
		reference = host;
	}
	if (!(mem = open_memstream(&res->rows, &res->len))) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	probe_all(o, &po, targets, ntargets, reference, mem, &res->failed);
	rc = fclose(mem) == 0 ? 0 : st_error_set(err, ST_EXIT_IOERR,
						 "out of memory");
out:
	if (rc < 0) {
		free(res->rows);
		res->rows = NULL;
		res->len = 0;
	}
	free(sshv);
	free(block);
	for (size_t i = 0; i < ntargets; i++)
		st_clock_target_release(&targets[i]);
	free(targets);
	return rc;
}

int st_clock_offsets_append(const char *path, const char *rows, size_t len,
			    st_error *err)
{
	st_atomic_append ap;
	char *all = NULL;
	int rc = -1;

	if (st_atomic_append_open(&ap, path, true, err) < 0)
		return -1;
	if (st_atomic_append_check_header(&ap, ST_CLOCK_OFFSETS_HEADER,
					  "a clock offsets file", err) < 0 ||
	    st_atomic_append_repair(&ap, NULL, NULL, err) < 0)
		goto out;
	if (ap.len == 0) {
		if (asprintf(&all, "%s\n%.*s", ST_CLOCK_OFFSETS_HEADER,
			     (int)len, rows) < 0) {
			all = NULL;
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		rows = all;
		len = strlen(all);
	}
	rc = st_atomic_append_write(&ap, rows, len, err);
out:
	st_atomic_append_close(&ap);
	free(all);
	return rc;
}
