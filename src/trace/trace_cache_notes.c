/* trace_cache_notes.c - the --cache DIR of summary and compare turned on
 * and off, what it did as notes (trace_cache.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/trace_cache.h"

int st_trace_cache_begin(st_trace_cache *c, const char *dir, int64_t max_mb,
			 const char *prog, st_trace_notes *nt, st_error *err)
{
	if (!dir)
		dir = getenv("STREAMTIME_CACHE");
	memset(c, 0, sizeof(*c));
	if (!dir || !*dir)
		return 0;
	if (st_trace_cache_open(c, dir, (uint64_t)(max_mb > 0 ? max_mb : 1024)
				<< 20, err) < 0)
		return st_trace_notes_add(nt, ST_NOTE_WARN, 0, NULL, err,
					  "%s: %s; reading without the cache",
					  prog, err->text);
	return 1;
}

int st_trace_cache_end(st_trace_cache *c, const char *prog,
		       st_trace_notes *nt, st_error *err)
{
	const st_trace_cache_stats *s = &c->st;
	int r = 0;

	if (s->warning[0])
		r = st_trace_notes_add(nt, ST_NOTE_WARN, 0, NULL, err, "%s: %s",
				       prog, s->warning);
	if (r == 0)
		r = st_trace_notes_add(nt, ST_NOTE_VERBOSE, 0, NULL, err,
			"%s: cache %s: %s%" PRIu64 " files from it, %" PRIu64
			" read, %" PRIu64 " not cacheable, %" PRIu64 " changed "
			"in the last 2 s (not kept yet); %" PRIu64 " entries "
			"written, %" PRIu64 " evicted; %" PRIu64 " indexed, %"
			PRIu64 " read in ranges", prog, c->dir,
			s->run_hit ? "the run's entry, " : "", s->hits,
			s->misses, s->uncached, s->recent, s->written,
			s->evicted, s->indexed, s->split);
	st_trace_cache_release(c);
	return r;
}
