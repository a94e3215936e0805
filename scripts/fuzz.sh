#!/usr/bin/env bash
# Run the AFL++ fuzz targets in fuzz/ on stable Rust (see fuzz/README.md).
#
#   scripts/fuzz.sh [TARGET|all] [SECONDS]
#
# TARGET: read_thclaws read_codex read_claude detect_format envelope iso8601,
# or `all` (the default) to run them one after another. SECONDS: wall time
# per target (default 300). One fuzzer process at a time, no parallel jobs.
#
# Installs what it needs (cargo-afl from crates.io, which builds its bundled
# AFL++; make and a C compiler from Debian if missing), builds the targets
# with `cargo afl build --release` into a target dir of its own, seeds each
# run with fuzz/corpus/<target>/ plus, when present, the small real sample
# files of ../shared/samples/ (copied into a temp dir outside the repo,
# never into it), and prints the executions, run time, crashes and hangs
# that afl-fuzz recorded. Exits 1 when any target saved a crash or hang.
#
# Environment:
#   CARGO_TARGET_DIR  build dir (default ~/.cache/sessiondb-fuzz-target)
#   FUZZ_OUT          afl-fuzz output root (default ~/.cache/sessiondb-fuzz/out)
#   SESSIONDB_SAMPLES sample sessions dir (default <repo>/../shared/samples)
#   AFL_TIMEOUT_MS    per-input timeout, a hang beyond it (default 2000)
#   AFL_MEM_MB        per-process memory limit in MiB (default 2048)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
fuzz_dir="$repo/fuzz"
all_targets=(read_thclaws read_codex read_claude detect_format envelope iso8601)
target="${1:-all}"
seconds="${2:-300}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/sessiondb-fuzz-target}"
out_root="${FUZZ_OUT:-$HOME/.cache/sessiondb-fuzz/out}"
samples="${SESSIONDB_SAMPLES:-$repo/../shared/samples}"
timeout_ms="${AFL_TIMEOUT_MS:-2000}"
mem_mb="${AFL_MEM_MB:-2048}"
cargo_afl_version="0.18.2"

if [[ "$target" == all ]]; then
    targets=("${all_targets[@]}")
else
    case " ${all_targets[*]} " in
        *" $target "*) targets=("$target") ;;
        *) echo "unknown target '$target' (one of: ${all_targets[*]}, all)" >&2; exit 2 ;;
    esac
fi
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "SECONDS must be a number, got '$seconds'" >&2; exit 2; }

# --- install --------------------------------------------------------------
if ! command -v make >/dev/null || ! command -v cc >/dev/null; then
    echo "== installing make and a C compiler (Debian build-essential)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential
fi
if ! cargo afl --version 2>/dev/null | grep -q "$cargo_afl_version"; then
    echo "== installing cargo-afl $cargo_afl_version (builds its bundled AFL++)"
    cargo install --locked cargo-afl --version "$cargo_afl_version"
fi
# The AFL++ runtime is built per rustc version (`cargo install` builds it for
# the rustc of that moment); build it for this rustc unless it is there.
if ! config_out="$(cargo afl config --build 2>&1)"; then
    grep -q "already built" <<<"$config_out" || { echo "$config_out" >&2; exit 1; }
fi

# --- build ----------------------------------------------------------------
echo "== building fuzz targets (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
(cd "$fuzz_dir" && cargo afl build --release --bins)
bin_dir="$CARGO_TARGET_DIR/release"

# --- seeds ----------------------------------------------------------------
seeds_root="$(mktemp -d "${TMPDIR:-/tmp}/sessiondb-fuzz-seeds.XXXXXX")"
trap 'rm -rf "$seeds_root"' EXIT

# Real samples (<= 64 KiB; bigger ones slow AFL down) for the targets that read sessions.
sample_dirs() {
    case "$1" in
        read_thclaws) echo thclaws ;;
        read_codex) echo codex ;;
        read_claude) echo claude-code ;;
        detect_format) echo thclaws codex claude-code ;;
    esac
}

make_seeds() {
    local t="$1" dir="$seeds_root/$1"
    mkdir -p "$dir"
    cp "$fuzz_dir/corpus/$t/"* "$dir/"
    if [[ -d "$samples" ]]; then
        for d in $(sample_dirs "$t"); do
            [[ -d "$samples/$d" ]] || continue
            find "$samples/$d" -name '*.jsonl' -size -65k -print0 | while IFS= read -r -d '' f; do
                cp "$f" "$dir/sample-$d-$(basename "$f")"
            done
        done
    fi
    echo "$dir"
}

dict_for() {
    case "$1" in
        iso8601) echo "$fuzz_dir/dict/iso8601.dict" ;;
        *) echo "$fuzz_dir/dict/json.dict" ;;
    esac
}

stat_of() { sed -n "s/^$2 *: *//p" "$1" | head -1; }

# --- run ------------------------------------------------------------------
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_NO_AFFINITY=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1
status=0
summary=()
for t in "${targets[@]}"; do
    seeds="$(make_seeds "$t")"
    out="$out_root/$t-$(date -u +%Y%m%dT%H%M%SZ)"
    mkdir -p "$out_root"
    echo "== fuzzing $t for ${seconds}s: seeds $(ls "$seeds" | wc -l) files, output $out"
    # -V: stop after SECONDS; -t: a run over the timeout is a hang; -m: a run over
    # the memory limit dies (unbounded memory shows up as a crash). One process only.
    # Its (long, AFL_NO_UI) progress output goes to $out.log; its closing lines are shown.
    rc=0
    cargo afl fuzz -i "$seeds" -o "$out" -x "$(dict_for "$t")" -V "$seconds" -t "$timeout_ms" -m "$mem_mb" \
        -- "$bin_dir/$t" >"$out.log" 2>&1 || rc=$?
    tail -n 6 "$out.log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g'
    [[ "$rc" == 0 ]] || echo "afl-fuzz exited with $rc for $t (log: $out.log)"
    stats="$out/default/fuzzer_stats"
    if [[ -f "$stats" ]]; then
        crashes="$(stat_of "$stats" saved_crashes)"
        hangs="$(stat_of "$stats" saved_hangs)"
        line="$t: run_time=$(stat_of "$stats" run_time)s execs_done=$(stat_of "$stats" execs_done) execs_per_sec=$(stat_of "$stats" execs_per_sec) corpus_count=$(stat_of "$stats" corpus_count) saved_crashes=$crashes saved_hangs=$hangs"
        if [[ "${crashes:-0}" != 0 || "${hangs:-0}" != 0 ]]; then
            status=1
            line="$line  -> see $out/default/crashes and $out/default/hangs"
        fi
    else
        line="$t: no fuzzer_stats written (afl-fuzz did not start; see its output above)"
        status=1
    fi
    summary+=("$line")
    echo "$line"
done

echo "== summary"
printf '%s\n' "${summary[@]}"
exit "$status"
