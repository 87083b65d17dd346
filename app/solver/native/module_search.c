/* The Python bindings (module.h): search(position, limits), a SearchLimits
 * (app/solver/core.py) read by field name into Limits (search.h). */
#include "module.h"

const char *const VERDICTS[] = {"solved", "unsolvable", "unknown"};

/* max_seconds: None (-1: no deadline) or a number at least 0; false with the error set. */
bool read_seconds(PyObject *seconds, double *out)
{
    *out = -1.0;
    if (seconds == Py_None)
        return true;
    *out = PyFloat_AsDouble(seconds);
    if (*out == -1.0 && PyErr_Occurred())
        return false;
    if (!(*out >= 0)) {
        PyErr_Format(PyExc_ValueError, "max_seconds must be None or at least 0");
        return false;
    }
    return true;
}
const char *const STOPS[] = {"", "positions", "deadline", "table", "depth"};

/* `without`: None or an iterable of the full list's reduction names, as Limits.without's
 * bits; false with the error set (an unknown name is a ValueError). */
static bool read_without(PyObject *names, uint32_t *out)
{
    *out = 0;
    if (!names || names == Py_None)
        return true;
    PyObject *iterator = PyObject_GetIter(names), *name;
    if (!iterator)
        return false;
    while ((name = PyIter_Next(iterator))) {
        const char *text = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
        int index = 0;
        while (text && search_reduction(index) && strcmp(search_reduction(index), text) != 0)
            index++;
        if (text && search_reduction(index))
            *out |= 1u << index;
        else if (!PyErr_Occurred())
            PyErr_Format(PyExc_ValueError, "not a reduction of the full search: %R", name);
        Py_DECREF(name);
        if (PyErr_Occurred())
            break;
    }
    Py_DECREF(iterator);
    return !PyErr_Occurred();
}

/* FULL_REDUCTIONS: the full search's reductions by name, in list order. */
PyObject *reduction_names(void)
{
    PyObject *names = PyList_New(0);
    for (int i = 0; names && search_reduction(i); i++) {
        PyObject *name = PyUnicode_FromString(search_reduction(i));
        if (!name || PyList_Append(names, name) < 0)
            Py_CLEAR(names);
        Py_XDECREF(name);
    }
    if (!names)
        return NULL;
    PyObject *tuple = PyList_AsTuple(names);
    Py_DECREF(names);
    return tuple;
}

/* limits.<name>, an int, into `out`; false with the error set. */
static bool limit_int(PyObject *limits, const char *name, long long *out)
{
    PyObject *value = PyObject_GetAttrString(limits, name);
    if (!value)
        return false;
    *out = PyLong_AsLongLong(value);
    Py_DECREF(value);
    return !(*out == -1 && PyErr_Occurred());
}

/* limits.<name>, taken as true or false, into `out`; false with the error set. */
static bool limit_flag(PyObject *limits, const char *name, bool *out)
{
    PyObject *value = PyObject_GetAttrString(limits, name);
    int truth = value ? PyObject_IsTrue(value) : -1;
    Py_XDECREF(value);
    *out = truth == 1;
    return truth >= 0;
}

/* limits.<name>, None or any object, through `read`; false with the error set. */
static bool limit_object(PyObject *limits, const char *name, bool (*read)(PyObject *, void *),
                         void *out)
{
    PyObject *value = PyObject_GetAttrString(limits, name);
    bool ok = value && read(value, out);
    Py_XDECREF(value);
    return ok;
}

static bool read_seconds_into(PyObject *value, void *out) { return read_seconds(value, out); }

static bool read_without_into(PyObject *value, void *out) { return read_without(value, out); }

/* The integer limits as the SearchLimits holds them, before their ranges are checked. */
typedef struct {
    long long max_positions, table_size, draw_score, seed, max_depth, relaxed_stock,
        relaxed_states;
} RawLimits;

static bool read_raw(PyObject *from, RawLimits *raw)
{
    return limit_int(from, "max_positions", &raw->max_positions)
        && limit_int(from, "table_size", &raw->table_size)
        && limit_int(from, "draw_score", &raw->draw_score)
        && limit_int(from, "seed", &raw->seed) && limit_int(from, "max_depth", &raw->max_depth)
        && limit_int(from, "relaxed_stock", &raw->relaxed_stock)
        && limit_int(from, "relaxed_states", &raw->relaxed_states);
}

/* The integer limits in range; false with the error set. */
static bool check_raw(const RawLimits *raw)
{
    const char *wrong = NULL;
    if (raw->max_depth < 1)
        wrong = "max_depth must be at least 1";
    else if (raw->seed < 0 || raw->seed > UINT32_MAX)
        wrong = "seed must be 0 to 2**32 - 1";
    else if (raw->relaxed_stock < 0 || raw->relaxed_stock > INT_MAX)
        wrong = "relaxed_stock must be at least 0";
    else if (raw->relaxed_states < 1 || raw->relaxed_states > RELAXED_MOST_STATES) {
        PyErr_Format(PyExc_ValueError, "relaxed_states must be 1 to %d", RELAXED_MOST_STATES);
        return false;
    } else if (raw->max_positions < 1 || raw->max_positions > LONG_MAX || raw->table_size < 1
               || raw->draw_score < 0 || raw->draw_score > 127)
        wrong = "max_positions and table_size must be at least 1, draw_score 0-127";
    if (wrong)
        PyErr_SetString(PyExc_ValueError, wrong);
    return !wrong;
}

/* The choices that go together; false with the error set. */
static bool check_choices(const Limits *limits, const Tables *tables)
{
    const char *wrong = NULL;
    if (limits->arranged && !tables->arranged)
        wrong = "these tables do not support run arrangement";
    else if (limits->arranged && limits->narrow)
        wrong = "a narrow search is never arranged";
    /* The full search's exhaustion is a proof: its list holds only reductions sound for
     * proofs of loss, and the eager rule is not one. */
    else if (limits->eager && !limits->narrow)
        wrong = "eager goes with narrow: the full search plays only safe foundation moves "
                "at once";
    else if (limits->without && limits->narrow)
        wrong = "without names the full search's reductions";
    if (wrong)
        PyErr_SetString(PyExc_ValueError, wrong);
    return !wrong;
}

/* A SearchLimits (app/solver/core.py) into `out`, each field by its name; false with the
 * error set (a field out of range is a ValueError). */
static bool read_limits(PyObject *from, const Tables *tables, Limits *out)
{
    RawLimits raw;
    bool narrow, eager, arranged, defer_draws, relaxed;
    if (!read_raw(from, &raw) || !check_raw(&raw))
        return false;
    if (!limit_flag(from, "narrow", &narrow) || !limit_flag(from, "eager", &eager)
        || !limit_flag(from, "arranged", &arranged)
        || !limit_flag(from, "defer_draws", &defer_draws)
        || !limit_flag(from, "relaxed", &relaxed))
        return false;
    *out = (Limits){
        .max_positions = (long)raw.max_positions,
        .max_seconds = -1.0,
        .table_size = (size_t)raw.table_size,
        .draw_score = (int)raw.draw_score,
        .narrow = narrow,
        .eager = eager,
        .seed = (uint32_t)raw.seed,
        .max_depth = (size_t)raw.max_depth,
        .arranged = arranged,
        .defer_draws = defer_draws,
        .relaxed = relaxed,
        .relaxed_stock = (int)raw.relaxed_stock,
        .relaxed_states = (int)raw.relaxed_states,
        .without = 0,
    };
    return limit_object(from, "max_seconds", read_seconds_into, &out->max_seconds)
        && limit_object(from, "without", read_without_into, &out->without)
        && check_choices(out, tables);
}

PyObject *core_search(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *start, *from;
    if (!PyArg_ParseTuple(args, "O!O", &PositionType, &start, &from))
        return NULL;
    PositionObject *position = (PositionObject *)start;
    Limits limits;
    if (!read_limits(from, &position->owner->tables, &limits))
        return NULL;
    Position pos = position->pos;  /* the search reads its own copy, without the GIL */
    Outcome out;
    Py_BEGIN_ALLOW_THREADS
    search_run(&position->owner->tables, &pos, &limits, &out);
    Py_END_ALLOW_THREADS
    if (out.verdict == NO_MEMORY) {
        free(out.line);
        return PyErr_NoMemory();
    }
    PyObject *moves = move_list(out.line, (int)out.line_len);
    free(out.line);
    if (!moves)
        return NULL;
    return Py_BuildValue("(sNls(lll))", VERDICTS[out.verdict], moves, out.positions,
                         STOPS[out.stop], out.children, out.expansions, out.skipped);
}

