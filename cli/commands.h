/* commands.h — every subcommand's entry point; the table in main.c lists them for `sowzero --help`. */
#ifndef SOWZERO_COMMANDS_H
#define SOWZERO_COMMANDS_H
int cmd_perft(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_net(int argc, char **argv);
int cmd_match(int argc, char **argv);
int cmd_tournament(int argc, char **argv);
int cmd_elo(int argc, char **argv);
int cmd_play(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_train(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_positions(int argc, char **argv);
int cmd_accuracy(int argc, char **argv);
int cmd_move(int argc, char **argv);
int cmd_metrics(int argc, char **argv);
int cmd_tablebase(int argc, char **argv);
int cmd_engine(int argc, char **argv);
int cmd_kgp(int argc, char **argv);
#endif
