/* experiments.c - the paper's experiments as data, or an experiments.json. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/experiments.h"

/* SPEC 4.5: the paper's scan ranges. */
static const struct {
	int64_t size, of, ol, sf, sl;
	const char *h5;
} paper[] = {
	{ 128, 4858, 4887, 2709, 3688, "scan_times_2709_3688.csv" },
	{ 256, 4828, 4857, 3813, 4226, "scan_times_3813_4226.csv" },
	{ 512, 4798, 4827, 4227, 4644, "scan_times_4227_4644.csv" },
	{ 1024, 4768, 4797, 4653, 4698, "scan_times_4653_4698.csv" },
};

#define PAPER_TZ "America/Los_Angeles"
#define DEFAULT_SLURM_TZ "UTC"
#define DEFAULT_MAX_ELAPSED (29 * 60 * ST_NS_PER_SEC)

void st_experiments_release(st_experiments *ex)
{
	if (!ex)
		return;
	for (size_t i = 0; i < ex->n; i++)
		free(ex->v[i].h5);
	free(ex->v);
	free(ex->tz);
	free(ex->slurm_tz);
	memset(ex, 0, sizeof(*ex));
}

int st_experiments_alloc(st_experiments *ex, size_t n, const char *tz,
			 const char *slurm_tz)
{
	memset(ex, 0, sizeof(*ex));
	ex->v = calloc(n, sizeof(*ex->v));
	ex->tz = strdup(tz);
	ex->slurm_tz = strdup(slurm_tz);
	if (!ex->v || !ex->tz || !ex->slurm_tz) {
		st_experiments_release(ex);
		return -1;
	}
	return 0;
}

int st_experiments_default(st_experiments *ex, st_error *err)
{
	size_t n = sizeof(paper) / sizeof(paper[0]);

	if (st_experiments_alloc(ex, n, PAPER_TZ, DEFAULT_SLURM_TZ) < 0)
		goto oom;
	for (size_t i = 0; i < n; i++) {
		st_experiment *e = &ex->v[i];

		e->size = paper[i].size;
		e->offload = (st_range){ paper[i].of, paper[i].ol };
		e->streaming = (st_range){ paper[i].sf, paper[i].sl };
		e->h5 = strdup(paper[i].h5);
		ex->n++;
		if (!e->h5)
			goto oom;
	}
	ex->max_elapsed = DEFAULT_MAX_ELAPSED;
	return 0;
oom:
	st_experiments_release(ex);
	return st_error_set(err, ST_EXIT_CONFIG, "out of memory");
}

/* Read a [first, last] pair of scan numbers. */
static int get_range(json_t *v, st_range *r, const char *path, size_t i,
		     const char *key, st_error *err)
{
	json_t *a, *b;

	if (!v)
		return st_error_set(err, ST_EXIT_CONFIG,
				    "%s: experiments[%zu] has no '%s' scan range",
				    path, i, key);
	a = json_array_get(v, 0);
	b = json_array_get(v, 1);
	if (!json_is_array(v) || json_array_size(v) != 2 || !json_is_integer(a) ||
	    !json_is_integer(b) || json_integer_value(a) > json_integer_value(b))
		return st_error_set(err, ST_EXIT_CONFIG,
				    "%s: experiments[%zu].%s must be [first, last] "
				    "scan numbers with first <= last", path, i, key);
	r->first = json_integer_value(a);
	r->last = json_integer_value(b);
	return 0;
}

int st_experiments_check_keys(struct json_t *obj, const char *const keys[], size_t nkeys,
		      const char *path, const char *where, st_error *err)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v) {
		size_t j;

		for (j = 0; j < nkeys; j++)
			if (strcmp(k, keys[j]) == 0)
				break;
		if (j == nkeys)
			return st_error_set(err, ST_EXIT_CONFIG,
					    "%s: unknown key '%s' in %s", path,
					    k, where);
	}
	return 0;
}

static int get_string(json_t *root, const char *key, const char *def,
		      char **out, const char *path, st_error *err)
{
	json_t *v = json_object_get(root, key);

	if (v && !json_is_string(v))
		return st_error_set(err, ST_EXIT_CONFIG, "%s: '%s' must be a string",
				    path, key);
	*out = strdup(v ? json_string_value(v) : def);
	if (!*out)
		return st_error_set(err, ST_EXIT_CONFIG, "out of memory");
	return 0;
}

int st_experiments_from_json(st_experiments *ex, struct json_t *root,
			     const char *path, bool h5_optional, st_error *err)
{
	static const char *const exp_keys[] = { "size", "offload", "streaming",
						"h5", "description" };
	json_t *list, *v;
	int rc = -1;

	memset(ex, 0, sizeof(*ex));
	if (get_string(root, "tz", PAPER_TZ, &ex->tz, path, err) < 0 ||
	    get_string(root, "slurm_tz", DEFAULT_SLURM_TZ, &ex->slurm_tz, path,
		       err) < 0)
		goto out;
	ex->max_elapsed = DEFAULT_MAX_ELAPSED;
	v = json_object_get(root, "max_elapsed");
	if (v && (!json_is_string(v) ||
		  st_duration_parse(json_string_value(v), &ex->max_elapsed,
				    NULL) < 0)) {
		st_error_set(err, ST_EXIT_CONFIG, "%s: 'max_elapsed' must be a "
			     "duration string like \"29:00\"", path);
		goto out;
	}
	if (ex->max_elapsed < 0) {
		/* would keep no job at all, and every statistic be "no data" */
		st_error_set(err, ST_EXIT_CONFIG, "%s: 'max_elapsed' \"%s\" is "
			     "negative: no job would be kept", path,
			     json_string_value(v));
		goto out;
	}
	list = json_object_get(root, "experiments");
	if (!json_is_array(list) || json_array_size(list) == 0) {
		st_error_set(err, ST_EXIT_CONFIG, "%s: 'experiments' must be a "
			     "non-empty array", path);
		goto out;
	}
	ex->v = calloc(json_array_size(list), sizeof(*ex->v));
	if (!ex->v) {
		st_error_set(err, ST_EXIT_CONFIG, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < json_array_size(list); i++) {
		json_t *e = json_array_get(list, i), *size, *h5;
		st_experiment *x = &ex->v[i];
		char where[64];

		snprintf(where, sizeof(where), "experiments[%zu]", i);
		if (!json_is_object(e)) {
			st_error_set(err, ST_EXIT_CONFIG, "%s: %s must be an object",
				     path, where);
			goto out;
		}
		if (st_experiments_check_keys(e, exp_keys, 5, path, where, err) < 0)
			goto out;
		size = json_object_get(e, "size");
		if (!json_is_integer(size) || json_integer_value(size) <= 0) {
			st_error_set(err, ST_EXIT_CONFIG, "%s: %s.size must be a "
				     "positive integer", path, where);
			goto out;
		}
		x->size = json_integer_value(size);
		if (st_experiments_find(ex, x->size)) {
			st_error_set(err, ST_EXIT_CONFIG, "%s: size %lld appears twice",
				     path, (long long)x->size);
			goto out;
		}
		if (get_range(json_object_get(e, "offload"), &x->offload, path, i,
			      "offload", err) < 0 ||
		    get_range(json_object_get(e, "streaming"), &x->streaming, path,
			      i, "streaming", err) < 0)
			goto out;
		h5 = json_object_get(e, "h5");
		ex->n++;
		if (!h5 && h5_optional)
			continue;
		if (!json_is_string(h5) || !*json_string_value(h5)) {
			st_error_set(err, ST_EXIT_CONFIG, "%s: %s.h5 must name the "
				     "H5 times file", path, where);
			goto out;
		}
		x->h5 = strdup(json_string_value(h5));
		if (!x->h5) {
			st_error_set(err, ST_EXIT_CONFIG, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	if (rc != 0)
		st_experiments_release(ex);
	return rc;
}

const st_experiment *st_experiments_find(const st_experiments *ex, int64_t size)
{
	for (size_t i = 0; i < ex->n; i++)
		if (ex->v[i].size == size)
			return &ex->v[i];
	return NULL;
}
