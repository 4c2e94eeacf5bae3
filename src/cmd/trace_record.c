/* trace_record.c - `streamtime trace record` (SPEC 5.11, issue 15): run a
 * command under bpftrace, mpstat and nvidia-smi pmon; the harness is in
 * src/record/record.c. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "streamtime/record.h"
#include "st_config.h"

static const struct st_cmd_desc record_desc = {
	.path = "streamtime trace record",
	.args = "-- COMMAND [ARG...]",
	.min_args = 0, .max_args = -1,
	.args_complete = ST_COMPLETE_FILE,
	.required_msg = "--out DIR is required (streamtime trace record --out "
			"DIR -- COMMAND [ARG...])",
	.description =
	"Run COMMAND under the system tracers and write what they saw into\n"
	"DIR, in the layout `trace summary DIR` and `trace timeline DIR` read\n"
	"(docs/systrace.md): bpftrace follows COMMAND and every process it\n"
	"forks by pid (tracepoints only: no kernel headers needed), mpstat\n"
	"samples the CPUs, `nvidia-smi pmon` the GPUs where nvidia-smi exists.\n"
	"COMMAND starts once the probes are attached; its output is passed\n"
	"through and saved.  The record ends when COMMAND ends (processes it\n"
	"started that still run are named, and run on untraced), or with\n"
	"--follow-children when the last of them ends.  A call is a line:\n"
	"TIMESTAMP (ns since boot, at its return), PID, TID, FD, RET,\n"
	"LAT(ns), FILENAME (cut at 63 bytes).\n"
	"DIR holds:\n"
	"  trace_read.out  read, pread64, readv calls (tracer io)\n"
	"  trace_write.out  write, pwrite64, writev calls (io)\n"
	"  trace_openat.out  openat calls (io)\n"
	"  trace_close.out  close calls (io)\n"
	"  trace_proc.out  fork, exec, exit of COMMAND's processes (proc)\n"
	"  cpu.out  mpstat's samples (cpu)\n"
	"  gpu.out  pmon's samples (gpu)\n"
	"  command.stdout.log  COMMAND's stdout (command.stderr.log: stderr)\n"
	"  manifest.json  host, kernel, zone, versions, what ran and why not,\n"
	"                 COMMAND's status, the clocks measured at both ends\n"
	"  record.bt  the bpftrace program (tracers.stderr: the tracers' stderr)\n",
	.epilogue =
	"Needs root and bpftrace for io and proc, sysstat for cpu (tracefs is\n"
	"mounted when it is not).  Ctrl-C, SIGINT or SIGTERM stops COMMAND\n"
	"(it is passed on, with --follow-children after COMMAND's end to the\n"
	"processes left; a third one kills them), then every tracer, and DIR\n"
	"is still complete, the signal in its manifest.\n"
	"Exit status: COMMAND's (128+N when signal N ended it); 64 usage; 69 a\n"
	"tracer asked for cannot run here (checked first; the message says\n"
	"which --tracers would); 66 the bpftrace scripts are not found; 73 DIR\n"
	"cannot be created or is not empty; 74 an I/O error; 127 COMMAND not\n"
	"found, 126 not executable (or a directory); nothing starts then.\n",
};

/* --tracers LIST into the bit set at O->target (st_record_tracers_parse). */
static int parse_tracers(const struct st_option *o, char *arg, st_error *err)
{
	return st_record_tracers_parse(arg, o->target, err);
}

int cmd_trace_record(int argc, char **argv)
{
	const char *out = NULL;
	unsigned tracers = (1u << ST_REC_NTRACERS) - 1;
	int64_t interval = 1;
	bool follow = false;
	const struct st_option opts[] = {
		{ ST_O("out", 'o', ST_OPT_PATH, &out, "DIR",
		       "the trace directory: created, or an empty one",
		       ST_OPT_REQUIRED) },
		{ ST_O("tracers", 0, ST_OPT_CALLBACK, &tracers, "LIST",
		       "which tracers run, comma-separated: io (bpftrace: read, "
		       "write, openat, close), proc (bpftrace: fork, exec, "
		       "exit), cpu (mpstat), gpu (nvidia-smi pmon, where it "
		       "exists); default all", 0),
		  .cb = parse_tracers, .choices = st_record_tracer_names },
		{ ST_O("follow-children", 0, ST_OPT_FLAG, &follow, NULL,
		       "record until the last process COMMAND started ends, "
		       "not COMMAND itself (launchers that start workers and "
		       "return; daemonised ones too)", 0) },
		{ ST_O("interval", 0, ST_OPT_INT, &interval, "S",
		       "seconds between mpstat and pmon samples, 1 to 3600 "
		       "(default 1)", 0), .min = 1, .max = 3600 },
		ST_OPT_END_ROW,
	};
	const char *prog = record_desc.path;
	st_record_opts o = { 0 };
	st_record_result res;
	char exe[PATH_MAX];
	ssize_t n;
	st_log log;
	st_error err;
	int dd, nargs, rc;

	/* our options end at "--": COMMAND's are its own */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--"); dd++)
		;
	if (!st_opt_go(&record_desc, opts, dd, argv, &nargs, &rc))
		return rc;
	if (nargs > 0)
		return st_msg_usage(prog, "'%s': COMMAND goes after '--' "
				    "(streamtime trace record --out DIR -- "
				    "COMMAND [ARG...])", argv[1]);
	if (dd >= argc - 1)
		return st_msg_usage(prog, "no COMMAND given (streamtime trace "
				    "record --out DIR -- COMMAND [ARG...])");
	if (!*out || !strcmp(out, "-"))
		return st_msg_usage(prog, "--out is a directory, not '%s'", out);
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) < 0)
		n = 0;
	exe[n] = '\0';
	st_log_stderr(&log);
	o.dir = out;
	o.argv = argv + dd + 1;
	o.tracers = tracers;
	o.interval_s = (int)interval;
	o.version = ST_VERSION;
	o.log = &log;
	o.exe = n ? exe : NULL;
	o.follow_children = follow;
	rc = st_trace_record_run(&o, &res, &err);
	if (rc < 0) {
		st_error_prefix(&err, "trace record");
		return st_msg_fail(&err);
	}
	if (res.lost_events)
		st_msg_warn("trace record: bpftrace lost %" PRIu64 " events "
			    "(its buffers overflowed): the traces miss calls",
			    res.lost_events);
	if (res.bad_lines)
		st_msg_warn("trace record: %" PRIu64 " lines of bpftrace's "
			    "output were of no known kind", res.bad_lines);
	if (res.signal)
		st_msg_info("trace record: interrupted (%s); %s holds what "
			    "was recorded up to then", strsignal(res.signal),
			    out);
	st_msg_verbose("trace record: COMMAND ran %.1f ms after the start; "
		       "exit status %d; traces in %s",
		       (double)res.startup_ns / 1e6, res.status, out);
	return res.status;
}
