#!/usr/bin/env bash
# Runs a command under another Node.js release, taken from the npm registry's `node` package
# (its binaries for this platform), first on PATH:
#
#   bash tools/with-node.sh 24 npx -y pnpm@10.34.8 test        (the line's newest release)
#   bash tools/with-node.sh 24.21.0 npx -y pnpm@10.34.8 test   (exactly that release)
#
# Each is installed once under LENDGATE_NODE_CACHE (default ${TMPDIR:-/tmp}/lendgate-node-<uid>)
# and reused; remove that folder to take a line's newest release. The folder is readable by every
# user, so that the tests' other users (the README walkthrough's newcomer, the embedded server's
# user) run the same Node.js as the suite; it must be this user's own.
set -euo pipefail

if [ "$#" -lt 2 ] || ! [[ "$1" =~ ^[0-9]+(\.[0-9]+\.[0-9]+)?$ ]]; then
  echo "usage: bash tools/with-node.sh <major version or exact version> <command> [arguments]" >&2
  exit 2
fi
release="$1"
shift

cache="${LENDGATE_NODE_CACHE:-${TMPDIR:-/tmp}/lendgate-node-$(id -u)}"
mkdir -p -m 755 "$cache"
if [ ! -O "$cache" ] || [ -L "$cache" ]; then
  echo "tools/with-node.sh: $cache is not a folder of this user's own; set LENDGATE_NODE_CACHE" >&2
  exit 1
fi
dir="$cache/$release"
bin="$dir/node_modules/node/bin"
if [ ! -x "$bin/node" ]; then
  mkdir -p -m 755 "$dir"
  # Readable by the other users the tests run as, whatever umask this shell has.
  (umask 022 && npm install --prefix "$dir" --no-save --no-audit --no-fund --loglevel=error "node@$release" >/dev/null)
fi
# npm and pnpm read the global npmrc of the node running them (its prefix's etc/npmrc): the
# machine's (a registry, a CA file) is copied beside this one, so that they reach the registry as
# they do under the machine's Node.js.
global_rc="$(npm config get globalconfig 2>/dev/null || true)"
if [ -f "$global_rc" ] && [ ! -e "$dir/node_modules/node/etc/npmrc" ]; then
  mkdir -p -m 755 "$dir/node_modules/node/etc"
  install -m 644 "$global_rc" "$dir/node_modules/node/etc/npmrc"
fi

installed="$("$bin/node" --version)"
if [[ "$installed." != "v$release."* ]]; then
  echo "tools/with-node.sh: $bin/node is $installed, not Node.js $release" >&2
  exit 1
fi
echo "tools/with-node.sh: running under Node.js $installed" >&2
export PATH="$bin:$PATH"
exec "$@"
