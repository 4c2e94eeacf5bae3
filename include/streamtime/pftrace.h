/* pftrace.h - Perfetto's protobuf trace, streamed: the second form the
 * Chrome trace writer (ctrace.h) writes, behind the same calls.
 *
 * The file is a Trace (data/perfetto/streamtime_trace.proto): TracePackets
 * of sequences 1, 2, ... (st_pftrace_sequence).  The first of each clears
 * the incremental state and ties clocks 64 to 127 (incremental,
 * microseconds) to BOOTTIME at 0, 64 the sequence's default, so that a
 * packet's timestamp is the microseconds since the previous packet on its
 * clock.  A packet earlier than that moves to the clock that is latest
 * before it (the defaults changed in the packet), and only when every
 * clock is past it gives its time absolute, in nanoseconds on
 * BOOTTIME.  Tracks are the trace's, whatever the sequence.  Event names,
 * categories, arg names and string values are interned (each written once,
 * then by iid).  A process is a TrackDescriptor with its ProcessDescriptor,
 * a (process, thread) one with its ThreadDescriptor, a counter series one
 * with a CounterDescriptor; each is written once, before its first
 * event.  A slice is a TrackEvent with a LegacyEvent of phase 'X' and its
 * duration, one packet, as Perfetto reads Chrome's complete events; its
 * args are DebugAnnotations.  Memory holds the tracks and the distinct
 * strings, never the events.
 */
#ifndef STREAMTIME_PFTRACE_H
#define STREAMTIME_PFTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/outbuf.h"

typedef struct st_pftrace st_pftrace;

/* A new writer onto O (borrowed), or NULL when memory runs out.  Nothing
 * is written but the first packet (the clocks).  Its first sequence is
 * SEQ, its tracks' uuids OFFSET, OFFSET + STRIDE, ... (1, 1, 1 for a trace
 * of one writer; writers whose outputs are joined take other offsets). */
st_pftrace *st_pftrace_new(st_outbuf *o, uint32_t seq, uint64_t stride,
			   uint64_t offset);
void st_pftrace_free(st_pftrace *p);

/* Go on in a new sequence: its strings interned anew and its clocks from
 * 0, the previous one's state freed (so that the strings of many inputs,
 * each in a sequence of its own, are not all held at once, and each
 * input's times run forward on its own clocks). */
void st_pftrace_sequence(st_pftrace *p);

/* Chrome's metadata events as track descriptors: WHAT "process_name" or
 * "thread_name" (TEXT), "process_sort_index" or "thread_sort_index"
 * (NUM); TID < 0 for a process's. */
void st_pftrace_meta(st_pftrace *p, const char *what, int64_t pid,
		     int64_t tid, const char *text, int64_t num);

/* Open an event (args follow, st_pftrace_end writes it): a slice of DUR
 * µs at TS µs on thread (PID, TID); an instant; a counter sample of NAME
 * on process PID, whose args are its series (real values, each a counter
 * track "NAME KEY", as Perfetto names a JSON counter's). */
void st_pftrace_slice(st_pftrace *p, const char *name, size_t nlen,
		      const char *cat, size_t clen, int64_t pid, int64_t tid,
		      int64_t ts, int64_t dur);
void st_pftrace_instant(st_pftrace *p, const char *name, size_t nlen,
			const char *cat, size_t clen, int64_t pid,
			int64_t tid, int64_t ts);
void st_pftrace_counter(st_pftrace *p, const char *name, size_t nlen,
			int64_t pid, int64_t ts);
void st_pftrace_arg_str(st_pftrace *p, const char *key, const char *s,
			size_t len);
void st_pftrace_arg_int(st_pftrace *p, const char *key, int64_t v);
void st_pftrace_arg_real(st_pftrace *p, const char *key, double v);
void st_pftrace_arg_bool(st_pftrace *p, const char *key, bool v);
void st_pftrace_end(st_pftrace *p);

/* DFTracer's slices, their strings interned by the caller (which keeps
 * the iids of its own strings, so that a slice costs no lookup): the iid
 * of S[0..LEN) as KIND in the sequence, its entry written with the next
 * event when new; 0 when memory runs out.  *UTF8 (UTF8 may be NULL) says
 * whether S is UTF-8: a string value that is not must go through
 * st_pftrace_arg_str, which adds its bytes in hex. */
typedef enum st_pftrace_string {
	ST_PFTRACE_NAME,          /* an event's name */
	ST_PFTRACE_CATEGORY,      /* an event's category */
	ST_PFTRACE_VALUE          /* an arg's string value */
} st_pftrace_string;

uint64_t st_pftrace_iid(st_pftrace *p, st_pftrace_string kind, const char *s,
			size_t len, bool *utf8);

/* A slice with args "file" (a string value) and "bytes", as iids. */
typedef struct st_pftrace_call {
	uint64_t name;            /* ST_PFTRACE_NAME */
	uint64_t cat;             /* ST_PFTRACE_CATEGORY; 0: none */
	uint64_t file;            /* ST_PFTRACE_VALUE; 0: no "file" */
	int64_t bytes;            /* < 0: no "bytes" */
	int64_t pid, tid, ts, dur;
} st_pftrace_call;

/* The slice C, written: the same bytes as st_pftrace_slice of its
 * strings, then st_pftrace_arg_str of "file", st_pftrace_arg_int of
 * "bytes" and st_pftrace_end. */
void st_pftrace_slice_iid(st_pftrace *p, const st_pftrace_call *c);

/* Write what is pending (a descriptor) of the output WHAT.  0, or -1
 * with ERR set when the output is not right: 65 an event before time 0
 * (Perfetto's timestamps are unsigned), 74 memory ran out at any
 * point (the output is then incomplete). */
int st_pftrace_finish(st_pftrace *p, const char *what, st_error *err);

#endif
