/* collect.c - lock, read what is there, add what is new (SPEC 5.1, 5.2). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/atomic.h"
#include "streamtime/collect.h"
#include "streamtime/csv.h"
#include "streamtime/num.h"

char *st_collect_receivers_header(int receivers, bool data)
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	fputs("scan_number", f);
	for (int r = 0; r < receivers; r++)
		fprintf(f, ",time%d", r);
	if (data)
		fputs(",time_last_written", f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* OUT with symlinks resolved, in a new string: an existing file's real
 * path, else its real directory plus its name.  Every way of naming the
 * file then gets the same lock, and the rename replaces the file, not a
 * symlink to it. */
static char *resolve_out(const char *out)
{
	char *r = realpath(out, NULL), *copy, *dir;

	if (r)
		return r;
	copy = strdup(out);
	if (!copy)
		return NULL;
	dir = realpath(dirname(copy), NULL);
	free(copy);
	if (!dir)
		return strdup(out);
	copy = strdup(out);
	r = copy ? st_path_join(dir, basename(copy)) : NULL;
	free(copy);
	free(dir);
	return r;
}

/* "OUT.lock" in a new string. */
static char *lock_path(const char *out)
{
	size_t n = strlen(out);
	char *p = malloc(n + 6);

	if (p) {
		memcpy(p, out, n);
		memcpy(p + n, ".lock", 6);
	}
	return p;
}

/* Make OUT's directory when it is missing and its parent exists: a state
 * directory that cron's first run finds absent.  Deeper gaps (a mistyped
 * path) are not filled in: error 73 names the directory to create. */
static int out_dir(const char *out, st_collect_summary *sum, st_error *err)
{
	char *copy = strdup(out), *dir;
	struct stat st;
	int rc = 0;

	if (!copy)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory",
				    out);
	dir = dirname(copy);
	if (stat(dir, &st) != 0 && errno == ENOENT) {
		if (mkdir(dir, 0777) == 0)
			sum->made_dir = true;
		else if (errno != EEXIST)
			rc = st_error_set(err, ST_EXIT_CANTCREAT, "cannot create "
					  "%s: its directory %s is missing and "
					  "cannot be made (%s); create it once, "
					  "e.g. as root: install -d -o USER %s",
					  out, dir, strerror(errno), dir);
	}
	free(copy);
	return rc;
}

/* "OUT.skipped" in a new string. */
static char *skipped_path(const char *out)
{
	char *p = NULL;

	return asprintf(&p, "%s.skipped", out) < 0 ? NULL : p;
}

/* Count the lines of OUT.skipped into SUM (the first one's time into
 * skipped_since); 0 and nothing when there is no such file.  TAKE: then
 * remove it. */
static void skipped_read(const char *out, bool take, st_collect_summary *sum)
{
	char *p = skipped_path(out), line[128];
	FILE *f = p ? fopen(p, "re") : NULL;

	sum->skipped = 0;
	sum->skipped_since = 0;
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			st_instant t;
			char *sp = strchr(line, ' ');

			if (!strchr(line, '\n'))
				continue;       /* torn, or a long line's rest */
			if (sp)
				*sp = '\0';
			if (sum->skipped++ == 0 &&
			    st_time_parse(line, NULL, &t, NULL, NULL) == 0)
				sum->skipped_since = t;
		}
		fclose(f);
		if (take)
			unlink(p);
	}
	free(p);
}

/* The lock of OUT is held (ERR says so): note this run in OUT.skipped and
 * count the runs there.  Failing to note it only loses the count. */
static void skipped_note(const char *out, st_instant now,
			 st_collect_summary *sum)
{
	char *p = skipped_path(out), stamp[48], line[96];
	int fd = p ? open(p, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0666) : -1;

	if (fd >= 0) {
		int n;

		st_time_format_utc(now - now % ST_NS_PER_SEC, stamp,
				   sizeof(stamp));
		n = snprintf(line, sizeof(line), "%s pid %ld\n", stamp,
			     (long)getpid());
		if (write(fd, line, (size_t)n) != n)
			(void)0;        /* the count is best effort */
		close(fd);
	}
	free(p);
	skipped_read(out, false, sum);
}

static int lock_out(const char *out, bool wait, st_error *err)
{
	char *lp = lock_path(out);
	int fd;

	if (!lp)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", out);
	fd = st_atomic_lock(lp, wait, err);
	free(lp);
	return fd;
}

/* The scans OUT already holds (DATA, LEN bytes of whole lines after its
 * header), sorted, in *SCANS. */
static int known_scans(const char *out, const char *data, size_t len,
		       int64_t **scans, size_t *n, st_error *err)
{
	st_table t;
	int rc = -1;

	*scans = NULL;
	*n = 0;
	st_table_init(&t);
	if (st_table_parse(&t, out, data, len, err) < 0)
		goto out;
	if (t.nrows) {
		*scans = malloc(t.nrows * sizeof(**scans));
		if (!*scans) {
			st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", out);
			goto out;
		}
	}
	for (size_t i = 0; i < t.nrows; i++)
		if (st_table_get_int(&t, i, 0, &(*scans)[i], err) < 0)
			goto out;
	*n = t.nrows;
	if (*n)
		qsort(*scans, *n, sizeof(**scans), st_cmp_i64);
	rc = 0;
out:
	if (rc < 0) {
		free(*scans);
		*scans = NULL;
	}
	st_table_release(&t);
	return rc;
}

/* Is LINE (LEN bytes, no newline) a whole receivers row of *(size_t *)CTX
 * fields?  Only then may a last line without newline be kept.  Any proper
 * prefix of a row we wrote fails: it has fewer fields, or its last field is
 * cut short of the "+00:00" every time we write ends with. */
static bool whole_row(const char *line, size_t len, void *ctx)
{
	size_t want = *(const size_t *)ctx, nf = 0;
	const char *p = line, *end = line + len;

	while (p <= end) {
		const char *q = memchr(p, ',', (size_t)(end - p));
		size_t n;
		char field[64];
		st_instant t;

		if (!q)
			q = end;
		n = (size_t)(q - p);
		if (n == 0 || n >= sizeof(field))
			return false;
		memcpy(field, p, n);
		field[n] = '\0';
		if (nf == 0) {
			if (strspn(field, "0123456789") != n)
				return false;
		} else if (n < 6 || strcmp(field + n - 6, "+00:00") != 0 ||
			   st_time_parse(field, NULL, &t, NULL, NULL) < 0) {
			return false;
		}
		nf++;
		p = q + 1;
	}
	return nf == want;
}

/* The rows of RES as CSV text (after HEADER when it is not NULL), in a new
 * buffer. */
static char *format_rows(const st_receivers_result *res, const char *header,
			 const st_receivers_opts *o, size_t *len)
{
	size_t stride = (size_t)o->receivers + 1;
	char *s = NULL, tb[48];
	FILE *f = open_memstream(&s, len);

	if (!f)
		return NULL;
	if (header)
		fprintf(f, "%s\n", header);
	for (size_t i = 0; i < res->nrows; i++) {
		const st_instant *row = res->times + i * stride;

		fprintf(f, "%lld", (long long)res->scans[i]);
		for (int r = 0; r < o->receivers; r++) {
			st_time_format_utc(row[r], tb, sizeof(tb));
			fprintf(f, ",%s", tb);
		}
		if (o->data) {
			st_time_format_utc(row[o->receivers], tb, sizeof(tb));
			fprintf(f, ",%s", tb);
		}
		fputc('\n', f);
	}
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

int st_collect_receivers(const char *dir, const char *out, bool wait,
			 const st_receivers_opts *o, st_collect_summary *sum,
			 st_log *log, st_error *err)
{
	st_atomic_append ap = { .fd = -1 };
	st_receivers_opts opts = *o;
	st_receivers_result res = { 0 };
	char *header = NULL, *text = NULL;
	int64_t *known = NULL;
	size_t nknown = 0, len = 0;
	bool to_stdout = strcmp(out, "-") == 0;
	int rc = -1;

	memset(sum, 0, sizeof(*sum));
	header = st_collect_receivers_header(o->receivers, o->data);
	if (!header)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (!to_stdout) {
		size_t ncols = (size_t)o->receivers + 1 + (o->data ? 1 : 0), whole;
		DIR *d = opendir(dir);

		/* a missing DIR must not leave a new empty output behind */
		if (!d) {
			st_error_set(err, ST_EXIT_NOINPUT, "cannot open directory "
				     "%s: %s", dir, strerror(errno));
			goto out;
		}
		closedir(d);
		if (out_dir(out, sum, err) < 0)
			goto out;
		if (st_atomic_append_open(&ap, out, wait, err) < 0) {
			if (err && err->code == ST_EXIT_TEMPFAIL)
				skipped_note(out, o->now, sum);
			goto out;
		}
		skipped_read(out, true, sum);
		if (st_atomic_append_check_header(&ap, header, "a receivers "
						  "file of this --receivers/--no-data "
						  "shape", err) < 0)
			goto out;
		/* every row is judged before the file is touched (a refused
		 * file is left as it was): the whole lines, and a last line
		 * that only lacks its newline, which the repair will keep */
		whole = ap.len - ap.tail;
		if (ap.tail && whole_row(ap.data + whole, ap.tail, &ncols))
			whole = ap.len;
		if (whole && known_scans(out, ap.data, whole, &known, &nknown,
					 err) < 0)
			goto out;
		if (st_atomic_append_repair(&ap, whole_row, &ncols, err) < 0)
			goto out;
		sum->dropped = ap.dropped;
		sum->completed = ap.completed;
		sum->known = nknown;
		opts.skip = known;
		opts.nskip = nknown;
	}
	if (st_receivers_collect(dir, &opts, &res, log, err) < 0)
		goto out;
	sum->written = res.nrows;
	sum->pending = res.pending;
	sum->bad = res.bad;
	if (res.nrows || to_stdout || ap.len == 0) {
		text = format_rows(&res, (to_stdout || ap.len == 0) ? header : NULL,
				   o, &len);
		if (!text) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		if (to_stdout) {
			if (fwrite(text, 1, len, stdout) != len) {
				st_error_set(err, ST_EXIT_IOERR, "cannot write to "
					     "standard output: %s", strerror(errno));
				goto out;
			}
		} else if (st_atomic_append_write(&ap, text, len, err) < 0) {
			goto out;
		}
	}
	rc = 0;
out:
	if (rc < 0)
		sum->written = 0;
	free(text);
	free(header);
	free(known);
	st_receivers_result_release(&res);
	st_atomic_append_close(&ap);
	return rc;
}

/* A row of an h5 times file. */
struct h5_row {
	st_h5_key key;
	const char *id;         /* borrowed */
	const char *datetime;   /* borrowed */
};

static int h5_row_cmp(const void *a, const void *b)
{
	return st_h5_key_cmp(&((const struct h5_row *)a)->key,
			     &((const struct h5_row *)b)->key);
}

/* Is S in the naive form "YYYY-MM-DD HH:MM:SS..." (no offset)? */
static bool naive_form(const char *s)
{
	return strlen(s) >= 19 && s[10] == ' ' && !strchr(s + 10, '+') &&
	       !strchr(s + 10, 'Z');
}

/* Does S carry a UTC offset ("...Z", "...+HH:MM", "...-HH:MM") after its
 * date, as every time of the UTC form does? */
static bool has_offset(const char *s)
{
	return strlen(s) >= 19 && strpbrk(s + 10, "+-Z") != NULL;
}

/* A key and the row it came from, to name both rows of a duplicate. */
struct h5_seen {
	st_h5_key key;
	size_t row;
};

static int h5_seen_cmp(const void *a, const void *b)
{
	const struct h5_seen *x = a, *y = b;
	int c = st_h5_key_cmp(&x->key, &y->key);

	return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* Check that every row of T (an existing `collect h5` output, columns IDX)
 * is one we could have written: a header of exactly our three columns, a
 * distiller_id and scan_number of digits only, a datetime in this run's
 * form (UTC ISO 8601, or naive with --naive), each key once.  The rows are
 * carried into the new file as they are, so anything else is error 65
 * naming file and line before the file is touched.  KNOWN (T->nrows) gets
 * the keys, sorted. */
static int check_h5_rows(const st_table *t, const int idx[3],
			 const st_collect_h5_opts *o, st_h5_key *known,
			 st_error *err)
{
	struct h5_seen *seen = NULL;
	int rc = -1;

	if (t->ncols != 3)
		return st_error_set(err, ST_EXIT_DATAERR, "%s:1: %zu columns; a "
				    "collect h5 file has exactly distiller_id,"
				    "scan_number,datetime (nothing was changed)",
				    t->name, t->ncols);
	for (size_t i = 0; i < t->nrows; i++) {
		const char *dt = st_table_get(t, i, idx[2]);
		st_instant when;

		for (int c = 0; c < 2; c++) {
			const char *v = st_table_get(t, i, idx[c]);
			size_t n = strlen(v);

			if (n == 0 || n > 18 || strspn(v, "0123456789") != n) {
				char what[160];

				snprintf(what, sizeof(what), "'%.100s' is not a "
					 "number of digits", v);
				return st_table_cell_error(t, i, idx[c], what, err);
			}
		}
		st_num_parse_int(st_table_get(t, i, idx[0]), &known[i].id_num);
		st_num_parse_int(st_table_get(t, i, idx[1]), &known[i].scan);
		if (st_table_get_time(t, i, idx[2], o->naive ? o->tz : NULL,
				      &when, err) < 0)
			return -1;
		if (o->naive ? !naive_form(dt) : !has_offset(dt))
			return st_table_cell_error(t, i, idx[2], o->naive ?
						   "this file holds UTC times; drop --naive "
						   "or use another file" :
						   "this file holds naive local times; "
						   "pass --tz ZONE --naive as before or use "
						   "another file", err);
	}
	if (t->nrows == 0)
		return 0;
	seen = malloc(t->nrows * sizeof(*seen));
	if (!seen)
		return st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", t->name);
	for (size_t i = 0; i < t->nrows; i++) {
		seen[i].key = known[i];
		seen[i].row = i;
	}
	qsort(seen, t->nrows, sizeof(*seen), h5_seen_cmp);
	for (size_t i = 0; i < t->nrows; i++) {
		if (i && st_h5_key_cmp(&seen[i - 1].key, &seen[i].key) == 0) {
			st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: distiller_id %s "
				     "scan %lld is already on line %zu (nothing was "
				     "changed)", t->name, t->lines[seen[i].row],
				     st_table_get(t, seen[i].row, idx[0]),
				     (long long)seen[i].key.scan,
				     t->lines[seen[i - 1].row]);
			goto out;
		}
		known[i] = seen[i].key;
	}
	rc = 0;
out:
	free(seen);
	return rc;
}

/* ROWS[0..N) under the header COLS as OUT, in one atomic replace.  0, or
 * -1 with ERR set: 74. */
static int h5_write(const char *out, const char *const cols[3],
		    const struct h5_row *rows, size_t n, st_error *err)
{
	st_atomic_file af;
	char scan[24];

	if (st_atomic_open(&af, out, err) < 0)
		return -1;
	if (st_csv_write_row(af.fp, 3, cols) < 0)
		goto write_failed;
	for (size_t i = 0; i < n; i++) {
		const char *f[3] = { rows[i].id, scan, rows[i].datetime };

		snprintf(scan, sizeof(scan), "%lld", (long long)rows[i].key.scan);
		if (st_csv_write_row(af.fp, 3, f) < 0)
			goto write_failed;
	}
	return st_atomic_commit(&af, err) < 0 ? -1 : 0;
write_failed:
	st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s", out,
		     strerror(errno));
	st_atomic_abort(&af);
	return -1;
}

int st_collect_h5(const char *const *dirs, size_t ndirs, const char *out_arg,
		  const st_collect_h5_opts *o, st_collect_summary *sum,
		  st_log *log, st_error *err)
{
	static const char *const cols[] = { "distiller_id", "scan_number",
					    "datetime" };
	st_collect_h5_opts opts = *o;
	st_table t;
	st_h5_result res = { 0 };
	st_h5_key *known = NULL;
	struct h5_row *rows = NULL;
	char (*stamps)[48] = NULL;
	bool to_stdout = strcmp(out_arg, "-") == 0, exists = false;
	char *out = to_stdout ? strdup(out_arg) : resolve_out(out_arg);
	int idx[3], lock = -1, rc = -1;
	size_t nrows = 0;
	struct stat st;

	memset(sum, 0, sizeof(*sum));
	st_table_init(&t);
	if (!out)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	if (!to_stdout) {
		if (out_dir(out, sum, err) < 0)
			goto out;
		lock = lock_out(out, o->wait, err);
		if (lock < 0) {
			if (err && err->code == ST_EXIT_TEMPFAIL)
				skipped_note(out, o->h5.now, sum);
			goto out;
		}
		skipped_read(out, true, sum);
		/* an empty file (a crash before its first write) counts as new */
		exists = stat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
	}
	if (exists) {
		if (st_table_read(&t, out, err) < 0 ||
		    st_table_require(&t, cols, idx, 3, err) < 0)
			goto out;
		if (t.nrows) {
			known = malloc(t.nrows * sizeof(*known));
			if (!known)
				goto oom;
		}
		if (check_h5_rows(&t, idx, o, known, err) < 0)
			goto out;
		sum->known = t.nrows;
		opts.h5.skip = known;
		opts.h5.nskip = t.nrows;
	}
	if (st_h5_collect(dirs, ndirs, &opts.h5, &res, log, err) < 0)
		goto out;
	sum->written = res.n;
	sum->pending = res.pending;
	sum->bad = res.bad;
	sum->unknown = res.unknown;
	if (exists && res.n == 0) {
		rc = 0;         /* nothing new: leave the file alone */
		goto out;
	}
	rows = malloc((t.nrows + res.n + 1) * sizeof(*rows));
	stamps = malloc((res.n + 1) * sizeof(*stamps));
	if (!rows || !stamps)
		goto oom;
	for (size_t i = 0; i < t.nrows; i++) {
		st_num_parse_int(st_table_get(&t, i, idx[0]), &rows[nrows].key.id_num);
		st_num_parse_int(st_table_get(&t, i, idx[1]), &rows[nrows].key.scan);
		rows[nrows].id = st_table_get(&t, i, idx[0]);
		rows[nrows].datetime = st_table_get(&t, i, idx[2]);
		nrows++;
	}
	for (size_t i = 0; i < res.n; i++) {
		if (o->naive)
			st_time_format_naive(res.files[i].mtime, o->tz, stamps[i],
					     sizeof(stamps[i]));
		else
			st_time_format_utc(res.files[i].mtime, stamps[i],
					   sizeof(stamps[i]));
		rows[nrows].key = res.files[i].key;
		rows[nrows].id = res.files[i].id;
		rows[nrows].datetime = stamps[i];
		nrows++;
	}
	qsort(rows, nrows, sizeof(*rows), h5_row_cmp);
	rc = h5_write(out, cols, rows, nrows, err);
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", out);
out:
	if (rc < 0)
		sum->written = 0;
	free(rows);
	free(stamps);
	free(known);
	st_h5_result_release(&res);
	st_table_release(&t);
	st_atomic_unlock(lock);
	free(out);
	return rc;
}
