/* receivers.c - acquisition directories: names, status JSON, completeness. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "streamtime/file.h"
#include "streamtime/receivers.h"
#include "streamtime/search.h"

/* Plain decimal at *P: no sign, no leading zero (except "0"), at most
 * MAXDIG digits.  Advances *P. */
static bool plain_number(const char **p, int maxdig, int64_t *out)
{
	const char *s = *p;
	int64_t v = 0;
	int n = 0;

	if (*s == '0' && s[1] >= '0' && s[1] <= '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++, n++) {
		if (n == maxdig)
			return false;
		v = v * 10 + (*s - '0');
	}
	if (n == 0)
		return false;
	*p = s;
	*out = v;
	return true;
}

/* Any run of 1..MAXDIG digits at *P.  Advances *P. */
static bool digits(const char **p, int maxdig)
{
	const char *s = *p;

	while (*s >= '0' && *s <= '9' && s - *p < maxdig)
		s++;
	if (s == *p || (*s >= '0' && *s <= '9'))
		return false;
	*p = s;
	return true;
}

static bool literal(const char **p, const char *lit, size_t n)
{
	if (strncmp(*p, lit, n) != 0)
		return false;
	*p += n;
	return true;
}

#define LIT(p, s) literal(p, s, sizeof(s) - 1)

bool st_receivers_parse_status_name(const char *name, int *receiver,
				    int64_t *scan)
{
	const char *p = name;
	int64_t r, n;

	if (!LIT(&p, "4dstem_rec_status_") || !plain_number(&p, 4, &r) ||
	    !LIT(&p, "_scan_") || !plain_number(&p, 15, &n) ||
	    strcmp(p, ".json") != 0)
		return false;
	*receiver = (int)r;
	*scan = n;
	return true;
}

bool st_receivers_parse_data_name(const char *name, int64_t *scan)
{
	const char *p = name;
	int64_t n = 0;

	if (!LIT(&p, "data_scan"))
		return false;
	for (int i = 0; i < 10; i++, p++) {
		if (*p < '0' || *p > '9')
			return false;
		n = n * 10 + (*p - '0');
	}
	if (!LIT(&p, "_module") || !digits(&p, 6) || !LIT(&p, "to") ||
	    !digits(&p, 6) || !LIT(&p, "_dst") || !digits(&p, 6) ||
	    !LIT(&p, "_file") || !digits(&p, 9) || strcmp(p, ".data") != 0)
		return false;
	*scan = n;
	return true;
}

int st_receivers_parse_status(const char *buf, size_t len,
			      const struct st_tz *tz, st_instant *out,
			      st_error *err)
{
	json_error_t jerr;
	json_t *root, *t;
	int rc = -1;

	if (len == 0)
		return st_error_set(err, ST_EXIT_DATAERR, "empty file");
	root = json_loadb(buf, len, 0, &jerr);
	if (!root)
		return st_error_set(err, ST_EXIT_DATAERR,
				    "not valid JSON (line %d, column %d): %s",
				    jerr.line, jerr.column, jerr.text);
	if (!json_is_object(root)) {
		st_error_set(err, ST_EXIT_DATAERR, "not a JSON object");
		goto out;
	}
	t = json_object_get(root, "time");
	if (!t) {
		st_error_set(err, ST_EXIT_DATAERR, "no 'time' field");
		goto out;
	}
	if (!json_is_string(t)) {
		st_error_set(err, ST_EXIT_DATAERR, "'time' is not a string");
		goto out;
	}
	if (st_time_parse(json_string_value(t), tz, out, NULL, err) < 0) {
		st_error_prefix(err, "cannot parse 'time'");
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

/* One name of interest: a status file (receiver >= 0) or a data file. */
struct entry {
	int64_t scan;
	int32_t receiver;       /* -1: data file */
	uint32_t name;          /* offset into the name arena */
};

struct arena {
	char *buf;
	size_t len, cap;
};

static int arena_push(struct arena *a, const char *s, uint32_t *off)
{
	size_t n = strlen(s) + 1;

	if (a->len + n > UINT32_MAX)
		return -1;
	if (a->len + n > a->cap) {
		size_t cap = a->cap ? a->cap * 2 : 65536;
		char *nb;

		while (cap < a->len + n)
			cap *= 2;
		nb = realloc(a->buf, cap);
		if (!nb)
			return -1;
		a->buf = nb;
		a->cap = cap;
	}
	memcpy(a->buf + a->len, s, n);
	*off = (uint32_t)a->len;
	a->len += n;
	return 0;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->scan != y->scan)
		return x->scan < y->scan ? -1 : 1;
	return (x->receiver > y->receiver) - (x->receiver < y->receiver);
}

static bool in_sorted(const int64_t *v, size_t n, int64_t key)
{
	size_t i = st_i64_lower_bound(v, n, key);

	return i < n && v[i] == key;
}

/* Read file NAME of directory DFD into a new buffer (at most
 * ST_RECEIVERS_STATUS_MAX bytes).  Error text without the file name. */
static char *slurp_at(int dfd, const char *name, size_t *len, st_instant *mtime,
		      st_error *err)
{
	/* O_NONBLOCK: a FIFO named like a status file must not hang the run
	 * (and every later one, behind its lock) */
	int fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	char *buf = NULL;

	if (fd < 0) {
		st_error_set(err, ST_EXIT_NOINPUT, "cannot open: %s", strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		st_error_set(err, ST_EXIT_DATAERR, "not a regular file");
		goto out;
	}
	if (st_instant_from_timespec(st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
				     mtime) < 0) {
		st_error_set(err, ST_EXIT_DATAERR, "mtime %lld s since 1970 is "
			     "outside the years 1678..2261",
			     (long long)st.st_mtim.tv_sec);
		goto out;
	}
	if (st.st_size > ST_RECEIVERS_STATUS_MAX) {
		st_error_set(err, ST_EXIT_DATAERR, "larger than %d bytes, not a "
			     "status file", ST_RECEIVERS_STATUS_MAX);
		goto out;
	}
	/* more than fstat said: it is being written */
	if (st_file_read_fd(fd, (size_t)st.st_size, (size_t)st.st_size, &buf,
			    len) < 0) {
		if (errno == EFBIG)
			st_error_set(err, ST_EXIT_DATAERR, "changed while read");
		else if (errno == ENOMEM)
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
		else
			st_error_set(err, ST_EXIT_IOERR, "cannot read: %s",
				     strerror(errno));
	}
out:
	close(fd);
	return buf;
}

enum verdict { COMPLETE, PENDING, BAD };

/* Decide the scan whose entries are E[0..N) (sorted: data files first).
 * Every file of the scan, status files too (they may be rewritten in
 * place), must have been quiet for the settle time. */
static enum verdict judge(const char *dir, int dfd, const struct arena *names,
			  const struct entry *e, size_t n,
			  const st_receivers_opts *o, st_instant *row,
			  st_log *log)
{
	int64_t scan = e[0].scan;
	size_t ndata = 0, nstatus;
	st_instant newest = INT64_MIN, newest_data = INT64_MIN;
	char *bufs[ST_RECEIVERS_MAX] = { 0 };
	size_t lens[ST_RECEIVERS_MAX] = { 0 };
	enum verdict v = COMPLETE;

	while (ndata < n && e[ndata].receiver < 0)
		ndata++;
	nstatus = n - ndata;
	if (nstatus < (size_t)o->receivers) {
		st_warn(o->notes, "scan %lld: %zu of %d status files", (long long)scan,
			nstatus, o->receivers);
		return PENDING;
	}
	if (o->data && ndata == 0) {
		st_warn(o->notes, "scan %lld: no data files yet", (long long)scan);
		return PENDING;
	}
	for (size_t i = 0; i < ndata; i++) {
		const char *name = names->buf + e[i].name;
		struct stat st;
		st_instant m;

		if (fstatat(dfd, name, &st, 0) != 0) {
			if (errno == ENOENT) {
				st_warn(o->notes, "scan %lld: %s vanished",
					(long long)scan, name);
				return PENDING;
			}
			st_warn(log, "cannot stat %s/%s: %s; scan %lld is "
				"retried next run", dir, name, strerror(errno),
				(long long)scan);
			return BAD;
		}
		if (!S_ISREG(st.st_mode))
			continue;       /* a directory named like a data file */
		if (st_instant_from_timespec(st.st_mtim.tv_sec,
					     st.st_mtim.tv_nsec, &m) < 0) {
			st_warn(log, "%s/%s: mtime %lld s since 1970 is outside "
				"the years 1678..2261; scan %lld is retried next "
				"run", dir, name, (long long)st.st_mtim.tv_sec,
				(long long)scan);
			return BAD;
		}
		if (m > newest_data)
			newest_data = m;
	}
	if (o->data && newest_data == INT64_MIN) {
		st_warn(o->notes, "scan %lld: no data files yet", (long long)scan);
		return PENDING;
	}
	newest = newest_data;
	for (size_t i = ndata; i < n; i++) {
		const char *name = names->buf + e[i].name;
		int r = e[i].receiver;
		st_error ferr;
		st_instant m = INT64_MIN;

		bufs[r] = slurp_at(dfd, name, &lens[r], &m, &ferr);
		if (!bufs[r]) {
			st_warn(log, "%s/%s: %s; scan %lld is retried next run", dir,
				name, ferr.text, (long long)scan);
			v = BAD;
		}
		if (m > newest)
			newest = m;
	}
	if (v == COMPLETE && newest > o->now - o->settle) {
		st_warn(o->notes, "scan %lld: changed %.1f s ago, waiting for %.0f s "
			"of quiet", (long long)scan, (double)(o->now - newest) / 1e9,
			(double)o->settle / 1e9);
		v = PENDING;
	}
	for (size_t i = ndata; v == COMPLETE && i < n; i++) {
		int r = e[i].receiver;
		st_error ferr;

		if (st_receivers_parse_status(bufs[r], lens[r], o->tz, &row[r],
					      &ferr) < 0) {
			st_warn(log, "%s/%s: %s; scan %lld is retried next run", dir,
				names->buf + e[i].name, ferr.text, (long long)scan);
			v = BAD;
			/* go on: name every bad file of the scan at once */
			for (size_t j = i + 1; j < n; j++) {
				int rj = e[j].receiver;

				if (st_receivers_parse_status(bufs[rj], lens[rj], o->tz,
							      &row[rj], &ferr) < 0)
					st_warn(log, "%s/%s: %s; scan %lld is retried "
						"next run", dir, names->buf + e[j].name,
						ferr.text, (long long)scan);
			}
		}
	}
	if (o->data)
		row[o->receivers] = newest_data;
	for (int r = 0; r < ST_RECEIVERS_MAX; r++)
		free(bufs[r]);
	return v;
}

int st_receivers_collect(const char *dir, const st_receivers_opts *o,
			 st_receivers_result *res, st_log *log, st_error *err)
{
	struct entry *ents = NULL;
	struct arena names = { 0 };
	size_t nents = 0, capents = 0, caprows = 0, stride = (size_t)o->receivers + 1;
	int64_t last_skipped = INT64_MIN;
	struct dirent *de;
	int rc = -1;
	DIR *d;

	memset(res, 0, sizeof(*res));
	d = opendir(dir);
	if (!d)
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot open directory %s: %s",
				    dir, strerror(errno));
	for (;;) {
		struct entry en;
		int64_t scan;
		int r;
		int more = st_dir_read(d, dir, &de, err);

		if (more < 0)
			goto out;
		if (!more)
			break;
		if (de->d_name[0] == 'd' && o->data &&
		    st_receivers_parse_data_name(de->d_name, &scan)) {
			r = -1;
		} else if (de->d_name[0] == '4' &&
			   st_receivers_parse_status_name(de->d_name, &r, &scan)) {
			if (r >= o->receivers)
				continue;
		} else {
			continue;
		}
		if (scan < o->since)
			continue;
		if (scan == last_skipped || in_sorted(o->skip, o->nskip, scan)) {
			last_skipped = scan;
			continue;
		}
		if (nents == capents) {
			size_t cap = capents ? capents * 2 : 1024;
			struct entry *ne = realloc(ents, cap * sizeof(*ne));

			if (!ne)
				goto oom;
			ents = ne;
			capents = cap;
		}
		en.scan = scan;
		en.receiver = r;
		if (arena_push(&names, de->d_name, &en.name) < 0)
			goto oom;
		ents[nents++] = en;
	}
	if (nents)
		qsort(ents, nents, sizeof(*ents), entry_cmp);
	for (size_t i = 0; i < nents;) {
		size_t j = i;
		st_instant *row;

		while (j < nents && ents[j].scan == ents[i].scan)
			j++;
		if (res->nrows == caprows) {
			size_t cap = caprows ? caprows * 2 : 16;
			int64_t *ns = realloc(res->scans, cap * sizeof(*ns));
			st_instant *nt;

			if (!ns)
				goto oom;
			res->scans = ns;
			nt = realloc(res->times, cap * stride * sizeof(*nt));
			if (!nt)
				goto oom;
			res->times = nt;
			caprows = cap;
		}
		row = res->times + res->nrows * stride;
		row[o->receivers] = 0;
		switch (judge(dir, dirfd(d), &names, ents + i, j - i, o, row, log)) {
		case COMPLETE:
			res->scans[res->nrows++] = ents[i].scan;
			break;
		case PENDING:
			res->pending++;
			break;
		case BAD:
			res->bad++;
			break;
		}
		i = j;
	}
	rc = 0;
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", dir);
out:
	closedir(d);
	free(ents);
	free(names.buf);
	if (rc < 0)
		st_receivers_result_release(res);
	return rc;
}

void st_receivers_result_release(st_receivers_result *res)
{
	if (!res)
		return;
	free(res->scans);
	free(res->times);
	memset(res, 0, sizeof(*res));
}
