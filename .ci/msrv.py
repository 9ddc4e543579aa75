#!/usr/bin/env python3
"""rust-version in Cargo.toml must be what the dependencies really need.

No other toolchain than the machine's one can be fetched here, so CI cannot
build with the declared minimum itself. It checks the two halves instead:
this script compares `rust-version` with the highest `rust-version` declared
by a normal (non-dev) dependency in the locked graph, and clippy's
`incompatible_msrv` lint (on by default, `-D warnings` in CI) rejects any
standard-library API of our own code that is newer than `rust-version`.
"""
import json
import subprocess
import sys


def version(text):
    return tuple(int(part) for part in text.split("."))[:2] if text else (0, 0)


metadata = json.loads(subprocess.run(
    ["cargo", "metadata", "--format-version", "1", "--locked"],
    check=True, capture_output=True, text=True).stdout)
packages = {p["id"]: p for p in metadata["packages"]}
nodes = {n["id"]: n for n in metadata["resolve"]["nodes"]}
root = metadata["resolve"]["root"]

seen, stack = set(), [root]
while stack:
    node = stack.pop()
    if node in seen:
        continue
    seen.add(node)
    for dep in nodes[node]["deps"]:
        if all(kind["kind"] == "dev" for kind in dep["dep_kinds"]):
            continue
        stack.append(dep["pkg"])

declared = packages[root].get("rust_version")
needed = max((version(packages[i].get("rust_version")), packages[i]["name"])
             for i in seen if i != root)
if version(declared) != needed[0]:
    print(f"msrv: Cargo.toml says rust-version {declared}, but the dependencies need "
          f"{needed[0][0]}.{needed[0][1]} ({needed[1]}): make them agree (and the README)",
          file=sys.stderr)
    sys.exit(1)
print(f"msrv: rust-version {declared} is what the dependencies need ({needed[1]})")
