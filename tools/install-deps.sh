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
# Packages of another architecture (libbpf-dev:arm64 for make ARCH=arm64) need multiarch.
for p in $missing; do
	case $p in
	*:*)
		a=${p#*:}
		if [ "$a" != "$(dpkg --print-architecture)" ] && ! dpkg --print-foreign-architectures | grep -qx "$a"; then
			echo "trigrec build: dpkg --add-architecture $a" >&2
			dpkg --add-architecture "$a"
		fi
		;;
	esac
done
apt-get update -qq >&2 || true
# shellcheck disable=SC2086 # one argument per package
apt-get install -y -qq --no-install-recommends $missing >&2
