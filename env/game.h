/* game.h — the one game interface every layer above env/ is written against (docs/design.md §3).
 *
 * In the spirit of OpenSpiel's Game/State (Lanctot et al. 2019, "OpenSpiel: A Framework for Reinforcement
 * Learning in Games"): a game KIND (a table of functions, game_kind) is looked up by the name of a rules
 * spec ("kalah", "basico", "congklak", "oware"); game_create parses a full spec into an opaque rules
 * instance (game); positions are plain values (game_pos) that any search copies freely.
 *
 * Conventions, the same for every game:
 *   players   2..GAME_MAX_PLAYERS, numbered 0.. in playing order (Kalah/Congklak/Oware: 0 = South,
 *             1 = North; básico: its player digits).
 *   moves     a move is a SLOT 0..game_moves(g)-1 of the player to move (its pit a, b, ... counted from
 *             its own first pit); a legal-move set is a bit mask over slots (bit k = slot k).
 *   plies     one ply = one move (a whole sowing with its relays); an extra turn is the next ply by the
 *             same player. p->ply counts plies since the start (positions parsed from a string start at 0).
 *   values    the result of a finished game as one value per player in [-1, 1] (1 = best, -1 = worst);
 *             for two-player games v[0] = -v[1] (win 1, draw 0, loss -1), for básico 2·rank score - 1.
 *   margin    two-player games only: player 0's score minus player 1's (stores or captures), the value
 *             `solve` reports; meaningful once over.
 *
 * Library code: no printing; errors are GAME_E* codes and a message in a GAME_ERRLEN buffer (may be NULL).
 * A game instance is immutable after game_create: one instance may serve many threads at once.
 *
 * Adding a game: write env/<name>.{h,c} (its rules) and env/game_<name>.c (its game_kind), and add one
 * line GAME_KIND(game_kind_<name>) to env/games.def. docs/adding-a-game.md says the rest.
 */
#ifndef SOWZERO_GAME_H
#define SOWZERO_GAME_H

#include "env/status.h"

#include <stddef.h>
#include <stdint.h>

#define GAME_MAX_PLAYERS 4
#define GAME_MAX_MOVES 8       /* move slots (pits per player) of any game: bits of a legal mask */
#define GAME_MAX_CELLS 32      /* board cells (pits and stores) of any game */
#define GAME_EXTRA 16          /* per-game state bytes beyond cells/to_move/over/ply */
#define GAME_RULES_MAX 64      /* bytes of any game's rules struct */
#define GAME_SPEC_MAX 160      /* bytes of a canonical rules spec, NUL included */
#define GAME_ERRLEN SZ_ERRLEN
#define GAME_POS_STR 160       /* bytes that always hold a formatted position */

enum { GAME_OK = SZ_OK, GAME_EINVAL = SZ_EINVAL, GAME_EILLEGAL = SZ_EILLEGAL, GAME_EOVER = SZ_EOVER, GAME_ENOMEM = SZ_ENOMEM };

/* A position of any game: plain old data, 64 bytes, copied by value (`q = *p`). The meaning of cell[]
 * and extra[] belongs to the game (its header documents the layout); to_move, over and ply mean the same
 * in every game and are kept up to date by the game's functions, so callers read them directly. Unused
 * bytes are zero, so two equal positions compare equal with memcmp. */
typedef struct {
    _Alignas(16) uint8_t cell[GAME_MAX_CELLS];
    uint8_t to_move;           /* player to move (after the end: the player who would have moved) */
    uint8_t over;              /* 1 once the game has ended */
    uint16_t ply;              /* plies since the start (max_sows counts these) */
    uint8_t extra[GAME_EXTRA]; /* per-game state (básico: who has left and their places) */
    uint8_t pad_[12];
} game_pos;

/* What one move did (every field 0 when it did not happen). */
typedef struct {
    uint8_t extra_turn;        /* the same player moves again */
    uint8_t captured;          /* seeds captured by this move (Kalah: opposite seeds + the capturing one) */
    uint8_t relays;            /* pits picked up by relay sowing (Congklak) */
    uint8_t finished;          /* the mover emptied its pits and left the circuit (básico) */
    uint8_t over;              /* the game ended with this move */
    uint8_t last;              /* cell index where the last seed fell */
} game_step;

typedef struct game game;       /* an opaque rules instance: a kind and its parsed rules */

/* Properties of a two-player game with a margin that the exact solver uses (game_kind.solve_props;
 * family_search's tricks, made properties of the kind). */
enum {
    /* score_cell[] is valid: player i's score is cell[score_cell[i]], the margin is their difference at
     * every position, scores only grow and no seed leaves the board, so the final margin lies within
     * margin ± (board seeds − both scores) — the solver's "store bounds". */
    GAME_SOLVE_SCORE_CELLS = 1u << 0,
    /* Play (legal moves, sowing, the end and its sweep) never reads the two score cells: the rest of the
     * game depends on the other cells, to_move and the plies left only, so positions that differ in how
     * the banked seeds are split share a table entry (Kalah, Congklak; not Oware, whose majority end reads
     * the captures). Needs GAME_SOLVE_SCORE_CELLS. */
    GAME_SOLVE_SCORES_INERT = 1u << 1,
    /* A position can come back (Oware: seeds go round without a capture), so without a ply limit the
     * position graph has cycles and no exact solve ends; the solver refuses such rules up front
     * (gs_solvable). */
    GAME_SOLVE_CAN_REPEAT = 1u << 2,
};

typedef struct game_solve_props {
    unsigned flags;      /* GAME_SOLVE_* bits */
    int score_cell[2];   /* with GAME_SOLVE_SCORE_CELLS: the cells holding player 0's and player 1's score */
    /* Play reads p->ply only through this limit: the game ends when ply reaches it (max_sows; 0 = no
     * limit, ply is never read). The solver keys a position by the plies left (limit − ply), or not by
     * ply at all without a limit. */
    int ply_limit;
} game_solve_props;

/* How a board is drawn and sown, as data (game_kind.layout), so that the browser board and the Python
 * observations serve any registered game without knowing its name. Every board is a ring of `rows` rows,
 * one per player: row q holds `pits` pits, cells q·(pits+1)+0..pits-1 in sowing order, then its store (or
 * captures) at cell q·(pits+1)+pits. A sowing drops one seed per cell around the ring, skipping what the
 * flags say; the flags also say what a move may do after its last seed (docs/design.md §1). */
enum {
    GAME_SOW_SKIPS_OPPONENT_STORES = 1u << 0, /* seeds pass the other players' stores (Kalah, Congklak) */
    GAME_SOW_SKIPS_STORES = 1u << 1,          /* seeds pass every store: stores only hold captures (Oware) */
    GAME_SOW_SKIPS_ORIGIN = 1u << 2,          /* a lap of the ring passes the emptied pit (Oware) */
    GAME_SOW_SKIPS_LEFT_ROWS = 1u << 3,       /* seeds pass the rows of players out of play (básico) */
    GAME_SOW_RELAY = 1u << 4,                 /* a last seed into a pit that held seeds picks them all up
                                                 and sows on (Congklak) */
    GAME_CAPTURE_OPPOSITE = 1u << 5,          /* the capture takes the landing pit and the pit opposite it,
                                                 cell 2·pits − last (Kalah, Congklak) */
    GAME_CAPTURE_BACKWARD = 1u << 6,          /* the capture takes the landing pit and the pits before it
                                                 in the opponent's row while they hold 2 or 3 (Oware) */
    GAME_END_SWEEP = 1u << 7,                 /* at the end every row's pits go to its own store */
    GAME_END_UNSHOWN = 1u << 8,               /* the end may move seeds in ways a sowing does not show
                                                 (Oware: the majority, must-feed and max_sows ends) */
    GAME_DRAW_RING = 1u << 9,                 /* drawn as a ring of rows (básico), not two facing rows */
    GAME_ENCODE_SEED_COUNTS = 1u << 10,       /* every element of the encoding is a seed count divided by
                                                 seeds_per_pit (game_encode_form needs no hook) */
};

typedef struct game_layout {
    int rows;          /* = players */
    int pits;          /* per row (= move slots) */
    int seeds_per_pit; /* at the start: the unit the encodings divide counts by */
    unsigned flags;    /* GAME_SOW_*, GAME_CAPTURE_*, GAME_END_*, GAME_DRAW_*, GAME_ENCODE_* */
} game_layout;

/* One game kind. Required entries are marked; the others may be NULL and are then supplied by game.c
 * (see each). Every function receives the kind's own rules struct (rules_size bytes, filled by
 * rules_parse) as `r`. */
typedef struct game_kind {
    const char *name;          /* required: the rules spec's game name, e.g. "kalah" */
    const char *summary;       /* required: one line for --help */
    size_t rules_size;         /* required: <= GAME_RULES_MAX */
    /* required: the keys of the rules spec (NULL-terminated), so agent specs and configs can point a rules
     * key given in the wrong place at --rules. */
    const char *const *rule_keys;
    /* required: rules specs that tests/test_game_conformance.c plays (NULL-terminated; the default first,
     * then variants and small boards, so every rule option is exercised). */
    const char *const *examples;
    /* required: parses "NAME" or "NAME:key=value,..." into r; GAME_EINVAL with the key/value named. */
    int (*rules_parse)(const char *spec, void *r, char *err);
    /* required: the full canonical spec (every key) into buf[n]. */
    void (*rules_format)(const void *r, char *buf, size_t n);
    int (*players)(const void *r);                      /* required */
    int (*moves)(const void *r);                        /* required: move slots, 1..GAME_MAX_MOVES */
    int (*seeds)(const void *r);                        /* required: seeds at the start */
    void (*start)(const void *r, game_pos *out);        /* required */
    unsigned (*legal)(const void *r, const game_pos *p); /* required: slot mask; 0 once over */
    /* required: plays slot `move` for the player to move (checked: GAME_EOVER, GAME_EILLEGAL, position
     * unchanged on error); fills *ev when non-NULL; increments p->ply. */
    int (*apply)(const void *r, game_pos *p, int move, game_step *ev);
    /* required: v[players] of a finished position (see the conventions above). */
    void (*values)(const void *r, const game_pos *p, double *v);
    /* two-player games: player 0's score minus player 1's; NULL for games without a margin. */
    int (*margin)(const void *r, const game_pos *p);
    /* required: seeds on the board (pits and stores/captures) — conserved by every move that does not
     * take seeds out of the game (a departure in básico). */
    int (*board_seeds)(const void *r, const game_pos *p);
    /* ---- the net's input ---- */
    int (*encode_dim)(const void *r);                   /* required: floats per position */
    void (*encode)(const void *r, const game_pos *p, float *out); /* required: mover's point of view */
    const char *encoding_name;                          /* required: the export's `encoding` attribute */
    /* required: value outputs of the net: 1 (the mover's value; two-player zero-sum games) or players
     * (per player in mover-relative order: output j is player (mover + j) % players). */
    int (*value_dim)(const void *r);
    /* ---- notation ---- */
    /* required: a position string (the game's notation, docs/design.md §2 for the Kalah family); errors name
     * the field. */
    int (*pos_parse)(const void *r, const char *s, game_pos *out, char *err);
    void (*pos_format)(const void *r, const game_pos *p, char *buf, size_t n); /* required */
    /* move text → slot of the player to move at p; GAME_EINVAL (not a move) or GAME_EILLEGAL (not this
     * player's pit) with a message. NULL: letters a.. for every player. */
    int (*move_parse)(const void *r, const game_pos *p, const char *s, char *err);
    /* slot → text for the player to move at p (NUL-terminated, at most 7 chars). NULL: 'a' + slot. */
    void (*move_format)(const void *r, const game_pos *p, int move, char *buf, size_t n);
    /* ---- optional hooks (NULL when the game has none) ---- */
    /* The seeds that count for player: its store (Kalah, Congklak) or its captures (Oware). `replay` shows
     * them as "stores". NULL: the game scores otherwise (básico ranks by finishing). */
    int (*score)(const void *r, const game_pos *p, int player);
    /* The player to move resigns (básico): it leaves and takes the lowest free place. */
    int (*resign)(const void *r, game_pos *p);
    /* Static evaluation for depth-limited search at the horizon: v[players], each in [-1, 1], on the scale
     * of `values` (a win must outrank every estimate). NULL: values once over, else 0 for everyone. */
    void (*estimate)(const void *r, const game_pos *p, double *v);
    /* Values of a game stopped unfinished by a ply cap (self-play's max_moves), v[players] in [-1, 1].
     * NULL: game_estimate. */
    void (*stopped)(const void *r, const game_pos *p, double *v);
    /* The greedy baseline's best slots for the mover (a mask; the agent picks among ties). NULL: see
     * game_greedy. */
    unsigned (*greedy)(const void *r, const game_pos *p);
    /* Batched stepper: applies moves[i] (legal) to pos[i], i < n. NULL: a loop of apply. */
    void (*apply_batch)(const void *r, game_pos *pos, const int *moves, int n, game_step *ev);
    /* A player's final value fixed before the end (it left the game: básico's finishers and resigners):
     * 1 and *v, else 0. NULL: a value is fixed only once the game is over. */
    int (*decided)(const void *r, const game_pos *p, int player, double *v);
    /* Endgame database: 1 and the exact margin (player 0 - player 1 under perfect play) when p is in it,
     * else 0. NULL: none. */
    int (*endgame)(const void *r, const game_pos *p, int *margin);
    /* What the exact solver (eval/game_search.h) may rely on about play under r (see game_solve_props).
     * NULL: nothing — the solver keys its table by the whole position, ply included, and has no bounds. */
    void (*solve_props)(const void *r, struct game_solve_props *out);
    /* The seats' names in texts, one per player: the two-row games' "South", "North" (docs/design.md §2, the
     * S/N of their notation and the [South]/[North] of records). NULL: "player N" (game_seat_name). */
    const char *const *seat_names;
    /* The board as data (game_layout). NULL: the game has no drawing and no uint8 observation form;
     * serve and Python's uint8 observations refuse it with a message naming the game. */
    void (*layout)(const void *r, game_layout *out);
    /* Is the seat still in play at p (its row live)? NULL: every seat always is. básico: 0 once the
     * player has left the circuit. */
    int (*in_play)(const void *r, const game_pos *p, int seat);
    /* The encoding as integers times constants: element j of game_encode's output is an integer in
     * [0, high[j]] times scale[j] (to float rounding), j < encode_dim. 0, or -1 when it is not of that form. NULL: derived
     * from the layout (GAME_ENCODE_SEED_COUNTS), else -1. */
    int (*encode_form)(const void *r, float *scale, int *high);
    /* Batched random playouts (game_playouts_create): a stepper of many boards at once, for the games that
     * have one (Kalah: the SIMD stepper of env/vecenv.h). NULL: game.c's scalar stepper over apply. */
    const struct game_playout_ops *playouts;
} game_kind;

/* ---- batched random playouts (`sowzero bench env`) ---- */

/* What a step of game_playouts_run writes besides the boards: random (every board sows a uniformly random
 * legal move, nothing written), or the Gymnasium step of the Python VecEnv without Python (vecenv_gym_step:
 * observations as float32, none, or uint8, masks, to_play, rewards, ended and the next random moves). */
enum { GAME_PLAYOUT_RANDOM, GAME_PLAYOUT_GYM, GAME_PLAYOUT_GYM_NOOBS, GAME_PLAYOUT_GYM_U8, GAME_PLAYOUT_MODES };

/* Counts since create. first[q]: games seat q won alone (the only first place); shared: games whose first
 * place was shared (two players: draws). relays: pits picked up by relay sowing (Congklak). */
typedef struct {
    uint64_t sows, games, relays, shared;
    uint64_t first[GAME_MAX_PLAYERS];
} game_playout_stats;

/* A kind's own batched stepper (game_kind.playouts); `s` is what create returned. */
typedef struct game_playout_ops {
    int batch_multiple; /* the batch must be a positive multiple of this */
    /* NULL with the reason in err (GAME_ERRLEN): an unknown or unsupported kernel, a mode it lacks, no
     * memory. kernel: "auto" (the best this CPU runs) or a kernel name. */
    void *(*create)(const void *r, int batch, const char *kernel, int mode, uint64_t seed, char *err);
    void (*run)(void *s, long steps);
    void (*stats)(const void *s, game_playout_stats *out);
    const char *(*kernel)(const void *s);
    void (*free)(void *s);
} game_playout_ops;

typedef struct game_playouts game_playouts;

/* batch boards of g, each restarted at the start position as soon as its game ends, stepped together by
 * the kind's stepper (game_kind.playouts) or game.c's scalar one (kernel "scalar", mode
 * GAME_PLAYOUT_RANDOM only). Moves are drawn from seed: the same seed and steps give the same counts, on
 * every kernel of a kind. Returns NULL with the reason in err (GAME_ERRLEN bytes): the batch is not a
 * multiple of game_playouts_batch_multiple, the kernel or mode is not the stepper's, out of memory. Not
 * thread-safe: one per thread. */
game_playouts *game_playouts_create(const game *g, int batch, const char *kernel, int mode, uint64_t seed,
                                    char *err);
/* steps steps of every board (batch sowings per step). */
void game_playouts_run(game_playouts *p, long steps);
void game_playouts_stats(const game_playouts *p, game_playout_stats *out);
/* The kernel in use: "scalar", "avx2", "avx512". */
const char *game_playouts_kernel(const game_playouts *p);
int game_playouts_batch_multiple(const game *g);
void game_playouts_free(game_playouts *p);

/* ---- the registry ---- */

/* The registered kinds themselves (env/games.def: game_kind_kalah, game_kind_basico, ...), for the layers
 * that specialise one game (a drawing, Kalah's fast agents): compare game_get_kind(g) with &game_kind_X
 * rather than the name. */
#define GAME_KIND(k) extern const game_kind k;
#include "env/games.def"
#undef GAME_KIND

/* The kind named by a spec's game name: `spec` may be a bare name or a full spec ("kalah:pits=4"), only the
 * text before ':' counts. NULL when no game has that name. */
const game_kind *game_kind_find(const char *spec);

/* Adds a kind of the caller's own to the registry at run time, after the built-in ones (env/games.def):
 * every layer above env/ (self-play, training, agents, matches, serve, Python) then plays it by name.
 * The kind is not copied (it must outlive its use: a static const table). Not thread-safe: register before
 * any other thread uses the registry. GAME_OK, or GAME_EINVAL with a message when a required entry is
 * missing, the name is taken or holds ':' or ',', or GAME_MAX_REGISTERED kinds were already added. */
#define GAME_MAX_REGISTERED 8
int game_kind_register(const game_kind *k, char *err);

/* Registered kinds in registration order (env/games.def, then game_kind_register); NULL past the end. */
const game_kind *game_kind_at(int i);
int game_kind_count(void);

/* The registered games' names in registry order, "kalah, basico, ..." (env/games.def), into buf (n bytes,
 * cut short if it does not fit; always terminated): what a message about an unknown game lists. Returns
 * buf. */
char *game_kind_names(char *buf, size_t n);

/* ---- rules instances ---- */

/* Parses a full rules spec ("kalah", "basico:players=4,pits=4", ...) into a new instance, owned by the
 * caller (game_free). NULL with a message in err: an unknown game name (the message lists the known ones),
 * a bad key or value (the kind's message), out of memory. */
game *game_create(const char *spec, char *err);
void game_free(game *g);                 /* NULL allowed */

const game_kind *game_get_kind(const game *g);
const char *game_name(const game *g);    /* the kind's name */
const char *game_spec(const game *g);    /* the canonical full spec (owned by g) */
const void *game_rules(const game *g);   /* the kind's rules struct (e.g. a kalah_rules for "kalah") */
int game_players(const game *g);
int game_moves(const game *g);           /* move slots */
int game_seeds(const game *g);
int game_encode_dim(const game *g);
int game_value_dim(const game *g);
const char *game_encoding_name(const game *g);
/* Seat q's name in texts (the kind's seat_names, else "player q"), in buf (n bytes); returns buf. */
const char *game_seat_name(const game *g, int seat, char *buf, size_t n);
int game_has_margin(const game *g);      /* 1 when the kind has a margin (two-player games) */
/* The kind's layout in *out: 1, or 0 (out zeroed) when the kind has no layout hook. */
int game_layout_of(const game *g, game_layout *out);
/* See game_kind.encode_form: scale[encode_dim], high[encode_dim]; 0, or -1 when the encoding has no such
 * form (no hook, and the layout does not declare seed counts). */
int game_encode_form(const game *g, float *scale, int *high);
/* The leading inputs of game_encode that are seed counts on one scale (game_encode_form): rows × pits of
 * the layout (the pits, in the two-row games' encodings) when the form gives them one scale, with
 * *counts_per_unit = 1 / that scale (an input times it is its count; nn/net.h's onehot_scale; exactly
 * seeds_per_pit for a layout that declares GAME_ENCODE_SEED_COUNTS); 0 when the
 * kind has no layout or no such form (*counts_per_unit untouched). */
int game_encode_count_inputs(const game *g, float *counts_per_unit);

/* ---- positions ---- */

void game_start(const game *g, game_pos *out);
unsigned game_legal(const game *g, const game_pos *p);
/* Checked move (see game_kind.apply). ev may be NULL. */
int game_apply(const game *g, game_pos *p, int move, game_step *ev);
/* n legal moves on n positions (the kind's batched stepper when it has one). ev may be NULL. */
void game_apply_batch(const game *g, game_pos *pos, const int *moves, int n, game_step *ev);
/* GAME_EINVAL when the kind has no resign hook. */
int game_resign(const game *g, game_pos *p);
static inline int game_to_move(const game_pos *p) { return p->to_move; }
static inline int game_over(const game_pos *p) { return p->over; }
/* Values per player of a finished position (v[game_players(g)]); all 0 when p is not over. */
void game_values(const game *g, const game_pos *p, double *v);
/* 1 and *out = the kind's score hook for player, else 0. */
int game_score(const game *g, const game_pos *p, int player, int *out);
/* Player 0 - player 1 (0 when the game has no margin). */
int game_margin(const game *g, const game_pos *p);
int game_board_seeds(const game *g, const game_pos *p);
/* Seeds still in play: board seeds minus every player's score (the score hook), the whole board for a kind
 * without one. What self-play's opening_seeds and the position sets' phases count. */
int game_seeds_in_pits(const game *g, const game_pos *p);
/* Horizon estimate, v[players] (see game_kind.estimate). */
void game_estimate(const game *g, const game_pos *p, double *v);
/* Values of p as a game ends: game_values once over, else the kind's stopped hook (or game_estimate). */
void game_stopped_values(const game *g, const game_pos *p, double *v);
/* The greedy baseline's best slots (non-empty mask for an unfinished position, 0 once over): the kind's
 * hook, else the slots maximising the mover's game_estimate at the end of its turn, extra turns followed
 * (the best chain, at most 4 extra plies deep). */
unsigned game_greedy(const game *g, const game_pos *p);
/* Is the seat in play at p (game_kind.in_play; 1 without the hook)? */
int game_in_play(const game *g, const game_pos *p, int seat);
/* 1 and *v when player's final value is already fixed (always once over; see game_kind.decided). */
int game_decided(const game *g, const game_pos *p, int player, double *v);
/* The kind's game_solve_props, or when it has no hook: flags 0 and ply_limit -1 (ply is part of the
 * position as far as the solver knows). */
void game_solve_properties(const game *g, game_solve_props *out);
/* An endgame database built outside the game kind (Kalah's tablebase files, eval/tbase.h) and attached to
 * one game instance: probe returns 1 and *margin, the exact final margin (player 0 − player 1, seeds) under
 * perfect play, for an unfinished position with at most max_seeds seeds in its pits (game_seeds_in_pits),
 * else 0. probe must be safe to call from many threads at once (it only reads); ctx is the database's. */
typedef struct game_endgame_db {
    int (*probe)(const struct game_endgame_db *db, const game_pos *p, int *margin);
    int max_seeds;
    const void *ctx;
} game_endgame_db;

/* Attaches db (borrowed: it outlives g's use; NULL detaches) as g's endgame database: game_endgame asks it
 * first, then the kind's hook. */
void game_set_endgame(game *g, const game_endgame_db *db);

/* Exact margin (player 0 − player 1) from the attached database (game_set_endgame) or the kind's hook:
 * 1 when known, else 0. */
int game_endgame(const game *g, const game_pos *p, int *margin);

/* The most seeds in the pits of a position game_endgame knows: the attached database's max_seeds, or
 * GAME_ENDGAME_ALL when the kind's hook answers (it knows what it covers), or 0 when g has neither. */
#define GAME_ENDGAME_ALL 255
int game_endgame_seeds(const game *g);

void game_encode(const game *g, const game_pos *p, float *out);

/* ---- notation ---- */

int game_pos_parse(const game *g, const char *s, game_pos *out, char *err);
/* Writes into buf[n] (GAME_POS_STR always suffices); returns buf. */
char *game_pos_format(const game *g, const game_pos *p, char *buf, size_t n);
int game_move_parse(const game *g, const game_pos *p, const char *s, char *err);
/* Returns buf (8 bytes suffice). */
char *game_move_format(const game *g, const game_pos *p, int move, char *buf, size_t n);

/* Leaf counts at exactly 1..depth plies from p (a finished game contributes nothing deeper):
 * nodes[d-1] = positions at ply d; nodes has `depth` entries. */
void game_perft(const game *g, const game_pos *p, int depth, uint64_t *nodes);

#endif
