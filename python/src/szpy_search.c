/* szpy_search.c — sowzero.solve and sowzero.perft (szpy_search.h). */
#include "python/src/szpy_search.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "eval/alphabeta.h"

const char szpy_solve_doc[] =
    "solve(position=None, rules='kalah', *, tt_mb=256, endgame=0, threads=1) -> dict\n"
    "The exact value of a Kalah position under perfect play (eval/alphabeta.h; `sowzero solve --json`):\n"
    "{'value': final margin for the player to move (own store - opponent's), 'best': every optimal move\n"
    "letter, 'nodes', 'seconds', 'rules', 'position', 'over': the position was already finished}.\n"
    "position: a position string (default: the start). tt_mb: transposition table MiB (1..65536); endgame:\n"
    "an endgame database of up to that many seeds in the pits (0 = none; needs max_sows=0), built with\n"
    "`threads` threads. The GIL is released while searching; Ctrl-C (KeyboardInterrupt) stops the search\n"
    "within about 50 ms (not a database build).";

typedef struct {
    ab_search *s;
    kalah_pos kp;
    int endgame, rc, abort;
    char err[KALAH_ERRLEN];
    ab_result res;
} solve_job;

static void *solve_main(void *arg)
{
    solve_job *j = arg;
    const ab_limits lim = {.exact = 1};
    if (j->endgame)
        j->rc = ab_set_endgame(j->s, j->endgame, j->err);
    if (j->rc == AB_OK && !__atomic_load_n(&j->abort, __ATOMIC_RELAXED))
        j->rc = ab_think(j->s, &j->kp, &lim, &j->res);
    return NULL;
}

PyObject *szpy_solve(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"position", "rules", "tt_mb", "endgame", "threads", NULL};
    const char *text = NULL, *spec = "kalah";
    long tt_mb = 256, endgame = 0, threads = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zs$lll:solve", kwlist, &text, &spec, &tt_mb, &endgame, &threads))
        return NULL;
    if (tt_mb < 1 || tt_mb > 65536)
        return szpy_value_error("solve: tt_mb=%ld is not in 1..65536", tt_mb);
    if (endgame < 0 || endgame > 127)
        return szpy_value_error("solve: endgame=%ld is not in 0..127", endgame);
    if (threads < 1 || threads > 64)
        return szpy_value_error("solve: threads=%ld is not in 1..64", threads);
    szpy_rules r;
    game_pos gp;
    if (szpy_setup(spec, text, &r, &gp))
        return NULL;
    szpy_rules_free(&r); /* only the Kalah form is used below */
    if (!r.is_kalah)
        return szpy_value_error("solve: the exact solver plays Kalah only, not '%s'", spec);
    kalah_pos kp;
    int pits;
    if (text)
        kalah_pos_parse(text, &r.kalah, &kp, &pits, NULL); /* valid: the game interface accepted it */
    else
        kalah_start(&r.kalah, &kp);
    if (endgame && r.kalah.max_sows > 0)
        return szpy_value_error("solve: endgame is not available with max_sows=%d (the value then depends on "
                                "the sow count)", r.kalah.max_sows);
    char err[KALAH_ERRLEN] = "";
    ab_search *s = ab_create(&r.kalah, (size_t)tt_mb, err);
    if (!s)
        return PyErr_Format(PyExc_MemoryError, "solve: %s", err);
    ab_set_threads(s, (int)threads);
    solve_job job = {.s = s, .kp = kp, .endgame = (int)endgame, .rc = AB_OK};
    ab_set_abort(s, &job.abort);
    /* Ctrl-C raises KeyboardInterrupt at once instead of after the whole solve. */
    int interrupted = szpy_run_interruptible(solve_main, &job, &job.abort);
    ab_free(s);
    if (interrupted)
        return NULL; /* the signal's exception (KeyboardInterrupt), or the thread's RuntimeError, is set */
    int rc = job.rc;
    ab_result res = job.res;
    if (endgame && rc == AB_EINVAL)
        return szpy_value_error("solve: endgame=%ld: %s", endgame, job.err); /* too large, or no memory */
    if (rc != AB_OK && rc != AB_EOVER)
        return PyErr_Format(PyExc_RuntimeError, "solve: search failed (code %d)", rc);
    PyObject *best = PyList_New(0);
    for (int k = 0; best && k < r.kalah.pits; k++)
        if (res.best_mask >> k & 1) {
            PyObject *l = PyUnicode_FromFormat("%c", kalah_move_letter(kp.side, k));
            if (!l || PyList_Append(best, l)) {
                Py_XDECREF(l);
                Py_CLEAR(best);
            } else {
                Py_DECREF(l);
            }
        }
    if (!best)
        return NULL;
    char rbuf[GAME_SPEC_MAX], pbuf[GAME_POS_STR];
    kalah_rules_format(&r.kalah, rbuf, sizeof rbuf);
    kalah_pos_format(&r.kalah, &kp, pbuf, sizeof pbuf);
    return Py_BuildValue("{sisNsKsdsssssO}", "value", res.value, "best", best, "nodes",
                         (unsigned long long)res.nodes, "seconds", res.seconds, "rules", rbuf, "position", pbuf,
                         "over", rc == AB_EOVER ? Py_True : Py_False);
}

const char szpy_perft_doc[] =
    "perft(rules='kalah', position=None, depth=1) -> list of int\n"
    "Positions reached at exactly 1..depth plies (one ply = one sowing; a finished game contributes\n"
    "nothing deeper), any registered game (env/game.h; `sowzero perft --json`: the same counts). depth\n"
    "1..64. The GIL is released; Ctrl-C (KeyboardInterrupt) stops it within milliseconds.";

/* game_perft itself on every subtree of at most PERFT_LEAF_DEPTH plies, the plies above walked here (the
same counts: each position adds its legal moves to its ply's count). Between subtrees, once about
PERFT_POLL leaves have been counted since the last check (~20 ms), the GIL is taken back to check for a
pending signal, so Ctrl-C raises KeyboardInterrupt at once instead of after the whole count. */
#define PERFT_LEAF_DEPTH 8
#define PERFT_POLL (1u << 22)

typedef struct {
    const game *g;
    int depth;
    uint64_t *nodes;
    uint64_t since_poll;    /* leaves counted since the last check */
    int stop;               /* a signal handler raised: unwind */
    PyThreadState *save;    /* the thread state while the GIL is released */
} perft_walk;

static void perft_split(perft_walk *w, const game_pos *p, int ply)
{
    if (w->depth - ply <= PERFT_LEAF_DEPTH) {
        uint64_t sub[PERFT_LEAF_DEPTH];
        game_perft(w->g, p, w->depth - ply, sub);
        for (int d = 0; d < w->depth - ply; d++) {
            w->nodes[ply + d] += sub[d];
            w->since_poll += sub[d];
        }
        if (w->since_poll >= PERFT_POLL) {
            w->since_poll = 0;
            PyEval_RestoreThread(w->save);
            w->stop = PyErr_CheckSignals() < 0;
            w->save = PyEval_SaveThread();
        }
        return;
    }
    unsigned legal = game_legal(w->g, p);
    w->nodes[ply] += (uint64_t)__builtin_popcount(legal);
    for (; legal && !w->stop; legal &= legal - 1) {
        game_pos q = *p;
        game_apply(w->g, &q, __builtin_ctz(legal), NULL);
        if (!q.over)
            perft_split(w, &q, ply + 1);
    }
}

PyObject *szpy_perft(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"rules", "position", "depth", NULL};
    const char *spec = "kalah", *text = NULL;
    int depth = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|szi:perft", kwlist, &spec, &text, &depth))
        return NULL;
    if (depth < 1 || depth > 64)
        return szpy_value_error("perft: depth=%d is not in 1..64", depth);
    szpy_rules r;
    game_pos p;
    if (szpy_setup(spec, text, &r, &p))
        return NULL;
    uint64_t *nodes = calloc((size_t)depth, sizeof *nodes);
    if (!nodes) {
        szpy_rules_free(&r);
        return PyErr_NoMemory();
    }
    perft_walk w = {.g = r.g, .depth = depth, .nodes = nodes};
    w.save = PyEval_SaveThread();
    if (!p.over)
        perft_split(&w, &p, 0);
    PyEval_RestoreThread(w.save);
    szpy_rules_free(&r);
    PyObject *list = w.stop ? NULL : PyList_New(depth); /* stopped: the signal's exception is set */
    for (int d = 0; list && d < depth; d++) {
        PyObject *v = PyLong_FromUnsignedLongLong(nodes[d]);
        if (!v) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, d, v);
    }
    free(nodes);
    return list;
}

const char szpy_encode_doc[] =
    "encode(position=None, rules='kalah', *, player=None) -> float32 array (obs_dim,)\n"
    "The net's encoding of a position (game_encode, what VecEnv's obs rows hold) from the point of view\n"
    "of `player` (0..players-1; default: the player to move, as VecEnv's rows). The multi-agent API uses it\n"
    "for each agent's observation. ValueError for a bad position or player.";

PyObject *szpy_encode(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwlist[] = {"position", "rules", "player", NULL};
    const char *spec = "kalah", *text = NULL;
    PyObject *player_obj = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|zs$O:encode", kwlist, &text, &spec, &player_obj))
        return NULL;
    szpy_rules r;
    game_pos p;
    if (szpy_setup(spec, text, &r, &p))
        return NULL;
    const int players = game_players(r.g);
    if (player_obj != Py_None) {
        const long q = PyLong_AsLong(player_obj);
        if (q == -1 && PyErr_Occurred()) {
            szpy_rules_free(&r);
            return NULL;
        }
        if (q < 0 || q >= players) {
            szpy_rules_free(&r);
            return szpy_value_error("encode: player=%ld is not in 0..%d", q, players - 1);
        }
        p.to_move = (uint8_t)q; /* every game's encoding is the to_move player's view */
    }
    npy_intp d[1] = {game_encode_dim(r.g)};
    PyArrayObject *x = (PyArrayObject *)PyArray_SimpleNew(1, d, NPY_FLOAT32);
    if (x)
        game_encode(r.g, &p, PyArray_DATA(x));
    szpy_rules_free(&r);
    return (PyObject *)x;
}
