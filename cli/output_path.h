/* output_path.h — checking an output file a command will write, before any of its work: a long run must not
 * end in a path it cannot write, nor write over one of its own inputs. */
#ifndef SOWZERO_CLI_OUTPUT_PATH_H
#define SOWZERO_CLI_OUTPUT_PATH_H

#include <stddef.h>

/* An input the command reads: what it is, for the message "FLAG PATH: is WHAT itself" (such as "the net
 * x.h5 of agent 'az:net=x.h5'", "CHECKPOINT"), and its path. */
typedef struct {
    const char *what, *path;
} cli_input;

/* How the command writes the output. */
enum {
    CLI_OUT_REPLACE = 0, /* a temporary file renamed over PATH, or PATH truncated: a regular file only */
    CLI_OUT_STREAM = 1   /* PATH opened for writing (appended or truncated) and written as it goes: a regular
                          * file, or a character device or FIFO (/dev/null, /dev/stdout) */
};

/* Whether `path`, given for option `flag` of command `cmd`, can be written, checked without creating or
 * changing anything: not empty; an existing file must be of a kind `mode` allows (never a directory) and
 * open for writing (without truncation), a new one's directory must exist and be writable and searchable;
 * it must not be any of inputs[0..n_inputs) (entries with a NULL path or a path that does not exist
 * are skipped), nor a tablebase file (eval/endgame.h: its magic line, or any *.sztb name, existing or not). Inputs are compared by identity (device and inode), so a symlink or another spelling of
 * the same file is caught. Returns 1 when it can be written; else prints "sowzero CMD: FLAG PATH: reason"
 * (naming the input it would overwrite) and returns 0: the caller exits 2 (a bad flag). */
int cli_output_check(const char *cmd, const char *flag, const char *path, int mode, const cli_input *inputs,
                     int n_inputs);

/* 1 when the paths a and b name one file, existing or not: the same device and inode when both exist,
 * else the same canonical folder (realpath) and the same last component ("x.csv", "./x.csv" and
 * "../d/x.csv" from d are one file before it is created). 0 otherwise. */
int cli_same_output(const char *a, const char *b);

/* The net file an agent spec reads (its net= key: "az:net=x.h5,sims=0" -> "x.h5") into buf (size n), or
 * NULL when the spec has none (or it does not fit). */
const char *cli_spec_net(const char *spec, char *buf, size_t n);

#endif
