#!/usr/bin/env bash
# swift-root.sh — a Debian trixie chroot with the Swift toolchain (Debian's
# `swiftlang` package), for building and testing the Swift bindings on a host
# whose own Debian release has no Swift.
#
# Usage (as root):
#   scripts/swift-root.sh [build]          create the root, or reuse it when it is complete
#   scripts/swift-root.sh run DIR CMD...   ensure the root, copy DIR into it at /work,
#                                          run CMD there (cwd /work) and return CMD's exit code
#   scripts/swift-root.sh shell [DIR]      interactive shell in the root (DIR copied as for run)
#   scripts/swift-root.sh path             print the root's path
#   scripts/swift-root.sh clean            unmount leftovers and delete the root
#
# Environment:
#   SWIFT_ROOT           where the root lives (default /var/cache/sessiondb/trixie-swift);
#                        outside any clone so it survives between CI runs on one machine.
#   SWIFT_ROOT_MIRROR    Debian mirror (default http://deb.debian.org/debian)
#   SWIFT_ROOT_PACKAGES  packages installed in the root (default "swiftlang libc6-dev");
#                        ones missing from an existing complete root are added in place.
#   SWIFT_ROOT_EXCLUDE   space-separated tar --exclude patterns applied when copying DIR
#                        (e.g. "./target ./.git"); default: copy everything.
#   SWIFT_ROOT_ENV       space-separated names of host variables passed into CMD's
#                        environment (CMD otherwise gets a clean env: PATH, HOME=/root,
#                        LANG=C.UTF-8, CI if set).
#
# Behaviour:
#   * The root is built in "$SWIFT_ROOT.partial" with debootstrap --variant=minbase,
#     then the packages are installed with chroot apt-get, apt's cache is cleaned,
#     the marker "$SWIFT_ROOT/.sessiondb-swift-root-ready" is written LAST and the
#     directory is renamed to $SWIFT_ROOT. A root without the marker (an interrupted
#     run) or a leftover .partial is detected, its stale mounts are unmounted, and it
#     is deleted (rm --one-file-system) and rebuilt.
#   * Everything takes an exclusive flock on "$SWIFT_ROOT.lock", so two runs at once
#     wait for each other instead of building twice or sharing /work.
#   * `run` bind-mounts /dev (recursive, slave) and mounts proc (and, where allowed,
#     a read-only sysfs) in the root,
#     and a trap unmounts exactly what it mounted (falling back to a lazy unmount)
#     on any exit, including failure of CMD or of the copy. /work is replaced on every
#     run and left in place afterwards, so results can be read from "$SWIFT_ROOT/work".
#   * Heavy steps run under nice/ionice to leave the CPU to other builds.
set -euo pipefail

SWIFT_ROOT="${SWIFT_ROOT:-/var/cache/sessiondb/trixie-swift}"
SWIFT_ROOT="${SWIFT_ROOT%/}"
MIRROR="${SWIFT_ROOT_MIRROR:-http://deb.debian.org/debian}"
PACKAGES="${SWIFT_ROOT_PACKAGES:-swiftlang libc6-dev}"
SUITE=trixie
MARKER_NAME=.sessiondb-swift-root-ready
MARKER_CONTENT="sessiondb-swift-root v1 $SUITE minbase"
LOCK="$SWIFT_ROOT.lock"
PARTIAL="$SWIFT_ROOT.partial"
NICE=(nice -n 10)
command -v ionice >/dev/null 2>&1 && NICE+=(ionice -c 3)

log() { echo "swift-root: $*" >&2; }
die() { log "error: $*"; exit 1; }

[ "$(id -u)" -eq 0 ] || die "must run as root (debootstrap, chroot, mount)"
case "$SWIFT_ROOT" in
  ""|/|/usr|/var|/var/cache|/work|/tmp|/home|/root) die "refusing SWIFT_ROOT=$SWIFT_ROOT" ;;
esac

# --- mounts -----------------------------------------------------------------
MOUNTED=()   # mount points this process mounted, in mount order

# Every mount point at or below $1, deepest first (from /proc/self/mountinfo).
mounts_under() {
  local base; base="$(readlink -m "$1")"
  awk -v b="$base" '{ mp=$5; gsub(/\\040/, " ", mp); if (mp == b || index(mp, b "/") == 1) print mp }' \
    /proc/self/mountinfo | sort -r
}

unmount_all_under() {
  local mp
  while read -r mp; do
    [ -n "$mp" ] || continue
    log "unmounting stale $mp"
    umount -R "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || true
  done < <(mounts_under "$1")
  if [ -n "$(mounts_under "$1")" ]; then die "could not unmount everything under $1"; fi
}

do_mount() {  # do_mount TARGET MOUNT-ARGS...
  local target="$1"; shift
  mkdir -p "$target" || return 1
  mount "$@" "$target" || return 1
  MOUNTED+=("$target")
}

mount_system() {  # mount_system ROOT
  local r="$1"
  do_mount "$r/proc" -t proc proc
  do_mount "$r/sys" -t sysfs -o ro sysfs || log "warning: could not mount sysfs (continuing without /sys)"
  do_mount "$r/dev" --rbind /dev
  mount --make-rslave "$r/dev"
}

unmount_ours() {
  local i mp
  for ((i=${#MOUNTED[@]}-1; i>=0; i--)); do
    mp="${MOUNTED[$i]}"
    if ! umount -R "$mp" 2>/dev/null; then
      log "lazy-unmounting busy $mp"
      umount -R -l "$mp" 2>/dev/null || umount -l "$mp" 2>/dev/null || log "warning: could not unmount $mp"
    fi
  done
  MOUNTED=()
}
CHILD=""     # pid of the running chroot command, if any
on_signal() {  # stop CMD (and what it started in its process group), then exit
  if [ -n "$CHILD" ]; then
    kill -TERM "$CHILD" 2>/dev/null || true
    local i; for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$CHILD" 2>/dev/null || break; sleep 0.5; done
    kill -KILL "$CHILD" 2>/dev/null || true
    wait "$CHILD" 2>/dev/null || true
  fi
  exit "$1"
}
trap 'unmount_ours' EXIT
trap 'on_signal 130' INT
trap 'on_signal 143' TERM

remove_tree() {  # remove_tree DIR — never follows into another filesystem
  local d="$1"
  [ -e "$d" ] || return 0
  unmount_all_under "$d"
  rm -rf --one-file-system "$d"
}

# --- build ------------------------------------------------------------------
in_root() { "${NICE[@]}" chroot "$1" /usr/bin/env -i \
  PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
  DEBIAN_FRONTEND=noninteractive "${@:2}"; }

missing_packages() {  # missing_packages ROOT -> names of $PACKAGES not installed
  local p
  for p in $PACKAGES; do
    chroot "$1" dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || echo "$p"
  done
}

apt_install() {  # apt_install ROOT PKG...
  local r="$1"; shift
  cp -L /etc/resolv.conf "$r/etc/resolv.conf" 2>/dev/null || true
  mount_system "$r"
  in_root "$r" apt-get update -q
  in_root "$r" apt-get install -y -q --no-install-recommends "$@"
  in_root "$r" apt-get clean
  unmount_ours
}

is_complete() { [ -f "$SWIFT_ROOT/$MARKER_NAME" ] && [ "$(head -n1 "$SWIFT_ROOT/$MARKER_NAME")" = "$MARKER_CONTENT" ]; }

ensure_root() {
  if is_complete; then
    local missing; missing="$(missing_packages "$SWIFT_ROOT" | tr '\n' ' ')"
    if [ -n "${missing// /}" ]; then
      log "adding packages to existing root: $missing"
      unmount_all_under "$SWIFT_ROOT"
      # shellcheck disable=SC2086
      apt_install "$SWIFT_ROOT" $missing
    fi
    return 0
  fi

  local start=$SECONDS
  if [ -e "$SWIFT_ROOT" ]; then log "incomplete root at $SWIFT_ROOT (no marker): rebuilding"; fi
  remove_tree "$SWIFT_ROOT"
  remove_tree "$PARTIAL"

  if ! command -v debootstrap >/dev/null 2>&1; then
    log "installing debootstrap on the host"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
  fi

  mkdir -p "$(dirname "$SWIFT_ROOT")"
  log "debootstrap --variant=minbase $SUITE into $PARTIAL"
  "${NICE[@]}" debootstrap --variant=minbase "$SUITE" "$PARTIAL" "$MIRROR" >&2 \
    || die "debootstrap failed (see $PARTIAL/debootstrap/debootstrap.log)"
  # shellcheck disable=SC2086
  log "installing in root: $PACKAGES"
  # shellcheck disable=SC2086
  apt_install "$PARTIAL" $PACKAGES
  printf '%s\nbuilt %s in %ss; packages: %s\n' "$MARKER_CONTENT" "$(date -u +%FT%TZ)" \
    "$((SECONDS - start))" "$PACKAGES" > "$PARTIAL/$MARKER_NAME"
  sync -f "$PARTIAL/$MARKER_NAME" 2>/dev/null || sync
  mv -T "$PARTIAL" "$SWIFT_ROOT"
  log "root ready at $SWIFT_ROOT after $((SECONDS - start))s ($(du -sh --one-file-system "$SWIFT_ROOT" | cut -f1))"
}

copy_in() {  # copy_in DIR — replace $SWIFT_ROOT/work with a copy of DIR
  local src="$1" ex=() p
  [ -d "$src" ] || die "not a directory: $src"
  for p in ${SWIFT_ROOT_EXCLUDE:-}; do ex+=("--exclude=$p"); done
  rm -rf --one-file-system "$SWIFT_ROOT/work"
  mkdir -p "$SWIFT_ROOT/work"
  tar -C "$src" "${ex[@]}" -cf - . | tar -C "$SWIFT_ROOT/work" -xf -
}

run_in_root() {  # run_in_root [--foreground] CMD...
  local fg=""
  if [ "${1:-}" = --foreground ]; then fg=1; shift; fi
  local envs=(PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8)
  local v
  [ -n "${CI:-}" ] && envs+=("CI=$CI")
  [ -n "${TERM:-}" ] && envs+=("TERM=$TERM")
  for v in ${SWIFT_ROOT_ENV:-}; do [ -n "${!v+x}" ] && envs+=("$v=${!v}"); done
  unmount_all_under "$SWIFT_ROOT"   # leftovers of a killed run (we hold the lock)
  cp -L /etc/resolv.conf "$SWIFT_ROOT/etc/resolv.conf" 2>/dev/null || true
  mount_system "$SWIFT_ROOT"
  local rc=0
  local cmd=("${NICE[@]}" chroot "$SWIFT_ROOT" /usr/bin/env -i "${envs[@]}"
             /bin/sh -c 'cd /work && exec "$@"' sh "$@")
  if [ -n "$fg" ]; then
    trap ':' INT         # Ctrl-C belongs to the interactive shell (':' not '', which CMD would inherit)
    "${cmd[@]}" || rc=$?
    trap 'on_signal 130' INT
  else
    # Started in the background (stdin passed explicitly, SIGINT/SIGQUIT restored
    # to their defaults, which bash would otherwise ignore in a background job)
    # and waited for, so that a TERM/INT to this script is handled at once: the
    # trap stops CMD, then unmounts.
    env --default-signal=INT,QUIT "${cmd[@]}" <&0 &
    CHILD=$!
    wait "$CHILD" || rc=$?
    CHILD=""
  fi
  unmount_ours
  return "$rc"
}

# --- main -------------------------------------------------------------------
action="${1:-build}"
[ $# -gt 0 ] && shift

mkdir -p "$(dirname "$LOCK")"
exec 9>"$LOCK"
if ! flock -n 9; then
  log "waiting for another swift-root.sh (lock $LOCK)"
  flock 9
fi

case "$action" in
  build) ensure_root ;;
  path) echo "$SWIFT_ROOT" ;;
  clean) remove_tree "$SWIFT_ROOT"; remove_tree "$PARTIAL"; log "removed $SWIFT_ROOT" ;;
  run)
    [ $# -ge 2 ] || die "usage: $0 run DIR CMD..."
    dir="$1"; shift
    ensure_root
    copy_in "$dir"
    run_in_root "$@"
    ;;
  shell)
    ensure_root
    if [ $# -ge 1 ]; then copy_in "$1"; else mkdir -p "$SWIFT_ROOT/work"; fi
    run_in_root --foreground /bin/bash -l
    ;;
  -h|--help|help) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' ;;
  *) die "unknown action '$action' (build|run|shell|path|clean)" ;;
esac
