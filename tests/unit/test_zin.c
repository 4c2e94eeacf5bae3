/* Unit tests: zin, an input's bytes inflated when gzip (src/trace/zin.c).
 * Built twice: with the build's inflater (ISA-L where there is one) and
 * with zlib's (ST_ZIN_ZLIB).  The reference is zlib's own gzread, which
 * the reader used before: every file here, whole, cut at every byte or
 * with any byte flipped, must give zin and gzread the same verdict, and
 * zin's bytes must be the content (or, on an error, a prefix of it). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "zin.h"

#define TMPDIR_NAME "zin"
#include "tmpdir.h"

#include "buf.h"

/* N bytes of trace-like text (lines of JSON with varying numbers). */
static struct buf text(size_t n, unsigned seed)
{
	struct buf b = { 0 };
	char line[200];

	while (b.n < n) {
		int k;

		seed = seed * 1103515245u + 12345u;
		k = snprintf(line, sizeof(line),
			     "{\"id\":%u,\"name\":\"read\",\"cat\":\"POSIX\","
			     "\"pid\":%u,\"ts\":%u,\"dur\":%u}\n", seed >> 8,
			     (seed >> 3) & 7, seed, seed >> 20);
		buf_add(&b, line, n - b.n < (size_t)k ? n - b.n : (size_t)k);
	}
	return b;
}

/* TEXT[0..N) as one gzip member appended to OUT, with header H (NULL:
 * zlib's plain one). */
static void gz_member_hdr(struct buf *out, const unsigned char *t, size_t n,
			  gz_header *h)
{
	z_stream zs = { 0 };
	unsigned char chunk[4096];
	int rc;

	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	if (h)
		assert_int_equal(deflateSetHeader(&zs, h), Z_OK);
	zs.next_in = (unsigned char *)t;
	zs.avail_in = (uInt)n;
	do {
		zs.next_out = chunk;
		zs.avail_out = sizeof(chunk);
		rc = deflate(&zs, Z_FINISH);
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
		buf_add(out, chunk, sizeof(chunk) - zs.avail_out);
	} while (rc != Z_STREAM_END);
	deflateEnd(&zs);
}

static void gz_member(struct buf *out, const unsigned char *t, size_t n)
{
	gz_member_hdr(out, t, n, NULL);
}

/* What a reader gave: its bytes and whether it ended cleanly. */
struct got {
	struct buf b;
	int err;                /* zin: 65, 74; gzread: 1 */
	char what[128];
};

static struct got by_zin(const char *path, size_t chunk)
{
	struct got g = { { 0 }, 0, "" };
	st_zin *z = st_zin_open(path);
	unsigned char *tmp = malloc(chunk);
	ssize_t n;

	assert_non_null(z);
	assert_non_null(tmp);
	while ((n = st_zin_read(z, tmp, chunk)) > 0)
		buf_add(&g.b, tmp, (size_t)n);
	if (n < 0) {
		const char *what;

		g.err = st_zin_error(z, &what);
		assert_true(g.err == 65 || g.err == 74);
		assert_non_null(what);
		snprintf(g.what, sizeof(g.what), "%s", what);
		/* an error stays */
		assert_int_equal(st_zin_read(z, tmp, chunk), -1);
	} else {
		assert_int_equal(st_zin_error(z, NULL), 0);
		assert_int_equal(st_zin_read(z, tmp, chunk), 0);
	}
	free(tmp);
	st_zin_close(z);
	return g;
}

static struct got by_gzread(const char *path)
{
	struct got g = { { 0 }, 0, "" };
	gzFile f = gzopen(path, "rb");
	unsigned char tmp[65536];
	int n, errnum;

	assert_non_null(f);
	while ((n = gzread(f, tmp, sizeof(tmp))) > 0)
		buf_add(&g.b, tmp, (size_t)n);
	gzerror(f, &errnum);
	if (n < 0 || (errnum != Z_OK && errnum != Z_STREAM_END))
		g.err = 1;
	gzclose_r(f);
	return g;
}

static bool is_prefix(const struct buf *a, const struct buf *whole)
{
	return a->n <= whole->n &&
	       (!a->n || memcmp(a->p, whole->p, a->n) == 0);
}

static void test_plain_passes_through(void **state)
{
	struct buf t = text(300000, 1);
	const char *p = put("plain.pfw", &t);
	size_t chunks[] = { 1, 7, 4096, 1 << 20 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct got g = by_zin(p, chunks[i]);

		assert_int_equal(g.err, 0);
		assert_int_equal(g.b.n, t.n);
		assert_memory_equal(g.b.p, t.p, t.n);
		free(g.b.p);
	}
	free(t.p);
}

static void test_empty_and_tiny_files(void **state)
{
	struct buf e = { 0 }, one = { 0 };
	struct got g;

	(void)state;
	g = by_zin(put("empty", &e), 100);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.b.n, 0);
	/* one byte of the magic: not gzip, passed through as zlib does */
	buf_add(&one, "\x1f", 1);
	g = by_zin(put("one", &one), 100);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.b.n, 1);
	free(g.b.p);
	free(one.p);
}

static void test_one_member_any_chunk(void **state)
{
	struct buf t = text(2000000, 2), gz = { 0 };
	const char *p;
	size_t chunks[] = { 1, 3, 100, 65536, 1 << 22 };
	st_zin *z;
	unsigned char tmp[64];

	(void)state;
	gz_member(&gz, t.p, t.n);
	p = put("one.gz", &gz);
	for (size_t i = 0; i < 5; i++) {
		struct got g;

		if (chunks[i] == 1 && t.n > 300000)
			continue;   /* covered by the 3-byte chunks */
		g = by_zin(p, chunks[i]);
		assert_int_equal(g.err, 0);
		assert_int_equal(g.b.n, t.n);
		assert_memory_equal(g.b.p, t.p, t.n);
		free(g.b.p);
	}
	/* the compressed bytes read: all of them at the end */
	z = st_zin_open(p);
	assert_non_null(z);
	while (st_zin_read(z, tmp, sizeof(tmp)) > 0)
		;
	assert_true(st_zin_is_gzip(z));
	assert_int_equal(st_zin_offset(z), gz.n);
	st_zin_close(z);
	free(t.p);
	free(gz.p);
}

/* Members one after the other (DFTracer's compressor and `cat a.gz b.gz`
 * make such files), one of them empty: their contents in order. */
static void test_members_concatenated(void **state)
{
	struct buf t = text(700000, 3), gz = { 0 };
	size_t cut[] = { 0, 1000, 1000, 350001, 700000 };
	struct got g;

	(void)state;
	for (size_t i = 0; i + 1 < 5; i++)
		gz_member(&gz, t.p + cut[i], cut[i + 1] - cut[i]);
	g = by_zin(put("multi.gz", &gz), 65536);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.b.n, t.n);
	assert_memory_equal(g.b.p, t.p, t.n);
	free(g.b.p);
	free(t.p);
	free(gz.p);
}

/* Headers with every optional field (as `gzip -N` and others write a
 * name, a comment, extra fields, a header CRC), two such members. */
static void test_header_fields(void **state)
{
	struct buf t = text(40000, 7), gz = { 0 };
	unsigned char extra[] = { 'S', 'T', 4, 0, 1, 2, 3, 4 };
	gz_header h = { 0 };
	struct got g, ref;
	const char *p;

	(void)state;
	h.text = 1;
	h.time = 1700000000;
	h.os = 3;
	h.extra = extra;
	h.extra_len = sizeof(extra);
	h.name = (Bytef *)"trace-0.pfw";
	h.comment = (Bytef *)"a comment";
	h.hcrc = 1;
	gz_member_hdr(&gz, t.p, 20000, &h);
	gz_member_hdr(&gz, t.p + 20000, t.n - 20000, &h);
	assert_int_equal(gz.p[3], 0x1f);   /* FTEXT FHCRC FEXTRA FNAME FCOMMENT */
	g = by_zin(p = put("hdr.gz", &gz), 777);
	ref = by_gzread(p);
	assert_int_equal(ref.err, 0);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.b.n, t.n);
	assert_memory_equal(g.b.p, t.p, t.n);
	free(g.b.p);
	free(ref.b.p);
	/* the header CRC is checked */
	gz.p[12] ^= 1;   /* a byte of the extra field */
	g = by_zin(p = put("hdr-bad.gz", &gz), 777);
	ref = by_gzread(p);
	assert_int_equal(ref.err, 1);
	assert_int_equal(g.err, 65);
	free(g.b.p);
	free(ref.b.p);
	free(t.p);
	free(gz.p);
}

/* A member whose header (every optional field) straddles the end of a
 * read(2): the first member is made to end K bytes before ST_ZIN_CHUNK,
 * for K inside the fixed part, the extra field, the name, the comment and
 * the header CRC.  (ISA-L's own header reading misread such a header.) */
static void test_header_split_across_reads(void **state)
{
	struct buf t = text(3000, 9), noise = { 0 };
	unsigned char extra[] = { 'S', 'T', 4, 0, 1, 2, 3, 4 };
	gz_header h = { 0 };
	unsigned seed = 1;
	size_t len, over;
	int tried = 0;

	(void)state;
	/* bytes deflate cannot shrink: the member's size follows its length */
	while (noise.n < ST_ZIN_CHUNK) {
		unsigned char b;

		seed = seed * 1103515245u + 12345u;
		b = (unsigned char)(seed >> 16);
		buf_add(&noise, &b, 1);
	}
	h.extra = extra;
	h.extra_len = sizeof(extra);
	h.name = (Bytef *)"a-name";
	h.comment = (Bytef *)"a comment";
	h.hcrc = 1;
	{
		/* what a member adds to such bytes (blocks' heads, the
		 * header and trailer): the same for lengths this close */
		struct buf one = { 0 };

		gz_member(&one, noise.p, ST_ZIN_CHUNK - 100);
		over = one.n - (ST_ZIN_CHUNK - 100);
		free(one.p);
	}
	for (size_t k = 1; k <= 40; k++) {
		struct buf gz = { 0 }, first = { 0 };
		struct got g;

		/* noise whose member ends K bytes before the chunk */
		len = ST_ZIN_CHUNK - k - over;
		gz_member(&first, noise.p, len);
		if (first.n != ST_ZIN_CHUNK - k) {
			free(first.p);
			continue;
		}
		buf_add(&gz, first.p, first.n);
		gz_member_hdr(&gz, t.p, t.n, &h);
		g = by_zin(put("split.gz", &gz), 1 << 20);
		assert_int_equal(g.err, 0);
		assert_int_equal(g.b.n, len + t.n);
		assert_memory_equal(g.b.p, noise.p, len);
		assert_memory_equal(g.b.p + len, t.p, t.n);
		tried++;
		free(g.b.p);
		free(gz.p);
		free(first.p);
	}
	assert_true(tried >= 30);
	free(t.p);
	free(noise.p);
}

/* Bytes after the last member that do not start another are ignored, as
 * by gzread; a second magic followed by garbage is damaged data. */
static void test_trailing_bytes(void **state)
{
	struct buf t = text(5000, 4), gz = { 0 }, gz2 = { 0 };
	struct got g, ref;
	const char *p;

	(void)state;
	gz_member(&gz, t.p, t.n);
	buf_add(&gz, "\0\0\0\0garbage", 11);
	g = by_zin(p = put("trail.gz", &gz), 4096);
	ref = by_gzread(p);
	assert_int_equal(ref.err, 0);
	assert_int_equal(g.err, 0);
	assert_int_equal(g.b.n, t.n);
	free(g.b.p);
	free(ref.b.p);

	gz_member(&gz2, t.p, t.n);
	buf_add(&gz2, "\x1f\x8bnot a member", 14);
	g = by_zin(p = put("trail2.gz", &gz2), 4096);
	ref = by_gzread(p);
	assert_int_equal(ref.err, 1);
	assert_int_equal(g.err, 65);
	assert_true(is_prefix(&g.b, &t));
	free(g.b.p);
	free(ref.b.p);
	free(t.p);
	free(gz.p);
	free(gz2.p);
}

/* A file of two members cut after every byte: the verdict of gzread
 * (an error, or a clean end at a member's end or inside the second
 * magic), and zin's bytes a prefix of the content. */
static void test_cut_at_every_byte(void **state)
{
	struct buf t = text(6000, 5), gz = { 0 };
	int cuts = 0, errors = 0;

	(void)state;
	gz_member(&gz, t.p, 2500);
	gz_member(&gz, t.p + 2500, t.n - 2500);
	for (size_t k = 2; k < gz.n; k++) {
		struct buf c = { gz.p, k, k };
		const char *p = put("cut.gz", &c);
		struct got g = by_zin(p, 1000), ref = by_gzread(p);

		assert_int_equal(!!g.err, ref.err);
		if (g.err) {
			assert_int_equal(g.err, 65);
			assert_string_equal(g.what, "unexpected end of file");
			errors++;
		}
		assert_true(is_prefix(&g.b, &t));
		if (!g.err)
			assert_true(g.b.n == 2500 || g.b.n == t.n);
		cuts++;
		free(g.b.p);
		free(ref.b.p);
	}
	assert_int_equal(cuts, gz.n - 2);
	assert_true(errors >= cuts - 3);   /* clean: the member's end, +1 */
	free(t.p);
	free(gz.p);
}

/* Every byte flipped in turn: when gzread fails zin fails (65), and
 * when either succeeds both give the content (a flip in the header's
 * time stamp or OS byte changes nothing). */
static void test_flip_every_byte(void **state)
{
	struct buf t = text(3000, 6), gz = { 0 };
	int bad = 0;

	(void)state;
	gz_member(&gz, t.p, t.n);
	for (size_t k = 0; k < gz.n; k++) {
		for (int bit = 0; bit < 8; bit += 7) {
			struct buf c = { malloc(gz.n), gz.n, gz.n };
			const char *p;
			struct got g, ref;

			assert_non_null(c.p);
			memcpy(c.p, gz.p, gz.n);
			c.p[k] ^= (unsigned char)(1u << bit);
			p = put("flip.gz", &c);
			g = by_zin(p, 4096);
			ref = by_gzread(p);
			if (k < 2) {
				/* no magic: a plain file, passed through */
				assert_int_equal(g.err, 0);
				assert_int_equal(g.b.n, c.n);
			} else {
				assert_int_equal(!!g.err, ref.err);
			}
			if (g.err) {
				/* what came before the check may be wrong:
				 * the error is what says so */
				assert_int_equal(g.err, 65);
				bad++;
			} else if (k >= 2) {
				assert_int_equal(g.b.n, ref.b.n);
				if (g.b.n)
					assert_memory_equal(g.b.p, ref.b.p,
							    g.b.n);
			}
			free(g.b.p);
			free(ref.b.p);
			free(c.p);
		}
	}
	/* the body and the trailer are checked: nearly every flip fails */
	assert_true(bad > (int)gz.n);
	free(t.p);
	free(gz.p);
}

/* A member whose first megabyte is good and whose next block is of the
 * invalid type 3, read with a buffer that holds everything: the good
 * megabyte comes out before the error, so that the lines before the
 * damage count.  (Returning -1 for the call that met the error lost it.) */
static void test_damage_after_good_bytes(void **state)
{
	struct buf t = text(1000000, 8), gz = { 0 };
	z_stream zs = { 0 };
	unsigned char *chunk = malloc(1 << 21);
	struct got g, ref;
	const char *p;

	(void)state;
	assert_non_null(chunk);
	assert_int_equal(deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8,
				      Z_DEFAULT_STRATEGY), Z_OK);
	zs.next_in = t.p;
	zs.avail_in = (uInt)t.n;
	zs.next_out = chunk;
	zs.avail_out = 1 << 21;
	/* the blocks so far, ended on a byte boundary */
	assert_int_equal(deflate(&zs, Z_FULL_FLUSH), Z_OK);
	assert_int_equal(zs.avail_in, 0);
	buf_add(&gz, chunk, (1 << 21) - zs.avail_out);
	deflateEnd(&zs);
	/* BFINAL 1, BTYPE 11: no such block */
	buf_add(&gz, "\x07\0\0\0\0\0\0\0\0", 9);
	g = by_zin(p = put("damaged.gz", &gz), 1 << 22);
	ref = by_gzread(p);
	assert_int_equal(ref.err, 1);
	assert_int_equal(g.err, 65);
	/* all of the good megabyte (gzread gives 983,040 bytes of it) */
	assert_int_equal(g.b.n, t.n);
	assert_memory_equal(g.b.p, t.p, t.n);
	free(g.b.p);
	free(ref.b.p);
	free(t.p);
	free(gz.p);
	free(chunk);
}

static void test_read_error_and_missing(void **state)
{
	char sub[128];
	st_zin *z;
	unsigned char tmp[16];
	const char *what;

	(void)state;
	snprintf(sub, sizeof(sub), "%s/a-dir", dir);
	assert_int_equal(mkdir(sub, 0700), 0);
	z = st_zin_open(sub);
	assert_non_null(z);
	assert_int_equal(st_zin_read(z, tmp, sizeof(tmp)), -1);
	assert_int_equal(st_zin_error(z, &what), 74);
	assert_non_null(strstr(what, "read error: "));
	assert_non_null(strstr(what, strerror(EISDIR)));
	st_zin_close(z);
	snprintf(sub, sizeof(sub), "%s/none", dir);
	errno = 0;
	assert_null(st_zin_open(sub));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_passes_through),
		cmocka_unit_test(test_empty_and_tiny_files),
		cmocka_unit_test(test_one_member_any_chunk),
		cmocka_unit_test(test_members_concatenated),
		cmocka_unit_test(test_header_fields),
		cmocka_unit_test(test_header_split_across_reads),
		cmocka_unit_test(test_trailing_bytes),
		cmocka_unit_test(test_cut_at_every_byte),
		cmocka_unit_test(test_flip_every_byte),
		cmocka_unit_test(test_damage_after_good_bytes),
		cmocka_unit_test(test_read_error_and_missing),
	};

	fprintf(stderr, "zin: inflating with %s\n", st_zin_inflater());
	return cmocka_run_group_tests(tests, setup, teardown);
}
