/* install.c - the installed files, found from the executable's location. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "streamtime/install.h"

#include "st_config.h"

/* Per item: the path below the prefix (or absolute, when meson's option
 * is), the configured absolute path, and the source tree's. */
static const struct {
	const char *rel, *abs, *src;
} items[] = {
	[ST_INSTALL_DATA] = { ST_INSTALL_DATA_REL, ST_INSTALL_DATA_ABS,
			      ST_SOURCE_ROOT "/data" },
	[ST_INSTALL_DOC] = { ST_INSTALL_DOC_REL, ST_INSTALL_DOC_ABS,
			     ST_SOURCE_ROOT },
	[ST_INSTALL_SCRIPTS] = { ST_INSTALL_SCRIPTS_REL, ST_INSTALL_SCRIPTS_ABS,
				 ST_SOURCE_ROOT "/data/bpftrace" },
};

static bool is_dir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Do directories A and B name the same directory? */
static bool same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 &&
	       sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* The length of DIR less its last N components, when they spell BINDIR
 * ("bin", "lib/x/bin"); -1 when they do not. */
static long strip_bindir(const char *dir, size_t len, const char *bindir)
{
	size_t bl = strlen(bindir);

	while (bl && bindir[bl - 1] == '/')
		bl--;
	if (!bl || len <= bl || strncmp(dir + len - bl, bindir, bl) != 0 ||
	    dir[len - bl - 1] != '/')
		return -1;
	return (long)(len - bl - 1);
}

char *st_install_dir_for(const char *exe, const char *build,
			 enum st_install_item item)
{
	const char *slash = exe ? strrchr(exe, '/') : NULL;
	char *dir = NULL, *rel = NULL, *out;
	long up;

	if (slash && slash != exe && (dir = strndup(exe, (size_t)(slash - exe)))) {
		if (same_dir(dir, build ? build : ST_BUILD_ROOT)) {
			free(dir);
			return strdup(items[item].src);
		}
		if (items[item].rel[0] == '/')
			up = -1;        /* datadir outside the prefix */
		else
			up = strip_bindir(dir, strlen(dir), ST_INSTALL_BINDIR);
		if (up >= 0 && asprintf(&rel, "%.*s/%s", (int)up, dir,
					items[item].rel) < 0)
			rel = NULL;
		free(dir);
	}
	if (rel && (is_dir(rel) || !is_dir(items[item].abs)))
		return rel;
	free(rel);
	out = strdup(items[item].abs);
	return out;
}

const char *st_install_dir(enum st_install_item item)
{
	static char *dirs[ST_INSTALL_NITEMS];
	char exe[PATH_MAX];
	ssize_t n;

	if (dirs[item])
		return dirs[item];
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0)
		exe[n] = '\0';
	dirs[item] = st_install_dir_for(n > 0 ? exe : NULL, NULL, item);
	return dirs[item] ? dirs[item] : items[item].abs;
}
