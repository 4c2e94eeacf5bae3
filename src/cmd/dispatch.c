/* dispatch.c - running a subcommand of a table, and the tables dumped for
 * `streamtime --dump-options` (cmd.h): above the option parser
 * (options.c) and the messages (msg.c) that it uses. */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"

void st_cmd_group_help(FILE *f, const struct st_cmd_group *g)
{
	fprintf(f, "usage: %s <command> [options]\n\ncommands:\n", g->path);
	for (size_t i = 0; i < g->n; i++)
		fprintf(f, "  %-12s %s\n", g->cmds[i].name, g->cmds[i].summary);
	fprintf(f, "\nrun '%s <command> --help' for a command's options\n",
		g->path);
}

/* "unknown command 'X'", with the nearest name of G when one is close. */
static int unknown_command(const struct st_cmd_group *g, const char *name)
{
	const char *names[64];
	size_t n = g->n < 64 ? g->n : 64;
	const char *near;

	for (size_t i = 0; i < n; i++)
		names[i] = g->cmds[i].name;
	near = st_opt_suggest(name, names, n);
	if (near)
		return st_msg_usage(g->path, "unknown command '%s'; did you mean "
				    "'%s'?", name, near);
	return st_msg_usage(g->path, "unknown command '%s'", name);
}

int st_cmd_dispatch(const struct st_cmd_group *g, int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name || strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
		st_cmd_group_help(name ? stdout : stderr, g);
		return name ? st_finish_stdout(ST_EXIT_OK) : ST_EXIT_USAGE;
	}
	for (size_t i = 0; i < g->n; i++)
		if (strcmp(g->cmds[i].name, name) == 0)
			return g->cmds[i].fn(argc - 1, argv + 1);
	return unknown_command(g, name);
}

/* Add G and everything below it to ARR. */
static int dump_group(const struct st_cmd_group *g, const char *summary,
		      json_t *arr)
{
	json_t *names = json_array();

	for (size_t i = 0; names && i < g->n; i++)
		json_array_append_new(names, json_string(g->cmds[i].name));
	if (json_array_append_new(arr, json_pack("{s:s, s:s?, s:o}", "path",
						 g->path, "summary", summary,
						 "commands", names)) < 0)
		return ST_EXIT_IOERR;
	for (size_t i = 0; i < g->n; i++) {
		const struct st_cmd *c = &g->cmds[i];
		int rc;

		if (c->group) {
			rc = dump_group(c->group, c->summary, arr);
		} else {
			char *args[] = { (char *)c->name, NULL };

			st_opt_dump_summary = c->summary;
			rc = c->fn(1, args);
		}
		if (rc != ST_EXIT_OK)
			return rc;
	}
	return ST_EXIT_OK;
}

int st_cmd_dump(const struct st_cmd_group *g)
{
	json_t *arr = json_array();
	int rc;

	st_opt_dump_sink = arr;
	rc = arr ? dump_group(g, NULL, arr) : ST_EXIT_IOERR;
	st_opt_dump_sink = NULL;
	if (rc == ST_EXIT_OK && (json_dumpf(arr, stdout, JSON_INDENT(1)) < 0 ||
				 fputc('\n', stdout) == EOF))
		rc = ST_EXIT_IOERR;
	json_decref(arr);
	return st_finish_stdout(rc);
}
