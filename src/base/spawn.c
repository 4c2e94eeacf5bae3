/* spawn.c - child processes on pipes, started with posix_spawn. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "streamtime/spawn.h"

extern char **environ;

/* Length of the name of environment entry E ("NAME=VALUE" or "NAME"). */
static size_t env_name_len(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq ? (size_t)(eq - e) : strlen(e);
}

/* Our environment with CHANGES applied (see st_spawn_opts), as a new array
 * of borrowed strings, or NULL when out of memory. */
static char **env_with(const char *const *changes)
{
	size_t n = 0, nc = 0, w = 0;
	char **v;

	while (environ[n])
		n++;
	while (changes[nc])
		nc++;
	if (!(v = calloc(n + nc + 1, sizeof(*v))))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		size_t len = env_name_len(environ[i]);
		bool changed = false;

		for (size_t k = 0; k < nc && !changed; k++)
			changed = env_name_len(changes[k]) == len &&
				  strncmp(changes[k], environ[i], len) == 0;
		if (!changed)
			v[w++] = environ[i];
	}
	for (size_t k = 0; k < nc; k++)
		if (strchr(changes[k], '='))
			v[w++] = (char *)changes[k];
	return v;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void close_pipes(st_child *c)
{
	close_fd(&c->in);
	close_fd(&c->out);
	close_fd(&c->err);
}

int st_spawn(st_child *c, char *const argv[], const st_spawn_opts *o,
	     st_error *err)
{
	return st_spawn_to(c, argv, o, -1, -1, err);
}

int st_spawn_to(st_child *c, char *const argv[], const st_spawn_opts *o,
		int out_fd, int err_fd, st_error *err)
{
	static const unsigned want[3] = { ST_SPAWN_STDIN, ST_SPAWN_STDOUT,
					  ST_SPAWN_STDERR };
	int p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	char **envp = NULL;
	int rc = -1, e;

	c->pid = -1;
	c->in = c->out = c->err = -1;
	for (int i = 0; i < 3; i++) {
		if (!(o->flags & want[i]))
			continue;
		if (pipe2(p[i], O_CLOEXEC) != 0) {
			st_error_set(err, ST_EXIT_UNAVAILABLE, "pipe: %s",
				     strerror(errno));
			goto close;
		}
	}
	if (o->env && !(envp = env_with(o->env))) {
		st_error_set(err, ST_EXIT_UNAVAILABLE, "out of memory");
		goto close;
	}
	if ((e = posix_spawn_file_actions_init(&fa)) != 0) {
		st_error_set(err, ST_EXIT_UNAVAILABLE, "posix_spawn: %s", strerror(e));
		goto close;
	}
	if ((e = posix_spawnattr_init(&attr)) != 0) {
		posix_spawn_file_actions_destroy(&fa);
		st_error_set(err, ST_EXIT_UNAVAILABLE, "posix_spawn: %s", strerror(e));
		goto close;
	}
	/* the child's end of each pipe onto its stream (dup2 clears the
	 * close-on-exec flag that keeps it out of other children) */
	for (int i = 0; i < 3 && !e; i++)
		if (p[i][0] >= 0)
			e = posix_spawn_file_actions_adddup2(&fa, p[i][i == 0 ? 0 : 1], i);
	if (!e && out_fd >= 0)
		e = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!e && err_fd >= 0)
		e = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	if (!e && (o->flags & ST_SPAWN_NULL_IN))
		e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
						     O_RDONLY, 0);
	/* a caller that ignores SIGPIPE (to see EPIPE) must not pass that on */
	if (!e) {
		sigset_t def;

		sigemptyset(&def);
		sigaddset(&def, SIGPIPE);
		e = posix_spawnattr_setsigdefault(&attr, &def);
	}
	if (!e)
		e = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF |
					     ((o->flags & ST_SPAWN_GROUP) ?
					      POSIX_SPAWN_SETPGROUP : 0));
	if (!e)
		e = posix_spawnp(&c->pid, argv[0], &fa, &attr, argv,
				 envp ? envp : environ);
	posix_spawnattr_destroy(&attr);
	posix_spawn_file_actions_destroy(&fa);
	if (e) {
		c->pid = -1;
		st_error_set(err, ST_EXIT_UNAVAILABLE, "cannot run %s: %s", argv[0],
			     strerror(e));
		goto close;
	}
	c->in = p[0][1];
	p[0][1] = -1;
	c->out = p[1][0];
	p[1][0] = -1;
	c->err = p[2][0];
	p[2][0] = -1;
	rc = 0;
close:
	for (int i = 0; i < 3; i++) {
		close_fd(&p[i][0]);
		close_fd(&p[i][1]);
	}
	free(envp);
	return rc;
}

/* The status of a waited-for child as a shell reports it. */
static int exit_status(int status)
{
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int st_child_wait(st_child *c)
{
	int status;

	close_pipes(c);
	if (c->pid <= 0)
		return -1;
	while (waitpid(c->pid, &status, 0) < 0) {
		if (errno != EINTR) {
			c->pid = -1;
			return -1;
		}
	}
	c->pid = -1;
	return exit_status(status);
}

void st_child_stop(st_child *c, int grace_ms)
{
	close_pipes(c);
	if (c->pid <= 0)
		return;
	for (int i = 0; i < grace_ms / 10; i++) {
		siginfo_t info = { 0 };

		/* WNOWAIT: the group is killed before the pid can be reused */
		if (waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == c->pid)
			break;
		usleep(10000);
	}
	kill(-c->pid, SIGKILL);
	kill(c->pid, SIGKILL);
	waitpid(c->pid, NULL, 0);
	c->pid = -1;
}

/* Read the non-blocking FD until it would block or ends, appending to *BUF
 * (grown as needed; *LEN bytes used of *CAP, one byte kept for a NUL).
 * Returns 1 when it would block (more may come), 0 at its end, -1 on a
 * read error or when memory runs out (errno set). */
static int drain(int fd, char **buf, size_t *len, size_t *cap)
{
	for (;;) {
		ssize_t n;

		if (*len + 4096 > *cap) {
			size_t nc = *cap ? *cap * 2 : 65536;
			char *nb = realloc(*buf, nc);

			if (!nb) {
				errno = ENOMEM;
				return -1;
			}
			*buf = nb;
			*cap = nc;
		}
		n = read(fd, *buf + *len, *cap - *len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 1;
		if (n <= 0)
			return n < 0 ? -1 : 0;
		*len += (size_t)n;
	}
}

/* A new empty string for a stream that said nothing. */
static int terminate(char **buf, size_t len)
{
	if (!*buf && !(*buf = malloc(1)))
		return -1;
	(*buf)[len] = '\0';
	return 0;
}

int st_spawn_collect(char *const argv[], const st_spawn_opts *o, char **out,
		     size_t *outlen, char **errtxt, st_error *err)
{
	st_spawn_opts po = { ST_SPAWN_STDOUT | ST_SPAWN_STDERR, o ? o->env : NULL };
	size_t ocap = 0, elen = 0, ecap = 0;
	int read_errno = 0, status;
	st_child c;

	*out = *errtxt = NULL;
	*outlen = 0;
	if (st_spawn(&c, argv, &po, err) < 0)
		return -1;
	fcntl(c.out, F_SETFL, O_NONBLOCK);
	fcntl(c.err, F_SETFL, O_NONBLOCK);
	while (c.out >= 0 || c.err >= 0) {
		struct pollfd p[2] = { { c.out, POLLIN, 0 }, { c.err, POLLIN, 0 } };

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			read_errno = errno;
			break;
		}
		for (int i = 0; i < 2; i++) {
			int *fd = i == 0 ? &c.out : &c.err;
			int r;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			r = i == 0 ? drain(*fd, out, outlen, &ocap) :
				     drain(*fd, errtxt, &elen, &ecap);
			if (r < 0 && !read_errno)
				read_errno = errno;
			if (r <= 0)
				close_fd(fd);
		}
	}
	status = st_child_wait(&c);
	if (!read_errno && (terminate(out, *outlen) < 0 ||
			    terminate(errtxt, elen) < 0))
		read_errno = ENOMEM;
	if (read_errno || status < 0) {
		st_error_set(err, ST_EXIT_IOERR, "cannot read the output of %s: %s",
			     argv[0], strerror(read_errno ? read_errno : errno));
		free(*out);
		free(*errtxt);
		*out = *errtxt = NULL;
		*outlen = 0;
		return -1;
	}
	return status;
}
