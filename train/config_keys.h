/* config_keys.h — the key table behind train/config.h, shared by the parser (config.c) and the writer
 * (config_write.c). Internal to train/. */
#ifndef SOWZERO_TRAIN_CONFIG_KEYS_H
#define SOWZERO_TRAIN_CONFIG_KEYS_H

#include <stddef.h>
#include "train/config.h"

typedef enum {
    CK_INT,       /* int, range [lo, hi] */
    CK_I64,       /* int64_t, range [lo, hi] */
    CK_U64,       /* uint64_t, any value */
    CK_DBL,       /* double, range [lo, hi], lo excluded when lo_open, hi excluded when hi_open */
    CK_BOOL,      /* int 0/1: true/false, yes/no, on/off, 1/0 */
    CK_ENUM,      /* int-sized enum: names[i] is value i */
    CK_STR,       /* char[size], non-empty unless lo == 0 */
    CK_NAME,      /* char[size] of [A-Za-z0-9_.-], may be empty (= default rule) */
    CK_HIDDEN,    /* the nn_config hidden-width list */
    CK_OPPONENTS  /* an agent list: cfg_eval's opponents ([eval]) or cfg_league's ([selfplay]) */
} cfg_ktype;

typedef struct {
    const char *section, *key;
    cfg_ktype type;
    size_t off;               /* offset of the field in cfg_config */
    double lo, hi;
    int lo_open, hi_open;
    const char *const *names; /* CK_ENUM: NULL-terminated */
    size_t size;              /* CK_STR / CK_NAME: buffer size */
    int required;
    const char *doc;          /* one or more sentences: what it does, and why one would change it */
} cfg_key;

extern const cfg_key cfg_keys[];
extern const int cfg_nkeys;
extern const char *const cfg_sections[];   /* NULL-terminated, in file order */

/* The value of key k in c, formatted as the config file would hold it, into buf (size n). */
char *cfg_format_value(const cfg_config *c, const cfg_key *k, char *buf, size_t n);

/* The range/choices of k as text ("1..7", "> 0", "one of: sgd, adam") into buf. */
char *cfg_format_range(const cfg_key *k, char *buf, size_t n);

/* Whether [rules] key `key` (without "rules.") belongs in c: spec when rules.spec is given, else game and
 * the rules keys of the game kind rules.game names (its rule_keys). */
int cfg_rules_key_applies(const cfg_config *c, const char *key);

#endif
