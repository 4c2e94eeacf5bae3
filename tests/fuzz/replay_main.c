/* replay_main.c - run a libFuzzer target without libFuzzer.
 *
 *   fuzz-replay-TARGET PATH...
 *
 * Linked with one tests/fuzz/fuzz_*.c, this main() feeds every regular
 * file under each PATH (a file, or a directory walked recursively, in name
 * order) to LLVMFuzzerTestOneInput once, so that `meson test` replays the
 * seed corpus and the checks inside the targets (their abort() on a broken
 * promise, and the sanitizers of a sanitized build) run in CI with gcc.
 * The empty input is fed first.  Exit 0 after at least one corpus file,
 * 1 when a PATH cannot be read or holds no file (a replay that replays
 * nothing must not pass), 134 (SIGABRT) when a target aborts.
 */
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t replayed;

/* The whole file at PATH into a new buffer of *LEN bytes (never NULL on
 * success, even when empty), or NULL with a message. */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL, *p;
	size_t cap = 0, n = 0, got;

	if (!f) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path,
			strerror(errno));
		return NULL;
	}
	do {
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			if (!(p = realloc(buf, cap))) {
				fprintf(stderr, "replay: %s: out of memory\n",
					path);
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = p;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		fprintf(stderr, "replay: cannot read %s: %s\n", path,
			strerror(errno));
		free(buf);
		fclose(f);
		return NULL;
	}
	fclose(f);
	*len = n;
	return buf;
}

/* Feed the file at PATH to the target: an exact-size copy, so that
 * AddressSanitizer sees a read past its end. */
static int replay_file(const char *path)
{
	size_t len;
	uint8_t *buf = slurp(path, &len), *exact;

	if (!buf)
		return -1;
	if (!(exact = malloc(len ? len : 1))) {
		free(buf);
		return -1;
	}
	memcpy(exact, buf, len);
	free(buf);
	LLVMFuzzerTestOneInput(exact, len);
	free(exact);
	replayed++;
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Replay PATH: a regular file, or every file under a directory. */
static int replay(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	int rc = 0;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return S_ISREG(st.st_mode) ? replay_file(path) : 0;
	if (!(d = opendir(path))) {
		fprintf(stderr, "replay: cannot open %s: %s\n", path,
			strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		char **v;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (!(v = realloc(names, (n + 1) * sizeof(*v))) ||
		    !(v[n] = malloc(strlen(path) + strlen(e->d_name) + 2))) {
			names = v ? v : names;
			rc = -1;
			break;
		}
		names = v;
		sprintf(names[n++], "%s/%s", path, e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		if (rc == 0 && replay(names[i]) < 0)
			rc = -1;
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 1;
	}
	LLVMFuzzerTestOneInput((const uint8_t *)"", 0);
	for (int i = 1; i < argc; i++) {
		size_t before = replayed;

		if (replay(argv[i]) < 0)
			return 1;
		if (replayed == before) {
			fprintf(stderr, "replay: no input under %s\n", argv[i]);
			return 1;
		}
	}
	printf("replayed %zu inputs\n", replayed);
	return 0;
}
