/* json_strings doc|lines FILE: read FILE with jansson, as one JSON
 * document or as JSON lines (JSON_ALLOW_NUL: "\u0000" is valid JSON), and
 * print every string in it, member names included, as the hex of its
 * bytes, one a line.  Python's json reads the same file in the tests and
 * must find the same strings: the output is valid for both readers.
 * Exit 0, or 1 naming the first line jansson refuses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

static void hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", (unsigned char)s[i]);
	putchar('\n');
}

static void walk(json_t *v)
{
	const char *k;
	json_t *x;
	size_t i;

	if (json_is_string(v)) {
		hex(json_string_value(v), json_string_length(v));
	} else if (json_is_array(v)) {
		json_array_foreach(v, i, x)
			walk(x);
	} else if (json_is_object(v)) {
		json_object_foreach(v, k, x) {
			hex(k, strlen(k));
			walk(x);
		}
	}
}

int main(int argc, char **argv)
{
	json_error_t e;
	json_t *j;
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	long no = 0;

	if (argc != 3 || (strcmp(argv[1], "doc") && strcmp(argv[1], "lines"))) {
		fprintf(stderr, "usage: json_strings doc|lines FILE\n");
		return 2;
	}
	if (!strcmp(argv[1], "doc")) {
		if (!(j = json_load_file(argv[2], JSON_ALLOW_NUL, &e))) {
			fprintf(stderr, "json_strings: %s:%d: %s\n", argv[2],
				e.line, e.text);
			return 1;
		}
		walk(j);
		json_decref(j);
		return 0;
	}
	if (!(f = fopen(argv[2], "rb"))) {
		perror(argv[2]);
		return 1;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		no++;
		if (!(j = json_loadb(line, (size_t)n, JSON_ALLOW_NUL, &e))) {
			fprintf(stderr, "json_strings: %s:%ld: %s\n", argv[2],
				no, e.text);
			free(line);
			fclose(f);
			return 1;
		}
		walk(j);
		json_decref(j);
	}
	free(line);
	fclose(f);
	return 0;
}
