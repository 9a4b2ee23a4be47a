/* szpy_agent.c — sowzero.Agent (szpy_agent.h). */
#include "python/src/szpy_agent.h"

#include <stdio.h>
#include <string.h>

#include "eval/game_agent.h"

typedef struct {
    PyObject_HEAD
    szpy_rules rules;
    game_agent *a; /* eval/game_agent.h (borrows rules.g): every game's agents */
    int busy;      /* a search runs without the GIL; an instance is not thread-safe (eval/game_agent.h) */
} szpy_agent;

static void agent_dealloc(szpy_agent *a)
{
    game_agent_free(a->a);
    szpy_rules_free(&a->rules);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

/* The net file of an agent spec ("az:net=PATH,..."), when it names one, must open for reading: OSError
 * (FileNotFoundError, PermissionError, ...) naming the file otherwise, as Net.load raises. Returns -1 with
 * that error set, else 0 (what the file holds is the agent's own check). */
static int check_net_file(const char *spec)
{
    const char *args = strchr(spec, ':');
    for (const char *item = args; item; item = strchr(item + 1, ',')) {
        if (strncmp(item + 1, "net=", 4))
            continue;
        const char *path = item + 5;
        const size_t len = strcspn(path, ",");
        char buf[4096];
        if (len == 0 || len >= sizeof buf)
            return 0; /* empty or unusable: the agent's message says more */
        memcpy(buf, path, len);
        buf[len] = 0;
        FILE *f = fopen(buf, "rb");
        if (!f) {
            PyErr_SetFromErrnoWithFilename(PyExc_OSError, buf);
            return -1;
        }
        fclose(f);
    }
    return 0;
}

static int agent_init(szpy_agent *a, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"spec", "rules", NULL};
    const char *spec, *rules = "kalah";
    if (a->a) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: already created");
        return -1;
    }
    szpy_rules_free(&a->rules); /* a failed __init__ before this one may have parsed its rules */
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s:Agent", kwlist, &spec, &rules) ||
        szpy_rules_parse(rules, &a->rules) || check_net_file(spec)) {
        szpy_rules_free(&a->rules);
        return -1;
    }
    char err[AGENT_ERRLEN];
    /* az agents read HDF5, which is not thread-safe: creation keeps the GIL. */
    if (!(a->a = game_agent_create(spec, a->rules.g, err))) {
        szpy_rules_free(&a->rules);
        szpy_value_error("%s", err);
        return -1;
    }
    return 0;
}

static int claim(szpy_agent *a)
{
    if (!a->a) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: not created (its __init__ did not run, or failed)");
        return -1;
    }
    if (a->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: another thread is using this agent");
        return -1;
    }
    a->busy = 1;
    return 0;
}

/* One choose, run on its own thread (szpy_run_interruptible). */
typedef struct {
    szpy_agent *a;
    const game_pos *p;
    int move, rc, abort;
} choose_job;

static void *choose_main(void *arg)
{
    choose_job *j = arg;
    j->rc = game_agent_choose(j->a->a, j->p, &j->move);
    return NULL;
}

/* The slot the agent chooses at position text (parsed into *p), or -1 with an exception set. Ctrl-C stops
 * the search (KeyboardInterrupt) the way solve's is stopped. */
static int choose(szpy_agent *a, const char *text, game_pos *p)
{
    if (!a->a) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: not created (its __init__ did not run, or failed)");
        return -1;
    }
    if (szpy_pos_parse(&a->rules, text, p))
        return -1;
    if (p->over) {
        szpy_value_error("Agent.move: position '%s': the game is over, there is no move", text);
        return -1;
    }
    if (claim(a))
        return -1;
    choose_job job = {.a = a, .p = p, .move = -1, .rc = AGENT_OK};
    game_agent_set_abort(a->a, &job.abort);
    int interrupted = szpy_run_interruptible(choose_main, &job, &job.abort);
    game_agent_set_abort(a->a, NULL);
    a->busy = 0;
    if (interrupted)
        return -1; /* the signal's exception (KeyboardInterrupt), or the thread's RuntimeError, is set */
    if (job.rc == AGENT_ENOMEM) {
        PyErr_NoMemory();
        return -1;
    }
    if (job.rc != AGENT_OK) {
        PyErr_Format(PyExc_RuntimeError, "Agent '%s': %s", game_agent_spec(a->a), game_agent_error(a->a));
        return -1;
    }
    return job.move;
}

/* move(position) and pit(position): the chosen slot, or -1 with an exception set. */
static int choose_arg(szpy_agent *a, PyObject *args, const char *format, game_pos *p)
{
    const char *text;
    return PyArg_ParseTuple(args, format, &text) ? choose(a, text, p) : -1;
}

static PyObject *agent_move(szpy_agent *a, PyObject *args)
{
    game_pos p;
    const int k = choose_arg(a, args, "s:move", &p);
    if (k < 0)
        return NULL;
    char text[8];
    return PyUnicode_FromString(game_move_format(a->rules.g, &p, k, text, sizeof text));
}

static PyObject *agent_pit(szpy_agent *a, PyObject *args)
{
    game_pos p;
    const int k = choose_arg(a, args, "s:pit", &p);
    return k < 0 ? NULL : PyLong_FromLong(k);
}

static PyObject *agent_new_game_py(szpy_agent *a, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"position", "seed", NULL};
    const char *text = NULL;
    PyObject *seed_obj = NULL;
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zO:new_game", kwlist, &text, &seed_obj))
        return NULL;
    if (!a->a) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: not created (its __init__ did not run, or failed)");
        return NULL;
    }
    if (seed_obj && szpy_seed(seed_obj, "Agent.new_game", &seed))
        return NULL;
    game_pos p;
    if (!text)
        game_start(a->rules.g, &p);
    else if (szpy_pos_parse(&a->rules, text, &p))
        return NULL;
    if (claim(a))
        return NULL;
    game_agent_new_game(a->a, &p, seed);
    a->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *get_spec(szpy_agent *a, void *kind)
{
    if (!a->a)
        Py_RETURN_NONE;
    return PyUnicode_FromString(kind ? game_agent_kind(a->a) : game_agent_spec(a->a));
}

/* How the agent plays: az's effective search settings and which came from the net's search record
 * (game_agent_describe); the spec for the other kinds. */
static PyObject *get_plays(szpy_agent *a, void *unused)
{
    (void)unused;
    if (!a->a)
        Py_RETURN_NONE;
    return PyUnicode_FromString(game_agent_describe(a->a));
}

static PyObject *get_rules(szpy_agent *a, void *unused)
{
    (void)unused;
    return PyUnicode_FromString(a->rules.g ? game_spec(a->rules.g) : "");
}

static PyMethodDef agent_methods[] = {
    {"move", (PyCFunction)agent_move, METH_VARARGS,
     "move(position) -> str\nThe move the agent plays at the position string, in the game's notation\n"
     "(game_move_format: Kalah South a.., North A..; basico the mover's a..). ValueError for a bad or\n"
     "finished position. The GIL is released while searching; Ctrl-C (KeyboardInterrupt) stops the\n"
     "search within milliseconds (not an endgame database build)."},
    {"pit", (PyCFunction)agent_pit, METH_VARARGS,
     "pit(position) -> int\nThe same choice as a relative pit 0..pits-1 (VecEnv's action)."},
    {"new_game", SZPY_KW(agent_new_game_py), METH_VARARGS | METH_KEYWORDS,
     "new_game(position=None, seed=0)\nStarts a new game (default: the start position) and reseeds the\n"
     "agent from (its spec seed, seed): eval/game_agent.h's determinism rule."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef agent_getset[] = {
    {"spec", (getter)get_spec, NULL, "the spec as given", NULL},
    {"kind", (getter)get_spec, NULL, "the spec's kind (random, greedy, ab, mcts, az; maxn, paranoid, solve; br, engine)", (void *)1},
    {"rules", (getter)get_rules, NULL, "the canonical rules spec", NULL},
    {"plays", (getter)get_plays, NULL,
     "how the agent plays: for az the effective spec (every search key with its value: given, from the\n"
     "net's search record, or built in) and where the values came from; the spec for other kinds", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject szpy_AgentType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sowzero.Agent",
    .tp_basicsize = sizeof(szpy_agent),
    .tp_dealloc = (destructor)agent_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Agent(spec, rules='kalah')\n"
              "A move-choosing agent from an agent spec of the rules' game (eval/game_agent.h, docs/agents.md):\n"
              "random, greedy, ab:depth=8, mcts:sims=800, az:net=PATH,sims=200, maxn, paranoid, and for Kalah\n"
              "solver, elsewhere solve (two players with a margin). ValueError with the\n"
              "library's message for a bad spec; OSError (FileNotFoundError, ...) when net= names a file that\n"
              "cannot be opened, as Net.load. The search runs without the GIL; an instance serves one thread\n"
              "at a time.",
    .tp_methods = agent_methods,
    .tp_getset = agent_getset,
    .tp_init = (initproc)agent_init,
    .tp_new = PyType_GenericNew,
};

int szpy_agent_register(PyObject *m)
{
    return szpy_add_type(m, "Agent", &szpy_AgentType);
}
