/* clock.c - `streamtime clock serve|responder|probe` (SPEC 5.3). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/clock_net.h"
#include "streamtime/csv.h"
#include "streamtime/num.h"

#define CLOCK_HEADER \
	"measured_at,reference,target,offset_ms,delay_ms,bound_ms,samples,method"

static const struct st_cmd_desc serve_desc = {
	.path = "streamtime clock serve",
	.description =
	"Answer clock requests over UDP with this host's CLOCK_REALTIME receive\n"
	"and send times.  Anything that is not a request gets no answer.  Runs\n"
	"until SIGINT/SIGTERM; prints 'listening on ADDR:PORT' to stderr.\n",
};

static const struct st_cmd_desc responder_desc = {
	.path = "streamtime clock responder",
	.description =
	"Answer clock requests read from stdin on stdout, until end of input, so\n"
	"that `ssh HOST streamtime clock responder` carries many exchanges over\n"
	"one ssh session (clock probe ssh://HOST does this).\n",
};

static const struct st_cmd_desc probe_desc = {
	.path = "streamtime clock probe",
	.args = "TARGET...",
	.min_args = 1,
	.max_args = -1,
	.args_missing = "at least one TARGET is required",
	.description =
	"Measure each target's clock against this host's, NTP-style: N exchanges,\n"
	"the one of least delay kept.  offset = target clock - this clock; the\n"
	"truth is within bound = delay/2 + both clocks' resolutions.  Rows:\n"
	"  " CLOCK_HEADER "\n"
	"\n"
	"TARGET, optionally NAME=TARGET (NAME goes in the target column; default\n"
	"the host):\n"
	"  udp://HOST[:PORT]       a `clock serve` (default port 12123)\n"
	"  ssh://[USER@]HOST       runs the responder over one ssh session\n"
	"  ssh-date://[USER@]HOST  no streamtime there: one ssh session runs\n"
	"                          `date +%s%N` once per sample; the whole round\n"
	"                          trip counts (Cristian's bound)\n"
	"  exec:COMMAND            a local command speaking the responder protocol\n",
	.epilogue =
	"An unreachable target is a warning; the others are still measured, and\n"
	"the exit status is 69.\n",
};

static volatile int stop_flag;

static void on_signal(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void print_ready(const char *addr, void *ctx)
{
	(void)ctx;
	st_msg_info("listening on %s", addr);
}

static int clock_serve(int argc, char **argv)
{
	char deflisten[16];
	const char *listen = deflisten;
	int64_t count = 0;
	const struct st_option opts[] = {
		{ ST_O("listen", 0, ST_OPT_STRING, &listen, "ADDR:PORT",
		       "default :12123 (all addresses); port 0 picks one", 0) },
		{ ST_O("count", 0, ST_OPT_INT, &count, "N",
		       "exit after N answers", 0), .min = 1, .max = INT64_MAX,
		  .expect = "a positive number" },
		ST_OPT_END_ROW,
	};
	struct sigaction sa = { .sa_handler = on_signal };
	st_error err;
	int n, rc;

	snprintf(deflisten, sizeof(deflisten), ":%d", ST_CLOCK_DEFAULT_PORT);
	if ((rc = st_opt_parse(&serve_desc, opts, argc, argv, &n)) !=
	    ST_OPT_CONTINUE)
		return rc;
	/* no SA_RESTART: a signal must interrupt recvfrom */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (st_clock_serve_udp(listen, (unsigned long)count, &stop_flag, print_ready,
			       NULL, &err) < 0)
		return st_msg_fail(&err);
	return ST_EXIT_OK;
}

static int clock_responder(int argc, char **argv)
{
	const struct st_option opts[] = { ST_OPT_END_ROW };
	st_error err;
	int n, rc;

	if ((rc = st_opt_parse(&responder_desc, opts, argc, argv, &n)) !=
	    ST_OPT_CONTINUE)
		return rc;
	signal(SIGPIPE, SIG_IGN);
	if (st_clock_respond_stream(0, 1, &err) < 0)
		return st_msg_fail(&err);
	return ST_EXIT_OK;
}

/* Split COMMAND at blanks into a NULL-terminated argv (new).  The words
 * point into *BLOCK (new); the caller frees both.  NULL when empty. */
static char **split_words(const char *command, char **block)
{
	size_t n = 0, cap = 8;
	char **v = malloc(cap * sizeof(*v)), *save = NULL, *w;

	*block = strdup(command);
	if (!v || !*block) {
		free(v);
		free(*block);
		return NULL;
	}
	for (w = strtok_r(*block, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (n + 1 == cap) {
			char **nv = realloc(v, (cap *= 2) * sizeof(*v));

			if (!nv) {
				free(v);
				free(*block);
				return NULL;
			}
			v = nv;
		}
		v[n++] = w;
	}
	v[n] = NULL;
	if (n == 0) {
		free(v);
		free(*block);
		return NULL;
	}
	return v;
}

static void format_ms(char *buf, size_t size, st_duration d)
{
	/* exact: ns as ms with 6 decimals */
	snprintf(buf, size, "%s%lld.%06lld", d < 0 ? "-" : "",
		 (long long)((d < 0 ? -d : d) / 1000000),
		 (long long)((d < 0 ? -d : d) % 1000000));
}

/* One CSV row for target T's result. */
static int format_row(FILE *f, const char *reference, const st_clock_target *t,
		      const st_clock_result *r)
{
	const st_clock_sample *s = &r->best;
	char when[48], off[32], del[32], bnd[32];
	const char *fields[8];
	char samples[24];

	st_time_format_utc(s->t1 + (s->t4 - s->t1) / 2, when, sizeof(when));
	format_ms(off, sizeof(off), st_clock_sample_offset(s));
	format_ms(del, sizeof(del), st_clock_sample_delay(s));
	format_ms(bnd, sizeof(bnd), st_clock_sample_bound(s));
	snprintf(samples, sizeof(samples), "%zu", r->nsamples);
	fields[0] = when;
	fields[1] = reference;
	fields[2] = t->name;
	fields[3] = off;
	fields[4] = del;
	fields[5] = bnd;
	fields[6] = samples;
	fields[7] = st_clock_kind_name(t->kind);
	return st_csv_write_row(f, 8, fields);
}

static int clock_probe(int argc, char **argv)
{
	const char *out = "-", *reference = NULL, *ssh = "ssh -o BatchMode=yes";
	st_clock_probe_opts o = {
		.samples = 16,
		.sample_timeout = 1 * ST_NS_PER_SEC,
		.target_timeout = 20 * ST_NS_PER_SEC,
		.remote_command = "streamtime clock responder",
		.date_command = "date +%s%N",
	};
	int64_t samples = o.samples;
	const struct st_option opts[] = {
		{ ST_O("samples", 0, ST_OPT_INT, &samples, "N",
		       "exchanges per target (default 16)", 0), .min = 1,
		  .max = 10000, .expect = "1 to 10000" },
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "append the rows to FILE (created with its header, locked "
		       "while written); default stdout", 0) },
		{ ST_O("reference", 0, ST_OPT_STRING, &reference, "NAME",
		       "the reference column (default this host's name)", 0) },
		{ ST_O("timeout", 0, ST_OPT_SECONDS, &o.target_timeout, "S",
		       "per target (default 20)", 0), .max = 86400,
		  .expect = "seconds > 0" },
		{ ST_O("sample-timeout", 0, ST_OPT_SECONDS, &o.sample_timeout, "S",
		       "per exchange (default 1; the first exchange of a session "
		       "may take the whole --timeout: ssh login)", 0),
		  .max = 86400, .expect = "seconds > 0" },
		{ ST_O("ssh", 0, ST_OPT_STRING, &ssh, "COMMAND",
		       "ssh and its options, split at blanks (default 'ssh -o "
		       "BatchMode=yes')", 0) },
		{ ST_O("remote-command", 0, ST_OPT_STRING, &o.remote_command, "CMD",
		       "default 'streamtime clock responder'", 0) },
		{ ST_O("date-command", 0, ST_OPT_STRING, &o.date_command, "CMD",
		       "ssh-date://: prints epoch ns (default 'date +%s%N')", 0) },
		ST_OPT_END_ROW,
	};
	st_clock_target *targets = NULL;
	size_t ntargets = 0, failed = 0;
	char host[256], *block = NULL, **sshv = NULL, *text = NULL;
	size_t len = 0;
	FILE *mem = NULL;
	st_error err;
	int nargs, rc;

	if ((rc = st_opt_parse(&probe_desc, opts, argc, argv, &nargs)) !=
	    ST_OPT_CONTINUE)
		return rc;
	rc = ST_EXIT_USAGE;
	o.samples = (int)samples;
	targets = calloc((size_t)nargs, sizeof(*targets));
	if (!targets)
		return ST_EXIT_IOERR;
	for (int i = 1; i <= nargs; i++) {
		if (st_clock_target_parse(argv[i], &targets[ntargets], &err) < 0) {
			rc = st_msg_usage(probe_desc.path, "%s", err.text);
			goto out;
		}
		ntargets++;
	}
	sshv = split_words(ssh, &block);
	if (!sshv) {
		rc = st_msg_usage(probe_desc.path, "--ssh: empty command");
		goto out;
	}
	o.ssh_argv = sshv;
	if (!reference) {
		if (gethostname(host, sizeof(host)) != 0)
			strcpy(host, "localhost");
		host[sizeof(host) - 1] = '\0';
		reference = host;
	}
	signal(SIGPIPE, SIG_IGN);
	mem = open_memstream(&text, &len);
	if (!mem) {
		rc = ST_EXIT_IOERR;
		goto out;
	}
	for (size_t i = 0; i < ntargets; i++) {
		st_clock_result r;
		char off[32], bnd[32], del[32];

		if (st_clock_probe(&targets[i], &o, &r, &err) < 0) {
			st_msg_warn("%s", err.text);
			failed++;
			continue;
		}
		format_ms(off, sizeof(off), st_clock_sample_offset(&r.best));
		format_ms(del, sizeof(del), st_clock_sample_delay(&r.best));
		format_ms(bnd, sizeof(bnd), st_clock_sample_bound(&r.best));
		st_msg_info("%s: offset %s ms +- %s ms (delay %s ms, %zu of %d "
			    "samples, %s)", targets[i].name, off, bnd, del, r.nsamples,
			    o.samples, st_clock_kind_name(targets[i].kind));
		if (r.nsamples < (size_t)o.samples) {
			st_msg_warn("%s: only %zu of %d samples: %s", targets[i].name,
				    r.nsamples, o.samples, r.why);
			failed++;
		}
		format_row(mem, reference, &targets[i], &r);
	}
	if (fclose(mem) != 0) {
		mem = NULL;
		rc = ST_EXIT_IOERR;
		goto out;
	}
	mem = NULL;
	if (strcmp(out, "-") == 0) {
		printf("%s\n%s", CLOCK_HEADER, text);
		rc = st_finish_stdout(ST_EXIT_OK);
	} else if (len) {
		st_atomic_append ap;

		rc = ST_EXIT_OK;
		if (st_atomic_append_open(&ap, out, true, &err) < 0) {
			rc = st_msg_fail(&err);
		} else {
			if (st_atomic_append_check_header(&ap, CLOCK_HEADER,
							  "a clock offsets file",
							  &err) < 0) {
				rc = st_msg_fail(&err);
			} else if (st_atomic_append_repair(&ap, NULL, NULL, &err) < 0) {
				rc = st_msg_fail(&err);
			} else if (ap.len == 0) {
				char *all;

				if (asprintf(&all, "%s\n%s", CLOCK_HEADER, text) < 0) {
					rc = ST_EXIT_IOERR;
				} else {
					free(text);
					text = all;
					len = strlen(all);
				}
			}
			if (rc == ST_EXIT_OK &&
			    st_atomic_append_write(&ap, text, len, &err) < 0)
				rc = st_msg_fail(&err);
			st_atomic_append_close(&ap);
		}
	} else {
		rc = ST_EXIT_OK;
	}
	if (rc == ST_EXIT_OK && failed)
		rc = ST_EXIT_UNAVAILABLE;
out:
	if (mem)
		fclose(mem);
	free(text);
	free(sshv);
	free(block);
	for (size_t i = 0; i < ntargets; i++)
		st_clock_target_release(&targets[i]);
	free(targets);
	return rc;
}

static const struct st_cmd subcommands[] = {
	{ "probe", clock_probe, "measure other hosts' clocks against this one", NULL },
	{ "responder", clock_responder, "answer clock requests on stdin/stdout", NULL },
	{ "serve", clock_serve, "answer clock requests over UDP", NULL },
};

ST_CMD_GROUP(st_clock_group, "streamtime clock", subcommands);

int cmd_clock(int argc, char **argv)
{
	return st_cmd_dispatch(&st_clock_group, argc, argv);
}
