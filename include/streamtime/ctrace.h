/* ctrace.h - a streaming writer of Chrome trace events (the Trace Event
 * format's object form, which Perfetto UI and chrome://tracing load), or,
 * through the same calls, of Perfetto's protobuf trace (pftrace.h).
 *
 * The caller writes the document's opening and closing through
 * st_ctrace_raw (the part up to and including '"traceEvents":[', and
 * from "\n]" on); the writer writes the events, each on a line of its
 * own with the separators, and counts them.  Output goes through an
 * st_outbuf: a failed write is sticky and shows in st_ctrace_finish.
 * Keys are written as given (callers pass plain ASCII names); string
 * values are escaped.  In the Perfetto form the document's pieces
 * (st_ctrace_raw) are not written: what they hold is JSON's.
 */
#ifndef STREAMTIME_CTRACE_H
#define STREAMTIME_CTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/atomic.h"
#include "streamtime/error.h"
#include "streamtime/outbuf.h"

struct st_pftrace;

typedef enum st_ctrace_format {
	ST_CTRACE_JSON,
	ST_CTRACE_PERFETTO
} st_ctrace_format;

typedef struct st_ctrace {
	st_outbuf ob;
	uint64_t n;               /* events written so far */
	bool arg;                 /* an arg written in the open slice */
	struct st_pftrace *pf;    /* the Perfetto form; NULL: JSON */
} st_ctrace;

/* Start writing JSON to F (borrowed). */
void st_ctrace_init(st_ctrace *w, FILE *f);

/* Start writing FMT to F (borrowed); st_ctrace_release afterwards.  0, or
 * -1 with ERR set when memory runs out. */
int st_ctrace_init_format(st_ctrace *w, FILE *f, st_ctrace_format fmt,
			  st_error *err);
void st_ctrace_release(st_ctrace *w);

/* The Perfetto form from sequence SEQ, its tracks' uuids OFFSET, OFFSET +
 * STRIDE, ... (st_pftrace_new): one part of a trace whose parts are
 * written apart and joined. */
int st_ctrace_init_perfetto(st_ctrace *w, FILE *f, uint32_t seq,
			    uint64_t stride, uint64_t offset, st_error *err);

/* The format of an output: GIVEN ("perfetto" or "json", from --format),
 * else PATH's name: *.pftrace and *.perfetto-trace are Perfetto's, the
 * rest JSON; a further ".gz" (t.json.gz) is *GZIP.  0, or -1 with ERR set
 * (64) when GIVEN is neither. */
int st_ctrace_format_of(const char *path, const char *given,
			st_ctrace_format *fmt, bool *gzip, st_error *err);

/* In the Perfetto form, the events that follow are of a new sequence
 * (pftrace.h: st_pftrace_sequence); nothing in JSON. */
void st_ctrace_sequence(st_ctrace *w);

/* A piece of the enclosing document, as it is (JSON only). */
static inline void st_ctrace_raw(st_ctrace *w, const char *s)
{
	if (!w->pf)
		st_outbuf_str(&w->ob, s);
}

/* An output file of a trace, written whole or not at all (atomic.h), and
 * gzipped (zlib) when GZIP. */
typedef struct st_ctrace_file {
	st_atomic_file af;
	FILE *fp;                 /* write here */
	FILE *gz;                 /* the gzip stream on af.fp, or NULL */
} st_ctrace_file;

/* Open PATH ("-": stdout).  0, or -1 with ERR set (73). */
int st_ctrace_file_open(st_ctrace_file *cf, const char *path, bool gzip,
			st_error *err);
/* Finish the gzip stream and publish the file.  0, or -1 with ERR set
 * (74): nothing is left then. */
int st_ctrace_file_commit(st_ctrace_file *cf, st_error *err);
void st_ctrace_file_abort(st_ctrace_file *cf);

/* A metadata event {"name":WHAT,"ph":"M","pid":PID[,"tid":TID],"args":
 * {KEY:TEXT or NUM}}: tid left out when TID < 0, NUM written when TEXT is
 * NULL. */
void st_ctrace_meta(st_ctrace *w, const char *what, int64_t pid, int64_t tid,
		    const char *key, const char *text, int64_t num);

/* Open a complete event (ph "X") of NAME[0..NLEN) in category
 * CAT[0..CLEN), ts and dur in microseconds; its args follow (st_ctrace_arg_*)
 * and st_ctrace_end closes it. */
void st_ctrace_slice(st_ctrace *w, const char *name, size_t nlen,
		     const char *cat, size_t clen, int64_t pid, int64_t tid,
		     int64_t ts, int64_t dur);
/* Open a counter event (ph "C") of NAME[0..NLEN) on process PID at TS
 * (µs): each arg (st_ctrace_arg_real/int) a series of its track;
 * st_ctrace_end closes it. */
void st_ctrace_counter(st_ctrace *w, const char *name, size_t nlen,
		       int64_t pid, int64_t ts);
/* Open an instant event (ph "i", thread scope) of NAME in CAT at TS. */
void st_ctrace_instant(st_ctrace *w, const char *name, size_t nlen,
		       const char *cat, size_t clen, int64_t pid, int64_t tid,
		       int64_t ts);
/* Arg KEY, S[0..LEN) as a string; when S is not UTF-8, its escaped text
 * and KEY_hex with its bytes (text.h). */
void st_ctrace_arg_str(st_ctrace *w, const char *key, const char *s,
		       size_t len);
void st_ctrace_arg_int(st_ctrace *w, const char *key, int64_t v);
/* V as jansson writes a real: %.17g, ".0" added to an integral value. */
void st_ctrace_arg_real(st_ctrace *w, const char *key, double v);
void st_ctrace_arg_bool(st_ctrace *w, const char *key, bool v);
void st_ctrace_end(st_ctrace *w);

/* Write out the buffer and fflush the stream.  0, or -1 with ERR set
 * (74, naming WHAT, e.g. "the timeline") when any write failed or memory
 * ran out. */
int st_ctrace_finish(st_ctrace *w, const char *what, st_error *err);

#endif
