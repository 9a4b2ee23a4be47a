/* srv_assets.h — the page's files (web/), embedded into the binary at build time by serve/embed_web.cmake,
 * so `sowzero serve` works from wherever the binary is copied, with no install step or path to find, and
 * always serves the page of its own version (the API and the page change together). */
#ifndef SOWZERO_SRV_ASSETS_H
#define SOWZERO_SRV_ASSETS_H

#include <stddef.h>

typedef struct {
    const char *path;          /* URL path: "/index.html", "/app.js", ... */
    const char *type;          /* Content-Type */
    const unsigned char *data;
    size_t len;
} srv_asset;

extern const srv_asset srv_assets[];
extern const int srv_n_assets;

/* The asset of a URL path ("/" means "/index.html"), or NULL. */
const srv_asset *srv_asset_find(const char *path);

#endif
