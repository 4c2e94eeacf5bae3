/* atomic.c - temp + fsync + rename output files, directories and paths. */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <libgen.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "streamtime/atomic.h"

char *st_path_join(const char *dir, const char *name)
{
	size_t a = strlen(dir), b = strlen(name);
	char *p = malloc(a + b + 2);

	if (!p)
		return NULL;
	memcpy(p, dir, a);
	if (a && dir[a - 1] != '/')
		p[a++] = '/';
	memcpy(p + a, name, b + 1);
	return p;
}

bool st_path_is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* The directory part of PATH in a new string ("." for a bare name). */
static char *dir_of(const char *path)
{
	char *copy = strdup(path), *d;

	if (!copy)
		return NULL;
	d = strdup(dirname(copy));
	free(copy);
	return d;
}

/* Temporaries not yet renamed or removed, for the signal handler: a list
 * that only grows, of nodes that are never freed, each holding its own copy
 * of a name.  A node is claimed (FREE -> CLAIMED) with a compare-and-swap,
 * filled, then marked LIVE; the handler unlinks the names of LIVE nodes.
 * Threads open outputs at the same time (plot writes figures in parallel),
 * and a new node is pushed at the head with a compare-and-swap, so the
 * handler always walks a list whose links and names stay valid: no fixed
 * cap, no lock, nothing freed under it.  (One race is left: a node freed and
 * claimed again by another thread while the handler reads its name gives a
 * mix of two temporaries' names, which almost surely names no file; that
 * temporary is then left for the next run to remove.) */
enum { NODE_FREE, NODE_CLAIMED, NODE_LIVE, NODE_LIVE_DIR };

struct pending {
	struct pending *next;   /* set before the node is published */
	int state;
	size_t cap;             /* bytes of NAME */
	char name[];
};

static struct pending *pending_head;

static struct pending *track_as(const char *tmp, int live);

/* Register the temporary TMP; the node to untrack, or NULL when memory ran
 * out (then the caller must not create the file). */
static struct pending *track(const char *tmp)
{
	return track_as(tmp, NODE_LIVE);
}

/* Register TMP as LIVE (NODE_LIVE: a file, NODE_LIVE_DIR: a staging
 * directory, removed with what it holds). */
static struct pending *track_as(const char *tmp, int live)
{
	size_t len = strlen(tmp) + 1;
	struct pending *n;

	for (n = __atomic_load_n(&pending_head, __ATOMIC_ACQUIRE); n; n = n->next) {
		int expected = NODE_FREE;

		if (n->cap < len ||
		    !__atomic_compare_exchange_n(&n->state, &expected, NODE_CLAIMED,
						 false, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		memcpy(n->name, tmp, len);
		__atomic_store_n(&n->state, live, __ATOMIC_RELEASE);
		return n;
	}
	n = malloc(sizeof(*n) + (len < 256 ? 256 : len));
	if (!n)
		return NULL;
	n->cap = len < 256 ? 256 : len;
	memcpy(n->name, tmp, len);
	n->state = live;
	n->next = __atomic_load_n(&pending_head, __ATOMIC_RELAXED);
	while (!__atomic_compare_exchange_n(&pending_head, &n->next, n, true,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		;
	return n;
}

static void untrack(struct pending *n)
{
	if (n)
		__atomic_store_n(&n->state, NODE_FREE, __ATOMIC_RELEASE);
}

/* The process's umask, read once: umask() can only be read by setting it,
 * and setting it while another thread creates a file would give that file
 * the wrong mode. */
static mode_t process_umask;
static pthread_once_t umask_once = PTHREAD_ONCE_INIT;

static void read_umask(void)
{
	process_umask = umask(0);
	umask(process_umask);
}

/* Remove the tree at DIRFD/NAME (not following symlinks) with
 * async-signal-safe calls only (openat, getdents64, unlinkat): for the
 * signal handler, and DEPTH levels deep at most. */
static void remove_tree_at(int dirfd, const char *name, int depth)
{
	char buf[2048];
	int fd;
	long n;

	if (unlinkat(dirfd, name, 0) == 0 || errno == ENOENT)
		return;
	if (depth <= 0)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return;
	/* entries are removed while reading: start over until none is left */
	for (int pass = 0; pass < 64; pass++) {
		bool any = false;

		lseek(fd, 0, SEEK_SET);
		while ((n = getdents64(fd, buf, sizeof(buf))) > 0) {
			for (long off = 0; off < n;) {
				struct dirent64 *de = (struct dirent64 *)(buf + off);

				off += de->d_reclen;
				if (strcmp(de->d_name, ".") == 0 ||
				    strcmp(de->d_name, "..") == 0)
					continue;
				any = true;
				remove_tree_at(fd, de->d_name, depth - 1);
			}
		}
		if (!any)
			break;
	}
	close(fd);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

static void on_fatal_signal(int sig)
{
	/* async-signal-safe calls only; then die of the signal as before */
	for (struct pending *n = __atomic_load_n(&pending_head, __ATOMIC_ACQUIRE);
	     n; n = n->next)
		if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) == NODE_LIVE)
			unlink(n->name);
	for (struct pending *n = __atomic_load_n(&pending_head, __ATOMIC_ACQUIRE);
	     n; n = n->next)
		if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) == NODE_LIVE_DIR)
			remove_tree_at(AT_FDCWD, n->name, 8);
	signal(sig, SIG_DFL);
	raise(sig);
}

void st_atomic_cleanup_on_signals(void)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa = { .sa_handler = on_fatal_signal };

	/* the umask is read here, before any thread can be creating files */
	pthread_once(&umask_once, read_umask);
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
}

/* The stream of a temporary writes through this, so that the errno of a
 * failed write is kept for the message ("No space left on device"), even
 * when the writer only sees that fprintf failed and errno has moved on. */
struct sink {
	int fd;
	int err;        /* errno of the first failed write, 0 if none */
	off_t written, queued;  /* bytes written; given to writeback */
};

/* A big output's bytes are handed to the disk's writeback as they come
 * (sync_file_range, which does not wait), every 8 MiB, so that the fsync
 * before the rename finds little left to write.  A pipe or device says
 * no, which changes nothing. */
static void sink_writeback(struct sink *s)
{
	if (s->written - s->queued < (off_t)8 << 20)
		return;
	(void)sync_file_range(s->fd, s->queued, s->written - s->queued,
			      SYNC_FILE_RANGE_WRITE);
	s->queued = s->written;
}

static ssize_t sink_write(void *cookie, const char *buf, size_t n)
{
	struct sink *s = cookie;
	size_t done = 0;

	while (done < n) {
		ssize_t k = write(s->fd, buf + done, n - done);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!s->err)
				s->err = k < 0 ? errno : EIO;
			errno = s->err;
			return done ? (ssize_t)done : -1;
		}
		done += (size_t)k;
	}
	s->written += (off_t)done;
	sink_writeback(s);
	return (ssize_t)done;
}

static int sink_close(void *cookie)
{
	struct sink *s = cookie;
	int rc = close(s->fd);

	free(s);
	return rc;
}

/* A write stream on FD that records its errors in AF (AF->fd, AF->sink);
 * NULL when memory runs out (FD is then still open). */
static FILE *sink_open(st_atomic_file *af, int fd)
{
	static const cookie_io_functions_t io = { .write = sink_write,
						  .close = sink_close };
	struct sink *s = malloc(sizeof(*s));
	FILE *f;

	if (!s)
		return NULL;
	s->fd = fd;
	s->err = 0;
	s->written = s->queued = 0;
	f = fopencookie(s, "w", io);
	if (!f) {
		free(s);
		return NULL;
	}
	af->fd = fd;
	af->sink = s;
	return f;
}

int st_atomic_errno(const st_atomic_file *af)
{
	const struct sink *s = af->fp ? af->sink : NULL;

	return s && s->err ? s->err : EIO;
}

/* The error of a failed write, flush or sync of AF (E: errno just after
 * it): what the stream recorded, else E, else EIO. */
static int write_errno(const st_atomic_file *af, int e)
{
	const struct sink *s = af->fp ? af->sink : NULL;

	return s && s->err ? s->err : e ? e : EIO;
}

/* A temporary or a stage is made under its "unborn" name, .BASE.PID-.XXXXXX,
 * locked (flock), and only then given its name .BASE.PID.XXXXXX.  So one
 * under its name and unlocked is surely no live run's, while an unborn one
 * may be a live run's between its creation and its lock, for any time
 * (stopped, starved): it is swept only when its pid is gone (issue 24 item
 * 16: a run stopped between mkdtemp and flock lost its stage to another
 * run's sweep).  The '-' before the last ".XXXXXX" never ends a pid, so no
 * unborn name is another target's temporary. */

/* For tests: with STREAMTIME_TEST_STOP=WHERE ("stage" or "temp") the
 * process stops itself (SIGSTOP) once that is made and before it is
 * locked, so that a test can run a sweep in that window on purpose. */
static void test_stop(const char *where)
{
	const char *e = getenv("STREAMTIME_TEST_STOP");

	if (e && strcmp(e, where) == 0)
		raise(SIGSTOP);
}

/* Give the locked UNBORN (a path ending "-.XXXXXX") its name: the path
 * without that '-', a new string in *BORN.  -1 with errno. */
static int take_name(const char *unborn, char **born)
{
	size_t len = strlen(unborn);
	char *b = malloc(len);

	*born = NULL;
	if (!b)
		return -1;
	memcpy(b, unborn, len - 8);
	memcpy(b + len - 8, unborn + len - 7, 8);
	/* EINVAL: a file system without RENAME_NOREPLACE; the name carries
	 * our pid, so only a dead run's could be there */
	if (renameat2(AT_FDCWD, unborn, AT_FDCWD, b, RENAME_NOREPLACE) != 0 &&
	    (errno != EINVAL || access(b, F_OK) == 0 || rename(unborn, b) != 0)) {
		int e = errno == EINVAL ? EEXIST : errno;

		free(b);
		errno = e;
		return -1;
	}
	*born = b;
	return 0;
}

/* PATH is there and not a regular file (a FIFO, /dev/null, a terminal;
 * ST its stat): AF writes to it directly, there being nothing to replace.
 * 0, or -1 with ERR set: 73 (a directory, or it cannot be opened). */
static int open_direct(st_atomic_file *af, const char *path,
		       const struct stat *st, st_error *err)
{
	if (S_ISDIR(st->st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot write %s: "
				    "it is a directory", path);
	af->fp = fopen(path, "w");
	if (!af->fp)
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot open %s: "
				    "%s", path, strerror(errno));
	af->direct = true;
	af->path = strdup(path);
	return 0;
}

/* Track AF's temporary file, to be removed should the process end before
 * the commit.  0, or -1 with ERR set (for PATH), FD closed and AF
 * aborted. */
static int track_tmp(st_atomic_file *af, int fd, const char *path,
		     st_error *err)
{
	af->node = track(af->tmp);
	if (!af->node) {
		close(fd);
		st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
		st_atomic_abort(af);
		return -1;
	}
	return 0;
}

/* Lock AF's temporary file FD for as long as it is ours, and only then
 * give it its final temporary name (take_name), so that no later run
 * takes it for stale.  0, or -1 with ERR set (for PATH), FD closed and AF
 * aborted. */
static int lock_and_name(st_atomic_file *af, int fd, const char *path,
			 st_error *err)
{
	char *born = NULL;
	int rc;

	while ((rc = flock(fd, LOCK_EX)) != 0 && errno == EINTR)
		;
	if (rc != 0 || take_name(af->tmp, &born) != 0) {
		int e = errno;

		close(fd);
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     path, strerror(e));
		st_atomic_abort(af);
		return -1;
	}
	untrack(af->node);
	free(af->tmp);
	af->tmp = born;
	return track_tmp(af, fd, path, err);
}

int st_atomic_open(st_atomic_file *af, const char *path, st_error *err)
{
	char *dir = NULL, *base, *copy = NULL;
	struct stat st;
	int fd;

	memset(af, 0, sizeof(*af));
	if (strcmp(path, "-") == 0) {
		af->fp = stdout;
		af->is_stdout = true;
		return 0;
	}
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode))
		return open_direct(af, path, &st, err);
	/* replace the file a symlink names, not the link */
	af->path = realpath(path, NULL);
	if (!af->path)
		af->path = strdup(path);
	if (!af->path)
		goto oom;
	path = af->path;
	dir = dir_of(path);
	copy = strdup(path);
	if (!dir || !copy)
		goto oom;
	base = basename(copy);
	af->tmp = malloc(strlen(dir) + strlen(base) + 40);
	if (!af->tmp)
		goto oom;
	sprintf(af->tmp, "%s/.%s.%ld-.XXXXXX", dir, base, (long)getpid());
	free(copy);
	free(dir);
	fd = mkostemp(af->tmp, O_CLOEXEC);
	if (fd < 0) {
		int e = errno;

		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     path, strerror(e));
		free(af->tmp);
		af->tmp = NULL;
		st_atomic_abort(af);
		return -1;
	}
	if (track_tmp(af, fd, path, err) < 0)
		return -1;
	test_stop("temp");
	if (lock_and_name(af, fd, path, err) < 0)
		return -1;
	/* mkstemp makes 0600; outputs are ordinary files */
	{
		mode_t um;

		pthread_once(&umask_once, read_umask);
		um = process_umask;
		(void)fchmod(fd, 0666 & ~um);
	}
	af->fp = sink_open(af, fd);
	if (!af->fp) {
		close(fd);
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create %s: %s",
			     path, strerror(errno));
		st_atomic_abort(af);
		return -1;
	}
	return 0;
oom:
	free(copy);
	free(dir);
	st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
	st_atomic_abort(af);    /* frees af->path, which PATH may point to */
	return -1;
}

/* fsync the directory holding PATH so that the rename itself is durable. */
static int sync_dir(const char *path)
{
	char *dir = dir_of(path);
	int fd, rc = 0;

	if (!dir)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd < 0)
		return -1;
	if (fsync(fd) != 0 && errno != EINVAL)
		rc = -1;
	close(fd);
	return rc;
}

int st_atomic_prepare(st_atomic_file *af, st_error *err)
{
	int rc = 0;

	if (af->prepared)
		return 0;
	if (af->direct || af->is_stdout) {
		/* written in place: nothing to rename, only to flush */
		errno = 0;
		if (fflush(af->fp) != 0 || ferror(af->fp)) {
			rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
					  af->is_stdout ? "to standard output" :
					  af->path, strerror(errno ? errno : EIO));
			if (af->direct)
				st_atomic_abort(af);
			else
				memset(af, 0, sizeof(*af));
			return rc;
		}
		af->prepared = true;
		return 0;
	}
	/* the file stays open: its descriptor holds the lock on the temporary
	 * until it is renamed or removed */
	errno = 0;
	if (fflush(af->fp) != 0 || ferror(af->fp) || fsync(af->fd) != 0) {
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				  af->path, strerror(write_errno(af, errno)));
		st_atomic_abort(af);
		return rc;
	}
	af->prepared = true;
	return 0;
}

/* Temporaries of another run killed before it could remove them
 * (SIGKILL, a crash, a power cut) are removed by the next run that
 * publishes the same target, when they are surely not a live run's:
 * unlocked (a live run holds a lock on its temporary from creation to
 * rename) and either named after a process that no longer exists or older
 * than this (a run between mkstemp and flock, a pid reused, or a name from
 * before the pid was part of it). */
#define STALE_GRACE_SEC (15 * 60)

/* Is NAME ".BASE.PID.XXXXXX" (*PID set), the unborn ".BASE.PID-.XXXXXX"
 * (*UNBORN true too), or, as written before the pid was part of it,
 * ".BASE.XXXXXX" (*PID 0)?  XXXXXX: mkstemp's 6 characters. */
static bool temp_name_of(const char *name, const char *base, long *pid,
			 bool *unborn)
{
	size_t blen = strlen(base);
	const char *r, *dot;

	if (name[0] != '.' || strncmp(name + 1, base, blen) != 0 ||
	    name[1 + blen] != '.')
		return false;
	r = name + 2 + blen;
	dot = strchr(r, '.');
	*pid = 0;
	*unborn = false;
	if (dot) {
		size_t n = (size_t)(dot - r);
		char *end;

		if (n > 1 && r[n - 1] == '-') {
			*unborn = true;
			n--;
		}
		if (n == 0 || n > 10 || strspn(r, "0123456789") != n)
			return false;
		*pid = strtol(r, &end, 10);
		if (*pid <= 0)
			return false;
		r = dot + 1;
	}
	return strlen(r) == 6 && strspn(r, "abcdefghijklmnopqrstuvwxyz"
					"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == 6;
}

/* Remove the stale temporaries (see above) named after BASE in DIR:
 * files, or with STAGES the staging directories (their names always carry
 * a pid) with all they hold.  Best effort: whatever cannot be checked is
 * left alone. */
static void sweep_stale(const char *dir, const char *base, bool stages)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	time_t now = time(NULL);

	if (!dp)
		return;
	while ((de = readdir(dp)) != NULL) {
		struct stat st, fst;
		long pid;
		bool dead, unborn;
		int fd;

		if (!temp_name_of(de->d_name, base, &pid, &unborn) ||
		    (stages && pid == 0) ||
		    fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !(stages ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode)) ||
		    st.st_uid != geteuid())
			continue;
		dead = pid > 0 && pid != (long)getpid() &&
		       kill((pid_t)pid, 0) != 0 && errno == ESRCH;
		/* an unborn one may be a live run's however old: see take_name */
		if (!dead && (unborn || now - st.st_mtime < STALE_GRACE_SEC))
			continue;
		fd = openat(dirfd(dp), de->d_name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC |
			    (stages ? O_DIRECTORY : O_NONBLOCK));
		if (fd < 0)
			continue;
		/* the lock is held by a live run, and it is the same file */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 && fstat(fd, &fst) == 0 &&
		    fst.st_ino == st.st_ino && fst.st_dev == st.st_dev) {
			if (stages)
				remove_tree_at(dirfd(dp), de->d_name, 8);
			else
				(void)unlinkat(dirfd(dp), de->d_name, 0);
		}
		close(fd);
	}
	closedir(dp);
}

/* After the rename of AF's temporary: close it (dropping its lock), make
 * the rename durable (SYNC: the directory was not synced for an earlier
 * file already), remove stale temporaries of the same target, and release
 * AF. */
static int finish_commit(st_atomic_file *af, bool sync, st_error *err)
{
	int rc = 0;

	if (af->fp && fclose(af->fp) != 0)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
				  af->path, strerror(errno));
	af->fp = NULL;
	af->sink = NULL;
	if (rc == 0 && sync && sync_dir(af->path) != 0)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot sync the directory "
				  "of %s: %s", af->path, strerror(errno));
	if (rc == 0) {
		char *dir = dir_of(af->path), *copy = strdup(af->path);

		if (dir && copy)
			sweep_stale(dir, basename(copy), false);
		free(dir);
		free(copy);
	}
	st_atomic_abort(af);
	return rc;
}

int st_atomic_commit(st_atomic_file *af, st_error *err)
{
	int rc = 0;

	if (st_atomic_prepare(af, err) < 0)
		return -1;
	if (af->direct) {
		if (fclose(af->fp) != 0)
			rc = st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s",
					  af->path, strerror(errno));
		af->fp = NULL;
		free(af->path);
		memset(af, 0, sizeof(*af));
		return rc;
	}
	if (af->is_stdout) {
		memset(af, 0, sizeof(*af));
		return 0;
	}
	if (rename(af->tmp, af->path) != 0) {
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot rename %s to %s: %s",
				  af->tmp, af->path, strerror(errno));
		st_atomic_abort(af);
		return rc;
	}
	untrack(af->node);
	af->node = NULL;
	free(af->tmp);
	af->tmp = NULL;
	return finish_commit(af, true, err);
}

void st_atomic_abort(st_atomic_file *af)
{
	if (!af)
		return;
	if (af->fp && !af->is_stdout)
		fclose(af->fp);
	if (af->tmp)
		unlink(af->tmp);
	untrack(af->node);
	free(af->tmp);
	free(af->path);
	memset(af, 0, sizeof(*af));
}

/* Block the signals whose handler removes temporaries (OLD gets the mask
 * to restore): a SIGINT or SIGTERM during a set's renames is acted on only
 * after the last one, so the set is replaced whole. */
static void block_fatal(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, old);
}

int st_atomic_set_add(st_atomic_set *set, st_atomic_file *af, st_error *err)
{
	if (set->n == set->cap) {
		size_t cap = set->cap ? 2 * set->cap : 8;
		st_atomic_file *v = realloc(set->v, cap * sizeof(*v));

		if (!v) {
			st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", af->path);
			st_atomic_abort(af);
			return -1;
		}
		set->v = v;
		set->cap = cap;
	}
	if (st_atomic_prepare(af, err) < 0)
		return -1;
	set->v[set->n++] = *af;
	memset(af, 0, sizeof(*af));
	return 0;
}

int st_atomic_set_commit(st_atomic_set *set, st_error *err)
{
	sigset_t old;
	size_t done;
	char *lastdir = NULL;
	int rc = 0, e = 0;

	/* every file is complete on disk (st_atomic_set_add); now only
	 * renames, back to back */
	block_fatal(&old);
	for (done = 0; done < set->n; done++) {
		st_atomic_file *af = &set->v[done];

		if (af->direct || af->is_stdout)
			continue;
		if (rename(af->tmp, af->path) != 0) {
			e = errno;
			break;
		}
		untrack(af->node);
		af->node = NULL;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (done < set->n)
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot rename %s to %s: %s "
				  "(%zu of the %zu files of the set were replaced)",
				  set->v[done].tmp, set->v[done].path, strerror(e),
				  done, set->n);
	for (size_t i = 0; i < set->n; i++) {
		st_atomic_file *af = &set->v[i];
		char *dir;

		if (i >= done) {
			st_atomic_abort(af);
		} else if (af->is_stdout) {
			memset(af, 0, sizeof(*af));
		} else if (af->direct) {
			if (fclose(af->fp) != 0 && rc == 0)
				rc = st_error_set(err, ST_EXIT_IOERR, "cannot write "
						  "%s: %s", af->path, strerror(errno));
			af->fp = NULL;
			st_atomic_abort(af);
		} else {
			/* each directory is synced once */
			dir = dir_of(af->path);
			free(af->tmp);
			af->tmp = NULL;
			if (finish_commit(af, !dir || !lastdir || strcmp(dir, lastdir),
					  rc ? NULL : err) < 0 && rc == 0)
				rc = -1;
			if (dir) {
				free(lastdir);
				lastdir = dir;
			}
		}
	}
	free(lastdir);
	free(set->v);
	memset(set, 0, sizeof(*set));
	return rc;
}

void st_atomic_set_abort(st_atomic_set *set)
{
	if (!set)
		return;
	for (size_t i = 0; i < set->n; i++)
		st_atomic_abort(&set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* Staging directories are DIR/.streamtime-stage.PID.XXXXXX, made unborn and
 * named once locked (take_name); those of runs that died are swept like
 * temporaries (sweep_stale). */
#define STAGE_NAME "streamtime-stage"

int st_atomic_stage_open(st_atomic_stage *sg, const char *dir, st_error *err)
{
	char name[64];

	memset(sg, 0, sizeof(*sg));
	sg->fd = -1;
	if (st_mkdir_p(dir, err) < 0)
		return -1;
	snprintf(name, sizeof(name), "." STAGE_NAME ".%ld-.XXXXXX", (long)getpid());
	sg->dir = strdup(dir);
	sg->path = st_path_join(dir, name);
	if (!sg->dir || !sg->path) {
		st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", dir);
		goto fail;
	}
	if (!mkdtemp(sg->path)) {
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot create a directory in "
			     "%s: %s", dir, strerror(errno));
		free(sg->path);
		sg->path = NULL;
		goto fail;
	}
	sg->node = track_as(sg->path, NODE_LIVE_DIR);
	test_stop("stage");
	sg->fd = open(sg->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (!sg->node || sg->fd < 0 || flock(sg->fd, LOCK_EX) != 0) {
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot lock %s: %s", sg->path,
			     sg->node ? strerror(errno) : "out of memory");
		goto fail;
	}
	{
		char *born;

		if (take_name(sg->path, &born) != 0) {
			st_error_set(err, ST_EXIT_CANTCREAT, "cannot name %s: %s",
				     sg->path, strerror(errno));
			goto fail;
		}
		untrack(sg->node);
		free(sg->path);
		sg->path = born;
		sg->node = track_as(sg->path, NODE_LIVE_DIR);
		if (!sg->node) {
			st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory",
				     dir);
			goto fail;
		}
	}
	return 0;
fail:
	st_atomic_stage_abort(sg);
	return -1;
}

/* Append the regular files below SG->path/REL (REL "" for the top) to
 * *V, *N of them, as paths relative to the stage.  Names starting with a
 * dot (temporaries) are not outputs. */
static int list_staged(const st_atomic_stage *sg, const char *rel,
		       char ***v, size_t *n, size_t *cap, int depth,
		       st_error *err)
{
	char *d = rel[0] ? st_path_join(sg->path, rel) : strdup(sg->path);
	DIR *dp = d ? opendir(d) : NULL;
	struct dirent *de;
	int rc = 0;

	if (!dp) {
		rc = st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s",
				  d ? d : sg->path, d ? strerror(errno) :
				  "out of memory");
		free(d);
		return rc;
	}
	while (rc == 0 && (de = readdir(dp)) != NULL) {
		struct stat st;
		char *sub;

		if (de->d_name[0] == '.' ||
		    fstatat(dirfd(dp), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
			continue;
		sub = rel[0] ? st_path_join(rel, de->d_name) : strdup(de->d_name);
		if (!sub) {
			rc = st_error_set(err, ST_EXIT_IOERR, "out of memory");
		} else if (S_ISDIR(st.st_mode) && depth < 8) {
			rc = list_staged(sg, sub, v, n, cap, depth + 1, err);
		} else if (S_ISREG(st.st_mode)) {
			if (*n == *cap) {
				size_t c = *cap ? 2 * *cap : 32;
				char **nv = realloc(*v, c * sizeof(*nv));

				if (!nv) {
					rc = st_error_set(err, ST_EXIT_IOERR,
							  "out of memory");
					break;
				}
				*v = nv;
				*cap = c;
			}
			(*v)[(*n)++] = sub;
			sub = NULL;
		}
		free(sub);
	}
	closedir(dp);
	free(d);
	return rc;
}

/* Put the staged file SRC in SET as a file for DST: adopted as it is (a
 * rename) when DST is missing or a regular file on the stage's file system
 * (DEV), else copied into a temporary beside the file a symlink names (or
 * beside DST on another file system), or into a device. */
static int stage_one(st_atomic_set *set, const char *src, const char *dst,
		     dev_t dev, st_error *err)
{
	st_atomic_file af;
	struct stat st, ds;
	char *ddir = dir_of(dst);
	bool same_fs = ddir && stat(ddir, &ds) == 0 && ds.st_dev == dev;

	free(ddir);
	if (same_fs && (lstat(dst, &st) != 0 || S_ISREG(st.st_mode))) {
		memset(&af, 0, sizeof(af));
		af.tmp = strdup(src);
		af.path = strdup(dst);
		af.prepared = true;     /* complete and synced in the stage */
		if (!af.tmp || !af.path) {
			free(af.tmp);
			free(af.path);
			return st_error_set(err, ST_EXIT_IOERR, "out of memory");
		}
		if (set->n == set->cap) {
			size_t cap = set->cap ? 2 * set->cap : 32;
			st_atomic_file *v = realloc(set->v, cap * sizeof(*v));

			if (!v) {
				free(af.tmp);
				free(af.path);
				return st_error_set(err, ST_EXIT_IOERR, "out of memory");
			}
			set->v = v;
			set->cap = cap;
		}
		set->v[set->n++] = af;
		return 0;
	}
	if (stat(dst, &st) == 0 && S_ISDIR(st.st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot write %s: it "
				    "is a directory", dst);
	{
		FILE *in = fopen(src, "rb");
		char buf[65536];
		size_t k;

		if (!in)
			return st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s",
					    src, strerror(errno));
		if (st_atomic_open(&af, dst, err) < 0) {
			fclose(in);
			return -1;
		}
		while ((k = fread(buf, 1, sizeof(buf), in)) > 0)
			if (fwrite(buf, 1, k, af.fp) != k)
				break;
		if (ferror(in) || ferror(af.fp)) {
			st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s", dst,
				     strerror(errno ? errno : EIO));
			fclose(in);
			st_atomic_abort(&af);
			return -1;
		}
		fclose(in);
		return st_atomic_set_add(set, &af, err);
	}
}

int st_atomic_stage_commit(st_atomic_stage *sg, st_error *err)
{
	st_atomic_set set = { 0 };
	struct stat sst;
	char **rel = NULL;
	size_t n = 0, cap = 0;
	int rc = -1;

	if (fstat(sg->fd, &sst) != 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot stat %s: %s", sg->path,
			     strerror(errno));
		goto out;
	}
	if (list_staged(sg, "", &rel, &n, &cap, 0, err) < 0)
		goto out;
	/* everything that can fail but a rename happens before the first */
	for (size_t i = 0; i < n; i++) {
		char *src = st_path_join(sg->path, rel[i]);
		char *dst = st_path_join(sg->dir, rel[i]);
		char *ddir = dst ? dir_of(dst) : NULL;
		int r = -1;

		if (!src || !dst || !ddir)
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
		else if (st_mkdir_p(ddir, err) == 0)
			r = stage_one(&set, src, dst, sst.st_dev, err);
		free(src);
		free(dst);
		free(ddir);
		if (r < 0)
			goto out;
	}
	rc = st_atomic_set_commit(&set, err);
	if (rc == 0)
		sweep_stale(sg->dir, STAGE_NAME, true);
out:
	st_atomic_set_abort(&set);
	for (size_t i = 0; i < n; i++)
		free(rel[i]);
	free(rel);
	st_atomic_stage_abort(sg);
	return rc;
}

void st_atomic_stage_abort(st_atomic_stage *sg)
{
	if (!sg)
		return;
	if (sg->path)
		remove_tree_at(AT_FDCWD, sg->path, 8);
	untrack(sg->node);
	if (sg->path && sg->fd >= 0)
		close(sg->fd);
	free(sg->path);
	free(sg->dir);
	memset(sg, 0, sizeof(*sg));
	sg->fd = -1;
}

int st_mkdir_p(const char *path, st_error *err)
{
	char *p;
	struct stat st;

	if (!*path)
		return st_error_set(err, ST_EXIT_CANTCREAT, "cannot create "
				    "directory '': the name is empty");
	p = strdup(path);
	if (!p)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
	for (char *s = p + 1;; s++) {
		if (*s != '/' && *s != '\0')
			continue;
		char c = *s;

		*s = '\0';
		if (mkdir(p, 0777) != 0 && errno != EEXIST) {
			st_error_set(err, ST_EXIT_CANTCREAT,
				     "cannot create directory %s: %s", p,
				     strerror(errno));
			free(p);
			return -1;
		}
		*s = c;
		if (c == '\0')
			break;
	}
	free(p);
	if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
		return st_error_set(err, ST_EXIT_CANTCREAT,
				    "cannot create directory %s: not a directory",
				    path);
	return 0;
}

/* flock FD (for PATH, in messages). */
static int lock_fd(int fd, const char *path, bool wait, st_error *err)
{
	while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) != 0) {
		int e = errno;

		if (e == EINTR)
			continue;
		if (e == EWOULDBLOCK)
			return st_error_set(err, ST_EXIT_TEMPFAIL,
					    "%s is held by another run; "
					    "try again later or pass --wait",
					    path);
		return st_error_set(err, ST_EXIT_IOERR, "cannot lock %s: %s",
				    path, strerror(e));
	}
	return 0;
}

int st_atomic_lock(const char *path, bool wait, st_error *err)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666), e = errno;

	/* another user's lock file: reading is enough for a local flock; when
	 * there is none, what failed is creating it (EACCES, not ENOENT) */
	if (fd < 0 && e == EACCES) {
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != ENOENT)
			e = errno;
	}
	if (fd < 0)
		return st_error_set(err, ST_EXIT_CANTCREAT,
				    "cannot open lock file %s: %s", path,
				    strerror(e));
	if (lock_fd(fd, path, wait, err) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

void st_atomic_unlock(int fd)
{
	if (fd >= 0)
		close(fd);      /* closing the last descriptor drops the flock */
}

int st_atomic_append_open(st_atomic_append *ap, const char *path, bool wait,
			  st_error *err)
{
	struct stat st;
	size_t cap, keep;
	ssize_t n;

	memset(ap, 0, sizeof(*ap));
	ap->fd = -1;
	ap->path = strdup(path);
	if (!ap->path)
		return st_error_set(err, ST_EXIT_CANTCREAT, "%s: out of memory", path);
	ap->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	if (ap->fd < 0 && errno == ENOENT) {
		ap->fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
		ap->created = ap->fd >= 0;
		if (ap->fd < 0 && errno == EEXIST)      /* a run just made it */
			ap->fd = open(path, O_RDWR | O_CLOEXEC | O_NONBLOCK);
	}
	if (ap->fd < 0) {
		st_error_set(err, ST_EXIT_CANTCREAT, "cannot open %s for writing: %s",
			     path, strerror(errno));
		goto fail;
	}
	if (fstat(ap->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		st_error_set(err, ST_EXIT_CANTCREAT, "%s: not a regular file", path);
		goto fail;
	}
	if (lock_fd(ap->fd, path, wait, err) < 0)
		goto fail;
	/* the size that counts is the one under the lock */
	if (fstat(ap->fd, &st) != 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot stat %s: %s", path,
			     strerror(errno));
		goto fail;
	}
	cap = (size_t)st.st_size;
	ap->data = malloc(cap + 1);
	if (!ap->data) {
		st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", path);
		goto fail;
	}
	while (ap->len < cap) {
		n = pread(ap->fd, ap->data + ap->len, cap - ap->len, (off_t)ap->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			st_error_set(err, ST_EXIT_IOERR, "cannot read %s: %s", path,
				     strerror(errno));
			goto fail;
		}
		if (n == 0)
			break;
		ap->len += (size_t)n;
	}
	ap->data[ap->len] = '\0';
	keep = ap->len;
	while (keep > 0 && ap->data[keep - 1] != '\n')
		keep--;
	ap->tail = ap->len - keep;
	return 0;
fail:
	st_atomic_append_close(ap);
	return -1;
}

int st_atomic_append_check_header(const st_atomic_append *ap,
				  const char *header, const char *what,
				  st_error *err)
{
	const char *nl = memchr(ap->data, '\n', ap->len);
	size_t hlen = strlen(header), n;

	if (ap->len == 0)
		return 0;
	if (!nl) {
		/* only a first write cut short is ours: HEADER "\n" starts so */
		if (ap->len <= hlen && memcmp(ap->data, header, ap->len) == 0)
			return 0;
		n = ap->len;
	} else {
		n = (size_t)(nl - ap->data);
		if (n && ap->data[n - 1] == '\r')
			n--;
		if (n == hlen && memcmp(ap->data, header, n) == 0)
			return 0;
	}
	return st_error_set(err, ST_EXIT_DATAERR,
			    "%s:1: header '%.*s%s' is not '%s': not %s "
			    "(nothing was changed)", ap->path,
			    (int)(n > 100 ? 100 : n), ap->data, n > 100 ? "..." : "",
			    header, what);
}

int st_atomic_append_repair(st_atomic_append *ap,
			    bool (*whole)(const char *line, size_t len, void *ctx),
			    void *ctx, st_error *err)
{
	size_t keep = ap->len - ap->tail;

	if (ap->tail == 0)
		return 0;
	if (whole && whole(ap->data + keep, ap->tail, ctx)) {
		char *nd = realloc(ap->data, ap->len + 2);

		if (!nd)
			return st_error_set(err, ST_EXIT_IOERR, "%s: out of memory",
					    ap->path);
		ap->data = nd;
		if (pwrite(ap->fd, "\n", 1, (off_t)ap->len) != 1 || fsync(ap->fd) != 0)
			return st_error_set(err, ST_EXIT_IOERR, "cannot end the last "
					    "line of %s: %s", ap->path,
					    strerror(errno));
		ap->data[ap->len++] = '\n';
		ap->data[ap->len] = '\0';
		ap->completed = true;
	} else {
		if (ftruncate(ap->fd, (off_t)keep) != 0 || fsync(ap->fd) != 0)
			return st_error_set(err, ST_EXIT_IOERR, "cannot cut the torn "
					    "last line of %s: %s", ap->path,
					    strerror(errno));
		ap->dropped = ap->tail;
		ap->len = keep;
		ap->data[keep] = '\0';
	}
	ap->tail = 0;
	return 0;
}

int st_atomic_append_write(st_atomic_append *ap, const char *buf, size_t len,
			   st_error *err)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(ap->fd, buf + done, len - done,
				   (off_t)(ap->len + done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			/* leave no partial row behind; if even that fails,
			 * the next open cuts the torn line */
			bool cut = ftruncate(ap->fd, (off_t)ap->len) == 0;

			return st_error_set(err, ST_EXIT_IOERR, "cannot write %s: %s%s",
					    ap->path, strerror(e),
					    cut ? "" : " (its torn last line is "
					    "cut by the next run)");
		}
		done += (size_t)n;
	}
	if (fsync(ap->fd) != 0)
		return st_error_set(err, ST_EXIT_IOERR, "cannot sync %s: %s",
				    ap->path, strerror(errno));
	ap->len += len;
	if (ap->created) {
		if (sync_dir(ap->path) != 0)
			return st_error_set(err, ST_EXIT_IOERR,
					    "cannot sync the directory of %s: %s",
					    ap->path, strerror(errno));
		ap->created = false;
	}
	return 0;
}

void st_atomic_append_close(st_atomic_append *ap)
{
	if (!ap)
		return;
	if (ap->fd >= 0)
		close(ap->fd);
	free(ap->path);
	free(ap->data);
	memset(ap, 0, sizeof(*ap));
	ap->fd = -1;
}
