#!/usr/bin/env python3
"""sass-census.py: where a kernel's executed instructions go, per opcode, per
called function and per basic block, from two files made on the GPU machine:

  ncu --section InstructionStats --print-details all \\
      --print-metric-instances details -k regex:KERNEL -c 1 BINARY ARGS > ncu.txt
  cuobjdump -sass BINARY > dump.sass

  scripts/sass-census.py --ncu ncu.txt --sass dump.sass --function 'ba_level_kernel.*Lb1E'

(scripts/gpu-census.sh makes both files, and the pipe metrics, in one run.)
With several kernels profiled (-c N), --instance K takes the K-th (from 0);
--modifiers counts opcodes with their modifiers (IMAD.MOV.U32 apart from
IMAD.WIDE.U32); --per N also prints each count divided by N (say, by the
kernel's field products).

ncu's "Instructions Executed" metric, printed per instance, gives the warp
instructions executed at every PC of the profiled kernel; cuobjdump's listing
gives the instruction at every offset of the kernel's section, which also holds
the out-of-line functions it calls (their CALL.REL targets split the section).
Joined, they are a dynamic census of the kernel (doc/gpu.md, "Floors").
"""
import argparse
import gzip
import collections
import re
import signal
import sys

PC = re.compile(r"(0x[0-9a-f]+): ([0-9,]+)")
INS = re.compile(r"\s+/\*([0-9a-f]{4,6})\*/\s+(.*?)\s*;")
CALL = re.compile(r"CALL\.REL(?:\.NOINC)?\s+(0x[0-9a-f]+)")


# the line ncu prints before each profiled kernel's sections
KERNEL = re.compile(r"^  \S.*\(\d+, \d+, \d+\)x\(\d+, \d+, \d+\), Context", re.M)


def executed_per_pc(path, instance=0):
    """{offset from the kernel's first PC: warp instructions} of the
    'Instructions Executed' block of the instance-th kernel of an ncu
    details print."""
    text = open(path, errors="replace").read()
    heads = [m.start() for m in KERNEL.finditer(text)] or [0]
    if instance >= len(heads):
        sys.exit(f"{path}: {len(heads)} profiled kernels, no instance {instance}")
    text = text[heads[instance]:heads[instance + 1] if instance + 1 < len(heads) else len(text)]
    at = text.find("Instructions Executed")
    if at < 0:
        sys.exit(f"{path}: no 'Instructions Executed' block (need --print-metric-instances details)")
    end = text.find("Avg. Executed Instructions", at)
    pcs = [(int(a, 16), int(b.replace(",", ""))) for a, b in PC.findall(text[at:end])]
    if not pcs:
        sys.exit(f"{path}: the 'Instructions Executed' block lists no PCs")
    base = min(p for p, _ in pcs)
    return {p - base: c for p, c in pcs}


def read_text(path):
    """A file's text; gzip'd when its name ends in .gz (gpu-census.sh
    compresses the SASS, which is large for a binary with the MSM's kernels)."""
    if path.endswith(".gz"):
        with gzip.open(path, "rt", errors="replace") as f:
            return f.read()
    return open(path, errors="replace").read()


def section(path, pattern):
    """[(offset, instruction text)] of the one function whose name matches."""
    lines = read_text(path).split("\n")
    heads = [i for i, l in enumerate(lines) if "Function :" in l]
    found = [(a, b) for a, b in zip(heads, heads[1:] + [len(lines)])
             if re.search(pattern, lines[a].split()[-1])]
    if len(found) != 1:
        names = [lines[a].split()[-1] for a, _ in found]
        sys.exit(f"{path}: {len(found)} functions match {pattern!r}: {names[:8]}")
    a, b = found[0]
    out = []
    for l in lines[a:b]:
        m = INS.match(l)
        if m:
            out.append((int(m.group(1), 16), m.group(2)))
    return lines[a].split()[-1], out


def padding(offset, text):
    """Is this the tail ptxas pads a function with (ncu lists no PC for it)?"""
    if text == "NOP":
        return True
    m = re.fullmatch(r"BRA (0x[0-9a-f]+)", text)
    return bool(m) and int(m.group(1), 16) == offset


def opcode(text, modifiers=False):
    t = re.sub(r"^@!?U?P\w+\s+", "", text)  # a predicate guard
    op = t.split()[0]
    return op if modifiers else op.split(".")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ncu", required=True)
    ap.add_argument("--sass", required=True)
    ap.add_argument("--function", required=True, help="regex naming the kernel in the SASS dump")
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--instance", type=int, default=0, help="the K-th profiled kernel (from 0)")
    ap.add_argument("--modifiers", action="store_true", help="opcodes with their modifiers")
    ap.add_argument("--per", type=float, default=0, help="also print the counts divided by this")
    args = ap.parse_args()
    if args.instance < 0:
        ap.error("--instance counts from 0")
    cnt = executed_per_pc(args.ncu, args.instance)
    name, ins = section(args.sass, args.function)
    total = sum(cnt.get(o, 0) for o, _ in ins)
    # ncu lists every PC of the profiled kernel, zero counts included, but
    # the padding after its last instruction (a BRA to itself, NOPs): for the
    # same kernel the listed PCs are the section's offsets less that padding
    offsets = {o for o, _ in ins}
    stray = sorted(p for p in cnt if p not in offsets)
    unlisted = [(o, t) for o, t in ins if o not in cnt and not padding(o, t)]
    if total == 0 or stray or unlisted:
        what = (f"PC {stray[0]:#x} is not in it" if stray else
                f"no count for {unlisted[0][1]!r} at {unlisted[0][0]:#x}" if unlisted else
                "nothing executed on it")
        sys.exit(f"ncu's PCs do not match the section of {name} ({what}): another kernel"
                 " was profiled, or another --instance is meant?")
    starts = sorted({int(m.group(1), 16) for _, t in ins for m in [CALL.search(t)] if m})

    def region(o):
        r = "kernel"
        for s in starts:
            if o >= s:
                r = f"callee@{s:#x}"
        return r

    regions = collections.Counter()
    region_ops = collections.defaultdict(collections.Counter)
    ops = collections.Counter()
    calls = collections.Counter()
    for o, t in ins:
        c = cnt.get(o, 0)
        r = region(o)
        regions[r] += c
        region_ops[r][opcode(t)] += c
        ops[opcode(t, args.modifiers)] += c
        m = CALL.search(t)
        if m:
            calls[f"callee@{int(m.group(1), 16):#x}"] += c
    unit = (lambda c: f" {c / args.per:9.1f}/unit") if args.per else (lambda c: "")
    print(f"{name}\n{total:,} warp instructions executed, {len(ins)} in the section{unit(total)}")
    print("\nby opcode:")
    for op, c in ops.most_common(args.top):
        print(f"  {op:16s} {c:16,d} {100 * c / total:5.1f}%{unit(c)}")
    print("\nby region (the kernel's own code, then each called function):")
    for r, c in sorted(regions.items(), key=lambda x: -x[1]):
        per = f", {c / calls[r]:.0f} per call ({calls[r]:,} calls)" if calls[r] else ""
        mix = ", ".join(f"{o} {n / c * 100:.0f}%" for o, n in region_ops[r].most_common(5)) if c else ""
        print(f"  {r:16s} {c:16,d} {100 * c / total:5.1f}%{per}\n      {mix}")
    # basic blocks of the kernel's own code: runs of consecutive equal counts
    blocks, cur = [], None
    for o, t in ins:
        if region(o) != "kernel":
            break
        c = cnt.get(o, 0)
        if cur and cur[2] == c:
            cur[1], cur[3] = o, cur[3] + 1
        else:
            if cur:
                blocks.append(cur)
            cur = [o, o, c, 1]
    if cur:
        blocks.append(cur)
    own = regions["kernel"] or 1
    print(f"\nhottest blocks of the kernel's own code ({own:,} warp instructions):")
    for a, b, c, n in sorted(blocks, key=lambda x: -x[2] * x[3])[: args.top]:
        if c:
            print(f"  {a:#07x}-{b:#07x} {n:4d} instructions x {c:12,d} = {100 * c * n / own:5.1f}%")


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet under | head
    main()
