/* clock.h - host clock offsets measured NTP-style (SPEC 5.3).
 *
 * One exchange: the prober sends a request at t1 (its clock), the responder
 * receives it at t2 and replies at t3 (its clock), the prober gets the reply
 * at t4.  With d_out, d_back >= 0 the one-way delays and theta the target's
 * clock minus ours,
 *     t2 = t1 + theta + d_out,   t4 = t3 - theta + d_back,
 * so offset = ((t2 - t1) + (t3 - t4)) / 2 = theta + (d_out - d_back) / 2 and
 * |offset - theta| <= delay / 2 with delay = (t4 - t1) - (t3 - t2): whatever
 * the asymmetry, the truth lies within delay/2 (plus the clocks' resolution).
 *
 * The wire format (big-endian), the same over UDP and over a byte stream:
 *   request  16 bytes: "STCK" version(1) 'Q' 0 0 id(u64)
 *   reply    40 bytes: "STCK" version(1) 'R' 0 0 id(u64) t2(i64) t3(i64)
 *                      resolution_ns(u32) 0 0 0 0
 * Anything else is garbage: a server answers it with silence.
 */
#ifndef STREAMTIME_CLOCK_H
#define STREAMTIME_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"
#include "streamtime/time.h"

#define ST_CLOCK_VERSION 1
#define ST_CLOCK_REQUEST_LEN 16
#define ST_CLOCK_REPLY_LEN 40
#define ST_CLOCK_DEFAULT_PORT 12123

typedef struct st_clock_reply {
	uint64_t id;
	st_instant t2, t3;
	uint32_t resolution;    /* ns, the responder's clock_getres */
} st_clock_reply;

void st_clock_encode_request(uint64_t id, unsigned char out[ST_CLOCK_REQUEST_LEN]);
void st_clock_encode_reply(const st_clock_reply *r,
			   unsigned char out[ST_CLOCK_REPLY_LEN]);

/* Exactly one well-formed request of our version?  Fills *ID. */
bool st_clock_parse_request(const unsigned char *buf, size_t len, uint64_t *id);

/* Exactly one well-formed reply frame of our version?  The frame only:
 * what its times say is st_clock_sample_check's business. */
bool st_clock_decode_reply(const unsigned char *buf, size_t len,
			   st_clock_reply *r);

/* A well-formed reply whose own times are possible: also rejects t3 < t2,
 * a t2 before 1970 and a resolution over 1 s. */
bool st_clock_parse_reply(const unsigned char *buf, size_t len,
			  st_clock_reply *r);

/* One line of `date +%s%N` output (without its newline; a trailing '\r' is
 * allowed): epoch nanoseconds, 1 to 19 digits and nothing else, > 0.
 * Returns 0 with *T set, -1 when the line is anything else (an overflow
 * included). */
int st_clock_parse_date(const char *line, size_t len, st_instant *t);

/* Where a frame may start in a byte stream: the offset of the first "STCK"
 * (or of a partial "S", "ST", "STC" at the very end), LEN if none.  Lets a
 * stream reader skip what a login shell printed before the responder ran. */
size_t st_clock_sync(const unsigned char *buf, size_t len);

/* CLOCK_REALTIME now, in ns. */
st_instant st_clock_now(void);

/* CLOCK_REALTIME's resolution, in ns (at least 1). */
uint32_t st_clock_resolution(void);

typedef struct st_clock_sample {
	st_instant t1, t2, t3, t4;
	uint32_t remote_res, local_res;
} st_clock_sample;

/* How far a remote clock may be from ours before its reply is not believed
 * (ten years): farther is not a drifting clock but a broken reply or a
 * clock never set, and no correction to apply to data. */
#define ST_CLOCK_MAX_OFFSET (INT64_C(315576000) * ST_NS_PER_SEC)

/* NULL when sample S can be believed, else why not (a static string): a
 * reply sent before it was received (t3 < t2), a remote time before 1970, a
 * resolution over 1 s, times whose differences overflow, a remote clock more
 * than ST_CLOCK_MAX_OFFSET from ours, or a delay more negative than both
 * clocks' resolutions explain.  The functions below assume a sample it
 * accepted: with any other their arithmetic may overflow. */
const char *st_clock_sample_check(const st_clock_sample *s);

/* offset = ((t2 - t1) + (t3 - t4)) / 2, rounded to the nearest ns. */
st_duration st_clock_sample_offset(const st_clock_sample *s);

/* delay = (t4 - t1) - (t3 - t2); negative only when a clock stepped. */
st_duration st_clock_sample_delay(const st_clock_sample *s);

/* delay / 2, rounded up, plus both clocks' resolutions: the offset is
 * within this of the truth. */
st_duration st_clock_sample_bound(const st_clock_sample *s);

/* The index of the sample of least delay among N.  A sample with a negative
 * delay (a clock stepped between t1 and t4) proves nothing and is never
 * chosen; N when there is no other. */
size_t st_clock_best(const st_clock_sample *v, size_t n);

#endif
