/* install.h - where streamtime finds what it ships beside its binary: the
 * sample dataset, the README and the guide, trace record's scripts.
 *
 * `meson install` puts them under the prefix: DATADIR/streamtime/data (the
 * sample), DATADIR/doc/streamtime/{README.md,docs/guide.md,docs/img},
 * DATADIR/streamtime/bpftrace (data/bpftrace in the source tree).  They
 * are found from the executable's own location (/proc/self/exe), so a
 * DESTDIR install moved elsewhere works; a streamtime run from its build
 * directory reads the source tree instead (data/, README.md, docs/).
 */
#ifndef STREAMTIME_INSTALL_H
#define STREAMTIME_INSTALL_H

#include <stdbool.h>

enum st_install_item {
	ST_INSTALL_DATA,        /* the sample dataset */
	ST_INSTALL_DOC,         /* README.md and docs/guide.md below it */
	ST_INSTALL_SCRIPTS,     /* trace record's bpftrace scripts */
	ST_INSTALL_NITEMS
};

/* Where ITEM is for a streamtime whose executable is EXE (absolute,
 * symlinks resolved), in this order:
 *   - EXE's directory is the build directory BUILD: the source tree's;
 *   - EXE's directory ends in the configured bindir ("bin"): the prefix
 *     above it, then the item's path below the prefix, if that exists;
 *   - the configured path (prefix and all), if that exists (a binary
 *     copied out of its install);
 *   - the first of the two above that could be formed, to name in the
 *     caller's "missing" message.
 * BUILD NULL: the configured build directory.  New string; NULL when out
 * of memory. */
char *st_install_dir_for(const char *exe, const char *build,
			 enum st_install_item item);

/* st_install_dir_for this process's executable; the configured path when
 * /proc/self/exe cannot be read.  Borrowed: made once, kept until exit;
 * never NULL (the configured path when memory runs out). */
const char *st_install_dir(enum st_install_item item);

#endif
