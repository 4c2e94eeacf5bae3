/* fcache.c - a filter's answers cached per string id (fcache.h). */
#include <stdlib.h>
#include <string.h>

#include "fcache.h"

void st_trace_fcache_release(struct st_trace_fcache *c)
{
	for (int f = 0; f < 4; f++)
		free(c->ok[f]);
	memset(c, 0, sizeof(*c));
}

/* Do the filter's terms on FIELD hold for string ID of R (ST_PFW_NONE:
 * the event has none)?  1, 0, or -1 when memory runs out. */
static int field_ok(struct st_trace_fcache *c, const st_trace_filter *f,
		    const st_pfw_reader *r, enum st_trace_field field,
		    uint32_t id)
{
	const char *s;
	size_t len;

	if (id == ST_PFW_NONE)
		return st_trace_filter_field(f, field, NULL, 0);
	if (id >= c->cap) {
		size_t cap = c->cap ? c->cap : 1024;

		while (cap <= id)
			cap *= 2;
		for (int k = 0; k < 4; k++) {
			int8_t *v = realloc(c->ok[k], cap);

			if (!v)
				return -1;
			memset(v + c->cap, 0, cap - c->cap);
			c->ok[k] = v;
		}
		c->cap = cap;
	}
	if (!c->ok[field][id]) {
		s = st_pfw_str(r, id, &len);
		c->ok[field][id] = st_trace_filter_field(f, field, s, len) ? 1
									  : -1;
	}
	return c->ok[field][id] > 0;
}

int st_trace_fcache_keep(struct st_trace_fcache *c, const st_trace_filter *f,
			 const st_pfw_reader *r, const st_pfw_event *ev)
{
	const uint32_t ids[4] = { ev->name, ev->cat, ev->host, ev->file };

	if (!f)
		return 1;
	if (!st_trace_filter_ids(f, ev->pid, ev->tid))
		return 0;
	for (int k = 0; k < 4; k++) {
		int ok = field_ok(c, f, r, (enum st_trace_field)k, ids[k]);

		if (ok <= 0)
			return ok;
	}
	return 1;
}
