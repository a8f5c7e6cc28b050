/* raft_harness_test.c: the Raft harness's parts on their own: the storage
 * layout and recovery, parameters, a healthy cluster, describe, and the
 * oracles against states broken on purpose. */
#include "raft_internal.h"
#include "raft_scenario.h"
#include "tap.h"

#include <stdlib.h>
#include <string.h>

int main(void) {
    raft_params p = raft_params_default(5);
    tap_ok(raft_params_check(&p) == NULL, "the default parameters are usable");
    return tap_done();
}
