/* zran.c - access points into one big .pfw.gz (zran.h).
 *
 * They are found with zlib's Z_BLOCK, which stops inflating at every
 * deflate block boundary and says how many bits of the last byte it did
 * not use (as zlib's examples/zran.c does).  ISA-L cannot stop at a block
 * boundary: its inflate runs until its output or input is full, and the
 * boundaries it passes are not reported.  So the index is built by a
 * zlib pass of its own (trace_cache.c runs it beside the first read), and
 * readers resume at a point with whichever inflater zin.c has.
 *
 * The M events before a point are found in the same pass: a line that
 * holds "M" (or a backslash, for an escaped one) is parsed by a reader
 * of its own, and kept when that reader counts it as an M event, unless
 * it leaves that reader's maps as they were (an M event of another name,
 * or a hash mapped again to the name it has): replaying the rest in
 * order leaves the maps as a sequential read has them.  A line of more
 * than ST_PFW_MAX_LINE bytes is corrupt to the reader and never kept. */
#include "zran.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "streamtime/grow.h"

#define IN_CHUNK (256u << 10)
#define OUT_CHUNK (256u << 10)

void st_zran_free(st_zran *x)
{
	if (!x)
		return;
	for (size_t i = 0; i < x->n; i++)
		free((void *)x->ap[i].p.window);
	free(x->ap);
	free(x->meta);
	free(x->text);
	free(x);
}

/* ---- building ---------------------------------------------------------- */

struct build {
	st_zran *x;
	st_pfw_reader *mr;        /* the candidate M lines are parsed here */
	unsigned char *buf;       /* content not yet cut into lines */
	size_t len, cap;
	uint64_t base;            /* the content offset of buf[0] */
	bool skipping;            /* in a line too long for the reader */
	bool pending;             /* the last point waits for its line */
	unsigned char last;       /* the content's last byte so far */
	uint64_t lineno;          /* lines ended so far */
};

/* Could LINE[0..LEN) be an M event?  ("M" as a string, or escapes.) */
static bool maybe_meta(const unsigned char *line, size_t len)
{
	const unsigned char *p = line, *end = line + len;

	if (memchr(line, '\\', len))
		return true;
	while ((p = memchr(p, 'M', (size_t)(end - p)))) {
		if (p > line && p + 1 < end && p[-1] == '"' && p[1] == '"')
			return true;
		p++;
	}
	return false;
}

/* Does LINE[0..LEN), read in full by the fast scanner, leave B's maps as
 * they are: an M event of another name (no map), or one that maps a hash
 * to the name it has already?  (Merged traces say the same again and
 * again.)  false when it cannot tell. */
static bool meta_idle(struct build *b, const unsigned char *line, size_t len)
{
	static const char maps[][3] = { "HH", "FH", "SH" };
	st_pfw_raw raw;
	char key[24];
	const char *k, *cur;
	size_t kn, cn;
	int64_t id;
	int m;

	if (!st_pfw_scan_fast((const char *)line, len, &raw) ||
	    raw.ph.kind != ST_PFW_STRING || raw.ph.n != 1 ||
	    raw.ph.s[0] != 'M' || raw.name.kind != ST_PFW_STRING)
		return false;
	for (m = 0; m < 3; m++)
		if (raw.name.n == 2 && memcmp(raw.name.s, maps[m], 2) == 0)
			break;
	if (m == 3)
		return true;
	if (raw.aname.kind != ST_PFW_STRING)
		return false;
	if (raw.avalue.kind == ST_PFW_INT) {
		kn = (size_t)snprintf(key, sizeof(key), "%lld",
				      (long long)raw.avalue.i);
		k = key;
	} else if (raw.avalue.kind == ST_PFW_STRING) {
		k = raw.avalue.s;
		kn = raw.avalue.n;
	} else {
		return false;
	}
	if ((id = st_pfw_lookup(b->mr, maps[m], k, kn)) < 0)
		return false;
	cur = m == 1 ? st_pfw_file_str(b->mr, (uint32_t)id, &cn)
		     : st_pfw_str(b->mr, (uint32_t)id, &cn);
	return cn == raw.aname.n && memcmp(cur, raw.aname.s, cn) == 0;
}

#define BOM "\xef\xbb\xbf"

/* Keep LINE[0..LEN), line B->lineno, when the reader takes it as an M
 * event that changes its maps.  0, or -1 out of memory.  The reader is
 * fed the candidate lines only, its own line 1 a blank one (reader_new):
 * a byte order mark is taken off the file's line 1 here, and no other
 * (st_pfw_feed takes one off the line it counts as its first). */
static int meta_keep(struct build *b, const unsigned char *line, size_t len)
{
	st_zran *x = b->x;
	uint64_t before = st_pfw_stats_get(b->mr)->meta;
	st_pfw_event ev;

	if (b->lineno == 1 && len >= 3 && memcmp(line, BOM, 3) == 0) {
		line += 3;
		len -= 3;
	}
	if (meta_idle(b, line, len))
		return 0;
	st_pfw_feed(b->mr, (const char *)line, len, &ev);
	if (st_pfw_stats_get(b->mr)->meta == before)
		return 0;
	if (ST_GROW(x->meta, x->nmeta, x->metacap, 64) < 0)
		return -1;
	while (x->tlen + len > x->tcap) {
		size_t cap = x->tcap ? 2 * x->tcap : 4096;
		char *t = realloc(x->text, cap);

		if (!t)
			return -1;
		x->text = t;
		x->tcap = cap;
	}
	memcpy(x->text + x->tlen, line, len);
	x->meta[x->nmeta++] = (st_zran_meta){ b->lineno, x->tlen, len };
	x->tlen += len;
	return 0;
}

/* The reader of the candidate M lines, past its line 1 (meta_keep).
 * New, or NULL out of memory. */
static st_pfw_reader *reader_new(void)
{
	st_pfw_reader *r = st_pfw_reader_mem();
	st_pfw_event ev;

	if (r)
		st_pfw_feed(r, "", 0, &ev);
	return r;
}

/* The whole lines of B's content: counted, the M events kept, the point
 * waiting for its line given it.  0, or -1 out of memory. */
static int lines(struct build *b)
{
	size_t pos = 0;
	unsigned char *nl;

	while ((nl = memchr(b->buf + pos, '\n', b->len - pos))) {
		size_t end = (size_t)(nl - b->buf);

		b->lineno++;
		if (!b->skipping && end - pos < ST_PFW_MAX_LINE &&
		    maybe_meta(b->buf + pos, end - pos) &&
		    meta_keep(b, b->buf + pos, end - pos) < 0)
			return -1;
		b->skipping = false;
		pos = end + 1;
		if (b->pending) {
			st_zran_ap *a = &b->x->ap[b->x->n - 1];

			a->line_out = b->base + pos;
			a->lineno = b->lineno;
			a->nmeta = b->x->nmeta;
			b->pending = false;
			/* behind a line too long to be read: a point
			 * st_zran_decode would not take */
			if (a->line_out - a->p.out > ST_PFW_MAX_LINE)
				free((void *)b->x->ap[--b->x->n].p.window);
		}
	}
	if (b->len - pos >= ST_PFW_MAX_LINE) {
		/* corrupt to the reader, whatever it holds */
		b->skipping = true;
		pos = b->len;
	}
	memmove(b->buf, b->buf + pos, b->len - pos);
	b->len -= pos;
	b->base += pos;
	return 0;
}

/* An access point at bit BIT of the file, where ZS stopped, in the
 * member that starts at byte MEMBER_AT and content offset MEMBER_OUT.
 * Where the member starts (ZS past its header), the point is the
 * member's first byte, its header read when resuming, and its window
 * the content's last byte before it (zin.h).  0, or -1 out of memory. */
static int point_add(struct build *b, z_stream *zs, uint64_t bit,
		     uint64_t member_out, uint64_t member_at)
{
	st_zran *x = b->x;
	uint64_t out = b->base + b->len;
	unsigned char *w = malloc(ST_ZIN_WINDOW);
	uInt wl = ST_ZIN_WINDOW;
	st_zran_ap *a;

	if (!w || ST_GROW(x->ap, x->n, x->cap, 16) < 0) {
		free(w);
		return -1;
	}
	if (out == member_out) {
		bit = 8 * member_at;
		w[0] = b->last;
		wl = out > 0;
	} else if (inflateGetDictionary(zs, w, &wl) != Z_OK) {
		wl = 0;
	}
	a = &x->ap[x->n++];
	*a = (st_zran_ap){ .p = { .bit = bit, .out = out,
				  .member_out = member_out,
				  .crc = out == member_out ? 0
					 : (uint32_t)zs->adler, .win_len = wl,
				  .window = w } };
	if (b->last == '\n') {
		a->line_out = out;
		a->lineno = b->lineno;
		a->nmeta = x->nmeta;
	} else {
		b->pending = true;
	}
	return 0;
}

/* Read more of FD behind ZS's unused input in IN.  Bytes read, 0 at the
 * end, -1 on an error. */
static ssize_t more(int fd, z_stream *zs, unsigned char *in)
{
	ssize_t n;

	memmove(in, zs->next_in, zs->avail_in);
	do
		n = read(fd, in + zs->avail_in, IN_CHUNK - zs->avail_in);
	while (n < 0 && errno == EINTR);
	zs->next_in = in;
	if (n > 0)
		zs->avail_in += (uInt)n;
	return n;
}

/* The pass over FD into B, access points SPAN apart.  0, or -1 with ERR
 * set. */
static int pass(struct build *b, int fd, uint64_t span, st_error *err)
{
	z_stream zs = { 0 };
	unsigned char *in = malloc(IN_CHUNK);
	uint64_t in_read = 0, member_out = 0, member_at = 0, last = 0;
	bool eof = false;
	int rc = -1, zr = Z_OK;

	if (!in || inflateInit2(&zs, 15 + 16) != Z_OK) {
		free(in);
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	}
	zs.next_in = in;
	for (;;) {
		ssize_t got;

		if (zs.avail_in < 2 && !eof) {
			if ((got = more(fd, &zs, in)) < 0) {
				st_error_set(err, ST_EXIT_IOERR, "read error: %s",
					     strerror(errno));
				goto out;
			}
			eof = got == 0;
			in_read += (uint64_t)got;
		}
		if (zr == Z_STREAM_END) {
			/* another member, or the end (other bytes after a
			 * member are ignored, as zin.c ignores them) */
			if (zs.avail_in < 2 || zs.next_in[0] != 0x1f ||
			    zs.next_in[1] != 0x8b)
				break;
			inflateReset(&zs);
			member_out = b->base + b->len;
			member_at = in_read - zs.avail_in;
		}
		if (b->cap - b->len < OUT_CHUNK &&
		    st_grow(&b->buf, &b->cap, b->len + OUT_CHUNK, 1,
			    2 * OUT_CHUNK) < 0) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		zs.next_out = b->buf + b->len;
		zs.avail_out = (uInt)(b->cap - b->len);
		zr = inflate(&zs, Z_BLOCK);
		got = (ssize_t)(zs.next_out - (b->buf + b->len));
		if (got > 0)
			b->last = b->buf[b->len + (size_t)got - 1];
		b->len += (size_t)got;
		if (zr != Z_OK && zr != Z_STREAM_END &&
		    !(zr == Z_BUF_ERROR && !eof)) {
			st_error_set(err, ST_EXIT_DATAERR, "damaged gzip data "
				     "(%s)", zr == Z_BUF_ERROR
				     ? "unexpected end of file"
				     : zs.msg ? zs.msg : "unknown error");
			goto out;
		}
		if (lines(b) < 0) {
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			goto out;
		}
		/* one point per line at most: none while one waits for its
		 * line */
		if (zr == Z_OK && (zs.data_type & 128) &&
		    !(zs.data_type & 64) && !b->pending &&
		    b->base + b->len - last >= span) {
			uint64_t used = in_read - zs.avail_in;

			last = b->base + b->len;
			if (point_add(b, &zs, 8 * used -
				      (uint64_t)(zs.data_type & 7),
				      member_out, member_at) < 0) {
				st_error_set(err, ST_EXIT_IOERR, "out of "
					     "memory");
				goto out;
			}
		}
	}
	rc = 0;
out:
	inflateEnd(&zs);
	free(in);
	return rc;
}

st_zran *st_zran_build(const char *path, uint64_t span, st_error *err)
{
	struct build b = { 0 };
	unsigned char magic[2];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = -1;

	if (fd < 0) {
		st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s", path,
			     strerror(errno));
		return NULL;
	}
	if (pread(fd, magic, 2, 0) != 2 || magic[0] != 0x1f ||
	    magic[1] != 0x8b) {
		close(fd);
		st_error_set(err, ST_EXIT_DATAERR, "%s: not gzip", path);
		return NULL;
	}
	if (!(b.x = calloc(1, sizeof(*b.x))) || !(b.mr = reader_new())) {
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		goto out;
	}
	if (pass(&b, fd, span ? span : 1, err) < 0)
		goto out;
	if (b.pending)
		free((void *)b.x->ap[--b.x->n].p.window);
	/* a point whose line is the end leads nowhere */
	while (b.x->n && b.x->ap[b.x->n - 1].line_out >= b.base + b.len)
		free((void *)b.x->ap[--b.x->n].p.window);
	b.x->total = b.base + b.len;
	b.x->lines = b.lineno + (b.len > 0);
	rc = 0;
out:
	close(fd);
	st_pfw_close(b.mr);
	free(b.buf);
	if (rc < 0) {
		st_zran_free(b.x);
		return NULL;
	}
	return b.x;
}

/* ---- encoding ---------------------------------------------------------- */

#define MAGIC "stzran1\n"

static void put64(char **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (char)(v >> (8 * i));
}

int st_zran_encode(const st_zran *x, char **buf, size_t *len)
{
	size_t n = 8 + 5 * 8 + x->nmeta * 24 + x->tlen;
	char *p;

	for (size_t i = 0; i < x->n; i++)
		n += 7 * 8 + x->ap[i].p.win_len;
	if (!(p = *buf = malloc(n)))
		return -1;
	*len = n;
	memcpy(p, MAGIC, 8);
	p += 8;
	put64(&p, x->total);
	put64(&p, x->lines);
	put64(&p, x->n);
	put64(&p, x->nmeta);
	put64(&p, x->tlen);
	for (size_t i = 0; i < x->n; i++) {
		const st_zran_ap *a = &x->ap[i];

		put64(&p, a->p.bit);
		put64(&p, a->p.out);
		put64(&p, a->p.member_out);
		put64(&p, (uint64_t)a->p.crc | (uint64_t)a->p.win_len << 32);
		put64(&p, a->line_out);
		put64(&p, a->lineno);
		put64(&p, a->nmeta);
		memcpy(p, a->p.window, a->p.win_len);
		p += a->p.win_len;
	}
	for (size_t i = 0; i < x->nmeta; i++) {
		put64(&p, x->meta[i].lineno);
		put64(&p, x->meta[i].off);
		put64(&p, x->meta[i].len);
	}
	memcpy(p, x->text, x->tlen);
	return 0;
}

struct cur {
	const unsigned char *p, *end;
	bool bad;
};

static uint64_t get64(struct cur *c)
{
	uint64_t v = 0;

	if (c->end - c->p < 8) {
		c->bad = true;
		return 0;
	}
	for (int i = 0; i < 8; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += 8;
	return v;
}

/* Does access point A (of X, after B when not NULL) hold together? */
static bool ap_ok(const st_zran *x, const st_zran_ap *a, const st_zran_ap *b)
{
	bool start = a->p.out == a->p.member_out;

	return a->p.win_len <= ST_ZIN_WINDOW && a->p.member_out <= a->p.out &&
	       (start ? a->p.win_len == (a->p.out > 0) && a->p.bit % 8 == 0 &&
			a->p.crc == 0
		      : a->p.win_len <= a->p.out - a->p.member_out) &&
	       a->line_out >= a->p.out && a->line_out < x->total &&
	       a->line_out - a->p.out <= ST_PFW_MAX_LINE &&
	       a->lineno <= x->lines && a->nmeta <= x->nmeta &&
	       (!a->nmeta || x->meta[a->nmeta - 1].lineno <= a->lineno) &&
	       (a->nmeta == x->nmeta || x->meta[a->nmeta].lineno > a->lineno) &&
	       (!b || (a->p.bit > b->p.bit && a->p.out > b->p.out &&
		       a->line_out > b->line_out && a->lineno >= b->lineno &&
		       a->nmeta >= b->nmeta));
}

/* The meta lines of X, from C. */
static bool meta_get(st_zran *x, struct cur *c)
{
	for (size_t i = 0; i < x->nmeta; i++) {
		st_zran_meta *m = &x->meta[i];

		m->lineno = get64(c);
		m->off = (size_t)get64(c);
		m->len = (size_t)get64(c);
		if (c->bad || m->off > x->tlen || m->len > x->tlen - m->off ||
		    m->lineno == 0 || m->lineno > x->lines ||
		    (i && m->lineno <= x->meta[i - 1].lineno))
			return false;
	}
	return true;
}

st_zran *st_zran_decode(const char *buf, size_t len)
{
	struct cur c = { (const unsigned char *)buf,
			 (const unsigned char *)buf + len, false };
	const unsigned char *aps;
	st_zran *x;
	uint64_t n, nmeta, tlen;

	if (len < 8 || memcmp(buf, MAGIC, 8) != 0 ||
	    !(x = calloc(1, sizeof(*x))))
		return NULL;
	c.p += 8;
	x->total = get64(&c);
	x->lines = get64(&c);
	n = get64(&c);
	nmeta = get64(&c);
	tlen = get64(&c);
	/* each count bounded by what the bytes could hold */
	if (c.bad || n > len / 56 || nmeta > len / 24 || tlen > len)
		goto bad;
	x->tlen = x->tcap = (size_t)tlen;
	x->nmeta = x->metacap = (size_t)nmeta;
	if (!(x->ap = calloc(n + 1, sizeof(*x->ap))) ||
	    !(x->meta = calloc(nmeta + 1, sizeof(*x->meta))) ||
	    !(x->text = malloc(tlen + 1)))
		goto bad;
	x->cap = (size_t)n + 1;
	/* the meta lines come after the points: read them first */
	aps = c.p;
	for (uint64_t i = 0; i < n && !c.bad; i++) {
		uint64_t w;

		if (c.end - c.p < 7 * 8)
			goto bad;
		c.p += 3 * 8;
		w = get64(&c) >> 32;
		c.p += 3 * 8;
		if (w > ST_ZIN_WINDOW || (uint64_t)(c.end - c.p) < w)
			goto bad;
		c.p += w;
	}
	if (c.bad || !meta_get(x, &c) || (uint64_t)(c.end - c.p) != tlen)
		goto bad;
	memcpy(x->text, c.p, tlen);
	c.p = aps;
	for (size_t i = 0; i < n; i++) {
		st_zran_ap *a = &x->ap[i];
		unsigned char *w;
		uint64_t cw;

		a->p.bit = get64(&c);
		a->p.out = get64(&c);
		a->p.member_out = get64(&c);
		cw = get64(&c);
		a->p.crc = (uint32_t)cw;
		a->p.win_len = (uint32_t)(cw >> 32);
		a->line_out = get64(&c);
		a->lineno = get64(&c);
		a->nmeta = get64(&c);
		if (c.bad || !ap_ok(x, a, i ? a - 1 : NULL) ||
		    !(w = malloc(a->p.win_len + 1)))
			goto bad;
		memcpy(w, c.p, a->p.win_len);
		c.p += a->p.win_len;
		a->p.window = w;
		x->n++;
	}
	return x;
bad:
	st_zran_free(x);
	return NULL;
}

/* ---- ranges ------------------------------------------------------------ */

size_t st_zran_cut(const st_zran *x, size_t parts, size_t *cut)
{
	size_t k = 0, j = 0;

	for (size_t i = 1; i < parts && x->total; i++) {
		uint64_t want = x->total / parts * i;
		size_t best = SIZE_MAX;

		/* the point whose line is nearest WANT, after the last cut */
		for (; j < x->n; j++) {
			uint64_t at = x->ap[j].line_out;

			if (best != SIZE_MAX &&
			    (at >= want ? at - want : want - at) >=
			    (x->ap[best].line_out >= want
			     ? x->ap[best].line_out - want
			     : want - x->ap[best].line_out))
				break;
			best = j;
		}
		if (best == SIZE_MAX)
			break;
		cut[k++] = best;
		j = best + 1;
	}
	return k;
}

/* Z, at point P, past the SKIP bytes before P's line: they hold one
 * newline, their last (SKIP 0: P's window ends with one), else Z's next
 * read fails (the index is not its file's).  0, or -1 out of memory. */
static int to_line(st_zin *z, const st_zin_point *p, uint64_t skip)
{
	unsigned char *buf = NULL;
	bool ok = skip ? true : p->win_len &&
				p->window[p->win_len - 1] == '\n';

	if (skip && !(buf = malloc(ST_ZIN_CHUNK)))
		return -1;
	while (skip && ok) {
		ssize_t got = st_zin_read(z, buf, skip < ST_ZIN_CHUNK
						  ? (size_t)skip : ST_ZIN_CHUNK);
		const unsigned char *nl;

		if (got <= 0) {
			/* an error of Z's own, or the end, said on its next
			 * read (an index whose points are past the end) */
			ok = got < 0;
			break;
		}
		skip -= (uint64_t)got;
		nl = memchr(buf, '\n', (size_t)got);
		ok = skip ? !nl : nl == buf + got - 1;
	}
	if (skip || !ok)
		st_zin_fail(z, "access point not before a line");
	free(buf);
	return 0;
}

st_pfw_reader *st_zran_open(const st_zran *x, const char *path,
			    size_t from, size_t to, st_error *err)
{
	const st_zran_ap *a = from == SIZE_MAX ? NULL : &x->ap[from];
	uint64_t end = to == SIZE_MAX ? UINT64_MAX : x->ap[to].line_out;
	st_pfw_reader *r;
	st_zin *z;

	errno = 0;
	if (!(z = st_zin_open_at(path, a ? &a->p : NULL, 0,
				 end == UINT64_MAX ? end
				 : end - (a ? a->p.out : 0),
				 to == SIZE_MAX ? NULL : &x->ap[to].p))) {
		if (errno == ENOMEM)
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
		else
			st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s",
				     path, strerror(errno));
		return NULL;
	}
	if (a && to_line(z, &a->p, a->line_out - a->p.out) < 0) {
		st_zin_close(z);
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	if (!(r = st_pfw_open_zin(z, path, a ? a->lineno : 0, err)))
		return NULL;
	for (uint64_t i = 0; a && i < a->nmeta; i++) {
		const st_zran_meta *m = &x->meta[i];

		if (st_pfw_replay(r, m->lineno, x->text + m->off,
				  m->len) < 0) {
			st_pfw_close(r);
			st_error_set(err, ST_EXIT_IOERR, "out of memory");
			return NULL;
		}
	}
	return r;
}
