#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# arm64.sh DIST PACKAGE: the arm64 smoke run of the kernel matrix
# (tests/kernels/run.sh). Boots Debian's arm64 kernel PACKAGE from DIST under
# qemu-system-aarch64 (TCG, -M virt -cpu max, 2 vCPUs) with the cross-built
# trigrec (make ARCH=arm64) and tests/kernels/init-arm64, which records
# cut.sh's scenario there and prints the snapshot to the console. Here, on
# the host, stock perf script decodes it and the cut is asserted as cut.sh
# does, plus the feature probes' verdicts. No bash, perf or python runs in
# the guest: only trigrec, a static busybox and a static seqgen.
# Exit 3 with a reason when the kernel or busybox cannot be downloaded.
. "$(dirname "$0")/../integration/lib.sh"
dist=$1 pkg=$2
KDIR=${KDIR:-$OUTPUT/kernels}
A64=$ROOT/.output-aarch64
BOOT_TIMEOUT=${BOOT_TIMEOUT:-480}
N=200000 TRIG=100000 BASE=$(seq_base)

img=$KDIR/img/arm64-$dist bb=$KDIR/img/arm64-busybox
if ! deb=$(KARCH=arm64 "$ROOT/tests/kernels/fetch.sh" "$dist" "$pkg" "$img" 2>"$TMP/fetch.err") ||
	! KARCH=arm64 PARTS=./bin/busybox "$ROOT/tests/kernels/fetch.sh" "$dist" busybox-static "$bb" \
		>/dev/null 2>>"$TMP/fetch.err"; then
	echo "cannot fetch the arm64 kernel or busybox: $(tail -1 "$TMP/fetch.err")"
	exit 3
fi
echo "guest kernel: ${deb%.deb}"
# The cross build installs its own packages on first use (Makefile). Its
# OUTPUT given here: make test-kernels exports the host build's.
if ! make -s -C "$ROOT" ARCH=arm64 OUTPUT=.output-aarch64 >"$TMP/build.log" 2>&1; then
	t_blocked "arm64: trigrec cross-builds" "$(tail -3 "$TMP/build.log")"
	exit 1
fi
if ! "$ROOT/tests/kernels/initramfs-arm64.sh" "$TMP/smoke.cpio" "$A64/trigrec" "$bb/bin/busybox" \
	>"$TMP/initramfs.log" 2>&1; then
	t_blocked "arm64: the guest's initramfs" "$(tail -3 "$TMP/initramfs.log")"
	exit 1
fi

console=${CONSOLE:-$KDIR/log/arm64.console.log} # run.sh names it after the matrix entry
t0=$(date +%s)
# quiet: the snapshot shares the one console with the kernel's messages.
flock -w 3600 /tmp/trigrec-trace.lock \
	timeout -k 10 "$BOOT_TIMEOUT" qemu-system-aarch64 -M virt -accel tcg,thread=multi -cpu max \
	-smp 2 -m 2048 -nodefaults -display none -no-reboot \
	-kernel "$(ls "$img"/boot/vmlinuz-* | head -1)" -initrd "$TMP/smoke.cpio" \
	-append "console=ttyAMA0 quiet loglevel=1 panic=-1 trigrec.base=$BASE trigrec.n=$N trigrec.trig=$TRIG" \
	-serial "file:$console" </dev/null
st=$?
sed -i 's/\r$//' "$console"
echo "  (guest: $(sed -n 's/^smoke: guest //p' "$console"); boot to power-off $(($(date +%s) - t0)) s)"

# The files the guest printed, base64 between "smoke: file NAME" and "smoke: end".
mkdir -p "$TMP/out"
awk -v dir="$TMP/out" '
	/^smoke: file / { f = dir "/" $3 ".b64"; next }
	/^smoke: end$/ { close(f); f = ""; next }
	f != "" { print > f }' "$console"
for b in "$TMP"/out/*.b64; do
	[ -e "$b" ] && base64 -d "$b" >"${b%.b64}" && rm "$b"
done

t_begin "arm64: the guest records and exits cleanly"
[ $st -eq 124 ] && t_fail "qemu timed out after ${BOOT_TIMEOUT}s"
grep -aq '^smoke: done$' "$console" || t_fail "no 'smoke: done' on the console: see $console"
check_eq "trigrec exit code (log: $(tail -3 "$TMP/out/rec.log" 2>/dev/null | tr '\n' ' '))" \
	"$(sed -n 's/^smoke: trigrec exit //p' "$console")" 0
check_eq "trigger snapshots" "$(nsnaps "$TMP/out" sys_enter_getsid)" 1
t_end

t_begin "arm64: every feature probe says yes (Debian 12's arm64 kernel has them all)"
check_eq "features present" "$(grep -c 'kernel feature: .*: yes$' "$TMP/out/rec.log" 2>/dev/null)" 6
check_eq "features missing" "$(grep -c 'kernel feature: .*: missing$' "$TMP/out/rec.log" 2>/dev/null)" 0
t_end

F=$(snaps "$TMP/out" sys_enter_getsid | head -1)
if [ -z "$F" ]; then
	t_blocked "arm64: the cut" "no trigger snapshot"
	exit 1
fi
decode "$F" >"$TMP/trig.tsv"
json_load "${F%.data}.json"
t_begin "arm64: the snapshot ends exactly at the trigger's getsid(BASE+TRIG), decoded by perf script"
last=$(tail -1 "$TMP/trig.tsv")
check_eq "last event" "$(cut -f5 <<<"$last")" syscalls:sys_enter_getsid
check_eq "last event's pid field" "$(cut -f6 <<<"$last")" $((BASE + TRIG))
# The guest kernel's symbols are not on this host: perf says so, nothing else.
check_eq "perf script errors" \
	"$(grep -v -e 'not valid for' -e '^No kallsyms or vmlinux with build-id' "$TMP/perf-script.err" | head -3)" ""
read -r n first lastseq missing disorder < <(seq_check "$TMP/trig.tsv" "$BASE")
echo "  ($n getpgid records kept, seqs $first..$lastseq, then the trigger)"
check_eq "last getpgid seq" "$lastseq" $((TRIG - 1))
check_eq "missing seqs between first ($first) and last ($lastseq)" "$missing" 0
check_eq "out-of-order seqs" "$disorder" 0
check_ge "getpgid records kept" "$n" 100
check_eq "window end = trigger record time" "$(j window.end_ns)" "$(cut -f1 <<<"$last")"
t_end
