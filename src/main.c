/* main.c - the thin front: global options, then one dispatch table. */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/features.h"
#include "streamtime/pfw.h"
#include "st_config.h"

/* Sorted by name, as git.c keeps its commands[]. */
static const struct st_cmd commands[] = {
	{ "clock", cmd_clock, "host clock offsets: serve, responder, probe",
	  &st_clock_group },
	{ "collect", cmd_collect, "cron collectors: receivers, h5",
	  &st_collect_group },
	{ "distiller", cmd_distiller, "Distiller job table: jobs",
	  &st_distiller_group },
	{ "merge", cmd_merge, "join the raw inputs: transfer, offload, streaming",
	  &st_merge_group },
	{ "plot", cmd_plot, "the paper's figures as PNG and SVG", NULL },
	{ "report", cmd_report, "one self-contained report.html", NULL },
	{ "reproduce", cmd_reproduce,
	  "run every step over a dataset, print the table", NULL },
	{ "simulate", cmd_simulate,
	  "a realistic synthetic dataset in the paper's layout", NULL },
	{ "slurm", cmd_slurm, "Slurm accounting: jobs", &st_slurm_group },
	{ "stats", cmd_stats, "statistics: queue, transfers", &st_stats_group },
	{ "timeline", cmd_timeline,
	  "Chrome/Perfetto trace of every scan's journey", NULL },
	{ "trace", cmd_trace,
	  "I/O and system traces: summary, timeline, compare, record, ...",
	  &st_trace_group },
};

static ST_CMD_GROUP(top, "streamtime", commands);

static const char *const global_options[] = {
	"--help", "--version", "--quiet", "--verbose", NULL,
};

static const char usage[] =
	"usage: streamtime [-q|-v] [--version] [--help] <command> [<args>]\n"
	"\n"
	"Measure and merge the timings of data-streaming experiments.\n"
	"\n"
	"commands:\n";

static int print_help(FILE *f)
{
	fputs(usage, f);
	for (size_t i = 0; i < top.n; i++)
		fprintf(f, "  %-12s %s\n", top.cmds[i].name, top.cmds[i].summary);
	fputs("\nrun 'streamtime <command> --help' for a command's options\n"
	      "exit codes: 0 ok, 64 usage, 65 bad data, 66 missing input, 69 service\n"
	      "unavailable, 73 cannot create output, 74 I/O error, 75 retry later,\n"
	      "78 bad config\n", f);
	fprintf(f, "documentation: %s/README.md, %s/docs/guide.md, "
		"man streamtime\nsample dataset (reproduce's default): %s\n",
		st_install_dir(ST_INSTALL_DOC), st_install_dir(ST_INSTALL_DOC),
		st_install_dir(ST_INSTALL_DATA));
	return 0;
}

/* "features: +postgresql +http -figures": built in (+) or left out (-). */
static void print_features(FILE *f)
{
	fputs("features:", f);
	for (int i = 0; i < ST_FEATURE_COUNT; i++)
		fprintf(f, " %c%s", st_feature_built(i) ? '+' : '-',
			st_feature_name(i));
	fputc('\n', f);
}

int main(int argc, char **argv)
{
	int i;

	st_main_argc = argc;
	st_main_argv = argv;
	/* a killed run leaves no temporary output behind */
	st_atomic_cleanup_on_signals();
	/* global options come before the command name */
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			print_help(stdout);
			return st_finish_stdout(ST_EXIT_OK);
		} else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
			printf("streamtime %s\n", ST_VERSION);
			print_features(stdout);
			printf("inflater: %s\n", st_pfw_inflater());
			return st_finish_stdout(ST_EXIT_OK);
		} else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			st_verbosity = -1;
		} else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			st_verbosity = 1;
		} else if (strcmp(a, "--dump-options") == 0) {
			/* hidden: the option tables for docs/gen_man.py */
			return st_cmd_dump(&top);
		} else {
			const char *near = st_opt_suggest(a, global_options,
							  (size_t)-1);

			if (near)
				return st_msg_usage("streamtime", "unknown option "
						    "'%s'; did you mean '%s'?",
						    a, near);
			return st_msg_usage("streamtime", "unknown option '%s'", a);
		}
	}
	if (i == argc) {
		print_help(stderr);
		return ST_EXIT_USAGE;
	}
	return st_cmd_dispatch(&top, argc - i + 1, argv + i - 1);
}
