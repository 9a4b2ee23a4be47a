/* h5search.c — the /search record (h5search.h; the format in nn/h5io.h). */
#include "nn/h5search.h"
#include "nn/h5util.h"
#include "nn/net_internal.h"
#include "nn/search_ranges.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define GROUP "search"

/* The numeric fields, their type and range: the one range of each setting (nn/search_ranges.h), which the
 * config keys they come from and the az agent spec whose defaults they supply share. */
typedef struct {
    const char *name;
    size_t offset;
    int is_int;      /* int field (stored int64; read back it must be a whole number) */
    double lo, hi;
    int lo_open;     /* lo itself is excluded */
} field;

static const field fields[] = {
    {"sims", offsetof(nn_search, sims), 1, 0, SEARCH_SIMS_MAX, 0},
    {"batch", offsetof(nn_search, batch), 1, 1, SEARCH_BATCH_MAX, 0},
    {"c_puct", offsetof(nn_search, c_puct), 0, SEARCH_C_PUCT_MIN, SEARCH_C_PUCT_MAX, 0},
    {"fpu_reduction", offsetof(nn_search, fpu_reduction), 0, 0, SEARCH_FPU_MAX, 0},
    {"margin_utility", offsetof(nn_search, margin_utility), 0, 0, SEARCH_MARGIN_MAX, 0},
    {"solver", offsetof(nn_search, solver), 1, 0, 1, 0},
    {"gumbel_k", offsetof(nn_search, gumbel_k), 1, 1, SEARCH_GUMBEL_K_MAX, 0},
    {"gumbel_c_visit", offsetof(nn_search, gumbel_c_visit), 0, 0, SEARCH_GUMBEL_C_VISIT_MAX, 0},
    {"gumbel_c_scale", offsetof(nn_search, gumbel_c_scale), 0, SEARCH_GUMBEL_C_SCALE_MIN, SEARCH_GUMBEL_C_SCALE_MAX, 0},
};
#define N_FIELDS (int)(sizeof fields / sizeof fields[0])

static double get(const nn_search *s, const field *f)
{
    const char *p = (const char *)s + f->offset;
    return f->is_int ? *(const int *)p : *(const double *)p;
}

static void put(nn_search *s, const field *f, double v)
{
    char *p = (char *)s + f->offset;
    if (f->is_int)
        *(int *)p = (int)v;
    else
        *(double *)p = v;
}

/* NN_OK, or NN_EINVAL: value v of field f is not finite, not whole (int fields) or out of its range. */
static int check_value(const field *f, double v, char *err)
{
    if (!isfinite(v) || (f->is_int && v != floor(v)))
        return nn_fail(err, NN_EINVAL, "%s = %g is not %s", f->name, v, f->is_int ? "a whole number" : "finite");
    if (v > f->hi || (f->lo_open ? v <= f->lo : v < f->lo))
        return nn_fail(err, NN_EINVAL, "%s = %g is out of range (%s%g..%g)", f->name, v, f->lo_open ? "> " : "",
                       f->lo, f->hi);
    return NN_OK;
}

int nn_search_check(const nn_search *s, char *err)
{
    if (!s)
        return nn_fail(err, NN_EINVAL, "no search record");
    for (int i = 0; i < N_FIELDS; i++)
        if (check_value(&fields[i], get(s, &fields[i]), err))
            return NN_EINVAL;
    if (strcmp(s->root, "puct") && strcmp(s->root, "gumbel"))
        return nn_fail(err, NN_EINVAL, "root = '%.8s' is neither puct nor gumbel", s->root);
    return NN_OK;
}

int h5r_write(hid_t f, const nn_search *s, char *err)
{
    char msg[NN_ERRLEN] = "";
    if (nn_search_check(s, msg))
        return nn_fail(err, -1, "search record: %s", msg);
    hid_t g = h5u_group(f, GROUP);
    if (g < 0)
        return nn_fail(err, -1, "cannot create group /" GROUP);
    int rc = h5u_put_str(g, "root", s->root, err);
    for (int i = 0; i < N_FIELDS && !rc; i++) {
        double v = get(s, &fields[i]);
        rc = fields[i].is_int ? h5u_put_i64(g, fields[i].name, (int64_t)v, err)
                              : h5u_put_f64(g, fields[i].name, v, err);
    }
    H5Gclose(g);
    return rc ? -1 : 0;
}

int h5r_read(hid_t f, const char *path, nn_file_info *info, char *err)
{
    info->have_search = 0;
    memset(&info->search, 0, sizeof info->search);
    htri_t ex = H5Lexists(f, GROUP, H5P_DEFAULT);
    if (ex == 0)
        return NN_OK;
    hid_t g = ex < 0 ? -1 : H5Gopen2(f, GROUP, H5P_DEFAULT);
    if (g < 0)
        return nn_fail(err, NN_EFORMAT, "%s: /" GROUP " is not a readable group (damaged search record)", path);
    nn_search s;
    memset(&s, 0, sizeof s);
    char msg[NN_ERRLEN] = "";
    int rc = NN_OK;
    /* Every number is read as a double (any integer or float type converts exactly enough for these
     * ranges), then checked: an int field holding 0.5 is refused, never truncated. */
    for (int i = 0; i < N_FIELDS && !rc; i++) {
        double v;
        int r = h5u_get_f64(g, fields[i].name, &v, msg);
        if (r == 0)
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP " lacks the field '%s'", path, fields[i].name);
        else if (r < 0)
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP ": %s", path, msg);
        else if (check_value(&fields[i], v, msg))
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP ": field %s", path, msg);
        else
            put(&s, &fields[i], v);
    }
    if (!rc) {
        int r = h5u_get_str(g, "root", s.root, sizeof s.root, msg);
        if (r == 0)
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP " lacks the field 'root'", path);
        else if (r < 0)
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP ": %s", path, msg);
        else if (nn_search_check(&s, msg))
            rc = nn_fail(err, NN_EFORMAT, "%s: /" GROUP ": field %s", path, msg);
    }
    H5Gclose(g);
    if (!rc) {
        info->search = s;
        info->have_search = 1;
    }
    return rc;
}
