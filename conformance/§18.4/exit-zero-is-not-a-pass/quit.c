/* The extern fn of case.oxl: exit(0) on demand, as a C library might. */
#include <stdint.h>
#include <stdlib.h>

void oxl_quits_quitAt(int64_t seed, int64_t now) {
    if (seed == now) exit(0);
}
