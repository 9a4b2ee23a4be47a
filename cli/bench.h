/* bench.h — the `sowzero bench SUBBENCH` family (docs/design.md §4–5). cmd_bench (cli/cmd_bench.c) dispatches on
 * argv[1]; each sub-benchmark lives in its own file cli/bench_<name>.c as `int bench_<name>(int argc,
 * char **argv)` with argv[0] = the sub-benchmark's name ("net", ...), same conventions as a command:
 * --help, --json (exactly one cJSON object), exit 0 / 1 runtime error / 2 usage error. To add one: declare
 * it here and add one row to the table in cli/cmd_bench.c. */
#ifndef SOWZERO_BENCH_H
#define SOWZERO_BENCH_H

int bench_net(int argc, char **argv);
int bench_env(int argc, char **argv);
int bench_selfplay(int argc, char **argv);
int bench_search(int argc, char **argv);
int bench_solve(int argc, char **argv);

/* bench env's path for every game but Kalah (cli/bench_env_game.c): scalar random playouts through the
 * game interface on `threads` threads for `seconds`, `sows` = plies (a whole relay chain is one); prints
 * like bench env (JSON adds sows_per_game, relays_per_sow, first_place_rate per player, and for two
 * players south_win_rate and draw_rate). Returns the exit status. */
int bench_env_game(const char *spec, long threads, double seconds, long seed, int json);

#endif
