#!/usr/bin/env bash
# The main job end to end on real input: installs what is needed, builds the
# CLI, and runs it against the default store (OS credential store: a real
# Secret Service). Creates a session bound to this directory, appends turns,
# lists and shows it, prints the journal and `doctor`.
# Usage: scripts/main.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
S="$ROOT/scripts/sessiondb.sh"
cd "$ROOT"
echo "+ sessiondb path";   "$S" path
id="$("$S" new --name "main.sh demo $(date -u +%H:%M:%S)")"
echo "+ sessiondb new → $id"
echo "Summarise the README of this repository." | "$S" append "$id" --role user
"$S" append "$id" --role assistant "It stores agent sessions encrypted, with a journal and recovery." >/dev/null
echo "+ sessiondb list";   "$S" list
echo "+ sessiondb show";   "$S" show "${id:0:13}"
echo "+ sessiondb journal"; "$S" journal "$id"
echo "+ sessiondb doctor"; "$S" doctor
