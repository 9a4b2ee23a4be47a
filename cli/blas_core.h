/* blas_core.h — see blas_core.c: re-executes the process with OPENBLAS_CORETYPE set when OpenBLAS did
 * not recognise this CPU and fell back to its slowest kernels. Call first thing in main(). Returns only
 * when nothing needs doing or the exec failed. */
#ifndef SOWZERO_BLAS_CORE_H
#define SOWZERO_BLAS_CORE_H
void cli_blas_core_fixup(char **argv);
#endif
