#!/usr/bin/env python3
# run.py: the hardening test. Generates odd programs (gen.py) and runs each
# through `oxl check` and, when it checks, `oxl build` (an object, a linked
# executable, or a test binary), for a bounded time; prints TAP.
#
#   run.py OXL SOURCE_ROOT [--sanitized]
#
# The programs to mutate are the .oxl files of SOURCE_ROOT's conformance/,
# tests/compiler/ and examples/ (read in name order).
#
# A program fails the test when oxl is killed by a signal (a crash), runs
# past its time limit (a hang), prints a sanitizer report (AddressSanitizer,
# LeakSanitizer, UndefinedBehaviorSanitizer), an internal compiler error or
# `out of memory`, exits with a status outside its contract (check: 0 1 2;
# build: 0 1 2, and 3 only for a link error), or fails (status 1) without a
# `file:line:col: error:` or `oxl:` line.
#
# Environment:
#   OXL_HARDEN_SEED=N      the run's seed (default: a fresh one, printed)
#   OXL_HARDEN_SECONDS=S   the time budget for starting programs (default 40)
#   OXL_HARDEN_TIMEOUT=S   one command's time limit (default 60)
#   OXL_HARDEN_CASE=I      run only program I of the seed
#   OXL_HARDEN_KEEP=DIR    where failing programs are kept (default:
#                          ./harden-failures)
# Program I of seed N is the same on every machine, so the line printed for
# a failure reproduces it exactly.
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer", "runtime error:")


def env_int(name, default, lo, hi):
    v = os.environ.get(name)
    if v is None or v == "":
        return default
    try:
        n = int(v, 10)
    except ValueError:
        sys.exit("run.py: %s='%s' is not an integer" % (name, v))
    if not lo <= n <= hi:
        sys.exit("run.py: %s=%d is out of range (%d..%d)" % (name, n, lo, hi))
    return n


def run(argv, cwd, timeout):
    """(status or None on timeout, output); status < 0 is a signal."""
    p = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        out, _ = p.communicate(timeout=timeout)
        return p.returncode, out.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)  # its linker too
        out, _ = p.communicate()
        return None, out.decode("utf-8", "replace")


def verdict(what, status, out, allowed, timeout):
    """None when the run kept the contract, else why not."""
    if status is None:
        return "%s hung (no exit in %d s)" % (what, timeout)
    if status < 0:
        return "%s was killed by signal %d" % (what, -status)
    for mark in SANITIZER_MARKS:
        if mark in out:
            return "%s printed a sanitizer report (%s)" % (what, mark)
    if "internal compiler error" in out:
        return "%s hit an internal compiler error" % what
    if "out of memory" in out:
        return "%s ran out of memory" % what
    if status == 3 and "undefined reference" in out:
        return None  # a link error: the program names a C function nobody defines
    if status not in allowed:
        return "%s exited with status %d" % (what, status)
    if status == 1:
        lines = out.splitlines()
        if not any(": error: " in l or l.startswith("oxl: ") or l.startswith("oxl test: ") for l in lines):
            return "%s failed without a diagnostic" % what
    return None


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit("usage: run.py OXL SOURCE_ROOT [--sanitized]")
    oxl, core = os.path.abspath(args[0]), os.path.abspath(args[1])
    sanitized = "--sanitized" in sys.argv
    seed = os.environ.get("OXL_HARDEN_SEED")
    if seed:
        seed = env_int("OXL_HARDEN_SEED", 0, 0, (1 << 64) - 1)
    else:
        seed = int.from_bytes(os.urandom(8), "little")
    budget = env_int("OXL_HARDEN_SECONDS", 40, 0, 1 << 30)
    timeout = env_int("OXL_HARDEN_TIMEOUT", 60, 1, 1 << 30)
    only = os.environ.get("OXL_HARDEN_CASE")
    only = env_int("OXL_HARDEN_CASE", 0, 0, 1 << 40) if only else None
    keep = os.path.abspath(os.environ.get("OXL_HARDEN_KEEP") or "harden-failures")
    if sanitized:
        os.environ.setdefault("ASAN_OPTIONS", "detect_leaks=1:abort_on_error=1")
        os.environ.setdefault("UBSAN_OPTIONS", "print_stacktrace=1:halt_on_error=1")

    corpus = []
    for top in ("conformance", os.path.join("tests", "compiler"), "examples"):
        for dirpath, dirnames, filenames in os.walk(os.path.join(core, top)):
            dirnames.sort()
            for name in sorted(filenames):
                if name.endswith(".oxl"):
                    with open(os.path.join(dirpath, name), "rb") as f:
                        corpus.append(f.read().decode("utf-8", "replace"))
    if not corpus:
        sys.exit("run.py: no .oxl programs under %s" % core)

    me = os.path.abspath(__file__)
    print("# seed %d (%s oxl: %s)" % (seed, "sanitized" if sanitized else "plain", oxl))
    print("# one program again: OXL_HARDEN_SEED=%d OXL_HARDEN_CASE=I python3 %s %s %s%s" %
          (seed, me, oxl, core, " --sanitized" if sanitized else ""))
    sys.stdout.flush()

    stats = {name: [0, 0, 0] for name, _, _ in gen.KINDS}  # programs, checked clean, built
    failures = {name: [] for name, _, _ in gen.KINDS}
    work = tempfile.mkdtemp(prefix="oxl-harden-")
    start = time.monotonic()
    index = only if only is not None else 0
    try:
        while True:
            if only is None and time.monotonic() - start >= budget and index > 0:
                break
            kind, files = gen.generate(seed, index, corpus)
            d = os.path.join(work, "p%d" % index)
            for path, data in files:
                os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
                with open(os.path.join(d, path), "wb") as f:
                    f.write(data)
            target = "main.oxl" if len(files) == 1 else "."
            has_tests = any(b"test " in data for _, data in files)
            st = stats[kind]
            st[0] += 1
            why = None
            status, out = run([oxl, "check", target], d, timeout)
            why = verdict("oxl check", status, out, (0, 1), timeout)
            if why is None and status == 0:
                st[1] += 1
                # an object, an executable or a test binary, by turns
                mode = index % 3
                if mode == 2 and has_tests:
                    argv = [oxl, "build", "--tests", target, "-o", "t.bin"]
                elif mode == 1:
                    argv = [oxl, "build", target, "-o", "a.out"]
                else:
                    argv = [oxl, "build", "-c", target, "-o", "a.o"]
                status, out = run(argv, d, timeout)
                why = verdict("oxl " + " ".join(argv[1:3]), status, out, (0, 1), timeout)
                if why is None and status == 0:
                    st[2] += 1
            if why:
                os.makedirs(keep, exist_ok=True)
                kept = os.path.join(keep, "seed%d-case%d" % (seed, index))
                shutil.rmtree(kept, ignore_errors=True)
                shutil.copytree(d, kept)
                with open(os.path.join(keep, "seed"), "w") as f:
                    f.write("%d\n" % seed)
                tail = "\n".join(out.splitlines()[-30:])
                failures[kind].append((index, why, kept, tail))
                print("# program %d (%s): %s; kept as %s" % (index, kind, why, kept))
            shutil.rmtree(d, ignore_errors=True)
            index += 1
            if only is not None:
                break
    finally:
        shutil.rmtree(work, ignore_errors=True)

    n = 0
    total = sum(s[0] for s in stats.values())
    for name, _, _ in gen.KINDS:
        n += 1
        s, fails = stats[name], failures[name]
        line = "%s: %d programs, %d checked without errors, %d built" % (name, s[0], s[1], s[2])
        if not fails:
            print("ok %d - %s" % (n, line))
            continue
        print("not ok %d - %s; %d failed" % (n, line, len(fails)))
        for index, why, kept, tail in fails:
            print("#   program %d: %s" % (index, why))
            print("#   reproduce: OXL_HARDEN_SEED=%d OXL_HARDEN_CASE=%d python3 %s %s %s%s" %
                  (seed, index, me, oxl, core, " --sanitized" if sanitized else ""))
            print("#   kept: %s" % kept)
            for l in tail.splitlines():
                print("#     " + l)
    print("1..%d" % n)
    print("# %d programs in %.0f s, seed %d" % (total, time.monotonic() - start, seed))
    return 1 if any(failures.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
