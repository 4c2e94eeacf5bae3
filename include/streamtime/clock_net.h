/* clock_net.h - the clock exchange over UDP, pipes and ssh (SPEC 5.3):
 * probe targets, and the responders that answer them.  The wire format and
 * the arithmetic are in clock.h.
 */
#ifndef STREAMTIME_CLOCK_NET_H
#define STREAMTIME_CLOCK_NET_H

#include <stddef.h>
#include <stdint.h>

#include "streamtime/clock.h"
#include "streamtime/error.h"
#include "streamtime/time.h"

enum st_clock_kind { ST_CLOCK_UDP, ST_CLOCK_SSH, ST_CLOCK_SSH_DATE, ST_CLOCK_EXEC };

typedef struct st_clock_target {
	enum st_clock_kind kind;
	char *name;             /* written as `target`: NAME= prefix, else host */
	char *host;             /* udp, ssh, ssh-date: [USER@]HOST as given */
	char *port;             /* udp */
	char *command;          /* exec */
} st_clock_target;

/* Parse [NAME=]udp://HOST[:PORT] | ssh://[USER@]HOST | ssh-date://[USER@]HOST
 * | exec:COMMAND ([IPV6] in brackets).  Error 64 naming what is wrong. */
int st_clock_target_parse(const char *spec, st_clock_target *t, st_error *err);
void st_clock_target_release(st_clock_target *t);

/* The method column: "udp", "ssh", "ssh-date", "exec". */
const char *st_clock_kind_name(enum st_clock_kind k);

typedef struct st_clock_probe_opts {
	int samples;
	st_duration sample_timeout;   /* one exchange */
	st_duration target_timeout;   /* all exchanges with one target */
	char *const *ssh_argv;        /* the ssh command and its options */
	const char *remote_command;   /* ssh://: the responder on the far side */
	const char *date_command;     /* ssh-date://: prints epoch ns */
} st_clock_probe_opts;

typedef struct st_clock_result {
	st_clock_sample best;
	size_t nsamples;        /* exchanges that completed */
	size_t attempted;
	size_t rejected;        /* replies st_clock_sample_check refused */
	char why[256];          /* when short of samples: what went wrong */
} st_clock_result;

/* Probe T.  A reply that st_clock_sample_check refuses is dropped and
 * counted in RES->rejected, and RES->why says why.  Returns 0 with RES
 * filled when at least one sample completed (RES->why says why there are
 * fewer than asked), or -1 with error 69 naming T when the target could not
 * be measured at all (every reply refused included). */
int st_clock_probe(const st_clock_target *t, const st_clock_probe_opts *o,
		   st_clock_result *res, st_error *err);

/* Answer requests on UDP address LISTEN ("HOST:PORT", "[V6]:PORT", ":PORT")
 * until *STOP is set or COUNT requests were answered (0: no limit).  READY
 * is called once with the bound address ("127.0.0.1:40123").  Garbage is
 * dropped silently.  Errors: 64 bad address, 69 cannot bind. */
int st_clock_serve_udp(const char *listen, unsigned long count,
		       volatile int *stop,
		       void (*ready)(const char *addr, void *ctx), void *ctx,
		       st_error *err);

/* Answer the requests read from fd IN on fd OUT until end of input;
 * bytes that are not a request are skipped.  Error 74 on a write error. */
int st_clock_respond_stream(int in, int out, st_error *err);

#endif
