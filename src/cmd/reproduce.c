/* reproduce.c - `streamtime reproduce`: every step over a dataset in the
 * paper's layout (SPEC 5.8), the comparison table on stdout. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "st_config.h"
#include "streamtime/atomic.h"
#include "streamtime/figures.h"
#include "streamtime/pipeline.h"
#include "streamtime/provenance.h"
#include "streamtime/report.h"
#include "streamtime/timeline.h"
#include "reproduce_sources.h"
#include "reproduce_traces.h"

static const struct st_cmd_desc reproduce_desc = {
	.path = "streamtime reproduce",
	.description =
	"Run merge transfer, merge offload, merge streaming, stats queue, stats\n"
	"transfers, plot, timeline and report over a session: a session file\n"
	"(--session FILE, its format in docs/sessions.md) or a dataset in the\n"
	"paper's layout (--data DIR: DIR/file_transfer and DIR/streaming), and\n"
	"print the comparison table.  The outputs appear in OUT together when\n"
	"every step is done, with OUT/manifest.txt naming them (the report\n"
	"links those files only) and OUT/provenance.json what the run read.\n",
};

/* Where one run writes, all owned. */
struct paths {
	char *out_ft, *out_st, *out_stats, *merged, *offload, *per_scan;
	char *save_stats, *timeline, *report, *out, *figures, *provenance;
	char *trace_sets;
};

static void paths_release(struct paths *p)
{
	char **v = (char **)p;

	for (size_t i = 0; i < sizeof(*p) / sizeof(char *); i++)
		free(v[i]);
}

static int paths_init(struct paths *p, const char *out)
{
	memset(p, 0, sizeof(*p));
	p->out_ft = st_path_join(out, "file_transfer");
	p->out_st = st_path_join(out, "streaming");
	p->out_stats = st_path_join(out, "statistics");
	if (!p->out_ft || !p->out_st || !p->out_stats)
		return -1;
	p->merged = st_path_join(p->out_ft, "merged_job_info.csv");
	p->offload = st_path_join(p->out_ft, "ncem_offload_times.csv");
	p->per_scan = st_path_join(p->out_ft, "ncem_offload_per_scan.csv");
	p->save_stats = st_path_join(p->out_ft, "save_time_stats.csv");
	p->timeline = st_path_join(out, "timeline.json");
	p->report = st_path_join(out, "report.html");
	p->out = strdup(out);
	p->figures = st_path_join(out, "figures");
	p->provenance = st_path_join(out, ST_PROVENANCE);
	p->trace_sets = st_path_join(out, "traces/trace_sets.csv");
	return p->merged && p->offload && p->per_scan && p->save_stats &&
	       p->timeline && p->report && p->out && p->figures &&
	       p->provenance && p->trace_sets ? 0 : -1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Messages name files by where they will be, not by the stage they are
 * written in: "STAGE/x" becomes "OUT/x". */
struct unstage {
	const char *stage, *out;
	st_log *log;            /* where warnings go on */
};

/* S with every STAGE replaced by OUT, in a new string (NULL: no memory). */
static char *unstaged(const char *s, const char *stage, const char *out)
{
	size_t sl = strlen(stage), ol = strlen(out), n = 0;
	char *r, *w;

	for (const char *p = strstr(s, stage); p; p = strstr(p + sl, stage))
		n++;
	r = malloc(strlen(s) + n * (ol > sl ? ol - sl : 0) + 1);
	if (!r)
		return NULL;
	w = r;
	for (const char *p; (p = strstr(s, stage)) != NULL; s = p + sl) {
		memcpy(w, s, (size_t)(p - s));
		w += p - s;
		memcpy(w, out, ol);
		w += ol;
	}
	strcpy(w, s);
	return r;
}

static void unstage_warn(void *ctx, const char *msg)
{
	const struct unstage *u = ctx;
	char *m = unstaged(msg, u->stage, u->out);

	st_warn(u->log, "%s", m ? m : msg);
	free(m);
}

static void unstage_error(st_error *err, const char *stage, const char *out)
{
	char *m = unstaged(err->text, stage, out);

	if (m) {
		snprintf(err->text, sizeof(err->text), "%s", m);
		free(m);
	}
}

/* Write the report on STAGE (the results as they will be in OUT) to F:
 * it is made in memory first, so that the directory it names is OUT. */
static int write_report(FILE *f, const char *stage, const char *out,
			st_report_info *ri, st_error *err)
{
	char *page = NULL, *esc_stage = NULL, *esc_out = NULL, *fixed = NULL;
	size_t len = 0, l1 = 0, l2 = 0;
	FILE *m = open_memstream(&page, &len);
	FILE *e1 = open_memstream(&esc_stage, &l1);
	FILE *e2 = open_memstream(&esc_out, &l2);
	int rc = -1;

	if (!m || !e1 || !e2) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_report_write(m, stage, stage, ri, err) < 0)
		goto out;
	if (st_report_escape(e1, stage) < 0 || st_report_escape(e2, out) < 0 ||
	    fclose(m) || fclose(e1) || fclose(e2)) {
		m = e1 = e2 = NULL;
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	m = e1 = e2 = NULL;
	fixed = unstaged(page, esc_stage, esc_out);
	if (!fixed) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (fputs(fixed, f) == EOF) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write the report");
		goto out;
	}
	rc = 0;
out:
	if (m)
		fclose(m);
	if (e1)
		fclose(e1);
	if (e2)
		fclose(e2);
	free(page);
	free(esc_stage);
	free(esc_out);
	free(fixed);
	return rc;
}

/* The session's trace sets: their rows for the report, then one
 * timeline of their events and the experiment's stages (TIN), clocks
 * corrected with the session's offsets (CLK). */
static int timeline_with_traces(const struct paths *p, const st_session *s,
				const st_timeline_input *tin,
				const st_clock_setup *clk, st_log *log,
				st_error *err)
{
	st_trace_timeline_counts c;
	char *dir = st_path_join(p->out, "traces");
	double t0 = now_ms();
	int rc = -1;

	if (!dir)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (st_mkdir_p(dir, err) < 0 ||
	    st_reproduce_trace_rows(s, p->trace_sets, err) < 0 ||
	    st_reproduce_trace_timeline(s, p->timeline, tin,
					clk->on ? &clk->o : NULL, &c, log,
					err) < 0)
		goto out;
	st_msg_verbose("timeline: %" PRIu64 " trace slices of %zu sets, %"
		       PRIu64 " of the experiment (%.1f ms)", c.written,
		       s->ntraces, c.experiment_events, now_ms() - t0);
	rc = 0;
out:
	free(dir);
	return rc;
}

/* The outputs after the analysis, in STAGE (P), each timed for -v:
 * timeline, figures, then the report, which links and embeds what the
 * steps wrote (SHOWN: the paths under OUT).  0 or -1 with ERR set. */
static int output_steps(const struct paths *p, const struct paths *shown,
			const st_session *s, const char *save_stats,
			const st_clock_options *clock,
			const struct st_reproduce_sources *src, st_log *log,
			st_error *err)
{
	st_timeline_input tin = {
		.merged = p->merged, .write_times = s->write_times,
		.created = s->created_times, .streaming_dir = p->out_st,
		.ex = &s->ex, .acq = s->acquisition_site,
		.compute = s->compute_site,
	};
	st_figures_input fin = { .results = p->out, .ex = &s->ex,
				 .save_stats = save_stats,
				 .acq = s->acquisition_site,
				 .compute = s->compute_site };
	st_timeline_counts tc;
	st_report_info ri;
	st_atomic_file af;
	st_clock_setup clk;
	size_t nfig;
	double t = now_ms();
	int rc;

	/* the receivers' times corrected as the merges corrected them, so
	 * that every stage and trace event is on the reference clock */
	rc = st_clock_setup_load(&clk, clock, err);
	tin.fix = clk.on ? &clk.fix : NULL;
	if (rc == 0)
		rc = s->ntraces ?
		     timeline_with_traces(p, s, &tin, &clk, log, err) :
		     st_timeline_write_file(&tin, p->timeline, &tc, log, err);
	st_clock_setup_release(&clk);
	if (rc < 0)
		return -1;
	if (!s->ntraces)
		st_msg_verbose("timeline: %zu events (%.1f ms)", tc.events,
			       now_ms() - t);
	t = now_ms();
	if (st_mkdir_p(p->figures, err) < 0 ||
	    st_figures_run(&fin, p->figures, ST_PLOT_PNG | ST_PLOT_SVG, &nfig,
			   err) < 0)
		return -1;
	st_msg_verbose("plot: %zu figures (%.1f ms)", nfig, now_ms() - t);
	t = now_ms();
	/* what this run read, and how it ran */
	if (st_provenance_write(p->provenance, s, st_main_argc, st_main_argv,
				src->live, src->nlive, err) < 0)
		return -1;
	/* what this run wrote, published with it: the report links only
	 * these, not what older runs left in OUT */
	if (st_report_manifest_write(p->out, "streamtime reproduce",
				     (const char *const[]){ "report.html" }, 1,
				     err) < 0 ||
	    st_atomic_open(&af, p->report, err) < 0)
		return -1;
	if (write_report(af.fp, p->out, shown->out, &ri, err) < 0) {
		st_atomic_abort(&af);
		return -1;
	}
	if (st_atomic_commit(&af, err) < 0)
		return -1;
	st_msg_verbose("report: %zu figures, %zu CSV files (%.1f ms)",
		       ri.figures, ri.csvs, now_ms() - t);
	return 0;
}

/* The steps, in order, writing into STAGE (P: the paths under it), then
 * the commit of the whole set; SHOWN are the same paths under OUT, for
 * messages.  Returns 0 or -1 with ERR set. */
static int run(st_atomic_stage *stage, const struct paths *p,
	       const struct paths *shown, st_session *s,
	       st_log *log, st_error *err)
{
	const st_clock_options clock = {
		.offsets = s->clock_offsets, .receiver_hosts = s->receiver_hosts,
		.data_host = s->data_host, .nersc_host = s->nersc_host,
	};
	st_analysis_paths ap = {
		.jobs = s->slurm_jobs, .db = s->distiller,
		.write_times = s->write_times, .created = s->created_times,
		.save_stats = s->save_stats, .save_times = s->save_times,
		.save_rules = s->save_rules, .nsave_rules = s->nsave_rules,
		.out_save_stats = p->save_stats,
		.h5 = (const char *const *)s->h5,
		.clock = s->clock_offsets ? &clock : NULL,
		.out_ft = p->out_ft, .out_st = p->out_st,
		.out_stats = p->out_stats, .merged = p->merged,
		.offload = p->offload, .per_scan = p->per_scan,
	};
	st_experiments *ex = &s->ex;
	st_analysis_result res = { 0 };
	struct st_reproduce_sources src;
	st_log notes;
	double t0 = now_ms(), t;
	int rc = -1;

	st_log_verbose(&notes);
	/* the live sources first: their snapshots are the analysis' inputs */
	if (st_reproduce_sources(s, p->out, &src, log, err) < 0)
		goto out;
	if (src.jobs && s->slurm_source != ST_SLURM_FILE)
		ap.jobs = src.jobs;
	if (src.db && s->distiller_source != ST_DISTILLER_FILES)
		ap.db = src.db;
	if (st_analysis_run(&ap, ex, &res, log, &notes, err) < 0) {
		if (res.step_failed)
			st_error_prefix(err, "reproduce");
		goto out;
	}
	if (output_steps(p, shown, s, res.save_stats, ap.clock, &src, log,
			 err) < 0)
		goto step_failed;
	/* every step done: publish the whole set at once */
	t = now_ms();
	if (st_atomic_stage_commit(stage, err) < 0)
		goto step_failed;
	st_msg_verbose("commit: %.1f ms", now_ms() - t);

	if ((s->synthetic &&
	     printf("*Synthetic data (%s says \"synthetic\": true): made by a "
		    "simulator, not measured.*\n\n", s->file) < 0) ||
	    st_compare_write_md(stdout, res.rows, res.nrows) < 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write to standard output");
		goto out;
	}
	st_msg_info("reproduce: %zu merged jobs, %zu streaming scans, %zu sizes "
		    "in %.1f ms; outputs in %s, %s, %s and %s; %s; %s",
		    res.merged, res.streaming.rows, res.nrows, now_ms() - t0,
		    shown->out_ft, shown->out_st, shown->out_stats,
		    shown->figures, shown->timeline, shown->report);
	rc = 0;
	goto out;
step_failed:
	st_error_prefix(err, "reproduce");
out:
	free(res.rows);
	st_reproduce_sources_release(&src);
	return rc;
}

int cmd_reproduce(int argc, char **argv)
{
	const char *data = NULL, *config = NULL, *session = NULL, *out = "out";
	const struct st_option opts[] = {
		{ ST_O("session", 0, ST_OPT_PATH, &session, "FILE",
		       "a session file: names, scan ranges and every input "
		       "(docs/sessions.md); instead of --data", 0) },
		{ ST_O("data", 0, ST_OPT_PATH, &data, "DIR",
		       "a dataset in the paper's layout (default: the sample "
		       "shipped in data/)", 0) },
		ST_ROW_CONFIG(config),
		{ ST_O("out", 0, ST_OPT_PATH, &out, "DIR",
		       "outputs: DIR/file_transfer, DIR/streaming, DIR/statistics, "
		       "DIR/figures, DIR/timeline.json, DIR/report.html, "
		       "DIR/provenance.json, DIR/manifest.txt (default: out)", 0) },
		ST_OPT_END_ROW,
	};
	const char *prog = reproduce_desc.path;
	st_session s = { 0 };
	st_atomic_stage stage = { .fd = -1 };
	struct paths p, shown;
	st_error err;
	st_log log = ST_LOG_STDERR;
	int n, rc;

	if (!st_opt_go(&reproduce_desc, opts, argc, argv, &n, &rc))
		return rc;
	if (session && (data || config))
		return st_msg_usage(prog, "--session takes the place of --data "
				    "and --config (the session file says where "
				    "every input is)");
	if (*out == '\0')
		return st_msg_usage(prog, "--out: empty directory name");
	if (session ? st_session_load(&s, session, &err) < 0 :
	    st_session_for_data(&s, data ? data :
				st_install_dir(ST_INSTALL_DATA), config,
				&err) < 0)
		return st_msg_fail(&err);
	st_msg_verbose("session: %s", s.file ? s.file :
		       "the paper's experiments (built in)");
	if (st_session_check(&s, &err) < 0) {
		st_session_release(&s);
		return st_msg_fail(&err);
	}
	/* the outputs are written into a stage in OUT and published together
	 * at the end: a run that fails or is killed leaves OUT as it was */
	memset(&p, 0, sizeof(p));
	memset(&shown, 0, sizeof(shown));
	if (st_atomic_stage_open(&stage, out, &err) < 0) {
		rc = st_msg_fail(&err);
	} else if (paths_init(&p, stage.path) < 0 ||
		   paths_init(&shown, out) < 0) {
		st_error_set(&err, ST_EXIT_IOERR, "out of memory");
		rc = st_msg_fail(&err);
	} else {
		struct unstage u = { .stage = stage.path, .out = out, .log = &log };
		st_log ulog = { .warn = unstage_warn, .ctx = &u };
		char *stage_path = strdup(stage.path);

		if (run(&stage, &p, &shown, &s, &ulog, &err) < 0) {
			if (stage_path)
				unstage_error(&err, stage_path, out);
			rc = st_msg_fail(&err);
		} else {
			rc = ST_EXIT_OK;
		}
		free(stage_path);
	}
	st_atomic_stage_abort(&stage);
	paths_release(&p);
	paths_release(&shown);
	st_session_release(&s);
	return st_finish_stdout(rc);
}
