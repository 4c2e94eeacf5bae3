/* pass.h - what the single-pass readers of inputs share (trace events,
 * trace compare): the filters' answers per string id of a reader, so that
 * each filter is asked once per distinct name, cat, host and file of each
 * input; opening an input and recording what became of it as a summary
 * does (trace.h's st_trace_file); keeping the corrupt lines.  Not a
 * public interface. */
#ifndef STREAMTIME_TRACE_PASS_H
#define STREAMTIME_TRACE_PASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/pfw.h"
#include "streamtime/trace.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_keys.h"

/* Up to ST_TRACE_FSET_MAX filters asked of each event at once (trace
 * compare's metrics; the one filter of trace events, and of summaries and
 * timelines through gather.c's rmap): bit j of an answer is
 * filter j's.  Their answers on a string field are kept per string id of
 * the reader, so each filter is asked once per distinct name, cat, host
 * and file, and an event costs one lookup per field the filters test,
 * whatever their number.  Zeroed is empty; one per reader (ids are the
 * reader's) or reset by st_trace_fset_reader. */
#define ST_TRACE_FSET_MAX 63

struct st_trace_fset {
	const st_trace_filter *f[ST_TRACE_FSET_MAX];
	size_t n;
	uint64_t all;         /* the n bits */
	uint64_t has[4];      /* filters with terms on name, cat, host, file */
	uint64_t none_ok[4];  /* answers for an event without the field */
	uint64_t nums;        /* filters with a term on a number */
	uint64_t *ok[4];      /* per string id: answers | FSET_KNOWN, 0 not
			       * yet */
	size_t cap;
};

/* F (not NULL) as the set's next filter: its bit, or -1 when the set is
 * full. */
int st_trace_fset_add(struct st_trace_fset *s, const st_trace_filter *f);
/* A new reader: forget the answers by string id. */
void st_trace_fset_reader(struct st_trace_fset *s);
void st_trace_fset_release(struct st_trace_fset *s);
/* The answers of every filter of S for EV, an event of R, into *MASK.
 * 0, or -1 with ERR (may be NULL): memory ran out, or a filter failed
 * (trace_filter_failed). */
int st_trace_fset_eval(struct st_trace_fset *s, const st_pfw_reader *r,
		       const st_pfw_event *ev, uint64_t *mask, st_error *err);

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

/* Rows of events as `trace events` writes them (trace_events.h), to a
 * stream that may change between rows (trace_events.c). */
struct st_trace_rows;

/* A writer of FORMAT rows with the derived columns KEYS (may be NULL),
 * into *W, writing nowhere yet.  0, or -1 with ERR: 64 when a key is a
 * column already, 74 out of memory. */
int st_trace_rows_new(struct st_trace_rows **w,
		      enum st_trace_events_format format,
		      const st_trace_keys *keys, st_error *err);

/* The phase key's value of each row from now on: the phase of
 * SEG_PHASE[0..NSEG) (may be NULL: none) the event starts in
 * (st_trace_opts.seg_us, nseg, seg_phase; borrowed). */
void st_trace_rows_phases(struct st_trace_rows *w, const int64_t *seg_us,
			  size_t nseg, const char *const *seg_phase);

/* Write what W holds to its stream, then write to OUT. */
void st_trace_rows_out(struct st_trace_rows *w, FILE *out);

/* A new reader: forget what W keeps of the last one's strings.  Call it
 * before the first row of each reader. */
void st_trace_rows_reader(struct st_trace_rows *w);

/* The CSV header (JSON lines have none); a row per event EV of R.  0,
 * -1 out of memory, -2 when a write failed (then and later). */
int st_trace_rows_header(struct st_trace_rows *w);
int st_trace_rows_put(struct st_trace_rows *w, const st_pfw_reader *r,
		      const st_pfw_event *ev);

/* Write what W holds to its stream (no fflush).  0, or -2 when a write
 * of W failed or the stream has its error flag. */
int st_trace_rows_flush(struct st_trace_rows *w);

void st_trace_rows_free(struct st_trace_rows *w);

#endif
