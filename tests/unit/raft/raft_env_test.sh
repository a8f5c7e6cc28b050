#!/bin/sh
# raft_env_test.sh BINARY: bad OXL_RAFT_* values stop the Raft tests with an
# error naming the variable (exit 2), and a bad test name is refused.
set -u
bin="$1"
status=0
check() { # expected-text command...
  want="$1"; shift
  out="$("$@" 2>&1)"; rc=$?
  if [ "$rc" -ne 2 ] || ! printf '%s' "$out" | grep -qF -- "$want"; then
    echo "not ok: '$*' exited $rc; want exit 2 and: $want"; echo "$out" | head -5; status=1
  else
    echo "ok: $want"
  fi
}
check "OXL_RAFT_SEEDS='abc' is not an integer" env OXL_RAFT_SEEDS=abc "$bin" sweep
check "OXL_RAFT_SEEDS='0' is not an integer in 1..10000000" env OXL_RAFT_SEEDS=0 "$bin" sweep
check "OXL_RAFT_SEEDS='-5' is not an integer" env OXL_RAFT_SEEDS=-5 "$bin" sweep
check "OXL_RAFT_FIRST_SEED='1x' is not an integer" env OXL_RAFT_FIRST_SEED=1x "$bin" sweep
check "OXL_RAFT_FIRST_SEED='' is not an integer" env OXL_RAFT_FIRST_SEED= "$bin" double-vote
check "OXL_RAFT_SEEDS='99999999999' is not an integer in 1..10000000" env OXL_RAFT_SEEDS=99999999999 "$bin" long
check "OXL_RAFT_TRACE='2' is not an integer in 0..1" env OXL_RAFT_TRACE=2 "$bin" sweep
check "unknown test 'nope'" "$bin" nope
exit "$status"
