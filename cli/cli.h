/* cli.h — shared helpers for the sowzero subcommands (one command per file: cli/cmd_<name>.c).
 * Each command is `int cmd_<name>(int argc, char **argv)` with argv[0] = the command name; it parses its
 * options with getopt_long, prints results on stdout (exactly one cJSON object with --json), errors on
 * stderr prefixed "sowzero <command>: ", and returns the process exit status (0 ok, 1 runtime error,
 * 2 usage error). */
#ifndef SOWZERO_CLI_H
#define SOWZERO_CLI_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>
#include "env/kalah.h"

/* Prints "sowzero CMD: message\n" to stderr (printf format; the message is cut at 2047 bytes). Control
 * bytes and invalid UTF-8 in the message (from a corrupt file it quotes) are printed as \xNN. */
void cli_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Parses a rules spec for command cmd; on error prints it and returns 0, else 1. */
int cli_rules(const char *cmd, const char *spec, kalah_rules *out);

/* Parses a position string under r for command cmd (NULL text = start position); prints errors. */
int cli_position(const char *cmd, const char *text, const kalah_rules *r, kalah_pos *out);

/* The usual --rules/--position pair: rules from spec (NULL = default Kalah(6,4)); position from text
 * (NULL = the start). When no spec is given but a position is, the rules take their pits from the
 * position's length and seeds from its total (an error if the total is not 2*pits*seeds for a whole
 * seeds). Prints errors; returns 1 on success, 0 on error. */
int cli_setup(const char *cmd, const char *rules_spec, const char *pos_text, kalah_rules *r, kalah_pos *p);

/* Parses a whole decimal number in [lo, hi] given for option `what`; prints an error naming it. */
int cli_long(const char *cmd, const char *what, const char *text, long lo, long hi, long *out);
int cli_double(const char *cmd, const char *what, const char *text, double lo, double hi, double *out);
/* A seed: a whole number in 0..2^64-1 given for option `what`; prints an error naming it. */
int cli_seed(const char *cmd, const char *what, const char *text, uint64_t *out);

/* Prints the object (unformatted, one line) and frees it; returns 0, or 1 if printing failed. */
int cli_print_json(cJSON *obj);

/* "threads" or "thread": the noun for a count of n in the text outputs ("1 thread", "2 threads"). */
static inline const char *cli_threads(long n) { return n == 1 ? "thread" : "threads"; }

/* cli_output_check (cli/output_path.h) of a streamed output with no inputs to compare (defined there). */
int cli_output_path_ok(const char *cmd, const char *flag, const char *path);

/* A file the project ships (configs/..., data/..., nets/...), named as from the repository root, for an
 * installed binary run from elsewhere: path itself when it is empty, absolute or present from the working
 * directory; else the installed copy under share/sowzero/ when it exists (first beside the binary,
 * BIN/../share/sowzero, so a moved install tree still finds it, then the configured prefix's); else path
 * unchanged, so that an error names what was asked for. Returns path or buf (n bytes, filled then). */
const char *cli_data_path(const char *path, char *buf, size_t n);

/* "sowzero ARGV..." as one string, arguments with blanks or quotes in single quotes (argv[0] is the
 * command's name): what a generated file's header records. Caller frees; NULL when out of memory. */
char *cli_command_line(int argc, char **argv);

/* Reports an unknown option / missing argument the way getopt_long leaves it, with a pointer to --help. */
int cli_usage_error(const char *cmd);

#endif
