/* distiller_api.c - the Distiller job table through its REST API. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/distiller.h"
#include "streamtime/distiller_api.h"
#include "streamtime/http.h"
#include "streamtime/num.h"

#define SERVICE "the Distiller API"
#define MAX_ELAPSED_S 9e9       /* st_duration reaches 9.2e9 s */
#define DEFAULT_PAGE 100

/* ---- parsing ---- */

static int cmp_job(const void *a, const void *b)
{
	const st_distiller_api_job *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* Sort V and drop repeated values; the new count. */
static size_t sort_unique(int64_t *v, size_t n)
{
	size_t w = 0;

	if (n)
		qsort(v, n, sizeof(*v), st_cmp_i64);
	for (size_t r = 0; r < n; r++)
		if (!w || v[w - 1] != v[r])
			v[w++] = v[r];
	return w;
}

void st_distiller_api_jobs_release(st_distiller_api_jobs *js)
{
	if (!js)
		return;
	for (size_t i = 0; i < js->n; i++)
		free(js->v[i].scan_ids);
	free(js->v);
	js->v = NULL;
	js->n = js->cap = 0;
}

/* Drop the jobs appended after the first N. */
static void jobs_truncate(st_distiller_api_jobs *js, size_t n)
{
	while (js->n > n)
		free(js->v[--js->n].scan_ids);
}

/* What a job's conversion needs to say what went wrong. */
struct conv {
	const char *shown;
	st_error *err;
	size_t index;           /* in the page */
	json_int_t id;          /* -1 until known */
};

static int bad_field(const struct conv *c, const char *field, const char *what)
{
	if (c->id >= 0)
		return st_error_set(c->err, ST_EXIT_DATAERR, "%s response of "
				    "%s: job %lld: '%s' %s", SERVICE, c->shown,
				    (long long)c->id, field, what);
	return st_error_set(c->err, ST_EXIT_DATAERR, "%s response of %s: "
			    "jobs[%zu]: '%s' %s", SERVICE, c->shown, c->index,
			    field, what);
}

/* The member FIELD of JOB, which must be present; NULL reported. */
static json_t *member(const struct conv *c, json_t *job, const char *field)
{
	json_t *v = json_object_get(job, field);

	if (!v)
		bad_field(c, field, "is missing");
	return v;
}

/* Seconds (integer or real) to a duration rounded to the microsecond, as
 * PostgreSQL keeps an interval. */
static int elapsed_read(const struct conv *c, json_t *v, st_duration *out)
{
	double s, us;

	if (!json_is_number(v))
		return bad_field(c, "elapsed", "is not a number");
	s = json_number_value(v);
	if (!(fabs(s) <= MAX_ELAPSED_S))
		return bad_field(c, "elapsed", "is out of range");
	if (s < 0)
		return bad_field(c, "elapsed", "is negative");
	us = round(s * 1e6);
	*out = (st_duration)us * 1000;
	return 0;
}

/* JOB's scan ids into J: "scan_ids", or a legacy job's single "scan_id". */
static int scan_ids_read(const struct conv *c, json_t *job,
			 st_distiller_api_job *j)
{
	json_t *ids = json_object_get(job, "scan_ids"), *v;
	size_t i;

	if (!ids) {
		v = json_object_get(job, "scan_id");
		if (!v)
			return bad_field(c, "scan_ids", "is missing");
		if (json_is_null(v))
			return 0;
		if (!json_is_integer(v))
			return bad_field(c, "scan_id", "is not an integer");
		if (!(j->scan_ids = malloc(sizeof(*j->scan_ids))))
			return st_error_set(c->err, ST_EXIT_IOERR,
					    "out of memory");
		j->scan_ids[0] = json_integer_value(v);
		j->n_scan_ids = 1;
		return 0;
	}
	if (json_is_null(ids))
		return 0;
	if (!json_is_array(ids))
		return bad_field(c, "scan_ids", "is not an array");
	if (!json_array_size(ids))
		return 0;
	if (!(j->scan_ids = malloc(json_array_size(ids) * sizeof(*j->scan_ids))))
		return st_error_set(c->err, ST_EXIT_IOERR, "out of memory");
	json_array_foreach(ids, i, v) {
		if (!json_is_integer(v))
			return bad_field(c, "scan_ids", "holds a non-integer");
		j->scan_ids[i] = json_integer_value(v);
	}
	j->n_scan_ids = sort_unique(j->scan_ids, json_array_size(ids));
	return 0;
}

/* Convert JOB into J; *KEEP false when its job_type is not JOB_TYPE.  On
 * failure J may hold scan ids to free. */
static int job_read(struct conv *c, json_t *job, const char *job_type,
		    st_distiller_api_job *j, bool *keep)
{
	json_t *v;

	memset(j, 0, sizeof(*j));
	if (!json_is_object(job))
		return st_error_set(c->err, ST_EXIT_DATAERR, "%s response of "
				    "%s: jobs[%zu] is not an object", SERVICE,
				    c->shown, c->index);
	if (!(v = member(c, job, "id")))
		return -1;
	if (!json_is_integer(v))
		return bad_field(c, "id", "is not an integer");
	c->id = j->id = json_integer_value(v);
	if (!(v = member(c, job, "job_type")))
		return -1;
	if (!json_is_string(v))
		return bad_field(c, "job_type", "is not a string");
	*keep = !job_type || strcmp(json_string_value(v), job_type) == 0;
	if (!(v = member(c, job, "slurm_id")))
		return -1;
	if (!json_is_null(v) && !json_is_integer(v))
		return bad_field(c, "slurm_id", "is not an integer");
	if ((j->has_slurm_id = json_is_integer(v)))
		j->slurm_id = json_integer_value(v);
	if (!(v = member(c, job, "elapsed")))
		return -1;
	if (!json_is_null(v)) {
		if (elapsed_read(c, v, &j->elapsed) < 0)
			return -1;
		j->has_elapsed = true;
	}
	return scan_ids_read(c, job, j);
}

/* Room for one more job in JS. */
static int jobs_grow(st_distiller_api_jobs *js, st_error *err)
{
	size_t cap = js->cap ? 2 * js->cap : 64;
	st_distiller_api_job *v;

	if (js->n < js->cap)
		return 0;
	if (!(v = reallocarray(js->v, cap, sizeof(*v))))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	js->v = v;
	js->cap = cap;
	return 0;
}

int st_distiller_api_parse_jobs(const char *body, size_t len,
				const char *shown, const char *job_type,
				st_distiller_api_jobs *out,
				st_distiller_api_page *page, st_error *err)
{
	struct conv c = { .shown = shown, .err = err };
	st_distiller_api_page pg = { 0 };
	size_t n0 = out->n;
	json_error_t jerr;
	json_t *root, *job;

	if (!(root = json_loadb(body, len, 0, &jerr)))
		return st_error_set(err, ST_EXIT_DATAERR, "cannot parse %s "
				    "response of %s: %s at line %d column %d",
				    SERVICE, shown, jerr.text, jerr.line,
				    jerr.column);
	if (!json_is_array(root)) {
		json_decref(root);
		return st_error_set(err, ST_EXIT_DATAERR, "%s response of %s "
				    "is not a JSON array of jobs", SERVICE,
				    shown);
	}
	json_array_foreach(root, c.index, job) {
		st_distiller_api_job j;
		bool keep = false;

		c.id = -1;
		if (job_read(&c, job, job_type, &j, &keep) < 0 ||
		    (keep && jobs_grow(out, err) < 0)) {
			free(j.scan_ids);
			jobs_truncate(out, n0);
			json_decref(root);
			return -1;
		}
		if (keep)
			out->v[out->n++] = j;
		else
			free(j.scan_ids);
		pg.last_id = j.id;
	}
	pg.n_jobs = json_array_size(root);
	json_decref(root);
	if (page)
		*page = pg;
	return 0;
}

/* A dimension: a JSON number with an integer value, else 0. */
static int64_t dimension(json_t *meta, const char *spaced, const char *dotted)
{
	json_t *v = json_object_get(meta, spaced);
	double d;

	if (!v)
		v = json_object_get(meta, dotted);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (!json_is_real(v))
		return 0;
	d = json_real_value(v);
	if (!(d > -9e18 && d < 9e18) || d != floor(d))
		return 0;
	return (int64_t)d;
}

int st_distiller_api_parse_scan(const char *body, size_t len,
				const char *shown, st_distiller_api_scan *out,
				st_error *err)
{
	json_error_t jerr;
	json_t *root, *id, *meta;
	int64_t d1, d2;
	int ret = -1;

	/* integers as reals: an integer past 64 bits anywhere in the
	 * metadata must not make the whole scan unreadable */
	if (!(root = json_loadb(body, len, JSON_DECODE_INT_AS_REAL, &jerr)))
		return st_error_set(err, ST_EXIT_DATAERR, "cannot parse %s "
				    "response of %s: %s at line %d column %d",
				    SERVICE, shown, jerr.text, jerr.line,
				    jerr.column);
	id = json_object_get(root, "id");
	meta = json_object_get(root, "metadata");
	if (!json_is_object(root))
		st_error_set(err, ST_EXIT_DATAERR, "%s response of %s is not "
			     "a JSON object", SERVICE, shown);
	else if (!json_is_number(id) || !(json_number_value(id) >= 0 &&
					  json_number_value(id) < 9e15) ||
		 json_number_value(id) != floor(json_number_value(id)))
		st_error_set(err, ST_EXIT_DATAERR, "%s response of %s: 'id' "
			     "%s", SERVICE, shown, id ? "is not an integer" :
			     "is missing");
	else if (!meta)
		st_error_set(err, ST_EXIT_DATAERR, "%s response of %s: "
			     "'metadata' is missing", SERVICE, shown);
	else {
		/* metadata that is not an object has no dimensions, as in
		 * the database query */
		out->id = (int64_t)json_number_value(id);
		d1 = json_is_object(meta) ?
		     dimension(meta, "Dimensions 1", "Dimensions.1") : 0;
		d2 = json_is_object(meta) ?
		     dimension(meta, "Dimensions 2", "Dimensions.2") : 0;
		out->size = d1 > 0 && d1 == d2 ? d1 : 0;
		ret = 0;
	}
	json_decref(root);
	return ret;
}

/* ---- HTTP ---- */

/* Say why a non-200 answer failed: credentials refused, or the status and
 * FastAPI's "detail" when it is a string. */
static int http_error(const st_http_client *h, const char *shown,
		      bool credentials, st_error *err)
{
	json_t *root, *detail;
	int ret;

	if (h->status == 401 || h->status == 403) {
		if (credentials)
			return st_error_set(err, ST_EXIT_UNAVAILABLE, "%s "
					    "refused the credentials (HTTP %ld "
					    "for %s)", SERVICE, h->status,
					    shown);
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "%s refused a "
				    "request without credentials (HTTP %ld for "
				    "%s): give an API key or a token", SERVICE,
				    h->status, shown);
	}
	root = h->body_len ? json_loadb(h->body, h->body_len, 0, NULL) : NULL;
	detail = json_object_get(root, "detail");
	if (json_is_string(detail) && st_http_header_safe(json_string_value(detail)))
		ret = st_error_set(err, ST_EXIT_UNAVAILABLE, "%s answered "
				   "HTTP %ld for %s: %.200s", SERVICE,
				   h->status, shown, json_string_value(detail));
	else
		ret = st_error_set(err, ST_EXIT_UNAVAILABLE, "%s answered HTTP "
				   "%ld for %s", SERVICE, h->status, shown);
	json_decref(root);
	return ret;
}

int st_distiller_api_parse_total(const char *s, size_t len, int64_t *out)
{
	int64_t v = 0;

	if (len < 1 || len > 18)
		return -1;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* X-Total-Count as a count: *TOTAL, or -1 when the header is absent. */
static int total_read(const st_http_client *h, const char *shown,
		      long long *total, st_error *err)
{
	int64_t v;

	*total = -1;
	if (!h->kept)
		return 0;
	if (st_distiller_api_parse_total(h->kept, strlen(h->kept), &v) < 0)
		return st_error_set(err, ST_EXIT_DATAERR, "%s response of %s: "
				    "X-Total-Count is not a count", SERVICE,
				    shown);
	*total = v;
	return 0;
}

/* What a fetch keeps between its requests. */
struct fetch {
	const st_distiller_api_opts *o;
	const st_distiller_query *q;
	st_http_client http;
	bool credentials;
	st_distiller_api_jobs jobs;
	int64_t *scan_ids;      /* every scan id met, ascending */
	int64_t *sizes;         /* of scan_ids[i]: N, 0 none, -1 not found */
	size_t n_scans;
};

/* GET PATH into f->http; SHOWN (new, base + PATH) for messages.  -1 with
 * ERR set when no answer came. */
static int get(struct fetch *f, const char *path, char **shown, st_error *err)
{
	if (asprintf(shown, "%s%s", f->http.shown_base, path) < 0) {
		*shown = NULL;
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	return st_http_get(&f->http, path, *shown, err);
}

/* Every page of /api/v1/jobs into f->jobs, then sorted by id, a job met
 * twice (the table grew between pages) kept once. */
static int fetch_jobs(struct fetch *f, st_error *err)
{
	long limit = f->o->page_size > 0 ? f->o->page_size : DEFAULT_PAGE;
	char *type = NULL;
	size_t skip = 0, w = 0;
	int64_t prev_last = 0;
	int ret = -1;

	if (f->q->job_type &&
	    !(type = st_http_escape(f->q->job_type)))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (;;) {
		st_distiller_api_page pg = { 0 };
		char *path = NULL, *shown = NULL;
		long long total = -1;
		int rc;

		if (asprintf(&path, "/api/v1/jobs?%s%s%sskip=%zu&limit=%ld",
			     type ? "job_type=" : "", type ? type : "",
			     type ? "&" : "", skip, limit) < 0) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		rc = get(f, path, &shown, err);
		free(path);
		if (rc == 0 && f->http.status != 200)
			rc = http_error(&f->http, shown, f->credentials, err);
		if (rc == 0)
			rc = total_read(&f->http, shown, &total, err);
		if (rc == 0)
			rc = st_distiller_api_parse_jobs(f->http.body ?
							 f->http.body : "",
							 f->http.body_len,
							 shown, f->q->job_type,
							 &f->jobs, &pg, err);
		/* a server that ignores skip would be read for ever */
		if (rc == 0 && total < 0 && skip && pg.n_jobs &&
		    pg.last_id == prev_last)
			rc = st_error_set(err, ST_EXIT_DATAERR, "%s answered "
					  "the same page again for %s (is skip "
					  "ignored?)", SERVICE, shown);
		/* the count of this very page is trusted (jobs deleted
		 * meanwhile lower it), but an empty page while it still
		 * promises more is a server that lost rows */
		if (rc == 0 && !pg.n_jobs && total >= 0 &&
		    skip < (size_t)total)
			rc = st_error_set(err, ST_EXIT_DATAERR, "%s announced "
					  "%lld jobs (X-Total-Count) and gave "
					  "%zu: %s is empty", SERVICE, total,
					  skip, shown);
		free(shown);
		if (rc < 0)
			goto out;
		skip += pg.n_jobs;
		prev_last = pg.last_id;
		if (!pg.n_jobs || (total >= 0 && skip >= (size_t)total))
			break;
	}
	if (f->jobs.n)
		qsort(f->jobs.v, f->jobs.n, sizeof(*f->jobs.v), cmp_job);
	for (size_t r = 0; r < f->jobs.n; r++) {
		if (w && f->jobs.v[w - 1].id == f->jobs.v[r].id) {
			free(f->jobs.v[r].scan_ids);
			continue;
		}
		f->jobs.v[w++] = f->jobs.v[r];
	}
	f->jobs.n = w;
	ret = 0;
out:
	free(type);
	return ret;
}

/* GET /api/v1/scans/{id} once for every scan id of f->jobs.  A scan the
 * API does not know (404) is warned about; its rows are skipped. */
static int fetch_scans(struct fetch *f, st_log *log, st_error *err)
{
	size_t n = 0;

	for (size_t i = 0; i < f->jobs.n; i++)
		n += f->jobs.v[i].n_scan_ids;
	if (!n)
		return 0;
	if (!(f->scan_ids = malloc(n * sizeof(*f->scan_ids))) ||
	    !(f->sizes = calloc(n, sizeof(*f->sizes))))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0, k = 0; i < f->jobs.n; i++)
		for (size_t s = 0; s < f->jobs.v[i].n_scan_ids; s++)
			f->scan_ids[k++] = f->jobs.v[i].scan_ids[s];
	f->n_scans = sort_unique(f->scan_ids, n);
	for (size_t i = 0; i < f->n_scans; i++) {
		st_distiller_api_scan sc;
		char path[48], *shown = NULL;
		int rc;

		snprintf(path, sizeof(path), "/api/v1/scans/%lld",
			 (long long)f->scan_ids[i]);
		rc = get(f, path, &shown, err);
		if (rc == 0 && f->http.status == 404) {
			st_warn(log, "%s has no scan %lld (HTTP 404 for %s): "
				"its rows are left out", SERVICE,
				(long long)f->scan_ids[i], shown);
			f->sizes[i] = -1;
			free(shown);
			continue;
		}
		if (rc == 0 && f->http.status != 200)
			rc = http_error(&f->http, shown, f->credentials, err);
		if (rc == 0)
			rc = st_distiller_api_parse_scan(f->http.body ?
							 f->http.body : "",
							 f->http.body_len,
							 shown, &sc, err);
		if (rc == 0 && sc.id != f->scan_ids[i])
			rc = st_error_set(err, ST_EXIT_DATAERR, "%s response "
					  "of %s: 'id' is %lld", SERVICE, shown,
					  (long long)sc.id);
		free(shown);
		if (rc < 0)
			return -1;
		f->sizes[i] = sc.size;
	}
	return 0;
}

/* The size index of scan ID, or -1 when it matches no size of the query. */
static long size_index(const struct fetch *f, int64_t id)
{
	const int64_t *p = bsearch(&id, f->scan_ids, f->n_scans,
				   sizeof(*p), st_cmp_i64);
	int64_t size = p ? f->sizes[p - f->scan_ids] : 0;

	for (size_t i = 0; size > 0 && i < f->q->n_sizes; i++)
		if (f->q->sizes[i] == size)
			return (long)i;
	return -1;
}

/* The client: the API key and the bearer token as headers.  The
 * "Bearer TOKEN" value is built here and wiped at once. */
static int client_init(struct fetch *f, st_error *err)
{
	const st_distiller_api_opts *o = f->o;
	st_http_header hd[2];
	st_http_opts ho = {
		.service = SERVICE, .url = o->url, .headers = hd,
		.cacert = o->cacert, .timeout_s = o->timeout_s,
		.retries = o->retries, .keep_header = "X-Total-Count",
		.max_body = o->max_body,
	};
	char *bearer = NULL;
	int rc;

	if (o->api_key && (!*o->api_key || !st_http_header_safe(o->api_key)))
		return st_error_set(err, ST_EXIT_USAGE, "the API key for %s is "
				    "empty or contains a control character",
				    SERVICE);
	if (o->token && (!*o->token || !st_http_header_safe(o->token)))
		return st_error_set(err, ST_EXIT_USAGE, "the token for %s is "
				    "empty or contains a control character",
				    SERVICE);
	if (o->api_key)
		hd[ho.n_headers++] = (st_http_header){
			o->api_key_header ? o->api_key_header : "X-API-KEY",
			o->api_key };
	if (o->token) {
		if (asprintf(&bearer, "Bearer %s", o->token) < 0)
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		hd[ho.n_headers++] = (st_http_header){ "Authorization", bearer };
	}
	f->credentials = ho.n_headers > 0;
	rc = st_http_client_init(&f->http, &ho, err);
	if (bearer) {
		explicit_bzero(bearer, strlen(bearer));
		free(bearer);
	}
	return rc;
}

int st_distiller_api_fetch(const st_distiller_api_opts *o,
			   const st_distiller_query *q, st_distiller_sink sink,
			   void *ctx, st_log *log, st_error *err)
{
	struct fetch f = { .o = o, .q = q };
	int ret = -1;

	if (client_init(&f, err) < 0)
		return -1;
	if (fetch_jobs(&f, err) < 0 || fetch_scans(&f, log, err) < 0)
		goto out;
	for (size_t i = 0; i < f.jobs.n; i++) {
		const st_distiller_api_job *j = &f.jobs.v[i];

		for (size_t s = 0; s < j->n_scan_ids; s++) {
			long k = size_index(&f, j->scan_ids[s]);
			st_distiller_row row = {
				.job_id = j->id, .scan_id = j->scan_ids[s],
				.has_slurm_id = j->has_slurm_id,
				.slurm_id = j->slurm_id,
				.has_elapsed = j->has_elapsed,
				.elapsed = j->elapsed,
			};

			if (k < 0)
				continue;
			row.size_index = (size_t)k;
			if (sink(ctx, &row, err) < 0)
				goto out;
		}
	}
	ret = 0;
out:
	st_distiller_api_jobs_release(&f.jobs);
	free(f.scan_ids);
	free(f.sizes);
	st_http_client_release(&f.http);
	return ret;
}
