#!/usr/bin/env python3
"""The import graph of src/: which module uses which (`use crate::a::b`,
`crate::a::b::` paths, `super::` resolved), outside `#[cfg(test)]` items, and
its circles (strongly connected components), at two levels: top-level
modules (`load`, `model`, …) and files (`input/json`, `model/list`, …).

    python3 .ci/import_graph.py          prints the circles; exit 1 if any
"""
import os
import re
import sys

SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")


def strip_tests(code):
    out, rest = [], code
    while True:
        at = rest.find("#[cfg(test)]")
        if at < 0:
            out.append(rest)
            break
        out.append(rest[:at])
        after = rest[at:]
        # An attribute on a `use` or a one-line item ends at its `;`.
        semi, brace = after.find(";"), after.find("{")
        if semi >= 0 and (brace < 0 or semi < brace):
            rest = after[semi + 1:]
            continue
        depth, end, i, in_str = 0, len(after), brace, False
        while i < len(after):
            c = after[i]
            if c == "\\" and in_str:
                i += 2
                continue
            if c == '"':
                in_str = not in_str
            elif not in_str and c == "{":
                depth += 1
            elif not in_str and c == "}":
                depth -= 1
                if depth == 0:
                    end = i + 1
                    break
            i += 1
        rest = after[end:]
    return "".join(out)


def modules():
    mods = {}
    for top, _, files in os.walk(SRC):
        for f in files:
            if not f.endswith(".rs"):
                continue
            rel = os.path.relpath(os.path.join(top, f), SRC)[:-3]
            name = rel[:-4] if rel.endswith("/mod") else rel
            if name in ("lib", "main"):
                continue
            mods[name] = os.path.join(top, f)
    return mods


def refs(name, code, mods):
    """Module paths this module's code names."""
    found = set()
    # Expand `use crate::a::{b, c::d}` one level of braces.
    for m in re.finditer(r"\b(crate|super)((?:::\w+)+)(?:::\{([^}]*)\})?", code):
        base, path, group = m.group(1), m.group(2), m.group(3)
        parts = path.strip(":").split("::")
        if base == "super":
            here = name.split("/")
            # super from a file `a/b` is `a`; from `a/b` as mod.rs also `a`.
            parts = here[:-1] + parts
            # Repeated `super::super` is written as parts "super".
            while "super" in parts:
                k = parts.index("super")
                parts = parts[: max(k - 1, 0)] + parts[k + 1:]
        tails = [p.strip().split("::")[0] for p in group.split(",")] if group else [None]
        for tail in tails:
            full = parts + ([tail] if tail else [])
            # The longest prefix that is a module.
            for n in range(len(full), 0, -1):
                cand = "/".join(full[:n])
                if cand in mods:
                    found.add(cand)
                    break
    found.discard(name)
    return found


def sccs(graph):
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
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
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_only(mods):
    """Modules declared `#[cfg(test)] mod x;`: not part of the build."""
    out = set()
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            code = f.read()
        for m in re.finditer(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+(\w+)\s*;", code):
            out.add(f"{name}/{m.group(1)}")
    return out


def main():
    mods = modules()
    for gone in test_only(mods):
        mods.pop(gone, None)
    files = {}
    for name, path in mods.items():
        with open(path, encoding="utf-8") as f:
            files[name] = refs(name, strip_tests(f.read()), mods)
    # A module's parent (`a` of `a/b`) is not an import of it.
    file_graph = {n: {r for r in rs if not n.startswith(r + "/")} for n, rs in files.items()}
    top = {}
    for n, rs in file_graph.items():
        t = n.split("/")[0]
        top.setdefault(t, set()).update(r.split("/")[0] for r in rs if r.split("/")[0] != t)
    circles = 0
    print("top-level circles:")
    for c in sccs(top):
        circles += 1
        print("  " + " <-> ".join(c))
        for a in c:
            for b in sorted(top[a] & set(c)):
                users = sorted(n for n in file_graph if n.split("/")[0] == a and any(r.split("/")[0] == b for r in file_graph[n]))
                print(f"      {a} -> {b}: {', '.join(users)}")
    print("circles inside a folder:")
    for c in sccs(file_graph):
        if len({m.split('/')[0] for m in c}) == 1:
            circles += 1
            print("  " + " <-> ".join(c))
    print(f"{circles} circles")
    return 1 if circles else 0


if __name__ == "__main__":
    sys.exit(main())
