/* dispatch.h - commands and their tables: a subcommand run by name,
 * a group's help, `streamtime --dump-options` (dispatch.c). */
#ifndef STREAMTIME_CMD_DISPATCH_H
#define STREAMTIME_CMD_DISPATCH_H

#include <stddef.h>
#include <stdio.h>

/* A command: parses ARGV (ARGV[0] its name), returns its exit status. */
typedef int st_cmd_fn(int argc, char **argv);

/* One entry of a dispatch table: a leaf command (GROUP NULL; FN parses its
 * options with st_opt_parse) or a command with subcommands (GROUP). */
struct st_cmd {
	const char *name;
	st_cmd_fn *fn;
	const char *summary;
	const struct st_cmd_group *group;
};

/* A command with subcommands: its path ("streamtime merge") and table,
 * sorted by name. */
struct st_cmd_group {
	const char *path;
	const struct st_cmd *cmds;
	size_t n;
};

#define ST_CMD_GROUP(var, path, table) \
	const struct st_cmd_group var = { path, table, \
		sizeof(table) / sizeof(table[0]) }

/* The group VAR and the command FN that runs its subcommands. */
#define ST_CMD_GROUP_FN(fn, var, path, table) \
	ST_CMD_GROUP(var, path, table); \
	int fn(int argc, char **argv) \
	{ \
		return st_cmd_dispatch(&var, argc, argv); \
	}

/* Run the subcommand of G named by ARGV[1].  Handles -h/--help and an
 * unknown (with a suggestion) or missing subcommand (exit 64). */
int st_cmd_dispatch(const struct st_cmd_group *g, int argc, char **argv);

/* Write G's list of commands (its --help) to F. */
void st_cmd_group_help(FILE *f, const struct st_cmd_group *g);

/* `streamtime --dump-options`: every command of G and below, with its
 * descriptor and option table, as JSON on stdout.  Returns the exit
 * status. */
int st_cmd_dump(const struct st_cmd_group *g);

#endif
