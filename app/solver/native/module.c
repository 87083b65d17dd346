/* The Python bindings: the module app.solver._core (module.h; the Tables and Position
 * types are module_tables.c's and module_position.c's, search() module_search.c's),
 * and beam(), shorten(), exhaustive() and playout().
 *
 * app/solver/core.py is the Python side (it builds Tables from a Variant); every
 * function here only converts arguments and results, the rules live in state.c and
 * search.c. */
#include "module.h"

/* ------------------------------------------------------------------- module */

static PyObject *core_playout(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *start;
    unsigned long long seed;
    long steps;
    if (!PyArg_ParseTuple(args, "O!Kl", &PositionType, &start, &seed, &steps))
        return NULL;
    PositionObject *end = position_copy((PositionObject *)start);
    if (!end)
        return NULL;
    long positions;
    uint64_t keys;
    Py_BEGIN_ALLOW_THREADS
    positions = playout(&end->owner->tables, &end->pos, seed, steps, &keys);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(lKN)", positions, (unsigned long long)keys, (PyObject *)end);
}

static PyObject *core_beam(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *names[] = {"position", "width", "max_positions", "max_seconds", "closure",
                            "endgame", "weights", "best", "single", "relaxed", NULL};
    PyObject *start, *seconds, *weights;
    BeamLimits limits = {0};
    int best = 0, single = 0, relaxed = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!ilOiiO|$ppp", names, &PositionType,
                                     &start, &limits.width, &limits.max_positions, &seconds,
                                     &limits.closure, &limits.endgame, &weights, &best, &single,
                                     &relaxed))
        return NULL;
    limits.best = best != 0;
    limits.single = single != 0;
    limits.relaxed = relaxed != 0;
    if (!read_seconds(seconds, &limits.max_seconds))
        return NULL;
    if (limits.width < 1 || limits.max_positions < 1 || limits.closure < 1 || limits.endgame < 1)
        return PyErr_Format(PyExc_ValueError,
                            "width, max_positions, closure and endgame must be at least 1");
    PyObject *seq = PySequence_Fast(weights, "weights must be a sequence of integers");
    if (!seq)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != FEATURE_COUNT) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "weights must hold %d integers", FEATURE_COUNT);
    }
    for (int i = 0; i < FEATURE_COUNT; i++) {
        long weight = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (weight == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return NULL;
        }
        if (weight < -1000 || weight > 1000) {
            Py_DECREF(seq);
            return PyErr_Format(PyExc_ValueError, "a weight must lie in -1000..1000");
        }
        limits.weights[i] = (int)weight;
    }
    Py_DECREF(seq);
    PositionObject *from = (PositionObject *)start;
    Position pos = from->pos;  /* the beam reads its own copy, without the GIL */
    BeamOutcome out;
    Py_BEGIN_ALLOW_THREADS
    beam_run(&from->owner->tables, &pos, &limits, &out);
    Py_END_ALLOW_THREADS
    if (out.verdict == NO_MEMORY) {
        free(out.line);
        return PyErr_NoMemory();
    }
    PyObject *moves = Py_None;
    Py_INCREF(moves);
    if (out.verdict == SOLVED) {
        Py_DECREF(moves);
        moves = move_list(out.line, (int)out.line_len);
    }
    free(out.line);
    if (!moves)
        return NULL;
    return Py_BuildValue("(Nls)", moves, out.positions, STOPS[out.stop]);
}

static PyObject *core_shorten(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *start, *texts, *seconds;
    if (!PyArg_ParseTuple(args, "O!OO", &PositionType, &start, &texts, &seconds))
        return NULL;
    double max_seconds;
    if (!read_seconds(seconds, &max_seconds))
        return NULL;
    PyObject *seq = PySequence_Fast(texts, "the line must be a sequence of move texts");
    if (!seq)
        return NULL;
    Py_ssize_t count = PySequence_Fast_GET_SIZE(seq);
    if (count > INT_MAX / 2) {
        Py_DECREF(seq);
        return PyErr_Format(PyExc_ValueError, "the line is too long");
    }
    int len = (int)count;
    Move *line = PyMem_Malloc(sizeof(Move) * (size_t)(len ? len : 1));
    Move *out = PyMem_Malloc(sizeof(Move) * (size_t)(len ? len : 1));
    if (!line || !out) {
        Py_DECREF(seq);
        PyMem_Free(line);
        PyMem_Free(out);
        return PyErr_NoMemory();
    }
    for (int i = 0; i < len; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seq, i);
        Py_ssize_t size;
        const char *text = PyUnicode_Check(item) ? PyUnicode_AsUTF8AndSize(item, &size) : NULL;
        if (!text || (size_t)size != strlen(text) || !move_parse(text, &line[i])) {
            if (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_UnicodeError)) {
                PyErr_Clear();
                PyErr_Format(PyExc_ValueError, "%R is not a move", item);
            }
            Py_DECREF(seq);
            PyMem_Free(line);
            PyMem_Free(out);
            return NULL;
        }
    }
    PositionObject *from = (PositionObject *)start;
    Position *pos = PyMem_Malloc(sizeof *pos);  /* its own copy, read without the GIL */
    if (!pos) {
        Py_DECREF(seq);
        PyMem_Free(line);
        PyMem_Free(out);
        return PyErr_NoMemory();
    }
    *pos = from->pos;
    int written = 0;
    ShortenResult result;
    Py_BEGIN_ALLOW_THREADS
    result = shorten_line(&from->owner->tables, pos, line, len, max_seconds, out, &written);
    Py_END_ALLOW_THREADS
    PyObject *answer = NULL;
    if (result == SHORTEN_NO_MEMORY)
        PyErr_NoMemory();
    else if (result == SHORTEN_ILLEGAL)
        PyErr_Format(PyExc_ValueError, "move %d of the line, %R, is not a legal move there",
                     written, PySequence_Fast_GET_ITEM(seq, written));
    else
        answer = move_list(out, written);
    Py_DECREF(seq);
    PyMem_Free(pos);
    PyMem_Free(line);
    PyMem_Free(out);
    return answer;
}

static PyObject *core_exhaustive(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *start;
    long max_positions;
    if (!PyArg_ParseTuple(args, "O!l", &PositionType, &start, &max_positions))
        return NULL;
    if (max_positions < 1)
        return PyErr_Format(PyExc_ValueError, "max_positions must be at least 1");
    PositionObject *from = (PositionObject *)start;
    long positions;
    Verdict verdict;
    Py_BEGIN_ALLOW_THREADS
    verdict = exhaustive_run(&from->owner->tables, &from->pos, max_positions, &positions);
    Py_END_ALLOW_THREADS
    if (verdict == NO_MEMORY)
        return PyErr_NoMemory();
    return Py_BuildValue("(sl)", VERDICTS[verdict], positions);
}

static PyMethodDef core_methods[] = {
    {"search", core_search, METH_VARARGS,
     "search(position, limits) -> (result, move texts, positions, stop, (children, "
     "expansions, skipped)): one depth-first search within limits, a "
     "app.solver.core.SearchLimits read by field name; stop says why an unknown stopped "
     "('positions', 'deadline', 'table', 'depth'; '' otherwise); children: the children "
     "played and keyed, expansions: the obligated moves expanded, skipped: the children "
     "after a bare draw skipped without playing them (the work behind the positions, for "
     "the benchmarks)."},
    {"beam", (PyCFunction)(void (*)(void))core_beam, METH_VARARGS | METH_KEYWORDS,
     "beam(position, width, max_positions, max_seconds, closure, endgame, weights, *, "
     "best=False, single=False, relaxed=True) -> (move texts or None, positions, stop): "
     "the beam search "
     "(weights: beam.WEIGHTS; endgame: beam.ENDGAME); stop is 'positions', "
     "'deadline', or '' where the beam ran out or won."},
    {"shorten", core_shorten, METH_VARARGS,
     "shorten(position, move texts, max_seconds) -> move texts: the winning line "
     "shortened (past max_seconds, the rest of the line as it is)."},
    {"exhaustive", core_exhaustive, METH_VARARGS,
     "exhaustive(position, max_positions) -> (result, positions): exhaustive.exhaustive "
     "run natively (every legal move, each position keyed by itself)."},
    {"playout", core_playout, METH_VARARGS,
     "playout(position, seed, steps) -> (positions, keys xor, final position): a random "
     "playout, choosing by lcg_next (playout.h)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "The native search core (see docs/native-core.md).", -1,
    core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    keys_init();
    if (PyType_Ready(&TablesType) < 0 || PyType_Ready(&PositionType) < 0)
        return NULL;
    PyObject *module = PyModule_Create(&core_module), *reductions = NULL;
    if (!module)
        return NULL;
    if (PyModule_AddObjectRef(module, "Tables", (PyObject *)&TablesType) < 0
        || PyModule_AddObjectRef(module, "Position", (PyObject *)&PositionType) < 0
        || PyModule_AddIntConstant(module, "MAX_CARDS", MAX_CARDS) < 0
        || PyModule_AddIntConstant(module, "DEFAULT_MAX_DEPTH", DEFAULT_MAX_DEPTH) < 0
        || PyModule_AddIntConstant(module, "RELAXED_STATE_LIMIT", RELAXED_STATE_LIMIT) < 0
        || PyModule_AddIntConstant(module, "RELAXED_MOST_STATES", RELAXED_MOST_STATES) < 0
        || PyModule_AddIntConstant(module, "RELAXED_BEAM_STATE_LIMIT",
                                   RELAXED_BEAM_STATE_LIMIT) < 0
        || PyModule_AddIntConstant(module, "RELAXED_STOCK_LIMIT", RELAXED_STOCK_LIMIT) < 0
        || PyModule_AddIntConstant(module, "RELAXED_CLOCK_EVERY", RELAXED_CLOCK_EVERY) < 0
        || !(reductions = reduction_names())
        || PyModule_AddObjectRef(module, "FULL_REDUCTIONS", reductions) < 0) {
        Py_XDECREF(reductions);
        Py_DECREF(module);
        return NULL;
    }
    Py_DECREF(reductions);
    return module;
}
