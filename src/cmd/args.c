/* args.c - option arguments read: seconds, sizes with scan ranges or
 * paths, the experiments that --config/--data name (args.h). */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "streamtime/atomic.h"
#include "streamtime/merge.h"
#include "streamtime/num.h"

int st_parse_seconds(const char *s, bool zero_ok, double max, st_duration *out)
{
	double v;

	if (st_num_parse_double(s, &v) < 0 || v < 0 || (v == 0 && !zero_ok) ||
	    v > max)
		return -1;
	*out = (st_duration)(v * 1e9);
	return 0;
}

int st_parse_size_range(const char *s, int64_t *size, st_range *r)
{
	char buf[128], *colon, *dash;
	int64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	dash = strchr(colon + 1, '-');
	if (!dash)
		return -1;
	*dash = '\0';
	if (st_num_parse_int(buf, size) < 0 || *size <= 0 ||
	    st_num_parse_int(colon + 1, &a) < 0 ||
	    st_num_parse_int(dash + 1, &b) < 0 || a > b || strchr(buf, '.'))
		return -1;
	r->first = a;
	r->last = b;
	return 0;
}

int st_parse_size_path(const char *s, int64_t *size, const char **path)
{
	const char *colon = strchr(s, ':');
	char buf[32];

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(buf) ||
	    !colon[1])
		return -1;
	memcpy(buf, s, (size_t)(colon - s));
	buf[colon - s] = '\0';
	if (st_num_parse_int(buf, size) < 0 || *size <= 0)
		return -1;
	*path = colon + 1;
	return 0;
}

int st_push_size_range(st_size_range **v, size_t *n, const char *arg)
{
	st_size_range *nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	*v = nv;
	if (st_parse_size_range(arg, &nv[*n].size, &nv[*n].range) < 0)
		return -1;
	(*n)++;
	return 0;
}

int st_load_experiments(const char *config, const char *data,
			st_experiments *ex, st_error *err)
{
	char *used;
	int rc = st_experiments_given(ex, config, data, &used, err);

	if (rc == 0)
		st_msg_verbose("experiments: %s", used ? used :
			       "the paper's (built in)");
	free(used);
	return rc;
}

int st_strv_push(const char ***v, size_t *n, const char *s)
{
	const char **nv = realloc(*v, (*n + 1) * sizeof(*nv));

	if (!nv)
		return -1;
	nv[(*n)++] = s;
	*v = nv;
	return 0;
}
