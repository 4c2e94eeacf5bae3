/* libFuzzer target, differential: a .pfw.gz read in ranges from its
 * access points (src/trace/zran.c) against the same file read from its
 * start.  The input is the trace's text after a first byte; it is
 * gzipped here with a block ended every few bytes (deflate's Z_BLOCK:
 * boundaries at any bit; the first byte's high bit set, a member ended
 * every three blocks too) and indexed at every boundary.  Cut into two to four ranges, the ranges'
 * events (names, files by hash through the M events replayed, pids,
 * times, bytes), corrupt lines (numbers, reasons) and counts, one range
 * after another, must be the sequential read's. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>

#include "zran.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct text {
	char *p;
	size_t n, cap;
};

static void add(struct text *t, const char *s, size_t n)
{
	if (t->n + n > t->cap) {
		t->cap = 2 * (t->n + n) + 256;
		if (!(t->p = realloc(t->p, t->cap)))
			abort();
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
}

/* What R gives, as text, into T; its counts added to ST. */
static void read_all(st_pfw_reader *r, struct text *t, st_pfw_stats *st)
{
	st_pfw_event ev;
	st_error err;
	char line[256];
	const st_pfw_stats *s;
	int rc, k;

	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		const char *why, *name, *file = "-";
		size_t nn = 0, fn = 1;

		if (rc == ST_PFW_BAD) {
			uint64_t no = st_pfw_bad_line(r, &why);

			k = snprintf(line, sizeof(line), "bad %llu %.100s\n",
				     (unsigned long long)no, why);
			add(t, line, (size_t)k);
			continue;
		}
		name = st_pfw_str(r, ev.name, &nn);
		if (ev.file != ST_PFW_NONE)
			file = st_pfw_file_str(r, ev.file, &fn);
		add(t, name, nn);
		add(t, " ", 1);
		add(t, file, fn);
		k = snprintf(line, sizeof(line), " %lld %lld %lld %lld\n",
			     (long long)ev.pid, (long long)ev.ts,
			     (long long)ev.dur, (long long)ev.bytes);
		add(t, line, (size_t)k);
	}
	k = snprintf(line, sizeof(line), "end %d\n", rc);
	add(t, line, (size_t)k);
	s = st_pfw_stats_get(r);
	st->lines += s->lines;
	st->events += s->events;
	st->meta += s->meta;
	st->other += s->other;
	st->bad += s->bad;
}

/* DATA gzipped into FD, a block ended every EVERY bytes, a member every
 * three blocks when MEMBERS. */
static void gz(int fd, const uint8_t *data, size_t size, size_t every,
	       int members)
{
	z_stream zs = { 0 };
	unsigned char out[1 << 16];

	if (deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		abort();
	for (size_t at = 0, k = 1;; at += every, k++) {
		size_t n = size - at < every ? size - at : every;
		int last = at + n >= size, end = last || (members && k % 3 == 0);

		zs.next_in = (unsigned char *)data + at;
		zs.avail_in = (uInt)n;
		do {
			zs.next_out = out;
			zs.avail_out = sizeof(out);
			deflate(&zs, end ? Z_FINISH : Z_BLOCK);
			if (write(fd, out, sizeof(out) - zs.avail_out) < 0)
				abort();
		} while (zs.avail_out == 0);
		if (last)
			break;
		if (end && deflateReset(&zs) != Z_OK)
			abort();
	}
	deflateEnd(&zs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = memfd_create("zran", MFD_CLOEXEC);
	char path[64];
	st_error err;
	st_zran *x;

	if (fd < 0 || size < 1)
		goto out;
	gz(fd, data + 1, size - 1, 8 + data[0] % 64, data[0] & 0x80);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!(x = st_zran_build(path, 1, &err)))
		goto out;
	for (size_t parts = 2; parts <= 4; parts++) {
		struct text seq = { 0 }, split = { 0 };
		st_pfw_stats s1 = { 0 }, s2 = { 0 };
		size_t cut[4], nc = st_zran_cut(x, parts, cut);
		st_pfw_reader *r = st_pfw_open(path, &err);

		if (!r)
			abort();
		read_all(r, &seq, &s1);
		st_pfw_close(r);
		for (size_t i = 0; i <= nc; i++) {
			/* "end 0" of each range but the last: not the file's */
			size_t keep = split.n;

			if (!(r = st_zran_open(x, path, i ? cut[i - 1] : SIZE_MAX,
					       i < nc ? cut[i] : SIZE_MAX,
					       &err)))
				abort();
			read_all(r, &split, &s2);
			st_pfw_close(r);
			if (i < nc) {
				if (split.n - keep < 6 ||
				    memcmp(split.p + split.n - 6, "end 0\n", 6))
					abort();
				split.n -= 6;
			}
		}
		if (seq.n != split.n || memcmp(seq.p, split.p, seq.n) != 0 ||
		    memcmp(&s1, &s2, sizeof(s1)) != 0)
			abort();
		free(seq.p);
		free(split.p);
	}
	st_zran_free(x);
out:
	if (fd >= 0)
		close(fd);
	return 0;
}
