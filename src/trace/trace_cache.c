/* trace_cache.c - the result cache of trace summary and trace compare
 * (trace_cache.h): per-file and per-run partials kept in a directory,
 * keyed by the inputs' identities and the options, merged as `trace
 * merge` merges them. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nettle/sha2.h>

#include "st_config.h"
#include "streamtime/atomic.h"
#include "streamtime/file.h"
#include "streamtime/sum_partial.h"
#include "streamtime/trace_cache.h"

#include "trace_compare_int.h"
#include "zran.h"

#define MAGIC "streamtime-cache 1\n"
#define HEADTAIL 4096
#define STALE_TMP_S (15 * 60)
#define SETTLE_NS (INT64_C(2) * 1000000000)

/* ---- keys ------------------------------------------------------------- */

static void hex(const uint8_t *d, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02x", d[i]);
}

void st_trace_cache_digest(const char *text, size_t len, char out[65])
{
	struct sha256_ctx x;
	uint8_t d[SHA256_DIGEST_SIZE];

	sha256_init(&x);
	sha256_update(&x, len, (const uint8_t *)text);
	sha256_digest(&x, sizeof(d), d);
	hex(d, sizeof(d), out);
}

/* N bytes of FD from OFF into BUF: true when all of them were read. */
static bool read_at(int fd, char *buf, size_t n, off_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		got += (size_t)r;
	}
	return true;
}

int st_trace_cache_file_id(const char *path, char *buf, size_t size)
{
	struct sha256_ctx x;
	uint8_t d[SHA256_DIGEST_SIZE];
	char b[HEADTAIL], h[65];
	struct stat sb;
	size_t head;
	int fd;
	bool ok;

	if (strcmp(path, "-") == 0 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return 1;
	}
	head = (uint64_t)sb.st_size < HEADTAIL ? (size_t)sb.st_size
					       : HEADTAIL;
	sha256_init(&x);
	ok = read_at(fd, b, head, 0);
	sha256_update(&x, head, (const uint8_t *)b);
	if (ok && sb.st_size > HEADTAIL) {
		size_t tail = (uint64_t)sb.st_size - HEADTAIL < HEADTAIL ?
			      (size_t)(sb.st_size - HEADTAIL) : HEADTAIL;

		ok = read_at(fd, b, tail, sb.st_size - (off_t)tail);
		sha256_update(&x, tail, (const uint8_t *)b);
	}
	close(fd);
	if (!ok)
		return 1;
	sha256_digest(&x, sizeof(d), d);
	hex(d, sizeof(d), h);
	snprintf(buf, size, "%ju %ju %jd %jd.%09ld %jd.%09ld %s",
		 (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino,
		 (intmax_t)sb.st_size, (intmax_t)sb.st_mtim.tv_sec,
		 sb.st_mtim.tv_nsec, (intmax_t)sb.st_ctim.tv_sec,
		 sb.st_ctim.tv_nsec, h);
	return 0;
}

/* The build this code is part of, into BUF: the identity (device, inode,
 * size, mtime) of the executable or shared object that holds it, so that
 * a rebuilt or reinstalled streamtime (or Python module) never reads
 * what another build computed, even under the same version. */
static void build_id(char *buf, size_t size)
{
	static const char here;     /* an address inside that object */
	Dl_info di;
	struct stat sb;
	const char *obj = "/proc/self/exe";

	if (dladdr(&here, &di) && di.dli_fname &&
	    strstr(di.dli_fname, ".so"))
		obj = di.dli_fname;
	if (stat(obj, &sb) < 0) {
		snprintf(buf, size, "?");
		return;
	}
	snprintf(buf, size, "%ju.%ju.%jd.%jd.%09ld", (uintmax_t)sb.st_dev,
		 (uintmax_t)sb.st_ino, (intmax_t)sb.st_size,
		 (intmax_t)sb.st_mtim.tv_sec, sb.st_mtim.tv_nsec);
}

/* A key's text: "st1 KIND VERSION BUILD PARTIAL MAX_BAD\nOPTIONS\n",
 * then what the caller adds.  New, or NULL out of memory. */
static char *key_start(const char *kind, int pver, size_t max_bad,
		       const char *opts, size_t *len)
{
	char *t = NULL, build[128];
	int n;

	build_id(build, sizeof(build));
	n = asprintf(&t, "st1 %s %s %s %d %zu\n%s\n", kind, ST_VERSION, build,
		     pver, max_bad, opts);

	if (n < 0)
		return NULL;
	*len = (size_t)n;
	return t;
}

/* KEY[0..*LEN) with LINE and a newline appended (KEY freed on failure). */
static char *key_add(char *key, size_t *len, const char *line)
{
	size_t l = strlen(line);
	char *k = realloc(key, *len + l + 2);

	if (!k) {
		free(key);
		return NULL;
	}
	memcpy(k + *len, line, l);
	k[*len + l] = '\n';
	*len += l + 1;
	k[*len] = '\0';
	return k;
}

/* ---- entries ---------------------------------------------------------- */

int st_trace_cache_open(st_trace_cache *c, const char *dir,
			uint64_t max_bytes, st_error *err)
{
	memset(c, 0, sizeof(*c));
	if (st_mkdir_p(dir, err) < 0)
		return -1;
	if (!(c->dir = strdup(dir)))
		return OOM(err);
	c->max_bytes = max_bytes;
	return 0;
}

void st_trace_cache_release(st_trace_cache *c)
{
	if (c) {
		free(c->dir);
		memset(c, 0, sizeof(*c));
	}
}

static char *entry_path(const st_trace_cache *c, const char *digest)
{
	char name[80];

	snprintf(name, sizeof(name), "st1-%s.entry", digest);
	return st_path_join(c->dir, name);
}

static void warn(st_trace_cache *c, const char *what, const char *path)
{
	if (!c->st.warning[0])
		snprintf(c->st.warning, sizeof(c->st.warning),
			 "cache: cannot %s %s: %s", what, path,
			 strerror(errno));
}

/* The entry DIGEST's payload into *TEXT (new; the payload at *PAY, *LEN
 * bytes).  true on a hit; a file that is not a whole entry of this key
 * is a miss (and removed: it is replaced when the run writes it). */
static bool entry_get(st_trace_cache *c, const char *digest, char **text,
		      const char **pay, size_t *len)
{
	char *path = entry_path(c, digest), *t, want[65], sum[65];
	size_t n, plen;
	int used = 0;
	const char *p, *nl;

	*text = NULL;
	if (!path)
		return false;
	if (!(t = st_file_read(path, &n, NULL))) {
		free(path);
		return false;
	}
	/* MAGIC, DIGEST "\n", LEN " " SHA256 "\n", payload */
	p = t + strlen(MAGIC);
	nl = n > strlen(MAGIC) + 65 ? memchr(p + 65, '\n', n - (size_t)(p + 65
							 - t)) : NULL;
	if (!nl || memcmp(t, MAGIC, strlen(MAGIC)) != 0 ||
	    memcmp(p, digest, 64) != 0 || p[64] != '\n' ||
	    sscanf(p + 65, "%zu %64[0-9a-f]%n", &plen, want, &used) != 2 ||
	    p + 65 + used != nl || strlen(want) != 64 ||
	    n - (size_t)(nl + 1 - t) != plen) {
		unlink(path);
		free(path);
		free(t);
		return false;
	}
	p = nl + 1;
	st_trace_cache_digest(p, plen, sum);
	if (strcmp(sum, want) != 0) {
		unlink(path);
		free(path);
		free(t);
		return false;
	}
	utimensat(AT_FDCWD, path, NULL, 0);     /* used now: LRU */
	free(path);
	*text = t;
	*pay = p;
	*len = plen;
	return true;
}

/* Is there a file for the entry DIGEST? (Read and checked later.) */
static bool entry_there(const st_trace_cache *c, const char *digest)
{
	char *path = entry_path(c, digest);
	bool there = path && access(path, F_OK) == 0;

	free(path);
	return there;
}

/* Drop the entry DIGEST (it did not merge: never trusted again). */
static void entry_drop(st_trace_cache *c, const char *digest)
{
	char *path = entry_path(c, digest);

	if (path)
		unlink(path);
	free(path);
}

/* The entry DIGEST holding PAY[0..LEN) written: a temporary in the
 * directory, renamed.  A failure is a warning, never the run's. */
static void entry_put(st_trace_cache *c, const char *digest, const char *pay,
		      size_t len)
{
	char *path = entry_path(c, digest), *tmp = NULL, sum[65];
	FILE *f;
	int fd;

	if (!path || asprintf(&tmp, "%s/.st1-%.16s.%ld.XXXXXX", c->dir, digest,
			      (long)getpid()) < 0) {
		free(path);
		return;
	}
	st_trace_cache_digest(pay, len, sum);
	if ((fd = mkstemp(tmp)) < 0 || !(f = fdopen(fd, "w"))) {
		warn(c, "write in", c->dir);
		if (fd >= 0) {
			close(fd);
			unlink(tmp);
		}
	} else {
		fchmod(fd, 0644);
		fprintf(f, "%s%s\n%zu %s\n", MAGIC, digest, len, sum);
		fwrite(pay, 1, len, f);
		if (fclose(f) != 0 || rename(tmp, path) < 0) {
			warn(c, "write", path);
			unlink(tmp);
		} else {
			c->st.written++;
		}
	}
	free(tmp);
	free(path);
}

/* An entry written as its payload is made: to a temporary in DIR, the
 * payload hashed on its way, the header (its length zero-padded to a
 * fixed width, which entry_get reads as any other) written last at the
 * start.  A summary's partial goes so, without a copy in memory. */
struct entry_w {
	int fd;
	char *tmp;                /* the temporary, until renamed */
	struct sha256_ctx x;
	size_t len;
	int err;                  /* errno of a failed write */
};

#define HEAD_LEN (sizeof(MAGIC) - 1 + 65 + 20 + 1 + 64 + 1)

static ssize_t ew_write(void *cookie, const char *buf, size_t n)
{
	struct entry_w *e = cookie;
	size_t done = 0;

	sha256_update(&e->x, n, (const uint8_t *)buf);
	while (done < n) {
		ssize_t k = write(e->fd, buf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			e->err = k < 0 ? errno : ENOSPC;
			return -1;
		}
		done += (size_t)k;
	}
	e->len += n;
	return (ssize_t)n;
}

/* A stream writing the payload of entry DIGEST of C into E (zeroed): new,
 * or NULL with E->err set. */
static FILE *entry_open(const st_trace_cache *c, const char *digest,
			struct entry_w *e)
{
	cookie_io_functions_t io = { .write = ew_write };
	FILE *f = NULL;

	e->fd = -1;
	if (asprintf(&e->tmp, "%s/.st1-%.16s.%ld.XXXXXX", c->dir, digest,
		     (long)getpid()) < 0) {
		e->tmp = NULL;
		e->err = ENOMEM;
		return NULL;
	}
	sha256_init(&e->x);
	if ((e->fd = mkstemp(e->tmp)) < 0 || fchmod(e->fd, 0644) < 0 ||
	    lseek(e->fd, (off_t)HEAD_LEN, SEEK_SET) < 0 ||
	    !(f = fopencookie(e, "w", io))) {
		e->err = errno;
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

/* F (of entry_open) closed and E's header written: true when the
 * temporary holds the whole entry DIGEST. */
static bool entry_close(struct entry_w *e, const char *digest, FILE *f)
{
	uint8_t d[SHA256_DIGEST_SIZE];
	char head[HEAD_LEN + 1], sum[65];

	if (f && fclose(f) != 0 && !e->err)
		e->err = errno ? errno : EIO;
	if (e->fd < 0 || e->err)
		return false;
	sha256_digest(&e->x, sizeof(d), d);
	hex(d, sizeof(d), sum);
	snprintf(head, sizeof(head), "%s%s\n%020zu %s\n", MAGIC, digest,
		 e->len, sum);
	if (pwrite(e->fd, head, HEAD_LEN, 0) != (ssize_t)HEAD_LEN) {
		e->err = errno ? errno : EIO;
		return false;
	}
	return true;
}

/* E's temporary renamed to entry DIGEST's place when KEEP, else removed;
 * its descriptor closed. */
static void entry_end(st_trace_cache *c, struct entry_w *e,
		      const char *digest, bool keep)
{
	char *path = keep ? entry_path(c, digest) : NULL;

	if (e->fd >= 0)
		close(e->fd);
	e->fd = -1;
	if (e->err) {
		errno = e->err;
		warn(c, "write in", c->dir);
		keep = false;
	}
	if (e->tmp && (!keep || !path || rename(e->tmp, path) < 0))
		unlink(e->tmp);
	else if (e->tmp)
		c->st.written++;
	free(path);
	free(e->tmp);
	e->tmp = NULL;
	e->err = 0;
}

struct ent {
	char *name;
	off_t size;
	struct timespec used;
};

static int cmp_used(const void *x, const void *y)
{
	const struct ent *a = x, *b = y;

	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
	if (a->used.tv_nsec != b->used.tv_nsec)
		return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* The least recently used entries removed until the rest fit the bound,
 * and temporaries older than STALE_TMP_S (a killed run's), under the
 * directory's lock; a held lock leaves it to its holder. */
static void evict(st_trace_cache *c)
{
	char *lock = st_path_join(c->dir, "st1.lock");
	struct ent *v = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *de;
	DIR *d;
	int fd = lock ? st_atomic_lock(lock, false, NULL) : -1;

	free(lock);
	if (fd < 0 || !(d = opendir(c->dir))) {
		st_atomic_unlock(fd);
		return;
	}
	while ((de = readdir(d))) {
		bool tmp = strncmp(de->d_name, ".st1-", 5) == 0;
		struct stat sb;

		if ((!tmp && (strncmp(de->d_name, "st1-", 4) != 0 ||
			      !strstr(de->d_name, ".entry"))) ||
		    fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !S_ISREG(sb.st_mode))
			continue;
		if (tmp) {
			if (time(NULL) - sb.st_mtim.tv_sec > STALE_TMP_S)
				unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
		if (n == cap) {
			struct ent *w = realloc(v, (cap = cap ? 2 * cap : 64) *
						sizeof(*v));

			if (!w)
				break;
			v = w;
		}
		if (!(v[n].name = strdup(de->d_name)))
			break;
		v[n].size = sb.st_size;
		v[n].used = sb.st_mtim;
		total += (uint64_t)sb.st_size;
		n++;
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_used);
	for (size_t i = 0; i < n && total > c->max_bytes; i++)
		if (unlinkat(dirfd(d), v[i].name, 0) == 0) {
			total -= (uint64_t)v[i].size;
			c->st.evicted++;
		}
	for (size_t i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
	st_atomic_unlock(fd);
}

/* The corrupt lines an entry keeps by number: as many as -v shows, so
 * that a run with -v and one without share their entries (the merge
 * keeps the first MAX_BAD). */
static size_t keep_bad(size_t max_bad)
{
	return max_bad > 1000 ? max_bad : 1000;
}

/* ---- the inputs ------------------------------------------------------- */

/* One input of a run: its keys, and its partial (cached or made). */
struct in {
	const char *path;
	char id[200];
	bool cacheable;           /* id known */
	bool settled;             /* changed long enough ago to be kept */
	char digest[65];          /* of its file entry */
	char *text;               /* the entry's, or the partial made */
	const char *pay;
	size_t len;
	bool hit, done;
	bool keep;                /* made, and to be written */
	int rc;
	st_error err;
	/* a summary made: merged as it is, not read back from text */
	st_sum_partial *part;
	st_trace_summary fs;
	st_trace_opts o1;
	/* the access points of a big .pfw.gz built on this read, to be
	 * written as the entry ZDIGEST */
	char *ztext;
	size_t zlen;
	char zdigest[65];
	bool split;               /* read in ranges */
	struct entry_w ew;        /* its summary entry, written already */
};

/* A file of identity ID (st_trace_cache_file_id) last changed at least
 * SETTLE_NS ago.  Timestamps are coarse (a clock tick, a second on some
 * file systems): a file written twice within one tick, its size and mtime
 * kept, would keep its ctime too.  Such a file is read but not kept
 * until its ctime is that old, when any later write must move it (the
 * "racily clean" files of git's index). */
static bool settled(const char *id)
{
	long long sec;
	long nsec;
	struct timespec now;

	if (sscanf(id, "%*s %*s %*s %*s %lld.%ld", &sec, &nsec) != 2 ||
	    clock_gettime(CLOCK_REALTIME, &now) < 0)
		return false;
	return (now.tv_sec - sec) * INT64_C(1000000000) + (now.tv_nsec - nsec)
	       >= SETTLE_NS;
}

/* The identities of IN[0..N) and their file keys' digests (KIND, PVER,
 * MAX_BAD, OPTS: key_start's); with KEY (the run's key so far, taken,
 * KLEN bytes) and every input cacheable, the digest of the run's key
 * into RUN, else RUN "". */
static void ids(st_trace_cache *c, struct in *in, size_t n, char *key,
		size_t klen, const char *kind, int pver, size_t max_bad,
		const char *opts, char run[65])
{
	bool all = key != NULL;
	size_t pl = 0;
	char *prefix = key_start(kind, pver, max_bad, opts, &pl);

	for (size_t i = 0; i < n; i++) {
		char *fk;
		size_t fl = pl;

		in[i].cacheable = prefix && st_trace_cache_file_id(in[i].path,
					in[i].id, sizeof(in[i].id)) == 0;
		if (!in[i].cacheable) {
			c->st.uncached++;
			all = false;
			continue;
		}
		in[i].settled = settled(in[i].id);
		c->st.recent += !in[i].settled;
		if (all && !(key = key_add(key, &klen, in[i].id)))
			all = false;
		if (!(fk = strdup(prefix)) || !(fk = key_add(fk, &fl,
							     in[i].id))) {
			in[i].cacheable = false;
			continue;
		}
		st_trace_cache_digest(fk, fl, in[i].digest);
		free(fk);
	}
	free(prefix);
	run[0] = '\0';
	if (all)
		st_trace_cache_digest(key, klen, run);
	free(key);
}

/* Is IN's file as it was when its identity was taken? */
static bool unchanged(const struct in *in)
{
	char id[200];

	return st_trace_cache_file_id(in->path, id, sizeof(id)) == 0 &&
	       strcmp(id, in->id) == 0;
}

/* ---- making the partials of the files not in the cache ---------------- */

struct work {
	struct in *in;
	size_t n, next;           /* the next input to take */
	size_t merged;            /* inputs merged so far */
	size_t window;            /* made ahead of the merge at most */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	void (*make)(struct work *w, struct in *in);
	const void *ctx;
};

static void *worker(void *arg)
{
	struct work *w = arg;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->next < w->n && (w->in[w->next].hit ||
					  w->in[w->next].done))
			w->next++;
		if (w->next >= w->n)
			break;
		if (w->next >= w->merged + w->window) {
			pthread_cond_wait(&w->cv, &w->mu);
			continue;
		}
		struct in *in = &w->in[w->next++];

		pthread_mutex_unlock(&w->mu);
		w->make(w, in);
		pthread_mutex_lock(&w->mu);
		in->done = true;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

/* IN[I] ready to merge: taken from the cache, or made by the workers. */
static void wait_for(struct work *w, size_t i)
{
	pthread_mutex_lock(&w->mu);
	w->merged = i;
	pthread_cond_broadcast(&w->cv);
	while (!w->in[i].hit && !w->in[i].done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

/* Start JOBS workers on W (into TH, *STARTED of them); with none, the
 * caller makes each partial itself in wait_for_make. */
static void start(struct work *w, pthread_t *th, int jobs, int *started)
{
	*started = 0;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	for (int j = 0; j < jobs; j++)
		if (pthread_create(&th[j], NULL, worker, w) == 0)
			(*started)++;
}

static void stop(struct work *w, pthread_t *th, int started)
{
	pthread_mutex_lock(&w->mu);
	w->merged = w->n;
	w->next = w->n;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	for (int j = 0; j < started; j++)
		pthread_join(th[j], NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
}

/* IN[I] ready: by the workers, or here when none started. */
static void ready(struct work *w, size_t i, int started)
{
	if (started) {
		wait_for(w, i);
		return;
	}
	if (!w->in[i].hit && !w->in[i].done) {
		w->make(w, &w->in[i]);
		w->in[i].done = true;
	}
}

/* ---- trace summary ---------------------------------------------------- */

struct sum_ctx {
	st_trace_cache *c;
	const st_trace_opts *o;
	const char *group, *per;
	size_t parts;             /* the ranges of a file with an index */
};

/* ---- one big .pfw.gz in ranges (zran.h) --------------------------------
 *
 * A gzip input of ZRAN_MIN_BYTES or more gets its access points built by
 * a thread of their own beside its first read, kept as the entry of the
 * key "zran" and its identity (never beside the input).  A later read
 * with at least twice as many jobs as inputs reads it in ranges (parts_of
 * each, fewer when it has fewer points), one thread each, from those
 * points; the ranges' records are then one file's again, and the summary
 * is the one a sequential read makes.  A range that fails (the file was
 * changed as its identity cannot tell) is not trusted: the file is read
 * from its start instead, and says what a sequential read says; its
 * points are dropped when its content was not theirs (65). */

#define ZRAN_MIN_BYTES (1 << 20)
#define ZRAN_VERSION 2
#define ZRAN_MAX_PARTS 64

/* The ranges each of FILES inputs is read in with JOBS threads: JOBS /
 * FILES (rounded down), ZRAN_MAX_PARTS at most; 1, unsplit, below twice
 * as many jobs as inputs. */
static size_t parts_of(int jobs, size_t files)
{
	size_t p = jobs > 1 && files ? (size_t)jobs / files : 1;

	return p < 1 ? 1 : p > ZRAN_MAX_PARTS ? ZRAN_MAX_PARTS : p;
}

/* The digest of IN's index entry into OUT: false out of memory. */
static bool zran_digest(const struct in *in, char out[65])
{
	size_t len = 0;
	char *key = key_start("zran", ZRAN_VERSION, 0, "", &len);

	if (!key || !(key = key_add(key, &len, in->id)))
		return false;
	st_trace_cache_digest(key, len, out);
	free(key);
	return true;
}

/* Is IN big enough, and gzip, for an index? */
static bool zran_worth(const struct in *in)
{
	intmax_t size = 0;
	size_t n = strlen(in->path);

	return in->cacheable &&
	       sscanf(in->id, "%*s %*s %jd", &size) == 1 &&
	       size >= ZRAN_MIN_BYTES && n > 3 &&
	       strcmp(in->path + n - 3, ".gz") == 0;
}

/* The index of IN from cache C: new, or NULL (none, or not whole). */
static st_zran *zran_load(st_trace_cache *c, const struct in *in)
{
	char *text;
	const char *pay;
	size_t len;
	st_zran *x;

	if (!entry_get(c, in->zdigest, &text, &pay, &len))
		return NULL;
	x = st_zran_decode(pay, len);
	free(text);
	return x;
}

struct zbuild {
	const char *path;
	st_zran *x;
	pthread_t th;
	bool started;
};

static void *zbuild_main(void *arg)
{
	struct zbuild *b = arg;
	st_error err;

	b->x = st_zran_build(b->path, ST_ZRAN_SPAN, &err);
	return NULL;
}

static void zbuild_join(struct zbuild *b)
{
	if (b->started)
		pthread_join(b->th, NULL);
	b->started = false;
}

/* The index B built (joined), kept in IN to be written when IN is kept
 * (its file unchanged since before both reads) and the index leads
 * somewhere. */
static void zbuild_end(struct zbuild *b, struct in *in)
{
	zbuild_join(b);
	if (in->keep && b->x && b->x->n &&
	    st_zran_encode(b->x, &in->ztext, &in->zlen) < 0)
		in->ztext = NULL;
	st_zran_free(b->x);
	b->x = NULL;
}

struct ranges {
	const st_zran *x;
	const char *path;
	size_t cut[ZRAN_MAX_PARTS], nc;
};

static st_pfw_reader *range_open(const void *ctx, size_t i, st_error *err)
{
	const struct ranges *rg = ctx;

	return st_zran_open(rg->x, rg->path, i ? rg->cut[i - 1] : SIZE_MAX,
			    i < rg->nc ? rg->cut[i] : SIZE_MAX, err);
}

/* The lines range I of RG holds, as its index counts them. */
static uint64_t range_lines(const struct ranges *rg, size_t i)
{
	const st_zran *x = rg->x;

	return (i < rg->nc ? x->ap[rg->cut[i]].lineno : x->lines) -
	       (i ? x->ap[rg->cut[i - 1]].lineno : 0);
}

/* The records FILES[0..*N) of RG's ranges in order, made that file's
 * (PATH's) record, its corrupt lines BAD[0..NBAD) its own: 0, or the
 * exit code of the first range that failed (65 too when a range did not
 * hold the lines its index counts). */
static int ranges_join(const struct ranges *rg, st_trace_file *files,
		       size_t *n, st_trace_bad *bad, size_t nbad,
		       const char *path)
{
	st_trace_file *f = &files[0];

	for (size_t i = 0; i < *n; i++)
		if (!files[i].err_code &&
		    files[i].st.lines != range_lines(rg, i))
			return ST_EXIT_DATAERR;
	for (size_t i = 1; i < *n; i++) {
		st_trace_file *g = &files[i];

		if (f->err_code || g->err_code)
			return f->err_code ? f->err_code : g->err_code;
		if (g->st.events && (!f->st.events || g->first_us < f->first_us))
			f->first_us = g->first_us;
		if (g->st.events && (!f->st.events || g->end_us > f->end_us))
			f->end_us = g->end_us;
		f->st.lines += g->st.lines;
		f->st.events += g->st.events;
		f->st.meta += g->st.meta;
		f->st.other += g->st.other;
		f->st.bad += g->st.bad;
		f->st.fast += g->st.fast;
	}
	if (f->err_code)
		return f->err_code;
	f->not_trace = f->st.events == 0 && f->st.meta == 0 &&
		       f->st.other == 0;
	f->path = path;
	*n = 1;
	for (size_t k = 0; k < nbad; k++)
		bad[k].file = 0;
	return 0;
}

/* IN's summary partial made from X's ranges (IN->o1 set), one thread
 * each: true when it was, false when IN is to be read from its start. */
static bool make_ranges(const struct sum_ctx *x, struct in *in,
			const st_zran *zx)
{
	struct ranges rg = { .x = zx, .path = in->path };
	const char *paths[ZRAN_MAX_PARTS];
	int rc;

	rg.nc = st_zran_cut(zx, x->parts, rg.cut);
	if (!rg.nc)
		return false;
	for (size_t i = 0; i <= rg.nc; i++)
		paths[i] = in->path;
	in->o1.jobs = (int)rg.nc + 1;
	in->o1.open_at = range_open;
	in->o1.open_ctx = &rg;
	in->part = st_sum_partial_new(paths, rg.nc + 1, &in->o1, x->group,
				      x->per, &in->fs, &in->err);
	in->o1.open_at = NULL;
	in->o1.open_ctx = NULL;
	in->o1.jobs = 1;
	rc = in->part ? ranges_join(&rg, in->fs.files_in, &in->fs.n_files,
				    in->fs.bad, in->fs.n_bad, in->path)
		      : in->err.code ? in->err.code : ST_EXIT_DATAERR;
	if (rc == 0)
		return true;
	/* read from its start; the index dropped when it is not what the
	 * file holds now (not on a failure to open or of memory) */
	if (rc == ST_EXIT_DATAERR)
		entry_drop(x->c, in->zdigest);
	st_sum_partial_free(in->part);
	in->part = NULL;
	st_trace_summary_release(&in->fs);
	return false;
}

/* IN's summary partial made (one thread, one file; or its ranges, one
 * thread each), kept to be merged as it is; its text made too when it
 * goes into the cache, and its access points when built now. */
static void make_summary(struct work *w, struct in *in)
{
	const struct sum_ctx *x = w->ctx;
	struct zbuild zb = { .path = in->path };
	st_zran *zx = NULL;
	bool split = false;
	FILE *m;

	in->o1 = *x->o;
	in->o1.jobs = 1;
	in->o1.max_bad = keep_bad(x->o->max_bad);
	if (zran_worth(in) && zran_digest(in, in->zdigest)) {
		if ((zx = zran_load(x->c, in)))
			in->split = split = x->parts > 1 &&
					    make_ranges(x, in, zx);
		else
			zb.started = in->settled &&
				     pthread_create(&zb.th, NULL, zbuild_main,
						    &zb) == 0;
		st_zran_free(zx);
	}
	if (!split &&
	    !(in->part = st_sum_partial_new(&in->path, 1, &in->o1, x->group,
					    x->per, &in->fs, &in->err))) {
		in->rc = -1;
		zbuild_end(&zb, in);
		return;
	}
	zbuild_join(&zb);
	in->keep = in->cacheable && in->settled && in->fs.n_files == 1 &&
		   in->fs.files_in[0].err_code == 0 && unchanged(in);
	zbuild_end(&zb, in);
	if (!in->keep)
		return;
	m = entry_open(x->c, in->digest, &in->ew);
	if (!m || st_sum_partial_write_bin(m, in->part, &in->fs) < 0)
		in->keep = false;
	if (!entry_close(&in->ew, in->digest, m))
		in->keep = false;
}

/* IN's partial done with: its text, what was made. */
static void in_done(st_trace_cache *c, struct in *in)
{
	if (in->ew.tmp)
		entry_end(c, &in->ew, in->digest, false);
	free(in->text);
	in->text = NULL;
	free(in->ztext);
	in->ztext = NULL;
	st_sum_partial_free(in->part);
	in->part = NULL;
	st_trace_summary_release(&in->fs);
}

static void ins_free(st_trace_cache *c, struct in *in, size_t n)
{
	for (size_t i = 0; in && i < n; i++)
		in_done(c, &in[i]);
	free(in);
}

/* The run entry RUN's payload merged into MG: true when it was there and
 * merged (a bad one is dropped). */
static bool sum_from_run(st_trace_cache *c, const char *run,
			 st_sum_merge *mg, const char *what)
{
	char *text;
	const char *pay;
	size_t len;
	st_error e;

	if (!run[0] || !entry_get(c, run, &text, &pay, &len))
		return false;
	if (st_sum_merge_add_bin(mg, pay, len, what, &e) < 0) {
		entry_drop(c, run);
		st_sum_merge_release(mg);
		free(text);
		return false;
	}
	free(text);
	return true;
}

/* The partial of MG (the whole run) written as the run entry RUN. */
static void sum_put_run(st_trace_cache *c, const char *run,
			const st_sum_merge *mg)
{
	char *t = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&t, &len);

	if (m && st_sum_merge_write_bin(m, mg) == 0 && fclose(m) == 0)
		entry_put(c, run, t, len);
	else if (m)
		fclose(m);
	free(t);
}

/* Add the partial of IN to the merge MG. */
typedef int (*add_fn)(void *mg, struct in *in, st_error *err);

/* The inputs IN[0..N) added to MG with ADD in order, each from its file
 * entry or made by W's make (JOBS threads).  0; 1 a file entry did not
 * merge (it is dropped: the caller reads without the cache); -1 with ERR
 * set. */
static int merge_ins(st_trace_cache *c, struct in *in, size_t n,
		     struct work *w, int jobs, add_fn add, void *mg,
		     st_error *err)
{
	pthread_t th[64];
	int started, rc = 0;

	/* the entries are read in turn, as they are merged: memory for
	 * one at a time, not the whole set's */
	for (size_t i = 0; i < n; i++)
		in[i].hit = in[i].cacheable && entry_there(c, in[i].digest);
	w->in = in;
	w->n = n;
	w->window = 4 * (size_t)jobs;
	start(w, th, jobs > 64 ? 64 : jobs, &started);
	for (size_t i = 0; i < n && rc == 0; i++) {
		bool cached;

		ready(w, i, started);
		cached = in[i].hit && entry_get(c, in[i].digest, &in[i].text,
						&in[i].pay, &in[i].len);
		if (in[i].hit && !cached)
			w->make(w, &in[i]);     /* gone or damaged since */
		c->st.hits += cached;
		c->st.misses += in[i].cacheable && !cached;
		c->st.split += !cached && in[i].split;
		if (in[i].rc) {
			*err = in[i].err;
			rc = -1;
		} else if (add(mg, &in[i], err) < 0) {
			if (cached)
				entry_drop(c, in[i].digest);
			rc = cached ? 1 : -1;
		} else if (in[i].keep) {
			if (in[i].ew.tmp)
				entry_end(c, &in[i].ew, in[i].digest, true);
			else
				entry_put(c, in[i].digest, in[i].pay,
					  in[i].len);
			if (in[i].ztext) {
				entry_put(c, in[i].zdigest, in[i].ztext,
					  in[i].zlen);
				c->st.indexed++;
			}
		}
		in_done(c, &in[i]);
	}
	stop(w, th, started);
	return rc;
}

static int sum_add(void *mg, struct in *in, st_error *err)
{
	if (in->part)
		return st_sum_merge_add_partial(mg, in->part, &in->fs,
						in->path, err);
	return st_sum_merge_add_bin(mg, in->pay, in->len, in->path, err);
}

static int cmp_add(void *mg, struct in *in, st_error *err)
{
	return st_compare_merge_add(mg, in->pay, in->len, in->path, err);
}

int st_trace_cache_summarize(st_trace_cache *c, const char *const *paths,
			     size_t n, const st_trace_opts *o,
			     const char *group, const char *per,
			     st_trace_summary *s, st_error *err)
{
	struct sum_ctx x = { c, o, group, per, 1 };
	struct work w = { .make = make_summary, .ctx = &x };
	st_sum_merge mg = { 0 };
	char *opts, *key = NULL, run[65];
	struct in *in;
	size_t klen = 0;
	bool all;
	int rc = 0;

	if (o->src || o->nseg || o->no_overlap || !n)
		return st_trace_summarize(paths, n, o, s, err);
	memset(s, 0, sizeof(*s));
	if (!(opts = st_sum_partial_options(o, group, per)) ||
	    !(in = calloc(n, sizeof(*in)))) {
		free(opts);
		return OOM(err);
	}
	for (size_t i = 0; i < n; i++)
		in[i].path = paths[i];
	x.parts = parts_of(o->jobs, n);
	key = key_start("summary.bin", ST_SUM_PARTIAL_VERSION,
			keep_bad(o->max_bad), opts, &klen);
	ids(c, in, n, key, klen, "summary.bin.file", ST_SUM_PARTIAL_VERSION,
	    keep_bad(o->max_bad), opts, run);
	if (n == 1)
		run[0] = '\0';     /* its file entry is the run's */
	free(opts);
	if (sum_from_run(c, run, &mg, paths[0])) {
		c->st.run_hit = true;
		c->st.hits += n;
	} else if ((rc = merge_ins(c, in, n, &w, o->jobs < 1 ? 1 : o->jobs,
				   sum_add, &mg, err)) != 0) {
		st_sum_merge_release(&mg);
		ins_free(c, in, n);
		if (rc < 0)
			return -1;
		return st_trace_summarize(paths, n, o, s, err);
	} else {
		all = run[0] != '\0';
		for (size_t i = 0; all && i < n; i++)
			all = in[i].hit || in[i].keep;
		if (all)
			sum_put_run(c, run, &mg);
	}
	ins_free(c, in, n);
	rc = st_sum_merge_finish(&mg, o->max_bad, s, err);
	for (size_t i = 0; rc == 0 && i < s->n_files && i < n; i++)
		s->files_in[i].path = paths[i];
	if (c->st.written)
		evict(c);
	st_sum_merge_release(&mg);
	return rc;
}

/* ---- trace compare ---------------------------------------------------- */

struct cmp_ctx {
	st_trace_cache *c;
	const st_compare_opts *o;
	const char *mtext;
	const char *name;          /* of the case being read */
	size_t parts;              /* the ranges of a file with an index */
};

/* A case's ranges of one file: its paths copies of the file's, told apart
 * by their addresses when the case opens them. */
struct cmp_ranges {
	struct ranges rg;
	char *paths[ZRAN_MAX_PARTS];
	st_trace_source src;
};

static st_pfw_reader *cmp_range_open(const void *ctx, const char *path,
				     bool tracks, st_error *err)
{
	const struct cmp_ranges *cr = ctx;

	(void)tracks;
	for (size_t i = 0; i <= cr->rg.nc; i++)
		if (path == cr->paths[i])
			return range_open(&cr->rg, i, err);
	return st_pfw_open(path, err);
}

/* The metrics of X's case over IN's file read in ZX's ranges into CS
 * (O1 its options): true when they were, false when IN is to be read
 * from its start (CS released). */
static bool cmp_ranges(const struct cmp_ctx *x, struct in *in,
		       const st_zran *zx, st_compare_opts *o1,
		       st_compare_case *cs)
{
	struct cmp_ranges cr = { .rg = { .x = zx, .path = in->path } };
	int rc = -1;

	cr.rg.nc = st_zran_cut(zx, x->parts, cr.rg.cut);
	for (size_t i = 0; i <= cr.rg.nc; i++)
		if (!(cr.paths[i] = strdup(in->path)))
			cr.rg.nc = 0;
	if (cr.rg.nc) {
		cr.src = (st_trace_source){ .open = cmp_range_open,
					    .ctx = &cr };
		*cs = (st_compare_case){ .name = x->name,
					 .paths = (const char *const *)cr.paths,
					 .n = cr.rg.nc + 1, .src = &cr.src };
		o1->jobs = (int)cr.rg.nc + 1;
		rc = st_trace_compare(cs, 1, o1, &in->err) < 0
		     ? in->err.code ? in->err.code : ST_EXIT_DATAERR
		     : ranges_join(&cr.rg, cs->files_in, &cs->n_files,
				   cs->bad, cs->n_bad, in->path);
		o1->jobs = 1;
		cs->paths = &in->path;
		cs->n = 1;
		cs->src = NULL;
		if (rc) {
			/* as make_ranges */
			if (rc == ST_EXIT_DATAERR)
				entry_drop(x->c, in->zdigest);
			st_compare_case_release(cs);
			*cs = (st_compare_case){ .name = x->name,
						 .paths = &in->path, .n = 1 };
		}
	}
	for (size_t i = 0; i < ZRAN_MAX_PARTS && cr.paths[i]; i++)
		free(cr.paths[i]);
	return rc == 0;
}

/* IN's compare partial made: a case of one file named as its case. */
static void make_compare(struct work *w, struct in *in)
{
	const struct cmp_ctx *x = w->ctx;
	st_compare_opts o1 = *x->o;
	st_compare_case cs = { .name = x->name, .paths = &in->path, .n = 1 };
	struct zbuild zb = { .path = in->path };
	st_zran *zx = NULL;
	FILE *m;

	o1.jobs = 1;
	o1.keep = true;
	o1.max_bad = keep_bad(x->o->max_bad);
	if (zran_worth(in) && zran_digest(in, in->zdigest)) {
		if ((zx = zran_load(x->c, in)))
			in->split = x->parts > 1 &&
				    cmp_ranges(x, in, zx, &o1, &cs);
		else
			zb.started = in->settled &&
				     pthread_create(&zb.th, NULL, zbuild_main,
						    &zb) == 0;
		st_zran_free(zx);
	}
	if (!in->split && st_trace_compare(&cs, 1, &o1, &in->err) < 0) {
		in->rc = -1;
	} else if (!(m = open_memstream(&in->text, &in->len))) {
		in->rc = OOM(&in->err);
	} else {
		if (st_compare_partial_write(m, x->mtext, o1.metrics, &cs, 1) < 0)
			in->rc = OOM(&in->err);
		if (fclose(m) != 0 && !in->rc)
			in->rc = OOM(&in->err);
		in->pay = in->text;
		zbuild_join(&zb);
		in->keep = in->rc == 0 && in->cacheable && in->settled &&
			   cs.n_files == 1 &&
			   cs.files_in[0].err_code == 0 && unchanged(in);
	}
	zbuild_end(&zb, in);
	st_compare_case_release(&cs);
}

/* May the cases CS[0..N) with O use the cache? */
static bool compare_cacheable(const st_compare_case *cs, size_t n,
			      const st_compare_opts *o)
{
	if (o->keep || !n)
		return false;
	for (size_t i = 0; i < o->metrics->n; i++)
		if (o->metrics->v[i].events)
			return false;
	for (size_t c = 0; c < n; c++)
		if (cs[c].src || cs[c].nseg || cs[c].events_out || !cs[c].n)
			return false;
	return true;
}

/* Case K of MG's answers moved into C (its inputs' paths C's own). */
static void case_take(st_compare_case *c, st_compare_case *k)
{
	c->res = k->res;
	c->n_res = k->n_res;
	c->events = k->events;
	c->bad_lines = k->bad_lines;
	c->saturated = k->saturated;
	c->files_in = k->files_in;
	c->n_files = k->n_files;
	c->bad = k->bad;
	c->n_bad = k->n_bad;
	k->res = NULL;
	k->n_res = 0;
	k->files_in = NULL;
	k->n_files = 0;
	k->bad = NULL;
	k->n_bad = 0;
	for (size_t i = 0; i < c->n_files && i < c->n; i++)
		c->files_in[i].path = c->paths[i];
}

/* The cases' files (INS) merged into MG, case by case, file by file.
 * 0, 1 a file entry did not merge, -1 with ERR set. */
static int cmp_files(st_trace_cache *c, st_compare_case *cs, size_t n,
		     struct in **ins, struct cmp_ctx *x, st_compare_merge *mg,
		     st_error *err)
{
	int rc = 0;

	for (size_t k = 0; k < n && rc == 0; k++) {
		struct work w = { .make = make_compare, .ctx = x };

		x->name = cs[k].name;
		rc = merge_ins(c, ins[k], cs[k].n, &w,
			       x->o->jobs < 1 ? 1 : x->o->jobs, cmp_add, mg,
			       err);
	}
	return rc;
}

/* The partial of MG (the whole run: every file of the cases CS[0..N),
 * INS, from the cache or to be written to it) written as the run entry
 * RUN, before the merge is finished (every corrupt line kept). */
static void cmp_put_run(st_trace_cache *c, const char *run,
			st_compare_merge *mg, struct in **ins,
			const st_compare_case *cs, size_t n)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m;

	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < cs[k].n; i++)
			if (!ins[k][i].hit && !ins[k][i].keep)
				return;
	for (size_t k = 0; k < mg->n; k++)
		mg->cases[k].saturated =
			((const struct pass *)mg->cases[k].state)->sat;
	if (!(m = open_memstream(&text, &len)))
		return;
	if (st_compare_partial_write(m, mg->metrics_text, &mg->m, mg->cases,
				     mg->n) == 0 && fclose(m) == 0)
		entry_put(c, run, text, len);
	else
		fclose(m);
	free(text);
}

int st_trace_cache_compare(st_trace_cache *c, st_compare_case *cs,
			   size_t n, const st_compare_opts *o,
			   const char *mtext, st_error *err)
{
	struct cmp_ctx x = { c, o, mtext, NULL, 1 };
	st_compare_merge mg = { 0 };
	struct in **ins;
	char *key = NULL, run[65], *text = NULL;
	const char *pay;
	size_t klen = 0, len;
	bool all = true, from_run = false;
	int rc = 0;
	st_error e;

	if (!compare_cacheable(cs, n, o))
		return st_trace_compare(cs, n, o, err);
	if (!(ins = calloc(n, sizeof(*ins))))
		return OOM(err);
	key = key_start("compare", ST_COMPARE_PARTIAL_VERSION,
			keep_bad(o->max_bad), mtext, &klen);
	for (size_t k = 0; k < n && rc == 0; k++) {
		char fr[65];

		if (!(ins[k] = calloc(cs[k].n, sizeof(**ins)))) {
			rc = OOM(err);
			break;
		}
		for (size_t i = 0; i < cs[k].n; i++)
			ins[k][i].path = cs[k].paths[i];
		/* each case's name and its files' identities in the run's
		 * key; its file keys hold no name (renamed on merging) */
		ids(c, ins[k], cs[k].n, NULL, 0, "compare.file",
		    ST_COMPARE_PARTIAL_VERSION, keep_bad(o->max_bad), mtext,
		    fr);
		for (size_t i = 0; i < cs[k].n; i++)
			all = all && ins[k][i].cacheable;
		if (key && !(key = key_add(key, &klen, cs[k].name)))
			all = false;
		for (size_t i = 0; key && all && i < cs[k].n; i++)
			key = key_add(key, &klen, ins[k][i].id);
	}
	run[0] = '\0';
	if (rc == 0 && key && all)
		st_trace_cache_digest(key, klen, run);
	free(key);
	for (size_t k = 0, files = 0; k < n; k++)
		if (k + 1 == n)
			x.parts = parts_of(o->jobs, files + cs[k].n);
		else
			files += cs[k].n;
	if (rc == 0 && run[0] && entry_get(c, run, &text, &pay, &len)) {
		if (st_compare_merge_add(&mg, pay, len, cs[0].paths[0], &e) == 0 &&
		    mg.n == n) {
			from_run = true;
			c->st.run_hit = true;
			for (size_t k = 0; k < n; k++)
				c->st.hits += cs[k].n;
		} else {
			entry_drop(c, run);
			st_compare_merge_release(&mg);
			memset(&mg, 0, sizeof(mg));
		}
		free(text);
	}
	if (rc == 0 && !from_run)
		rc = cmp_files(c, cs, n, ins, &x, &mg, err);
	for (size_t k = 0; rc == 0 && k < n; k++)
		if (mg.n != n || strcmp(mg.cases[k].name, cs[k].name) != 0)
			rc = 1;     /* two cases of one name: not cached */
	if (rc == 0 && !from_run && run[0])
		cmp_put_run(c, run, &mg, ins, cs, n);
	if (rc == 0)
		rc = st_compare_merge_finish(&mg, o->max_bad, err);
	if (rc == 0)
		for (size_t k = 0; k < n; k++)
			case_take(&cs[k], &mg.cases[k]);
	for (size_t k = 0; k < n; k++)
		ins_free(c, ins[k], ins[k] ? cs[k].n : 0);
	free(ins);
	st_compare_merge_release(&mg);
	if (c->st.written)
		evict(c);
	if (rc > 0)
		return st_trace_compare(cs, n, o, err);
	return rc;
}
