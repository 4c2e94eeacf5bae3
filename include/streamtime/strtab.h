/* strtab.h - interned strings: a string table that maps byte strings to
 * dense ids, for the names, categories, hosts and files of trace events
 * and the keys of their groups.
 */
#ifndef STREAMTIME_STRTAB_H
#define STREAMTIME_STRTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The entries by id, and the blocks of bytes by number, in segments that
 * never move: segment K holds ST_STRTAB_SEG0 << K of them, so 27 hold
 * every 32-bit id. */
#define ST_STRTAB_SEG0 64u
#define ST_STRTAB_NSEG 27

/* Strings mapped to dense ids 0, 1, 2, ...; the bytes are copied and stay
 * at one address until the table is released (the pointers returned by
 * st_strtab_str are borrowed from it).  Strings may hold any byte. */
typedef struct st_strtab {
	struct st_strtab_ent *seg[ST_STRTAB_NSEG];  /* by id */
	uint32_t n;
	uint32_t *slot;           /* open addressing: id + 1, 0 empty */
	uint32_t mask;
	char **blk[ST_STRTAB_NSEG];  /* the bytes, in blocks of 64 KiB */
	uint32_t nblk, cur, used;  /* blocks made; the one filling, its use */
	bool filling;             /* cur is a block being filled (a string
				   * over a block's size has one of its own) */
	struct st_strtab_lock *lock;  /* st_strtab_share, else NULL */
	bool compact;             /* st_strtab_compact */
	struct st_strtab *dirs;   /* a compact table's directories */
} st_strtab;

void st_strtab_init(st_strtab *t);
void st_strtab_release(st_strtab *t);

/* Make T, empty, one that threads share: st_strtab_intern and
 * st_strtab_find take a lock, while st_strtab_str takes none (an entry
 * never moves once added), so a thread may read the ids it interned
 * while others add theirs.  0, or -1 when the lock cannot be made. */
int st_strtab_share(st_strtab *t);

/* Make T, empty, keep its strings compact: a string with a '/' as the id
 * of what comes up to its last '/' (in a table of those) and the bytes
 * after it, so that a file's path costs its base name's bytes and a
 * byte or two, not its directory's again.  A compact table's strings are
 * not kept whole: read them with st_strtab_get, never st_strtab_str. */
void st_strtab_compact(st_strtab *t);

/* The id of S[0..LEN), added when new (*ADDED, may be NULL, says so).
 * Returns the id, or -1 when memory runs out. */
int64_t st_strtab_intern(st_strtab *t, const char *s, size_t len, bool *added);

/* The id of S[0..LEN), or -1 when it is not in T. */
int64_t st_strtab_find(const st_strtab *t, const char *s, size_t len);

/* String ID (borrowed, NUL-terminated); *LEN gets its length (LEN may be
 * NULL). */
const char *st_strtab_str(const st_strtab *t, uint32_t id, size_t *len);

/* String ID of T, whole: its address in T, or for a compact table a copy
 * in *BUF (grown as needed, *CAP bytes; NUL-terminated), good until the
 * next call with BUF.  *LEN gets its length; NULL when memory runs
 * out. */
const char *st_strtab_get(const st_strtab *t, uint32_t id, char **buf,
			  size_t *cap, size_t *len);

/* A 64-bit hash of S[0..LEN) (the one the table uses). */
uint64_t st_strtab_hash(const char *s, size_t len);

#endif
