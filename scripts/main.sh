#!/usr/bin/env bash
# The main job end to end on real input: installs what is needed, builds the
# CLI, imports real agent session files into the default store (OS credential
# store: a real Secret Service, see scripts/sessiondb.sh) and lists them,
# then shows one session's context meter and exports it back to JSONL.
#
# Usage: scripts/main.sh [PATH...]
#   PATH: session files or trees, e.g. ~/.codex/sessions ~/.claude/projects
#         .thclaws/sessions. Default: those of them that exist, plus the real
#         sample files in ../shared/samples when present.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S="$ROOT/scripts/sessiondb.sh"
paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
  for p in "$HOME/.codex/sessions" "$HOME/.claude/projects" "$PWD/.thclaws/sessions" "$ROOT/../shared/samples"; do
    [ -e "$p" ] && paths+=("$p")
  done
fi
[ ${#paths[@]} -gt 0 ] || { echo "main.sh: nothing to import; pass a path (e.g. ~/.codex/sessions)" >&2; exit 2; }
echo "+ sessiondb path";             "$S" path
# import exits 7 (a file failed) or 2 (a named file is not a session file) after
# its whole report: still list what was imported, then exit with that status.
import_rc=0
echo "+ sessiondb import ${paths[*]}"; "$S" import "${paths[@]}" || import_rc=$?
echo "+ sessiondb list --all";       "$S" list --all --limit 20
id="$("$S" --json list --all --limit 1 | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r[0]["id"] if r else "")')"
if [ -n "$id" ]; then
  echo "+ sessiondb context $id";    "$S" context "$id" --window 128000 | head -5
  out="$(mktemp --suffix=.jsonl)"
  echo "+ sessiondb export $id";     "$S" export "$id" -o "$out"
  head -c 400 "$out"; echo; rm -f "$out"
fi
echo "+ sessiondb doctor";           "$S" doctor
exit "$import_rc"
