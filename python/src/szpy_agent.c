/* szpy_agent.c — sowzero.Agent (szpy_agent.h). */
#include "python/src/szpy_agent.h"

#include "eval/agent.h"
#include "eval/basico_agent.h"

typedef struct {
    PyObject_HEAD
    szpy_rules rules;
    agent *kalah;        /* rules.is_kalah */
    basico_agent *basico; /* rules.is_basico */
    int busy;            /* a search runs without the GIL; an instance is not thread-safe (eval/agent.h) */
} szpy_agent;

static void agent_dealloc(szpy_agent *a)
{
    agent_free(a->kalah);
    basico_agent_free(a->basico);
    szpy_rules_free(&a->rules);
    Py_TYPE(a)->tp_free((PyObject *)a);
}

static int agent_init(szpy_agent *a, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"spec", "rules", NULL};
    const char *spec, *rules = "kalah";
    if (a->rules.g) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: already created");
        return -1;
    }
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|s:Agent", kwlist, &spec, &rules) ||
        szpy_rules_parse(rules, &a->rules))
        return -1;
    if (!a->rules.is_kalah && !a->rules.is_basico) {
        szpy_value_error("Agent: no agents play '%s' yet (Kalah: eval/agent.h, basico: eval/basico_agent.h)",
                         game_name(a->rules.g));
        return -1;
    }
    char err[AGENT_ERRLEN];
    /* az agents read HDF5, which is not thread-safe: creation keeps the GIL. */
    if (a->rules.is_basico)
        a->basico = basico_agent_create(spec, &a->rules.basico, err);
    else
        a->kalah = agent_create(spec, &a->rules.kalah, err);
    if (!a->kalah && !a->basico) {
        szpy_value_error("%s", err);
        return -1;
    }
    return 0;
}

static int claim(szpy_agent *a)
{
    if (a->busy) {
        PyErr_SetString(PyExc_RuntimeError, "Agent: another thread is using this agent");
        return -1;
    }
    a->busy = 1;
    return 0;
}

/* The agents' own position forms of one string. */
typedef struct {
    kalah_pos kalah;
    basico_pos basico;
} agent_pos;

/* Parses text for a's game: ValueError and -1 on error. */
static int parse_pos(const szpy_agent *a, const char *text, agent_pos *p, int *over)
{
    char err[KALAH_ERRLEN];
    int pits, rc;
    if (a->kalah) {
        rc = kalah_pos_parse(text, &a->rules.kalah, &p->kalah, &pits, err) == KALAH_OK ? 0 : -1;
        *over = p->kalah.over;
    } else {
        rc = basico_pos_parse(text, &a->rules.basico, &p->basico, err) == BASICO_OK ? 0 : -1;
        *over = p->basico.over;
    }
    if (rc)
        szpy_value_error("position '%s': %s", text, err);
    return rc;
}

/* The relative pit the agent chooses at position text, or -1 with an exception set. */
static int choose(szpy_agent *a, const char *text, agent_pos *p)
{
    int over;
    if (parse_pos(a, text, p, &over))
        return -1;
    if (over) {
        szpy_value_error("Agent.move: position '%s': the game is over, there is no move", text);
        return -1;
    }
    if (claim(a))
        return -1;
    int rc, move = -1;
    Py_BEGIN_ALLOW_THREADS
    if (a->kalah)
        rc = agent_choose(a->kalah, &p->kalah, &move);
    else
        rc = basico_agent_choose(a->basico, &p->basico, &move);
    Py_END_ALLOW_THREADS
    a->busy = 0;
    if (rc == AGENT_ENOMEM) {
        PyErr_NoMemory();
        return -1;
    }
    if (rc != AGENT_OK) {
        PyErr_Format(PyExc_RuntimeError, "Agent '%s': %s", a->kalah ? agent_spec(a->kalah) : basico_agent_spec(a->basico),
                     a->kalah ? agent_error(a->kalah) : basico_agent_error(a->basico));
        return -1;
    }
    return move;
}

/* move(position) and pit(position): the chosen relative pit, or -1 with an exception set. */
static int choose_arg(szpy_agent *a, PyObject *args, const char *format, agent_pos *p)
{
    const char *text;
    return PyArg_ParseTuple(args, format, &text) ? choose(a, text, p) : -1;
}

static PyObject *agent_move(szpy_agent *a, PyObject *args)
{
    agent_pos p;
    const int k = choose_arg(a, args, "s:move", &p);
    if (k < 0)
        return NULL;
    const char letter[2] = {a->kalah ? kalah_move_letter(p.kalah.side, k) : (char)('a' + k), 0};
    return PyUnicode_FromString(letter);
}

static PyObject *agent_pit(szpy_agent *a, PyObject *args)
{
    agent_pos p;
    const int k = choose_arg(a, args, "s:pit", &p);
    return k < 0 ? NULL : PyLong_FromLong(k);
}

static PyObject *agent_new_game_py(szpy_agent *a, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"position", "seed", NULL};
    const char *text = NULL;
    unsigned long long seed = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zK:new_game", kwlist, &text, &seed))
        return NULL;
    agent_pos p;
    int over;
    if (!text) {
        if (a->kalah)
            kalah_start(&a->rules.kalah, &p.kalah);
        else
            basico_start(&a->rules.basico, &p.basico);
    } else if (parse_pos(a, text, &p, &over)) {
        return NULL;
    }
    if (claim(a))
        return NULL;
    if (a->kalah)
        agent_new_game(a->kalah, &p.kalah, seed);
    else
        basico_agent_new_game(a->basico, &p.basico, seed);
    a->busy = 0;
    Py_RETURN_NONE;
}

static PyObject *get_spec(szpy_agent *a, void *kind)
{
    if (!a->kalah && !a->basico)
        Py_RETURN_NONE;
    if (kind)
        return PyUnicode_FromString(a->kalah ? agent_kind(a->kalah) : basico_agent_kind(a->basico));
    return PyUnicode_FromString(a->kalah ? agent_spec(a->kalah) : basico_agent_spec(a->basico));
}

static PyObject *get_rules(szpy_agent *a, void *unused)
{
    (void)unused;
    return PyUnicode_FromString(a->rules.g ? game_spec(a->rules.g) : "");
}

static PyMethodDef agent_methods[] = {
    {"move", (PyCFunction)agent_move, METH_VARARGS,
     "move(position) -> str\nThe move letter the agent plays at the position string (South a.., North A..;\n"
     "basico: the mover's a..). ValueError for a bad or finished position."},
    {"pit", (PyCFunction)agent_pit, METH_VARARGS,
     "pit(position) -> int\nThe same choice as a relative pit 0..pits-1 (VecEnv's action)."},
    {"new_game", SZPY_KW(agent_new_game_py), METH_VARARGS | METH_KEYWORDS,
     "new_game(position=None, seed=0)\nStarts a new game (default: the start position) and reseeds the\n"
     "agent from (its spec seed, seed): eval/agent.h's determinism rule."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef agent_getset[] = {
    {"spec", (getter)get_spec, NULL, "the spec as given", NULL},
    {"kind", (getter)get_spec, NULL, "the spec's kind (random, greedy, ab, mcts, az, maxn, paranoid)", (void *)1},
    {"rules", (getter)get_rules, NULL, "the canonical rules spec", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyTypeObject szpy_AgentType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sowzero.Agent",
    .tp_basicsize = sizeof(szpy_agent),
    .tp_dealloc = (destructor)agent_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Agent(spec, rules='kalah')\n"
              "A move-choosing agent from a spec of eval/agent.h (Kalah: random, greedy, ab:depth=8, mcts:sims=800,\n"
              "az:net=PATH,sims=200, ...) or eval/basico_agent.h (basico rules: random, greedy, maxn, paranoid,\n"
              "mcts, az). ValueError with the library's message for a bad spec. The search runs without the GIL;\n"
              "an instance serves one thread at a time.",
    .tp_methods = agent_methods,
    .tp_getset = agent_getset,
    .tp_init = (initproc)agent_init,
    .tp_new = PyType_GenericNew,
};

int szpy_agent_register(PyObject *m)
{
    return szpy_add_type(m, "Agent", &szpy_AgentType);
}
