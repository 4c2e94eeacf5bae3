/* suggest.h - "did you mean": the closest of a list of words to a typo.
 * Shared by the option parser (src/cmd/options.c) and the library's own
 * parsers of names (trace keys), which may not call the command layer.
 */
#ifndef STREAMTIME_SUGGEST_H
#define STREAMTIME_SUGGEST_H

#include <stddef.h>

/* The edit distance of A and B (Damerau-Levenshtein, optimal string
 * alignment: insert, delete, substitute, swap two neighbours, each 1).
 * (size_t)-1 when memory runs out. */
size_t st_edit_distance(const char *a, const char *b);

/* The candidate of CANDS (N entries, or NULL-terminated when N is
 * (size_t)-1) closest to WORD when it is close enough to be a likely
 * typo (at most a third of the longer word wrong, at least one edit
 * allowed, and a single best candidate), else NULL (borrowed from
 * CANDS). */
const char *st_suggest(const char *word, const char *const *cands, size_t n);

#endif
