/* peak_rss COMMAND [ARG]...: run COMMAND, print its peak resident size in
 * KiB (ru_maxrss) on standard error's last line, exit as it did.  Linux
 * keeps in ru_maxrss the peak of what the process held before exec too:
 * forked from this small program, not from the test's Python (10 MB and
 * more), COMMAND's own peak is what is measured. */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct rusage ru;
	int status;
	pid_t pid;

	if (argc < 2) {
		fputs("usage: peak_rss COMMAND [ARG]...\n", stderr);
		return 64;
	}
	if ((pid = fork()) < 0) {
		perror("peak_rss: fork");
		return 71;
	}
	if (pid == 0) {
		execv(argv[1], argv + 1);
		perror("peak_rss: exec");
		_exit(127);
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("peak_rss: wait4");
		return 71;
	}
	fprintf(stderr, "peak_rss %ld\n", ru.ru_maxrss);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
