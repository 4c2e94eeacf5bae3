/* secret.c - secrets (tokens, keys) read from files and wiped, and URLs
 * given in argv with a password taken out of the process list
 * (secret.h). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/file.h"
#include "streamtime/http.h"

char *st_secret_read(const char *path, st_error *err)
{
	size_t n;
	char *s = st_file_read(path, &n, err);

	if (!s)
		return NULL;
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
	if (n == 0 || strlen(s) != n) {
		explicit_bzero(s, n);
		free(s);
		st_error_set(err, ST_EXIT_DATAERR, "%s: %s", path, n ?
			     "the secret holds a NUL byte" : "empty");
		return NULL;
	}
	return s;
}

char *st_url_arg_take(const char *opt, char *arg, const char *instead)
{
	char *copy = strdup(arg);
	size_t off, len;

	if (copy && st_http_url_password(arg, &off, &len)) {
		/* out of the process list (ps, /proc/PID/cmdline) from now
		 * on; it was there until here */
		memset(arg + off, '*', len);
		st_msg_warn("%s holds a password, which other local users "
			    "could read in the process list: %s instead", opt,
			    instead);
	}
	return copy;
}

void st_secret_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}
