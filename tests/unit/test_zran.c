/* Unit tests: zran, access points into a .pfw.gz (src/trace/zran.c) and
 * zin resuming at one (src/trace/zin.c).  Built twice, as test_zin is:
 * with the build's inflater (ISA-L where there is one) and with zlib's.
 * The reference is a plain sequential read: zlib's gzread for the bytes,
 * st_pfw_open for the events. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "streamtime/pfw.h"
#include "zin.h"
#include "zran.h"

#define TMPDIR_NAME "zran"
#include "tmpdir.h"

#include "buf.h"

/* About N bytes of DFTracer lines: events naming their file by fhash,
 * with FH events that map (and later map again) the hashes, a BOM-less
 * "[" first, a corrupt line now and then. */
static struct buf trace_text(size_t n, unsigned seed)
{
	struct buf b = { 0 };
	char line[400];
	unsigned i = 0;

	buf_add(&b, "[\n", 2);
	while (b.n < n) {
		int k;

		seed = seed * 1103515245u + 12345u;
		i++;
		if (i % 997 == 1 || i % 997 == 2)
			/* hash J % 5 names file J % 3 from here (J = i / 997:
			 * A, B, C, then A again), said twice */
			k = snprintf(line, sizeof(line), "{\"id\":%u,\"name\":"
				     "\"FH\",\"cat\":\"dftracer\",\"pid\":1,"
				     "\"tid\":1,\"ph\":\"M\",\"args\":{\"name\":"
				     "\"/data/f%u\",\"value\":%u}}\n", i,
				     (i / 997) % 3, (i / 997) % 5);
		else if (i % 997 == 3)
			k = snprintf(line, sizeof(line), "{\"id\":%u,\"name\":"
				     "\"thread_name\",\"cat\":\"dftracer\","
				     "\"pid\":1,\"tid\":1,\"ph\":\"M\",\"args\":"
				     "{\"name\":\"1\",\"value\":\"main\"}}\n", i);
		else if (i % 1499 == 0)
			k = snprintf(line, sizeof(line), "{\"id\":%u,\"name\":"
				     "broken\n", i);
		else
			k = snprintf(line, sizeof(line), "{\"id\":%u,\"name\":"
				     "\"read\",\"cat\":\"POSIX\",\"pid\":%u,"
				     "\"tid\":%u,\"ts\":%u,\"dur\":%u,\"ph\":"
				     "\"X\",\"args\":{\"fhash\":%u,\"ret\":%u}}\n",
				     i, (seed >> 3) & 3, (seed >> 5) & 7,
				     seed >> 4, seed >> 22, (seed >> 9) % 6,
				     seed >> 16);
		buf_add(&b, line, (size_t)k);
	}
	return b;
}

/* T[0..N) as gzip members, each of at most PER bytes, into OUT; a deflate
 * block ended every EVERY bytes (Z_BLOCK: at any bit) when not 0. */
static void gz_blocks(struct buf *out, const unsigned char *t, size_t n,
		      size_t per, size_t every)
{
	for (size_t at = 0; at < n; at += per) {
		z_stream zs = { 0 };
		unsigned char chunk[65536];
		size_t end = n - at < per ? n : at + per, step;
		int rc;

		assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
					      Z_DEFAULT_STRATEGY), Z_OK);
		for (size_t p = at; p < end; p += step) {
			int flush;

			step = every && end - p > every ? every : end - p;
			flush = p + step >= end ? Z_FINISH : Z_BLOCK;
			zs.next_in = (unsigned char *)t + p;
			zs.avail_in = (uInt)step;
			do {
				zs.next_out = chunk;
				zs.avail_out = sizeof(chunk);
				rc = deflate(&zs, flush);
				assert_true(rc == Z_OK || rc == Z_STREAM_END);
				buf_add(out, chunk,
					sizeof(chunk) - zs.avail_out);
			} while (zs.avail_out == 0 ||
				 (flush == Z_FINISH && rc != Z_STREAM_END));
		}
		deflateEnd(&zs);
	}
}

static void gz(struct buf *out, const unsigned char *t, size_t n, size_t per)
{
	gz_blocks(out, t, n, per, 0);
}

/* The content of PATH by zlib's gzread: the sequential reference. */
static struct buf by_gzread(const char *path)
{
	struct buf b = { 0 };
	gzFile f = gzopen(path, "rb");
	unsigned char tmp[65536];
	int n;

	assert_non_null(f);
	while ((n = gzread(f, tmp, sizeof(tmp))) > 0)
		buf_add(&b, tmp, (size_t)n);
	assert_int_equal(n, 0);
	gzclose_r(f);
	return b;
}

/* All of Z's bytes (each read at most CHUNK) and the error it ends with. */
static struct buf drain(st_zin *z, size_t chunk, int *err)
{
	struct buf b = { 0 };
	unsigned char *tmp = malloc(chunk);
	ssize_t n;

	assert_non_null(tmp);
	while ((n = st_zin_read(z, tmp, chunk)) > 0)
		buf_add(&b, tmp, (size_t)n);
	*err = n < 0 ? st_zin_error(z, NULL) : 0;
	free(tmp);
	return b;
}

static st_zran *build(const char *path, uint64_t span)
{
	st_error err = { 0 };
	st_zran *x = st_zran_build(path, span, &err);

	if (!x)
		print_error("build: %s\n", err.text);
	assert_non_null(x);
	return x;
}

/* Each access point, resumed, gives the content from its offset to the
 * end, its member's trailer checked; and skip and limit cut it. */
static void test_resume_at_every_point_equals_sequential(void **state)
{
	struct buf t = trace_text(3u << 20, 7), g = { 0 }, ref;
	const char *path;
	st_zran *x;

	(void)state;
	gz(&g, t.p, t.n, 1u << 20);      /* four members */
	path = put("resume.pfw.gz", &g);
	ref = by_gzread(path);
	assert_int_equal(ref.n, t.n);
	x = build(path, 100000);
	print_message("%zu access points\n", x->n);
	assert_true(x->n >= 8);
	assert_int_equal(x->total, t.n);
	for (size_t k = 0; k < x->n; k++) {
		const st_zran_ap *a = &x->ap[k];
		int err;
		st_zin *z = st_zin_open_at(path, &a->p, 0, UINT64_MAX, NULL);
		struct buf b;

		assert_non_null(z);
		b = drain(z, 65536 + k * 977, &err);
		st_zin_close(z);
		assert_int_equal(err, 0);
		assert_int_equal(b.n, ref.n - a->p.out);
		assert_memory_equal(b.p, ref.p + a->p.out, b.n);
		/* the window is the content before the point */
		assert_memory_equal(a->p.window,
				    ref.p + a->p.out - a->p.win_len,
				    a->p.win_len);
		/* the line boundary and its number, counted here */
		assert_true(a->line_out == 0 || ref.p[a->line_out - 1] == '\n');
		assert_null(memchr(ref.p + a->p.out, '\n',
				   a->line_out - a->p.out -
				   (a->line_out > a->p.out)));
		{
			uint64_t nl = 0;

			for (size_t i = 0; i < a->line_out; i++)
				nl += ref.p[i] == '\n';
			assert_int_equal(a->lineno, nl);
		}
		free(b.p);
		z = st_zin_open_at(path, &a->p, 5, 1000, NULL);
		b = drain(z, 333, &err);
		st_zin_close(z);
		assert_int_equal(err, 0);
		assert_int_equal(b.n, 1000);
		assert_memory_equal(b.p, ref.p + a->p.out + 5, 1000);
		free(b.p);
	}
	st_zran_free(x);
	free(t.p);
	free(g.p);
	free(ref.p);
}

/* A point whose member trailer was changed after the index was built:
 * the resumed read says so, as a sequential one does. */
static void test_resume_checks_the_trailer(void **state)
{
	struct buf t = trace_text(600000, 3), g = { 0 }, b;
	const char *path;
	st_zran *x;
	st_zin *z;
	int err;

	(void)state;
	gz(&g, t.p, t.n, t.n);
	path = put("trailer.pfw.gz", &g);
	x = build(path, 100000);
	assert_true(x->n > 0);
	g.p[g.n - 6] ^= 1;              /* the CRC-32's high byte */
	put("trailer.pfw.gz", &g);
	z = st_zin_open_at(path, &x->ap[x->n - 1].p, 0, UINT64_MAX,
			   NULL);
	b = drain(z, 65536, &err);
	assert_int_equal(err, 65);
	st_zin_close(z);
	free(b.p);
	st_zran_free(x);
	free(t.p);
	free(g.p);
}

/* Encoding and decoding keep every field; a cut or a wrong magic is no
 * index. */
static void test_index_encode_decode(void **state)
{
	struct buf t = trace_text(1u << 20, 5), g = { 0 };
	const char *path;
	st_zran *x, *y;
	char *e1, *e2;
	size_t l1, l2;

	(void)state;
	gz(&g, t.p, t.n, t.n);
	path = put("codec.pfw.gz", &g);
	x = build(path, 60000);
	assert_true(x->n > 3 && x->nmeta > 3);
	assert_int_equal(st_zran_encode(x, &e1, &l1), 0);
	y = st_zran_decode(e1, l1);
	assert_non_null(y);
	assert_int_equal(y->n, x->n);
	assert_int_equal(y->nmeta, x->nmeta);
	assert_int_equal(y->total, x->total);
	assert_int_equal(y->lines, x->lines);
	for (size_t i = 0; i < x->n; i++) {
		assert_int_equal(y->ap[i].p.bit, x->ap[i].p.bit);
		assert_int_equal(y->ap[i].p.crc, x->ap[i].p.crc);
		assert_int_equal(y->ap[i].line_out, x->ap[i].line_out);
		assert_int_equal(y->ap[i].nmeta, x->ap[i].nmeta);
		assert_memory_equal(y->ap[i].p.window, x->ap[i].p.window,
				    x->ap[i].p.win_len);
	}
	assert_int_equal(st_zran_encode(y, &e2, &l2), 0);
	assert_int_equal(l2, l1);
	assert_memory_equal(e2, e1, l1);
	for (size_t cut = 0; cut < l1; cut += 1 + cut / 3)
		assert_null(st_zran_decode(e1, cut));
	e1[0] ^= 1;
	assert_null(st_zran_decode(e1, l1));
	e1[0] ^= 1;
	/* an access point out of order */
	if (x->n > 1) {
		st_zran_ap keep = x->ap[1];

		x->ap[1].line_out = x->ap[0].line_out;
		free(e2);
		assert_int_equal(st_zran_encode(x, &e2, &l2), 0);
		assert_null(st_zran_decode(e2, l2));
		x->ap[1] = keep;
	}
	free(e1);
	free(e2);
	st_zran_free(x);
	st_zran_free(y);
	free(t.p);
	free(g.p);
}

/* What a reader gives, as text: an event per line with its names, a
 * corrupt line with its number, then the counts and the end. */
static void read_all(st_pfw_reader *r, struct buf *out)
{
	st_pfw_event ev;
	st_error err = { 0 };
	char line[600];
	int rc;

	while ((rc = st_pfw_next(r, &ev, &err)) > 0) {
		int k;

		if (rc == ST_PFW_BAD) {
			const char *why;
			uint64_t no = st_pfw_bad_line(r, &why);

			k = snprintf(line, sizeof(line), "bad %llu %s\n",
				     (unsigned long long)no, why);
		} else {
			k = snprintf(line, sizeof(line), "%s %s %lld %lld "
				     "%lld\n", st_pfw_str(r, ev.name, NULL),
				     ev.file == ST_PFW_NONE ? "-"
				     : st_pfw_file_str(r, ev.file, NULL),
				     (long long)ev.pid, (long long)ev.ts,
				     (long long)ev.bytes);
		}
		buf_add(out, line, (size_t)k);
	}
	assert_int_equal(rc, ST_PFW_EOF);
}

/* The ranges st_zran_cut makes, read one after another from their
 * access points, give the events and corrupt lines a sequential read
 * gives: the same files for the same hashes (the FH events before each
 * point replayed), the same line numbers, the same counts. */
static void test_ranges_equal_sequential_read(void **state)
{
	struct buf t = trace_text(4u << 20, 11), g = { 0 };
	const char *path;
	st_zran *x;

	(void)state;
	gz(&g, t.p, t.n, 3u << 20);
	path = put("ranges.pfw.gz", &g);
	x = build(path, 50000);
	for (size_t parts = 1; parts <= 7; parts += 3) {
		struct buf seq = { 0 }, split = { 0 };
		st_error err = { 0 };
		st_pfw_reader *r = st_pfw_open(path, &err);
		st_pfw_stats s1, s2 = { 0 };
		size_t cut[8], nc = st_zran_cut(x, parts, cut);

		assert_int_equal(nc, parts - 1);
		read_all(r, &seq);
		s1 = *st_pfw_stats_get(r);
		st_pfw_close(r);
		for (size_t i = 0; i <= nc; i++) {
			const st_pfw_stats *s;

			r = st_zran_open(x, path, i ? cut[i - 1] : SIZE_MAX,
					 i < nc ? cut[i] : SIZE_MAX, &err);
			assert_non_null(r);
			read_all(r, &split);
			s = st_pfw_stats_get(r);
			s2.lines += s->lines;
			s2.events += s->events;
			s2.meta += s->meta;
			s2.bad += s->bad;
			st_pfw_close(r);
		}
		assert_true(s1.meta > 10 && s1.bad > 10);
		/* the M events that change nothing are not kept: the second
		 * of each pair, the thread names */
		assert_true(x->nmeta > 0 && x->nmeta <= s1.meta / 3 + 1);
		assert_int_equal(s2.lines, s1.lines);
		assert_int_equal(s2.events, s1.events);
		assert_int_equal(s2.meta, s1.meta);
		assert_int_equal(s2.bad, s1.bad);
		assert_int_equal(split.n, seq.n);
		assert_memory_equal(split.p, seq.p, seq.n);
		free(seq.p);
		free(split.p);
	}
	st_zran_free(x);
	free(t.p);
	free(g.p);
}

/* Lines longer than the span between points: a point waiting for its
 * line takes no other before it, so each leads to a line of its own
 * (found by fuzz_zran_read: the earlier ones led nowhere). */
static void test_point_waits_for_long_line(void **state)
{
	struct buf t = { 0 }, g = { 0 }, ref;
	const char *path;
	st_zran *x;

	(void)state;
	for (unsigned i = 0, seed = 1; i < 300; i++) {
		char line[5000], name[3800];
		size_t n = 3000 + (i % 7) * 100;
		int k;

		for (size_t j = 0; j < n; j++) {
			seed = seed * 1103515245u + 12345u;
			name[j] = (char)('a' + (seed >> 16) % 26);
		}
		name[n] = '\0';
		k = snprintf(line, sizeof(line), "{\"id\":%u,\"name\":\"read\","
			     "\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,\"ts\":%u,"
			     "\"dur\":2,\"ph\":\"X\",\"args\":{\"fname\":"
			     "\"/%s\"}}\n", i, i, name);
		buf_add(&t, line, (size_t)k);
	}
	gz_blocks(&g, t.p, t.n, t.n, 700);
	path = put("long.pfw.gz", &g);
	ref = by_gzread(path);
	x = build(path, 500);
	assert_true(x->n > 10);
	for (size_t k = 0; k < x->n; k++) {
		const st_zran_ap *a = &x->ap[k];

		assert_true(a->line_out >= a->p.out);
		assert_true(a->line_out < x->total);
		assert_int_equal(ref.p[a->line_out - 1], '\n');
		if (k)
			assert_true(a->line_out > x->ap[k - 1].line_out);
	}
	st_zran_free(x);
	free(t.p);
	free(g.p);
	free(ref.p);
}

/* A range that stops before its member's end still has its content
 * checked: against the CRC-32 the next point holds.  Here that CRC is
 * wrong (an index that is not the file's): the range that ends there
 * says "incorrect data check", 65, where it would otherwise have taken
 * the bytes unchecked; so does the one that starts there (at its
 * member's trailer); the first is as it was. */
static void test_range_checked_at_next_point(void **state)
{
	struct buf t = trace_text(2u << 20, 9), g = { 0 };
	const char *path;
	st_zran *x;
	size_t cut[2];

	(void)state;
	gz(&g, t.p, t.n, t.n);
	path = put("checked.pfw.gz", &g);
	x = build(path, 100000);
	assert_int_equal(st_zran_cut(x, 3, cut), 2);
	x->ap[cut[1]].p.crc ^= 1;
	for (size_t i = 0; i < 3; i++) {
		st_error err = { 0 };
		st_pfw_reader *r = st_zran_open(x, path,
						i ? cut[i - 1] : SIZE_MAX,
						i < 2 ? cut[i] : SIZE_MAX, &err);
		st_pfw_event ev;
		int rc;

		assert_non_null(r);
		while ((rc = st_pfw_next(r, &ev, &err)) > 0)
			;
		if (i > 0) {
			assert_int_equal(rc, ST_PFW_ERROR);
			assert_int_equal(err.code, 65);
			assert_non_null(strstr(err.text, "incorrect data check"));
		} else {
			assert_int_equal(rc, ST_PFW_EOF);
		}
		st_pfw_close(r);
	}
	st_zran_free(x);
	free(t.p);
	free(g.p);
}

/* A line of 32 MiB, longer than the reader takes (ST_PFW_MAX_LINE),
 * between two parts of a file: no point waits for the line after it (one
 * that did was more than ST_PFW_MAX_LINE before its line, an index
 * st_zran_decode refused, so the file was indexed again on every read);
 * the index decodes, and its ranges read as the file does. */
static void test_index_across_too_long_line(void **state)
{
	struct buf t = trace_text(3u << 20, 4), g = { 0 };
	const char *path;
	st_zran *x, *y;
	char *e;
	size_t len, cut[2];

	(void)state;
	buf_add(&t, "{\"name\":\"", 9);
	for (size_t i = 0; i < 2 * ST_PFW_MAX_LINE + 4096; i += 4096) {
		static char xs[4096];

		memset(xs, 'x', sizeof(xs));
		buf_add(&t, xs, sizeof(xs));
	}
	buf_add(&t, "\"}\n", 3);
	{
		struct buf tail = trace_text(3u << 20, 5);

		buf_add(&t, tail.p + 2, tail.n - 2);   /* without its "[" */
		free(tail.p);
	}
	gz(&g, t.p, t.n, t.n);
	path = put("toolong.pfw.gz", &g);
	x = build(path, 1u << 20);
	for (size_t k = 0; k < x->n; k++)
		assert_true(x->ap[k].line_out - x->ap[k].p.out <=
			    ST_PFW_MAX_LINE);
	assert_int_equal(st_zran_encode(x, &e, &len), 0);
	y = st_zran_decode(e, len);
	assert_non_null(y);
	assert_int_equal(st_zran_cut(y, 3, cut), 2);
	{
		struct buf seq = { 0 }, split = { 0 };
		st_error err = { 0 };
		st_pfw_reader *r = st_pfw_open(path, &err);

		read_all(r, &seq);
		st_pfw_close(r);
		for (size_t i = 0; i < 3; i++) {
			r = st_zran_open(y, path, i ? cut[i - 1] : SIZE_MAX,
					 i < 2 ? cut[i] : SIZE_MAX, &err);
			assert_non_null(r);
			read_all(r, &split);
			st_pfw_close(r);
		}
		assert_non_null(memmem(seq.p, seq.n, "longer than", 11));
		assert_int_equal(split.n, seq.n);
		assert_memory_equal(split.p, seq.p, seq.n);
		free(seq.p);
		free(split.p);
	}
	free(e);
	st_zran_free(x);
	st_zran_free(y);
	free(t.p);
	free(g.p);
}

/* What the ranges of X over PATH give (read_all), one after another:
 * NC + 1 of them, cut at the points CUT[0..NC) (NULL: at every point). */
static struct buf read_ranges(const st_zran *x, const char *path,
			      const size_t *cut, size_t nc)
{
	struct buf out = { 0 };

	for (size_t i = 0; i <= nc; i++) {
		st_error err = { 0 };
		st_pfw_reader *r = st_zran_open(x, path,
						!i ? SIZE_MAX
						: cut ? cut[i - 1] : i - 1,
						i == nc ? SIZE_MAX
						: cut ? cut[i] : i, &err);

		assert_non_null(r);
		read_all(r, &out);
		st_pfw_close(r);
	}
	return out;
}

/* Every range of X over PATH, cut at every point, read one after another:
 * the error code the first range that fails ends with (0: none). */
static int ranges_verdict(const st_zran *x, const char *path)
{
	int code = 0;

	for (size_t i = 0; i <= x->n && !code; i++) {
		st_error err = { 0 };
		st_pfw_reader *r = st_zran_open(x, path,
						i ? i - 1 : SIZE_MAX,
						i < x->n ? i : SIZE_MAX, &err);
		st_pfw_event ev;
		int rc;

		assert_non_null(r);
		while ((rc = st_pfw_next(r, &ev, &err)) > 0)
			;
		if (rc == ST_PFW_ERROR)
			code = err.code;
		st_pfw_close(r);
	}
	return code;
}

/* The error code a sequential read of PATH ends with (0: none). */
static int seq_verdict(const char *path)
{
	st_error err = { 0 };
	st_pfw_reader *r = st_pfw_open(path, &err);
	st_pfw_event ev;
	int rc;

	assert_non_null(r);
	while ((rc = st_pfw_next(r, &ev, &err)) > 0)
		;
	st_pfw_close(r);
	return rc == ST_PFW_ERROR ? err.code : 0;
}

/* Members of 200 lines each (a member starts at a line, as the
 * reviewer's mm.pfw.gz), PER bytes a deflate block: access points where
 * members start (the range before one stopped before the member's
 * header, the range from it began after the header, so neither read it,
 * nor checked the bytes of the member before); the index of the good
 * file, over a copy with a member's compression method or the CRC-32 of
 * the member before changed, fails in some range, as a sequential read
 * fails; the good file's ranges read as the file does. */
static void members_checked(size_t every)
{
	struct buf t = trace_text(1u << 20, 13), g = { 0 };
	size_t starts[2048], nm = 0, at = 0, lines = 0, at_start = 0;
	const char *path;
	st_zran *x;

	for (size_t i = 0; i < t.n; i++) {
		if (t.p[i] != '\n' || (++lines % 200 && i + 1 < t.n))
			continue;
		assert_true(nm < 2048);
		starts[nm++] = g.n;
		gz_blocks(&g, t.p + at, i + 1 - at, i + 1 - at, every);
		at = i + 1;
	}
	assert_true(at == t.n && nm > 30);
	path = put("members.pfw.gz", &g);
	x = build(path, 1000);
	assert_true(x->n > 30);
	for (size_t k = 0; k < x->n; k++)
		at_start += x->ap[k].p.out == x->ap[k].p.member_out;
	print_message("%zu members, %zu points, %zu where a member starts\n",
		      nm, x->n, at_start);
	assert_true(at_start > 10);
	assert_int_equal(ranges_verdict(x, path), 0);
	{
		struct buf seq = { 0 }, split = { 0 };
		st_error err = { 0 };
		st_pfw_reader *r = st_pfw_open(path, &err);

		read_all(r, &seq);
		st_pfw_close(r);
		split = read_ranges(x, path, NULL, x->n);
		assert_int_equal(split.n, seq.n);
		assert_memory_equal(split.p, seq.p, seq.n);
		free(seq.p);
		free(split.p);
	}
	for (size_t m = nm / 3; m < nm / 3 + 10; m++) {
		struct buf d = { 0 };
		const char *dp;

		/* the compression method of member M */
		buf_add(&d, g.p, g.n);
		d.p[starts[m] + 2] ^= 0x01;
		dp = put("members-cm.pfw.gz", &d);
		assert_int_equal(seq_verdict(dp), 65);
		assert_int_equal(ranges_verdict(x, dp), 65);
		/* the CRC-32 in the trailer of the member before M */
		memcpy(d.p, g.p, g.n);
		d.p[starts[m] - 8] ^= 0x01;
		dp = put("members-crc.pfw.gz", &d);
		assert_int_equal(seq_verdict(dp), 65);
		assert_int_equal(ranges_verdict(x, dp), 65);
		free(d.p);
	}
	st_zran_free(x);
	free(t.p);
	free(g.p);
}

/* Members of one deflate block each (every point where a member starts)
 * and of several. */
static void test_points_at_member_start(void **state)
{
	(void)state;
	members_checked(0);
	members_checked(3000);
}

/* A byte order mark is taken off line 1 only: line 2 "\ufeff" + an FH
 * event is a corrupt line, line 3 the same FH event maps the hash.  The
 * index keeps line 3 (the builder's reader once took the mark off the
 * first M line it was fed, line 2, and then left line 3 out as mapping
 * nothing new), and ranges read as the file does (files 1, not 2). */
static void test_bom_past_line_one(void **state)
{
	static const char fh[] = "{\"name\":\"FH\",\"ph\":\"M\",\"pid\":1,"
				 "\"tid\":1,\"args\":{\"name\":\"/x\","
				 "\"value\":111}}\n";
	struct buf t = { 0 }, g = { 0 }, seq = { 0 }, split = { 0 };
	st_error err = { 0 };
	st_pfw_reader *r;
	const char *path;
	size_t cut[2], nc;
	st_zran *x;

	(void)state;
	buf_add(&t, "[\n\xef\xbb\xbf", 5);
	buf_add(&t, fh, sizeof(fh) - 1);
	buf_add(&t, fh, sizeof(fh) - 1);
	for (unsigned i = 0; t.n < (1u << 20); i++) {
		char line[200];
		int k = snprintf(line, sizeof(line), "{\"name\":\"read\","
				 "\"cat\":\"POSIX\",\"pid\":1,\"tid\":1,"
				 "\"ts\":%u,\"dur\":3,\"ph\":\"X\",\"args\":"
				 "{\"fhash\":111}}\n", i);

		buf_add(&t, line, (size_t)k);
	}
	gz_blocks(&g, t.p, t.n, t.n, 30000);
	path = put("bom.pfw.gz", &g);
	x = build(path, 50000);
	assert_int_equal(x->nmeta, 1);
	assert_int_equal(x->meta[0].lineno, 3);
	r = st_pfw_open(path, &err);
	read_all(r, &seq);
	st_pfw_close(r);
	/* line 2 corrupt, the events' file the name line 3 gives */
	assert_non_null(memmem(seq.p, seq.n, "bad 2 ", 6));
	assert_non_null(memmem(seq.p, seq.n, "read /x ", 8));
	nc = st_zran_cut(x, 3, cut);
	assert_int_equal(nc, 2);
	split = read_ranges(x, path, cut, nc);
	assert_null(memmem(seq.p, seq.n, "fhash:", 6));
	assert_int_equal(split.n, seq.n);
	assert_memory_equal(split.p, seq.p, seq.n);
	st_zran_free(x);
	free(seq.p);
	free(split.p);
	free(t.p);
	free(g.p);
}

/* An index whose points lead a byte past their lines (line_out + 1, the
 * reviewer's tamper2.py: 420000 events and 426 corrupt lines for 420001
 * and 422, exit 0): each range from such a point fails, the skipped
 * bytes not ending the line before; and an index that counts an M event
 * before a point that comes after its line is no index. */
static void test_index_checked_against_file(void **state)
{
	struct buf t = trace_text(1u << 20, 17), g = { 0 };
	const char *path;
	st_zran *x, *y;
	size_t len, n = 0;
	char *e;

	(void)state;
	gz_blocks(&g, t.p, t.n, t.n, 30000);
	path = put("lines.pfw.gz", &g);
	x = build(path, 20000);
	assert_true(x->n > 10);
	for (size_t k = 0; k < x->n; k++) {
		st_zran_ap *a = &x->ap[k];
		st_error err = { 0 };
		st_pfw_reader *r;
		st_pfw_event ev;
		int rc;

		a->line_out++;
		r = st_zran_open(x, path, k, SIZE_MAX, &err);
		assert_non_null(r);
		rc = st_pfw_next(r, &ev, &err);
		assert_int_equal(rc, ST_PFW_ERROR);
		assert_int_equal(err.code, 65);
		assert_non_null(strstr(err.text, "access point not before a "
					"line"));
		st_pfw_close(r);
		a->line_out--;
	}
	for (size_t k = 0; k < x->n; k++)
		if (x->ap[k].nmeta) {
			x->ap[k].nmeta--;
			n++;
		}
	assert_true(n > 0);
	assert_int_equal(st_zran_encode(x, &e, &len), 0);
	y = st_zran_decode(e, len);
	assert_null(y);
	free(e);
	st_zran_free(x);
	free(t.p);
	free(g.p);
}

/* A damaged or plain file gets no index. */
static void test_no_index_of_damaged_file(void **state)
{
	struct buf t = trace_text(300000, 2), g = { 0 };
	st_error err = { 0 };
	const char *path;

	(void)state;
	gz(&g, t.p, t.n, t.n);
	g.n -= 100;
	path = put("cut.pfw.gz", &g);
	assert_null(st_zran_build(path, 10000, &err));
	assert_int_equal(err.code, 65);
	path = put("plain.pfw", &t);
	assert_null(st_zran_build(path, 10000, &err));
	assert_int_equal(err.code, 65);
	free(t.p);
	free(g.p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_resume_at_every_point_equals_sequential),
		cmocka_unit_test(test_resume_checks_the_trailer),
		cmocka_unit_test(test_index_encode_decode),
		cmocka_unit_test(test_ranges_equal_sequential_read),
		cmocka_unit_test(test_point_waits_for_long_line),
		cmocka_unit_test(test_range_checked_at_next_point),
		cmocka_unit_test(test_index_across_too_long_line),
		cmocka_unit_test(test_no_index_of_damaged_file),
		cmocka_unit_test(test_points_at_member_start),
		cmocka_unit_test(test_bom_past_line_one),
		cmocka_unit_test(test_index_checked_against_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
