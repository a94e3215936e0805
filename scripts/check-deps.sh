#!/usr/bin/env bash
# Dependency hygiene (issue 31 item 5), from `cargo metadata` alone (no
# download, no other tool):
#  1. No crate that a workspace member depends on directly appears in two
#     versions in the resolved tree (`cargo tree -d` for Linux), unless it is
#     listed in ALLOWED_DUPLICATES below with the chain that pins the other
#     version and no upgrade exists yet.
#  2. Every package in the tree has a licence expression whose every
#     licence is in ALLOWED_LICENSES (permissive ones; `OR` needs one, `AND`
#     needs all), or is one of our own crates.
# Usage: scripts/check-deps.sh   (scripts/test-all.sh calls it)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo metadata --format-version 1 --locked --filter-platform x86_64-unknown-linux-gnu > "${TMPDIR:-/tmp}/sessiondb-metadata.json"
python3 - "${TMPDIR:-/tmp}/sessiondb-metadata.json" <<'EOF'
import json, re, sys
from collections import defaultdict

# name -> why a second version is still in the tree (the exact chain).
ALLOWED_DUPLICATES = {
    # tantivy-columnar 0.27.0 (the newest, via tantivy 0.27.0) depends on rand 0.9;
    # uuid and postgres-protocol use rand 0.10, the version we use.
    "rand": "tantivy 0.27.0 -> tantivy-columnar 0.27.0 -> rand 0.9",
    # The bridge generator (sessiondb-bridge) parses with syn 2 (as
    # prettyplease and most proc macros in the tree do); uniffi 0.32.2 ->
    # uniffi_bindgen -> askama 0.16 -> askama_derive brings syn 3.
    "syn": "uniffi 0.32.2 -> uniffi_bindgen 0.32.2 -> askama 0.16.1 -> askama_derive 0.16.1 -> syn 3",
}
ALLOWED_LICENSES = {
    "MIT", "Apache-2.0", "Apache-2.0 WITH LLVM-exception", "BSD-2-Clause", "BSD-3-Clause", "ISC",
    "Zlib", "Unicode-3.0", "Unicode-DFS-2016", "CC0-1.0", "0BSD", "MPL-2.0", "BSL-1.0", "Unlicense", "CDLA-Permissive-2.0",
}

meta = json.load(open(sys.argv[1]))
pkgs = {p["id"]: p for p in meta["packages"]}
members = set(meta["workspace_members"])
nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
versions = defaultdict(set)
for n in nodes.values():
    p = pkgs[n["id"]]
    versions[p["name"]].add(p["version"])

direct = defaultdict(set)  # crate name -> members that depend on it directly
for m in members:
    for d in nodes[m]["deps"]:
        direct[pkgs[d["pkg"]]["name"]].add(pkgs[m]["name"])

bad = []
for name, vs in sorted(versions.items()):
    if len(vs) > 1 and name in direct:
        if name in ALLOWED_DUPLICATES:
            print(f"duplicate allowed: {name} {sorted(vs)} ({ALLOWED_DUPLICATES[name]})")
        else:
            bad.append(f"{name} {sorted(vs)} (a direct dependency of {', '.join(sorted(direct[name]))})")
for name in ALLOWED_DUPLICATES:
    if len(versions.get(name, ())) < 2:
        bad.append(f"{name} is in ALLOWED_DUPLICATES but no longer duplicated: remove it")

def ok_license(expr):
    expr = expr.replace("/", " OR ")
    alts = [a.strip(" ()") for a in re.split(r"\bOR\b", expr)]
    return any(all(x.strip(" ()") in ALLOWED_LICENSES for x in re.split(r"\bAND\b", a)) for a in alts)

for n in nodes.values():
    p = pkgs[n["id"]]
    if n["id"] in members:
        continue
    lic = p.get("license")
    if not lic:
        bad.append(f"{p['name']} {p['version']}: no licence expression (license_file: {p.get('license_file')})")
    elif not ok_license(lic):
        bad.append(f"{p['name']} {p['version']}: licence {lic!r} is not in the allowed list")

dups = sum(1 for vs in versions.values() if len(vs) > 1)
print(f"{len(nodes)} packages, {dups} crates in more than one version, {len(direct)} direct dependencies")
if bad:
    print("dependency check failed:")
    for b in bad:
        print("  " + b)
    sys.exit(1)
print("dependency check passed: no duplicated direct dependency, every licence allowed")
EOF
