/* distiller_pg.c - the Distiller job table from PostgreSQL through libpq.
 *
 * The paper ran one `\COPY (SELECT ...)` per scan size in a shell inside the
 * database pod.  Here one parameterised query covers every size: the sizes
 * go in as a numeric[] ($1), the job type as text or NULL ($2), and each row
 * says which size it matched (array_position).  Rows are read in
 * single-row mode, so the client holds one row at a time whatever the
 * table's size; the ORDER BY is the server's work (it spills to disk past
 * work_mem).
 *
 * Two schema generations: before mid-2023 jobs.scan_id linked a job to its
 * scan; since then the association table scan_job_table(scan_id, job_id)
 * does.  The catalog says which one a database has.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_dyn.h"

#include "streamtime/distiller.h"
#include "streamtime/num.h"

/* The scans whose two dimensions are equal JSON numbers, with that number.
 * Per dimension the spaced key (4D Camera) wins over the dotted one (other
 * microscopes).  CASE keeps the cast away from strings and nulls: WHERE
 * clauses may be evaluated in any order, CASE branches may not. */
#define SIZED_SCANS                                                          \
	"WITH dims AS ("                                                     \
	" SELECT s.id,"                                                      \
	"  COALESCE(s.metadata::jsonb -> 'Dimensions 1',"                    \
	"           s.metadata::jsonb -> 'Dimensions.1') AS d1,"             \
	"  COALESCE(s.metadata::jsonb -> 'Dimensions 2',"                    \
	"           s.metadata::jsonb -> 'Dimensions.2') AS d2"              \
	" FROM scans s),"                                                    \
	" sized AS ("                                                        \
	" SELECT id,"                                                        \
	"  CASE WHEN jsonb_typeof(d1) = 'number'"                            \
	"       THEN (d1 #>> '{}')::numeric END AS n1,"                      \
	"  CASE WHEN jsonb_typeof(d2) = 'number'"                            \
	"       THEN (d2 #>> '{}')::numeric END AS n2"                       \
	" FROM dims) "

#define SELECT_ROWS                                                          \
	"SELECT j.id, z.id, array_position($1::numeric[], z.n1),"            \
	" j.slurm_id, EXTRACT(EPOCH FROM j.elapsed)::numeric(20, 6) "

#define WHERE_ORDER                                                          \
	" WHERE z.n1 = z.n2 AND z.n1 = ANY($1::numeric[])"                   \
	" AND ($2::text IS NULL OR j.job_type::text = $2::text)"             \
	" ORDER BY j.id, z.id"

static const char query_legacy[] =
	SIZED_SCANS SELECT_ROWS
	"FROM jobs j JOIN sized z ON z.id = j.scan_id" WHERE_ORDER;

static const char query_current[] =
	SIZED_SCANS SELECT_ROWS
	"FROM jobs j JOIN scan_job_table sj ON sj.job_id = j.id"
	" JOIN sized z ON z.id = sj.scan_id" WHERE_ORDER;

/* Which generation: the tables by the search_path, the column by the
 * catalog (dropped columns do not count). */
static const char query_schema[] =
	"SELECT to_regclass('scans') IS NOT NULL,"
	" to_regclass('jobs') IS NOT NULL,"
	" EXISTS (SELECT 1 FROM pg_attribute"
	"  WHERE attrelid = to_regclass('jobs') AND attname = 'scan_id'"
	"  AND attnum > 0 AND NOT attisdropped),"
	" to_regclass('scan_job_table') IS NOT NULL";

/* Replace every occurrence of SECRET in S by "***" (in place: the mask is
 * never longer than a secret worth masking). */
static void mask(char *s, const char *secret)
{
	size_t n = secret ? strlen(secret) : 0;
	char *p = s;

	if (n < 3)
		return;         /* too short to find without mangling text */
	/* search on after each mask, so "***" as a password cannot loop */
	while ((p = strstr(p, secret))) {
		memcpy(p, "***", 3);
		memmove(p + 3, p + n, strlen(p + n) + 1);
		p += 3;
	}
}

/* libpq's last message, one line, with the password masked. */
static void pg_message(PGconn *conn, const PGresult *res, char *buf,
		       size_t size)
{
	const char *m = res ? PQresultErrorMessage(res) : PQerrorMessage(conn);
	char *pw = NULL;
	size_t n;

	snprintf(buf, size, "%s", m && *m ? m : "no message");
	n = strlen(buf);
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	for (char *p = buf; *p; p++)
		if (*p == '\n' || *p == '\t')
			*p = ' ';
	if (conn) {
		PQconninfoOption *o = PQconninfo(conn);

		for (PQconninfoOption *i = o; i && i->keyword; i++)
			if (!strcmp(i->keyword, "password") && i->val)
				pw = strdup(i->val);
		PQconninfoFree(o);
	}
	mask(buf, pw);
	mask(buf, getenv("PGPASSWORD"));
	if (pw) {
		explicit_bzero(pw, strlen(pw));
		free(pw);
	}
}

/* "host H port P database D user U", from the connection (never the DSN,
 * which may hold a password). */
static void pg_where(PGconn *conn, char *buf, size_t size)
{
	const char *h = PQhost(conn), *p = PQport(conn), *d = PQdb(conn),
		   *u = PQuser(conn);

	snprintf(buf, size, "host %s port %s database %s user %s",
		 h && *h ? h : "(default)", p && *p ? p : "(default)",
		 d && *d ? d : "(default)", u && *u ? u : "(default)");
}

bool st_distiller_dsn_has_password(const char *dsn)
{
	PQconninfoOption *o;
	bool has = false;

	if (!dsn || !*dsn)
		return false;
	/* no libpq to parse it: the guess, so that the password still
	 * leaves the process list */
	if (st_pq_load(NULL) < 0)
		return st_distiller_dsn_password_guess(dsn);
	if (!(o = PQconninfoParse(dsn, NULL)))
		return false;
	for (PQconninfoOption *i = o; i->keyword; i++)
		if (!strcmp(i->keyword, "password") && i->val && *i->val)
			has = true;
	PQconninfoFree(o);
	return has;
}

/* Does the DSN (or the environment) already choose a connect_timeout? */
static bool has_connect_timeout(const char *dsn)
{
	PQconninfoOption *o;
	bool has = false;

	if (getenv("PGCONNECT_TIMEOUT"))
		return true;
	if (!dsn || !*dsn || !(o = PQconninfoParse(dsn, NULL)))
		return false;
	for (PQconninfoOption *i = o; i->keyword; i++)
		if (!strcmp(i->keyword, "connect_timeout") && i->val &&
		    *i->val)
			has = true;
	PQconninfoFree(o);
	return has;
}

static PGconn *pg_connect(const st_distiller_pg_opts *o, st_error *err)
{
	const char *keys[4], *vals[4];
	char timeout[24], where[512], msg[768];
	PGconn *conn;
	int k = 0;

	if (st_pq_load(err) < 0)
		return NULL;
	if (o->dsn && *o->dsn) {
		char *perr = NULL;
		PQconninfoOption *parsed = PQconninfoParse(o->dsn, &perr);

		/* libpq's message may quote a piece of the DSN, which may be
		 * the password: it is not shown */
		PQfreemem(perr);
		if (!parsed) {
			st_error_set(err, ST_EXIT_USAGE, "--dsn is neither a "
				     "key=value connection string nor a "
				     "postgresql:// URI that libpq can read");
			return NULL;
		}
		PQconninfoFree(parsed);
	}
	if (o->timeout_s > 0 && !has_connect_timeout(o->dsn)) {
		snprintf(timeout, sizeof(timeout), "%ld", o->timeout_s);
		keys[k] = "connect_timeout";
		vals[k++] = timeout;
	}
	keys[k] = "fallback_application_name";
	vals[k++] = "streamtime";
	if (o->dsn && *o->dsn) {
		/* last, so that what the DSN says wins */
		keys[k] = "dbname";
		vals[k++] = o->dsn;
	}
	keys[k] = NULL;
	vals[k] = NULL;
	conn = PQconnectdbParams(keys, vals, 1);
	if (!conn) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	if (PQstatus(conn) != CONNECTION_OK) {
		pg_where(conn, where, sizeof(where));
		pg_message(conn, NULL, msg, sizeof(msg));
		st_error_set(err, ST_EXIT_UNAVAILABLE, "cannot connect to "
			     "PostgreSQL (%s): %s", where, msg);
		PQfinish(conn);
		return NULL;
	}
	return conn;
}

/* The exit code for a failed statement, by SQLSTATE class: 42 (an
 * undefined table, column or function, a privilege) is the database not
 * being what the query expects, 22 a value it cannot convert, the rest
 * the server or the connection failing. */
static int sqlstate_exit(const PGresult *res)
{
	const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
			     : NULL;

	if (st && !strncmp(st, "42", 2))
		return ST_EXIT_CONFIG;
	if (st && !strncmp(st, "22", 2))
		return ST_EXIT_DATAERR;
	return ST_EXIT_UNAVAILABLE;
}

static int statement_error(PGconn *conn, const PGresult *res,
			   const char *what, st_error *err)
{
	const char *st = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE)
			     : NULL;
	char msg[768];

	pg_message(conn, res, msg, sizeof(msg));
	return st_error_set(err, sqlstate_exit(res), "PostgreSQL: %s: %s%s%s%s",
			    what, msg, st ? " (SQLSTATE " : "", st ? st : "",
			    st ? ")" : "");
}

static int detect_schema(PGconn *conn, enum st_distiller_schema *out,
			 st_error *err)
{
	PGresult *res = PQexec(conn, query_schema);
	bool scans, jobs, column, table;
	int rc = -1;

	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		statement_error(conn, res, "reading the catalog", err);
		goto out;
	}
	scans = PQgetvalue(res, 0, 0)[0] == 't';
	jobs = PQgetvalue(res, 0, 1)[0] == 't';
	column = PQgetvalue(res, 0, 2)[0] == 't';
	table = PQgetvalue(res, 0, 3)[0] == 't';
	if (!scans || !jobs)
		st_error_set(err, ST_EXIT_CONFIG, "not a Distiller database: "
			     "no table %s in the search_path",
			     !scans ? "scans" : "jobs");
	else if (!column && !table)
		st_error_set(err, ST_EXIT_CONFIG, "not a Distiller schema: the "
			     "database has neither jobs.scan_id (the legacy "
			     "schema) nor scan_job_table (the current one)");
	else {
		/* both during a migration: the association table is the
		 * one kept up to date */
		*out = table ? ST_DISTILLER_SCHEMA_CURRENT
			     : ST_DISTILLER_SCHEMA_LEGACY;
		rc = 0;
	}
out:
	PQclear(res);
	return rc;
}

/* A decimal integer column of the row, or -1 with ERR set (65). */
static int get_int(const PGresult *res, int col, const char *name,
		   int64_t *v, st_error *err)
{
	const char *s = PQgetvalue(res, 0, col);
	char *end;

	errno = 0;
	long long x = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return st_error_set(err, ST_EXIT_DATAERR, "PostgreSQL returned "
				    "%s '%s', not an integer", name, s);
	*v = x;
	return 0;
}

/* Turn one single-row result into a row. */
static int to_row(const PGresult *res, const st_distiller_query *q,
		  st_distiller_row *row, st_error *err)
{
	int64_t idx;

	memset(row, 0, sizeof(*row));
	if (get_int(res, 0, "jobs.id", &row->job_id, err) < 0 ||
	    get_int(res, 1, "scans.id", &row->scan_id, err) < 0 ||
	    get_int(res, 2, "the size's position", &idx, err) < 0)
		return -1;
	if (idx < 1 || (uint64_t)idx > q->n_sizes)
		return st_error_set(err, ST_EXIT_DATAERR, "PostgreSQL returned "
				    "size position %" PRId64 " of %zu", idx,
				    q->n_sizes);
	row->size_index = (size_t)(idx - 1);
	if (!PQgetisnull(res, 0, 3)) {
		if (get_int(res, 3, "jobs.slurm_id", &row->slurm_id, err) < 0)
			return -1;
		row->has_slurm_id = true;
	}
	if (!PQgetisnull(res, 0, 4)) {
		st_error perr;

		/* EXTRACT(EPOCH ...) is a numeric with six decimals */
		if (st_duration_parse(PQgetvalue(res, 0, 4), &row->elapsed,
				      &perr) < 0)
			return st_error_set(err, ST_EXIT_DATAERR, "scan %"
					    PRId64 ", job %" PRId64 ": "
					    "jobs.elapsed: %s", row->scan_id,
					    row->job_id, perr.text);
		row->has_elapsed = true;
	}
	return 0;
}

/* {128,256} as the numeric[] literal of $1. */
static char *sizes_literal(const st_distiller_query *q)
{
	size_t cap = 2 + q->n_sizes * 21, n = 0;
	char *s = malloc(cap + 1);

	if (!s)
		return NULL;
	s[n++] = '{';
	for (size_t i = 0; i < q->n_sizes; i++)
		n += (size_t)snprintf(s + n, cap + 1 - n, "%s%" PRId64,
				      i ? "," : "", q->sizes[i]);
	s[n++] = '}';
	s[n] = '\0';
	return s;
}

int st_distiller_pg_fetch(const st_distiller_pg_opts *o,
			  const st_distiller_query *q, st_distiller_sink sink,
			  void *ctx, enum st_distiller_schema *schema_found,
			  st_log *log, st_error *err)
{
	enum st_distiller_schema schema = o->schema;
	const char *params[2];
	PGresult *res = NULL;
	PGconn *conn;
	char *sizes = NULL;
	bool done = false;
	int rc = -1;

	if (q->n_sizes == 0)
		return st_error_set(err, ST_EXIT_USAGE, "no scan size asked "
				    "for");
	if (!(conn = pg_connect(o, err)))
		return -1;
	if (schema == ST_DISTILLER_SCHEMA_AUTO &&
	    detect_schema(conn, &schema, err) < 0)
		goto out;
	if (schema_found)
		*schema_found = schema;
	if (!(sizes = sizes_literal(q))) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	params[0] = sizes;
	params[1] = q->job_type;
	if (!PQsendQueryParams(conn, schema == ST_DISTILLER_SCHEMA_LEGACY ?
			       query_legacy : query_current, 2, NULL, params,
			       NULL, NULL, 0) || !PQsetSingleRowMode(conn)) {
		statement_error(conn, NULL, "sending the jobs query", err);
		goto out;
	}
	/* every result up to NULL must be read, even after an error, before
	 * the connection is closed cleanly */
	while ((res = PQgetResult(conn))) {
		ExecStatusType st = PQresultStatus(res);
		st_distiller_row row;
		bool stop = false;      /* we stop reading: the server goes on */

		if (st == PGRES_SINGLE_TUPLE) {
			if (PQnfields(res) != 5) {
				st_error_set(err, ST_EXIT_DATAERR, "PostgreSQL "
					     "returned %d columns, not 5",
					     PQnfields(res));
				stop = true;
			} else if (to_row(res, q, &row, err) < 0 ||
				   sink(ctx, &row, err) < 0) {
				stop = true;
			}
		} else if (st == PGRES_TUPLES_OK) {
			rc = 0;         /* the end of the rows */
		} else {
			/* the server failed the query: it has stopped */
			statement_error(conn, res, schema ==
					ST_DISTILLER_SCHEMA_LEGACY ?
					"the jobs query (legacy schema)" :
					"the jobs query (current schema)", err);
			done = true;
		}
		PQclear(res);
		if (stop) {
			/* stop the server producing rows nobody reads */
			PGcancel *c = PQgetCancel(conn);
			char buf[256];

			if (c) {
				PQcancel(c, buf, sizeof(buf));
				PQfreeCancel(c);
			}
			done = true;
		}
		if (done) {
			/* every result up to NULL is read before closing */
			while ((res = PQgetResult(conn)))
				PQclear(res);
			break;
		}
	}
	if (done)
		rc = -1;
	else if (rc < 0)
		statement_error(conn, NULL, "the jobs query ended early", err);
out:
	(void)log;
	free(sizes);
	PQfinish(conn);
	return rc;
}
