/* options.h - one declarative option layer for every command, after git's
 * parse-options: a command declares its options as a table and a
 * descriptor; st_opt_parse() does the rest (long and short options,
 * --opt=value and --opt value, bundled short flags, unambiguous prefixes,
 * "--", required options, -h/--help, -q/--quiet, -v/--verbose, usage
 * errors naming the full command path with a "did you mean" suggestion).
 * The same tables generate --help and, through `streamtime --dump-options`,
 * the man page and the bash completion (docs/gen_man.py). */
#ifndef STREAMTIME_CMD_OPTIONS_H
#define STREAMTIME_CMD_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "streamtime/error.h"

enum st_opt_kind {
	ST_OPT_END = 0,
	ST_OPT_FLAG,      /* bool *: set to true, takes no value */
	ST_OPT_UNSET,     /* bool *: set to false, takes no value */
	ST_OPT_INT,       /* int64_t *: a whole decimal number in [min, max] */
	ST_OPT_SECONDS,   /* st_duration *: decimal seconds, > 0 (>= 0 with
			   * ST_OPT_ZERO_OK), at most max; ST_OPT_WHOLE */
	ST_OPT_STRING,    /* const char **: any text */
	ST_OPT_PATH,      /* const char **: a file or directory name
			   * (completion: directories when the metavar
			   * names a DIR only, else files) */
	ST_OPT_ZONE,      /* const char **: an IANA zone name */
	ST_OPT_CHOICE,    /* int *: the index of the value in choices */
	ST_OPT_LIST,      /* struct st_strlist *: repeatable strings */
	ST_OPT_SIZE_RANGE,/* struct st_size_ranges *: repeatable SIZE:FIRST-LAST */
	ST_OPT_CALLBACK,  /* cb(target, value, err) */
	ST_OPT_GROUP,     /* no option: a heading above the rows that follow */
};

/* flags of an option row */
#define ST_OPT_REQUIRED  0x01u  /* must be given (at least once) */
#define ST_OPT_ZERO_OK   0x02u  /* SECONDS: 0 is allowed */
#define ST_OPT_WHOLE     0x04u  /* SECONDS: whole seconds only */
#define ST_OPT_REPEAT    0x08u  /* CALLBACK: may be given more than once */
#define ST_OPT_NOARG     0x10u  /* CALLBACK: takes no value (arg is NULL) */
#define ST_OPT_FILES     0x20u  /* LIST, CALLBACK, STRING: complete file
				 * names */

/* What completion offers for a value (derived from the kind and flags). */
enum st_opt_complete {
	ST_COMPLETE_NONE, ST_COMPLETE_FILE, ST_COMPLETE_DIR,
	ST_COMPLETE_ZONE, ST_COMPLETE_CHOICE,
};

struct st_option;

/* A callback's contract: parse ARG (a string of argv: it may be
 * overwritten, e.g. to hide a password; NULL with ST_OPT_NOARG) into
 * O->target.  Returns 0, or -1 with ERR set: code 64 is a usage error
 * whose text follows the command path, any other code is said as it is. */
typedef int st_opt_cb(const struct st_option *o, char *arg, st_error *err);

struct st_option {
	const char *name;           /* long name without "--"; NULL: short only */
	char short_name;            /* 0: none */
	enum st_opt_kind kind;
	void *target;
	const char *metavar;        /* the value's name in help: FILE, N, ... */
	const char *help;           /* one paragraph; '\n' forces a break */
	unsigned flags;
	int64_t min, max;           /* INT: range; SECONDS: max seconds */
	const char *const *choices; /* CHOICE: values (NULL-terminated);
				     * CALLBACK: what completion offers */
	/* min, max, choices, expect and cb are set by name after ST_O() */
	const char *expect;         /* "--opt 'X': expected EXPECT"; for
				     * st_opt_cb_url what to use instead of
				     * a password in the URL */
	st_opt_cb *cb;
};

/* Row builders, as git's OPT_* macros: { ST_O(...) } or, with more
 * fields, { ST_O(...), .min = 1, .max = 9 }. */
#define ST_O(l, s, k, t, m, h, f) \
	.name = (l), .short_name = (s), .kind = (k), .target = (t), \
	.metavar = (m), .help = (h), .flags = (f)
#define ST_OPT_GROUP_ROW(text) { .kind = ST_OPT_GROUP, .help = (text) }
#define ST_OPT_END_ROW { .kind = ST_OPT_END }

/* Targets of the repeatable kinds; the caller frees .v (st_opt_list_release). */
struct st_strlist {
	const char **v;             /* pointers into argv */
	size_t n;
};
struct st_size_ranges {
	struct st_size_range *v;
	size_t n;
};
/* A growable list of whole numbers, for callbacks (--size N); free .v. */
struct st_i64list {
	int64_t *v;
	size_t n;
};

/* Append X to L.  0, or -1 with ERR set (74, out of memory; L as it was). */
int st_i64list_push(struct st_i64list *l, int64_t x, st_error *err);

/* A command: everything its --help says besides the option rows. */
struct st_cmd_desc {
	const char *path;           /* "streamtime trace summary" */
	const char *args;           /* positional arguments for the synopsis:
				     * "FILE...", "DIR"; NULL: none */
	int min_args, max_args;     /* max_args -1: any number */
	const char *args_missing;   /* message when fewer than min_args */
	enum st_opt_complete args_complete;
	const char *description;    /* after the synopsis, verbatim; a line
				     * "  TERM  TEXT" is a list item */
	const char *epilogue;       /* after the options, verbatim */
	const char *required_msg;   /* instead of "--a, --b and --c are required" */
	const char *verbose_help;   /* what -v adds, if anything to say */
};

/* In a st_cmd_desc: one or more positional arguments SYN ("FILE..."),
 * MISSING said when there are none, completed as COMPLETE. */
#define ST_DESC_ARGS_ANY(syn, missing, complete) \
	.args = (syn), .min_args = 1, .max_args = -1, \
	.args_missing = (missing), .args_complete = (complete)

/* The row of --out-dir DIR, required, with HELP. */
#define ST_ROW_OUT_DIR(var, help) \
	{ ST_O("out-dir", 0, ST_OPT_PATH, &(var), "DIR", help, ST_OPT_REQUIRED) }
#define ST_OUT_DIR_HELP "where the files go (created if needed)"
/* --config FILE, the experiments: one help for one rule, st_load_experiments
 * (cmd/msg.c), which looks in the --data directory first. */
#define ST_ROW_CONFIG(var) \
	{ ST_O("config", 0, ST_OPT_PATH, &(var), "FILE", \
	       "experiments: scan ranges, H5 files, time zones (default: " \
	       "experiments.json in the --data directory if present, else " \
	       "the paper's)", 0) }

/* st_opt_parse's return value when the command goes on. */
#define ST_OPT_CONTINUE (-1)

/* Parse ARGV (ARGV[0] the command's name) by OPTS (ended by an
 * ST_OPT_END row) for D.  The positional arguments are moved to
 * ARGV[1..*NARGS] (argv is permuted, as GNU getopt does).  Returns
 * ST_OPT_CONTINUE, or the exit status the command returns at once: 0
 * after --help (printed to stdout), 64 after a usage error (said on
 * stderr), 74 when out of memory or stdout failed. */
int st_opt_parse(const struct st_cmd_desc *d, const struct st_option *opts,
		 int argc, char **argv, int *nargs);

/* st_opt_parse with its status in *RC: true when the command goes on,
 * false when it returns *RC at once (every command's head:
 * `if (!st_opt_go(&desc, opts, argc, argv, &n, &rc)) return rc;`). */
static inline bool st_opt_go(const struct st_cmd_desc *d,
			     const struct st_option *opts, int argc,
			     char **argv, int *nargs, int *rc)
{
	return (*rc = st_opt_parse(d, opts, argc, argv, nargs)) ==
	       ST_OPT_CONTINUE;
}

/* Write D's --help for OPTS to F. */
void st_opt_help(FILE *f, const struct st_cmd_desc *d,
		 const struct st_option *opts);

/* Callbacks that several commands share.  st_opt_cb_nonempty: the text,
 * not empty (const char *).  st_opt_cb_http_size: 65536, 64K, 256M, 1G
 * (size_t).  st_opt_cb_url: a copy of the URL (char *, new: wipe with
 * explicit_bzero before free), a password in it wiped from argv with a
 * warning that names O->expect as what to use instead. */
st_opt_cb st_opt_cb_nonempty, st_opt_cb_http_size, st_opt_cb_url;

/* Free what a repeatable option's target holds. */
void st_strlist_release(struct st_strlist *l);
void st_size_ranges_release(struct st_size_ranges *r);

/* The edit distance of A and B (Damerau-Levenshtein, optimal string
 * alignment: insert, delete, substitute, swap two neighbours, each 1). */
size_t st_opt_distance(const char *a, const char *b);

/* The candidate of CANDS (N entries, or NULL-terminated when N is
 * (size_t)-1) closest to WORD when it is close enough to be a likely
 * typo, else NULL (borrowed from CANDS). */
const char *st_opt_suggest(const char *word, const char *const *cands,
			   size_t n);

/* Dump mode (`streamtime --dump-options`): while it is set, st_opt_parse
 * adds the command's descriptor and table to it (a jansson array, as a
 * json_t *) and returns 0 without parsing. */
extern void *st_opt_dump_sink;
extern const char *st_opt_dump_summary;   /* the command's summary line */

#endif
