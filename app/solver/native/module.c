/* The Python bindings: app.solver._core.Tables, .Position, playout() and search().
 *
 * app/solver/core.py is the Python side (it builds Tables from a Variant); every
 * function here only converts arguments and results, the rules live in state.c and
 * search.c. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "arrangements.h"
#include "beam.h"
#include "exhaustive.h"
#include "lines.h"
#include "relaxation.h"
#include "keys.h"
#include "playout.h"
#include "search.h"
#include "settle.h"
#include "state.h"
#include "variants.h"

enum { NAME_CAP = 255 };  /* State.to_bytes stores the name's length in one byte */

typedef struct {
    PyObject_HEAD
    Tables tables;
    char name[NAME_CAP + 1];
    Py_ssize_t name_len;
} TablesObject;

typedef struct {
    PyObject_HEAD
    TablesObject *owner;  /* the tables this position is read with (a reference) */
    Position pos;
} PositionObject;

static PyTypeObject TablesType;
static PyTypeObject PositionType;

/* --------------------------------------------------------------------- Tables */

/* A bytes argument of exactly `size` bytes, each 0 or 1, into `out`. */
static int read_flags(const char *what, const char *data, Py_ssize_t len, bool *out,
                      Py_ssize_t size)
{
    if (len != size) {
        PyErr_Format(PyExc_ValueError, "%s must hold %zd bytes, not %zd", what, size, len);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        if ((uint8_t)data[i] > 1) {
            PyErr_Format(PyExc_ValueError, "%s holds a byte other than 0 or 1", what);
            return -1;
        }
        out[i] = data[i] != 0;
    }
    return 0;
}

/* The run-arrangement classes (arrangements._classes): `klass` and `parent`, 52 bytes
 * each, into t->klass and t->parent_class; a parent class of -1 (none) comes as 255.
 * -1 with an exception set where either is missing or not a class. */
static int read_classes(Tables *t, const char *klass, Py_ssize_t klass_len, const char *parent,
                        Py_ssize_t parent_len)
{
    if (!klass || !parent || klass_len != DECK || parent_len != DECK) {
        PyErr_SetString(PyExc_ValueError,
                        "arranged or relaxed tables need klass and parent_class, 52 bytes each");
        return -1;
    }
    for (int card = 0; card < DECK; card++) {
        uint8_t own = (uint8_t)klass[card], up = (uint8_t)parent[card];
        if (own >= DECK || (up >= DECK && up != 255)) {
            PyErr_SetString(PyExc_ValueError, "a card class is not a class");
            return -1;
        }
        t->klass[card] = own;
        t->parent_class[card] = up == 255 ? -1 : (int8_t)up;
    }
    return 0;
}

static PyObject *tables_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"name", "decks", "tableau_piles", "foundation_count", "draw",
                            "runs_any", "reserve_fills_empty", "foundation_return",
                            "single_pass", "stack_ok", "found_next", "children", "arranged",
                            "klass", "parent_class", "narrow_children", "relaxed", NULL};
    const char *name, *stack, *next, *children, *klass = NULL, *parent = NULL, *narrow = NULL;
    Py_ssize_t name_len, stack_len, next_len, children_len, klass_len = 0, parent_len = 0,
               narrow_len = 0;
    unsigned char decks, piles, foundations, draw;
    int runs_any, fills, returns, single_pass, arranged = 0, relaxed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "s#bbbbppppy#y#y#|$py#y#y#p", names, &name,
                                     &name_len, &decks, &piles, &foundations, &draw, &runs_any,
                                     &fills, &returns, &single_pass, &stack, &stack_len, &next,
                                     &next_len, &children, &children_len, &arranged, &klass,
                                     &klass_len, &parent, &parent_len, &narrow, &narrow_len,
                                     &relaxed))
        return NULL;
    if (name_len > NAME_CAP)
        return PyErr_Format(PyExc_ValueError, "a variant name is at most %d bytes", NAME_CAP);
    TablesObject *self = (TablesObject *)type->tp_alloc(type, 0);
    if (!self)
        return NULL;
    Tables *t = &self->tables;
    memcpy(self->name, name, (size_t)name_len);
    self->name_len = name_len;
    t->decks = decks;
    t->tableau_piles = piles;
    t->foundation_count = foundations;
    t->draw = draw;
    t->runs_any = runs_any;
    t->reserve_fills_empty = fills;
    t->foundation_return = returns;
    t->single_pass = single_pass;
    const char *bad = 0;
    if (read_flags("stack_ok", stack, stack_len, t->stack_ok, DECK * DECK) < 0
        || read_flags("children", children, children_len, t->child, DECK * DECK) < 0)
        goto fail;
    /* narrow_children: SearchTables.narrow_children, by default the same as children. */
    if (narrow ? read_flags("narrow_children", narrow, narrow_len, t->narrow_child, DECK * DECK) < 0
               : read_flags("children", children, children_len, t->narrow_child, DECK * DECK) < 0)
        goto fail;
    if (next_len != DECK) {
        PyErr_SetString(PyExc_ValueError, "found_next must hold 52 bytes");
        goto fail;
    }
    memcpy(t->found_next, next, DECK);
    /* The run-arrangement classes, read only where arranged or relaxed (the relaxed
     * tableau counts by class too). */
    t->arranged = arranged;
    t->relaxed = relaxed;
    if ((arranged || relaxed) && read_classes(t, klass, klass_len, parent, parent_len) < 0)
        goto fail;
    bad = tables_prepare(t);
    if (bad) {
        PyErr_SetString(PyExc_ValueError, bad);
        goto fail;
    }
    return (PyObject *)self;
fail:
    Py_DECREF(self);
    return NULL;
}

static PyObject *tables_name(TablesObject *self, void *closure)
{
    (void)closure;
    return PyUnicode_FromStringAndSize(self->name, self->name_len);
}

static PyGetSetDef tables_getset[] = {
    {"name", (getter)tables_name, NULL, "the variant's name", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.solver._core.Tables",
    .tp_doc = "One variant's tables, as app.solver.core.tables() hands them over.",
    .tp_basicsize = sizeof(TablesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = tables_new,
    .tp_getset = tables_getset,
};

/* ------------------------------------------------------------------ Position */

static PositionObject *position_alloc(TablesObject *owner)
{
    PositionObject *self = PyObject_New(PositionObject, &PositionType);
    if (!self)
        return NULL;
    Py_INCREF(owner);
    self->owner = owner;
    return self;
}

static PyObject *position_new(PyTypeObject *type, PyObject *args, PyObject *kwargs)
{
    (void)type;
    static char *names[] = {"tables", "data", NULL};
    PyObject *owner;
    Py_buffer data;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "O!y*", names, &TablesType, &owner, &data))
        return NULL;
    PositionObject *self = position_alloc((TablesObject *)owner);
    if (!self) {
        PyBuffer_Release(&data);
        return NULL;
    }
    const char *bad = position_read(&self->owner->tables, data.buf, (size_t)data.len, &self->pos);
    PyBuffer_Release(&data);
    if (bad) {
        Py_DECREF(self);
        return PyErr_Format(PyExc_ValueError, "bytes do not decode to a position: %s", bad);
    }
    return (PyObject *)self;
}

static void position_dealloc(PositionObject *self)
{
    Py_XDECREF(self->owner);
    PyObject_Free(self);
}

static PositionObject *position_copy(PositionObject *self)
{
    PositionObject *copy = position_alloc(self->owner);
    if (copy)
        copy->pos = self->pos;
    return copy;
}

static PyObject *move_str(const Move *move)
{
    char text[MOVE_TEXT_SIZE];
    move_text(move, text);
    return PyUnicode_FromString(text);
}

static PyObject *move_list(const Move *moves, int n)
{
    PyObject *list = PyList_New(n);
    if (!list)
        return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *text = move_str(&moves[i]);
        if (!text) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, text);
    }
    return list;
}

static PyObject *position_to_bytes(PositionObject *self, PyObject *unused)
{
    (void)unused;
    const TablesObject *o = self->owner;
    size_t size = position_write(&o->tables, o->name, (size_t)o->name_len, &self->pos, NULL, 0);
    PyObject *out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)size);
    if (out)
        position_write(&o->tables, o->name, (size_t)o->name_len, &self->pos,
                       (uint8_t *)PyBytes_AS_STRING(out), size);
    return out;
}

static PyObject *position_legal_moves(PositionObject *self, PyObject *unused)
{
    (void)unused;
    Move *moves = PyMem_Malloc(sizeof(Move) * MAX_MOVES);
    if (!moves)
        return PyErr_NoMemory();
    int n = legal_moves(&self->owner->tables, &self->pos, moves);
    PyObject *out = move_list(moves, n);
    PyMem_Free(moves);
    return out;
}

/* Is `move` among the position's legal moves? (apply takes nothing else). -1: no memory. */
static int position_allows(PositionObject *self, const Move *move)
{
    Move *moves = PyMem_Malloc(sizeof(Move) * MAX_MOVES);
    if (!moves) {
        PyErr_NoMemory();
        return -1;
    }
    int found = is_legal(&self->owner->tables, &self->pos, move, moves);
    PyMem_Free(moves);
    return found;
}

static PyObject *position_apply(PositionObject *self, PyObject *arg)
{
    Py_ssize_t len;
    const char *text = PyUnicode_Check(arg) ? PyUnicode_AsUTF8AndSize(arg, &len) : NULL;
    if (!text) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_TypeError, "a move is its text, e.g. 't2>t5x3' or 'draw'");
        return NULL;
    }
    Move move;
    if ((size_t)len != strlen(text) || !move_parse(text, &move))
        return PyErr_Format(PyExc_ValueError, "%R is not a move", arg);
    int legal = position_allows(self, &move);
    if (legal < 0)
        return NULL;
    if (!legal)
        return PyErr_Format(PyExc_ValueError, "%R is not a legal move here", arg);
    PositionObject *child = position_copy(self);
    if (child)
        apply_move(&self->owner->tables, &child->pos, &move);
    return (PyObject *)child;
}

/* One child per legal move, in the engine's order: (its text, the safe moves played
 * after it, the position after both), as [(m, *p.apply(m).settle()) for m in
 * p.legal_moves()] without checking each move again (the beam's closures). */
static PyObject *position_children(PositionObject *self, PyObject *unused)
{
    (void)unused;
    const Tables *t = &self->owner->tables;
    Move *moves = PyMem_Malloc(sizeof(Move) * MAX_MOVES);
    if (!moves)
        return PyErr_NoMemory();
    int n = legal_moves(t, &self->pos, moves);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PositionObject *child = position_copy(self);
        PyObject *text = move_str(&moves[i]);
        PyObject *safe = NULL;
        if (child && text) {
            Move line[MAX_CARDS];
            apply_move(t, &child->pos, &moves[i]);
            safe = move_list(line, settle(t, &child->pos, false, line));
        }
        if (!safe) {
            Py_XDECREF(child);
            Py_XDECREF(text);
            Py_CLEAR(out);
            break;
        }
        PyList_SET_ITEM(out, i, Py_BuildValue("(NNN)", text, safe, (PyObject *)child));
        if (!PyList_GET_ITEM(out, i))
            Py_CLEAR(out);
    }
    PyMem_Free(moves);
    return out;
}

static PyObject *position_key(PositionObject *self, PyObject *unused)
{
    (void)unused;
    return PyLong_FromUnsignedLongLong(plain_key(&self->owner->tables, &self->pos));
}

static PyObject *position_features(PositionObject *self, PyObject *unused)
{
    (void)unused;
    int found[FEATURE_COUNT];
    beam_features(&self->owner->tables, &self->pos, found);
    PyObject *out = PyTuple_New(FEATURE_COUNT);
    for (int i = 0; out && i < FEATURE_COUNT; i++) {
        PyObject *value = PyLong_FromLong(found[i]);
        if (!value) {
            Py_CLEAR(out);
            break;
        }
        PyTuple_SET_ITEM(out, i, value);
    }
    return out;
}

static int parse_eager(PyObject *args, PyObject *kwargs, int *eager)
{
    static char *names[] = {"eager", NULL};
    *eager = 0;
    return PyArg_ParseTupleAndKeywords(args, kwargs, "|p", names, eager);
}

static PyObject *position_safe_move(PositionObject *self, PyObject *args, PyObject *kwargs)
{
    int eager;
    if (!parse_eager(args, kwargs, &eager))
        return NULL;
    Move move;
    if (!safe_move(&self->owner->tables, &self->pos, eager, &move))
        Py_RETURN_NONE;
    return move_str(&move);
}

static PyObject *position_settle(PositionObject *self, PyObject *args, PyObject *kwargs)
{
    int eager;
    if (!parse_eager(args, kwargs, &eager))
        return NULL;
    PositionObject *after = position_copy(self);
    if (!after)
        return NULL;
    Move line[MAX_CARDS];
    int n = settle(&self->owner->tables, &after->pos, eager, line);
    PyObject *moves = move_list(line, n);
    if (!moves) {
        Py_DECREF(after);
        return NULL;
    }
    return Py_BuildValue("(NN)", moves, (PyObject *)after);
}

/* The arrangement functions need arranged tables (arrangements.supports): else -1 and a
 * ValueError. */
static int require_arranged(PositionObject *self)
{
    if (self->owner->tables.arranged)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: run arrangement is not supported here",
                 self->owner->name);
    return -1;
}

static PyObject *position_arranged_key(PositionObject *self, PyObject *unused)
{
    (void)unused;
    if (require_arranged(self) < 0)
        return NULL;
    return PyLong_FromUnsignedLongLong(arranged_key(&self->owner->tables, &self->pos));
}

/* One child as (score, the line before its move, the move). */
static PyObject *arranged_child(const ArrangedChild *child)
{
    PyObject *before = move_list(child->before, child->before_len);
    PyObject *move = before ? move_str(&child->move) : NULL;
    if (!move) {
        Py_XDECREF(before);
        return NULL;
    }
    return Py_BuildValue("(iNN)", child->score, before, move);
}

static PyObject *position_arranged_children(PositionObject *self, PyObject *args,
                                            PyObject *kwargs)
{
    static char *names[] = {"draw_score", NULL};
    int draw_score;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "i", names, &draw_score))
        return NULL;
    if (draw_score < 0 || draw_score > 127)
        return PyErr_Format(PyExc_ValueError, "draw_score must be 0-127");
    if (require_arranged(self) < 0)
        return NULL;
    const Tables *t = &self->owner->tables;
    ArrangedChild *kids = PyMem_Malloc(sizeof(ArrangedChild) * MAX_ARRANGED_CHILDREN);
    if (!kids)
        return PyErr_NoMemory();
    int8_t want[DECK];
    wanted(t, &self->pos, want);
    int n = arranged_children(t, &self->pos, want, draw_score, kids);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *child = arranged_child(&kids[i]);
        if (!child)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, child);
    }
    PyMem_Free(kids);
    return out;
}

static PyObject *position_is_won(PositionObject *self, void *closure)
{
    (void)closure;
    return PyBool_FromLong(is_won(&self->owner->tables, &self->pos));
}

static PyObject *position_tables(PositionObject *self, void *closure)
{
    (void)closure;
    Py_INCREF(self->owner);
    return (PyObject *)self->owner;
}

static PyMethodDef position_methods[] = {
    {"to_bytes", (PyCFunction)position_to_bytes, METH_NOARGS, "State.to_bytes()."},
    {"legal_moves", (PyCFunction)position_legal_moves, METH_NOARGS,
     "State.legal_moves(), as move texts, in the engine's order."},
    {"apply", (PyCFunction)position_apply, METH_O,
     "The position after a legal move (its text), as State.apply(move, auto_finish=False)."},
    {"key", (PyCFunction)position_key, METH_NOARGS,
     "The solver's plain key (docs/solver.md, \"The position key\") as a 64-bit hash."},
    {"children", (PyCFunction)position_children, METH_NOARGS,
     "[(move, *position.apply(move).settle()) for move in position.legal_moves()]."},
    {"features", (PyCFunction)position_features, METH_NOARGS,
     "What the beam's score reads (in the order of beam.WEIGHTS), as a tuple."},
    {"safe_move", (PyCFunction)(void (*)(void))position_safe_move, METH_VARARGS | METH_KEYWORDS,
     "moves.safe_move(state, rules, eager): a move text or None."},
    {"settle", (PyCFunction)(void (*)(void))position_settle, METH_VARARGS | METH_KEYWORDS,
     "moves.settle(state, rules, line, eager): (the moves played, the position after)."},
    {"arranged_key", (PyCFunction)position_arranged_key, METH_NOARGS,
     "The key up to run arrangement as a 64-bit hash (ValueError where the tables do not "
     "support run arrangement)."},
    {"arranged_children", (PyCFunction)(void (*)(void))position_arranged_children,
     METH_VARARGS | METH_KEYWORDS,
     "arranged_children(draw_score): the children up to run arrangement, best first: a "
     "list of (score, the moves before the move, the move), as move texts."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef position_getset[] = {
    {"is_won", (getter)position_is_won, NULL, "State.is_won", NULL},
    {"tables", (getter)position_tables, NULL, "the tables the position was read with", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject PositionType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.solver._core.Position",
    .tp_doc = "Position(tables, data): a position read from State.to_bytes().",
    .tp_basicsize = sizeof(PositionObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = position_new,
    .tp_dealloc = (destructor)position_dealloc,
    .tp_methods = position_methods,
    .tp_getset = position_getset,
};

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

static const char *const VERDICTS[] = {"solved", "unsolvable", "unknown"};

/* max_seconds: None (-1: no deadline) or a number at least 0; false with the error set. */
static bool read_seconds(PyObject *seconds, double *out)
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
static const char *const STOPS[] = {"", "positions", "deadline", "table", "depth"};

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
static PyObject *reduction_names(void)
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

static PyObject *core_search(PyObject *module, PyObject *args)
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
