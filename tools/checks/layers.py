#!/usr/bin/env python3
"""core/'s folders are layers: a file includes headers of its own folder or of folders below it, and
no two units include each other, directly or around a loop. Prints each offending `file -> file` and
exits 1; exits 0 when the tree keeps the order.

A unit is a .c/.cu file with its header of the same name (foo.c, foo.h and foo_internal.h are one
unit), so a loop between two units shows even where each file's own includes form no cycle."""
import os
import re
import sys

# Bottom to top; each folder may include only itself and those before it.
LAYERS = ["util", "stats", "host", "timing", "config", "evidence", "process", "worker", "report",
          "scale", "bench", "app"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def unit_of(path):
    folder, name = os.path.split(path)
    base = os.path.splitext(name)[0]
    if base.endswith("_internal"):
        base = base[: -len("_internal")]
    return folder + "/" + base


def main(core):
    files = {}
    for folder in sorted(os.listdir(core)):
        d = os.path.join(core, folder)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if name.endswith((".c", ".h", ".cu", ".cuh")):
                files[folder + "/" + name] = open(os.path.join(d, name), encoding="utf-8").read()
    problems = []
    for f in files:
        if f.split("/")[0] not in LAYERS:
            problems.append(f"{f}: folder '{f.split('/')[0]}' is in no layer (tools/checks/layers.py)")
    rank = {l: i for i, l in enumerate(LAYERS)}
    edges = {}  # unit -> {unit: (file, header)}
    for f, text in files.items():
        for inc in INCLUDE.findall(text):
            if inc not in files:
                if "/" not in inc and os.path.splitext(inc)[0] not in ("version",):
                    # a bare name that is a core header elsewhere would bypass the layer's folder
                    for g in files:
                        if g.endswith("/" + inc):
                            problems.append(f"{f} -> {g}: include it as \"{g}\"")
                continue
            a, b = f.split("/")[0], inc.split("/")[0]
            if a in rank and b in rank and rank[b] > rank[a]:
                problems.append(f"{f} -> {inc}: {a}/ may not include {b}/ (above it)")
            ua, ub = unit_of(f), unit_of(inc)
            if ua != ub:
                edges.setdefault(ua, {}).setdefault(ub, (f, inc))
    # loops between units: Tarjan's strongly connected components
    index, low, stack, on, sccs, n = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, {}):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(set(edges) | {w for e in edges.values() for w in e}):
        if v not in index:
            strong(v)
    for comp in sccs:
        inside = set(comp)
        links = [f"{f} -> {h}" for u in comp for w, (f, h) in sorted(edges.get(u, {}).items()) if w in inside]
        problems.append("include loop: " + "; ".join(links))
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} layer problem(s) in {core}")
        return 1
    print(f"core/ keeps its layers: {len(files)} files in {len(LAYERS)} layers, no loop")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../../core")))
