#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need (idempotent).
# (The Secret Service keyring store is pure Rust (zbus): no libdbus-1-dev to build,
#  no libdbus-1-3 to run.)
# - dbus, gnome-keyring: a real Secret Service for the tests (scripts/with-secret-service.sh)
# - chromium, chromium-driver, fonts-dejavu-core: the viewer's browser test (scripts/test-viewer.sh),
#   headless Chromium from Debian, never a browser downloaded by a tool
set -euo pipefail
PKGS=(dbus gnome-keyring libsecret-tools chromium chromium-driver fonts-dejavu-core)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
