/* timeline.c - `streamtime timeline` (SPEC 5.9). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/timeline.h"

static const struct st_cmd_desc timeline_desc = {
	.path = "streamtime timeline",
	.description =
	"Every scan's journey as a Chrome trace (JSON, object form): open it in\n"
	"https://ui.perfetto.dev (Open trace file) or chrome://tracing.  One\n"
	"process per stage: receivers, NCEM offload, Slurm queue, Slurm run,\n"
	"NERSC write, streaming; a track per receiver or scan size.\n",
	.required_msg = "--results is required",
};

/* --format's values: auto (by the output's name) first. */
static const char *const formats[] = { "auto", "perfetto", "json", NULL };

int cmd_timeline(int argc, char **argv)
{
	const char *results = NULL, *data = NULL, *config = NULL, *out = NULL;
	int format = 0;
	const struct st_option opts[] = {
		{ ST_O("results", 0, ST_OPT_PATH, &results, "DIR",
		       "what `streamtime reproduce --out DIR` wrote: the merged "
		       "jobs and the streaming times", ST_OPT_REQUIRED) },
		{ ST_O("data", 0, ST_OPT_PATH, &data, "DIR",
		       "the dataset, for the receivers' times and the offload "
		       "(write_times.csv, ncem_file_created_times.csv); without it "
		       "those stages stay empty", 0) },
		ST_ROW_CONFIG(config),
		{ ST_O("out", 0, ST_OPT_PATH, &out, "FILE",
		       "the trace (default: RESULTS/timeline.json; '-' for "
		       "stdout): Chrome's JSON, gzipped when FILE ends in .gz; "
		       "Perfetto's protobuf when it ends in .pftrace or "
		       ".perfetto-trace", 0) },
		{ ST_O("format", 0, ST_OPT_CHOICE, &format, "F",
		       "the trace's format whatever --out's name: perfetto "
		       "(protobuf) or json (default auto: by --out's name)", 0),
		  .choices = formats },
		ST_OPT_END_ROW,
	};
	const char *prog = timeline_desc.path;
	char *merged = NULL, *stdir = NULL, *wt = NULL, *created = NULL;
	char *auto_out = NULL;
	st_experiments ex = { 0 };
	st_timeline_input in = { 0 };
	st_timeline_counts n;
	st_error err;
	st_log log = ST_LOG_STDERR;
	int nargs, rc;

	if (!st_opt_go(&timeline_desc, opts, argc, argv, &nargs, &rc))
		return rc;
	if (!results || !*results)
		return st_msg_usage(prog, "--results is required");
	if (st_load_experiments(config, data, &ex, &err) < 0)
		return st_msg_fail(&err);
	merged = st_path_join(results, "file_transfer/merged_job_info.csv");
	stdir = st_path_join(results, "streaming");
	if (!out)
		out = auto_out = st_path_join(results, "timeline.json");
	if (data) {
		wt = st_path_join(data, "file_transfer/write_times.csv");
		created = st_path_join(data, "streaming/ncem_file_created_times.csv");
	}
	if (!merged || !stdir || !out || (data && (!wt || !created))) {
		st_error_set(&err, ST_EXIT_IOERR, "out of memory");
		rc = st_msg_fail(&err);
		goto out;
	}
	if (!data)
		st_msg_info("timeline: no --data: the receivers and NCEM offload "
			    "stages stay empty");
	in = (st_timeline_input){ .merged = merged, .write_times = wt,
				  .created = created, .streaming_dir = stdir,
				  .ex = &ex };
	if (st_ctrace_format_of(out, format ? formats[format] : NULL,
				&in.format, &in.gzip, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	if (st_timeline_write_file(&in, out, &n, &log, &err) < 0) {
		rc = st_msg_fail(&err);
		goto out;
	}
	st_msg_info("timeline: %zu transfer jobs, %zu streaming scans, %zu "
		    "offload scans; %zu events in %s", n.transfer_jobs,
		    n.streaming_scans, n.offload_scans, n.events,
		    strcmp(out, "-") ? out : "stdout");
	rc = st_finish_stdout(ST_EXIT_OK);
out:
	free(merged);
	free(stdir);
	free(wt);
	free(created);
	free(auto_out);
	st_experiments_release(&ex);
	return rc;
}
