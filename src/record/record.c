/* record.c - `trace record`: COMMAND under bpftrace, mpstat and pmon, into
 * the directory layout of docs/systrace.md (issue 15).
 *
 * Order of a run: check that the tracers asked for can run (root,
 * bpftrace, tracefs, mpstat), create DIR and a first manifest, fork
 * COMMAND's process and stop it before its exec (it waits for SIGUSR1,
 * making no traced system call), start bpftrace with its pid and wait
 * until bpftrace says every probe is attached, start mpstat and pmon,
 * measure the clocks, release COMMAND.  While it runs we only pass its
 * output through (and save it).  When it ends: the clocks again, SIGINT
 * to every tracer, bpftrace's one output split into the trace_*.out files,
 * the final manifest.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/file.h"
#include "streamtime/install.h"
#include "streamtime/record.h"
#include "streamtime/spawn.h"
#include "streamtime/suggest.h"


const char *const st_record_tracer_names[ST_REC_NTRACERS + 1] = {
	"io", "proc", "cpu", "gpu", NULL,
};

int st_record_tracers_parse(const char *list, unsigned *set, st_error *err)
{
	char *save = NULL, *copy = strdup(list), *w;
	unsigned bits = 0;

	if (!copy)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		int i;

		for (i = 0; i < ST_REC_NTRACERS; i++)
			if (!strcmp(w, st_record_tracer_names[i]))
				break;
		if (i == ST_REC_NTRACERS) {
			const char *near = st_suggest(w, st_record_tracer_names,
						      (size_t)-1);

			st_error_set(err, ST_EXIT_USAGE, "--tracers: unknown "
				     "tracer '%s'%s%s%s (io, proc, cpu, gpu)",
				     w, near ? "; did you mean '" : "",
				     near ? near : "", near ? "'?" : "");
			free(copy);
			return -1;
		}
		bits |= 1u << i;
	}
	free(copy);
	if (!bits)
		return st_error_set(err, ST_EXIT_USAGE, "--tracers: empty (give "
				    "some of io, proc, cpu, gpu)");
	*set = bits;
	return 0;
}

const char *const st_record_file_names[ST_RF_COUNT] = {
	"trace_read.out", "trace_write.out", "trace_openat.out",
	"trace_close.out", "trace_proc.out",
};

/* docs/systrace.md's headers, in the order of st_record_file_names */
static const char *const file_headers[ST_RF_COUNT] = {
	"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME",
	"TIMESTAMP PID TID FD RET (B) LAT(ns) FILENAME",
	"TIMESTAMP PID TID FD LAT(ns) FILENAME",
	"TIMESTAMP PID TID FD RET LAT(ns) FILENAME",
	"TIMESTAMP EVENT PID PPID COMM",
};
static const char file_tags[ST_RF_COUNT] = { 'R', 'W', 'O', 'C', 'P' };

/* bpftrace's string size: paths longer than this less one are cut (a
 * larger one overflows the BPF stack of the exit probes in 0.17) */
#define BT_STRLEN 64
#define BT_SCRIPT "record.bt"
#define TRACERS_ERR "tracers.stderr"
#define BT_READY "__BPFTRACE_NOTIFY_PROBES_ATTACHED"
#define ATTACH_TIMEOUT_MS 120000
#define STOP_GRACE_MS 15000
#define DRAIN_MS 500
#define FOLLOW_MS 50
#define CLOCK_TRIES 1000

static int64_t ts_ns(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t mono_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return ts_ns(&t);
}

void st_record_clock_pair(int tries, st_clock_pair *p)
{
	struct timespec a, r, b, res_m, res_r;
	int64_t best = INT64_MAX, res;

	for (int i = 0; i < tries || best == INT64_MAX; i++) {
		int64_t w;

		clock_gettime(CLOCK_MONOTONIC, &a);
		clock_gettime(CLOCK_REALTIME, &r);
		clock_gettime(CLOCK_MONOTONIC, &b);
		w = ts_ns(&b) - ts_ns(&a);
		if (w < best) {
			best = w;
			p->mono_ns = ts_ns(&a) + w / 2;
			p->real_ns = ts_ns(&r);
		}
	}
	clock_getres(CLOCK_MONOTONIC, &res_m);
	clock_getres(CLOCK_REALTIME, &res_r);
	res = ts_ns(&res_m) > ts_ns(&res_r) ? ts_ns(&res_m) : ts_ns(&res_r);
	p->bound_ns = (best + 1) / 2 + res;
}

/* ---- splitting bpftrace's output ---------------------------------------- */

static int put_line(FILE *f, const char *s, size_t n)
{
	if (fwrite(s, 1, n, f) != n)
		return -1;
	return n && s[n - 1] == '\n' ? 0 : (putc('\n', f) == EOF ? -1 : 0);
}

static int put_headers(FILE *const out[ST_RF_COUNT], const char *attaching,
		       size_t alen)
{
	for (int k = 0; k < ST_RF_COUNT; k++) {
		if (!out[k])
			continue;
		if (attaching && put_line(out[k], attaching, alen) < 0)
			return -1;
		if (fprintf(out[k], "%s\n", file_headers[k]) < 0)
			return -1;
	}
	return 0;
}

int st_record_split(FILE *in, FILE *const out[ST_RF_COUNT], uint64_t *lost,
		    uint64_t *bad, st_error *err)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool first = true;
	int rc = 0;

	*lost = *bad = 0;
	while ((n = getline(&line, &cap, in)) >= 0) {
		size_t len = (size_t)n;
		int k;

		if (first) {
			bool att = len >= 10 && !memcmp(line, "Attaching ", 10);

			first = false;
			if (put_headers(out, att ? line : NULL, len) < 0)
				goto werr;
			if (att)
				continue;
		}
		for (k = 0; k < ST_RF_COUNT; k++)
			if (len >= 2 && line[0] == file_tags[k] && line[1] == ' ')
				break;
		if (k < ST_RF_COUNT) {
			if (out[k] && put_line(out[k], line + 2, len - 2) < 0)
				goto werr;
		} else if (len >= 5 && !memcmp(line, "Lost ", 5)) {
			*lost += strtoull(line + 5, NULL, 10);
		} else if (line[0] != '\n' && line[0] != '@') {
			/* '@': the maps bpftrace prints as it ends */
			(*bad)++;
		}
	}
	if (first && put_headers(out, NULL, 0) < 0)
		goto werr;
	if (ferror(in))
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot read bpftrace's "
				  "output: %s", strerror(errno));
	free(line);
	return rc;
werr:
	free(line);
	return st_error_set(err, ST_EXIT_IOERR, "cannot write a trace file: %s",
			    strerror(errno));
}

/* ---- the tracers -------------------------------------------------------- */

struct tracer {
	bool wanted, ran;
	char why[512];
	char version[128];
	int status;                   /* its exit status once stopped, or -1 */
};

struct rec {
	const st_record_opts *o;
	struct tracer t[ST_REC_NTRACERS];
	char *bpftrace, *mpstat, *smi;        /* found in PATH */
	st_child bt, cpu, gpu;
	int logfd;                    /* DIR/tracers.stderr */
	pid_t pid;                    /* COMMAND's */
	int pidfd, out, err, execfd;  /* its pidfd, output pipes, exec report */
	bool released, exited;
	int status;
	int signal, nsignals;
	char tz[128], host[256], kernel[256];
	st_clock_pair clock[2];
	int nclock;
	int64_t startup_ns;
	uint64_t lost, bad;
	bool tracefs_mounted;
	char *scripts;                /* o->script_dir, or found from o->exe */
	int subreaper;                /* PR_GET_CHILD_SUBREAPER before us */
	int nleft;                    /* COMMAND's processes still running as
				       * the record stopped (-1: not known) */
	pid_t left[8];                /* the first of them */
};

/* Can PATH be executed: a regular file with execute permission?  (access()
 * alone says yes to a directory: execve then fails with EACCES.) */
static bool runnable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* PROG looked up in PATH as execvp does: a new string, or NULL. */
static char *find_in_path(const char *prog)
{
	const char *path = getenv("PATH"), *p, *e;

	if (strchr(prog, '/'))
		return runnable(prog) ? strdup(prog) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = e + 1) {
		size_t n;
		char *full;

		e = strchr(p, ':');
		n = e ? (size_t)(e - p) : strlen(p);
		if (n && (full = malloc(n + strlen(prog) + 2))) {
			memcpy(full, p, n);
			full[n] = '/';
			strcpy(full + n + 1, prog);
			if (runnable(full))
				return full;
			free(full);
		}
		if (!e)
			return NULL;
	}
}

/* The first line of what ARGV prints (stdout, else stderr), into BUF. */
static void tool_version(char *const argv[], char *buf, size_t size)
{
	char *out = NULL, *errtxt = NULL;
	size_t len;
	const char *s;

	buf[0] = '\0';
	if (st_spawn_collect(argv, NULL, &out, &len, &errtxt, NULL) >= 0) {
		s = out && *out ? out : errtxt;
		if (s)
			snprintf(buf, size, "%.*s", (int)strcspn(s, "\n"), s);
	}
	free(out);
	free(errtxt);
}

static bool tracefs_ready(void)
{
	return access("/sys/kernel/tracing/events/syscalls", F_OK) == 0 ||
	       access("/sys/kernel/debug/tracing/events/syscalls", F_OK) == 0;
}

/* Can the tracers asked for run?  Fills R's tools and their versions;
 * 69 naming what is missing and the --tracers that would run. */
static int check_tracers(struct rec *r, st_error *err)
{
	const st_record_opts *o = r->o;
	bool bt = o->tracers & (1u << ST_REC_IO | 1u << ST_REC_PROC);
	char problem[512] = "", runs[64] = "";
	unsigned cannot = 0;

	for (int i = 0; i < ST_REC_NTRACERS; i++) {
		r->t[i].wanted = o->tracers & (1u << i);
		r->t[i].status = -1;
	}
	if (bt) {
		const char *why = NULL;

		if (geteuid() != 0)
			why = "bpftrace needs root";
		else if (!(r->bpftrace = find_in_path("bpftrace")))
			why = "bpftrace is not installed (not in PATH)";
		else if (!tracefs_ready()) {
			if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0,
				  NULL) == 0 && tracefs_ready())
				r->tracefs_mounted = true;
			else
				why = "tracefs is not mounted on "
				      "/sys/kernel/tracing and cannot be";
		}
		if (why) {
			snprintf(problem, sizeof(problem), "%s (tracers io, "
				 "proc)", why);
			cannot |= o->tracers & (1u << ST_REC_IO |
						1u << ST_REC_PROC);
		} else {
			char *v[] = { r->bpftrace, "--version", NULL };

			tool_version(v, r->t[ST_REC_IO].version,
				     sizeof(r->t[ST_REC_IO].version));
			memcpy(r->t[ST_REC_PROC].version,
			       r->t[ST_REC_IO].version,
			       sizeof(r->t[ST_REC_PROC].version));
		}
	}
	if (r->t[ST_REC_CPU].wanted) {
		if (!(r->mpstat = find_in_path("mpstat"))) {
			size_t k = strlen(problem);

			snprintf(problem + k, sizeof(problem) - k, "%smpstat "
				 "is not installed (package sysstat; tracer cpu)",
				 k ? "; " : "");
			cannot |= 1u << ST_REC_CPU;
		} else {
			char *v[] = { r->mpstat, "-V", NULL };

			tool_version(v, r->t[ST_REC_CPU].version,
				     sizeof(r->t[ST_REC_CPU].version));
		}
	}
	if (r->t[ST_REC_GPU].wanted) {
		if (!(r->smi = find_in_path("nvidia-smi"))) {
			snprintf(r->t[ST_REC_GPU].why,
				 sizeof(r->t[ST_REC_GPU].why),
				 "no nvidia-smi in PATH");
		} else {
			char *v[] = { r->smi, "--version", NULL };

			tool_version(v, r->t[ST_REC_GPU].version,
				     sizeof(r->t[ST_REC_GPU].version));
		}
	}
	if (!cannot)
		return 0;
	for (int i = 0; i < ST_REC_NTRACERS; i++) {
		size_t k = strlen(runs);

		if ((o->tracers & (1u << i)) && !(cannot & (1u << i)))
			snprintf(runs + k, sizeof(runs) - k, "%s%s",
				 k ? "," : "", st_record_tracer_names[i]);
	}
	if (!runs[0])
		snprintf(runs, sizeof(runs), "%s",
			 cannot & (1u << ST_REC_CPU) ? "gpu" : "cpu");
	return st_error_set(err, ST_EXIT_UNAVAILABLE, "%s; run as root with "
			    "bpftrace and sysstat installed, or record what "
			    "runs here with --tracers %s", problem, runs);
}

/* ---- DIR, the manifest -------------------------------------------------- */

/* Create DIR, or accept it when it is an empty directory.  73. */
static int make_dir(const char *dir, st_error *err)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int n = 0;

	if (stat(dir, &st) != 0) {
		if (errno != ENOENT)
			return st_error_set(err, ST_EXIT_CANTCREAT, "%s: %s",
					    dir, strerror(errno));
		return st_mkdir_p(dir, err);
	}
	if (!S_ISDIR(st.st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: exists and is "
				    "not a directory", dir);
	if (!(d = opendir(dir)))
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: %s", dir,
				    strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	if (n)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: not empty "
				    "(trace record writes a new directory; give "
				    "a new or empty one)", dir);
	return 0;
}

/* The machine's IANA zone: $TZ, else the target of /etc/localtime, else
 * /etc/timezone, else UTC (what the C library then uses). */
static void local_zone(char *buf, size_t size)
{
	const char *tz = getenv("TZ");
	char link[PATH_MAX];
	ssize_t n;
	const char *z;

	if (tz && *tz) {
		snprintf(buf, size, "%s", tz + (tz[0] == ':'));
		return;
	}
	if ((n = readlink("/etc/localtime", link, sizeof(link) - 1)) > 0) {
		link[n] = '\0';
		if ((z = strstr(link, "zoneinfo/"))) {
			snprintf(buf, size, "%s", z + 9);
			return;
		}
	}
	buf[0] = '\0';
	{
		FILE *f = fopen("/etc/timezone", "r");

		if (f) {
			if (fgets(buf, (int)size, f))
				buf[strcspn(buf, " \n")] = '\0';
			fclose(f);
		}
	}
	if (!buf[0])
		snprintf(buf, size, "UTC");
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGINT: return "SIGINT";
	case SIGTERM: return "SIGTERM";
	case SIGHUP: return "SIGHUP";
	default: return "SIGNAL";
	}
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

/* The files tracer I writes. */
static json_t *tracer_files(const struct rec *r, int i)
{
	json_t *a = json_array();

	if (!r->t[i].ran)
		return a;
	switch (i) {
	case ST_REC_IO:
		for (int k = ST_RF_READ; k <= ST_RF_CLOSE; k++)
			json_array_append_new(a,
				json_string(st_record_file_names[k]));
		break;
	case ST_REC_PROC:
		json_array_append_new(a,
			json_string(st_record_file_names[ST_RF_PROC]));
		break;
	case ST_REC_CPU:
		json_array_append_new(a, json_string("cpu.out"));
		break;
	case ST_REC_GPU:
		json_array_append_new(a, json_string("gpu.out"));
		break;
	}
	return a;
}

/* DIR/manifest.json, atomically: what ran, the clocks, COMMAND's status
 * when FINAL. */
static int write_manifest(const struct rec *r, bool final, st_error *err)
{
	static const char *const programs[ST_REC_NTRACERS] = {
		"bpftrace", "bpftrace", "mpstat", "nvidia-smi pmon",
	};
	const st_record_opts *o = r->o;
	json_t *m = json_object(), *cmd = json_array(), *tr = json_array(),
	       *clk = json_array();
	st_atomic_file af;
	char *path = st_path_join(o->dir, "manifest.json");
	int rc = -1;

	for (char *const *a = o->argv; *a; a++)
		json_array_append_new(cmd, json_string(*a));
	for (int i = 0; i < ST_REC_NTRACERS; i++) {
		const struct tracer *t = &r->t[i];
		json_t *e;

		if (!t->wanted)
			continue;
		e = json_pack("{s:s, s:s, s:o, s:b, s:o, s:o}",
			      "name", st_record_tracer_names[i],
			      "program", programs[i],
			      "files", tracer_files(r, i), "ran", t->ran,
			      "version", str_or_null(t->version),
			      "why", str_or_null(t->why));
		if (i == ST_REC_IO && t->ran)
			json_object_set_new(e, "path_max",
					    json_integer(BT_STRLEN - 1));
		if (t->ran && final)
			json_object_set_new(e, "exit_status", t->status >= 0 ?
					    json_integer(t->status) :
					    json_null());
		if ((i == ST_REC_IO || i == ST_REC_PROC) && t->ran && final) {
			json_object_set_new(e, "lost_events",
					    json_integer((json_int_t)r->lost));
			json_object_set_new(e, "bad_lines",
					    json_integer((json_int_t)r->bad));
		}
		json_array_append_new(tr, e);
	}
	for (int i = 0; i < r->nclock; i++)
		json_array_append_new(clk, json_pack("{s:s, s:I, s:I, s:I}",
			"when", i ? "end" : "start",
			"mono_ns", (json_int_t)r->clock[i].mono_ns,
			"real_ns", (json_int_t)r->clock[i].real_ns,
			"bound_ns", (json_int_t)r->clock[i].bound_ns));
	json_object_set_new(m, "streamtime_record", json_integer(1));
	json_object_set_new(m, "complete", json_boolean(final));
	json_object_set_new(m, "host", json_string(r->host));
	json_object_set_new(m, "kernel", json_string(r->kernel));
	json_object_set_new(m, "tz", json_string(r->tz));
	json_object_set_new(m, "streamtime", str_or_null(o->version));
	json_object_set_new(m, "command", cmd);
	json_object_set_new(m, "pid", r->pid > 0 ? json_integer(r->pid)
						 : json_null());
	json_object_set_new(m, "exit_status", final && r->exited ?
			    json_integer(r->status) : json_null());
	json_object_set_new(m, "signal", r->signal ?
			    json_string(signal_name(r->signal)) : json_null());
	json_object_set_new(m, "startup_ns", r->startup_ns ?
			    json_integer(r->startup_ns) : json_null());
	json_object_set_new(m, "follow_children",
			    json_boolean(o->follow_children));
	json_object_set_new(m, "left_running", final && r->nleft >= 0 ?
			    json_integer(r->nleft) : json_null());
	json_object_set_new(m, "tracers", tr);
	json_object_set_new(m, "clock", clk);
	if (!path) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (st_atomic_open(&af, path, err) < 0)
		goto out;
	if (json_dumpf(m, af.fp, JSON_INDENT(2)) < 0 || fputc('\n', af.fp) < 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s", path,
			     strerror(st_atomic_errno(&af)));
		st_atomic_abort(&af);
		goto out;
	}
	rc = st_atomic_commit(&af, err);
out:
	free(path);
	json_decref(m);
	return rc;
}

/* ---- COMMAND's descendants ---------------------------------------------- */

struct proc_ent {
	pid_t pid, ppid;
	char state;
};

/* Every process in /proc: a new array, *N of them; NULL when /proc cannot
 * be read. */
static struct proc_ent *proc_table(size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	struct proc_ent *v = NULL;
	size_t cap = 0;

	*n = 0;
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		char path[64], buf[512], *rp;
		long pid, ppid;
		char state, *end;
		ssize_t k;
		int fd;

		pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		k = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (k <= 0)
			continue;
		buf[k] = '\0';
		/* "PID (COMM) STATE PPID ...": COMM may hold ") " */
		if (!(rp = strrchr(buf, ')')) ||
		    sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
			continue;
		if (*n == cap) {
			size_t c = cap ? 2 * cap : 256;
			struct proc_ent *nv = realloc(v, c * sizeof(*nv));

			if (!nv)
				break;
			v = nv;
			cap = c;
		}
		v[(*n)++] = (struct proc_ent){ (pid_t)pid, (pid_t)ppid, state };
	}
	closedir(d);
	if (!v)
		v = malloc(1);
	return v;
}

/* COMMAND's processes still running once COMMAND ended.  We are their
 * subreaper (PR_SET_CHILD_SUBREAPER), so a process whose parent ended is
 * our child: COMMAND's processes are our children that are neither
 * COMMAND nor a tracer, and their descendants.  Our ended such children
 * are reaped here.  Returns how many run (the first in R->left), or -1
 * when /proc cannot be read. */
static int descendants_left(struct rec *r)
{
	size_t n, k;
	struct proc_ent *t = proc_table(&n);
	pid_t me = getpid();
	bool *mark;
	int count = 0;
	bool grew = true;

	if (!t)
		return -1;
	if (!(mark = calloc(n ? n : 1, sizeof(*mark)))) {
		free(t);
		return -1;
	}
	for (k = 0; k < n; k++) {
		pid_t p = t[k].pid;

		if (t[k].ppid != me || p == r->bt.pid || p == r->cpu.pid ||
		    p == r->gpu.pid || (p == r->pid && !r->exited))
			continue;
		if (t[k].state == 'Z') {
			waitpid(p, NULL, WNOHANG);
			continue;
		}
		mark[k] = true;
	}
	/* their descendants: mark until nothing changes (the table is small) */
	while (grew) {
		grew = false;
		for (k = 0; k < n; k++) {
			if (mark[k] || t[k].state == 'Z')
				continue;
			for (size_t j = 0; j < n; j++)
				if (mark[j] && t[j].pid == t[k].ppid) {
					mark[k] = grew = true;
					break;
				}
		}
	}
	for (k = 0; k < n; k++)
		if (mark[k]) {
			if (count < (int)(sizeof(r->left) / sizeof(r->left[0])))
				r->left[count] = t[k].pid;
			count++;
		}
	free(mark);
	free(t);
	return count;
}

/* Does any of COMMAND's processes still run after it ended?  The cheap
 * question of every FOLLOW_MS: our children (/proc/self/task/PID/children;
 * we have one thread, which orphans are given to), the ended ones reaped;
 * the whole of /proc where that file is missing. */
static bool any_left(struct rec *r)
{
	char path[64], buf[4096];
	int fd;
	ssize_t n;
	bool left = false;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children",
		 (int)getpid());
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return descendants_left(r) > 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return descendants_left(r) > 0;
	if (n == (ssize_t)sizeof(buf) - 1)
		return true;            /* that many children: some run */
	buf[n] = '\0';
	for (char *w = buf, *end; *w; w = end) {
		long p = strtol(w, &end, 10);

		if (end == w)
			break;
		if (p <= 0 || p == r->bt.pid || p == r->cpu.pid ||
		    p == r->gpu.pid || (p == r->pid && !r->exited))
			continue;
		if (waitpid((pid_t)p, NULL, WNOHANG) != (pid_t)p)
			left = true;    /* running (not one that ended) */
	}
	return left;
}

/* Send SIG to COMMAND's processes that still run after it ended (those
 * descendants_left finds; SIGKILL to all). */
static void signal_descendants(struct rec *r, int sig)
{
	size_t n, k;
	struct proc_ent *t = proc_table(&n);
	pid_t me = getpid();

	if (!t)
		return;
	for (k = 0; k < n; k++)
		if (t[k].ppid == me && t[k].pid != r->bt.pid &&
		    t[k].pid != r->cpu.pid && t[k].pid != r->gpu.pid &&
		    t[k].pid != r->pid && t[k].state != 'Z')
			kill(t[k].pid, sig);
	free(t);
}

/* ---- signals ------------------------------------------------------------ */

static int sig_w = -1;
static const int our_sigs[] = { SIGINT, SIGTERM, SIGHUP };
#define NSIGS (sizeof(our_sigs) / sizeof(our_sigs[0]))

/* Async-signal-safe: the signal and whether the terminal sent it. */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;
	unsigned char b[2] = { (unsigned char)sig, si->si_code == SI_KERNEL };

	(void)uc;
	if (write(sig_w, b, 2) < 0) {
		/* a full pipe: enough signals are pending already */
	}
	errno = saved;
}

struct sigsave {
	struct sigaction old[NSIGS], oldpipe;
	int fds[2];
};

static int signals_take(struct sigsave *s, st_error *err)
{
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };

	if (pipe2(s->fds, O_CLOEXEC | O_NONBLOCK) != 0)
		return st_error_set(err, ST_EXIT_IOERR, "pipe: %s",
				    strerror(errno));
	sig_w = s->fds[1];
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(our_sigs[i], &sa, &s->old[i]);
	/* our stdout may be a pipe whose reader left: see EPIPE, not die */
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &s->oldpipe);
	return 0;
}

static void signals_give(struct sigsave *s)
{
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(our_sigs[i], &s->old[i], NULL);
	sigaction(SIGPIPE, &s->oldpipe, NULL);
	sig_w = -1;
	close(s->fds[0]);
	close(s->fds[1]);
}

/* Read the signals that came: note them, pass them on to COMMAND when a
 * process sent them (the terminal sent them to COMMAND too), the third
 * as SIGKILL. */
static void signals_handle(struct rec *r, int fd)
{
	unsigned char b[2];

	while (read(fd, b, 2) == 2) {
		r->signal = b[0];
		r->nsignals++;
		if (r->pid > 0 && r->exited && r->o->follow_children) {
			/* following COMMAND's processes after its end */
			if (r->nsignals >= 3)
				signal_descendants(r, SIGKILL);
			else if (!b[1])
				signal_descendants(r, b[0]);
			continue;
		}
		if (r->pid <= 0 || r->exited)
			continue;
		if (r->nsignals >= 3)
			kill(r->pid, SIGKILL);
		else if (!b[1] && r->released)
			kill(r->pid, b[0]);
	}
}

/* ---- COMMAND ------------------------------------------------------------ */

/* Fork COMMAND's process: it waits for SIGUSR1 (no traced system call
 * while the tracers attach), then execs with its stdout and stderr on
 * pipes to us; an exec failure comes back as an errno on R->execfd. */
static int fork_command(struct rec *r, st_error *err)
{
	int pp[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int *out = pp[0], *errp = pp[1], *ex = pp[2];
	sigset_t usr1, old;
	pid_t parent = getpid();

	for (int i = 0; i < 3; i++)
		if (pipe2(pp[i], O_CLOEXEC) != 0) {
			st_error_set(err, ST_EXIT_IOERR, "pipe: %s",
				     strerror(errno));
			for (int k = 0; k < i; k++) {
				close(pp[k][0]);
				close(pp[k][1]);
			}
			return -1;
		}
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &usr1, &old);
	r->pid = fork();
	if (r->pid == 0) {
		int e;

		for (size_t i = 0; i < NSIGS; i++)
			signal(our_sigs[i], SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		dup2(out[1], 1);
		dup2(errp[1], 2);
		while (sigwaitinfo(&usr1, NULL) < 0)
			;
		prctl(PR_SET_PDEATHSIG, 0);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(r->o->argv[0], r->o->argv);
		e = errno;
		if (write(ex[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(e == ENOENT ? 127 : 126);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(out[1]);
	close(errp[1]);
	close(ex[1]);
	if (r->pid < 0) {
		close(out[0]);
		close(errp[0]);
		close(ex[0]);
		return st_error_set(err, ST_EXIT_UNAVAILABLE, "fork: %s",
				    strerror(errno));
	}
	r->out = out[0];
	r->err = errp[0];
	r->execfd = ex[0];
	r->pidfd = (int)syscall(SYS_pidfd_open, r->pid, 0);
	return 0;
}

/* Reap COMMAND if it ended (WAIT: wait for it). */
static void command_reap(struct rec *r, bool wait)
{
	int st;
	pid_t p;

	if (r->pid <= 0 || r->exited)
		return;
	while ((p = waitpid(r->pid, &st, wait ? 0 : WNOHANG)) < 0 &&
	       errno == EINTR)
		;
	if (p == r->pid) {
		r->exited = true;
		r->status = WIFEXITED(st) ? WEXITSTATUS(st)
					  : 128 + WTERMSIG(st);
	}
}

/* Write all of BUF to FD; false when FD failed (and is to be dropped). */
static bool write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t w = write(fd, buf, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		buf += w;
		n -= (size_t)w;
	}
	return true;
}

/* ---- bpftrace ----------------------------------------------------------- */

/* DIR/record.bt: proc.bt, then io.bt when asked for. */
static int write_script(struct rec *r, const char *path, st_error *err)
{
	const char *names[2] = { "proc.bt", "io.bt" };
	int n = r->t[ST_REC_IO].wanted ? 2 : 1;
	st_atomic_file af;

	if (st_atomic_open(&af, path, err) < 0)
		return -1;
	for (int i = 0; i < n; i++) {
		char *p = st_path_join(r->scripts, names[i]), *text;
		size_t len;

		text = p ? st_file_read(p, &len, err) : NULL;
		free(p);
		if (!text) {
			st_error_prefix(err, "the bpftrace scripts");
			st_atomic_abort(&af);
			return -1;
		}
		fwrite(text, 1, len, af.fp);
		fputc('\n', af.fp);
		free(text);
	}
	return st_atomic_commit(&af, err);
}

/* What bpftrace said that explains a failure: its last line of error
 * (RLIMIT_MEMLOCK's is harmless), from tracers.stderr. */
static void bpftrace_error(const char *logpath, char *buf, size_t size)
{
	size_t len;
	char *t = st_file_read(logpath, &len, NULL), *line, *save = NULL;

	snprintf(buf, size, "bpftrace ended before its probes were attached");
	if (!t)
		return;
	for (line = strtok_r(t, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!strstr(line, "RLIMIT_MEMLOCK") && !strstr(line, BT_READY) &&
		    *line)
			snprintf(buf, size, "bpftrace: %s", line);
	free(t);
}

/* Start bpftrace on COMMAND's pid and wait until its probes are attached
 * (it says so on stderr, into tracers.stderr).  Returns 0, 1 when a
 * signal came first, or -1 with ERR (69). */
static int start_bpftrace(struct rec *r, int sigfd, st_error *err)
{
	char *script = st_path_join(r->o->dir, BT_SCRIPT),
	     *raw = st_path_join(r->o->dir, ST_RECORD_RAW),
	     *logp = st_path_join(r->o->dir, TRACERS_ERR);
	char pid[32], me[32], strlen_env[40];
	const char *env[] = { strlen_env, BT_READY "=1",
			      "BPFTRACE_MAP_KEYS_MAX=16384",
			      "BPFTRACE_PERF_RB_PAGES=512", NULL };
	st_spawn_opts so = { ST_SPAWN_GROUP | ST_SPAWN_NULL_IN, env };
	int rc = -1;
	int64_t until = mono_now() + (int64_t)ATTACH_TIMEOUT_MS * 1000000;

	if (!script || !raw || !logp) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (write_script(r, script, err) < 0)
		goto out;
	snprintf(pid, sizeof(pid), "%d", (int)r->pid);
	snprintf(me, sizeof(me), "%d", (int)getpid());
	snprintf(strlen_env, sizeof(strlen_env), "BPFTRACE_STRLEN=%d",
		 BT_STRLEN);
	{
		char *argv[] = { r->bpftrace, "-o", raw, script, pid,
				 r->t[ST_REC_PROC].wanted ? "1" : "0", me, NULL };

		if (st_spawn_to(&r->bt, argv, &so, r->logfd, r->logfd, err) < 0)
			goto out;
	}
	for (;;) {
		struct pollfd p = { sigfd, POLLIN, 0 };
		size_t len;
		char *t;
		int st;

		if (poll(&p, 1, 5) > 0) {
			rc = 1;
			goto out;
		}
		if ((t = st_file_read(logp, &len, NULL))) {
			bool ready = strstr(t, BT_READY) != NULL;

			free(t);
			if (ready)
				break;
		}
		if (waitpid(r->bt.pid, &st, WNOHANG) == r->bt.pid) {
			r->bt.pid = -1;
			bpftrace_error(logp, r->t[ST_REC_IO].why,
				       sizeof(r->t[ST_REC_IO].why));
			st_error_set(err, ST_EXIT_UNAVAILABLE, "%s",
				     r->t[ST_REC_IO].why);
			goto out;
		}
		if (mono_now() > until) {
			st_error_set(err, ST_EXIT_UNAVAILABLE, "bpftrace did "
				     "not attach its probes within %d s",
				     ATTACH_TIMEOUT_MS / 1000);
			goto out;
		}
	}
	r->t[ST_REC_IO].ran = r->t[ST_REC_IO].wanted;
	r->t[ST_REC_PROC].ran = r->t[ST_REC_PROC].wanted;
	rc = 0;
out:
	free(script);
	free(raw);
	free(logp);
	return rc;
}

/* Start a sampling tracer, its stdout into DIR/NAME. */
static void start_sampler(struct rec *r, int i, st_child *c, char *argv[],
			  const char *name)
{
	static const char *const env[] = { "LC_ALL=C", NULL };
	char *path = st_path_join(r->o->dir, name);
	int fd = path ? open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			     0666) : -1;
	st_spawn_opts so = { ST_SPAWN_GROUP | ST_SPAWN_NULL_IN, env };
	char *guard = find_in_path("setpriv"), *v[16];
	size_t n = 0;
	st_error e;

	/* where util-linux's setpriv is, the sampler gets SIGINT when we end
	 * without stopping it (killed) instead of sampling on forever */
	if (guard) {
		v[n++] = guard;
		v[n++] = "--pdeathsig";
		v[n++] = "INT";
	}
	for (size_t k = 0; argv[k] && n < 15; k++)
		v[n++] = argv[k];
	v[n] = NULL;
	if (fd < 0) {
		snprintf(r->t[i].why, sizeof(r->t[i].why), "cannot create %s: "
			 "%s", name, strerror(errno));
	} else if (st_spawn_to(c, v, &so, fd, r->logfd, &e) < 0) {
		snprintf(r->t[i].why, sizeof(r->t[i].why), "%s", e.text);
	} else {
		r->t[i].ran = true;
	}
	if (fd >= 0)
		close(fd);
	free(guard);
	if (!r->t[i].ran)
		st_warn(r->o->log, "%s: %s", st_record_tracer_names[i],
			r->t[i].why);
	free(path);
}

/* SIGINT to every tracer still running, then their ends (SIGKILL after
 * STOP_GRACE_MS). */
static void stop_tracers(struct rec *r)
{
	st_child *c[3] = { &r->bt, &r->cpu, &r->gpu };
	int bt = r->t[ST_REC_IO].wanted ? ST_REC_IO : ST_REC_PROC;
	int idx[3] = { bt, ST_REC_CPU, ST_REC_GPU };
	int64_t until = mono_now() + (int64_t)STOP_GRACE_MS * 1000000;
	int left = 0;

	for (int i = 0; i < 3; i++)
		if (c[i]->pid > 0) {
			kill(c[i]->pid, SIGINT);
			left++;
		}
	while (left) {
		left = 0;
		for (int i = 0; i < 3; i++) {
			int st;

			if (c[i]->pid <= 0)
				continue;
			if (waitpid(c[i]->pid, &st, WNOHANG) == c[i]->pid) {
				r->t[idx[i]].status = WIFEXITED(st) ?
					WEXITSTATUS(st) : 128 + WTERMSIG(st);
				c[i]->pid = -1;
				continue;
			}
			if (mono_now() > until) {
				kill(-c[i]->pid, SIGKILL);
				kill(c[i]->pid, SIGKILL);
				waitpid(c[i]->pid, NULL, 0);
				snprintf(r->t[idx[i]].why,
					 sizeof(r->t[idx[i]].why),
					 "did not stop within %d s of SIGINT: "
					 "killed", STOP_GRACE_MS / 1000);
				c[i]->pid = -1;
				continue;
			}
			left++;
		}
		if (left)
			usleep(10000);
	}
	for (int i = 0; i < 3; i++)
		if (r->t[idx[i]].ran && r->t[idx[i]].status != 0)
			st_warn(r->o->log, "%s (tracer %s) %s; see %s",
				c[i] == &r->bt ? "bpftrace" : c[i] == &r->cpu ?
				"mpstat" : "nvidia-smi pmon",
				st_record_tracer_names[idx[i]],
				r->t[idx[i]].why[0] ? r->t[idx[i]].why :
				"failed", TRACERS_ERR);
	/* one bpftrace runs io and proc */
	if (bt == ST_REC_IO && r->t[ST_REC_PROC].wanted) {
		r->t[ST_REC_PROC].status = r->t[ST_REC_IO].status;
		memcpy(r->t[ST_REC_PROC].why, r->t[ST_REC_IO].why,
		       sizeof(r->t[ST_REC_PROC].why));
	}
}

/* bpftrace's one output into the trace_*.out files it holds, as one set,
 * then the raw output removed.  74. */
static int split_raw(struct rec *r, st_error *err)
{
	char *raw = st_path_join(r->o->dir, ST_RECORD_RAW);
	st_atomic_file af[ST_RF_COUNT];
	st_atomic_set set = { 0 };
	FILE *out[ST_RF_COUNT] = { 0 }, *in = NULL;
	int rc = -1, k;

	memset(af, 0, sizeof(af));
	if (!raw || !(in = fopen(raw, "r"))) {
		st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s",
			     raw ? raw : ST_RECORD_RAW, strerror(errno));
		goto out;
	}
	for (k = 0; k < ST_RF_COUNT; k++) {
		bool want = k == ST_RF_PROC ? r->t[ST_REC_PROC].ran
					    : r->t[ST_REC_IO].ran;
		char *p;

		if (!want)
			continue;
		if (!(p = st_path_join(r->o->dir, st_record_file_names[k]))) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		if (st_atomic_open(&af[k], p, err) < 0) {
			free(p);
			goto out;
		}
		free(p);
		out[k] = af[k].fp;
	}
	if (st_record_split(in, out, &r->lost, &r->bad, err) < 0)
		goto out;
	for (k = 0; k < ST_RF_COUNT; k++)
		if (out[k] && st_atomic_set_add(&set, &af[k], err) < 0)
			goto out;
	if (st_atomic_set_commit(&set, err) < 0)
		goto out;
	unlink(raw);
	rc = 0;
out:
	for (k = 0; k < ST_RF_COUNT; k++)
		st_atomic_abort(&af[k]);
	st_atomic_set_abort(&set);
	if (in)
		fclose(in);
	free(raw);
	return rc;
}

/* ---- the run ------------------------------------------------------------ */

/* Pass COMMAND's output through and save it, until it ends and its pipes
 * close (or DRAIN_MS after its end, when a descendant keeps them).  With
 * --follow-children "its end" is the end of its last process: the ones
 * whose parent ended are ours (PR_SET_CHILD_SUBREAPER), looked at every
 * FOLLOW_MS. */
static void run_command(struct rec *r, int sigfd, int logs[2])
{
	int *src[2] = { &r->out, &r->err }, dst[2] = { 1, 2 };
	int64_t deadline = 0;
	char buf[65536];

	for (;;) {
		struct pollfd p[4] = {
			{ sigfd, POLLIN, 0 }, { r->pidfd, POLLIN, 0 },
			{ r->out, POLLIN, 0 }, { r->err, POLLIN, 0 },
		};
		int timeout = -1;

		if (r->exited) {
			p[1].fd = -1;
			if (!deadline && r->o->follow_children && any_left(r)) {
				timeout = FOLLOW_MS;
			} else {
				int64_t left;

				if (!deadline)
					deadline = mono_now() +
						   (int64_t)DRAIN_MS * 1000000;
				left = (deadline - mono_now()) / 1000000;
				if ((r->out < 0 && r->err < 0) || left <= 0)
					break;
				timeout = (int)left;
			}
		} else if (r->pidfd < 0) {
			timeout = 50;          /* no pidfd: look now and then */
		}
		if (poll(p, 4, timeout) < 0 && errno != EINTR)
			break;
		if (p[0].revents & POLLIN)
			signals_handle(r, sigfd);
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (*src[i] < 0 ||
			    !(p[2 + i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(*src[i], buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(*src[i]);
				*src[i] = -1;
				continue;
			}
			if (dst[i] >= 0 && !write_all(dst[i], buf, (size_t)n))
				dst[i] = -1;
			if (logs[i] >= 0 && !write_all(logs[i], buf, (size_t)n)) {
				st_warn(r->o->log, "cannot write command.%s.log: "
					"%s", i ? "stderr" : "stdout",
					strerror(errno));
				logs[i] = -1;
			}
		}
		if (!r->exited && (r->pidfd < 0 || (p[1].revents & POLLIN)))
			command_reap(r, false);
	}
	command_reap(r, true);
	/* what runs on untraced from here */
	r->nleft = descendants_left(r);
	if (r->nleft > 0) {
		char pids[128] = "";
		int shown = r->nleft < 8 ? r->nleft : 8;

		for (int i = 0; i < shown; i++) {
			size_t k = strlen(pids);

			snprintf(pids + k, sizeof(pids) - k, "%s%d", i ? ", " : "",
				 (int)r->left[i]);
		}
		st_warn(r->o->log, "'%s' ended while %d of its processes still "
			"run (pid %s%s): they run on untraced%s", r->o->argv[0],
			r->nleft, pids, r->nleft > shown ? ", ..." : "",
			r->o->follow_children ? "" : " (--follow-children "
			"records until the last one ends)");
	}
}

/* Open DIR/NAME for appending, or -1 with ERR (73). */
static int open_in_dir(const char *dir, const char *name, st_error *err)
{
	char *p = st_path_join(dir, name);
	int fd = p ? open(p, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666)
		   : -1;

	if (fd < 0)
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     p ? p : name, strerror(errno));
	free(p);
	return fd;
}

/* COMMAND as given: found (127) and executable (126)?  Asked before any
 * tracer starts, so that a COMMAND that cannot run starts none. */
static int check_command(const st_record_opts *o, st_error *err)
{
	const char *cmd = o->argv[0];
	char *p = find_in_path(cmd);
	struct stat st;

	if (p) {
		free(p);
		return 0;
	}
	if (!strchr(cmd, '/'))
		return st_error_set(err, 127, "cannot run '%s': not found in "
				    "PATH", cmd);
	if (stat(cmd, &st) != 0)
		return st_error_set(err, errno == ENOENT ? 127 : 126,
				    "cannot run '%s': %s", cmd,
				    strerror(errno));
	return st_error_set(err, 126, "cannot run '%s': %s", cmd,
			    S_ISDIR(st.st_mode) ? "it is a directory" :
			    S_ISREG(st.st_mode) ? strerror(EACCES) :
			    "not a regular file");
}

/* What must hold before COMMAND starts: the tracers can run here (69: not
 * root, no bpftrace), the scripts are found (66), COMMAND runs (127, 126)
 * and the directory is made (73); then R's host, kernel and zone, and the
 * first manifest.  0, or -1 with ERR set. */
static int rec_prepare(struct rec *r, st_error *err)
{
	const st_record_opts *o = r->o;
	struct utsname u;

	if (check_tracers(r, err) < 0)
		return -1;
	if ((r->t[ST_REC_IO].wanted || r->t[ST_REC_PROC].wanted) &&
	    !(r->scripts = o->script_dir ? strdup(o->script_dir)
					: st_record_script_dir(o->exe, err))) {
		if (o->script_dir)
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return -1;
	}
	if (check_command(o, err) < 0 || make_dir(o->dir, err) < 0)
		return -1;
	if (uname(&u) == 0) {
		snprintf(r->host, sizeof(r->host), "%s", u.nodename);
		snprintf(r->kernel, sizeof(r->kernel), "%s", u.release);
	}
	local_zone(r->tz, sizeof(r->tz));
	if (r->tracefs_mounted)
		st_warn(o->log, "mounted tracefs on /sys/kernel/tracing");
	if (r->t[ST_REC_GPU].wanted && !r->smi)
		st_warn(o->log, "no nvidia-smi in PATH: no GPU trace (gpu.out)");
	return write_manifest(r, false, err);
}

/* Start mpstat and nvidia-smi pmon, those wanted and found, unless a
 * signal came. */
static void start_samplers(struct rec *r)
{
	const st_record_opts *o = r->o;

	if (!r->signal && r->t[ST_REC_CPU].wanted) {
		char iv[16], *argv[] = { r->mpstat, iv, NULL };

		snprintf(iv, sizeof(iv), "%d", o->interval_s);
		start_sampler(r, ST_REC_CPU, &r->cpu, argv, "cpu.out");
	}
	if (!r->signal && r->smi) {
		char iv[16], *argv[] = { r->smi, "pmon", "-s", "um", "-o", "DT",
					 "-d", iv, NULL };

		snprintf(iv, sizeof(iv), "%d", o->interval_s);
		start_sampler(r, ST_REC_GPU, &r->gpu, argv, "gpu.out");
	}
}

/* The tracers run: release COMMAND (forked and waiting, started at T0),
 * tell whether its exec failed, and run it to its end with signals on
 * SIGFD and its output to LOGS, between two clock pairs.  0, or -1 with
 * ERR set when the manifest cannot be written. */
static int rec_release(struct rec *r, int64_t t0, int sigfd,
		       int logs[2], st_error *err)
{
	int got, exec_errno = 0;

	st_record_clock_pair(CLOCK_TRIES, &r->clock[0]);
	r->nclock = 1;
	if (write_manifest(r, false, err) < 0)
		return -1;
	r->released = true;
	kill(r->pid, SIGUSR1);
	/* the exec report: EOF when the exec happened */
	while ((got = (int)read(r->execfd, &exec_errno,
				sizeof(exec_errno))) < 0 && errno == EINTR)
		;
	r->startup_ns = mono_now() - t0;
	if (got == (int)sizeof(exec_errno))
		st_warn(r->o->log, "cannot run '%s': %s", r->o->argv[0],
			strerror(exec_errno));
	run_command(r, sigfd, logs);
	st_record_clock_pair(CLOCK_TRIES, &r->clock[1]);
	r->nclock = 2;
	return 0;
}

/* bpftrace's one output split into the trace files; removed when the
 * probes were never attached (nothing to keep).  0, or -1 with ERR set. */
static int rec_split(struct rec *r, st_error *err)
{
	if (r->t[ST_REC_IO].ran || r->t[ST_REC_PROC].ran)
		return split_raw(r, err);
	if (r->t[ST_REC_IO].wanted || r->t[ST_REC_PROC].wanted) {
		char *raw = st_path_join(r->o->dir, ST_RECORD_RAW);

		if (raw)
			unlink(raw);
		free(raw);
	}
	return 0;
}

/* Close what R holds open (LOGS: COMMAND's output) and free what it
 * owns. */
static void rec_close(struct rec *r, int logs[2])
{
	for (int i = 0; i < 2; i++)
		if (logs[i] >= 0)
			close(logs[i]);
	if (r->logfd >= 0)
		close(r->logfd);
	if (r->pidfd >= 0)
		close(r->pidfd);
	if (r->execfd >= 0)
		close(r->execfd);
	if (r->out >= 0)
		close(r->out);
	if (r->err >= 0)
		close(r->err);
	free(r->scripts);
	free(r->bpftrace);
	free(r->mpstat);
	free(r->smi);
}

int st_trace_record_run(const st_record_opts *o, st_record_result *res,
			st_error *err)
{
	int64_t t0 = mono_now();
	struct rec r = { .o = o, .logfd = -1, .pid = -1, .pidfd = -1,
			 .out = -1, .err = -1, .execfd = -1, .subreaper = -1,
			 .nleft = -1 };
	struct sigsave ss;
	int logs[2] = { -1, -1 }, rc = -1, got;
	bool have_signals = false;
	st_error e2;

	memset(res, 0, sizeof(*res));
	r.bt.pid = r.cpu.pid = r.gpu.pid = -1;
	r.bt.in = r.bt.out = r.bt.err = -1;
	r.cpu = r.bt;
	r.gpu = r.bt;
	if (rec_prepare(&r, err) < 0)
		goto out;
	if ((r.logfd = open_in_dir(o->dir, TRACERS_ERR, err)) < 0 ||
	    (logs[0] = open_in_dir(o->dir, "command.stdout.log", err)) < 0 ||
	    (logs[1] = open_in_dir(o->dir, "command.stderr.log", err)) < 0)
		goto out;
	if (signals_take(&ss, err) < 0)
		goto out;
	have_signals = true;
	/* COMMAND's processes whose parent ends become ours, not init's: we
	 * can tell which still run when it ends, and follow them */
	if (prctl(PR_GET_CHILD_SUBREAPER, &r.subreaper) != 0 ||
	    prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
		r.subreaper = -1;
	if (fork_command(&r, err) < 0)
		goto out;
	if (r.t[ST_REC_IO].wanted || r.t[ST_REC_PROC].wanted) {
		got = start_bpftrace(&r, ss.fds[0], err);
		if (got < 0)
			goto out;
		if (got > 0)
			signals_handle(&r, ss.fds[0]);
	}
	start_samplers(&r);
	if (!r.signal) {
		if (rec_release(&r, t0, ss.fds[0], logs, err) < 0)
			goto out;
	} else {
		kill(r.pid, SIGKILL);
		command_reap(&r, true);
		r.exited = false;
	}
	stop_tracers(&r);
	rc = rec_split(&r, err);
	if (write_manifest(&r, true, rc < 0 ? &e2 : err) < 0 && rc == 0)
		rc = -1;
	res->status = r.exited ? r.status : 128 + r.signal;
	res->signal = r.signal;
	res->startup_ns = r.startup_ns;
	res->lost_events = r.lost;
	res->bad_lines = r.bad;
	res->left_running = r.nleft;
out:
	if (rc < 0) {
		if (r.pid > 0 && !r.exited) {
			kill(r.pid, SIGKILL);
			command_reap(&r, true);
		}
		stop_tracers(&r);
	}
	if (r.subreaper >= 0)
		prctl(PR_SET_CHILD_SUBREAPER, r.subreaper);
	if (have_signals)
		signals_give(&ss);
	rec_close(&r, logs);
	return rc;
}

/* ---- where the scripts are --------------------------------------------- */

char *st_record_script_dir(const char *exe, st_error *err)
{
	char *dir = st_install_dir_for(exe, NULL, ST_INSTALL_SCRIPTS);
	char *io = dir ? st_path_join(dir, "io.bt") : NULL;

	if (!io) {
		free(dir);
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	if (access(io, R_OK) < 0) {
		st_error_set(err, ST_EXIT_NOINPUT, "the bpftrace scripts are "
			     "not where this streamtime looks: %s: %s (is it "
			     "installed? meson install)", io, strerror(errno));
		free(dir);
		dir = NULL;
	}
	free(io);
	return dir;
}
