/* trace_group.c - the table of `streamtime trace`: above every file of a
 * trace subcommand (trace.c holds summary and timeline). */
#include "cmd.h"

static const struct st_cmd sub[] = {
	{ "compare", cmd_trace_compare,
	  "the notebook's table: metrics per case, one pass per case", NULL },
	{ "events", cmd_trace_events,
	  "the selected events as CSV or JSON lines, with derived keys", NULL },
	{ "merge", cmd_trace_merge,
	  "combine trace compare or summary partials into one result", NULL },
	{ "plot", cmd_trace_plot,
	  "the overview figure of system traces (PNG, SVG)", NULL },
	{ "record", cmd_trace_record,
	  "run a command under bpftrace, mpstat and pmon into a directory",
	  NULL },
	{ "summary", cmd_trace_summary,
	  "summarise traces: counts, time, bytes, overlap, groups", NULL },
	{ "timeline", cmd_trace_timeline,
	  "one Chrome/Perfetto trace, with the experiment's", NULL },
};

ST_CMD_GROUP_FN(cmd_trace, st_trace_group, "streamtime trace", sub)
