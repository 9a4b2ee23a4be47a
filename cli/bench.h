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


#endif
