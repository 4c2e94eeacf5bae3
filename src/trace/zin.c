/* zin.c - an input file's bytes, inflated when it is gzip.
 *
 * One reading loop over two inflaters with the same contract: ISA-L's
 * (igzip) when the build has it, zlib's otherwise or when compiled with
 * ST_ZIN_ZLIB.  On DFTracer traces igzip inflates about three times as
 * fast as zlib and its CRC-32 is folded in; zlib stays for platforms
 * without ISA-L.  Both check each member's CRC-32 and length, so a
 * damaged stream is an error with either.  For ISA-L the gzip header is
 * read here, byte by byte across reads: ISA-L's own reading of it goes
 * wrong when the header comes in two pieces (intel/isa-l#224).
 */
#include "zin.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "st_config.h"

#if ST_HAVE_ISAL && !defined(ST_ZIN_ZLIB)
#define ZIN_ISAL 1
#include <isa-l/igzip_lib.h>
#else
#define ZIN_ISAL 0
#endif
#include <zlib.h>

#define IN_CHUNK ST_ZIN_CHUNK

struct st_zin {
	int fd;
	unsigned char *in;       /* raw bytes read, [beg, end) not yet used */
	size_t beg, end;
	bool in_eof;             /* read(2) said end of file */
	bool started, gz;
	bool between;            /* after a member: another, or the end */
	bool done;
	uint64_t limit;          /* content bytes still to give */
	uint64_t pos;            /* the content offset of the next byte */
	uint64_t check_at;       /* where the member's CRC-32 must be */
	uint32_t check_crc;      /* CHECK_CRC (UINT64_MAX: nowhere) */
	uint64_t end_at;         /* a member must end here (UINT64_MAX: no) */
	int err;                 /* 65, 74, 0 */
	const char *what;
	char msg[128];
	uint64_t offset;
#if ZIN_ISAL
	struct inflate_state *st;
	/* the member's gzip header, read here: ISA-L misreads one that comes
	 * in two pieces (intel/isa-l#224) */
	int hstate;              /* H_*: the part being read */
	uint8_t hflags;
	uint8_t hfix[10];
	size_t hleft;            /* bytes left of the part */
	uint32_t hcrc;           /* CRC-32 of the header so far */
#else
	z_stream zs;
	bool zs_init;
	/* resumed at an access point: raw deflate, its trailer read here
	 * against the point's CRC-32 and length carried on */
	bool raw, raw_end;
	uint32_t rcrc;
	uint64_t rlen;
#endif
};

static ssize_t fail(st_zin *z, int code, const char *what)
{
	z->err = code;
	snprintf(z->msg, sizeof(z->msg), "%s", what);
	z->what = z->msg;
	return -1;
}

static ssize_t read_error(st_zin *z)
{
	z->err = 74;
	snprintf(z->msg, sizeof(z->msg), "read error: %s", strerror(errno));
	z->what = z->msg;
	return -1;
}

/* More raw bytes behind the unused ones.  0 (maybe none: in_eof), -1 on
 * a read error. */
static int fill(st_zin *z)
{
	ssize_t n;

	if (z->in_eof)
		return 0;
	if (z->beg) {
		memmove(z->in, z->in + z->beg, z->end - z->beg);
		z->end -= z->beg;
		z->beg = 0;
	}
	if (z->end == IN_CHUNK)
		return 0;
	do
		n = read(z->fd, z->in + z->end, IN_CHUNK - z->end);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return (int)read_error(z);
	if (n == 0)
		z->in_eof = true;
	z->end += (size_t)n;
	z->offset += (uint64_t)n;
	return 0;
}

/* ---- the inflaters: begin a member, inflate some, end ----------------- */

#if ZIN_ISAL

enum { H_FIXED, H_XLEN, H_EXTRA, H_NAME, H_COMMENT, H_HCRC, H_DONE };

#define FHCRC 0x02
#define FEXTRA 0x04
#define FNAME 0x08
#define FCOMMENT 0x10

static int inf_begin(st_zin *z)
{
	if (!z->st && !(z->st = malloc(sizeof(*z->st))))
		return (int)fail(z, 74, "out of memory");
	isal_inflate_init(z->st);
	/* raw deflate, its CRC-32 and length checked against the trailer */
	z->st->crc_flag = ISAL_GZIP_NO_HDR_VER;
	z->hstate = H_FIXED;
	z->hleft = 10;
	z->hcrc = (uint32_t)crc32(0, Z_NULL, 0);
	return 0;
}

/* The part after the one that ended (RFC 1952: the fixed ten bytes, then
 * as the flags say an extra field, a name, a comment, a header CRC). */
static void header_next(st_zin *z)
{
	for (z->hstate++; z->hstate < H_DONE; z->hstate++) {
		if ((z->hstate == H_XLEN && (z->hflags & FEXTRA)) ||
		    (z->hstate == H_EXTRA && z->hleft) ||
		    (z->hstate == H_NAME && (z->hflags & FNAME)) ||
		    (z->hstate == H_COMMENT && (z->hflags & FCOMMENT)) ||
		    (z->hstate == H_HCRC && (z->hflags & FHCRC)))
			break;
	}
	if (z->hstate == H_XLEN || z->hstate == H_HCRC)
		z->hleft = 2;
}

/* Read what the unused raw bytes hold of the member's header.  0 (maybe
 * not all of it yet), or -1 when it is damaged. */
static int header_read(st_zin *z)
{
	while (z->hstate != H_DONE && z->beg < z->end) {
		unsigned char b = z->in[z->beg++];
		uint32_t crc = z->hcrc;

		z->hcrc = (uint32_t)crc32(z->hcrc, &b, 1);
		switch (z->hstate) {
		case H_FIXED:
			z->hfix[10 - z->hleft] = b;
			if (--z->hleft)
				break;
			/* the magic was seen before the member began */
			if (z->hfix[2] != 8)
				return (int)fail(z, 65, "unknown compression "
						 "method");
			z->hflags = z->hfix[3];
			if (z->hflags & 0xe0)
				return (int)fail(z, 65, "unknown header flags "
						 "set");
			header_next(z);
			break;
		case H_XLEN:
			z->hfix[2 - z->hleft] = b;
			if (--z->hleft)
				break;
			z->hleft = (size_t)z->hfix[0] | (size_t)z->hfix[1] << 8;
			header_next(z);
			break;
		case H_EXTRA:
			if (!--z->hleft)
				header_next(z);
			break;
		case H_NAME:
		case H_COMMENT:
			if (!b)
				header_next(z);
			break;
		case H_HCRC:
			z->hfix[2 - z->hleft] = b;
			z->hcrc = crc;   /* the CRC's own bytes are not in it */
			if (--z->hleft)
				break;
			if (((uint32_t)z->hfix[0] | (uint32_t)z->hfix[1] << 8) !=
			    (z->hcrc & 0xffff))
				return (int)fail(z, 65, "header crc mismatch");
			header_next(z);
			break;
		}
	}
	return 0;
}

static const char *isal_why(int rc)
{
	switch (rc) {
	case ISAL_INVALID_BLOCK:
		return "invalid block";
	case ISAL_INVALID_SYMBOL:
		return "invalid code";
	case ISAL_INVALID_LOOKBACK:
		return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER:
		return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD:
		return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM:
		return "incorrect data check";
	default:
		return "unknown error";
	}
}

/* Inflate from the unused raw bytes into OUT[0..N): *GOT bytes made,
 * *END when the member (trailer checked) is over.  0, or -1. */
static int inf_run(st_zin *z, unsigned char *out, size_t n, size_t *got,
		   bool *end)
{
	struct inflate_state *s = z->st;
	size_t avail;
	int rc;

	*got = 0;
	*end = false;
	if (z->hstate != H_DONE && (header_read(z) < 0 || z->hstate != H_DONE))
		return z->err ? -1 : 0;
	avail = z->end - z->beg;
	s->next_in = z->in + z->beg;
	s->avail_in = (uint32_t)avail;
	s->next_out = out;
	s->avail_out = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
	rc = isal_inflate(s);
	z->beg += avail - s->avail_in;
	*got = (size_t)(s->next_out - out);
	*end = s->block_state == ISAL_BLOCK_FINISH;
	if (rc < 0)
		return (int)fail(z, 65, isal_why(rc));
	return 0;
}

/* Begin inflating raw deflate at point P, the bits of its first byte
 * not yet used in BITS (NBITS of them), its member's CRC-32 and length
 * carried on so that ISA-L checks the trailer.  0, or -1. */
static int inf_resume(st_zin *z, const st_zin_point *p, unsigned bits,
		      unsigned nbits)
{
	if (!z->st && !(z->st = malloc(sizeof(*z->st))))
		return (int)fail(z, 74, "out of memory");
	isal_inflate_init(z->st);
	z->st->crc_flag = ISAL_GZIP_NO_HDR_VER;
	if (p->win_len && isal_inflate_set_dict(z->st, (uint8_t *)p->window,
						p->win_len) != COMP_OK)
		return (int)fail(z, 65, "invalid access point");
	z->st->crc = p->crc;
	z->st->total_out = (uint32_t)(p->out - p->member_out);
	z->st->read_in = bits;
	z->st->read_in_length = (int32_t)nbits;
	z->hstate = H_DONE;
	return 0;
}

static void inf_free(st_zin *z)
{
	free(z->st);
}

/* The CRC-32 of the member's content inflated so far. */
static uint32_t inf_crc(const st_zin *z)
{
	return z->st ? z->st->crc : 0;
}

const char *st_zin_inflater(void)
{
	return "ISA-L";
}

#else

static int inf_begin(st_zin *z)
{
	if (z->zs_init && z->raw) {
		inflateEnd(&z->zs);
		z->zs_init = z->raw = z->raw_end = false;
	}
	if (z->zs_init)
		return inflateReset(&z->zs) == Z_OK ? 0   /* cannot fail */
		       : (int)fail(z, 74, "inflater state lost");
	if (inflateInit2(&z->zs, 15 + 16) != Z_OK)
		return (int)fail(z, 74, "out of memory");
	z->zs_init = true;
	return 0;
}

static int inf_resume(st_zin *z, const st_zin_point *p, unsigned bits,
		      unsigned nbits)
{
	if (inflateInit2(&z->zs, -15) != Z_OK)
		return (int)fail(z, 74, "out of memory");
	z->zs_init = z->raw = true;
	z->rcrc = p->crc;
	z->rlen = p->out - p->member_out;
	if ((nbits && inflatePrime(&z->zs, (int)nbits, (int)bits) != Z_OK) ||
	    (p->win_len && inflateSetDictionary(&z->zs, p->window,
						p->win_len) != Z_OK))
		return (int)fail(z, 65, "invalid access point");
	return 0;
}

/* The trailer of a member resumed raw: its CRC-32 and length against
 * those carried on.  0 (*END set once it is all there), or -1. */
static int raw_trailer(st_zin *z, bool *end)
{
	const unsigned char *t = z->in + z->beg;
	uint32_t crc, len;

	if (z->end - z->beg < 8)
		return z->in_eof ? (int)fail(z, 65, "unexpected end of file")
				 : 0;
	crc = (uint32_t)t[0] | (uint32_t)t[1] << 8 | (uint32_t)t[2] << 16 |
	      (uint32_t)t[3] << 24;
	len = (uint32_t)t[4] | (uint32_t)t[5] << 8 | (uint32_t)t[6] << 16 |
	      (uint32_t)t[7] << 24;
	z->beg += 8;
	if (crc != z->rcrc)
		return (int)fail(z, 65, "incorrect data check");
	if (len != (uint32_t)z->rlen)
		return (int)fail(z, 65, "incorrect length check");
	*end = true;
	return 0;
}

static int inf_run(st_zin *z, unsigned char *out, size_t n, size_t *got,
		   bool *end)
{
	size_t avail = z->end - z->beg;
	int rc;

	*got = 0;
	*end = false;
	if (z->raw_end)
		return raw_trailer(z, end);
	z->zs.next_in = z->in + z->beg;
	z->zs.avail_in = (uInt)avail;
	z->zs.next_out = out;
	z->zs.avail_out = n > UINT32_MAX ? UINT32_MAX : (uInt)n;
	rc = inflate(&z->zs, Z_NO_FLUSH);
	z->beg += avail - z->zs.avail_in;
	*got = (size_t)(z->zs.next_out - out);
	*end = rc == Z_STREAM_END;
	if (z->raw) {
		z->rcrc = (uint32_t)crc32(z->rcrc, out, (uInt)*got);
		z->rlen += *got;
		z->raw_end = *end;
		*end = false;
	}
	if (rc == Z_MEM_ERROR)
		return (int)fail(z, 74, "out of memory");
	if (rc == Z_DATA_ERROR || rc == Z_NEED_DICT || rc == Z_STREAM_ERROR)
		return (int)fail(z, 65, z->zs.msg ? z->zs.msg
						  : "unknown error");
	return 0;
}

static void inf_free(st_zin *z)
{
	if (z->zs_init)
		inflateEnd(&z->zs);
}

static uint32_t inf_crc(const st_zin *z)
{
	return z->raw ? z->rcrc : (uint32_t)z->zs.adler;
}

const char *st_zin_inflater(void)
{
	return "zlib";
}

#endif

/* ---- the reading loop -------------------------------------------------- */

st_zin *st_zin_open(const char *path)
{
	st_zin *z = calloc(1, sizeof(*z));

	if (!z) {
		errno = ENOMEM;
		return NULL;
	}
	if (!(z->in = malloc(IN_CHUNK))) {
		free(z);
		errno = ENOMEM;
		return NULL;
	}
	z->fd = strcmp(path, "-") == 0 ? fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
				       : open(path, O_RDONLY | O_CLOEXEC);
	if (z->fd < 0) {
		int e = errno;

		free(z->in);
		free(z);
		errno = e;
		return NULL;
	}
	z->limit = UINT64_MAX;
	z->check_at = z->end_at = UINT64_MAX;
	return z;
}

void st_zin_close(st_zin *z)
{
	if (!z)
		return;
	inf_free(z);
	close(z->fd);
	free(z->in);
	free(z);
}

/* Make at least N raw bytes unused, unless the file ends first.  0, -1. */
static int want(st_zin *z, size_t n)
{
	while (z->end - z->beg < n && !z->in_eof)
		if (fill(z) < 0)
			return -1;
	return 0;
}

static bool magic_at(const st_zin *z)
{
	return z->end - z->beg >= 2 && z->in[z->beg] == 0x1f &&
	       z->in[z->beg + 1] == 0x8b;
}


static ssize_t read_plain(st_zin *z, unsigned char *out, size_t n)
{
	ssize_t got;

	if (z->beg < z->end) {
		size_t k = z->end - z->beg < n ? z->end - z->beg : n;

		memcpy(out, z->in + z->beg, k);
		z->beg += k;
		return (ssize_t)k;
	}
	if (z->in_eof)
		return 0;
	do
		got = read(z->fd, out, n);
	while (got < 0 && errno == EINTR);
	if (got < 0)
		return read_error(z);
	z->offset += (uint64_t)got;
	return got;
}

static ssize_t zin_read(st_zin *z, unsigned char *out, size_t n)
{
	if (z->err)
		return -1;
	if (z->done || n == 0)
		return 0;
	if (n > SSIZE_MAX)
		n = SSIZE_MAX;
	if (!z->started) {
		if (want(z, 2) < 0)
			return -1;
		z->started = true;
		z->gz = magic_at(z);
		if (z->gz && inf_begin(z) < 0)
			return -1;
	}
	if (!z->gz)
		return read_plain(z, out, n);
	for (;;) {
		size_t got;
		bool end;

		if (z->between) {
			if (want(z, 2) < 0)
				return -1;
			if (!magic_at(z)) {
				/* the end, or bytes that are not another
				 * member: ignored, as zlib's gzread does */
				z->done = true;
				return 0;
			}
			if (inf_begin(z) < 0)
				return -1;
			z->between = false;
		}
		if (z->beg == z->end && fill(z) < 0)
			return -1;
		if (inf_run(z, out, n, &got, &end) < 0)
			/* the bytes made before the error first, as gzread
			 * gives them; the error at the next call */
			return got ? (ssize_t)got : -1;
		if (end)
			z->between = true;
		if (got)
			return (ssize_t)got;
		if (!end && z->beg == z->end && z->in_eof)
			return fail(z, 65, "unexpected end of file");
		if (!end && z->end - z->beg == IN_CHUNK)
			return fail(z, 65, "no progress");   /* cannot be */
		if (!end && fill(z) < 0)
			return -1;
	}
}

/* zin_read, stopping at CHECK_AT to check the CRC-32 there. */
static ssize_t zin_read_checked(st_zin *z, unsigned char *out, size_t n)
{
	ssize_t got;

	if (z->check_at > z->pos && n > z->check_at - z->pos)
		n = (size_t)(z->check_at - z->pos);
	got = zin_read(z, out, n);
	if (got <= 0)
		return got;
	z->pos += (uint64_t)got;
	if (z->pos == z->check_at) {
		z->check_at = UINT64_MAX;
		if (inf_crc(z) != z->check_crc) {
			/* the bytes before it are not trusted either */
			return fail(z, 65, "incorrect data check");
		}
	}
	return got;
}

/* The member Z is in inflated to its end, its trailer checked, no more
 * content in it (else "incorrect length check").  0, or -1. */
static int member_end(st_zin *z)
{
	unsigned char c;

	while (!z->between && !z->done && !z->err) {
		size_t got;
		bool end;

		if (z->beg == z->end && fill(z) < 0)
			return -1;
		if (inf_run(z, &c, 1, &got, &end) < 0)
			return -1;
		if (got)
			return (int)fail(z, 65, "incorrect length check");
		if (end)
			z->between = true;
		else if (z->beg == z->end && z->in_eof)
			return (int)fail(z, 65, "unexpected end of file");
		else if (z->end - z->beg == IN_CHUNK)
			return (int)fail(z, 65, "no progress");
		else if (fill(z) < 0)
			return -1;
	}
	return z->err ? -1 : 0;
}

ssize_t st_zin_read(st_zin *z, void *buf, size_t n)
{
	ssize_t got;

	if (n > z->limit)
		n = (size_t)z->limit;
	got = zin_read_checked(z, buf, n);
	if (got > 0)
		z->limit -= (uint64_t)got;
	/* a range that ends where a member does: its trailer checked (the
	 * error, if any, the next call's answer) */
	if (got > 0 && z->pos == z->end_at) {
		z->end_at = UINT64_MAX;
		member_end(z);
	}
	return got;
}

/* Z at point P of its file: the raw bytes from the byte holding P's first
 * bit, the inflater begun there.  0, or -1 (the error kept in Z). */
static int seek_point(st_zin *z, const st_zin_point *p)
{
	unsigned shift = (unsigned)(p->bit % 8), bits = 0;

	if (lseek(z->fd, (off_t)(p->bit / 8), SEEK_SET) < 0)
		return (int)read_error(z);
	z->started = z->gz = true;
	if (p->out == p->member_out) {
		/* where its member starts: read as the file's first */
		if (want(z, 2) < 0)
			return -1;
		if (!magic_at(z))
			return (int)fail(z, 65, "incorrect header check");
		return inf_begin(z);
	}
	if (shift) {
		/* the byte's bits below P belong to the block before */
		if (want(z, 1) < 0)
			return -1;
		if (z->beg == z->end)
			return (int)fail(z, 65, "unexpected end of file");
		bits = (unsigned)z->in[z->beg++] >> shift;
	}
	return inf_resume(z, p, bits, shift ? 8 - shift : 0);
}

st_zin *st_zin_open_at(const char *path, const st_zin_point *p,
		       uint64_t skip, uint64_t len, const st_zin_point *next)
{
	st_zin *z = st_zin_open(path);
	unsigned char *scratch = NULL;

	if (!z)
		return NULL;
	z->pos = p ? p->out : 0;
	/* a point where its member starts: nothing before it to check */
	if (next && next->out > next->member_out && next->out > z->pos) {
		z->check_at = next->out;
		z->check_crc = next->crc;
	}
	/* where the next member starts: this one's trailer, when the range
	 * ends there */
	if (next && next->out == next->member_out && next->out > z->pos)
		z->end_at = next->out;
	if (p && seek_point(z, p) < 0)
		return z;
	if (skip && !(scratch = malloc(IN_CHUNK)))
		fail(z, 74, "out of memory");
	while (scratch && skip) {
		ssize_t got = zin_read_checked(z, scratch, skip < IN_CHUNK
							   ? (size_t)skip
							   : IN_CHUNK);

		if (got <= 0) {
			if (got == 0)
				fail(z, 65, "unexpected end of file");
			break;
		}
		skip -= (uint64_t)got;
	}
	free(scratch);
	z->limit = len;
	return z;
}

void st_zin_fail(st_zin *z, const char *what)
{
	if (!z->err)
		fail(z, 65, what);
}

int st_zin_error(const st_zin *z, const char **what)
{
	if (what)
		*what = z->err ? z->what : NULL;
	return z->err;
}

uint64_t st_zin_offset(const st_zin *z)
{
	return z->offset;
}

bool st_zin_is_gzip(const st_zin *z)
{
	return z->gz;
}
