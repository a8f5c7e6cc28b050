/* The extern fn of case.oxl: a segmentation fault on demand (raised, so the
 * sanitizers see no undefined behaviour; env turns off ASan's handler). */
#include <signal.h>
#include <stdint.h>

void oxl_crash_crashAt(int64_t seed, int64_t now) {
    if (seed == now) raise(SIGSEGV);
}
