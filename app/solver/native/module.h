/* What the Python bindings' files share (module.c, module_tables.c, module_position.c,
 * module_search.c): the Tables and Position objects and the conversions of moves and
 * limits. Every function here only converts arguments and results: the rules live in
 * state.c, the searches in search.c, beam.c and their files. */
#ifndef SOLVER_NATIVE_MODULE_H
#define SOLVER_NATIVE_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arrangements.h"
#include "beam.h"
#include "exhaustive.h"
#include "keys.h"
#include "lines.h"
#include "playout.h"
#include "relaxation.h"
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

extern PyTypeObject TablesType;
extern PyTypeObject PositionType;

/* module_position.c: a new position object read with `self`'s tables, a copy of it; a
 * move as its text; a list of move texts (NULL with the error set). */
PositionObject *position_copy(PositionObject *self);
PyObject *move_str(const Move *move);
PyObject *move_list(const Move *moves, int n);

/* module_search.c: what a search answers and why it stopped, as Python sees them;
 * max_seconds read (None: -1, no deadline); the full search's reduction names; search(). */
extern const char *const VERDICTS[];
extern const char *const STOPS[];
bool read_seconds(PyObject *seconds, double *out);
PyObject *reduction_names(void);
PyObject *core_search(PyObject *module, PyObject *args);

#endif
