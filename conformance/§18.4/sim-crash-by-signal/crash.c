/* The extern fn of case.oxl: a segmentation fault on demand. */
#include <stdint.h>

void oxl_crash_crashAt(int64_t seed, int64_t now) {
    if (seed == now) {
        volatile int *nowhere = (volatile int *)(uintptr_t)0;
        *nowhere = 1;
    }
}
