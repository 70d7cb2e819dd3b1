#!/usr/bin/env python3
"""Two builds of `acc-hook` side by side: CPU and page faults of whole processes
(docs/PERFORMANCE.md, "The hot code laid out, eleventh round").

Each round runs, for each build in turn (the order alternating round by round), its
`acc-hook --version` (the floor) and then the allow, the deny and the readable shell call;
each process is one `wait4`, its user + system CPU and minor page faults (`ru_minflt`)
its own. Each build runs on its own copy of the hook bench's
store, warmed by itself (a `SessionStart`, a turn, an allow). Prints the medians per build
and call, and the median of each call's CPU over its build's floor of the same round.

    compare.py --hook-bench-dir DIR --rounds N BIN_A BIN_B

Give the two binaries paths of the same length and depth (the self-guard's look-ups and
std's parse of `/proc/self/maps` cost by the path), each beside the same other programs.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import tempfile

CALLS = [("allow", "allow.json"), ("deny", "deny.json"), ("reads", "reads.json")]


def run(cmd, env, body):
    """One process: (CPU seconds, minor faults)."""
    p = subprocess.Popen(
        cmd,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    p.stdin.write(body)
    p.stdin.close()
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        raise SystemExit(f"{cmd} exited {p.returncode}")
    return ru.ru_utime + ru.ru_stime, ru.ru_minflt


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hook-bench-dir", required=True)
    ap.add_argument("--rounds", type=int, default=100)
    ap.add_argument("binaries", nargs=2)
    args = ap.parse_args()
    payloads = os.path.join(args.hook_bench_dir, "payloads")
    body = {}
    for name, file in CALLS + [("start", "start.json"), ("turn", "turn.json")]:
        with open(os.path.join(payloads, file), "rb") as f:
            body[name] = f.read()
    work = tempfile.mkdtemp(prefix="hook-compare-")
    envs = []
    for i, binary in enumerate(args.binaries):
        data = os.path.join(work, f"data{i}")
        shutil.copytree(os.path.join(args.hook_bench_dir, "data-template"), data, symlinks=True)
        env = {"ACC_DATA_HOME": data}
        for event, b in (
            ("SessionStart", "start"),
            ("UserPromptSubmit", "turn"),
            ("PreToolUse", "allow"),
        ):
            run([binary, "claude-code", event], env, body[b])
        envs.append(env)
    rows = {(b, c): [] for b in range(2) for c in ["floor"] + [n for n, _ in CALLS]}
    ratios = {(b, c): [] for b in range(2) for c, _ in CALLS}
    for r in range(args.rounds):
        for b in (0, 1) if r % 2 == 0 else (1, 0):
            binary, env = args.binaries[b], envs[b]
            floor = run([binary, "--version"], {}, b"")
            rows[(b, "floor")].append(floor)
            for name, _ in CALLS:
                got = run([binary, "claude-code", "PreToolUse"], env, body[name])
                rows[(b, name)].append(got)
                ratios[(b, name)].append(got[0] / max(floor[0], 1e-6))
    shutil.rmtree(work, ignore_errors=True)
    load = open("/proc/loadavg").read().split()[:3]
    print(f"{args.rounds} rounds, load after {' '.join(load)}")
    print("| call | " + " | ".join(os.path.dirname(b) for b in args.binaries) + " |")
    for c in ["floor"] + [n for n, _ in CALLS]:
        cells = []
        for b in range(2):
            cpu = statistics.median(x[0] for x in rows[(b, c)]) * 1e3
            flt = statistics.median(x[1] for x in rows[(b, c)])
            ratio = "" if c == "floor" else f", {statistics.median(ratios[(b, c)]):.2f}x"
            cells.append(f"{cpu:.2f} ms, {flt:g} faults{ratio}")
        print(f"| {c} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
