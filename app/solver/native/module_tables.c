/* The Python bindings (module.h): app.solver._core.Tables, the tables of a variant
 * (app/solver/core.py builds them from a Variant and its SearchTables). */
#include "module.h"

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

PyTypeObject TablesType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "app.solver._core.Tables",
    .tp_doc = "One variant's tables, as app.solver.core.tables() hands them over.",
    .tp_basicsize = sizeof(TablesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_new = tables_new,
    .tp_getset = tables_getset,
};
