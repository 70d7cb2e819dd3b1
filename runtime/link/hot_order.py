#!/usr/bin/env python3
"""The hot code's order for the release `acc-hook` and `acc` (docs/PERFORMANCE.md, "The hot
code laid out, eleventh round").

`generate` runs the processes the benches measure under Valgrind's lackey, each superblock
traced in the order it runs, maps each to the function of the binary holding it (`nm`), and
writes the functions' mangled names in the order first run: `acc-hook --version`, the
allow, the deny, the readable shell call, the allow with the heartbeat due (its forked
writer traced too), the turn with bodies withheld and delivered; for `acc`, `acc --version`
and a granted and a refused claim. `build.rs` hands each list to LLD as
`--symbol-ordering-file`, so those functions lie next to each other and a call touches few
code pages.

`check` says how many listed names each binary still defines: the names carry legacy
mangling's hashes, which move with a dependency, the compiler or the profile, and a name
the binary no longer has is silently not placed.

    hot_order.py generate --acc-hook BIN... --acc BIN... --hook-bench-dir DIR --claim-dir DIR
    hot_order.py check --acc-hook BIN... --acc BIN...

Give `generate` both builds of each program, `cargo build --release`'s and the one
`cargo bench` links (`release/deps/<program>-<hash>` after the bench is built): the
bench's dev-dependencies turn on features that change the crates' hashes, so the two spell
acc's own functions differently, and the list holds both spellings.

`--hook-bench-dir` is the `ACC_BENCH_DIR` that `hook_bench` left with
`ACC_BENCH_POPULATE_ONLY=1` (its small population); `--claim-dir` the one
`claim_race_bench` left with `ACC_BENCH_RUNS=1` (any racers and rounds; with more runs it
keeps `run-<n>/` under it, and any one of those serves). Neither is changed: every process runs on
a copy. Needs valgrind, nm and readelf.
"""

import argparse
import bisect
import glob
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
LISTS = {"acc-hook": "acc-hook.order", "acc": "acc.order"}


def text_symbols(binary):
    """(address, size, name) of every function the binary defines, by address."""
    out = subprocess.run(
        ["nm", "--defined-only", "-S", "-n", binary],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in "tTwW":
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
        elif len(parts) == 3 and parts[1] in "tTwW":
            # No size (assembly such as the C runtime's `frame_dummy`): up to the next.
            syms.append((int(parts[0], 16), 0, parts[2]))
    # One name an address (the sized one of aliases), each spanning to the next if unsized.
    syms.sort(key=lambda s: (s[0], -s[1]))
    syms = [s for i, s in enumerate(syms) if i == 0 or s[0] != syms[i - 1][0]]
    for i, (addr, size, name) in enumerate(syms):
        if size == 0 and i + 1 < len(syms):
            syms[i] = (addr, syms[i + 1][0] - addr, name)
    return syms


def elf_layout(binary):
    """The entry point and the `.text` section's bounds (link-time addresses)."""
    header = subprocess.run(
        ["readelf", "-hSW", binary], check=True, capture_output=True, text=True
    ).stdout
    entry = text = None
    for line in header.splitlines():
        if "Entry point address:" in line:
            entry = int(line.split(":")[1], 16)
        fields = line.replace("[ ", "[").split()
        if len(fields) > 5 and fields[1] == ".text":
            text = (int(fields[3], 16), int(fields[3], 16) + int(fields[5], 16))
    return entry, text


def trace(cmd, env, stdin, log):
    """Runs `cmd` under lackey; returns the superblocks' addresses in the order run (a
    forked child's after its parent's)."""
    subprocess.run(
        [
            "valgrind",
            "--tool=lackey",
            "--basic-counts=no",
            "--trace-superblocks=yes",
            # A block that jumps on into another function would otherwise be traced as one,
            # and a function entered only that way never named.
            "--vex-guest-chase=no",
            # One log a process: a forked child (the heartbeat's writer) has its own.
            f"--log-file={log}.%p",
        ]
        + cmd,
        env=env,
        input=stdin,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=False,
    )
    blocks = []
    # The parent first: its pid is the lowest.
    for path in sorted(glob.glob(log + ".*"), key=lambda p: int(p.rsplit(".", 1)[1])):
        with open(path) as f:
            blocks += [int(line[3:], 16) for line in f if line.startswith("SB ")]
    return blocks


def functions_in_order(binary, traces):
    """The binary's functions the traces ran, each named once, in the order first run."""
    entry, (lo, hi) = elf_layout(binary)
    syms = text_symbols(binary)
    starts = [s[0] for s in syms]
    seen, order = set(), []
    for blocks in traces:
        # Where Valgrind loaded the position-independent binary: of the page-aligned bases
        # at which its entry point ran, the one at which the most blocks begin a function
        # (every call does; at a wrong base, as the loader's code can give, few do).
        ran = set(blocks)
        entries = set(starts)
        candidates = {a - entry for a in ran if (a - entry) % 4096 == 0 and a >= entry}
        base = max(
            candidates,
            key=lambda b: sum(1 for a in ran if a - b in entries),
            default=None,
        )
        if base is None:
            sys.exit(f"{binary}: its entry point never ran in a trace")
        for a in blocks:
            off = a - base
            if not lo <= off < hi:
                continue
            i = bisect.bisect_right(starts, off) - 1
            if i < 0 or off >= syms[i][0] + max(syms[i][1], 1):
                continue
            name = syms[i][2]
            if name not in seen:
                seen.add(name)
                order.append(name)
    return order


def restore(template, data):
    shutil.rmtree(data, ignore_errors=True)
    shutil.copytree(template, data, symlinks=True)


def hook_traces(hook, bench_dir, work):
    payloads = os.path.join(bench_dir, "payloads")
    data = os.path.join(work, "data")
    env = {"ACC_DATA_HOME": data, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def payload(name):
        with open(os.path.join(payloads, name), "rb") as f:
            return f.read()

    def run(event, body, extra=None):
        return subprocess.run(
            [hook, "claude-code", event],
            env={**env, **(extra or {})},
            input=body,
            capture_output=True,
            check=True,
        ).stdout

    def warm():
        # As docs/PERFORMANCE.md's "Profiling one process": a snapshot published, no
        # heartbeat due.
        restore(os.path.join(bench_dir, "data-template"), data)
        run("SessionStart", payload("start.json"))
        run("UserPromptSubmit", payload("turn.json"))
        run("PreToolUse", payload("allow.json"))

    def lk(name, cmd, body=b"", extra=None):
        return trace(cmd, {**env, **(extra or {})}, body, os.path.join(work, name + ".lk"))

    warm()
    # The bench's claims lapse 30 minutes after it populated the store: a deny that allows
    # would list the allow's code twice and the deny's never.
    if b'"deny"' not in run("PreToolUse", payload("deny.json")):
        sys.exit(f"{bench_dir}: the deny is not denied (claims lapsed?): populate it again")
    traces = [lk("floor", [hook, "--version"])]
    for name in ("allow", "deny", "reads"):
        # Warmed just before: a call traced 30 s after the last heartbeat (Valgrind is slow)
        # would be the heartbeat-due one, and the list would depend on the clock.
        warm()
        traces.append(lk(name, [hook, "claude-code", "PreToolUse"], payload(name + ".json")))
    warm()
    for marker in glob.glob(os.path.join(data, "acc", "heartbeats", "*")):
        os.remove(marker)
    traces.append(lk("due", [hook, "claude-code", "PreToolUse"], payload("allow.json")))
    warm()
    traces.append(lk("turn", [hook, "claude-code", "UserPromptSubmit"], payload("turn.json")))
    warm()
    traces.append(
        lk(
            "delivered",
            [hook, "claude-code", "UserPromptSubmit"],
            payload("turn.json"),
            {"ACC_CERTIFY_CANDIDATES": "delivery.nextTurn"},
        )
    )
    return traces


def acc_traces(acc, claim_dir, work):
    data = os.path.join(work, "claim-data")
    restore(os.path.join(claim_dir, "data"), data)
    (db,) = glob.glob(os.path.join(data, "acc", "workspaces", "*", "acc.db"))
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        owners = list(
            c.execute(
                "SELECT session_id, generation FROM sessions WHERE state = 'open' "
                "ORDER BY participant_id LIMIT 2"
            )
        )
    if len(owners) < 2:
        sys.exit(f"{claim_dir}: fewer than two open sessions to race")
    env = {"ACC_DATA_HOME": data, "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    ws = ["--cwd", os.path.join(claim_dir, "project")]
    claim = [acc] + ws + ["claim", "--resource", "file:race/hot-order.rs"]
    # The racers' sessions lapse: a claim that fails for that would list an error's code.
    for (session, generation), code in zip(owners, (0, 5)):
        owner = {**env, "ACC_SESSION": session, "ACC_GENERATION": generation}
        got = subprocess.run(claim, env=owner, capture_output=True).returncode
        if got != code:
            sys.exit(f"{claim_dir}: a claim exited {got}, not {code}: race the bench again")
    restore(os.path.join(claim_dir, "data"), data)
    traces = [trace([acc, "--version"], env, b"", os.path.join(work, "acc-floor.lk"))]
    for i, (session, generation) in enumerate(owners):
        owner = {**env, "ACC_SESSION": session, "ACC_GENERATION": generation}
        traces.append(trace(claim, owner, b"", os.path.join(work, f"claim-{i}.lk")))
    return traces


def merged(orders):
    """One list from the orders of several builds of the same code (`cargo build` and the
    build `cargo bench` makes, whose dev-dependencies' features give other hashes): each
    build finds its own names in its own order, and a name they share is listed once."""
    seen, out = set(), []
    for i in range(max(map(len, orders))):
        for order in orders:
            if i < len(order) and order[i] not in seen:
                seen.add(order[i])
                out.append(order[i])
    return out


def generate(args):
    with tempfile.TemporaryDirectory(prefix="hot-order-") as work:
        lists = {
            "acc-hook": merged(
                [
                    functions_in_order(b, hook_traces(b, args.hook_bench_dir, work))
                    for b in args.acc_hook
                ]
            ),
            "acc": merged(
                [functions_in_order(b, acc_traces(b, args.claim_dir, work)) for b in args.acc]
            ),
        }
    for program, names in lists.items():
        path = os.path.join(args.out, LISTS[program])
        with open(path, "w") as f:
            f.write("".join(n + "\n" for n in names))
        print(f"{path}: {len(names)} functions")


def stem(name):
    """A function's name without what moves with the build: legacy mangling's hash, v0
    mangling's crate disambiguators, LLVM's suffix for a promoted local."""
    name = re.sub(r"\.llvm\.\d+$", "", name)
    name = re.sub(r"17h[0-9a-f]{16}E$", "E", name)
    return re.sub(r"Cs[0-9A-Za-z]+_", "Cs_", name)


def check(args):
    """Per build: of the listed functions it defines by another spelling or its own, how
    many the list spells as it does (the rest are not placed: their hash moved), and
    whether those lie in the list's order at the start of its code."""
    stale = False
    for program, binaries in (("acc-hook", args.acc_hook), ("acc", args.acc)):
        with open(os.path.join(args.out, LISTS[program])) as f:
            listed = [line.strip() for line in f if line.strip()]
        for binary in binaries or []:
            syms = text_symbols(binary)
            at = {s[2]: s[0] for s in syms}
            stems = {stem(s[2]) for s in syms}
            hot = {stem(n) for n in listed} & stems
            placed = [at[n] for n in listed if n in at]
            spelled = {stem(n) for n in listed if n in at}
            # Functions that share a section (the C runtime's) keep their own order.
            rising = sum(1 for a, b in zip(placed, placed[1:]) if a <= b)
            laid_out = rising >= 0.95 * (len(placed) - 1) and placed[:1] == [syms[0][0]]
            print(
                f"{program}: {len(spelled)} of the {len(hot)} listed functions {binary} "
                f"defines are spelled as it spells them; "
                + ("laid out in the list's order" if laid_out else "NOT laid out in the list's order")
            )
            stale |= len(spelled) < 0.5 * len(hot)
    if stale:
        print("stale: regenerate the lists (runtime/link/README.md)")
        sys.exit(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("command", choices=["generate", "check"])
    p.add_argument("--acc-hook", nargs="+", help="one or more builds")
    p.add_argument("--acc", nargs="+", help="one or more builds")
    p.add_argument("--hook-bench-dir")
    p.add_argument("--claim-dir")
    p.add_argument("--out", default=HERE, help="the lists' folder (this one)")
    args = p.parse_args()
    if args.command == "generate":
        if None in (args.acc_hook, args.acc, args.hook_bench_dir, args.claim_dir):
            p.error("generate needs --acc-hook, --acc, --hook-bench-dir and --claim-dir")
        generate(args)
    else:
        check(args)


if __name__ == "__main__":
    main()
