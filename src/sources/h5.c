/* h5.c - counted HDF5 file names and their mtimes. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "streamtime/file.h"
#include "streamtime/h5.h"

/* Exactly N digits at *P. */
static bool fixed_digits(const char **p, int n)
{
	for (int i = 0; i < n; i++)
		if ((*p)[i] < '0' || (*p)[i] > '9')
			return false;
	*p += n;
	return true;
}

/* 1..MAXDIG digits at *P, value in *V. */
static bool number(const char **p, int maxdig, int64_t *v)
{
	const char *s = *p;

	*v = 0;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (s - *p == maxdig)
			return false;
		*v = *v * 10 + (*s - '0');
	}
	if (s == *p)
		return false;
	*p = s;
	return true;
}

bool st_h5_parse_name(const char *name, st_h5_name *out)
{
	const char *p = name, *id;
	size_t len;

	if (strncmp(p, "FOURD_", 6) != 0)
		return false;
	p += 6;
	if (!fixed_digits(&p, 6) || *p++ != '_' || !fixed_digits(&p, 4) ||
	    *p++ != '_')
		return false;
	id = p;
	if (!number(&p, ST_H5_ID_MAX - 1, &out->id_num) || *p++ != '_')
		return false;
	memcpy(out->id, id, (size_t)(p - 1 - id));
	out->id[p - 1 - id] = '\0';
	if (!number(&p, 15, &out->scan))
		return false;
	len = strlen(p);
	if (len < 3 || strcmp(p + len - 3, ".h5") != 0)
		return false;
	if (len > 3 && (*p != '_' || len == 4))
		return false;   /* a suffix is "_something" */
	out->suffix = p;
	return true;
}

int st_h5_key_cmp(const void *a, const void *b)
{
	const st_h5_key *x = a, *y = b;

	if (x->id_num != y->id_num)
		return x->id_num < y->id_num ? -1 : 1;
	return (x->scan > y->scan) - (x->scan < y->scan);
}

static int file_cmp(const void *a, const void *b)
{
	const st_h5_file *x = a, *y = b;
	int c = st_h5_key_cmp(&x->key, &y->key);

	if (c)
		return c;
	if (x->mtime != y->mtime)
		return x->mtime < y->mtime ? -1 : 1;
	return strcmp(x->id, y->id);    /* the same on every run */
}

/* Add the files of DIR to RES (CAP its capacity). */
static int collect_dir(const char *dir, const st_h5_opts *o, st_h5_result *res,
		       size_t *cap, st_log *log, st_error *err)
{
	struct dirent *de;
	DIR *d;

	d = opendir(dir);
	if (!d)
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot open directory %s: %s",
				    dir, strerror(errno));
	for (;;) {
		st_h5_name nm;
		st_h5_file f;
		struct stat st;
		int more = st_dir_read(d, dir, &de, err);

		if (more < 0)
			goto fail;
		if (!more)
			break;
		if (de->d_name[0] != 'F' || !st_h5_parse_name(de->d_name, &nm))
			continue;
		if (nm.id_num == 0) {
			res->unknown++;
			continue;
		}
		if (o->has_range && (nm.scan < o->first || nm.scan > o->last))
			continue;
		f.key.id_num = nm.id_num;
		f.key.scan = nm.scan;
		if (o->nskip && bsearch(&f.key, o->skip, o->nskip, sizeof(*o->skip),
					st_h5_key_cmp))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, 0) != 0) {
			if (errno == ENOENT)
				continue;
			st_warn(log, "cannot stat %s/%s: %s; retried next run", dir,
				de->d_name, strerror(errno));
			res->bad++;
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;       /* a directory named like a file */
		if (st_instant_from_timespec(st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
					     &f.mtime) < 0) {
			st_warn(log, "%s/%s: mtime %lld s since 1970 is outside the "
				"years 1678..2261; left out", dir, de->d_name,
				(long long)st.st_mtim.tv_sec);
			res->bad++;
			continue;
		}
		if (f.mtime > o->now - o->settle) {
			st_warn(o->notes, "%s: changed %.1f s ago, waiting", de->d_name,
				(double)(o->now - f.mtime) / 1e9);
			res->pending++;
			continue;
		}
		memcpy(f.id, nm.id, sizeof(f.id));
		if (res->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 256;
			st_h5_file *nf = realloc(res->files, nc * sizeof(*nf));

			if (!nf) {
				st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", dir);
				goto fail;
			}
			res->files = nf;
			*cap = nc;
		}
		res->files[res->n++] = f;
	}
	closedir(d);
	return 0;
fail:
	closedir(d);
	return -1;
}

int st_h5_collect(const char *const *dirs, size_t ndirs, const st_h5_opts *o,
		  st_h5_result *res, st_log *log, st_error *err)
{
	size_t cap = 0, k = 0;

	memset(res, 0, sizeof(*res));
	for (size_t i = 0; i < ndirs; i++) {
		if (collect_dir(dirs[i], o, res, &cap, log, err) < 0) {
			st_h5_result_release(res);
			return -1;
		}
	}
	/* one entry per key: the earliest file */
	if (res->n)
		qsort(res->files, res->n, sizeof(*res->files), file_cmp);
	for (size_t i = 0; i < res->n; i++) {
		if (k && st_h5_key_cmp(&res->files[k - 1].key, &res->files[i].key) == 0) {
			st_warn(o->notes, "distiller_id %s scan %lld: several files, "
				"the earliest is kept", res->files[i].id,
				(long long)res->files[i].key.scan);
			continue;
		}
		res->files[k++] = res->files[i];
	}
	res->n = k;
	return 0;
}

void st_h5_result_release(st_h5_result *res)
{
	if (!res)
		return;
	free(res->files);
	memset(res, 0, sizeof(*res));
}
