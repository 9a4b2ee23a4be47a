/* blas_core.c — give OpenBLAS the right matrix kernels on CPUs newer than the installed library.
 *
 * OpenBLAS built with DYNAMIC_ARCH picks its kernels from a table of CPU models when the library loads.
 * A CPU newer than that table (e.g. Debian 12's OpenBLAS 0.3.21 on Sapphire/Emerald Rapids, model 0x8F /
 * 0xCF) falls back to "Prescott", plain SSE3 kernels: measured here 14 GFLOP/s for the net's products
 * against 111 GFLOP/s with the SkylakeX kernels the CPU runs fine (`sowzero bench net`), i.e. self-play
 * and training 5-7x slower. The choice is made before main() runs, so the only fix is the documented
 * environment variable OPENBLAS_CORETYPE and a fresh start of the process: when the library fell back to
 * Prescott, the user has not chosen a core, and the CPU has AVX-512 (or AVX2 + FMA), set it to SkylakeX
 * (or Haswell) and exec ourselves again. A user's own OPENBLAS_CORETYPE is always respected. */
#include "cli/blas_core.h"

#include <cblas.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cli_blas_core_fixup(char **argv)
{
#if defined(__x86_64__)
    if (getenv("OPENBLAS_CORETYPE") || getenv("SOWZERO_BLAS_REEXEC"))
        return;
    const char *core = openblas_get_corename();
    if (!core || strcmp(core, "Prescott"))
        return;
    __builtin_cpu_init();
    const char *better = NULL;
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        better = "SkylakeX";
    else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        better = "Haswell";
    if (!better)
        return;
    /* The guard variable stops a loop should the library ignore the setting. */
    if (setenv("OPENBLAS_CORETYPE", better, 1) || setenv("SOWZERO_BLAS_REEXEC", "1", 1))
        return;
    /* Exec the binary's real path, not /proc/self/exe: the kernel names the process after the file
     * exec'd, and "exe" hid it from ps / pgrep sowzero. /proc/self/exe remains the fallback (binary
     * replaced or deleted since it started). argv[0] stays the user's. */
    char real[4096];
    ssize_t n = readlink("/proc/self/exe", real, sizeof real - 1);
    if (n > 0) {
        real[n] = 0;
        execv(real, argv);
    }
    execv("/proc/self/exe", argv);
    /* exec failed (no /proc?): carry on with the slow kernels rather than fail */
    unsetenv("OPENBLAS_CORETYPE");
#else
    (void)argv;
#endif
}
