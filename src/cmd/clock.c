/* clock.c - `streamtime clock serve|responder|probe` (SPEC 5.3). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/clock_run.h"
#include "streamtime/csv.h"
#include "streamtime/num.h"

#define CLOCK_HEADER ST_CLOCK_OFFSETS_HEADER

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
	ST_DESC_ARGS_ANY("TARGET...", "at least one TARGET is required",
			 ST_COMPLETE_NONE),
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
	if (!st_opt_go(&serve_desc, opts, argc, argv, &n, &rc))
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

	if (!st_opt_go(&responder_desc, opts, argc, argv, &n, &rc))
		return rc;
	signal(SIGPIPE, SIG_IGN);
	if (st_clock_respond_stream(0, 1, &err) < 0)
		return st_msg_fail(&err);
	return ST_EXIT_OK;
}

/* Say what a target gave: a warning when it could not be measured or fell
 * short of samples (CTX: the samples asked for), else its offset. */
static void report_target(void *ctx, const st_clock_target *t,
			  const st_clock_result *r, const st_error *err)
{
	int samples = *(const int *)ctx;
	char off[32], bnd[32], del[32];

	if (!r) {
		st_msg_warn("%s", err->text);
		return;
	}
	st_clock_format_ms(off, sizeof(off), st_clock_sample_offset(&r->best));
	st_clock_format_ms(del, sizeof(del), st_clock_sample_delay(&r->best));
	st_clock_format_ms(bnd, sizeof(bnd), st_clock_sample_bound(&r->best));
	st_msg_info("%s: offset %s ms +- %s ms (delay %s ms, %zu of %d "
		    "samples, %s)", t->name, off, bnd, del, r->nsamples,
		    samples, st_clock_kind_name(t->kind));
	if (r->nsamples < (size_t)samples)
		st_msg_warn("%s: only %zu of %d samples: %s", t->name,
			    r->nsamples, samples, r->why);
}

/* Probe, then write the rows to OUT ("-": stdout, with the header) or
 * append them to the offsets file.  Returns the exit status: 69 when a
 * target failed. */
static int run_probe(st_clock_run_opts *o, const char *out)
{
	st_clock_run_result res;
	st_error err;
	int rc = ST_EXIT_OK;

	o->report = report_target;
	o->report_ctx = &o->probe.samples;
	signal(SIGPIPE, SIG_IGN);
	if (st_clock_probe_run(o, &res, &err) < 0)
		return st_msg_fail_usage(probe_desc.path, &err);
	if (strcmp(out, "-") == 0) {
		printf("%s\n%.*s", CLOCK_HEADER, (int)res.len,
		       res.rows ? res.rows : "");
		rc = st_finish_stdout(ST_EXIT_OK);
	} else if (res.len &&
		   st_clock_offsets_append(out, res.rows, res.len, &err) < 0) {
		rc = st_msg_fail(&err);
	}
	free(res.rows);
	if (rc == ST_EXIT_OK && res.failed)
		rc = ST_EXIT_UNAVAILABLE;
	return rc;
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
	int nargs, rc;

	if (!st_opt_go(&probe_desc, opts, argc, argv, &nargs, &rc))
		return rc;
	o.samples = (int)samples;
	return run_probe(&(st_clock_run_opts){
		.probe = o, .ssh = ssh, .targets = argv + 1,
		.ntargets = (size_t)nargs, .reference = reference,
	}, out);
}

static const struct st_cmd subcommands[] = {
	{ "probe", clock_probe, "measure other hosts' clocks against this one", NULL },
	{ "responder", clock_responder, "answer clock requests on stdin/stdout", NULL },
	{ "serve", clock_serve, "answer clock requests over UDP", NULL },
};

ST_CMD_GROUP_FN(cmd_clock, st_clock_group, "streamtime clock", subcommands)
