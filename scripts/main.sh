#!/usr/bin/env bash
# The main job end to end on real input: installs what is needed, builds the
# CLI, imports real agent session files into the default store (the OS
# keyring, or a key file on a headless machine: scripts/sessiondb.sh) and lists
# them, then shows one session's context meter and exports it back to JSONL.
#
# Usage: scripts/main.sh [PATH...]
#   PATH: session files or trees, e.g. ~/.codex/sessions ~/.claude/projects
#         .thclaws/sessions. Default: `sessiondb import --auto` (every agent's
#         standard location), plus the real sample files in ../shared/samples
#         when present. When there is none (a bare machine), a short demo runs
#         in a temporary demo database (create, append, meter, compact,
#         export) and says how to import.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S="$ROOT/scripts/sessiondb.sh"
paths=("$@")
if [ ${#paths[@]} -eq 0 ]; then
  for p in "$HOME/.codex/sessions" "$HOME/.claude/projects" "$PWD/.thclaws/sessions" "$ROOT/../shared/samples"; do
    # Only a place that holds a session file (an empty ~/.claude/projects is no history).
    [ -e "$p" ] && [ -n "$(find "$p" \( -name '*.jsonl' -o -name '*.json' \) -print -quit 2>/dev/null)" ] && paths+=("$p")
  done
fi
if [ ${#paths[@]} -eq 0 ]; then
  # A bare machine (no agent history, no ../shared): a short demo in a demo
  # database of its own (a temporary directory, a key file instead of the OS
  # keyring), then how to import the user's own files.
  demo="$(mktemp -d "${TMPDIR:-/tmp}/sessiondb-demo.XXXXXX")"
  trap 'rm -rf "$demo"' EXIT
  head -c 32 /dev/urandom | base64 > "$demo/key"; chmod 600 "$demo/key"
  D=("$S" --db "$demo/sessions.db" --key-file "$demo/key")
  echo "main.sh: no agent sessions found (~/.codex/sessions, ~/.claude/projects, .thclaws/sessions): a demo in $demo"
  echo "+ sessiondb new --name 'demo: fix the parser' --model gpt-4o"
  id="$("${D[@]}" new --name 'demo: fix the parser' --model gpt-4o --unbound)"; echo "$id"
  for i in $(seq 12); do
    if [ $((i % 2)) = 1 ]; then role=user; text="Question $i: why does the lexer drop the last token when the input ends without a newline?"
    else role=assistant; text="Answer $i: the scanner stops at EOF before flushing the pending token; flush it in the EOF branch."; fi
    "${D[@]}" append "$id" --role "$role" "$(for _ in $(seq 12); do printf '%s ' "$text"; done)" >/dev/null
  done
  echo "+ sessiondb append (12 turns)"
  echo "+ sessiondb context $id --window 5000"; "${D[@]}" context "$id" --window 5000 | head -1
  echo "+ sessiondb compact $id --window 5000"; "${D[@]}" compact "$id" --window 5000 | head -1
  echo "+ sessiondb context $id --window 5000"; "${D[@]}" context "$id" --window 5000 | head -1
  echo "+ sessiondb export $id -o $demo/demo.jsonl"; "${D[@]}" export "$id" -o "$demo/demo.jsonl"
  head -c 300 "$demo/demo.jsonl"; echo
  echo
  echo "Import your own agent sessions into the default store (OS keyring) with:"
  echo "  scripts/main.sh ~/.codex/sessions ~/.claude/projects .thclaws/sessions   # or any session files"
  exit 0
fi
echo "+ sessiondb path";             "$S" path
# import exits 7 (a file failed) or 2 (a named file is not a session file) after
# its whole report: still list what was imported, then exit with that status.
import_rc=0
if [ $# -eq 0 ]; then
  # No paths named: every agent's standard location (the core's list), then the samples.
  echo "+ sessiondb import --auto"; "$S" import --auto || import_rc=$?
  if [ -d "$ROOT/../shared/samples" ]; then
    echo "+ sessiondb import $ROOT/../shared/samples"; "$S" import "$ROOT/../shared/samples" || import_rc=$?
  fi
else
  echo "+ sessiondb import ${paths[*]}"; "$S" import "${paths[@]}" || import_rc=$?
fi
echo "+ sessiondb list --all";       "$S" list --all --limit 20
# The most recently active session that has entries (a header-only file imports as an empty one).
id="$("$S" --json list --all --limit 50 | python3 -c 'import json,sys; r=[s for s in json.load(sys.stdin) if s.get("entry_count")]; print(r[0]["id"] if r else "")')"
if [ -n "$id" ]; then
  echo "+ sessiondb context $id";    "$S" context "$id" --window 128000 | head -5
  outdir="$(mktemp -d)"; out="$outdir/$id.jsonl"   # export -o refuses an existing file
  echo "+ sessiondb export $id";     "$S" export "$id" -o "$out"
  head -c 400 "$out"; echo; rm -rf "$outdir"
fi
echo "+ sessiondb doctor";           "$S" doctor
exit "$import_rc"
