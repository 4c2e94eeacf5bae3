/* csv.c - whole-file CSV tables through libcsv.
 *
 * The file is read into memory and fed to libcsv one line at a time, so that
 * every record knows the line it ends on.  Field text goes into one arena
 * sized up front (a field is never longer than its bytes in the file, plus a
 * NUL), so cell pointers stay valid without a second pass.
 */
#include <csv.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "streamtime/csv.h"
#include "streamtime/num.h"
#include "streamtime/time.h"

void st_table_init(st_table *t)
{
	memset(t, 0, sizeof(*t));
}

void st_table_release(st_table *t)
{
	if (!t)
		return;
	free(t->name);
	free(t->block);
	free(t->lines);
	free(t->arena);
	st_table_init(t);
}

struct parse_ctx {
	st_table *t;
	size_t line;          /* current line, 1-based */
	size_t nfields;       /* fields seen in the current record */
	size_t rec_start;     /* index in cells of the current record */
	size_t lines_cap;
	bool header_done;
	bool failed;
	st_error *err;
};

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
	size_t ncap;
	void *np;

	if (need <= *cap)
		return true;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < need)
		ncap *= 2;
	np = realloc(*p, ncap * elem);
	if (!np)
		return false;
	*p = np;
	*cap = ncap;
	return true;
}

static void on_field(void *field, size_t len, void *data)
{
	struct parse_ctx *c = data;
	st_table *t = c->t;
	char *dst;

	if (c->failed)
		return;
	if (!grow((void **)&t->block, &t->cells_cap, c->rec_start + c->nfields + 1,
		  sizeof(char *))) {
		c->failed = true;
		st_error_set(c->err, ST_EXIT_IOERR, "%s: out of memory", t->name);
		return;
	}
	dst = t->arena + t->arena_len;
	if (len)
		memcpy(dst, field, len);
	dst[len] = '\0';
	t->arena_len += len + 1;
	t->block[c->rec_start + c->nfields++] = dst;
}

static void on_record(int ch, void *data)
{
	struct parse_ctx *c = data;
	st_table *t = c->t;

	(void)ch;
	if (c->failed)
		return;
	if (!c->header_done) {
		t->ncols = c->nfields;
		c->header_done = true;
		c->rec_start += c->nfields;
		c->nfields = 0;
		return;
	}
	if (c->nfields != t->ncols) {
		c->failed = true;
		st_error_set(c->err, ST_EXIT_DATAERR,
			     "%s:%zu: expected %zu fields as in the header, "
			     "found %zu", t->name, c->line, t->ncols, c->nfields);
		return;
	}
	if (!grow((void **)&t->lines, &c->lines_cap, t->nrows + 1,
		  sizeof(size_t))) {
		c->failed = true;
		st_error_set(c->err, ST_EXIT_IOERR, "%s: out of memory", t->name);
		return;
	}
	t->lines[t->nrows++] = c->line;
	c->rec_start += c->nfields;
	c->nfields = 0;
}

static bool is_blank(char ch)
{
	return ch == ' ' || ch == '\t';
}

/* Split the quote-free line S (LEN bytes, without its newline) into fields
 * exactly as libcsv would: blanks around unquoted fields are dropped and a
 * line of blanks is no record at all. */
static void split_plain_line(struct parse_ctx *c, const char *s, size_t len)
{
	const char *e = s + len, *f = s;
	size_t i;

	for (i = 0; i < len && is_blank(s[i]); i++)
		;
	if (i == len)
		return;
	for (;;) {
		const char *comma = memchr(f, ',', (size_t)(e - f));
		const char *fe = comma ? comma : e;
		const char *fs = f;

		while (fs < fe && is_blank(*fs))
			fs++;
		while (fe > fs && is_blank(fe[-1]))
			fe--;
		on_field((void *)fs, (size_t)(fe - fs), c);
		if (!comma)
			break;
		f = comma + 1;
	}
	on_record('\n', c);
}

/* True when the line S..S+N (newline excluded) can skip libcsv: no quote,
 * and no CR but a final one (libcsv ends a record at any CR). */
static bool plain_line(const char *s, size_t *n)
{
	if (*n && s[*n - 1] == '\r')
		(*n)--;
	return !memchr(s, '"', *n) && !memchr(s, '\r', *n);
}

int st_text_check_nul(const char *name, const char *buf, size_t len,
		      st_error *err)
{
	const char *nul = memchr(buf, '\0', len);
	size_t line = 1;

	if (!nul)
		return 0;
	for (const char *p = buf; (p = memchr(p, '\n', (size_t)(nul - p))); p++)
		line++;
	return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: a NUL byte (binary "
			    "data, not text): refused rather than cut the "
			    "value short there", name, line);
}

int st_table_parse(st_table *t, const char *name, const char *buf, size_t len,
		   st_error *err)
{
	return st_table_parse_ex(t, name, buf, len, 0, err);
}

int st_table_parse_ex(st_table *t, const char *name, const char *buf,
		      size_t len, unsigned flags, st_error *err)
{
	struct csv_parser parser;
	struct parse_ctx c = { .t = t, .line = 1, .err = err };
	const char *p = buf, *end = buf + len;
	int rc = -1;

	st_table_release(t);
	/* both libcsv and the fast path would end the field at a NUL */
	if (st_text_check_nul(name, buf, len, err) < 0)
		return -1;
	t->name = strdup(name);
	t->arena = malloc(2 * len + 2);
	if (!t->name || !t->arena)
		return st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", name);
	if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI) != 0)
		return st_error_set(err, ST_EXIT_IOERR, "%s: out of memory", name);
	if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
		p += 3;    /* UTF-8 byte order mark */
	while (p < end && !c.failed) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
		size_t content = nl ? n - 1 : n;

		/* pstate 0 is libcsv's "row not begun": not inside a record */
		if (!(flags & ST_CSV_LIBCSV_ONLY) && parser.pstate == 0 &&
		    plain_line(p, &content)) {
			split_plain_line(&c, p, content);
		} else if (csv_parse(&parser, p, n, on_field, on_record, &c) != n) {
			st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: malformed CSV: %s",
				     name, c.line, csv_strerror(csv_error(&parser)));
			goto out;
		}
		p += n;
		if (nl)
			c.line++;
	}
	if (c.failed)
		goto out;
	if (csv_fini(&parser, on_field, on_record, &c) != 0) {
		st_error_set(err, ST_EXIT_DATAERR,
			     "%s:%zu: malformed CSV: unterminated quoted field",
			     name, c.line);
		goto out;
	}
	if (c.failed)
		goto out;
	if (!c.header_done || t->ncols == 0) {
		st_error_set(err, ST_EXIT_DATAERR, "%s: empty file, expected a "
			     "header line", name);
		goto out;
	}
	t->header = t->block;
	t->cells = t->block + t->ncols;
	rc = 0;
out:
	csv_free(&parser);
	if (rc != 0) {
		st_table_release(t);
		return -1;
	}
	return 0;
}

int st_table_read(st_table *t, const char *path, st_error *err)
{
	size_t len;
	char *buf = st_file_read(path, &len, err);
	int rc;

	if (!buf)
		return -1;
	rc = st_table_parse(t, path, buf, len, err);
	free(buf);
	return rc;
}

int st_table_col(const st_table *t, const char *name)
{
	for (size_t i = 0; i < t->ncols; i++)
		if (strcmp(t->header[i], name) == 0)
			return (int)i;
	return -1;
}

int st_table_require(const st_table *t, const char *const names[], int idx[],
		     size_t n, st_error *err)
{
	for (size_t i = 0; i < n; i++) {
		idx[i] = st_table_col(t, names[i]);
		if (idx[i] < 0)
			return st_error_set(err, ST_EXIT_DATAERR,
					    "%s: missing column '%s'", t->name,
					    names[i]);
	}
	return 0;
}

int st_table_cell_error(const st_table *t, size_t row, int col,
			const char *what, st_error *err)
{
	return st_error_set(err, ST_EXIT_DATAERR, "%s:%zu: column '%s': %s",
			    t->name, t->lines[row], t->header[col], what);
}

/* Error 65: the cell at ROW, COL of T "is not KIND".  Returns -1. */
static int not_a(const st_table *t, size_t row, int col, const char *kind,
		 st_error *err)
{
	char what[160];

	snprintf(what, sizeof(what), "'%.100s' is not %s",
		 st_table_get(t, row, col), kind);
	return st_table_cell_error(t, row, col, what, err);
}

int st_table_get_int(const st_table *t, size_t row, int col, int64_t *out,
		     st_error *err)
{
	if (st_num_parse_int(st_table_get(t, row, col), out) == 0)
		return 0;
	return not_a(t, row, col, "an integer", err);
}

int st_table_get_double(const st_table *t, size_t row, int col, double *out,
			st_error *err)
{
	if (st_num_parse_double(st_table_get(t, row, col), out) == 0)
		return 0;
	return not_a(t, row, col, "a number", err);
}

bool st_csv_quote_needed(const char *s, size_t len)
{
	/* blanks at either end are quoted too: the reader trims them */
	if (len && (is_blank(s[0]) || is_blank(s[len - 1])))
		return true;
	for (size_t i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\r' ||
		    s[i] == '\n')
			return true;
	return false;
}

static int write_field(FILE *f, const char *s)
{
	if (!s)
		return 0;
	if (!st_csv_quote_needed(s, strlen(s)))
		return fputs(s, f) < 0 ? -1 : 0;
	if (putc('"', f) == EOF)
		return -1;
	for (; *s; s++) {
		if (*s == '"' && putc('"', f) == EOF)
			return -1;
		if (putc(*s, f) == EOF)
			return -1;
	}
	return putc('"', f) == EOF ? -1 : 0;
}

int st_csv_write_row(FILE *f, size_t n, const char *const fields[])
{
	for (size_t i = 0; i < n; i++) {
		if (i && putc(',', f) == EOF)
			return -1;
		if (write_field(f, fields[i]) < 0)
			return -1;
	}
	return putc('\n', f) == EOF ? -1 : 0;
}

int st_table_get_time(const st_table *t, size_t row, int col,
		      const struct st_tz *tz, int64_t *out, st_error *err)
{
	st_error e;

	if (st_time_parse(st_table_get(t, row, col), tz, out, NULL, &e) < 0)
		return st_table_cell_error(t, row, col, e.text, err);
	return 0;
}

bool st_time_unset(const char *s)
{
	return !*s || strcmp(s, "Unknown") == 0 || strcmp(s, "None") == 0;
}
