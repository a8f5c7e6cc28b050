/* The extern fn of case.oxl: SIGKILL to the parent, then wait for it. */
#include <signal.h>
#include <unistd.h>

void oxl_hostile_killParent(void) {
    kill(getppid(), SIGKILL);
    for (;;) pause();
}
