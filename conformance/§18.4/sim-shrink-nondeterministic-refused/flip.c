/* The extern fn of case.oxl: a deliberate source of nondeterminism, a
 * file that is there at every other call. */
#include <stdint.h>
#include <stdio.h>

int64_t oxl_flipper_flip(void) {
    FILE *f = fopen("flip.state", "r");
    if (f) {
        fclose(f);
        remove("flip.state");
        return 1;
    }
    f = fopen("flip.state", "w");
    if (f) fclose(f);
    return 0;
}
