/* compare_cases.c - the cases of `trace compare` as given
 * (compare_cases.h). */
#include <string.h>

#include "streamtime/compare_cases.h"

/* ERR set to 64 with FMT's text; ST_EXIT_USAGE. */
#define USAGE(err, ...) (st_error_set(err, ST_EXIT_USAGE, __VA_ARGS__), \
			 ST_EXIT_USAGE)

void st_compare_input_release(st_compare_input *c)
{
	st_trace_inputs_release(&c->in);
	st_trace_sets_release(&c->ts);
}

/* The sets of C's inputs opened with their phases, when NT holds no
 * error.  0, or -1 with ERR set. */
static int case_sets(st_compare_input *c, const struct st_trace_sys_opts *so,
		     size_t max_bad, st_trace_notes *nt, st_error *err)
{
	if (st_trace_notes_status(nt))
		return 0;
	if (st_trace_sets_open(&c->ts, c->in.sysdirs, c->in.nsys, so, max_bad,
			       &c->in.v, &c->in.n, nt, err) < 0 ||
	    (c->ts.sets.n && st_trace_sets_phases(&c->ts, err) < 0))
		return -1;
	return 0;
}

/* ARG (NAME=PATH[,PATH...]) into C: its paths collected into C->in (NT),
 * then, when all are there, its sets opened with their phases.  0,
 * ST_EXIT_USAGE or -1, with ERR set. */
static int case_inputs(st_compare_input *c, char *arg,
		       const struct st_trace_sys_opts *so, size_t max_bad,
		       st_trace_notes *nt, st_error *err)
{
	char *eq = strchr(arg, '='), *p, *save = NULL;
	size_t len;

	if (!eq || eq == arg || !eq[1])
		return USAGE(err, "--case '%s': expected NAME=PATH[,PATH...]",
			     arg);
	*eq = 0;
	c->name = arg;
	len = strlen(eq + 1);
	if (strstr(eq + 1, ",,") || eq[1] == ',' || eq[len] == ',')
		return USAGE(err, "--case %s: an empty path in '%s'", arg,
			     eq + 1);
	for (p = strtok_r(eq + 1, ",", &save); p;
	     p = strtok_r(NULL, ",", &save))
		if (st_trace_inputs_collect(&c->in, &p, 1, nt, err) < 0)
			return -1;
	return case_sets(c, so, max_bad, nt, err);
}

/* The name of CI[I] against CI[0..I) and, with EVENTS, as a file's. */
static int case_name(const st_compare_input *ci, size_t i, bool events,
		     st_error *err)
{
	if (events && (strchr(ci[i].name, '/') || ci[i].name[0] == '.'))
		return USAGE(err, "--case %s: the name "
				    "of a case names its events files: no '/' "
				    "in it, and no '.' first", ci[i].name);
	for (size_t k = 0; k < i; k++)
		if (ci[k].name && strcmp(ci[k].name, ci[i].name) == 0)
			return USAGE(err, "--case %s "
					    "given twice", ci[i].name);
	return 0;
}

/* CS[I] set from CI[I] and, RC 0 and NT without error, the name
 * checked (EVENTS: as a file's).  RC, or the name's. */
static int case_done(st_compare_input *ci, st_compare_case *cs, size_t i,
		     bool events, const st_trace_notes *nt, int rc,
		     st_error *err)
{
	if (!rc && !st_trace_notes_status(nt))
		rc = case_name(ci, i, events, err);
	cs[i].name = ci[i].name;
	cs[i].paths = (const char *const *)ci[i].in.v;
	cs[i].n = ci[i].in.n;
	cs[i].src = ci[i].ts.sets.n ? &ci[i].ts.src : NULL;
	cs[i].seg_us = ci[i].ts.seg;
	cs[i].nseg = ci[i].ts.nseg;
	cs[i].seg_phase = (const char *const *)ci[i].ts.phase;
	return rc;
}

int st_compare_case_open(st_compare_input *ci, st_compare_case *cs, size_t i,
			 char *arg, const struct st_trace_sys_opts *so,
			 size_t max_bad, bool events, st_trace_notes *nt,
			 st_error *err)
{
	int rc = case_inputs(&ci[i], arg, so, max_bad, nt, err);

	return case_done(ci, cs, i, events, nt, rc, err);
}

int st_compare_case_paths(st_compare_input *ci, st_compare_case *cs,
			  size_t i, char *name, char *const *paths, size_t n,
			  const struct st_trace_sys_opts *so, size_t max_bad,
			  st_trace_notes *nt, st_error *err)
{
	int rc = 0;

	ci[i].name = name;
	if (!*name || !n)
		rc = USAGE(err, "case '%s': %s", name,
			   *name ? "no path" : "no name");
	else if (st_trace_inputs_collect(&ci[i].in, paths, n, nt, err) < 0 ||
		 case_sets(&ci[i], so, max_bad, nt, err) < 0)
		rc = -1;
	return case_done(ci, cs, i, false, nt, rc, err);
}
