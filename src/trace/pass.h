/* pass.h - what the single-pass readers of inputs share (trace events,
 * trace compare): a filter's answer per string id of a reader, so that the
 * filter is asked once per distinct name, cat, host and file of each
 * input; opening an input and recording what became of it as a summary
 * does (trace.h's st_trace_file); keeping the corrupt lines.  Not a
 * public interface. */
#ifndef STREAMTIME_TRACE_PASS_H
#define STREAMTIME_TRACE_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/pfw.h"
#include "streamtime/trace.h"
#include "streamtime/trace_keys.h"

/* Per reader string id and field (name, cat, host, file): whether the
 * filter's terms on that field hold, 0 unknown, 1, -1.  Zeroed is empty;
 * one per reader (ids are the reader's). */
struct st_trace_fcache {
	int8_t *ok[4];
	size_t cap;
};

void st_trace_fcache_release(struct st_trace_fcache *c);

/* Does F let EV, an event of R, through (F NULL: yes)?  1, 0, or -1 when
 * memory runs out. */
int st_trace_fcache_keep(struct st_trace_fcache *c, const st_trace_filter *f,
			 const st_pfw_reader *r, const st_pfw_event *ev);

/* Open PATH as input record TF (through SRC's opener when it has one,
 * else st_pfw_open).  The reader, or NULL when it cannot be opened: then
 * TF's err_code and err_text say why, and *OOM is set when even that
 * could not be kept. */
st_pfw_reader *st_trace_input_open(st_trace_file *tf, const char *path,
				   const st_trace_source *src, bool *oom);

/* Close R, whose last st_pfw_next gave RC (and RERR when RC is
 * ST_PFW_ERROR), into TF: its stats, its read error, and not_trace when
 * it was read to its end (COMPLETE: the caller did not stop early) and no
 * line of it is an event of any phase.  P (may be NULL) gets the bytes
 * read beyond SEEN and the events.  0, or -1 when memory runs out. */
int st_trace_input_close(st_trace_file *tf, st_pfw_reader *r, int rc,
			 const st_error *rerr, bool complete,
			 st_trace_progress *p, uint64_t seen);

/* Count the corrupt line R just gave, input FI's, in *COUNT and keep it
 * in *BAD (*N of them, allocated MAX at once) while fewer than MAX are
 * kept.  0, or -1 when memory runs out. */
int st_trace_bad_keep(st_trace_bad **bad, size_t *n, uint64_t *count,
		      size_t max, size_t fi, const st_pfw_reader *r);

/* Free what the records FILES[0..NFILES) and BAD[0..NBAD) own, and the
 * two arrays. */
void st_trace_inputs_free(st_trace_file *files, size_t nfiles,
			  st_trace_bad *bad, size_t nbad);

/* The value of key K for E (st_trace_key_format) into *BUF (*CAP bytes,
 * grown as needed, NUL-terminated), its length into *LEN
 * (ST_TRACE_KEY_NONE when E has none).  0, or -1 when memory runs out. */
int st_trace_key_text(const st_trace_key *k, const st_trace_rec *e,
		      char **buf, size_t *cap, size_t *len);

#endif
