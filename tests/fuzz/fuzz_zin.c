/* libFuzzer target: zin, a trace file's bytes inflated when gzip
 * (src/trace/zin.c).  Beyond "no crash": on the same bytes, zin and zlib's
 * gzread (what the reader used before) give the same verdict, a clean end
 * or an error, and the same bytes when both end cleanly. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "zin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* At most this much is inflated: a small input may stand for far more. */
#define OUT_MAX (1u << 20)

struct out {
	unsigned char *p;
	size_t n;
	int err;        /* 0 a clean end, 1 an error, -1 stopped at OUT_MAX */
};

static struct out by_zin(const char *path, size_t chunk)
{
	struct out o = { malloc(OUT_MAX), 0, 0 };
	st_zin *z = st_zin_open(path);
	ssize_t n = 0;

	if (!o.p || !z)
		abort();
	while (o.n < OUT_MAX) {
		size_t want = OUT_MAX - o.n < chunk ? OUT_MAX - o.n : chunk;

		if ((n = st_zin_read(z, o.p + o.n, want)) <= 0)
			break;
		o.n += (size_t)n;
	}
	o.err = o.n >= OUT_MAX ? -1 : n < 0;
	if (n < 0 && st_zin_error(z, NULL) != 65 && st_zin_error(z, NULL) != 74)
		abort();
	st_zin_close(z);
	return o;
}

static struct out by_gzread(const char *path)
{
	struct out o = { malloc(OUT_MAX), 0, 0 };
	gzFile f = gzopen(path, "rb");
	int n = 0, errnum;

	if (!o.p || !f)
		abort();
	while (o.n < OUT_MAX &&
	       (n = gzread(f, o.p + o.n, (unsigned)(OUT_MAX - o.n))) > 0)
		o.n += (size_t)n;
	gzerror(f, &errnum);
	o.err = o.n >= OUT_MAX ? -1
		: n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END);
	gzclose_r(f);
	return o;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("zin", MFD_CLOEXEC);
	char path[64];
	struct out a, b, c;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	a = by_zin(path, 4096);
	b = by_gzread(path);
	c = by_zin(path, 7);   /* another way of asking: the same bytes */
	if (a.err >= 0 && b.err >= 0) {
		if (a.err != b.err)
			abort();   /* one of them took damaged data */
		if (!a.err && (a.n != b.n || memcmp(a.p, b.p, a.n) != 0))
			abort();   /* ... or gave other bytes */
	}
	if (a.err >= 0 && c.err >= 0 && (a.err != c.err ||
	    (!a.err && (a.n != c.n || memcmp(a.p, c.p, a.n) != 0))))
		abort();
	free(a.p);
	free(b.p);
	free(c.p);
	close(fd);
	return 0;
}
