#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# initramfs.sh OUT.cpio: the root file system every kernel of the matrix
# boots (tests/kernels/run.sh): a static busybox for init, bash and the GNU
# tools the tests are written against, perf, a python3 cut down to the
# modules the tests import, trigrec, its test helpers and integration tests,
# each dynamic binary with the shared libraries ldd names. Nothing is
# loaded from a disk: the guest needs no module.
#
# OUTPUT (default .output) holds trigrec's build (trigrec, tests/seqgen ...).
set -euo pipefail
out=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUTPUT=${OUTPUT:-.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
TRIGREC=${TRIGREC:-$ROOT/trigrec}
tree=$out.d
rm -rf "$tree"
mkdir -p "$tree"/{bin,sbin,usr/bin,usr/sbin,lib,lib64,proc,sys,dev,tmp,run,root,etc,trigrec}

die() { echo "initramfs: $*" >&2; exit 1; }

# copy_bin PATH [NAME]: a binary into /usr/bin and its libraries where ldd found them.
declare -A libs_done
copy_libs() {
	local l
	for l in $(ldd "$1" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*'); do
		[ -n "${libs_done[$l]-}" ] && continue
		libs_done[$l]=1
		mkdir -p "$tree$(dirname "$l")"
		cp -L "$l" "$tree$l"
	done
}
copy_bin() {
	local src dst=${2:-$(basename "$1")}
	src=$(readlink -f "$1")
	[ -x "$src" ] || die "$1 not found"
	cp "$src" "$tree/usr/bin/$dst"
	copy_libs "$src"
}

# The shell and tools the tests use, as on the host (the tests are GNU-isms).
tools=(bash cat cut date dirname basename head tail sort uniq wc tr mktemp mkfifo timeout
	sleep id ls rm cp mv mkdir rmdir touch printf env nproc uname readlink realpath stat seq
	true false tee expr od grep sed awk find xargs flock mount umount pgrep pkill ps kill
	setsid chrt taskset nice nm strip)
for t in "${tools[@]}"; do
	p=$(command -v "$t" 2>/dev/null) || die "$t is not installed on the host"
	case $p in /*) copy_bin "$p" "$t" ;; *) ;; esac # builtins (true, printf) also need a binary
	[ -e "$tree/usr/bin/$t" ] || copy_bin "/usr/bin/$t" "$t"
done
ln -sf ../usr/bin/bash "$tree/bin/bash"
ln -sf ../usr/bin/bash "$tree/bin/sh"

# busybox for init and anything else (its applets do not replace the tools above).
bb=$(command -v busybox) || die "busybox is not installed (apt-get install busybox-static)"
file -L "$bb" | grep -q 'statically linked' || die "$bb is not static (apt-get install busybox-static)"
cp "$bb" "$tree/bin/busybox"
for a in $("$bb" --list); do
	[ -e "$tree/usr/bin/$a" ] || [ -e "$tree/bin/$a" ] || ln -s busybox "$tree/bin/$a"
done

# perf: Debian's is dynamic (python, perl, libdw ...).
copy_bin "$(command -v perf)" perf

# python3: the interpreter and the modules the tests import (json, os, signal,
# socket for tr_start_ready's READY=1 listener,
# difflib for fastpath.sh ...).
py=/usr/bin/python3
[ -x $py ] || die "no $py (apt-get install python3)"
copy_bin $py python3
ver=$($py -c 'import sys; print("%d.%d" % sys.version_info[:2])')
ln -sf python3 "$tree/usr/bin/python$ver"
$py -c '
import json, os, sys, signal, socket, time, json.tool, collections, difflib, re
for m in list(sys.modules.values()):
    f = getattr(m, "__file__", None)
    if f: print(f)
' | sort -u | while read -r f; do
	mkdir -p "$tree$(dirname "$f")"
	cp "$f" "$tree$f"
	case $f in *.so) copy_libs "$f" ;; esac
	c=$(dirname "$f")/__pycache__/$(basename "$f" .py).cpython-${ver/./}.pyc
	[ -e "$c" ] && { mkdir -p "$tree$(dirname "$c")"; cp "$c" "$tree$c"; }
done
true

# trigrec, its helpers and tests, laid out as in the source tree.
copy_bin "$TRIGREC" trigrec
ln -sf ../usr/bin/trigrec "$tree/trigrec/trigrec"
mkdir -p "$tree/trigrec/tests/integration" "$tree/trigrec/.output/tests"
cp "$ROOT"/tests/run.sh "$ROOT"/tests/trace-lock.sh "$tree/trigrec/tests/"
cp "$ROOT"/tests/integration/*.sh "$tree/trigrec/tests/integration/"
for h in seqgen burn trigwork probework; do
	[ -x "$OUTPUT/tests/$h" ] || die "$OUTPUT/tests/$h is not built"
	cp "$OUTPUT/tests/$h" "$tree/trigrec/.output/tests/"
	copy_libs "$OUTPUT/tests/$h"
done
cp "$ROOT/tests/kernels/init" "$tree/init"
# The recording path the guest's tests take (tests/run.sh's RINGS): compact
# (the default's choice on x86) unless KERNEL_RINGS says otherwise
# (KERNEL_RINGS=bpf for the ring sets).
case ${KERNEL_RINGS:-compact} in
bpf | perf | compact) echo "${KERNEL_RINGS:-compact}" >"$tree/trigrec/.rings" ;;
*) die "KERNEL_RINGS=$KERNEL_RINGS: say bpf, perf or compact" ;;
esac
chmod +x "$tree/init"
printf 'root:x:0:0:root:/root:/bin/sh\n' >"$tree/etc/passwd"
printf 'root:x:0:\n' >"$tree/etc/group"

(cd "$tree" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) >"$out"
rm -rf "$tree"
