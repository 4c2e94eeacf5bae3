/* session.c - a session file: names, experiments, the save-time map and
 * where every input is (session.h, docs/sessions.md). */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "streamtime/atomic.h"
#include "streamtime/http.h"
#include "streamtime/session.h"

static const char *const role_names[] = {
	[ST_ROLE_COUNTING] = "counting",
	[ST_ROLE_RECEIVER] = "receiver",
	[ST_ROLE_STREAMING] = "streaming",
	[ST_ROLE_OTHER] = "other",
};

const char *st_trace_role_name(st_trace_role r)
{
	return (unsigned)r < sizeof(role_names) / sizeof(role_names[0]) ?
	       role_names[r] : "other";
}

static void live_release(st_session_live *l)
{
	free(l->since);
	free(l->until);
	free(l->user);
	free(l->url);
	free(l->token_file);
	free(l->dsn_file);
	free(l->service);
	free(l->job_type);
}

void st_session_release(st_session *s)
{
	if (!s)
		return;
	for (size_t i = 0; s->h5 && i < s->nh5; i++)
		free(s->h5[i]);
	free(s->h5);
	st_experiments_release(&s->ex);
	free(s->file);
	free(s->instrument);
	free(s->acquisition_site);
	free(s->compute_site);
	free(s->save_rules);
	free(s->slurm_jobs);
	free(s->distiller);
	live_release(&s->slurm_live);
	live_release(&s->distiller_live);
	free(s->write_times);
	free(s->created_times);
	free(s->save_times);
	free(s->save_stats);
	free(s->scan_times);
	free(s->clock_offsets);
	free(s->receiver_hosts);
	free(s->data_host);
	free(s->nersc_host);
	for (size_t i = 0; i < s->ntraces; i++) {
		st_trace_input *t = &s->traces[i];

		free(t->label);
		for (size_t k = 0; k < t->npaths; k++)
			free(t->paths[k]);
		free(t->paths);
	}
	free(s->traces);
	memset(s, 0, sizeof(*s));
}

/* ---- reading the JSON -------------------------------------------------- */

/* What a parse needs at hand: the file (for messages) and the directory
 * its relative paths start from. */
struct ctx {
	const char *file;
	const char *dir;
	st_error *err;
};

static int oom(struct ctx *c)
{
	return st_error_set(c->err, ST_EXIT_IOERR, "out of memory");
}

static int bad(struct ctx *c, const char *key, const char *what)
{
	return st_error_set(c->err, ST_EXIT_CONFIG, "%s: %s %s", c->file, key,
			    what);
}

/* A copy of the string V (KEY names it), or a default: DEF when V is NULL.
 * *OUT NULL when both are. */
static int get_str(struct ctx *c, json_t *v, const char *key, const char *def,
		   char **out)
{
	*out = NULL;
	if (!v && !def)
		return 0;
	if (v && (!json_is_string(v) || !*json_string_value(v) ||
		  strlen(json_string_value(v)) != json_string_length(v)))
		return bad(c, key, "must be a non-empty string");
	*out = strdup(v ? json_string_value(v) : def);
	return *out ? 0 : oom(c);
}

/* P resolved against the session's directory: as it is when absolute
 * (or the directory is "."), in a new string; NULL when memory runs out. */
static char *resolve(const struct ctx *c, const char *p)
{
	return p[0] == '/' || !strcmp(c->dir, ".") ? strdup(p) :
	       st_path_join(c->dir, p);
}

/* The path V (a string, KEY names it) resolved against the session's
 * directory: kept as it is when absolute. */
static int get_path(struct ctx *c, json_t *v, const char *key, char **out)
{
	const char *p;

	*out = NULL;
	if (!v)
		return 0;
	if (!json_is_string(v) || !*json_string_value(v) ||
	    strlen(json_string_value(v)) != json_string_length(v))
		return bad(c, key, "must be a path (a non-empty string)");
	p = json_string_value(v);
	*out = resolve(c, p);
	return *out ? 0 : oom(c);
}

static int check_keys(struct ctx *c, json_t *obj, const char *const keys[],
		      size_t n, const char *where)
{
	if (!json_is_object(obj))
		return bad(c, where, "must be an object");
	return st_experiments_check_keys(obj, keys, n, c->file, where, c->err);
}

static int read_names(struct ctx *c, json_t *root, st_session *s)
{
	static const char *const keys[] = { "instrument", "acquisition_site",
					    "compute_site" };
	json_t *n = json_object_get(root, "names");

	if (n && check_keys(c, n, keys, 3, "names") < 0)
		return -1;
	return get_str(c, json_object_get(n, "instrument"), "names.instrument",
		       "4D Camera", &s->instrument) < 0 ||
	       get_str(c, json_object_get(n, "acquisition_site"),
		       "names.acquisition_site", "NCEM",
		       &s->acquisition_site) < 0 ||
	       get_str(c, json_object_get(n, "compute_site"),
		       "names.compute_site", "NERSC", &s->compute_site) < 0 ?
	       -1 : 0;
}

/* One rule of "save_time_map": {"scans": [first, last], "type": "Real" |
 * "Blank", "sizes": [s, ...]}. */
static int read_rule(struct ctx *c, json_t *o, const char *where,
		     st_save_rule *r)
{
	static const char *const keys[] = { "scans", "type", "sizes",
					    "description" };
	json_t *sc = json_object_get(o, "scans"), *ty = json_object_get(o, "type");
	json_t *sz = json_object_get(o, "sizes");
	char key[96];

	if (check_keys(c, o, keys, 4, where) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s.scans", where);
	if (!json_is_array(sc) || json_array_size(sc) != 2 ||
	    !json_is_integer(json_array_get(sc, 0)) ||
	    !json_is_integer(json_array_get(sc, 1)) ||
	    json_integer_value(json_array_get(sc, 0)) < 0 ||
	    json_integer_value(json_array_get(sc, 0)) >
	    json_integer_value(json_array_get(sc, 1)))
		return bad(c, key, "must be [first, last] scan numbers, "
			   "0 <= first <= last");
	r->scans.first = json_integer_value(json_array_get(sc, 0));
	r->scans.last = json_integer_value(json_array_get(sc, 1));
	snprintf(key, sizeof(key), "%s.type", where);
	if (!json_is_string(ty) || (strcmp(json_string_value(ty), "Real") &&
				    strcmp(json_string_value(ty), "Blank")))
		return bad(c, key, "must be \"Real\" or \"Blank\"");
	r->blank = !strcmp(json_string_value(ty), "Blank");
	snprintf(key, sizeof(key), "%s.sizes", where);
	if (!json_is_array(sz) || json_array_size(sz) == 0 ||
	    json_array_size(sz) > sizeof(r->sizes) / sizeof(r->sizes[0]))
		return bad(c, key, "must be 1 to 8 scan sizes (taken in turn "
			   "along the scans)");
	r->nsizes = json_array_size(sz);
	for (size_t i = 0; i < r->nsizes; i++) {
		json_t *v = json_array_get(sz, i);

		if (!json_is_integer(v) || json_integer_value(v) <= 0)
			return bad(c, key, "must hold positive integers");
		r->sizes[i] = json_integer_value(v);
	}
	return 0;
}

static int read_save_map(struct ctx *c, json_t *root, st_session *s)
{
	json_t *m = json_object_get(root, "save_time_map");
	size_t n;
	const st_save_rule *paper;

	if (!m) {       /* the paper's notebook's map */
		paper = st_save_rules_paper(&n);
		s->save_rules = malloc(n * sizeof(*s->save_rules));
		if (!s->save_rules)
			return oom(c);
		memcpy(s->save_rules, paper, n * sizeof(*paper));
		s->nsave_rules = n;
		return 0;
	}
	if (!json_is_array(m) || json_array_size(m) == 0)
		return bad(c, "save_time_map", "must be a non-empty array of "
			   "{\"scans\", \"type\", \"sizes\"}");
	s->save_rules = calloc(json_array_size(m), sizeof(*s->save_rules));
	if (!s->save_rules)
		return oom(c);
	for (size_t i = 0; i < json_array_size(m); i++) {
		char where[48];

		snprintf(where, sizeof(where), "save_time_map[%zu]", i);
		if (read_rule(c, json_array_get(m, i), where,
			      &s->save_rules[i]) < 0)
			return -1;
		s->nsave_rules++;
	}
	return 0;
}

/* "receiver_hosts": ["rec0", "rec1", ...] into "rec0,rec1,...". */
static int read_hosts(struct ctx *c, json_t *v, char **out)
{
	size_t len = 0;

	if (!json_is_array(v) || json_array_size(v) == 0)
		return bad(c, "inputs.clock.receiver_hosts", "must be the hosts "
			   "whose clocks stamped time0, time1, ... (an array "
			   "of names)");
	for (size_t i = 0; i < json_array_size(v); i++) {
		json_t *h = json_array_get(v, i);

		if (!json_is_string(h) || !*json_string_value(h) ||
		    strpbrk(json_string_value(h), ", \t\n") ||
		    strlen(json_string_value(h)) != json_string_length(h))
			return bad(c, "inputs.clock.receiver_hosts", "must hold "
				   "host names without commas or spaces");
		len += json_string_length(h) + 1;
	}
	*out = calloc(1, len + 1);
	if (!*out)
		return oom(c);
	for (size_t i = 0; i < json_array_size(v); i++) {
		if (i)
			strcat(*out, ",");
		strcat(*out, json_string_value(json_array_get(v, i)));
	}
	return 0;
}

static int read_clock(struct ctx *c, json_t *v, st_session *s)
{
	static const char *const keys[] = { "offsets", "receiver_hosts",
					    "data_host", "nersc_host" };

	if (!v)
		return 0;
	if (check_keys(c, v, keys, 4, "inputs.clock") < 0)
		return -1;
	if (!json_object_get(v, "offsets"))
		return bad(c, "inputs.clock", "needs \"offsets\" (a clock probe "
			   "file)");
	return get_path(c, json_object_get(v, "offsets"),
			"inputs.clock.offsets", &s->clock_offsets) < 0 ||
	       read_hosts(c, json_object_get(v, "receiver_hosts"),
			  &s->receiver_hosts) < 0 ||
	       get_str(c, json_object_get(v, "data_host"),
		       "inputs.clock.data_host", NULL, &s->data_host) < 0 ||
	       get_str(c, json_object_get(v, "nersc_host"),
		       "inputs.clock.nersc_host", NULL, &s->nersc_host) < 0 ?
	       -1 : 0;
}

static int read_trace(struct ctx *c, json_t *o, const char *where,
		      st_trace_input *t)
{
	static const char *const keys[] = { "label", "role", "paths",
					    "description" };
	json_t *role = json_object_get(o, "role"), *paths;
	char key[96];
	size_t r;

	if (check_keys(c, o, keys, 4, where) < 0)
		return -1;
	snprintf(key, sizeof(key), "%s.label", where);
	if (get_str(c, json_object_get(o, "label"), key, NULL, &t->label) < 0)
		return -1;
	if (!t->label)
		return bad(c, key, "is missing (the report names the set by "
			   "it)");
	snprintf(key, sizeof(key), "%s.role", where);
	for (r = 0; r < sizeof(role_names) / sizeof(role_names[0]); r++)
		if (json_is_string(role) &&
		    !strcmp(json_string_value(role), role_names[r]))
			break;
	if (r == sizeof(role_names) / sizeof(role_names[0]))
		return bad(c, key, "must be \"counting\", \"receiver\", "
			   "\"streaming\" or \"other\"");
	t->role = (st_trace_role)r;
	snprintf(key, sizeof(key), "%s.paths", where);
	paths = json_object_get(o, "paths");
	if (!json_is_array(paths) || json_array_size(paths) == 0)
		return bad(c, key, "must be a non-empty array of trace files or "
			   "directories");
	t->paths = calloc(json_array_size(paths), sizeof(*t->paths));
	if (!t->paths)
		return oom(c);
	for (size_t i = 0; i < json_array_size(paths); i++) {
		snprintf(key, sizeof(key), "%s.paths[%zu]", where, i);
		if (get_path(c, json_array_get(paths, i), key,
			     &t->paths[i]) < 0)
			return -1;
		t->npaths++;
	}
	return 0;
}

static int read_traces(struct ctx *c, json_t *v, st_session *s)
{
	if (!v)
		return 0;
	if (!json_is_array(v))
		return bad(c, "inputs.traces", "must be an array of trace sets");
	s->traces = calloc(json_array_size(v) + 1, sizeof(*s->traces));
	if (!s->traces)
		return oom(c);
	for (size_t i = 0; i < json_array_size(v); i++) {
		char where[48];

		snprintf(where, sizeof(where), "inputs.traces[%zu]", i);
		s->ntraces++;
		if (read_trace(c, json_array_get(v, i), where,
			       &s->traces[i]) < 0)
			return -1;
	}
	return 0;
}

/* Member KEY of the live query Q (WHERE names it) as a string or a path
 * resolved against the session; messages name WHERE.KEY. */
static int live_str(struct ctx *c, json_t *q, const char *where,
		    const char *key, char **out)
{
	char k[96];

	snprintf(k, sizeof(k), "%s.%s", where, key);
	return get_str(c, json_object_get(q, key), k, NULL, out);
}

static int live_path(struct ctx *c, json_t *q, const char *where,
		     const char *key, char **out)
{
	char k[96];

	snprintf(k, sizeof(k), "%s.%s", where, key);
	return get_path(c, json_object_get(q, key), k, out);
}

/* The query's "url": no password in it (provenance.json shows the
 * server; a password goes in token_file). */
static int live_url(struct ctx *c, json_t *q, const char *where, char **out)
{
	char k[96];
	size_t off, len;

	snprintf(k, sizeof(k), "%s.url", where);
	if (get_str(c, json_object_get(q, "url"), k, NULL, out) < 0)
		return -1;
	if (*out && st_http_url_password(*out, &off, &len))
		return bad(c, k, "holds a password: give the token in "
			   "token_file instead (the URL is written in "
			   "provenance.json)");
	return 0;
}

/* "slurm_jobs": a file, {"sacct": {...}} or {"slurmrestd": {...}}. */
static int read_slurm(struct ctx *c, json_t *v, st_session *s)
{
	static const char *const kinds[] = { "sacct", "slurmrestd" };
	static const char *const sacct_keys[] = { "since", "until", "user",
						  "all_users" };
	static const char *const rest_keys[] = { "url", "token_file", "since",
						 "until", "user" };
	st_session_live *l = &s->slurm_live;
	json_t *q;
	char where[64];
	bool rest;

	if (!v || json_is_string(v))
		return get_path(c, v, "inputs.slurm_jobs", &s->slurm_jobs);
	if (check_keys(c, v, kinds, 2, "inputs.slurm_jobs") < 0)
		return -1;
	if (json_object_size(v) != 1)
		return bad(c, "inputs.slurm_jobs", "must be a file, or one of "
			   "{\"sacct\": {...}} and {\"slurmrestd\": {...}}");
	rest = json_object_get(v, "slurmrestd") != NULL;
	q = json_object_get(v, rest ? "slurmrestd" : "sacct");
	snprintf(where, sizeof(where), "inputs.slurm_jobs.%s",
		 rest ? "slurmrestd" : "sacct");
	if (rest ? check_keys(c, q, rest_keys, 5, where) < 0 :
	    check_keys(c, q, sacct_keys, 4, where) < 0)
		return -1;
	s->slurm_source = rest ? ST_SLURM_REST : ST_SLURM_SACCT;
	if (json_object_get(q, "all_users") &&
	    !json_is_boolean(json_object_get(q, "all_users")))
		return bad(c, "inputs.slurm_jobs.sacct.all_users", "must be true "
			   "or false");
	l->all_users = json_is_true(json_object_get(q, "all_users"));
	if (rest && !json_object_get(q, "url"))
		return bad(c, where, "needs \"url\" (slurmrestd's)");
	return live_str(c, q, where, "since", &l->since) < 0 ||
	       live_str(c, q, where, "until", &l->until) < 0 ||
	       live_str(c, q, where, "user", &l->user) < 0 ||
	       live_url(c, q, where, &l->url) < 0 ||
	       live_path(c, q, where, "token_file", &l->token_file) < 0 ? -1 : 0;
}

/* "distiller": files, {"postgresql": {...}} or {"api": {...}}. */
static int read_distiller(struct ctx *c, json_t *v, st_session *s)
{
	static const char *const kinds[] = { "postgresql", "api" };
	static const char *const pg_keys[] = { "dsn_file", "service",
					       "job_type" };
	static const char *const api_keys[] = { "url", "token_file",
						"job_type" };
	st_session_live *l = &s->distiller_live;
	json_t *q;
	char where[64];
	bool api;

	if (!v || json_is_string(v))
		return get_path(c, v, "inputs.distiller", &s->distiller);
	if (check_keys(c, v, kinds, 2, "inputs.distiller") < 0)
		return -1;
	if (json_object_size(v) != 1)
		return bad(c, "inputs.distiller", "must be files, or one of "
			   "{\"postgresql\": {...}} and {\"api\": {...}}");
	api = json_object_get(v, "api") != NULL;
	q = json_object_get(v, api ? "api" : "postgresql");
	snprintf(where, sizeof(where), "inputs.distiller.%s",
		 api ? "api" : "postgresql");
	if (api ? check_keys(c, q, api_keys, 3, "inputs.distiller.api") < 0 :
	    check_keys(c, q, pg_keys, 3, "inputs.distiller.postgresql") < 0)
		return -1;
	s->distiller_source = api ? ST_DISTILLER_API : ST_DISTILLER_PG;
	if (api && !json_object_get(q, "url"))
		return bad(c, "inputs.distiller.api", "needs \"url\"");
	if (!api && !json_object_get(q, "dsn_file") ==
	    !json_object_get(q, "service"))
		return bad(c, "inputs.distiller.postgresql", "needs \"dsn_file\" "
			   "(a file holding the DSN) or \"service\" (a "
			   "pg_service.conf name), one of them: never a DSN "
			   "inline, it may hold a password");
	if (live_url(c, q, where, &l->url) < 0 ||
	    live_path(c, q, where, "token_file", &l->token_file) < 0 ||
	    live_path(c, q, where, "dsn_file", &l->dsn_file) < 0 ||
	    live_str(c, q, where, "service", &l->service) < 0 ||
	    live_str(c, q, where, "job_type", &l->job_type) < 0)
		return -1;
	/* a service is a name in pg_service.conf: a conninfo in its place
	 * ("x password=...") would be a DSN inline */
	if (l->service && strspn(l->service, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
				 "abcdefghijklmnopqrstuvwxyz0123456789_.-") !=
	    strlen(l->service))
		return bad(c, "inputs.distiller.postgresql.service", "must be a "
			   "pg_service.conf name (letters, digits, '_', '.', "
			   "'-'), not a connection string");
	return 0;
}

/* The experiments' H5 files: each experiment's own "h5" (relative to the
 * session file), else inputs.scan_times. */
static int read_h5(struct ctx *c, json_t *in, st_session *s)
{
	char *all = NULL;

	if (get_path(c, json_object_get(in, "scan_times"), "inputs.scan_times",
		     &all) < 0)
		return -1;
	if (all && !(s->scan_times = strdup(all))) {
		free(all);
		return oom(c);
	}
	s->h5 = calloc(s->ex.n + 1, sizeof(*s->h5));
	if (!s->h5) {
		free(all);
		return oom(c);
	}
	s->nh5 = s->ex.n;
	for (size_t i = 0; i < s->ex.n; i++) {
		const char *h = s->ex.v[i].h5;

		if (!h && !all) {
			free(all);
			return st_error_set(c->err, ST_EXIT_CONFIG, "%s: "
				"experiments[%zu] has no \"h5\" and there is no "
				"inputs.scan_times (collect h5's file) for it",
				c->file, i);
		}
		s->h5[i] = h ? resolve(c, h) : strdup(all);
		if (!s->h5[i]) {
			free(all);
			return oom(c);
		}
	}
	free(all);
	return 0;
}

static int read_inputs(struct ctx *c, json_t *in, st_session *s)
{
	static const char *const keys[] = {
		"write_times", "created_times", "scan_times", "slurm_jobs",
		"distiller", "save_times", "save_time_stats", "clock",
		"traces",
	};

	if (check_keys(c, in, keys, sizeof(keys) / sizeof(keys[0]),
		       "inputs") < 0)
		return -1;
	if (json_object_get(in, "save_times") &&
	    json_object_get(in, "save_time_stats"))
		return bad(c, "inputs", "takes \"save_times\" (the records) or "
			   "\"save_time_stats\" (their statistics), not both");
	return get_path(c, json_object_get(in, "write_times"),
			"inputs.write_times", &s->write_times) < 0 ||
	       get_path(c, json_object_get(in, "created_times"),
			"inputs.created_times", &s->created_times) < 0 ||
	       read_slurm(c, json_object_get(in, "slurm_jobs"), s) < 0 ||
	       read_distiller(c, json_object_get(in, "distiller"), s) < 0 ||
	       get_path(c, json_object_get(in, "save_times"),
			"inputs.save_times", &s->save_times) < 0 ||
	       get_path(c, json_object_get(in, "save_time_stats"),
			"inputs.save_time_stats", &s->save_stats) < 0 ||
	       read_clock(c, json_object_get(in, "clock"), s) < 0 ||
	       read_traces(c, json_object_get(in, "traces"), s) < 0 ||
	       read_h5(c, in, s) < 0 ? -1 : 0;
}

/* The paper's layout under DATA: every input where `reproduce --data`
 * has always looked for it. */
static int paper_inputs(st_session *s, const char *data, st_error *err)
{
	char *ft = st_path_join(data, "file_transfer");
	char *st = st_path_join(data, "streaming");
	int rc = -1;

	s->paper_layout = true;
	if (!ft || !st)
		goto out;
	s->slurm_jobs = st_path_join(ft, "slurm_job_info.csv");
	s->distiller = st_path_join(ft, "distiller_db");
	s->write_times = st_path_join(ft, "write_times.csv");
	s->save_stats = st_path_join(ft, "save_time_stats.csv");
	s->save_times = st_path_join(ft, "save_times.json");
	s->created_times = st_path_join(st, "ncem_file_created_times.csv");
	s->h5 = calloc(s->ex.n + 1, sizeof(*s->h5));
	s->nh5 = s->h5 ? s->ex.n : 0;
	if (!s->slurm_jobs || !s->distiller || !s->write_times ||
	    !s->save_stats || !s->save_times || !s->created_times || !s->h5)
		goto out;
	for (size_t i = 0; i < s->ex.n; i++) {
		if (!s->ex.v[i].h5) {
			st_error_set(err, ST_EXIT_CONFIG, "experiments[%zu] has "
				     "no \"h5\" (the paper's layout needs one "
				     "per size)", i);
			free(ft);
			free(st);
			return -1;
		}
		s->h5[i] = st_path_join(st, s->ex.v[i].h5);
		if (!s->h5[i])
			goto out;
	}
	/* the statistics when they are there, else made from the records */
	if (!st_path_is_file(s->save_stats)) {
		free(s->save_stats);
		s->save_stats = NULL;
	} else {
		free(s->save_times);
		s->save_times = NULL;
	}
	rc = 0;
out:
	free(ft);
	free(st);
	if (rc < 0)
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
	return rc;
}

/* Parse the session file PATH.  DATA non-NULL: a file without "inputs"
 * takes DATA's paper layout (else its own directory's). */
static int load(st_session *s, const char *path, const char *data,
		st_error *err)
{
	static const char *const keys[] = {
		"version", "description", "synthetic", "names", "tz",
		"slurm_tz", "max_elapsed", "experiments", "save_time_map",
		"inputs",
	};
	json_error_t jerr;
	json_t *root, *v, *in;
	char *copy = strdup(path);
	struct ctx c = { path, copy ? dirname(copy) : ".", err };
	FILE *f;
	int rc = -1;

	memset(s, 0, sizeof(*s));
	if (!copy)
		return st_error_set(err, ST_EXIT_CONFIG, "out of memory");
	f = fopen(path, "r");
	if (!f) {
		st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s", path,
			     strerror(errno));
		free(copy);
		return -1;
	}
	root = json_loadf(f, JSON_REJECT_DUPLICATES, &jerr);
	fclose(f);
	if (!root) {
		st_error_set(err, ST_EXIT_CONFIG, "%s:%d: %s", path, jerr.line,
			     jerr.text);
		free(copy);
		return -1;
	}
	if (!json_is_object(root)) {
		st_error_set(err, ST_EXIT_CONFIG, "%s: expected a JSON object",
			     path);
		goto out;
	}
	if (st_experiments_check_keys(root, keys, sizeof(keys) / sizeof(keys[0]),
				      path, "the top level", err) < 0)
		goto out;
	v = json_object_get(root, "version");
	if (v && (!json_is_integer(v) || json_integer_value(v) < 1 ||
		  json_integer_value(v) > ST_SESSION_VERSION)) {
		st_error_set(err, ST_EXIT_CONFIG, "%s: version must be 1 to %d "
			     "(a newer streamtime reads newer sessions)", path,
			     ST_SESSION_VERSION);
		goto out;
	}
	v = json_object_get(root, "synthetic");
	if (v && !json_is_boolean(v)) {
		bad(&c, "synthetic", "must be true or false");
		goto out;
	}
	s->synthetic = json_is_true(v);
	in = json_object_get(root, "inputs");
	s->file = strdup(path);
	if (!s->file) {
		oom(&c);
		goto out;
	}
	if (read_names(&c, root, s) < 0 || read_save_map(&c, root, s) < 0 ||
	    st_experiments_from_json(&s->ex, root, path, in != NULL, err) < 0)
		goto out;
	if (in && data) {
		/* --data DIR takes DIR's files: a file that names its own
		 * would have them silently ignored */
		st_error_set(err, ST_EXIT_CONFIG, "%s: 'inputs' names the "
			     "session's own files: run reproduce --session %s "
			     "(--data and --config take a dataset in the paper's "
			     "layout)", path, path);
		goto out;
	}
	if (in ? read_inputs(&c, in, s) < 0 :
	    paper_inputs(s, data ? data : c.dir, err) < 0)
		goto out;
	rc = 0;
out:
	json_decref(root);
	free(copy);
	if (rc < 0)
		st_session_release(s);
	return rc;
}

int st_session_load(st_session *s, const char *path, st_error *err)
{
	return load(s, path, NULL, err);
}

int st_session_for_data(st_session *s, const char *data, const char *config,
			st_error *err)
{
	char *auto_config = NULL;
	int rc;

	if (!config) {
		auto_config = st_path_join(data, "experiments.json");
		if (!auto_config)
			return st_error_set(err, ST_EXIT_CONFIG, "out of memory");
		if (st_path_is_file(auto_config))
			config = auto_config;
	}
	if (config) {
		rc = load(s, config, data, err);
		free(auto_config);
		return rc;
	}
	free(auto_config);
	/* the paper's experiments, built in: a session file holding nothing,
	 * read as any other (the names', the map's defaults) */
	{
		json_t *none = json_object();
		struct ctx c = { "the paper's experiments (built in)", data, err };

		memset(s, 0, sizeof(*s));
		rc = !none ? oom(&c) : read_names(&c, none, s) < 0 ||
		     read_save_map(&c, none, s) < 0 ||
		     st_experiments_default(&s->ex, err) < 0 ||
		     paper_inputs(s, data, err) < 0 ? -1 : 0;
		json_decref(none);
	}
	if (rc < 0)
		st_session_release(s);
	return rc;
}

int st_experiments_load(st_experiments *ex, const char *path, st_error *err)
{
	st_session s;

	if (load(&s, path, NULL, err) < 0) {
		memset(ex, 0, sizeof(*ex));
		return -1;
	}
	*ex = s.ex;
	memset(&s.ex, 0, sizeof(s.ex));
	for (size_t i = 0; s.h5 && i < s.nh5; i++)
		free(s.h5[i]);
	free(s.h5);
	s.h5 = NULL;
	st_session_release(&s);
	return 0;
}

int st_experiments_given(st_experiments *ex, const char *config,
			 const char *data, char **used, st_error *err)
{
	char *auto_config = NULL;
	int rc;

	*used = NULL;
	if (!config && data) {
		auto_config = st_path_join(data, "experiments.json");
		if (auto_config && st_path_is_file(auto_config))
			config = auto_config;
	}
	rc = config ? st_experiments_load(ex, config, err)
		    : st_experiments_default(ex, err);
	if (rc == 0 && config && !(*used = strdup(config))) {
		st_experiments_release(ex);
		rc = st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	free(auto_config);
	return rc;
}

/* ---- checking and listing the inputs ------------------------------------ */

static int need(const st_session *s, const char *key, const char *path,
		bool dir_ok, st_error *err)
{
	struct stat st;

	if (!path)
		return st_error_set(err, ST_EXIT_CONFIG, "%s: %s is not given, and "
				    "the chain needs it", s->file ? s->file :
				    "the session", key);
	if (stat(path, &st) < 0)
		return st_error_set(err, ST_EXIT_NOINPUT, "%s%s%s: cannot open "
				    "%s: %s", s->file && !s->paper_layout ?
				    s->file : "", s->file && !s->paper_layout ?
				    ": " : "", key, path, strerror(errno));
	if (!S_ISREG(st.st_mode) && !(dir_ok && S_ISDIR(st.st_mode)))
		return st_error_set(err, ST_EXIT_NOINPUT, "%s: %s is not a %s",
				    key, path, dir_ok ? "file or directory" :
				    "file");
	return 0;
}

int st_session_check(const st_session *s, st_error *err)
{
	const st_session_live *sl = &s->slurm_live, *dl = &s->distiller_live;

	if ((s->slurm_source == ST_SLURM_FILE ?
	     need(s, "inputs.slurm_jobs", s->slurm_jobs, false, err) < 0 :
	     sl->token_file && need(s, "inputs.slurm_jobs.slurmrestd.token_file",
				    sl->token_file, false, err) < 0) ||
	    (s->distiller_source == ST_DISTILLER_FILES ?
	     need(s, "inputs.distiller", s->distiller, true, err) < 0 :
	     (dl->token_file && need(s, "inputs.distiller.api.token_file",
				     dl->token_file, false, err) < 0) ||
	     (dl->dsn_file && need(s, "inputs.distiller.postgresql.dsn_file",
				   dl->dsn_file, false, err) < 0)) ||
	    need(s, "inputs.write_times", s->write_times, false, err) < 0 ||
	    need(s, "inputs.created_times", s->created_times, false, err) < 0)
		return -1;
	if (s->save_stats ? need(s, "inputs.save_time_stats", s->save_stats,
				 false, err) < 0 :
	    need(s, "inputs.save_times", s->save_times, false, err) < 0)
		return -1;
	if (s->clock_offsets &&
	    need(s, "inputs.clock.offsets", s->clock_offsets, false, err) < 0)
		return -1;
	for (size_t i = 0; i < s->nh5; i++) {
		char key[64];

		snprintf(key, sizeof(key), "experiments[%zu].h5", i);
		if (need(s, s->scan_times && !strcmp(s->h5[i], s->scan_times) ?
			 "inputs.scan_times" : key, s->h5[i], false, err) < 0)
			return -1;
	}
	for (size_t i = 0; i < s->ntraces; i++)
		for (size_t k = 0; k < s->traces[i].npaths; k++) {
			char key[64];

			snprintf(key, sizeof(key), "inputs.traces[%zu].paths[%zu]",
				 i, k);
			if (need(s, key, s->traces[i].paths[k], true, err) < 0)
				return -1;
		}
	return 0;
}

static void push(st_session_input *v, size_t *n, const char *key,
		 const char *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < *n; i++)
		if (!strcmp(v[i].path, p))
			return;
	snprintf(v[*n].key, sizeof(v[*n].key), "%s", key);
	v[(*n)++].path = p;
}

st_session_input *st_session_inputs(const st_session *s, size_t *n)
{
	size_t cap = 16 + s->nh5;
	st_session_input *v;

	for (size_t i = 0; i < s->ntraces; i++)
		cap += s->traces[i].npaths;
	v = calloc(cap, sizeof(*v));
	*n = 0;
	if (!v)
		return NULL;
	push(v, n, "session", s->file);
	push(v, n, "inputs.slurm_jobs", s->slurm_jobs);
	push(v, n, "inputs.distiller", s->distiller);
	push(v, n, "inputs.write_times", s->write_times);
	push(v, n, "inputs.created_times", s->created_times);
	for (size_t i = 0; i < s->nh5; i++) {
		char key[48];

		snprintf(key, sizeof(key), s->scan_times &&
			 !strcmp(s->h5[i], s->scan_times) ? "inputs.scan_times" :
			 "experiments[%zu].h5", i);
		push(v, n, key, s->h5[i]);
	}
	if (s->save_stats)
		push(v, n, "inputs.save_time_stats", s->save_stats);
	else
		push(v, n, "inputs.save_times", s->save_times);
	push(v, n, "inputs.clock.offsets", s->clock_offsets);
	for (size_t i = 0; i < s->ntraces; i++)
		for (size_t k = 0; k < s->traces[i].npaths; k++) {
			char key[48];

			snprintf(key, sizeof(key), "inputs.traces[%zu]", i);
			push(v, n, key, s->traces[i].paths[k]);
		}
	return v;
}
