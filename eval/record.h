/* record.h — game records: a PGN-like text format, one game after another, for every game of the game
 * interface (env/game.h).
 *
 * Format (one Kalah game; every other game below):
 *
 *   [Event "sowzero match"]
 *   [Round "3"]                                       optional: the game's number within its event
 *   [South "greedy"]                                  agent spec (or "human") of the player moving first
 *   [North "ab:depth=4"]
 *   [SouthName "g"] [NorthName "ab4"]                 optional: tournament names (`elo` prefers them)
 *   [Rules "kalah:pits=6,seeds=4,capture=opposite,end=either-empty,max_sows=0"]
 *   [Start "4,4,4,4,4,4,0,4,4,4,4,4,4,0 S"]           optional (default: the start of Rules)
 *   [Opening "2"]                                     optional: the first N moves were a random opening
 *   [Result "1-0"]                                    1-0 South won, 0-1 North won, 1/2-1/2, * unfinished
 *   [Score "26-22"]                                   optional on reading: South store - North store
 *   <blank line>
 *   c f A B ... 1-0                                   moves (a.. South, A.. North), wrapped, then the result
 *   <blank line>
 *
 * Tag values are double-quoted with \" and \\ escaped (as in PGN). The reader accepts unknown tags (they
 * are skipped) and validates everything it knows: the rules, the start position, every move by replaying it
 * with game_apply from Start (one path for every game, env/game.h), the result token against [Result], and both against the replayed final
 * position (a finished game's Result and Score must be the real ones; "*" is only allowed for a game that
 * is not over). A record whose Start is not the rules' start position replays from a sowing count of 0
 * (only matters with max_sows). Errors name the file and line: "games.pgn:12: move 7 'C': move 'C' is a pit
 * of North, but South is to move".
 *
 * Result-only records (as Ordo and BayesElo accept them): a game with no moves at all, a decisive or drawn
 * [Result] and a Start that is not finished stands for a game played elsewhere whose moves were not kept
 * (the move text is just the result token, "1-0"). It is read with result_only = 1 and the result as given;
 * its [Score], when present, must agree with the result (South ahead for 1-0, ...) and gives the stores
 * (record_write writes such a game back without [Score]).
 * A record whose moves are given must still replay to its result: moves that contradict it are an error.
 *
 * Moves are stored as the game's move numbers (env/game.h; Kalah's: relative pits 0..pits-1 of the player to
 * move), written and read in its notation (game_move_format, game_move_parse: the letter's case follows
 * from replaying). Library functions never print; they return RECORD_* codes with a message.
 *
 * Every other game (Congklak, Oware, Mancala básico, any game registered later): the same format with the
 * game's own notation (game_pos_format, game_move_format; docs/design.md §2) and one agent tag per seat:
 *
 *   [Event "sowzero match"]
 *   [Date "2026.12.01"]                               optional (PGN's YYYY.MM.DD; any text is kept)
 *   [Round "3"]
 *   [South "greedy"] [North "ab:depth=4"]             two-player games: seat 0 South, seat 1 North
 *   [Seat0 "greedy"] [Seat1 "random"] [Seat2 "mcts"]  3-4 players: one tag per seat, 0 moving first
 *   [Seat0Name "g"] ...                               optional names (2 players: SouthName/NorthName)
 *   [Rules "oware:..."]                               required: it names the game (absent = Kalah)
 *   [Start "..."]                                     the game's position notation
 *   [Opening "2"]
 *   [Result "0-1"]                                    two players as for Kalah; 3-4 players: each seat's
 *                                                     final place '-'-joined ("2-1-3"; equal places share,
 *                                                     "1-2-2"), or "*"
 *   [Score "20-28"]                                   two-player games with a score (stores, captures)
 *
 *   a f C b ... 0-1                                   the moves; an extra turn is the next move by the
 *                                                     same player; the result token ends the move text
 *
 * Forfeits: a game stopped unfinished because a seat lost it by forfeit (an outside engine's illegal move,
 * malformed line, silence or exit; eval/engine_agent.h) carries
 *
 *   [Termination "forfeit by North: engine 'python3 x.py' forfeits: sent the illegal move 'move 9' ..."]
 *
 * right after [Result] (the seat named as its tag is: South/North, or Seat0..Seat3). Its moves replay to an
 * unfinished position and its result is the forfeit's: the other seat wins (two players), or the forfeiting
 * seat takes the last place and the others share the first ("1-1-3").
 *
 *   [Termination "time forfeit"]
 *
 * (PGN's value) is a forfeit too, by the seat that ran out of time under the match's time control
 * (`match --tc`): the seat is the one the [Result] puts last (two players: the loser; 3-4 players: the one
 * seat in the last place, the others sharing the first). It needs such a result.
 *
 *   [Termination "adjudication"]
 *
 * (two-player games): the game was ended unfinished and scored by perfect play from where it stopped
 * (`match --adjudicate N`: the exact solver). Its moves replay to an unfinished position; its [Result] is
 * decisive or drawn and its [Score] is required: the final scores of perfect play, which must add up to
 * the seeds on the board and in the scores there, must not be below either score there, and must agree
 * with the [Result]. The reader takes result and score from those tags (it does not solve the position).
 * Any other [Termination] text is kept and written back; it changes nothing.
 *
 * Two-player records also read Seat0/Seat1 (serve wrote those before) for South/North. Validation is
 * the same for every game (every move replayed through game_apply, the result against the replayed end,
 * result-only records as above), and every record read fills the same fields (game, gstart, gfinal,
 * places), so a caller treats every record alike.
 */
#ifndef SOWZERO_RECORD_H
#define SOWZERO_RECORD_H

#include "env/status.h"

#include <stdint.h>
#include <stdio.h>

#include "env/game.h"

#define RECORD_ERRLEN SZ_ERRLEN

enum { RECORD_OK = SZ_OK, RECORD_EOF = 1, RECORD_EINVAL = SZ_EINVAL, RECORD_EIO = SZ_EIO, RECORD_ENOMEM = SZ_ENOMEM };

/* Results, from South's (seat 0's) point of view; RECORD_RANKED: a finished game of 3-4 players, whose
 * result is places[]. */
enum { RECORD_NORTH_WINS = -1, RECORD_DRAW = 0, RECORD_SOUTH_WINS = 1, RECORD_UNFINISHED = 2, RECORD_RANKED = 3 };

/* One game. Strings are owned by the struct (malloc'd, NULL = absent); free them with record_game_clear.
 * A zeroed struct is an empty game; record_game_init_game sets its game and start. */
typedef struct {
    char *event, *south, *north;   /* south/north: seat 0's and seat 1's agent specs; required for writing */
    char *south_name, *north_name; /* optional display names (tournaments) */
    game *game;                    /* the rules instance, owned (record_game_init_game) */
    int players;                   /* seats: 2..GAME_MAX_PLAYERS (south = seat 0, north = seat 1) */
    char *seat_more[2], *name_more[2]; /* seats 2 and 3: spec and optional name */
    game_pos gstart;               /* position before the first move (a Start that is not the rules' start
                                    * position is read with a sowing count of 0) */
    int round;                     /* >= 1 writes [Round]; 0 = none */
    int opening;                   /* moves at the front that were a random opening (>= 0) */
    uint8_t *moves;                /* the game's moves (env/game.h: Kalah's relative pits), n_moves of them
                                    * (capacity cap) */
    int n_moves, cap;
    char *date;                    /* optional [Date] */
    /* Filled by record_game_finish and by the reader: */
    int result;                    /* RECORD_SOUTH_WINS / RECORD_DRAW / RECORD_NORTH_WINS / RECORD_UNFINISHED /
                                    * RECORD_RANKED */
    int store_south, store_north;  /* two-player games with a score (game_score): the final scores */
    game_pos gfinal;               /* position after the last move */
    int places[GAME_MAX_PLAYERS];  /* final place per seat, 1 = first, equal = shared; 0 while unfinished */
    int line;                      /* reader: line number of the game's first tag */
    int result_only;               /* 1: a result-only record (no moves; result and stores as read, see
                                    * above; record_game_finish keeps them while n_moves is 0) */
    /* A game lost by forfeit (see "Forfeits" above): 1 + the seat that forfeited, 0 = none; termination is
     * the [Termination] text (any text a reader met, kept; "forfeit by SEAT: REASON" for a forfeit). */
    int forfeit;
    char *termination;
    /* An adjudicated game (see "Forfeits"): 1 with termination "adjudication"; the moves leave it unfinished
     * and result, store_south and store_north are the adjudicated ones (set by the writer's caller, kept by
     * record_game_finish). */
    int adjudicated;
} record_game;

/* Sets up an empty game of gm (borrowed: the record keeps its own copy) from start (NULL = the start
 * position). Call it on a zeroed or cleared struct. RECORD_OK or RECORD_ENOMEM (message in err). */
int record_game_init_game(record_game *g, const game *gm, const game_pos *start, char *err);

/* Seat q's agent spec (0 <= q < players; south/north for 0 and 1), and the name `elo` rates it by: the
 * seat's name tag when present, else its spec. NULL when unset. */
const char *record_seat(const record_game *g, int q);
const char *record_player(const record_game *g, int q);

/* Sets seat q's spec and name (copies; NULL clears). RECORD_OK, RECORD_EINVAL (q out of range) or
 * RECORD_ENOMEM. */
int record_set_seat(record_game *g, int q, const char *spec, const char *name);

/* The result token of a finished or unfinished game: record_result_token for two players, the places
 * joined by '-' for 3-4 players ("*" while unfinished). buf[n], 16 bytes suffice; returns buf. */
char *record_result_text(const record_game *g, char *buf, size_t n);

/* Frees the strings and moves and zeroes the struct. */
void record_game_clear(record_game *g);

/* Replaces one of the game's strings (event/south/... fields) with a copy of s (NULL clears it).
 * Returns RECORD_OK or RECORD_ENOMEM. Usage: record_set(&g.south, "greedy"). */
int record_set(char **field, const char *s);

/* Appends one move (the game's move number, env/game.h). RECORD_OK or RECORD_ENOMEM. Not checked here (record_game_finish and
 * record_write replay the moves). */
int record_push(record_game *g, int move);

/* Replays the moves from gstart and sets result, the scores, gfinal and places. RECORD_OK, or RECORD_EINVAL
 * with a message naming the move (number, notation) that is illegal, or when no game is set up. A game that is not over gets RECORD_UNFINISHED.
 * A result-only game (result_only, no moves) keeps its result and stores; gfinal = gstart. */
int record_game_finish(record_game *g, char *err);

/* Writes g as one record (tags, blank line, moves wrapped at 79 columns, result, blank line) to f; calls
 * record_game_finish first (so a game with an illegal move is never written). Requires every seat's spec.
 * RECORD_OK, RECORD_EINVAL (message), RECORD_EIO (a write failed). */
int record_write(FILE *f, record_game *g, char *err);

/* The result token: "1-0", "0-1", "1/2-1/2", "*". */
const char *record_result_token(int result);

/* ---- reading ---- */

typedef struct record_reader record_reader;

/* Opens a record file for reading (path "-" = stdin). NULL on error with a message in err. */
record_reader *record_reader_open(const char *path, char *err);
/* Reads from an open stream (not closed by record_reader_free); name is used in messages. */
record_reader *record_reader_from_stream(FILE *f, const char *name, char *err);
void record_reader_free(record_reader *rd);

/* Reads and validates the next game into *g (which must be zeroed or cleared; on success the caller owns
 * it and frees it with record_game_clear). Returns RECORD_OK, RECORD_EOF when no game is left, or
 * RECORD_EINVAL / RECORD_EIO / RECORD_ENOMEM with "NAME:LINE: message" in err (g is cleared then). */
int record_read(record_reader *rd, record_game *g, char *err);

/* Reads every game of a file into a new array (*games, *n; free with record_games_free). Stops at the
 * first bad record: returns its code with the message, and nothing in *games. */
int record_read_file(const char *path, record_game **games, int *n, char *err);
void record_games_free(record_game *games, int n);

/* The same for a record held in memory (text, NUL-terminated; name is used in messages): the first game
 * of text into *g. RECORD_OK, RECORD_EOF (no game in text) or an error as record_read. */
int record_read_text(const char *text, const char *name, record_game *g, char *err);

#endif
