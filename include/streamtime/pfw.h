/* pfw.h - reading DFTracer traces (.pfw, .pfw.gz), one event at a time.
 *
 * A trace is one JSON object per line, with optional "[" and "]" lines.
 * Both generations are read:
 *   old  numbers as strings ("pid":"1338896"), args.hostname, args.fname;
 *   new  numbers as numbers, "M" events HH/FH/SH that map a hash value to a
 *        host, file or string name, and args.hhash/args.fhash on events.
 * A hash is resolved with the mapping in force at its line: DFTracer's
 * hashes are small and collide within one file, and it writes the mapping
 * again before an event that needs the new name.  A hash never mapped
 * before its use is named "hhash:VALUE" / "fhash:VALUE".
 *
 * Each line goes through a hand-written scanner for the flat event shape
 * first (st_pfw_scan_fast); a line it does not recognise in full (an escape,
 * a byte above 0x7f, a real number, anything invalid) goes to jansson
 * (st_pfw_scan_json).  The scanner never rejects a line: only jansson
 * decides that a line is corrupt, so the result never depends on the fast
 * path.  A line ending in "," (a trace in JSON array form) is read without
 * its comma.
 *
 * The reader streams the file (inflated by ISA-L or zlib when it is gzip,
 * src/trace/zin.c) in memory bounded by the longest line (at most
 * ST_PFW_MAX_LINE) and the distinct strings of the file.
 */
#ifndef STREAMTIME_PFW_H
#define STREAMTIME_PFW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "streamtime/error.h"

#define ST_PFW_MAX_LINE (16u << 20)   /* a longer line is corrupt */
#define ST_PFW_NONE UINT32_MAX        /* no host / no file */

/* ---- one line -------------------------------------------------------- */

enum st_pfw_kind {
	ST_PFW_ABSENT = 0,
	ST_PFW_INT,       /* a JSON integer: .i */
	ST_PFW_REAL,      /* a JSON real: .r */
	ST_PFW_STRING,    /* a JSON string: .s, .n (no NUL inside) */
	ST_PFW_OTHER,     /* true, false, null, an object or an array */
	ST_PFW_RANGE,     /* valid JSON the reader cannot hold (only from
			   * st_pfw_scan_wide): an integer beyond 64 bits,
			   * its digits in .s, .n; or a string holding
			   * U+0000 or a lone surrogate, .s NULL */
};

typedef struct st_pfw_val {
	enum st_pfw_kind kind;
	int64_t i;
	double r;
	const char *s;    /* borrowed: from the line or the jansson value */
	size_t n;
} st_pfw_val;

/* The fields of one line that the reader uses, as they were written, before
 * any interpretation.  Both scanners fill it the same way; a key written
 * twice keeps its last value (jansson's rule). */
typedef struct st_pfw_raw {
	st_pfw_val name, cat, ph, pid, tid, ts, dur;
	bool args;        /* "args" is an object */
	st_pfw_val hostname, fname, hhash, fhash, size, ret, image_size;
	st_pfw_val aname, avalue;  /* args.name, args.value (M events) */
	void *owner;      /* the jansson value the strings live in, or NULL */
	char *buf;        /* st_pfw_scan_wide's decoded strings, or NULL */
} st_pfw_raw;

/* The fast scanner: 1 when LINE[0..LEN) is a JSON object it read in full
 * (then RAW holds its fields, strings pointing into LINE), 0 when it leaves
 * the line to jansson.  It reads nothing outside LINE[0..LEN). */
int st_pfw_scan_fast(const char *line, size_t len, st_pfw_raw *raw);

/* The path of the fast scanner's structural scan (strings, digits, keys):
 * a byte at a time, 16 bytes (SSE2) or 32 (AVX2, when the CPU has it).
 * Chosen once from the CPU, or by $STREAMTIME_PFW_SIMD ("scalar", "sse2"),
 * never above what the CPU has.  Every path gives the same answers. */
enum { ST_PFW_SCALAR = 0, ST_PFW_SSE2 = 1, ST_PFW_AVX2 = 2 };

/* The path in use. */
int st_pfw_simd(void);

/* For tests: use LEVEL (-1: choose again as at the start).  The level in
 * use, or -1 when the CPU cannot (nothing changed).  Not for use while
 * another thread scans. */
int st_pfw_simd_force(int level);

/* jansson: 0 with RAW filled when LINE is valid JSON and an object (release
 * RAW with st_pfw_raw_release), or -1 with WHY (may be NULL) saying what is
 * wrong. */
int st_pfw_scan_json(const char *line, size_t len, st_pfw_raw *raw,
		     char *why, size_t whysize);

void st_pfw_raw_release(st_pfw_raw *raw);

/* What jansson refuses although it is valid JSON (RFC 8259, as Python's
 * json reads it): integers beyond 64 bits, reals beyond a double (inf),
 * "\u0000" and lone surrogates.  0 with RAW filled as st_pfw_scan_json
 * does (a used field that cannot be held is ST_PFW_RANGE; release RAW
 * with st_pfw_raw_release), -1 when LINE is not a valid JSON object, -2
 * when memory ran out. */
int st_pfw_scan_wide(const char *line, size_t len, st_pfw_raw *raw);

/* Do A and B hold the same fields (kinds, values, string bytes)? */
bool st_pfw_raw_equal(const st_pfw_raw *a, const st_pfw_raw *b);

/* What the reader does with a line: the trailing "\r" and "," and white
 * space cut off, then "[", "]" and blank lines skipped.  Returns the line
 * to parse in *LINE and *LEN, or 0 when it is to be skipped. */
int st_pfw_line_trim(const char **line, size_t *len);

/* ---- the reader ------------------------------------------------------ */

/* One "X" event.  The ids index the reader's string table (st_pfw_str);
 * HOST and FILE are ST_PFW_NONE when the event names none. */
typedef struct st_pfw_event {
	uint32_t name, cat, host, file;
	int64_t pid, tid, ts, dur;   /* ts and dur in microseconds */
	int64_t bytes;               /* -1: the event moved no data we know of */
} st_pfw_event;

/* What became of the lines so far. */
typedef struct st_pfw_stats {
	uint64_t lines;      /* physical lines read */
	uint64_t events;     /* X events returned */
	uint64_t meta;       /* M events */
	uint64_t other;      /* other phases (B, E, i, C, ...), skipped */
	uint64_t bad;        /* corrupt lines, skipped */
	uint64_t fast;       /* lines the fast scanner read in full */
} st_pfw_stats;

typedef struct st_pfw_reader st_pfw_reader;

enum st_pfw_next {
	ST_PFW_ERROR = -1,   /* ERR set; the events returned stay valid */
	ST_PFW_EOF = 0,
	ST_PFW_EVENT = 1,    /* *EV holds an X event */
	ST_PFW_BAD = 2,      /* a corrupt line: st_pfw_bad_line says which */
};

/* Open PATH (gzip or plain; "-" is standard input).  New reader, or NULL
 * with ERR set: 66 when it is missing or cannot be opened. */
st_pfw_reader *st_pfw_open(const char *path, st_error *err);
struct st_zin;

/* A reader of the bytes Z gives (stolen: closed with the reader, or
 * here when the reader cannot be made), named PATH, LINENO lines of the
 * file before them (a range of a file from an access point, zran.h).
 * New, or NULL with ERR set (74). */
st_pfw_reader *st_pfw_open_zin(struct st_zin *z, const char *path,
			       uint64_t lineno, st_error *err);

/* LINE[0..LEN), line LINENO of R's file read before R's bytes, taken
 * into R's hash maps as st_pfw_next takes it (an M event), R's counts,
 * line number and last corrupt line left as they were (call it before
 * the first st_pfw_next).  0, or -1 when
 * memory runs out. */
int st_pfw_replay(st_pfw_reader *r, uint64_t lineno, const char *line,
		  size_t len);

/* What inflates .pfw.gz in this build: "ISA-L" or "zlib". */
const char *st_pfw_inflater(void);

/* The next X event or corrupt line.  ST_PFW_ERROR: 65 when the compressed
 * stream is damaged or cut short (the lines before it were returned), 74
 * on a read error.  Lines skipped silently: "[", "]", blank, M events
 * (taken into the hash maps) and other phases. */
int st_pfw_next(st_pfw_reader *r, st_pfw_event *ev, st_error *err);

/* The last corrupt line: its number (1-based) and why (borrowed). */
uint64_t st_pfw_bad_line(const st_pfw_reader *r, const char **why);

/* String ID of R's table (borrowed until st_pfw_close). */
const char *st_pfw_str(const st_pfw_reader *r, uint32_t id, size_t *len);

struct st_strtab;

/* Intern the names of R's files (args.fname, FH names, "fhash:VALUE")
 * in T (borrowed; it outlives R) instead of R's own table, so that a
 * caller gathering them keeps one copy: an event's FILE is then an id of
 * T (st_pfw_file_str), and st_pfw_lookup's FH ids too.  Call it before
 * the first st_pfw_next; false (R unchanged) for a reader whose lines
 * another parser feeds or that was read already. */
bool st_pfw_use_file_table(st_pfw_reader *r, struct st_strtab *t);
/* File ID of R's events (st_pfw_str unless st_pfw_use_file_table):
 * borrowed, until the next call on R; NULL when memory runs out. */
const char *st_pfw_file_str(const st_pfw_reader *r, uint32_t id,
			    size_t *len);

/* Bytes read from the file so far (compressed bytes for gzip; up to
 * 256 KiB ahead of the lines returned): for progress. */
uint64_t st_pfw_offset(const st_pfw_reader *r);

const st_pfw_stats *st_pfw_stats_get(const st_pfw_reader *r);

/* What hash KEY of a map (the name of the M event: "HH", "FH", "SH") is
 * mapped to at this point of the file: a string id (FH: of the file
 * table, st_pfw_file_str), or -1. */
int64_t st_pfw_lookup(const st_pfw_reader *r, const char *map,
		      const char *key, size_t keylen);

void st_pfw_close(st_pfw_reader *r);

/* Parse one line as the reader does, for tests and fuzzing: LINE is read
 * with R's hash maps and string table (R from st_pfw_reader_mem).  Returns
 * as st_pfw_next, with ST_PFW_EOF for a skipped line. */
int st_pfw_feed(st_pfw_reader *r, const char *line, size_t len,
		st_pfw_event *ev);

/* A reader over no file, for st_pfw_feed.  NULL when memory runs out. */
st_pfw_reader *st_pfw_reader_mem(void);

/* Bytes of a read or write call: the event's NAME, CAT and raw args (the
 * values as st_pfw_raw holds them).  See the rule in pfw.c; -1 when none. */
int64_t st_pfw_event_bytes(const char *name, size_t namelen,
			   const st_pfw_raw *raw);

/* ---- other line formats through the same reader ---------------------- */

/* A line parser for st_pfw_open_with: LINE[0..LEN) (no newline) into EV,
 * ids from st_pfw_intern.  Returns ST_PFW_EVENT, ST_PFW_BAD (through
 * st_pfw_mark_bad) or ST_PFW_EOF for a line that is skipped. */
typedef int (*st_pfw_feed_fn)(void *ctx, st_pfw_reader *r, const char *line,
			      size_t len, st_pfw_event *ev);

/* Open PATH as st_pfw_open does, its lines read by FEED (with CTX)
 * instead of as JSON.  DONE (may be NULL) is called with CTX when the
 * reader is closed (with R NULL when the open fails), before R goes. */
st_pfw_reader *st_pfw_open_with(const char *path, st_pfw_feed_fn feed,
				void *ctx,
				void (*done)(void *ctx, const st_pfw_reader *r),
				st_error *err);

/* For a FEED: intern a string into R's table (id, or -1 out of memory);
 * count the line as corrupt, WHY saying why (returns ST_PFW_BAD); the
 * current line's number; the path R reads. */
int64_t st_pfw_intern(st_pfw_reader *r, const char *s, size_t len);
int st_pfw_mark_bad(st_pfw_reader *r, const char *why);
uint64_t st_pfw_lineno(const st_pfw_reader *r);
const char *st_pfw_path(const st_pfw_reader *r);
/* The FEED and CTX of a reader of st_pfw_open_with (NULL otherwise). */
st_pfw_feed_fn st_pfw_feed_of(const st_pfw_reader *r, void **ctx);

#endif
