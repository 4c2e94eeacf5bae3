/* libFuzzer target: the collectors re-reading their own output (SPEC 5.1,
 * 5.2): the header check, the torn-line repair of `collect receivers` and
 * the row check of `collect h5`, through the public entry points on a real
 * file.  The input's first byte picks the collector and its form; the rest
 * is what OUT held before the run.  The promises checked:
 *  - a run that fails leaves OUT byte for byte as it was;
 *  - receivers: a run that succeeds keeps every whole line OUT held (only
 *    bytes after the last newline may go, or get their newline), and OUT
 *    then ends with a newline;
 *  - h5: a run that succeeds keeps every row OUT held (read as CSV: the
 *    file is written anew, in one form).
 * The directories hold one complete scan and one counted file, made once. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "streamtime/clock.h"
#include "streamtime/collect.h"
#include "streamtime/csv.h"
#include "streamtime/time.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char root[64], acq[96], h5dir[96], out[96];

static void put(const char *dir, const char *name, const char *text)
{
	char path[256];
	FILE *f;
	struct timeval old[2] = { { 1600000000, 0 }, { 1600000000, 0 } };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!(f = fopen(path, "w")) || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	if (utimes(path, old) != 0)     /* settled long ago */
		abort();
}

static void setup(void)
{
	char name[96];

	snprintf(root, sizeof(root), "/tmp/fuzz_collect_out.XXXXXX");
	if (!mkdtemp(root))
		abort();
	snprintf(acq, sizeof(acq), "%s/acq", root);
	snprintf(h5dir, sizeof(h5dir), "%s/h5", root);
	snprintf(out, sizeof(out), "%s/out.csv", root);
	if (mkdir(acq, 0700) != 0 || mkdir(h5dir, 0700) != 0)
		abort();
	for (int r = 0; r < 4; r++) {
		snprintf(name, sizeof(name), "4dstem_rec_status_%d_scan_7.json", r);
		put(acq, name, "{\"time\": \"2023-10-13T16:45:09+00:00\"}");
	}
	put(acq, "data_scan0000000007_module0to1_dst0_file0.data", "x");
	put(h5dir, "FOURD_231013_0945_01410_00007.h5", "x");
}

static char *slurp(size_t *len)
{
	FILE *f = fopen(out, "rb");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		abort();
	do {
		if (n + 4096 > cap && !(buf = realloc(buf, cap = 2 * cap + 4096)))
			abort();
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got > 0);
	fclose(f);
	*len = n;
	return buf;
}

/* Does every row of OLD (LEN bytes) stand in NEW (NLEN bytes), both read
 * as CSV tables: the same distiller_id, scan number and datetime?  (collect
 * h5 writes the file anew: the scan number as a plain integer, no BOM, no
 * quotes, LF line ends.) */
static bool rows_kept(const char *old, size_t len, const char *new_,
		      size_t nlen)
{
	static const char *const cols[] = { "distiller_id", "scan_number",
					    "datetime" };
	st_table a, b;
	st_error err;
	int ia[3], ib[3];
	bool ok = true;

	st_table_init(&a);
	st_table_init(&b);
	if (st_table_parse(&a, "old", old, len, &err) < 0 ||
	    st_table_require(&a, cols, ia, 3, &err) < 0)
		goto out;               /* nothing the run could have kept */
	if (st_table_parse(&b, "new", new_, nlen, &err) < 0 ||
	    st_table_require(&b, cols, ib, 3, &err) < 0) {
		ok = false;             /* a file of ours it cannot read back */
		goto out;
	}
	for (size_t i = 0; i < a.nrows && ok; i++) {
		int64_t sa, sb;
		bool found = false;

		if (st_table_get_int(&a, i, ia[1], &sa, &err) < 0)
			continue;
		for (size_t j = 0; j < b.nrows && !found; j++)
			found = st_table_get_int(&b, j, ib[1], &sb, &err) == 0 &&
				sa == sb &&
				!strcmp(st_table_get(&a, i, ia[0]),
					st_table_get(&b, j, ib[0])) &&
				!strcmp(st_table_get(&a, i, ia[2]),
					st_table_get(&b, j, ib[2]));
		ok = found;
	}
out:
	st_table_release(&a);
	st_table_release(&b);
	return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool ready;
	const char *dirs[1] = { h5dir };
	st_collect_summary sum;
	st_error err;
	FILE *f;
	char *after;
	size_t alen, whole, len;
	int mode, rc;

	if (!ready) {
		setup();
		ready = true;
	}
	if (size < 1)
		return 0;
	mode = data[0] % 3;
	data++;
	len = size - 1;
	if (!(f = fopen(out, "wb")) || fwrite(data, 1, len, f) != len ||
	    fclose(f) != 0)
		abort();
	memset(&sum, 0, sizeof(sum));
	if (mode < 2) {
		st_receivers_opts o = { .receivers = 4, .data = mode == 0,
					.now = st_clock_now() };

		rc = st_collect_receivers(acq, out, false, &o, &sum, NULL, &err);
	} else {
		st_collect_h5_opts o = { .h5 = { .now = st_clock_now() } };

		rc = st_collect_h5(dirs, 1, out, &o, &sum, NULL, &err);
	}
	after = slurp(&alen);
	if (rc < 0) {
		if (alen != len || memcmp(after, data, len) != 0)
			abort();        /* a failed run changed OUT */
	} else if (mode < 2) {
		const uint8_t *nl = len ? memrchr(data, '\n', len) : NULL;

		whole = nl ? (size_t)(nl - data) + 1 : 0;
		if (alen < whole || memcmp(after, data, whole) != 0 ||
		    (alen > 0 && after[alen - 1] != '\n'))
			abort();        /* a whole line was lost */
	} else if (!rows_kept((const char *)data, len, after, alen)) {
		abort();                /* a row was lost */
	}
	free(after);
	return 0;
}
