/* provenance.c - OUT/provenance.json (provenance.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "st_config.h"
#include "streamtime/atomic.h"
#include "streamtime/features.h"
#include "streamtime/file.h"
#include "streamtime/provenance.h"
#include "streamtime/text.h"
#include "streamtime/time.h"

int st_sha256_file(const char *path, char hex[65], uint64_t *size,
		   st_error *err)
{
	static const char digits[] = "0123456789abcdef";
	unsigned char buf[1 << 16], d[SHA256_DIGEST_SIZE];
	struct sha256_ctx ctx;
	uint64_t total = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return st_error_set(err, errno == ENOENT ? ST_EXIT_NOINPUT :
				    ST_EXIT_IOERR, "cannot open %s: %s", path,
				    strerror(errno));
	sha256_init(&ctx);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int e = errno;

			close(fd);
			return st_error_set(err, ST_EXIT_IOERR, "cannot read %s: "
					    "%s", path, strerror(e));
		}
		if (n == 0)
			break;
		sha256_update(&ctx, (size_t)n, buf);
		total += (uint64_t)n;
	}
	close(fd);
	sha256_digest(&ctx, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++) {
		hex[2 * i] = digits[d[i] >> 4];
		hex[2 * i + 1] = digits[d[i] & 15];
	}
	hex[64] = '\0';
	*size = total;
	return 0;
}

/* Set O's member NAME to the string S: S itself when it is UTF-8, else
 * its escaped text and, beside it, NAME_hex with its bytes (the README's
 * "Names whatever their bytes").  0, or -1 when memory runs out. */
static int set_name(json_t *o, const char *name, const char *s)
{
	size_t len = strlen(s);
	char *esc, *hex, key[64];
	int rc;

	if (st_utf8_valid(s, len))
		return json_object_set_new(o, name, json_string(s));
	esc = st_text_escape_dup(s, len, 0);
	hex = malloc(2 * len + 1);
	if (!esc || !hex) {
		free(esc);
		free(hex);
		return -1;
	}
	st_text_hex(hex, s, len);
	snprintf(key, sizeof(key), "%s_hex", name);
	rc = json_object_set_new(o, name, json_string(esc)) < 0 ||
	     json_object_set_new(o, key, json_string(hex)) < 0 ? -1 : 0;
	free(esc);
	free(hex);
	return rc;
}

/* Append {key, path, size, sha256} of the file PATH to LIST, named
 * SHOWN (NULL: PATH), with LIVE's query and server when it is a live
 * source's snapshot. */
static int add_file(json_t *list, const char *key, const char *path,
		    const char *shown, const st_provenance_live *live,
		    st_error *err)
{
	char hex[65];
	uint64_t size;
	json_t *o;

	if (st_sha256_file(path, hex, &size, err) < 0)
		return -1;
	o = json_pack("{s:s}", "key", key);
	if (o && (set_name(o, "path", shown ? shown : path) < 0 ||
		  json_object_set_new(o, "size", json_integer(
			  (json_int_t)size)) < 0 ||
		  json_object_set_new(o, "sha256", json_string(hex)) < 0)) {
		json_decref(o);
		o = NULL;
	}
	if (o && live && json_object_update_new(o, json_pack(
		    "{s:s, s:s, s:s}", "source", live->source, "query",
		    live->query, "server", live->server)) < 0) {
		json_decref(o);
		o = NULL;
	}
	if (!o || json_array_append_new(list, o) < 0)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file below the directory DIR, sorted by name at each
 * level, added as KEY.  Symbolic links are followed (stat), as the
 * readers follow them; hidden entries too: a reader would read them. */
static int add_dir(json_t *list, const char *key, const char *dir,
		   const char *shown, const st_provenance_live *live,
		   int depth, st_error *err)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;
	int rc = -1, r;

	if (!d)
		return st_error_set(err, ST_EXIT_NOINPUT, "cannot open %s: %s",
				    dir, strerror(errno));
	if (depth > 32) {
		closedir(d);
		return st_error_set(err, ST_EXIT_DATAERR, "%s: directories "
				    "nested more than 32 deep (a loop of "
				    "links?)", dir);
	}
	while ((r = st_dir_read(d, dir, &de, err)) > 0) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			size_t nc = cap ? cap * 2 : 32;
			char **nn = realloc(names, nc * sizeof(*nn));

			if (!nn)
				goto oom;
			names = nn;
			cap = nc;
		}
		names[n] = st_path_join(dir, de->d_name);
		if (!names[n])
			goto oom;
		n++;
	}
	if (r < 0)
		goto out;
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		char *sub = shown ? st_path_join(shown, names[i] +
						 strlen(dir) + 1) : NULL;
		int r2;

		if (shown && !sub)
			goto oom;
		if (stat(names[i], &st) < 0) {
			free(sub);
			continue;       /* a dangling link: nothing to read */
		}
		r2 = S_ISDIR(st.st_mode) ?
		     add_dir(list, key, names[i], sub, live, depth + 1, err) :
		     S_ISREG(st.st_mode) ?
		     add_file(list, key, names[i], sub, live, err) : 0;
		free(sub);
		if (r2 < 0)
			goto out;
	}
	rc = 0;
	goto out;
oom:
	st_error_set(err, ST_EXIT_IOERR, "out of memory");
out:
	closedir(d);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return rc;
}

static int add_inputs(json_t *list, const st_session *s,
		      const st_provenance_live *live, size_t nlive,
		      st_error *err)
{
	size_t n;
	st_session_input *in = st_session_inputs(s, &n);
	int rc = 0;

	if (!in)
		return st_error_set(err, ST_EXIT_IOERR, "out of memory");
	for (size_t i = 0; i < n && rc == 0; i++) {
		struct stat st;

		if (stat(in[i].path, &st) < 0)
			rc = st_error_set(err, ST_EXIT_NOINPUT, "%s: cannot open "
					  "%s: %s", in[i].key, in[i].path,
					  strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = add_dir(list, in[i].key, in[i].path, NULL, NULL, 0,
				     err);
		else
			rc = add_file(list, in[i].key, in[i].path, NULL, NULL,
				      err);
	}
	free(in);
	for (size_t i = 0; i < nlive && rc == 0; i++) {
		struct stat st;

		if (stat(live[i].snapshot, &st) < 0)
			rc = st_error_set(err, ST_EXIT_IOERR, "%s: the snapshot "
					  "%s is gone: %s", live[i].key,
					  live[i].shown, strerror(errno));
		else if (S_ISDIR(st.st_mode))
			rc = add_dir(list, live[i].key, live[i].snapshot,
				     live[i].shown, &live[i], 0, err);
		else
			rc = add_file(list, live[i].key, live[i].snapshot,
				      live[i].shown, &live[i], err);
	}
	return rc;
}

static json_t *build(const st_session *s, int argc, char *const argv[],
		     const st_provenance_live *live, size_t nlive,
		     st_error *err)
{
	json_t *root, *feat = json_array(), *cmd = json_array();
	json_t *inputs = json_array(), *sess;
	char host[256] = "", *cwd = getcwd(NULL, 0), when[64];
	struct timespec ts;
	st_instant now = 0;

	for (int i = 0; feat && i < ST_FEATURE_COUNT; i++) {
		char f[64];

		snprintf(f, sizeof(f), "%c%s", st_feature_built(i) ? '+' : '-',
			 st_feature_name(i));
		json_array_append_new(feat, json_string(f));
	}
	/* the words of the command line, each as set_name writes a name:
	 * {"arg": text} when it is not UTF-8, so that none goes missing */
	for (int i = 0; cmd && i < argc; i++) {
		json_t *w = NULL;

		if (st_utf8_valid(argv[i], strlen(argv[i]))) {
			w = json_string(argv[i]);
		} else if ((w = json_object()) && set_name(w, "arg", argv[i]) < 0) {
			json_decref(w);
			w = NULL;
		}
		if (!w || json_array_append_new(cmd, w) < 0) {
			json_decref(cmd);
			cmd = NULL;
		}
	}
	gethostname(host, sizeof(host) - 1);
	clock_gettime(CLOCK_REALTIME, &ts);
	st_instant_from_timespec(ts.tv_sec, ts.tv_nsec, &now);
	st_time_format_utc(now, when, sizeof(when));
	/* the names come from the session's JSON: UTF-8 already */
	sess = json_pack("{s:b, s:{s:s, s:s, s:s}}", "synthetic", s->synthetic,
			 "names", "instrument", s->instrument,
			 "acquisition_site", s->acquisition_site,
			 "compute_site", s->compute_site);
	root = json_pack("{s:{s:s, s:o}, s:o, s:s}",
			 "streamtime", "version", ST_VERSION, "features", feat,
			 "command", cmd, "time", when);
	if (root && sess &&
	    (set_name(root, "working_directory", cwd ? cwd : "") < 0 ||
	     set_name(root, "host", host) < 0 ||
	     (s->file ? set_name(sess, "file", s->file) :
	      json_object_set_new(sess, "file", json_null())) < 0 ||
	     json_object_set_new(root, "session", sess) < 0)) {
		json_decref(root);
		root = NULL;
	} else if (!root) {
		json_decref(sess);
	}
	free(cwd);
	if (!root || !inputs || json_object_set_new(root, "inputs", inputs) < 0) {
		json_decref(root);
		st_error_set(err, ST_EXIT_IOERR, "out of memory");
		return NULL;
	}
	if (add_inputs(inputs, s, live, nlive, err) < 0) {
		json_decref(root);
		return NULL;
	}
	return root;
}

int st_provenance_write(const char *path, const st_session *s, int argc,
			char *const argv[], const st_provenance_live *live,
			size_t nlive, st_error *err)
{
	st_atomic_file af;
	json_t *root = build(s, argc, argv, live, nlive, err);
	int rc = -1;

	if (!root)
		return -1;
	if (st_atomic_open(&af, path, err) < 0)
		goto out;
	if (json_dumpf(root, af.fp, JSON_INDENT(2) | JSON_ENSURE_ASCII) < 0 ||
	    fputc('\n', af.fp) == EOF) {
		st_atomic_abort(&af);
		st_error_set(err, ST_EXIT_IOERR, "cannot write %s", path);
		goto out;
	}
	rc = st_atomic_commit(&af, err);
out:
	json_decref(root);
	return rc;
}
