#!/usr/bin/env bash
# Installs what badgectl needs to build when it is missing: Lua 5.4 headers and library
# (Debian's liblua5.4-dev), pkg-config, zlib, and SQLite's headers and library (libsqlite3-dev: GRDB, which
# the run-summary cache uses, links the system libsqlite3); and luacheck (lua-check) for scripts/test.
# Runs apt-get only when something is missing.
set -euo pipefail

need=()
command -v pkg-config >/dev/null 2>&1 || need+=(pkg-config)
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists lua5.4; then need+=(liblua5.4-dev); fi
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists zlib; then need+=(zlib1g-dev); fi
# libsqlite3-dev ships sqlite3.pc, so pkg-config tells whether its header and libsqlite3.so are there.
if ! command -v pkg-config >/dev/null 2>&1 || ! pkg-config --exists sqlite3; then need+=(libsqlite3-dev); fi
# luacheck (Debian's lua-check): scripts/test lints every shipped pack with rules/.luacheckrc.
command -v luacheck >/dev/null 2>&1 || need+=(lua-check)

if [ ${#need[@]} -gt 0 ]; then
  echo "bootstrap: installing ${need[*]}" >&2
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
command -v swift >/dev/null 2>&1 || { echo "bootstrap: swift is not on PATH (install Swift 6 from swift.org)" >&2; exit 1; }
