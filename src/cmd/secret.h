/* secret.h - secrets read from files and wiped; URLs in argv with
 * their password taken out of the process list (secret.c). */
#ifndef STREAMTIME_CMD_SECRET_H
#define STREAMTIME_CMD_SECRET_H

#include "streamtime/error.h"

/* The secret (token, key) in the file at PATH, trailing CR/LF removed, or
 * NULL with ERR set (66 missing, 74 unreadable, 65 empty).  Wipe it with
 * explicit_bzero before free. */
char *st_secret_read(const char *path, st_error *err);

/* Wipe the secret S (NULL: nothing) with explicit_bzero and free it. */
void st_secret_free(char *s);

/* The URL given to option OPT as ARG (a string of argv), as a new copy
 * (NULL: out of memory; wipe with explicit_bzero before free).  When ARG
 * holds a password ("http://user:PW@host"), it is overwritten with '*' in
 * ARG, so that the process list shows it no more, and a warning says to
 * use INSTEAD ("a token file"). */
char *st_url_arg_take(const char *opt, char *arg, const char *instead);

#endif
