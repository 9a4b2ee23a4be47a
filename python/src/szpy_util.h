/* szpy_util.h — what every file of the Python extension shares (issue 17): the numpy C-API import
 * symbol, rules of any game parsed from one spec, positions in and out as strings, and turning a C
 * library's error code and message into the Python exception it stands for.
 *
 * Games: a rules spec names its game by its first word (DESIGN.md §2): "kalah..." (env/kalah.h) or
 * "basico..." (env/basico.h). szpy_rules holds either, tagged. Exceptions follow Python's own split:
 * TypeError for an argument of the wrong type (raised by the argument parsers and numpy's converters),
 * ValueError for a value the library rejects (its message as the text), OSError for a file that cannot be
 * opened, MemoryError when allocation fails, RuntimeError for a failure inside the library.
 */
#ifndef SOWZERO_SZPY_UTIL_H
#define SOWZERO_SZPY_UTIL_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL sowzero_ARRAY_API
#ifndef SZPY_MODULE_MAIN
#define NO_IMPORT_ARRAY /* only szpy_module.c calls import_array() */
#endif
#include <numpy/arrayobject.h>

#include "env/basico.h"
#include "env/kalah.h"

typedef enum { SZPY_KALAH = 0, SZPY_BASICO = 1 } szpy_game;

/* The rules of one game. */
typedef struct {
    szpy_game game;
    kalah_rules kalah;   /* game == SZPY_KALAH */
    basico_rules basico; /* game == SZPY_BASICO */
} szpy_rules;

/* A position of either game (the member of rules->game is meaningful). */
typedef struct {
    kalah_pos kalah;
    basico_pos basico;
} szpy_pos;

/* The longest position string either game writes (basico: 4 × 8 counts and the leavers list). */
#define SZPY_POSLEN 192
/* The longest canonical rules spec. */
#define SZPY_RULESLEN 128

/* Parses a rules spec of any game ("kalah:pits=6,seeds=4", "basico:players=3,pits=4", ...). On error
 * raises ValueError "rules 'SPEC': <the parser's message>" and returns -1; else 0. */
int szpy_rules_parse(const char *spec, szpy_rules *out);

/* The canonical spec (kalah_rules_format / basico_rules_format) into buf[SZPY_RULESLEN]; returns buf. */
const char *szpy_rules_format(const szpy_rules *r, char *buf);

/* Game name ("kalah", "basico"), players, moves per turn (policy slots: the mover's pits) and floats
 * per observation (kalah_encode_dim / basico_encode_dim). */
const char *szpy_game_name(szpy_game g);
int szpy_players(const szpy_rules *r);
int szpy_moves(const szpy_rules *r);
int szpy_obs_dim(const szpy_rules *r);

/* The start position of r. */
void szpy_start(const szpy_rules *r, szpy_pos *out);

/* Parses a position string under r (None = the start position is the caller's business: text must be
 * non-NULL). On error raises ValueError "position 'TEXT': <message>" and returns -1. */
int szpy_pos_parse(const szpy_rules *r, const char *text, szpy_pos *out);

/* The position string into buf[SZPY_POSLEN]; returns buf. */
const char *szpy_pos_format(const szpy_rules *r, const szpy_pos *p, char *buf);

/* Legal-move bit mask of the mover (bit k = relative pit k), 0 once the game is over; the player to move
 * (Kalah: 0 South, 1 North; basico: its seat); whether the game is over. */
unsigned szpy_legal(const szpy_rules *r, const szpy_pos *p);
int szpy_to_play(const szpy_rules *r, const szpy_pos *p);
int szpy_over(const szpy_rules *r, const szpy_pos *p);

/* Sows relative pit k (checked: the caller has tested the bit of szpy_legal). Sets *extra_turn. */
void szpy_play(const szpy_rules *r, szpy_pos *p, int k, int *extra_turn);

/* The observation of p (the net's encoding: kalah_encode / basico_encode) into out[szpy_obs_dim]. */
void szpy_encode(const szpy_rules *r, const szpy_pos *p, float *out);

/* The final result of a finished game per absolute player into out[szpy_players]: Kalah +1 win, -1 loss,
 * 0 draw (by the final stores, DESIGN.md §1.1); basico the rank score mapped to [-1, 1],
 * 2 * basico_rank_score - 1 (first +1, last -1; the value-head convention of selfplay/mcts_mp.h). */
void szpy_result(const szpy_rules *r, const szpy_pos *p, float *out);

/* The optional `rules`/`position` pair of the module's functions: rules_spec NULL = "kalah"; pos_text
 * NULL = the start. Raises ValueError and returns -1 on bad input. */
int szpy_setup(const char *rules_spec, const char *pos_text, szpy_rules *r, szpy_pos *p);

/* Sets ValueError with a printf-formatted message; returns NULL (for `return szpy_value_error(...)`). */
PyObject *szpy_value_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Casts a METH_VARARGS | METH_KEYWORDS function for a PyMethodDef without -Wcast-function-type. */
#define SZPY_KW(fn) ((PyCFunction)(void (*)(void))(fn))

#endif
