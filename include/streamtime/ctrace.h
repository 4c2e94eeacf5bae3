/* ctrace.h - a streaming writer of Chrome trace events (the Trace Event
 * format's object form, which Perfetto UI and chrome://tracing load).
 *
 * The caller writes the document's opening and closing through
 * st_ctrace_raw (the part up to and including '"traceEvents":[', and
 * from "\n]" on); the writer writes the events, each on a line of its
 * own with the separators, and counts them.  Output goes through an
 * st_outbuf: a failed write is sticky and shows in st_ctrace_finish.
 * Keys are written as given (callers pass plain ASCII names); string
 * values are escaped.
 */
#ifndef STREAMTIME_CTRACE_H
#define STREAMTIME_CTRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"
#include "streamtime/outbuf.h"

typedef struct st_ctrace {
	st_outbuf ob;
	uint64_t n;               /* events written so far */
	bool arg;                 /* an arg written in the open slice */
} st_ctrace;

/* Start writing to F (borrowed). */
void st_ctrace_init(st_ctrace *w, FILE *f);

/* A piece of the enclosing document, as it is. */
static inline void st_ctrace_raw(st_ctrace *w, const char *s)
{
	st_outbuf_str(&w->ob, s);
}

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
 * (74, naming WHAT, e.g. "the timeline") when any write failed. */
int st_ctrace_finish(st_ctrace *w, const char *what, st_error *err);

#endif
