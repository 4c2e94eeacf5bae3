/* clock_net.c - the clock exchange over UDP, pipes and ssh. */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "streamtime/clock_net.h"
#include "streamtime/spawn.h"

const char *st_clock_kind_name(enum st_clock_kind k)
{
	switch (k) {
	case ST_CLOCK_UDP: return "udp";
	case ST_CLOCK_SSH: return "ssh";
	case ST_CLOCK_SSH_DATE: return "ssh-date";
	case ST_CLOCK_EXEC: return "exec";
	}
	return "?";
}

/* Split "HOST[:PORT]" / "[V6]:PORT" into new strings; PORT may stay NULL. */
static int split_host_port(const char *s, char **host, char **port)
{
	const char *colon;

	*host = *port = NULL;
	if (*s == '[') {
		const char *end = strchr(s, ']');

		if (!end || end == s + 1 || (end[1] && end[1] != ':'))
			return -1;
		*host = strndup(s + 1, (size_t)(end - s - 1));
		colon = end[1] ? end + 1 : NULL;
	} else {
		colon = strrchr(s, ':');
		if (colon && strchr(s, ':') != colon)
			return -1;      /* a bare IPv6 address needs brackets */
		*host = strndup(s, colon ? (size_t)(colon - s) : strlen(s));
	}
	if (colon) {
		if (!colon[1] || strspn(colon + 1, "0123456789") != strlen(colon + 1) ||
		    atol(colon + 1) > 65535)
			return -1;
		*port = strdup(colon + 1);
	}
	return 0;
}

int st_clock_target_parse(const char *spec, st_clock_target *t, st_error *err)
{
	const char *eq = strchr(spec, '='), *colon = strchr(spec, ':');
	const char *rest;
	char *name = NULL;

	memset(t, 0, sizeof(*t));
	/* NAME=TARGET, unless the '=' belongs to the target itself */
	if (eq && (!colon || eq < colon)) {
		if (eq == spec)
			return st_error_set(err, ST_EXIT_USAGE, "target '%s': empty "
					    "name before '='", spec);
		name = strndup(spec, (size_t)(eq - spec));
		spec = eq + 1;
	}
	if (strncmp(spec, "udp://", 6) == 0) {
		t->kind = ST_CLOCK_UDP;
		rest = spec + 6;
	} else if (strncmp(spec, "ssh://", 6) == 0) {
		t->kind = ST_CLOCK_SSH;
		rest = spec + 6;
	} else if (strncmp(spec, "ssh-date://", 11) == 0) {
		t->kind = ST_CLOCK_SSH_DATE;
		rest = spec + 11;
	} else if (strncmp(spec, "exec:", 5) == 0) {
		t->kind = ST_CLOCK_EXEC;
		rest = spec + 5;
		if (!*rest)
			goto bad;
		t->command = strdup(rest);
		t->name = name ? name : strdup(rest);
		return 0;
	} else {
		free(name);
		return st_error_set(err, ST_EXIT_USAGE, "target '%s': expected "
				    "udp://HOST[:PORT], ssh://[USER@]HOST, "
				    "ssh-date://[USER@]HOST or exec:COMMAND", spec);
	}
	if (!*rest || strchr(rest, '/') || strchr(rest, ' '))
		goto bad;
	if (t->kind == ST_CLOCK_UDP) {
		if (split_host_port(rest, &t->host, &t->port) < 0 || !*t->host)
			goto bad;
		if (!t->port && asprintf(&t->port, "%d", ST_CLOCK_DEFAULT_PORT) < 0)
			goto bad;
	} else {
		if (rest[0] == '-')
			goto bad;       /* never an ssh option */
		t->host = strdup(rest);
	}
	if (name) {
		t->name = name;
	} else {
		const char *at = strrchr(t->host, '@');

		t->name = strdup(at ? at + 1 : t->host);
	}
	return 0;
bad:
	free(name);
	st_clock_target_release(t);
	return st_error_set(err, ST_EXIT_USAGE, "target '%s': bad address", spec);
}

void st_clock_target_release(st_clock_target *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->host);
	free(t->port);
	free(t->command);
	memset(t, 0, sizeof(*t));
}

/* Milliseconds left until DEADLINE (ns), at least 0. */
static int ms_left(st_instant deadline)
{
	st_instant left = deadline - st_clock_now();

	if (left <= 0)
		return 0;
	return (int)((left + 999999) / 1000000);
}

static uint64_t random_id(void)
{
	uint64_t id = (uint64_t)st_clock_now() ^ ((uint64_t)getpid() << 32);

	return id & ~UINT64_C(0xffff);     /* the low bits count samples */
}

/* Keep sample S in V unless it cannot be believed; then count it in RES
 * and say why. */
static void keep(st_clock_sample *v, st_clock_result *res,
		 const st_clock_sample *s)
{
	const char *why = st_clock_sample_check(s);

	if (why) {
		res->rejected++;
		snprintf(res->why, sizeof(res->why), "%zu implausible repl%s "
			 "rejected, the last with %s", res->rejected,
			 res->rejected == 1 ? "y" : "ies", why);
		return;
	}
	v[res->nsamples++] = *s;
}

/* ---- UDP ---- */

static int udp_probe(const st_clock_target *t, const st_clock_probe_opts *o,
		     st_clock_sample *v, st_clock_result *res, st_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *ai = NULL;
	st_instant deadline = st_clock_now() + o->target_timeout;
	uint64_t base = random_id();
	uint32_t local_res = st_clock_resolution();
	int fd, rc;

	rc = getaddrinfo(t->host, t->port, &hints, &ai);
	if (rc != 0)
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "%s: cannot resolve "
				    "%s: %s", t->name, t->host, gai_strerror(rc));
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		st_error_set(err, ST_EXIT_UNAVAILABLE, "%s: cannot reach %s:%s: %s",
			     t->name, t->host, t->port, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	for (int i = 0; i < o->samples && ms_left(deadline) > 0; i++) {
		unsigned char req[ST_CLOCK_REQUEST_LEN], buf[256];
		st_instant sdeadline = st_clock_now() + o->sample_timeout;
		st_clock_sample s = { .local_res = local_res };
		st_clock_reply r;

		if (sdeadline > deadline)
			sdeadline = deadline;
		res->attempted++;
		st_clock_encode_request(base + (uint64_t)i, req);
		s.t1 = st_clock_now();
		if (send(fd, req, sizeof(req), 0) < 0) {
			snprintf(res->why, sizeof(res->why), "send: %s", strerror(errno));
			continue;       /* ICMP refused: try again, it may come up */
		}
		for (;;) {
			struct pollfd p = { .fd = fd, .events = POLLIN };
			ssize_t n;
			int w = ms_left(sdeadline);

			if (w == 0 || poll(&p, 1, w) <= 0) {
				snprintf(res->why, sizeof(res->why),
					 "no reply within %.1f s", o->sample_timeout / 1e9);
				break;
			}
			n = recv(fd, buf, sizeof(buf), 0);
			s.t4 = st_clock_now();
			if (n < 0) {
				snprintf(res->why, sizeof(res->why), "%s", strerror(errno));
				if (errno == ECONNREFUSED)
					break;
				continue;
			}
			if (!st_clock_decode_reply(buf, (size_t)n, &r) ||
			    r.id != base + (uint64_t)i)
				continue;       /* garbage or a late reply */
			s.t2 = r.t2;
			s.t3 = r.t3;
			s.remote_res = r.resolution;
			keep(v, res, &s);
			break;
		}
	}
	close(fd);
	return 0;
}

/* ---- a child process on pipes (exec:, ssh://, ssh-date://) ---- */

/* Start the responder ARGV of target T with its stdin and stdout on pipes
 * (stderr shared, so ssh's own messages reach the user), leading a process
 * group of its own: a shell's children go with it.  Nothing stands between
 * the exchange and the pipes.  On failure ERR names the target. */
static int start_responder(const st_clock_target *t, char *const argv[],
			   st_child *c, st_error *err)
{
	static const st_spawn_opts so = {
		ST_SPAWN_STDIN | ST_SPAWN_STDOUT | ST_SPAWN_GROUP, NULL
	};
	st_error e;

	if (st_spawn(c, argv, &so, &e) == 0)
		return 0;
	return st_error_set(err, e.code, "%s: not measured: %s", t->name, e.text);
}

/* How long a responder has to go once its pipes close; then its group is
 * killed. */
#define RESPONDER_GRACE_MS 2000

/* argv for ssh: O->ssh_argv, then HOST, then COMMAND (one word: ssh hands
 * it to the remote shell). */
static char **ssh_argv(const st_clock_probe_opts *o, const char *host,
		       const char *command)
{
	size_t n = 0;
	char **v;

	while (o->ssh_argv[n])
		n++;
	v = calloc(n + 3, sizeof(*v));
	if (!v)
		return NULL;
	memcpy(v, o->ssh_argv, n * sizeof(*v));
	v[n] = (char *)host;
	v[n + 1] = (char *)command;
	return v;
}

static int stream_probe(const st_clock_target *t, const st_clock_probe_opts *o,
			st_clock_sample *v, st_clock_result *res, st_error *err)
{
	char *sh[] = { "/bin/sh", "-c", t->command, NULL };
	char **argv = t->kind == ST_CLOCK_EXEC ? sh :
		      ssh_argv(o, t->host, o->remote_command);
	st_instant deadline = st_clock_now() + o->target_timeout;
	uint64_t base = random_id();
	uint32_t local_res = st_clock_resolution();
	unsigned char buf[4096];
	size_t have = 0;
	st_child c;
	bool dead = false;

	if (!argv)
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "out of memory");
	if (start_responder(t, argv, &c, err) < 0) {
		if (argv != sh)
			free(argv);
		return -1;
	}
	if (argv != sh)
		free(argv);
	for (int i = 0; i < o->samples && !dead && ms_left(deadline) > 0; i++) {
		unsigned char req[ST_CLOCK_REQUEST_LEN];
		st_instant sdeadline = st_clock_now() + o->sample_timeout;
		st_clock_sample s = { .local_res = local_res };
		st_clock_reply r;

		/* the first exchange also waits for ssh to log in */
		if (i == 0)
			sdeadline = deadline;
		if (sdeadline > deadline)
			sdeadline = deadline;
		res->attempted++;
		st_clock_encode_request(base + (uint64_t)i, req);
		s.t1 = st_clock_now();
		if (write(c.in, req, sizeof(req)) != (ssize_t)sizeof(req)) {
			snprintf(res->why, sizeof(res->why), "the responder went "
				 "away after %zu exchange(s)", res->nsamples);
			dead = true;
			break;
		}
		for (;;) {
			struct pollfd p = { .fd = c.out, .events = POLLIN };
			size_t at;
			ssize_t n;
			int w = ms_left(sdeadline);

			if (w == 0 || poll(&p, 1, w) <= 0) {
				snprintf(res->why, sizeof(res->why),
					 "no reply within %.1f s", i == 0 ?
					 o->target_timeout / 1e9 : o->sample_timeout / 1e9);
				dead = true;    /* a stream out of step stays so */
				break;
			}
			if (have == sizeof(buf))
				have = 0;       /* a flood of garbage: drop it */
			n = read(c.out, buf + have, sizeof(buf) - have);
			s.t4 = st_clock_now();
			if (n <= 0) {
				snprintf(res->why, sizeof(res->why), "the responder "
					 "went away after %zu exchange(s)", res->nsamples);
				dead = true;
				break;
			}
			have += (size_t)n;
			at = st_clock_sync(buf, have);
			memmove(buf, buf + at, have - at);
			have -= at;
			if (have < ST_CLOCK_REPLY_LEN)
				continue;
			if (!st_clock_decode_reply(buf, ST_CLOCK_REPLY_LEN, &r)) {
				memmove(buf, buf + 1, --have);  /* resync */
				continue;
			}
			memmove(buf, buf + ST_CLOCK_REPLY_LEN, have - ST_CLOCK_REPLY_LEN);
			have -= ST_CLOCK_REPLY_LEN;
			if (r.id != base + (uint64_t)i)
				continue;
			s.t2 = r.t2;
			s.t3 = r.t3;
			s.remote_res = r.resolution;
			keep(v, res, &s);
			break;
		}
	}
	st_child_stop(&c, RESPONDER_GRACE_MS);
	return 0;
}

/* ssh-date://: no streamtime on the far side, only a shell and date.  One
 * ssh session runs `while read _; do DATE_COMMAND; done`; each sample sends
 * a line at t1 and reads the epoch-ns line back at t4.  The remote time T
 * was read somewhere in between, so t2 = t3 = T and the bound is half the
 * round trip (Cristian's method) -- a round trip through the open session,
 * not an ssh login. */
static int date_probe(const st_clock_target *t, const st_clock_probe_opts *o,
		      st_clock_sample *v, st_clock_result *res, st_error *err)
{
	st_instant deadline = st_clock_now() + o->target_timeout;
	uint32_t local_res = st_clock_resolution();
	char *loop = NULL, **argv;
	char buf[256];
	size_t have = 0;
	st_child c;
	bool dead = false;

	if (asprintf(&loop, "while read _; do %s; done", o->date_command) < 0)
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "out of memory");
	argv = ssh_argv(o, t->host, loop);
	if (!argv || start_responder(t, argv, &c, err) < 0) {
		free(argv);
		free(loop);
		return argv ? -1 : st_error_set(err, ST_EXIT_UNAVAILABLE,
						 "out of memory");
	}
	free(argv);
	free(loop);
	for (int i = 0; i < o->samples && !dead && ms_left(deadline) > 0; i++) {
		st_clock_sample s = { .local_res = local_res, .remote_res = 1 };
		st_instant sdeadline = i == 0 ? deadline :
				       st_clock_now() + o->sample_timeout;
		char *nl;

		if (sdeadline > deadline)
			sdeadline = deadline;
		res->attempted++;
		s.t1 = st_clock_now();
		if (write(c.in, "\n", 1) != 1) {
			snprintf(res->why, sizeof(res->why), "ssh went away");
			break;
		}
		for (;;) {
			struct pollfd p = { .fd = c.out, .events = POLLIN };
			ssize_t n;
			int w = ms_left(sdeadline);

			if ((nl = memchr(buf, '\n', have)) != NULL)
				break;
			if (w == 0 || poll(&p, 1, w) <= 0) {
				snprintf(res->why, sizeof(res->why), "no answer within "
					 "%.1f s", i == 0 ? o->target_timeout / 1e9 :
					 o->sample_timeout / 1e9);
				dead = true;
				break;
			}
			if (have == sizeof(buf) - 1)
				have = 0;       /* no newline in sight: drop it */
			n = read(c.out, buf + have, sizeof(buf) - 1 - have);
			s.t4 = st_clock_now();
			if (n <= 0) {
				snprintf(res->why, sizeof(res->why), "ssh ended after "
					 "%zu sample(s) (see its message above)",
					 res->nsamples);
				dead = true;
				break;
			}
			have += (size_t)n;
		}
		if (dead)
			break;
		if (st_clock_parse_date(buf, (size_t)(nl - buf), &s.t2) < 0) {
			*nl = '\0';
			snprintf(res->why, sizeof(res->why), "'%s' printed '%.40s', "
				 "not epoch nanoseconds", o->date_command, buf);
		} else {
			s.t3 = s.t2;
			keep(v, res, &s);
		}
		have -= (size_t)(nl + 1 - buf);
		memmove(buf, nl + 1, have);
	}
	st_child_stop(&c, RESPONDER_GRACE_MS);
	return 0;
}

int st_clock_probe(const st_clock_target *t, const st_clock_probe_opts *o,
		   st_clock_result *res, st_error *err)
{
	st_clock_sample *v = calloc((size_t)o->samples, sizeof(*v));
	size_t best;
	int rc;

	memset(res, 0, sizeof(*res));
	if (!v)
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "out of memory");
	if (t->kind == ST_CLOCK_UDP)
		rc = udp_probe(t, o, v, res, err);
	else if (t->kind == ST_CLOCK_SSH_DATE)
		rc = date_probe(t, o, v, res, err);
	else
		rc = stream_probe(t, o, v, res, err);
	if (rc == 0) {
		best = st_clock_best(v, res->nsamples);
		if (best == res->nsamples) {
			rc = st_error_set(err, ST_EXIT_UNAVAILABLE, "%s: not measured: %s",
					  t->name, res->nsamples ? "every sample saw "
					  "a clock step" : res->why[0] ? res->why :
					  "no sample");
		} else {
			res->best = v[best];
		}
	}
	free(v);
	return rc;
}

/* ---- responders ---- */

int st_clock_serve_udp(const char *listen, unsigned long count,
		       volatile int *stop,
		       void (*ready)(const char *addr, void *ctx), void *ctx,
		       st_error *err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM, .ai_flags = AI_PASSIVE };
	struct addrinfo *ai = NULL;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char *host = NULL, *port = NULL, hbuf[NI_MAXHOST], pbuf[NI_MAXSERV], addr[300];
	uint32_t res = st_clock_resolution();
	unsigned long answered = 0;
	int fd, rc;

	if (split_host_port(listen, &host, &port) < 0 || !port) {
		free(host);
		free(port);
		return st_error_set(err, ST_EXIT_USAGE, "--listen '%s': expected "
				    "HOST:PORT, [IPV6]:PORT or :PORT", listen);
	}
	rc = getaddrinfo(*host ? host : NULL, port, &hints, &ai);
	free(host);
	free(port);
	if (rc != 0)
		return st_error_set(err, ST_EXIT_USAGE, "--listen '%s': %s", listen,
				    gai_strerror(rc));
	fd = socket(ai->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
		st_error_set(err, ST_EXIT_UNAVAILABLE, "cannot listen on %s: %s",
			     listen, strerror(errno));
		if (fd >= 0)
			close(fd);
		freeaddrinfo(ai);
		return -1;
	}
	freeaddrinfo(ai);
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sl, hbuf, sizeof(hbuf), pbuf,
			sizeof(pbuf), NI_NUMERICHOST | NI_NUMERICSERV) == 0) {
		snprintf(addr, sizeof(addr), strchr(hbuf, ':') ? "[%s]:%s" : "%s:%s",
			 hbuf, pbuf);
		if (ready)
			ready(addr, ctx);
	}
	while (!*stop && (count == 0 || answered < count)) {
		unsigned char buf[512], reply[ST_CLOCK_REPLY_LEN];
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		st_clock_reply r = { .resolution = res };
		ssize_t n = recvfrom(fd, buf, sizeof(buf), 0,
				     (struct sockaddr *)&from, &fl);

		r.t2 = st_clock_now();
		if (n < 0)
			continue;       /* EINTR: look at *stop */
		if (!st_clock_parse_request(buf, (size_t)n, &r.id))
			continue;       /* garbage: silence */
		r.t3 = st_clock_now();
		st_clock_encode_reply(&r, reply);
		if (sendto(fd, reply, sizeof(reply), 0, (struct sockaddr *)&from,
			   fl) == (ssize_t)sizeof(reply))
			answered++;
	}
	close(fd);
	return 0;
}

int st_clock_respond_stream(int in, int out, st_error *err)
{
	unsigned char buf[4096];
	uint32_t res = st_clock_resolution();
	size_t have = 0;

	for (;;) {
		ssize_t n;
		st_instant t2;

		if (have == sizeof(buf))
			have = 0;
		n = read(in, buf + have, sizeof(buf) - have);
		t2 = st_clock_now();
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return 0;
		have += (size_t)n;
		for (;;) {
			size_t at = st_clock_sync(buf, have);
			st_clock_reply r = { .resolution = res, .t2 = t2 };
			unsigned char reply[ST_CLOCK_REPLY_LEN];

			memmove(buf, buf + at, have - at);
			have -= at;
			if (have < ST_CLOCK_REQUEST_LEN)
				break;
			if (!st_clock_parse_request(buf, ST_CLOCK_REQUEST_LEN, &r.id)) {
				memmove(buf, buf + 1, --have);
				continue;
			}
			memmove(buf, buf + ST_CLOCK_REQUEST_LEN,
				have - ST_CLOCK_REQUEST_LEN);
			have -= ST_CLOCK_REQUEST_LEN;
			r.t3 = st_clock_now();
			st_clock_encode_reply(&r, reply);
			if (write(out, reply, sizeof(reply)) != (ssize_t)sizeof(reply))
				return st_error_set(err, ST_EXIT_IOERR, "cannot write "
						    "the reply: %s", strerror(errno));
		}
	}
}
