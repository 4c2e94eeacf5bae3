/* slurmrest.c - Slurm accounting rows from slurmrestd's /slurmdb/vX/jobs. */
#include <jansson.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "streamtime/http.h"
#include "streamtime/slurmrest.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

#define ERR_EMPTY_RESULT 9003           /* ESLURM_REST_EMPTY_RESULT */
#define SLURM_NO_VAL INT64_C(0xfffffffe)
#define SLURM_INFINITE INT64_C(0xffffffff)
#define MAX_EPOCH (INT64_MAX / ST_NS_PER_SEC)

/* Newest first: the order of auto-detection. */
static const char *const versions[] = {
	"v0.0.41", "v0.0.40", "v0.0.39", "v0.0.38",
};

/* 38..41 for a version we know, 0 for anything else. */
static int version_minor(const char *v)
{
	for (size_t i = 0; v && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (strcmp(v, versions[i]) == 0)
			return 41 - (int)i;
	return 0;
}

/* ---- one job ---- */

/* How a number reads in either schema: an integer (null for NO_VAL or
 * INFINITE up to v0.0.38) or {set, infinite, number} (v0.0.39 on). */
enum num { NUM_ABSENT, NUM_NULL, NUM_UNSET, NUM_INFINITE, NUM_SET, NUM_BAD };

static enum num num_read(const json_t *v, json_int_t *out)
{
	*out = 0;
	if (!v)
		return NUM_ABSENT;
	if (json_is_null(v))
		return NUM_NULL;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return NUM_SET;
	}
	if (json_is_real(v)) {
		double d = json_real_value(v);

		if (!(d > -9e18 && d < 9e18) || (double)(json_int_t)d != d)
			return NUM_BAD;
		*out = (json_int_t)d;
		return NUM_SET;
	}
	if (json_is_object(v)) {
		const json_t *set = json_object_get(v, "set");
		const json_t *inf = json_object_get(v, "infinite");

		if ((set && !json_is_boolean(set)) || (inf && !json_is_boolean(inf)))
			return NUM_BAD;
		if (json_is_true(inf))
			return NUM_INFINITE;
		if (!json_is_true(set))
			return NUM_UNSET;
		return num_read(json_object_get(v, "number"), out) == NUM_SET ?
			NUM_SET : NUM_BAD;
	}
	return NUM_BAD;
}

/* The member at PATH ("time.limit"), NULL when any step is missing or not
 * an object.  Borrowed. */
static json_t *jget(json_t *o, const char *path)
{
	char key[64];

	while (o && json_is_object(o)) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = json_object_get(o, key);
		if (!dot)
			return o;
		path = dot + 1;
	}
	return NULL;
}

/* The ids of the jobs given ST_SLURMREST_FAILED_EXIT from their state
 * (owned copies), to count each job once however many windows list it. */
struct derived {
	char **id;
	size_t n, cap;
};

/* What the conversion of one job needs to say what went wrong. */
struct conv {
	const char *version;    /* for messages */
	int minor;              /* version_minor(version) */
	const st_tz *tz;
	const char *users;      /* keep only these users (v0.0.38), NULL: all */
	struct derived *derived;
	st_error *err;
	size_t index;           /* in jobs[] */
	json_int_t id;          /* job_id, -1 until known */
};

static int bad_field(const struct conv *c, const char *field, const char *what)
{
	if (c->id >= 0)
		return st_error_set(c->err, ST_EXIT_DATAERR, "slurmrestd %s "
				    "response: job %lld: '%s' %s", c->version,
				    (long long)c->id, field, what);
	return st_error_set(c->err, ST_EXIT_DATAERR, "slurmrestd %s response: "
			    "jobs[%zu]: '%s' %s", c->version, c->index, field,
			    what);
}

/* A number at PATH; NUM_BAD has been reported. */
static enum num num_at(const struct conv *c, json_t *job, const char *path,
		       json_int_t *out)
{
	enum num k = num_read(jget(job, path), out);

	if (k == NUM_BAD)
		bad_field(c, path, "is not a number");
	return k;
}

/* A string at PATH, "" for null or missing (borrowed); NULL reported. */
static const char *str_at(const struct conv *c, json_t *job, const char *path)
{
	json_t *v = jget(job, path);

	if (!v || json_is_null(v))
		return "";
	if (!json_is_string(v)) {
		bad_field(c, path, "is not a string");
		return NULL;
	}
	return json_string_value(v);
}

/* A job array's pending tasks as slurmdbd stores them, a hex bitmap "0x6"
 * (bit i: task i), written as sacct's xlate_array_task_str does, "1-2".
 * Anything else is copied. */
static void array_tasks(const char *s, char *buf, size_t size)
{
	size_t nd, len = 0;
	long first = -1;

	if (strncmp(s, "0x", 2) != 0 || !s[2] ||
	    strspn(s + 2, "0123456789abcdefABCDEF") != strlen(s + 2)) {
		snprintf(buf, size, "%s", s);
		return;
	}
	nd = strlen(s + 2);
	buf[0] = '\0';
	for (long bit = 0; bit <= (long)(4 * nd); bit++) {
		bool on = false;

		if (bit < (long)(4 * nd)) {
			char ch = s[2 + nd - 1 - (size_t)bit / 4];
			int nib = ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;

			on = nib >> (bit % 4) & 1;
		}
		if (on && first < 0)
			first = bit;
		if (!on && first >= 0) {
			int w = first == bit - 1 ?
				snprintf(buf + len, size - len, "%s%ld",
					 len ? "," : "", first) :
				snprintf(buf + len, size - len, "%s%ld-%ld",
					 len ? "," : "", first, bit - 1);

			if (w < 0 || (size_t)w >= size - len)
				return;         /* truncated, like sacct's */
			len += (size_t)w;
			first = -1;
		}
	}
}

/* "BASE<SEP>K" into BUF when the number at PATH (array.task_id,
 * het.job_offset) is a set index K: 1; 0 when it is not, -1 reported. */
static int id_index(struct conv *c, json_t *job, const char *path,
		    json_int_t base, char sep, char *buf, size_t size)
{
	json_int_t k;
	enum num n = num_at(c, job, path, &k);

	if (n == NUM_BAD)
		return -1;
	if (n != NUM_SET || k < 0 || k >= SLURM_NO_VAL)
		return 0;
	snprintf(buf, size, "%lld%c%lld", (long long)base, sep, (long long)k);
	return 1;
}

/* sacct's Job ID: an array task J_T (J the array's master id), a pending
 * array J_[tasks], a het job component N+K, or the plain id. */
static int job_id(struct conv *c, json_t *job, char *buf, size_t size)
{
	json_int_t id, aj, hj;
	enum num k;
	int r;

	k = num_read(json_object_get(job, "job_id"), &id);
	if (k != NUM_SET || id < 0)
		return bad_field(c, "job_id", k == NUM_ABSENT ? "is missing" :
				 "is not a job id");
	c->id = id;
	if ((k = num_at(c, job, "array.job_id", &aj)) == NUM_BAD)
		return -1;
	if (k == NUM_SET && aj > 0) {
		json_t *task = jget(job, "array.task");

		if (task && !json_is_null(task) && !json_is_string(task))
			return bad_field(c, "array.task", "is not a string");
		if (json_is_string(task) && json_string_length(task) > 0) {
			char tasks[256];

			array_tasks(json_string_value(task), tasks,
				    sizeof(tasks));
			snprintf(buf, size, "%lld_[%s]", (long long)aj, tasks);
			return 0;
		}
		if ((r = id_index(c, job, "array.task_id", aj, '_', buf,
				  size)) != 0)
			return r < 0 ? -1 : 0;
	}
	if ((k = num_at(c, job, "het.job_id", &hj)) == NUM_BAD)
		return -1;
	if (k == NUM_SET && hj > 0 &&
	    (r = id_index(c, job, "het.job_offset", hj, '+', buf, size)) != 0)
		return r < 0 ? -1 : 0;
	snprintf(buf, size, "%lld", (long long)id);
	return 0;
}

/* Seconds as sacct's secs2time_str: [D-]HH:MM:SS. */
static void fmt_secs(json_int_t s, char *buf, size_t size)
{
	long long d = s / 86400, h = s / 3600 % 24, m = s / 60 % 60;

	if (d)
		snprintf(buf, size, "%lld-%02lld:%02lld:%02lld", d, h, m,
			 (long long)(s % 60));
	else
		snprintf(buf, size, "%02lld:%02lld:%02lld", h, m,
			 (long long)(s % 60));
}

/* The number at PATH in JOB into *V: 1 when it is set, 0 with BUF holding
 * WORD[how it is not set] (NULL: nothing), -1 with the error set when it
 * is bad. */
static int num_or_word(struct conv *c, json_t *job, const char *path,
		       const char *const word[NUM_SET], json_int_t *v,
		       char *buf, size_t size)
{
	enum num k = num_at(c, job, path, v);

	if (k == NUM_BAD)
		return -1;
	if (k == NUM_SET)
		return 1;
	if (word[k])
		snprintf(buf, size, "%s", word[k]);
	else
		buf[0] = '\0';
	return 0;
}

/* sacct's Timelimit.  A null up to v0.0.38/39 is NO_VAL or INFINITE; on a
 * partition without MaxTime (the usual case) it is INFINITE. */
static int timelimit(struct conv *c, json_t *job, char *buf, size_t size)
{
	static const char *const w[NUM_SET] = {
		[NUM_NULL] = "UNLIMITED", [NUM_UNSET] = "Partition_Limit",
		[NUM_INFINITE] = "UNLIMITED" };
	json_int_t min;
	int set = num_or_word(c, job, "time.limit", w, &min, buf, size);

	if (set <= 0)
		return set;
	if (min == SLURM_INFINITE)
		snprintf(buf, size, "UNLIMITED");
	else if (min == SLURM_NO_VAL)
		snprintf(buf, size, "Partition_Limit");
	else if (min < 0 || min > SLURM_INFINITE)
		return bad_field(c, "time.limit", "is out of range");
	else if (min == 0)
		buf[0] = '\0';          /* sacct prints nothing */
	else
		fmt_secs(min * 60, buf, size);
	return 0;
}

static int elapsed(struct conv *c, json_t *job, char *buf, size_t size)
{
	static const char *const w[NUM_SET] = { [NUM_INFINITE] = "UNLIMITED" };
	json_int_t s;
	int set = num_or_word(c, job, "time.elapsed", w, &s, buf, size);

	if (set <= 0)
		return set;
	if (s < 0 || s >= SLURM_NO_VAL)
		return bad_field(c, "time.elapsed", "is out of range");
	fmt_secs(s, buf, size);
	return 0;
}

/* A time stamp as sacct prints it: %FT%T local time, "Unknown" for 0 (a
 * job that never started, one still running) or INFINITE, "None" for
 * NO_VAL. */
static int stamp(struct conv *c, json_t *job, const char *path, char *buf,
		 size_t size)
{
	static const char *const w[NUM_SET] = {
		[NUM_ABSENT] = "Unknown", [NUM_NULL] = "Unknown",
		[NUM_UNSET] = "None", [NUM_INFINITE] = "Unknown" };
	json_int_t t;
	size_t n;
	int set = num_or_word(c, job, path, w, &t, buf, size);

	if (set <= 0)
		return set;
	if (t == 0) {
		snprintf(buf, size, "Unknown");
		return 0;
	}
	if (t < 0 || t > MAX_EPOCH)
		return bad_field(c, path, "is out of range");
	n = st_time_format_naive((st_instant)t * ST_NS_PER_SEC, c->tz, buf,
				 size);
	if (n > 10 && buf[10] == ' ')
		buf[10] = 'T';
	return 0;
}

/* ReqNodes: slurmdbd keeps no node count of its own, only the requested
 * TRES, whose "node" entry is what sacct prints. */
static int req_nodes(struct conv *c, json_t *job, char *buf, size_t size)
{
	json_t *req = jget(job, "tres.requested"), *t;
	size_t i;

	buf[0] = '\0';
	if (!req || json_is_null(req))
		return 0;
	if (!json_is_array(req))
		return bad_field(c, "tres.requested", "is not an array");
	json_array_foreach(req, i, t) {
		const char *type = json_string_value(json_object_get(t, "type"));
		json_int_t n;

		if (!json_is_object(t))
			return bad_field(c, "tres.requested", "holds a "
					 "non-object");
		if (!type || strcmp(type, "node") != 0)
			continue;
		switch (num_read(json_object_get(t, "count"), &n)) {
		case NUM_SET:
			snprintf(buf, size, "%lld", (long long)n);
			return 0;
		case NUM_BAD:
			return bad_field(c, "tres.requested[].count", "is not "
					 "a number");
		default:
			return 0;
		}
	}
	return 0;
}

/* Does exit_code.status say PENDING (a string up to v0.0.39, an array of
 * flags from v0.0.40)? */
static bool status_pending(json_t *st)
{
	size_t i;
	json_t *s;

	if (json_is_string(st))
		return strcmp(json_string_value(st), "PENDING") == 0;
	json_array_foreach(st, i, s)
		if (json_is_string(s) &&
		    strcmp(json_string_value(s), "PENDING") == 0)
			return true;
	return false;
}

/* The states that end a job without success, as state.current names them
 * (a string up to v0.0.39, an array of flags from v0.0.40). */
static const char *const failed_states[] = {
	"FAILED", "TIMEOUT", "CANCELLED", "NODE_FAIL", "OUT_OF_MEMORY",
	"BOOT_FAIL", "DEADLINE", "PREEMPTED",
};

static bool state_is_failure(json_t *cur)
{
	const char *s = json_string_value(cur);
	size_t i;
	json_t *v;

	if (!s) {
		json_array_foreach(cur, i, v)
			if (state_is_failure(v))
				return true;
		return false;
	}
	for (i = 0; i < sizeof(failed_states) / sizeof(failed_states[0]); i++)
		if (strcmp(s, failed_states[i]) == 0)
			return true;
	return false;
}

/* sacct's ExitCode "rc:signal".  exit_code.return_code is an int up to
 * v0.0.39 (and then always 0 for a normal exit), an object from v0.0.40;
 * the signal is signal.signal_id up to v0.0.39, signal.id after.  Up to
 * v0.0.39 a 0:0 of a job whose state is a failure is not true: it becomes
 * ST_SLURMREST_FAILED_EXIT, *DERIVED set. */
static int exit_code(struct conv *c, json_t *job, char *buf, size_t size,
		     bool *derived)
{
	json_t *ec = json_object_get(job, "exit_code"), *sig;
	json_int_t rc = 0, sn = 0;
	enum num k;

	buf[0] = '\0';
	if (!ec || json_is_null(ec))
		return 0;
	if (!json_is_object(ec))
		return bad_field(c, "exit_code", "is not an object");
	if (status_pending(json_object_get(ec, "status")))
		return 0;               /* still pending: no exit code yet */
	if ((k = num_at(c, job, "exit_code.return_code", &rc)) == NUM_BAD)
		return -1;
	if (k != NUM_SET)
		rc = 0;
	sig = json_object_get(ec, "signal");
	if (json_is_object(sig)) {
		json_t *id = json_object_get(sig, "signal_id");

		k = num_read(id ? id : json_object_get(sig, "id"), &sn);
		if (k == NUM_BAD)
			return bad_field(c, "exit_code.signal", "has no "
					 "numeric id");
		if (k != NUM_SET)
			sn = 0;
	}
	if (rc < 0 || rc > 255 || sn < 0 || sn > 255)
		return bad_field(c, "exit_code", "is out of range");
	if (rc >= 128)
		rc -= 128;              /* as sacct does */
	*derived = rc == 0 && sn == 0 && c->minor >= 38 && c->minor <= 39 &&
		   state_is_failure(jget(job, "state.current"));
	if (*derived)
		snprintf(buf, size, "%s", ST_SLURMREST_FAILED_EXIT);
	else
		snprintf(buf, size, "%lld:%lld", (long long)rc, (long long)sn);
	return 0;
}

/* Is USER one of the comma-separated names in LIST? */
static bool user_listed(const char *user, const char *list)
{
	size_t n = strlen(user);

	for (const char *p = list; *p; p += strcspn(p, ",")) {
		if (*p == ',')
			p++;
		if (strncmp(p, user, n) == 0 && (p[n] == ',' || !p[n]))
			return true;
	}
	return false;
}

/* Note ID among C's derived exit codes. */
static int derived_add(struct conv *c, const char *id)
{
	struct derived *d = c->derived;

	if (d->n == d->cap) {
		size_t cap = d->cap ? 2 * d->cap : 16;
		char **nv = realloc(d->id, cap * sizeof(*nv));

		if (!nv)
			return st_error_set(c->err, ST_EXIT_IOERR, "out of "
					    "memory");
		d->id = nv;
		d->cap = cap;
	}
	if (!(d->id[d->n] = strdup(id)))
		return st_error_set(c->err, ST_EXIT_IOERR, "out of memory");
	d->n++;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* How many distinct jobs D holds; frees what it holds. */
static size_t derived_release(struct derived *d)
{
	size_t n = 0;

	if (d->n)
		qsort(d->id, d->n, sizeof(*d->id), cmp_str);
	for (size_t i = 0; i < d->n; i++)
		n += i == 0 || strcmp(d->id[i], d->id[i - 1]) != 0;
	for (size_t i = 0; i < d->n; i++)
		free(d->id[i]);
	free(d->id);
	memset(d, 0, sizeof(*d));
	return n;
}

/* Append JOB (one element of jobs[]) to OUT, unless its user is not one of
 * C->users. */
static int job_add(struct conv *c, json_t *job, st_slurm_jobs *out)
{
	char id[160], limit[40], el[40], sub[40], start[40], end[40];
	char nodes[32], ec[32];
	const char *f[ST_SLURM_NFIELDS];
	bool derived = false;

	c->id = -1;
	if (!json_is_object(job))
		return st_error_set(c->err, ST_EXIT_DATAERR, "slurmrestd %s "
				    "response: jobs[%zu] is not an object",
				    c->version, c->index);
	if (job_id(c, job, id, sizeof(id)) < 0 ||
	    timelimit(c, job, limit, sizeof(limit)) < 0 ||
	    elapsed(c, job, el, sizeof(el)) < 0 ||
	    stamp(c, job, "time.submission", sub, sizeof(sub)) < 0 ||
	    stamp(c, job, "time.start", start, sizeof(start)) < 0 ||
	    stamp(c, job, "time.end", end, sizeof(end)) < 0 ||
	    req_nodes(c, job, nodes, sizeof(nodes)) < 0 ||
	    exit_code(c, job, ec, sizeof(ec), &derived) < 0)
		return -1;
	f[ST_SLURM_ID] = id;
	f[ST_SLURM_TIMELIMIT] = limit;
	f[ST_SLURM_ELAPSED] = el;
	f[ST_SLURM_SUBMIT] = sub;
	f[ST_SLURM_START] = start;
	f[ST_SLURM_END] = end;
	f[ST_SLURM_REQNODES] = nodes;
	f[ST_SLURM_EXITCODE] = ec;
	if (!(f[ST_SLURM_NAME] = str_at(c, job, "name")) ||
	    !(f[ST_SLURM_QOS] = str_at(c, job, "qos")) ||
	    !(f[ST_SLURM_USER] = str_at(c, job, "user")))
		return -1;
	if (c->users && !user_listed(f[ST_SLURM_USER], c->users))
		return 0;
	if (derived && derived_add(c, id) < 0)
		return -1;
	return st_slurm_jobs_add(out, f, c->err);
}

/* Drop the jobs appended after the first N. */
static void jobs_truncate(st_slurm_jobs *js, size_t n)
{
	while (js->n > n) {
		st_slurm_job *j = &js->v[--js->n];

		for (int i = 0; i < ST_SLURM_NFIELDS; i++)
			free(j->f[i]);
		memset(j, 0, sizeof(*j));
	}
}

/* ---- one response ---- */

/* Look through errors[]: *EMPTY when it says "Nothing found" (9003); the
 * text of the first other error into WHY (empty if none). */
static void scan_errors(json_t *root, bool *empty, char *why, size_t size)
{
	json_t *errs = json_object_get(root, "errors"), *e;
	size_t i;

	*empty = false;
	why[0] = '\0';
	json_array_foreach(errs, i, e) {
		const char *d = json_string_value(json_object_get(e, "description"));
		const char *s = json_string_value(json_object_get(e, "error"));
		json_int_t num = 0;

		num_read(json_object_get(e, "error_number"), &num);
		if (num == ERR_EMPTY_RESULT) {
			*empty = true;
			continue;
		}
		if (why[0] || (!num && (!d || !*d) && (!s || !*s)))
			continue;
		if (d && *d)
			snprintf(why, size, "%s", d);
		else if (s && *s)
			snprintf(why, size, "%s", s);
		else
			snprintf(why, size, "error %lld", (long long)num);
	}
}

/* st_slurmrest_parse without the warning, which a fetch gives once for all
 * its windows: the jobs of USERS (NULL: all) appended to OUT, the ids of
 * those given ST_SLURMREST_FAILED_EXIT to DERIVED. */
static int parse_body(const char *body, size_t len, const char *version,
		      const st_tz *tz, const char *users,
		      struct derived *derived, st_slurm_jobs *out,
		      st_error *err)
{
	struct conv c = { .version = version ? version : "(unknown version)",
			  .minor = version_minor(version), .tz = tz,
			  .users = users, .derived = derived, .err = err,
			  .id = -1 };
	json_error_t jerr;
	json_t *root, *jobs, *job;
	size_t n0 = out->n;
	char why[512];
	bool empty;

	if (!(root = json_loadb(body, len, 0, &jerr)))
		return st_error_set(err, ST_EXIT_DATAERR, "cannot parse "
				    "slurmrestd %s response: %s at line %d "
				    "column %d", c.version, jerr.text,
				    jerr.line, jerr.column);
	if (!json_is_object(root)) {
		json_decref(root);
		return st_error_set(err, ST_EXIT_DATAERR, "slurmrestd %s "
				    "response is not a JSON object", c.version);
	}
	scan_errors(root, &empty, why, sizeof(why));
	if (why[0]) {
		json_decref(root);
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "slurmrestd %s "
				    "reported an error: %s", c.version, why);
	}
	jobs = json_object_get(root, "jobs");
	if (!jobs || json_is_null(jobs)) {
		json_decref(root);
		if (empty)
			return 0;
		return st_error_set(err, ST_EXIT_DATAERR, "slurmrestd %s "
				    "response has no jobs[]", c.version);
	}
	if (!json_is_array(jobs)) {
		json_decref(root);
		return st_error_set(err, ST_EXIT_DATAERR, "slurmrestd %s "
				    "response: 'jobs' is not an array",
				    c.version);
	}
	json_array_foreach(jobs, c.index, job) {
		if (job_add(&c, job, out) < 0) {
			jobs_truncate(out, n0);
			json_decref(root);
			return -1;
		}
	}
	json_decref(root);
	return 0;
}

/* Say how many jobs D gave ST_SLURMREST_FAILED_EXIT (none: nothing), and
 * free D. */
static void warn_exit_codes(st_log *log, const char *version,
			    struct derived *d)
{
	size_t n = derived_release(d);

	if (n)
		st_warn(log, "slurmrestd %s reports exit code 0 for failed "
			"jobs: %zu job%s whose state is a failure (FAILED, "
			"TIMEOUT, CANCELLED, NODE_FAIL, OUT_OF_MEMORY, ...) "
			"given ExitCode %s, which the exit-code filter 0:0 "
			"drops", version, n, n == 1 ? "" : "s",
			ST_SLURMREST_FAILED_EXIT);
}

int st_slurmrest_parse(const char *body, size_t len, const char *version,
		       const st_tz *tz, st_slurm_jobs *out, st_log *log,
		       st_error *err)
{
	struct derived d = { 0 };

	if (parse_body(body, len, version, tz, NULL, &d, out, err) < 0) {
		derived_release(&d);
		return -1;
	}
	warn_exit_codes(log, version, &d);
	return 0;
}

/* ---- HTTP ---- */

/* What a fetch keeps between its requests. */
struct client {
	const st_slurmrest_opts *o;
	st_http_client http;
};

/* Does BODY (an error response) say only "Nothing found"? */
static bool body_is_empty_result(const char *body, size_t len)
{
	json_t *root = len ? json_loadb(body, len, 0, NULL) : NULL;
	bool empty = false;
	char why[8];

	if (json_is_object(root)) {
		scan_errors(root, &empty, why, sizeof(why));
		empty = empty && !why[0];
	}
	json_decref(root);
	return empty;
}

/* A naive wall-clock "%FT%T" in TZ, the form parse_time() reads. */
static void query_time(int64_t t, const st_tz *tz, char *buf, size_t size)
{
	st_time_format_naive((st_instant)t * ST_NS_PER_SEC, tz, buf, size);
	if (strlen(buf) > 10)
		buf[10] = 'T';
}

/* "/slurmdb/VERSION/jobs?start_time=..&end_time=..[&users=..]", new. */
static char *jobs_path(struct client *cl, const char *version, int64_t from,
		       int64_t to, const char *users, bool with_query)
{
	char a[48], b[48], *ea = NULL, *eb = NULL, *eu = NULL, *s = NULL;
	int n;

	if (!with_query)
		n = asprintf(&s, "/slurmdb/%s/jobs", version);
	else {
		query_time(from, cl->o->tz, a, sizeof(a));
		query_time(to, cl->o->tz, b, sizeof(b));
		ea = st_http_escape(a);
		eb = st_http_escape(b);
		if (users && *users)
			eu = st_http_escape(users);
		if (!ea || !eb || (users && *users && !eu))
			n = -1;
		else
			n = asprintf(&s, "/slurmdb/%s/jobs?start_time=%s"
				     "&end_time=%s%s%s", version, ea, eb,
				     eu ? "&users=" : "", eu ? eu : "");
	}
	free(ea);
	free(eb);
	free(eu);
	return n < 0 ? NULL : s;
}

/* Turn a non-200 answer into error 69 with the status and what
 * errors[].description says. */
static int http_error(const struct client *cl, const char *shown,
		      st_error *err)
{
	const st_http_client *h = &cl->http;
	json_t *root = h->body_len ? json_loadb(h->body, h->body_len, 0,
						NULL) : NULL;
	char why[512] = "";
	bool empty;

	if (json_is_object(root))
		scan_errors(root, &empty, why, sizeof(why));
	json_decref(root);
	if (why[0])
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "slurmrestd "
				    "answered HTTP %ld for %s: %s", h->status,
				    shown, why);
	return st_error_set(err, ST_EXIT_UNAVAILABLE, "slurmrestd answered "
			    "HTTP %ld for %s", h->status, shown);
}

/* Check O and set up the client: the user name and token headers when O
 * has a token (rest_auth/jwt), none otherwise (rest_auth/local). */
static int client_init(struct client *cl, const st_slurmrest_opts *o,
		       st_error *err)
{
	const char *user = o->user;
	st_http_header hd[2];
	st_http_opts ho = {
		.service = "slurmrestd", .url = o->url, .headers = hd,
		.cacert = o->cacert, .timeout_s = o->timeout_s,
		.retries = o->retries, .accept_5xx = body_is_empty_result,
		.max_body = o->max_body,
	};

	memset(cl, 0, sizeof(*cl));
	cl->o = o;
	if (!o->url || !*o->url)
		return st_error_set(err, ST_EXIT_USAGE, "no slurmrestd URL");
	if (o->version && !version_minor(o->version))
		return st_error_set(err, ST_EXIT_USAGE, "unknown slurmrestd "
				    "version '%s' (expected v0.0.38 to "
				    "v0.0.41)", o->version);
	if (o->token) {
		struct passwd *pw;

		if (!user || !*user)
			user = getenv("USER");
		if ((!user || !*user) && (pw = getpwuid(geteuid())))
			user = pw->pw_name;
		if (!user || !*user)
			return st_error_set(err, ST_EXIT_USAGE, "cannot tell "
					    "the user name for slurmrestd: set "
					    "$USER");
		if (!st_http_header_safe(user))
			return st_error_set(err, ST_EXIT_USAGE, "the user name "
					    "for slurmrestd contains a control "
					    "character");
		if (!*o->token || !st_http_header_safe(o->token))
			return st_error_set(err, ST_EXIT_USAGE, "the slurmrestd "
					    "token is empty or contains a "
					    "control character");
		hd[0] = (st_http_header){ "X-SLURM-USER-NAME", user };
		hd[1] = (st_http_header){ "X-SLURM-USER-TOKEN", o->token };
		ho.n_headers = 2;
	}
	return st_http_client_init(&cl->http, &ho, err);
}

/* The first version, newest first, whose jobs endpoint does not 404: a
 * one-second window at SINCE keeps the probe cheap. */
static int detect_version(struct client *cl, int64_t since,
			  const char **version, st_error *err)
{
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		char *pq = jobs_path(cl, versions[i], since, since + 1, NULL,
				     true);
		char *shown = jobs_path(cl, versions[i], 0, 0, NULL, false);
		char *full = NULL;
		int rc = -1;

		if (pq && shown && asprintf(&full, "%s%s", cl->http.shown_base, shown) >= 0)
			rc = st_http_get(&cl->http, pq, full, err);
		else
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
		free(pq);
		free(shown);
		free(full);
		if (rc < 0)
			return -1;
		/* a 5xx after the retries says nothing of the version, and
		 * asking again would only repeat it */
		if (cl->http.status >= 500 &&
		    !body_is_empty_result(cl->http.body, cl->http.body_len)) {
			char *shown_full = NULL;

			if (asprintf(&shown_full, "%s/slurmdb/%s/jobs",
				     cl->http.shown_base, versions[i]) < 0)
				return st_error_set(err, ST_EXIT_IOERR,
						    "out of memory");
			http_error(cl, shown_full, err);
			free(shown_full);
			return -1;
		}
		if (cl->http.status != 404) {
			*version = versions[i];
			return 0;
		}
	}
	return st_error_set(err, ST_EXIT_UNAVAILABLE, "slurmrestd at %s serves "
			    "none of v0.0.41, v0.0.40, v0.0.39, v0.0.38 "
			    "(HTTP 404 for /slurmdb/VERSION/jobs)", cl->http.shown_base);
}

int st_slurmrest_fetch(const st_slurmrest_opts *o, int64_t since,
		       int64_t until, int64_t window_s, const char *users,
		       st_slurm_jobs *out, st_log *log, st_error *err)
{
	struct client cl;
	struct derived derived = { 0 };
	const char *version = o->version;
	size_t n0 = out->n;
	char *full = NULL;
	bool local_users;
	int ret = -1;

	if (since < 0 || until > MAX_EPOCH - 1 || since >= until)
		return st_error_set(err, ST_EXIT_USAGE, "bad time range for "
				    "slurmrestd: since must come before until");
	if (client_init(&cl, o, err) < 0)
		return -1;
	if (!version && detect_version(&cl, since, &version, err) < 0)
		goto out;
	{
		char *shown = jobs_path(&cl, version, 0, 0, NULL, false);

		if (!shown || asprintf(&full, "%s%s", cl.http.shown_base, shown) < 0) {
			free(shown);
			full = NULL;
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		free(shown);
	}
	if (users && !*users)
		users = NULL;
	local_users = users && version_minor(version) == 38;
	for (int64_t from = since, to; from < until; from = to) {
		char *pq;
		int rc;

		to = window_s > 0 && until - from > window_s ?
			from + window_s : until;
		pq = jobs_path(&cl, version, from, to, local_users ? NULL : users,
			       true);
		if (!pq) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		rc = st_http_get(&cl.http, pq, full, err);
		free(pq);
		if (rc < 0)
			goto out;
		if (cl.http.status != 200) {
			if (body_is_empty_result(cl.http.body, cl.http.body_len))
				continue;
			http_error(&cl, full, err);
			goto out;
		}
		if (parse_body(cl.http.body ? cl.http.body : "",
			       cl.http.body_len, version, o->tz,
			       local_users ? users : NULL, &derived, out,
			       err) < 0)
			goto out;
	}
	warn_exit_codes(log, version, &derived);
	ret = 0;
out:
	derived_release(&derived);
	if (ret < 0)
		jobs_truncate(out, n0);
	free(full);
	st_http_client_release(&cl.http);
	return ret;
}
