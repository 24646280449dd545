#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# initramfs-arm64.sh OUT.cpio TRIGREC BUSYBOX: the arm64 smoke guest's root
# file system: BUSYBOX (static, from Debian's busybox-static:arm64), the
# cross-built TRIGREC (make ARCH=arm64) with the arm64 shared libraries it
# needs (Debian's multiarch packages that make ARCH=arm64 installs), a
# static seqgen cross-compiled here, and tests/kernels/init-arm64 as /init.
set -euo pipefail
out=$1 trigrec=$2 busybox=$3
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CC=${CROSS_CC:-aarch64-linux-gnu-gcc}
READELF=${CROSS_READELF:-aarch64-linux-gnu-readelf}
LIBDIRS=(/lib/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

mkdir -p "$tree"/{bin,usr/bin,lib,proc,sys,dev,tmp}
cp "$busybox" "$tree/bin/busybox"
cp "$trigrec" "$tree/usr/bin/trigrec"
"$CC" -static -O2 -Wall -o "$tree/seqgen" "$ROOT/tests/helpers/seqgen.c"
cp "$ROOT/tests/kernels/init-arm64" "$tree/init"

# The libraries, transitively: each NEEDED name found in the multiarch
# directories, copied under the same path (the loader searches them).
find_lib() {
	local d
	for d in "${LIBDIRS[@]}"; do
		[ -e "$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}
todo=("$tree/usr/bin/trigrec") done_=" "
while [ ${#todo[@]} -gt 0 ]; do
	f=${todo[0]}
	todo=("${todo[@]:1}")
	for n in $("$READELF" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
		case $done_ in *" $n "*) continue ;; esac
		done_="$done_$n "
		p=$(find_lib "$n") || { echo "initramfs-arm64: no arm64 $n (install its :arm64 package)" >&2; exit 1; }
		mkdir -p "$tree$(dirname "$p")"
		cp -L "$p" "$tree$p"
		todo+=("$tree$p")
	done
done
# The loader, where the binary's PT_INTERP says.
interp=$("$READELF" -l "$trigrec" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
p=$(find_lib "$(basename "$interp")")
mkdir -p "$tree$(dirname "$interp")"
cp -L "$p" "$tree$interp"
(cd "$tree" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) >"$out"
