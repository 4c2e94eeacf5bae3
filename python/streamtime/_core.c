/* _core.c - the C part of the Python module streamtime (python/streamtime/
 * __init__.py): the trace commands' passes over libstreamtime, run with
 * the GIL released, their answers as Python objects.
 *
 *   events(paths, filters, keys, limit[, raw]) -> columns
 *       {name: list}, in `trace events`'s order (with RAW the numbers'
 *       columns as bytearrays of int64 values, bytes -1 for none);
 *   summary(paths, filters, group_by, per, granularity, io_cats,
 *           compute_cats, jobs) -> dict
 *       `trace summary --json`'s object, converted from jansson's;
 *   compare(metrics_text, metrics_path, cases, jobs) -> dict
 *       `trace compare --json`'s object; cases [(name, [path...])...].
 *
 * What the command would say as warnings (corrupt lines, inputs without
 * X events) are warnings of the class __init__.py registers (init); a
 * failure raises its Error(code, message), code the exit status the
 * command would give and message what it would say (its error lines,
 * joined by newlines).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "st_config.h"
#include "streamtime/compare_cases.h"
#include "streamtime/compare_out.h"
#include "streamtime/compare_render.h"
#include "streamtime/file.h"
#include "streamtime/systrace_render.h"
#include "streamtime/text.h"
#include "streamtime/time.h"
#include "streamtime/trace.h"
#include "streamtime/trace_compare.h"
#include "streamtime/trace_events.h"
#include "streamtime/trace_render.h"
#include "streamtime/trace_sets.h"

#define MAX_BAD 10

static PyObject *error_class;   /* streamtime.Error */
static PyObject *warn_class;    /* streamtime.TraceWarning */

/* ---- errors and notes ------------------------------------------------- */

/* TEXT as a str: bytes that are not UTF-8 (a path's) as surrogates, as
 * os.fsdecode gives them, never a UnicodeDecodeError. */
static PyObject *msg_py(const char *text)
{
	return PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text),
				    "surrogateescape");
}

/* Raise Error(CODE, TEXT).  NULL. */
static PyObject *raise(int code, const char *text)
{
	PyObject *t = msg_py(text), *v = t ? Py_BuildValue("(iN)", code, t)
					    : NULL;

	if (v) {
		PyErr_SetObject(error_class ? error_class : PyExc_RuntimeError,
				v);
		Py_DECREF(v);
	}
	return NULL;
}

/* warnings.warn(TEXT, TraceWarning, 2): the caller's caller's line, as
 * PyErr_WarnEx, with TEXT decoded as msg_py (PyErr_WarnEx would fail on
 * a path that is not UTF-8).  0, or -1 with a Python error set. */
static int warn_py(const char *text)
{
	PyObject *w = msg_py(text), *mod = NULL, *r = NULL;

	if (w && (mod = PyImport_ImportModule("warnings")))
		r = PyObject_CallMethod(mod, "warn", "OOi", w, warn_class ?
					warn_class : PyExc_UserWarning, 2);
	Py_XDECREF(w);
	Py_XDECREF(mod);
	Py_XDECREF(r);
	return r ? 0 : -1;
}

static PyObject *raise_err(const st_error *err)
{
	return raise(err->code ? err->code : ST_EXIT_IOERR, err->text);
}

/* What a pass found, kept while the GIL is released: the notes about
 * the inputs, or a failure. */
struct outcome {
	st_trace_notes nt;
	st_error err;
	int failed;          /* the call failed: ERR says how */
};

/* Say OC's warnings as WARN_CLASS warnings (the caller's caller's line),
 * then raise Error when it failed or its notes hold an error.  0, or -1
 * with a Python error set (also when a warning is made an error). */
static int outcome_py(struct outcome *oc)
{
	int status = st_trace_notes_status(&oc->nt);
	size_t len = 0;
	char *text;

	for (size_t i = 0; i < oc->nt.n; i++)
		if (oc->nt.v[i].level == ST_NOTE_WARN &&
		    warn_py(oc->nt.v[i].reason) < 0)
			return -1;
	if (oc->failed && !status) {
		raise_err(&oc->err);
		return -1;
	}
	if (!status)
		return 0;
	for (size_t i = 0; i < oc->nt.n; i++)
		if (oc->nt.v[i].level == ST_NOTE_ERROR)
			len += strlen(oc->nt.v[i].reason) + 1;
	if (!(text = calloc(1, len + 1))) {
		PyErr_NoMemory();
		return -1;
	}
	for (size_t i = 0; i < oc->nt.n; i++)
		if (oc->nt.v[i].level == ST_NOTE_ERROR) {
			if (*text)
				strcat(text, "\n");
			strcat(text, oc->nt.v[i].reason);
		}
	raise(status, text);
	free(text);
	return -1;
}

/* ---- arguments -------------------------------------------------------- */

/* A list of strings made from a Python sequence: paths (str, bytes or
 * os.PathLike, through the file system encoding) or texts (str). */
struct strv {
	char **v;
	size_t n;
};

static void strv_free(struct strv *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* SEQ (a sequence; a single str or path is one item) into S; PATHS: as
 * file names.  0, or -1 with a Python error set (WHAT names the
 * argument). */
static int strv_from(struct strv *s, PyObject *seq, bool paths,
		     const char *what)
{
	PyObject *fast, *one = NULL;
	Py_ssize_t n;

	memset(s, 0, sizeof(*s));
	if (seq == Py_None)
		return 0;
	if (PyUnicode_Check(seq) || PyBytes_Check(seq) ||
	    (paths && PyObject_HasAttrString(seq, "__fspath__")))
		seq = one = PyTuple_Pack(1, seq);
	if (!seq || !(fast = PySequence_Fast(seq, what))) {
		Py_XDECREF(one);
		return -1;
	}
	n = PySequence_Fast_GET_SIZE(fast);
	if (!(s->v = calloc((size_t)n + 1, sizeof(*s->v)))) {
		PyErr_NoMemory();
		goto fail;
	}
	for (Py_ssize_t i = 0; i < n; i++) {
		PyObject *it = PySequence_Fast_GET_ITEM(fast, i), *b = NULL;
		const char *t;

		if (paths) {
			if (!PyUnicode_FSConverter(it, &b))
				goto fail;
			t = PyBytes_AS_STRING(b);
		} else if (!(t = PyUnicode_Check(it) ? PyUnicode_AsUTF8(it)
						      : NULL)) {
			if (!PyErr_Occurred())
				PyErr_Format(PyExc_TypeError, "%s: a str or a "
					     "list of str", what);
			goto fail;
		}
		s->v[i] = strdup(t);
		Py_XDECREF(b);
		if (!s->v[i]) {
			PyErr_NoMemory();
			goto fail;
		}
		s->n = (size_t)i + 1;
	}
	Py_DECREF(fast);
	Py_XDECREF(one);
	return 0;
fail:
	Py_DECREF(fast);
	Py_XDECREF(one);
	strv_free(s);
	return -1;
}

/* The filters FS (each a --filter: its terms ANDed, and all of them
 * ANDed) into F.  0, or -1 with Error(64) raised. */
static int filters_parse(st_trace_filter *f, const struct strv *fs)
{
	st_error err;

	for (size_t i = 0; i < fs->n; i++)
		if (st_trace_filter_parse(f, fs->v[i], &err) < 0) {
			raise(ST_EXIT_USAGE, err.text);
			return -1;
		}
	return 0;
}

/* ---- jansson to Python ------------------------------------------------ */

static PyObject *json_py(const json_t *j)
{
	PyObject *o, *v;
	const char *key;
	json_t *val;
	size_t i;

	switch (json_typeof(j)) {
	case JSON_OBJECT:
		if (!(o = PyDict_New()))
			return NULL;
		json_object_foreach((json_t *)j, key, val) {
			if (!(v = json_py(val)) ||
			    PyDict_SetItemString(o, key, v) < 0) {
				Py_XDECREF(v);
				Py_DECREF(o);
				return NULL;
			}
			Py_DECREF(v);
		}
		return o;
	case JSON_ARRAY:
		if (!(o = PyList_New((Py_ssize_t)json_array_size(j))))
			return NULL;
		json_array_foreach(j, i, val) {
			if (!(v = json_py(val))) {
				Py_DECREF(o);
				return NULL;
			}
			PyList_SET_ITEM(o, (Py_ssize_t)i, v);
		}
		return o;
	case JSON_STRING:
		return PyUnicode_DecodeUTF8(json_string_value(j),
					    (Py_ssize_t)json_string_length(j),
					    "surrogatepass");
	case JSON_INTEGER:
		return PyLong_FromLongLong(json_integer_value(j));
	case JSON_REAL:
		return PyFloat_FromDouble(json_real_value(j));
	case JSON_TRUE:
		Py_RETURN_TRUE;
	case JSON_FALSE:
		Py_RETURN_FALSE;
	default:
		Py_RETURN_NONE;
	}
}

/* J (stolen) as Python when OK (outcome_py's 0); NULL: memory ran out,
 * or not OK. */
static PyObject *answer(json_t *j, int ok)
{
	PyObject *o;

	if (ok < 0) {
		json_decref(j);
		return NULL;
	}
	if (!j)
		return PyErr_NoMemory();
	o = json_py(j);
	json_decref(j);
	return o;
}

/* ---- inputs ----------------------------------------------------------- */

/* PATHS into IN (a case's inputs, compare_cases.h, without a name;
 * no GIL needed): the paths expanded (directories, system-trace sets)
 * as `trace summary FILE...` takes them.  0 when they are all there,
 * else -1 with OC saying why. */
static int inputs_open(st_compare_input *in, const struct strv *paths,
		       struct outcome *oc)
{
	struct st_trace_sys_opts so = { 0 };

	if (!paths->n) {
		oc->failed = 1;
		return st_error_set(&oc->err, ST_EXIT_USAGE, "no trace file "
				    "given");
	}
	if (st_trace_sets_collect(&in->in, &in->ts, paths->v, paths->n, &so,
				  MAX_BAD, &oc->nt, &oc->err) < 0) {
		oc->failed = 1;
		return -1;
	}
	return st_trace_notes_status(&oc->nt) ? -1 : 0;
}

/* ---- trace summary ---------------------------------------------------- */

struct summary_args {
	struct strv paths, filters;
	const char *group, *per;   /* NULL: not given */
	long long granularity;
	char *io, *comp;           /* NULL: the default */
	int jobs;
};

/* The summary of A's inputs as `trace summary --json` gives it into *J
 * (NULL: memory ran out), what became of them in OC (no GIL). */
static void summary_pass(const struct summary_args *a, st_trace_opts *o,
			 json_t **j, struct outcome *oc)
{
	st_compare_input in = { 0 };
	st_trace_summary s = { 0 };

	*j = NULL;
	if (inputs_open(&in, &a->paths, oc) < 0)
		goto out;
	if (st_trace_sets_summary_opts(&in.ts, o, &oc->err) < 0 ||
	    st_trace_summarize((const char *const *)in.in.v, in.in.n, o, &s,
			       &oc->err) < 0 ||
	    st_trace_sets_summary_notes(&s, &in.ts.sets, &oc->nt,
					&oc->err) < 0) {
		oc->failed = 1;
		goto out;
	}
	if (st_trace_notes_status(&oc->nt))
		goto out;
	if (s.saturated)
		st_trace_notes_add(&oc->nt, ST_NOTE_WARN, 0, NULL, &oc->err,
				   "trace summary: a total of bytes or time "
				   "passed %" PRId64 " and is shown as that "
				   "(capped, not wrapped)", INT64_MAX);
	*j = st_trace_summary_json(&s, &(st_trace_render){ o, a->group,
							    a->per });
	if (*j && in.ts.sets.n)
		json_object_set_new(*j, "system", st_systrace_json(&in.ts.sets,
				    &s, o->seg_us, o->nseg));
out:
	st_trace_summary_release(&s);
	st_compare_input_release(&in);
}

/* A's options into O (FILTER its filter).  0, or -1 with Error(64). */
static int summary_opts(struct summary_args *a, st_trace_opts *o,
			st_trace_filter *filter)
{
	st_error err;

	o->max_bad = MAX_BAD;
	o->jobs = a->jobs > 0 ? a->jobs : st_trace_jobs_default(256);
	o->granularity_us = a->granularity;
	if (filters_parse(filter, &a->filters) < 0)
		return -1;
	o->filter = filter->n ? filter : NULL;
	if ((a->io && st_trace_cats_parse("io_cats", a->io,
					  (const char ***)&o->io_cats, &o->n_io,
					  &err) < 0) ||
	    (a->comp && st_trace_cats_parse("compute_cats", a->comp,
					    (const char ***)&o->compute_cats,
					    &o->n_compute, &err) < 0) ||
	    (a->group && st_trace_keys_parse(&o->group, a->group, &err) < 0) ||
	    (a->per && st_trace_keys_parse(&o->per, a->per, &err) < 0)) {
		raise(ST_EXIT_USAGE, err.text);
		return -1;
	}
	if ((a->group && !o->group.n) || (a->per && !o->per.n)) {
		raise(ST_EXIT_USAGE, "no key given (KEY[,KEY...])");
		return -1;
	}
	if (a->per && !a->group) {
		raise(ST_EXIT_USAGE, "per needs group_by");
		return -1;
	}
	if (a->granularity < 0) {
		raise(ST_EXIT_USAGE, "time_granularity: a positive number of "
		      "microseconds");
		return -1;
	}
	return 0;
}

static PyObject *core_summary(PyObject *self, PyObject *args)
{
	struct summary_args a = { 0 };
	PyObject *paths, *filters, *res = NULL;
	st_trace_filter filter = { 0 };
	st_trace_opts o = { 0 };
	struct outcome oc = { 0 };
	const char *io = NULL, *comp = NULL;
	json_t *j = NULL;

	if (!PyArg_ParseTuple(args, "OOzzLzzi", &paths, &filters, &a.group,
			      &a.per, &a.granularity, &io, &comp, &a.jobs) ||
	    strv_from(&a.paths, paths, true, "paths") < 0 ||
	    strv_from(&a.filters, filters, false, "filter") < 0)
		goto out;
	if ((io && !(a.io = strdup(io))) || (comp && !(a.comp = strdup(comp)))) {
		PyErr_NoMemory();
		goto out;
	}
	if (summary_opts(&a, &o, &filter) < 0)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	summary_pass(&a, &o, &j, &oc);
	Py_END_ALLOW_THREADS
	res = answer(j, outcome_py(&oc));
out:
	st_trace_notes_release(&oc.nt);
	st_trace_filter_release(&filter);
	free((void *)o.io_cats);
	free((void *)o.compute_cats);
	free(a.io);
	free(a.comp);
	strv_free(&a.paths);
	strv_free(&a.filters);
	return res;
}

/* ---- trace compare ---------------------------------------------------- */

struct compare_args {
	const char *text, *path;     /* the metrics: their JSON text (named
				      * "metrics"), or their file */
	Py_ssize_t text_len;
	size_t n;                    /* cases */
	char **names;                /* owned */
	struct strv *paths;          /* per case */
	int jobs;
};

static void compare_args_free(struct compare_args *a)
{
	for (size_t c = 0; c < a->n; c++) {
		free(a->names[c]);
		strv_free(&a->paths[c]);
	}
	free(a->names);
	free(a->paths);
}

/* CASES, a sequence of (name, paths), into A.  0, or -1 with a Python
 * error set. */
static int cases_from(struct compare_args *a, PyObject *cases)
{
	PyObject *fast = PySequence_Fast(cases, "cases");
	Py_ssize_t n;

	if (!fast)
		return -1;
	n = PySequence_Fast_GET_SIZE(fast);
	a->names = calloc((size_t)n + 1, sizeof(*a->names));
	a->paths = calloc((size_t)n + 1, sizeof(*a->paths));
	if (!a->names || !a->paths) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return -1;
	}
	for (Py_ssize_t c = 0; c < n; c++) {
		PyObject *name, *paths;
		const char *t;

		if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(fast, c),
				      "UO;a case is (name, paths)", &name,
				      &paths) ||
		    !(t = PyUnicode_AsUTF8(name))) {
			Py_DECREF(fast);
			return -1;
		}
		a->n = (size_t)c + 1;
		if (!(a->names[c] = strdup(t))) {
			Py_DECREF(fast);
			PyErr_NoMemory();
			return -1;
		}
		if (strv_from(&a->paths[c], paths, true, "a case's paths") < 0) {
			Py_DECREF(fast);
			return -1;
		}
	}
	Py_DECREF(fast);
	return 0;
}

/* A's metrics into M.  0, or -1 with OC saying why. */
static int metrics_read(const struct compare_args *a, st_metrics *m,
			struct outcome *oc)
{
	char *text = NULL;
	size_t len = 0;
	int r;

	if (a->path && !(text = st_file_read(a->path, &len, &oc->err))) {
		oc->failed = 1;
		return -1;
	}
	r = st_metrics_parse(m, a->path ? text : a->text,
			     a->path ? len : (size_t)a->text_len,
			     a->path ? a->path : "metrics", &oc->err);
	free(text);
	for (size_t i = 0; r == 0 && i < m->n; i++)
		if (m->v[i].events)
			r = st_error_set(&oc->err, ST_EXIT_CONFIG, "metric %zu "
					 "(%s): 'events': not in Python "
					 "(streamtime.trace_events gives the "
					 "events)", i + 1, m->v[i].name);
	oc->failed = r < 0;
	return r;
}

/* The cases of A opened into CI, CS: their notes into OC; a case that
 * is not one fails OC.  0, or -1. */
static int cases_open(const struct compare_args *a, st_compare_input *ci,
		      st_compare_case *cs, struct outcome *oc)
{
	struct st_trace_sys_opts so = { 0 };

	for (size_t c = 0; c < a->n; c++) {
		int r = st_compare_case_paths(ci, cs, c, a->names[c],
					      a->paths[c].v, a->paths[c].n,
					      &so, MAX_BAD, &oc->nt, &oc->err);

		if (r) {
			oc->failed = 1;
			return -1;
		}
	}
	return st_trace_notes_status(&oc->nt) ? -1 : 0;
}

/* The table of A as `trace compare --json` gives it into *J, what became
 * of the inputs in OC (no GIL). */
static void compare_pass(const struct compare_args *a, json_t **j,
			 struct outcome *oc)
{
	st_metrics m = { 0 };
	st_compare_input *ci = calloc(a->n + 1, sizeof(*ci));
	st_compare_case *cs = calloc(a->n + 1, sizeof(*cs));
	const st_systrace_list **sets = calloc(a->n + 1, sizeof(*sets));
	st_compare_opts o = { .metrics = &m, .max_bad = MAX_BAD,
			      .jobs = a->jobs > 0 ? a->jobs
						  : st_trace_jobs_default(0) };

	*j = NULL;
	if (!ci || !cs || !sets) {
		oc->failed = st_error_set(&oc->err, ST_EXIT_IOERR, "out of "
					  "memory");
		goto out;
	}
	if (!a->n) {
		oc->failed = st_error_set(&oc->err, ST_EXIT_USAGE, "no case "
					  "given");
		goto out;
	}
	if (metrics_read(a, &m, oc) < 0 || cases_open(a, ci, cs, oc) < 0)
		goto out;
	for (size_t c = 0; c < a->n; c++)
		sets[c] = &ci[c].ts.sets;
	if (st_trace_compare(cs, a->n, &o, &oc->err) < 0 ||
	    st_compare_out_notes(cs, a->n, sets, "trace compare", &oc->nt,
				 &oc->err) < 0) {
		oc->failed = 1;
		goto out;
	}
	if (!st_trace_notes_status(&oc->nt))
		*j = st_compare_json(&m, cs, a->n);
out:
	for (size_t c = 0; cs && c < a->n; c++)
		st_compare_case_release(&cs[c]);
	for (size_t c = 0; ci && c < a->n; c++)
		st_compare_input_release(&ci[c]);
	free(sets);
	free(cs);
	free(ci);
	st_metrics_release(&m);
}

static PyObject *core_compare(PyObject *self, PyObject *args)
{
	struct compare_args a = { 0 };
	PyObject *cases, *path_obj, *path_b = NULL, *res = NULL;
	struct outcome oc = { 0 };
	json_t *j = NULL;

	if (!PyArg_ParseTuple(args, "z#OOi", &a.text, &a.text_len, &path_obj,
			      &cases, &a.jobs))
		return NULL;
	if (path_obj != Py_None) {
		if (!PyUnicode_FSConverter(path_obj, &path_b))
			return NULL;
		a.path = PyBytes_AS_STRING(path_b);
	}
	if (cases_from(&a, cases) < 0)
		goto out;
	Py_BEGIN_ALLOW_THREADS
	compare_pass(&a, &j, &oc);
	Py_END_ALLOW_THREADS
	res = answer(j, outcome_py(&oc));
out:
	st_trace_notes_release(&oc.nt);
	compare_args_free(&a);
	Py_XDECREF(path_b);
	return res;
}

/* ---- trace events ----------------------------------------------------- */

struct events_args {
	struct strv paths, filters;
	const char *keys;          /* NULL: basename,pattern */
	long long limit;           /* 0: none */
};

/* The events of A into C, what became of the inputs into OC (no GIL). */
static void events_pass(const struct events_args *a, st_trace_events_opts *o,
			st_trace_event_cols *c, struct outcome *oc)
{
	st_compare_input in = { 0 };
	st_trace_events_result res = { 0 };

	if (inputs_open(&in, &a->paths, oc) < 0)
		goto out;
	if (in.ts.sets.n && st_trace_sets_phases(&in.ts, &oc->err) < 0) {
		oc->failed = 1;
		goto out;
	}
	o->src = in.ts.sets.n ? &in.ts.src : NULL;
	o->seg_us = in.ts.seg;
	o->nseg = in.ts.nseg;
	o->seg_phase = (const char *const *)in.ts.phase;
	if (st_trace_events_cols((const char *const *)in.in.v, in.in.n, o, c,
				 &res, &oc->err) < 0 ||
	    st_trace_sets_notes(&in.ts.sets, &oc->nt, &oc->err) < 0 ||
	    st_trace_inputs_report(res.files_in, res.n_files, res.bad,
				   res.n_bad, res.bad_lines, &in.ts.sets,
				   &oc->nt, &oc->err) < 0)
		oc->failed = 1;
out:
	st_trace_events_result_release(&res);
	st_compare_input_release(&in);
}

/* A text cell: TEXT[0..LEN) as a str (its escaped text, text.h, when it
 * is not UTF-8), cached per id in STRS (borrowed from there). */
static PyObject *text_py(PyObject **strs, const st_strtab *t, uint32_t id)
{
	const char *s;
	size_t len;
	char *esc;

	if (id == ST_TRACE_COL_NONE)
		return Py_None;
	if (strs[id])
		return strs[id];
	s = st_strtab_str(t, id, &len);
	if (st_utf8_valid(s, len))
		return strs[id] = PyUnicode_DecodeUTF8(s, (Py_ssize_t)len,
						       "strict");
	if (!(esc = st_text_escape_dup(s, len, 0)))
		return PyErr_NoMemory();
	strs[id] = PyUnicode_DecodeUTF8(esc, (Py_ssize_t)strlen(esc),
					"backslashreplace");
	free(esc);
	return strs[id];
}

/* An instant US microseconds after the epoch as `trace events` writes
 * start and end (st_time_format_utc, the fraction in microseconds when
 * there is one); None beyond st_instant. */
static PyObject *instant_py(int64_t us)
{
	char buf[64];
	int64_t sec, frac;
	size_t n;

	if (us > INT64_MAX / 1000 || us < INT64_MIN / 1000 + 1000000)
		Py_RETURN_NONE;
	sec = us / 1000000;
	frac = us % 1000000;
	if (frac < 0) {
		sec--;
		frac += 1000000;
	}
	n = st_time_format_utc(sec * 1000000000, buf, sizeof(buf)) - 6;
	if (frac)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, ".%06" PRId64,
				      frac);
	memcpy(buf + n, "+00:00", 7);
	return PyUnicode_FromString(buf);
}

/* The cell of column COL (0 ts ... 10 bytes, 11 + k key k) of row I. */
static PyObject *cell_py(const st_trace_event_cols *c, PyObject **strs,
			 int col, size_t i)
{
	PyObject *t;

	switch (col) {
	case 0: return PyLong_FromLongLong(c->ts[i]);
	case 1: return PyLong_FromLongLong(c->dur[i]);
	case 2: return instant_py(c->ts[i]);
	case 3: return instant_py(c->ts[i] + c->dur[i]);
	case 5: return PyLong_FromLongLong(c->pid[i]);
	case 6: return PyLong_FromLongLong(c->tid[i]);
	case 10:
		if (c->bytes[i] < 0)
			Py_RETURN_NONE;
		return PyLong_FromLongLong(c->bytes[i]);
	default:
		break;
	}
	t = text_py(strs, &c->strs, col == 4 ? c->host[i] : col == 7 ?
		    c->name[i] : col == 8 ? c->cat[i] : col == 9 ?
		    c->file[i] : c->key[col - 11][i]);
	Py_XINCREF(t);
	return t;
}

/* The numbers of column COL of C as a bytearray of its int64 values
 * (writable under numpy.frombuffer; bytes: -1 for none), or NULL when
 * COL is not a column of numbers. */
static PyObject *raw_py(const st_trace_event_cols *c, int col)
{
	const int64_t *v = col == 0 ? c->ts : col == 1 ? c->dur : col == 5 ?
			   c->pid : col == 6 ? c->tid : col == 10 ? c->bytes
			   : NULL;

	if (!v)
		return NULL;
	return PyByteArray_FromStringAndSize(c->n ? (const char *)v : "",
					     (Py_ssize_t)(c->n * sizeof(*v)));
}

/* C as {column: list}, in the order of `trace events`; with RAW the
 * columns of numbers as raw_py's bytearrays (for numpy.frombuffer). */
static PyObject *cols_py(const st_trace_event_cols *c, int raw)
{
	static const char *const names[] = {
		"ts", "dur", "start", "end", "host", "pid", "tid", "name",
		"cat", "file", "bytes",
	};
	PyObject **strs = calloc(c->strs.n + 1, sizeof(*strs));
	PyObject *d = strs ? PyDict_New() : PyErr_NoMemory();

	for (int col = 0; d && col < 11 + (int)c->nkeys; col++) {
		PyObject *l = raw ? raw_py(c, col) : NULL, *v;

		if (!l && PyErr_Occurred()) {
			Py_CLEAR(d);
			break;
		}
		if (!l && (l = PyList_New((Py_ssize_t)c->n)))
			for (size_t i = 0; i < c->n; i++) {
				if (!(v = cell_py(c, strs, col, i))) {
					Py_CLEAR(l);
					break;
				}
				PyList_SET_ITEM(l, (Py_ssize_t)i, v);
			}
		if (!l || PyDict_SetItemString(d, col < 11 ? names[col] :
					       c->knames[col - 11], l) < 0)
			Py_CLEAR(d);
		Py_XDECREF(l);
	}
	for (size_t i = 0; strs && i < c->strs.n; i++)
		Py_XDECREF(strs[i]);
	free(strs);
	return d;
}

static PyObject *core_events(PyObject *self, PyObject *args)
{
	struct events_args a = { 0 };
	PyObject *paths, *filters, *res = NULL;
	int raw = 0;
	st_trace_filter filter = { 0 };
	st_trace_keys keys = { 0 };
	st_trace_events_opts o = { .max_bad = MAX_BAD };
	st_trace_event_cols c = { 0 };
	struct outcome oc = { 0 };
	st_error err;

	if (!PyArg_ParseTuple(args, "OOzL|p", &paths, &filters, &a.keys,
			      &a.limit, &raw) ||
	    strv_from(&a.paths, paths, true, "paths") < 0 ||
	    strv_from(&a.filters, filters, false, "filter") < 0 ||
	    filters_parse(&filter, &a.filters) < 0)
		goto out;
	if (st_trace_events_keys_parse(&keys, a.keys ? a.keys
						     : "basename,pattern",
				       &err) < 0) {
		raise_err(&err);
		goto out;
	}
	if (a.limit < 0) {
		raise(ST_EXIT_USAGE, "limit: a positive number of rows");
		goto out;
	}
	o.filter = filter.n ? &filter : NULL;
	o.keys = &keys;
	o.limit = (uint64_t)a.limit;
	Py_BEGIN_ALLOW_THREADS
	events_pass(&a, &o, &c, &oc);
	Py_END_ALLOW_THREADS
	if (outcome_py(&oc) == 0)
		res = cols_py(&c, raw);
out:
	st_trace_event_cols_release(&c);
	st_trace_notes_release(&oc.nt);
	st_trace_filter_release(&filter);
	strv_free(&a.paths);
	strv_free(&a.filters);
	return res;
}

/* ---- the module ------------------------------------------------------- */

/* init(error, warning): the classes of failures (streamtime.Error) and
 * warnings (streamtime.TraceWarning). */
static PyObject *core_init(PyObject *self, PyObject *args)
{
	PyObject *e, *w;

	if (!PyArg_ParseTuple(args, "OO", &e, &w))
		return NULL;
	Py_XDECREF(error_class);
	Py_XDECREF(warn_class);
	Py_INCREF(e);
	Py_INCREF(w);
	error_class = e;
	warn_class = w;
	Py_RETURN_NONE;
}

static PyMethodDef core_methods[] = {
	{ "events", core_events, METH_VARARGS,
	  "events(paths, filters, keys, limit[, raw]) -> columns" },
	{ "summary", core_summary, METH_VARARGS,
	  "summary(paths, filters, group_by, per, time_granularity, io_cats, "
	  "compute_cats, jobs) -> dict" },
	{ "compare", core_compare, METH_VARARGS,
	  "compare(metrics_text, metrics_path, cases, jobs) -> dict" },
	{ "init", core_init, METH_VARARGS,
	  "init(error, warning): the classes of failures and warnings" },
	{ NULL, NULL, 0, NULL },
};

static struct PyModuleDef core_module = {
	PyModuleDef_HEAD_INIT, "streamtime._core",
	"libstreamtime's trace passes (see the package streamtime)", -1,
	core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void);

PyMODINIT_FUNC PyInit__core(void)
{
	PyObject *m = PyModule_Create(&core_module);

	if (m && PyModule_AddStringConstant(m, "version", ST_VERSION) < 0)
		Py_CLEAR(m);
	return m;
}
