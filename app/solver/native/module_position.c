/* The Python bindings (module.h): app.solver._core.Position, a position read with a
 * variant's tables: bytes, legal moves, apply, keys, safe moves and settle, the search's
 * children and the run-arrangement functions. */
#include "module.h"

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

PositionObject *position_copy(PositionObject *self)
{
    PositionObject *copy = position_alloc(self->owner);
    if (copy)
        copy->pos = self->pos;
    return copy;
}

PyObject *move_str(const Move *move)
{
    char text[MOVE_TEXT_SIZE];
    move_text(move, text);
    return PyUnicode_FromString(text);
}

PyObject *move_list(const Move *moves, int n)
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

/* scored_children(draw_score, last=None): search_children's, as (score, move text, the
 * pile the next move must use or -1), in the order made. */
static PyObject *position_scored_children(PositionObject *self, PyObject *args)
{
    int draw_score;
    const char *last_text = NULL;
    if (!PyArg_ParseTuple(args, "i|z", &draw_score, &last_text))
        return NULL;
    if (draw_score < 0 || draw_score > 127)
        return PyErr_Format(PyExc_ValueError, "draw_score must be 0-127");
    Move last;
    if (last_text && !move_parse(last_text, &last))
        return PyErr_Format(PyExc_ValueError, "%s is not a move", last_text);
    ScoredMove *kids = PyMem_Malloc(sizeof(ScoredMove) * MAX_MOVES);
    if (!kids)
        return PyErr_NoMemory();
    int n = search_children(&self->owner->tables, &self->pos, last_text ? &last : NULL,
                            draw_score, kids);
    PyObject *out = n < 0 ? PyErr_NoMemory() : PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *text = move_str(&kids[i].move);
        PyObject *item = text ? Py_BuildValue("(iNi)", kids[i].score, text, kids[i].must_use)
                              : NULL;
        if (!item)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, i, item);
    }
    PyMem_Free(kids);
    return out;
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
     "safe_move(eager=False): the first safe foundation move (eager: the first foundation "
     "move) as a move text, or None."},
    {"settle", (PyCFunction)(void (*)(void))position_settle, METH_VARARGS | METH_KEYWORDS,
     "settle(eager=False): the safe moves played until none is left: (the moves played, "
     "the position after)."},
    {"scored_children", (PyCFunction)position_scored_children, METH_VARARGS,
     "scored_children(draw_score, last=None): the full search's children here, reached by "
     "move text `last`, in the order made: a list of (score, move text, the pile the next "
     "move must use or -1); the search tries them lowest score first, stably."},
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

PyTypeObject PositionType = {
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
