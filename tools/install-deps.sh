#!/bin/sh
# Install the Debian packages named on the command line that are missing.
# Used by the Makefile so that `make demo` / `make check` work on a fresh machine.
set -e
missing=
for p in "$@"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" != 0 ]; then
	echo "trigrec build: missing packages:$missing" >&2
	echo "  install them with: sudo apt-get install$missing" >&2
	exit 1
fi
echo "trigrec build: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >&2 || true
apt-get install -y -qq --no-install-recommends $missing >&2
