/* compare_events.c - the events files of `trace compare`
 * (compare_events.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/compare_events.h"

int st_compare_events_open(st_compare_events *ev, st_compare_case *cs,
			   size_t n, const st_metrics *m, const char *dir,
			   st_error *err)
{
	ev->af = NULL;
	if (!dir)
		return 0;
	if (!(ev->af = calloc(n && m->n ? n * m->n : 1,
				  sizeof(*ev->af))))
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t c = 0; c < n; c++) {
		if (!(cs[c].events_out = calloc(m->n, sizeof(FILE *))))
			goto oom;
		for (size_t i = 0; i < m->n; i++) {
			st_atomic_file *af = &ev->af[c * m->n + i];
			size_t len = strlen(dir) + strlen(cs[c].name) +
				     strlen(m->v[i].name) + 10;
			char *path;
			int rc;

			if (!m->v[i].events)
				continue;
			if (!(path = malloc(len)))
				goto oom;
			snprintf(path, len, "%s/%s.%s.%s", dir, cs[c].name,
				 m->v[i].name, m->v[i].format ==
				 ST_TRACE_EVENTS_JSONL ? "jsonl" : "csv");
			rc = st_atomic_open(af, path, err);
			free(path);
			if (rc < 0) {
				st_error e;

				st_compare_events_close(ev, cs, n, m, NULL, &e);
				return -1;
			}
			cs[c].events_out[i] = af->fp;
		}
	}
	return 0;
oom:
	st_compare_events_close(ev, cs, n, m, NULL, err);
	return st_error_set(err, ST_EXIT_IOERR, "out of memory");
}

int st_compare_events_close(st_compare_events *ev, st_compare_case *cs,
			    size_t n, const st_metrics *m, st_atomic_set *set,
			    st_error *err)
{
	int rc = 0;

	for (size_t c = 0; ev->af && c < n; c++) {
		for (size_t i = 0; cs[c].events_out && i < m->n; i++) {
			st_atomic_file *af = &ev->af[c * m->n + i];

			if (!cs[c].events_out[i])
				continue;
			if (set && rc == 0 && st_atomic_set_add(set, af,
								err) < 0)
				rc = -1;
			else if (!set || rc < 0)
				st_atomic_abort(af);
			cs[c].events_out[i] = NULL;
		}
		free(cs[c].events_out);
		cs[c].events_out = NULL;
	}
	free(ev->af);
	ev->af = NULL;
	if (rc < 0)
		st_atomic_set_abort(set);
	return rc;
}
