/* sacct.c - Slurm accounting from sacct's output, live or saved. */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "streamtime/csv.h"
#include "streamtime/sacct.h"
#include "streamtime/spawn.h"
#include "streamtime/time.h"
#include "streamtime/tz.h"

/* Live order: everything but JobName, then JobName. */
static const enum st_slurm_field live_order[ST_SLURM_NFIELDS] = {
	ST_SLURM_ID, ST_SLURM_TIMELIMIT, ST_SLURM_ELAPSED, ST_SLURM_SUBMIT,
	ST_SLURM_START, ST_SLURM_END, ST_SLURM_REQNODES, ST_SLURM_QOS,
	ST_SLURM_USER, ST_SLURM_EXITCODE, ST_SLURM_NAME,
};

const char st_sacct_format[] =
	"JobID,Timelimit,Elapsed,Submit,Start,End,ReqNodes,QOS,User,ExitCode,"
	"JobName";

/* Split LINE (modified) at DELIM into at most MAX fields; the last field
 * keeps any further delimiters.  Returns the number of fields. */
static size_t split(char *line, const char *delim, char **f, size_t max)
{
	size_t n = 0, dl = strlen(delim);
	char *p = line;

	while (n + 1 < max) {
		char *q = strstr(p, delim);

		if (!q)
			break;
		*q = '\0';
		f[n++] = p;
		p = q + dl;
	}
	f[n++] = p;
	return n;
}

/* How many fields LINE has at DELIM. */
static size_t count_fields(const char *line, const char *delim)
{
	size_t n = 1, dl = strlen(delim);

	for (const char *p = strstr(line, delim); p; p = strstr(p + dl, delim))
		n++;
	return n;
}

/* Append "\n" + MORE to the name of the last job of OUT (a job name with a
 * newline in it, split across lines by sacct). */
static int continue_name(st_slurm_jobs *out, const char *more, st_error *err)
{
	char **name = &out->v[out->n - 1].f[ST_SLURM_NAME];
	size_t a = strlen(*name), b = strlen(more);
	char *nn = realloc(*name, a + b + 2);

	if (!nn)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	nn[a] = '\n';
	memcpy(nn + a + 1, more, b + 1);
	*name = nn;
	return 0;
}

/* A line of BUF at *POS (NUL-terminated copy in a new string, without the
 * newline or a CR), or NULL at the end. */
static char *next_line(const char *buf, size_t len, size_t *pos)
{
	const char *s = buf + *pos, *nl;
	size_t n;
	char *line;

	if (*pos >= len)
		return NULL;
	nl = memchr(s, '\n', len - *pos);
	n = nl ? (size_t)(nl - s) : len - *pos;
	*pos += n + (nl ? 1 : 0);
	if (n && s[n - 1] == '\r')
		n--;
	line = malloc(n + 1);
	if (line) {
		memcpy(line, s, n);
		line[n] = '\0';
	}
	return line;
}

/* st_slurm_job_check on the row V at LINE of the dump NAME (NULL: of live
 * sacct output): error 65 naming the place and the column. */
static int check_row(const char *const v[ST_SLURM_NFIELDS], const char *name,
		     size_t line, st_error *err)
{
	char why[200];
	int k = st_slurm_job_check(v, why, sizeof(why));

	if (k < 0)
		return 0;
	if (!name)
		return st_error_set(err, ST_EXIT_DATAERR, "sacct output line %zu: "
				    "column '%s': %s", line,
				    st_slurm_sacct_names[k], why);
	return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: column '%s': %s",
			    name, line, st_slurm_sacct_names[k], why);
}

int st_sacct_parse_live(const char *buf, size_t len, const char *delim,
			st_slurm_jobs *out, st_error *err)
{
	size_t pos = 0, lineno = 0, first = out->n;
	char *line;

	if (st_text_check_nul("sacct output", buf, len, err) < 0)
		return -1;
	while ((line = next_line(buf, len, &pos)) != NULL) {
		char *f[ST_SLURM_NFIELDS];
		const char *v[ST_SLURM_NFIELDS];
		size_t n;

		lineno++;
		if (count_fields(line, delim) < ST_SLURM_NFIELDS) {
			/* the rest of a job name that held a newline (of a job
			 * of this output: never another window's) */
			if (out->n == first) {
				if (!*line) {
					free(line);
					continue;
				}
				st_error_set(err, ST_EXIT_DATAERR, "sacct output line %zu: "
					     "%zu fields, expected %d", lineno,
					     count_fields(line, delim), ST_SLURM_NFIELDS);
				free(line);
				return -1;
			}
			if (continue_name(out, line, err) < 0) {
				free(line);
				return -1;
			}
			free(line);
			continue;
		}
		n = split(line, delim, f, ST_SLURM_NFIELDS);
		for (size_t i = 0; i < n; i++)
			v[live_order[i]] = f[i];
		if (check_row(v, NULL, lineno, err) < 0 ||
		    st_slurm_jobs_add(out, v, err) < 0) {
			free(line);
			return -1;
		}
		free(line);
	}
	return 0;
}

int st_sacct_parse_dump(const char *buf, size_t len, const char *name,
			const char *delim, st_slurm_jobs *out, st_error *err)
{
	size_t pos = 0, lineno = 1, nh, ncols, first = out->n;
	char *header = next_line(buf, len, &pos), *hf[256];
	int col[ST_SLURM_NFIELDS];
	bool trailing = false, name_last;
	int rc = -1;

	if (st_text_check_nul(name, buf, len, err) < 0) {
		free(header);
		return -1;
	}
	if (!header || !*header) {
		free(header);
		return st_error_set(err, ST_EXIT_DATAERR, "%s: empty (a header line "
				    "of sacct field names is required)", name);
	}
	if (!delim)
		delim = strchr(header, '|') ? "|" : strchr(header, ',') ? "," : NULL;
	if (!delim) {
		st_error_set(err, ST_EXIT_DATAERR, "%s:1: no '|' or ',' in the header; "
			     "was it dumped with -P (or give --delimiter)?", name);
		goto out;
	}
	nh = split(header, delim, hf, sizeof(hf) / sizeof(hf[0]));
	if (nh > 1 && !*hf[nh - 1]) {   /* sacct -p: a delimiter ends every line */
		trailing = true;
		nh--;
	}
	for (int k = 0; k < ST_SLURM_NFIELDS; k++) {
		col[k] = -1;
		for (size_t i = 0; i < nh; i++)
			if (strcasecmp(hf[i], st_slurm_sacct_names[k]) == 0 ||
			    strcmp(hf[i], st_slurm_header[k]) == 0)
				col[k] = (int)i;
		if (col[k] < 0) {
			st_error_set(err, ST_EXIT_DATAERR, "%s:1: no column '%s' in "
				     "the header", name, st_slurm_sacct_names[k]);
			goto out;
		}
	}
	ncols = nh;
	name_last = col[ST_SLURM_NAME] == (int)ncols - 1;
	for (char *line; (line = next_line(buf, len, &pos)) != NULL; free(line)) {
		char *f[256];
		const char *v[ST_SLURM_NFIELDS];
		size_t n, l = strlen(line), dl = strlen(delim);

		lineno++;
		if (trailing && l >= dl && strcmp(line + l - dl, delim) == 0)
			line[l - dl] = '\0';
		n = count_fields(line, delim);
		if (!*line && n == 1)
			continue;
		if (n < ncols) {
			/* the rest of a name with a newline has no delimiter;
			 * a short row does, and is an error, never glued on */
			if (name_last && out->n > first && n == 1) {
				if (continue_name(out, line, err) < 0) {
					free(line);
					goto out;
				}
				continue;
			}
			st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: %zu fields, the "
				     "header has %zu", name, lineno, n, ncols);
			free(line);
			goto out;
		}
		if (n > ncols && !name_last) {
			st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: %zu fields, the header "
				     "has %zu: a '%s' inside a value (a job name?); "
				     "dump with a rare --delimiter and JobName last",
				     name, lineno, n, ncols, delim);
			free(line);
			goto out;
		}
		split(line, delim, f, ncols);   /* extra delimiters stay in the name */
		for (int k = 0; k < ST_SLURM_NFIELDS; k++) {
			const char *s = f[col[k]];
			size_t sl = strlen(s);

			if (sl && s[sl - 1] == '+' && k != ST_SLURM_NAME) {
				st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: column '%s': "
					     "'%s' was cut short by sacct (dump with -P "
					     "or -p, not fixed-width columns)", name, lineno,
					     st_slurm_sacct_names[k], s);
				free(line);
				goto out;
			}
			v[k] = s;
		}
		if (check_row(v, name, lineno, err) < 0 ||
		    st_slurm_jobs_add(out, v, err) < 0) {
			free(line);
			goto out;
		}
	}
	rc = 0;
out:
	free(header);
	return rc;
}

/* ---- running sacct ---- */

/* "YYYY-MM-DDTHH:MM:SS" of epoch T in TZ. */
static void naive(int64_t t, const st_tz *tz, char *buf, size_t size)
{
	char *sp;

	st_time_format_naive(t * ST_NS_PER_SEC, tz, buf, size);
	sp = strchr(buf, ' ');
	if (sp)
		*sp = 'T';
}

/* The last non-empty line of S (in a static buffer), for messages. */
static const char *last_line(const char *s)
{
	static char buf[300];
	const char *end, *start;

	if (!s)
		return "(nothing on stderr)";
	end = s + strlen(s);
	while (end > s && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	start = end;
	while (start > s && start[-1] != '\n')
		start--;
	snprintf(buf, sizeof(buf), "%.*s", (int)(end - start), start);
	return buf[0] ? buf : "(nothing on stderr)";
}

/* Run sacct for [S, E); its stdout in *OUT, stderr in *ERRTXT (new).
 * Returns its exit status, or -1 with ERR set when it could not be run
 * (69) or its output not read (74). */
static int run_sacct(const st_sacct_opts *o, const st_tz *tz, int64_t s,
		     int64_t e, char **outbuf, size_t *outlen, char **errtxt,
		     st_error *err)
{
	char sb[48], eb[48], start[64], end[64], delim[32], fmt[200];
	char *argv[16], tzenv[PATH_MAX + 4];   /* st_tz_load's names fit */
	/* sacct prints times in its TZ, and SLURM_TIME_FORMAT would change how */
	const char *env[] = { tzenv, "SLURM_TIME_FORMAT", NULL };
	st_spawn_opts so = { 0, env };
	int argc = 0;

	naive(s, tz, sb, sizeof(sb));
	naive(e, tz, eb, sizeof(eb));
	snprintf(tzenv, sizeof(tzenv), "TZ=%s", o->tz);
	snprintf(start, sizeof(start), "--starttime=%s", sb);
	snprintf(end, sizeof(end), "--endtime=%s", eb);
	snprintf(delim, sizeof(delim), "--delimiter=%s", ST_SACCT_DELIM);
	snprintf(fmt, sizeof(fmt), "--format=%s", st_sacct_format);
	argv[argc++] = (char *)o->sacct;
	argv[argc++] = "-X";
	argv[argc++] = "-P";
	argv[argc++] = "--noheader";
	argv[argc++] = delim;
	argv[argc++] = fmt;
	argv[argc++] = start;
	argv[argc++] = end;
	if (o->all_users)
		argv[argc++] = "--allusers";
	if (o->user) {
		argv[argc++] = "--user";
		argv[argc++] = (char *)o->user;
	}
	argv[argc] = NULL;
	return st_spawn_collect(argv, &so, outbuf, outlen, errtxt, err);
}

int st_sacct_fetch(const st_sacct_opts *o, st_slurm_jobs *out, st_error *err)
{
	st_tz *tz = st_tz_load(o->tz, err);
	int64_t s = o->since, window = o->window;
	int rc = -1;

	if (!tz)
		return -1;
	while (s < o->until) {
		int64_t e = s + window < o->until ? s + window : o->until;
		char *obuf = NULL, *ebuf = NULL;
		size_t olen = 0;
		int status = run_sacct(o, tz, s, e, &obuf, &olen, &ebuf, err);
		bool too_wide;

		if (status < 0)
			goto out;
		/* Slurm's MaxQueryTimeRange: "Too wide of a date range in query",
		 * on stderr -- with exit status 0 from some sacct versions, which
		 * would otherwise read as a window without jobs */
		too_wide = strcasestr(ebuf, "too wide of a date range") != NULL;
		if (too_wide && status == 0)
			status = 1;
		if (status != 0 && (too_wide || strstr(ebuf, "MaxQueryTimeRange")) &&
		    e - s > 3600) {
			window = (e - s) / 2;
			st_warn(o->notes, "sacct refused %lld s at once; querying "
				"%lld s windows", (long long)(e - s), (long long)window);
			free(obuf);
			free(ebuf);
			continue;
		}
		if (status != 0) {
			st_error_set(err, ST_EXIT_UNAVAILABLE, "%s exited with status %d: "
				     "%s", o->sacct, status, last_line(ebuf));
			free(obuf);
			free(ebuf);
			goto out;
		}
		if (ebuf && *last_line(ebuf) != '(') {
			char sb[48], eb[48];

			naive(s, tz, sb, sizeof(sb));
			naive(e, tz, eb, sizeof(eb));
			st_warn(o->log, "%s, window %s to %s, said: %s", o->sacct, sb,
				eb, last_line(ebuf));
		}
		if (obuf && st_sacct_parse_live(obuf, olen, ST_SACCT_DELIM, out,
						err) < 0) {
			free(obuf);
			free(ebuf);
			goto out;
		}
		free(obuf);
		free(ebuf);
		s = e;
	}
	rc = 0;
out:
	st_tz_free(tz);
	return rc;
}
