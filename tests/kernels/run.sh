#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make test-kernels: the integration subset on every kernel users run.
#
#   tests/kernels/run.sh [NAME...]      (NAMEs from the matrix below; default all)
#
# Each Debian kernel is downloaded with apt (tests/kernels/fetch.sh) and
# booted under qemu-system-x86_64 with TCG (no KVM here), 2 vCPUs, and an
# initramfs holding trigrec, its tests, perf, python3, bash and a static
# busybox (tests/kernels/initramfs.sh); tests/kernels/init runs the tests
# and powers off. The host kernel runs the same subset natively. Every boot
# holds /tmp/trigrec-trace.lock: qemu takes both CPUs and would disturb
# other live-kernel tests. Prints one "N passed, N failed" line per kernel
# and a combined one last; a kernel that cannot be downloaded is skipped
# with the reason. Logs: $KDIR/log/NAME.{tests,console}.log.
set -u
export LC_ALL=C
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
OUTPUT=${OUTPUT:-.output}
case $OUTPUT in /*) ;; *) OUTPUT=$ROOT/$OUTPUT ;; esac
export OUTPUT
export TRIGREC=${TRIGREC:-$ROOT/trigrec}
export KDIR=${KDIR:-$OUTPUT/kernels}
# Seconds for one kernel, boot to power-off. A guest's run takes 100-160 s
# here; a hang is cut at this bound and booted once more (below), so one
# hang costs 8 minutes of the matrix's 20, not its whole budget.
BOOT_TIMEOUT=${BOOT_TIMEOUT:-480}
# One host thread for all vCPUs. With thread=multi (one per vCPU), QEMU
# 7.2 lets a vCPU run stale code after another vCPU patched it: a static
# key flipped by text_poke_bp (each tracepoint attach or detach) left one
# vCPU executing the int3 that was already replaced, so 6.1 livelocked in
# asm_exc_int3 and 6.12 oopsed ("Oops: int3"), both boots of one CI run.
# Real CPUs cannot do this (text_poke_bp's sync_core IPIs), so the tests
# run where it cannot happen; TCG_THREAD=multi brings it back to compare.
TCG_THREAD=${TCG_THREAD:-single}
# Speed factor for the tests' timing bounds (lib.sh's SLOW) under emulation.
SLOW=${KERNELS_SLOW:-50}

# name     release   package               expect  (expect: run = the subset passes,
#                                                    refuse = trigrec names what is missing,
#                                                    smoke = tests/kernels/arm64.sh: the
#                                                    cut recorded in an arm64 guest, checked
#                                                    on the host)
MATRIX="
host       -         -                     run
6.1        bookworm  linux-image-amd64     run
6.1-rt     bookworm  linux-image-rt-amd64  run
6.12       trixie    linux-image-amd64     run
5.10       bullseye  linux-image-amd64     refuse
6.1-arm64  bookworm  linux-image-arm64     smoke
"
# The subset: features (probes, refusal), cut (exactness of the cut on every
# CPU), names (COMM/FORK/EXIT), perftools (perf script/report/evlist/sched
# timehist and -g call chains decode the file), kmod (brd loaded: its map and
# its frames' DSO as in perf record's file), trig_event, trig_latency,
# trig_rate (each trigger kind, each snapshot ending exactly at its trigger),
# reload_stream (a reload hands recording over CPU by CPU with no record
# lost: it relies on each kernel running a tracepoint's programs with
# preemption off; 6.1 47/0, 6.1-rt 47/0, 6.12 47/0 on 2026-12-06, after
# the guests' python got the socket module its READY=1 listener needs).
# fastpath (the tp_btf fast paths equal each kernel's own perf record's) runs
# with KERNEL_TESTS=fastpath. It was in the default subset (6.1 3/3, 6.12 3/3
# on 2026-12-03) until its trigger case and its softirq/signal comparison,
# both newer, failed under TCG in the 6.1 and 6.12 guests (2026-12-04: no
# USR2 snapshot: the wait for fpnap's sleep used sleep 0.01, which under
# TCG fired the 50 ms nap trigger, and a third snapshot in flight is
# coalesced; fixed in the test. Also once 111 softirq records missing from
# trigrec's stream, not seen again). With the fix both guests pass it
# (2026-12-04 19:10, 6.1 51/0, 6.12 51/0), but it takes 378 s and 205 s
# there, four times the rest of the subset: left out for the matrix's 20
# minutes, not for failures. The host runs it natively.
# probes (uprobes, USDT, kprobes: the host's kernel lacks kprobe events, the
# Debian guests have them) runs with KERNEL_TESTS=probes. It once missed a
# uprobe trigger's own record on 6.12 under TCG (the side-band thread's
# 20 us poll starved the task that had to write it); since the poll backs
# off, 46 runs of it in the 6.12 guest passed. It is left out of the default
# for time (about 70 s per guest, three guests), not for flakiness.
# Left out: the rest of make check (see docs/kernels.md, "The kernel matrix").
SUBSET=${KERNEL_TESTS:-"features cut names perftools kmod trig_event trig_latency trig_rate reload_stream"}

want=("$@")
selected() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

mkdir -p "$KDIR/log"
tot_p=0 tot_f=0 tot_s=0
summary=()
start=$(date +%s)

# watch_report CONSOLE_LOG: the task list of the guest's hang watch
# (tests/kernels/init), when it got to run: who was waiting for what (the
# kernel stacks follow it in the console log). Else the console's last lines.
watch_report() {
	if grep -aq 'hang watch: still running' "$1" 2>/dev/null; then
		sed -n '/hang watch: still running/,/hang watch: their kernel stacks/p' "$1" |
			grep -av 'hang watch: their' | head -n 40 | sed 's/^/    /'
		echo "    (kernel stacks of every task: $1)"
	else
		tail -n 5 "$1" 2>/dev/null | sed 's/^/    /'
	fi
}

# result NAME LOG SECONDS WHAT: add up the run.sh summary at the end of LOG.
result() {
	local name=$1 log=$2 secs=$3 what=$4 line p f s
	line=$(grep -aE '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -1)
	if [ -z "$line" ]; then
		p=0 f=1 s=0
		line="0 passed, 1 failed"
		echo "  FAIL $name: no summary from the tests (crash, hang or timeout): see $log" \
			"and ${log%.tests.log}.console.log"
		watch_report "${log%.tests.log}.console.log"
	else
		read -r p f s <<<"$(sed -E 's/^([0-9]+) passed, ([0-9]+) failed(, ([0-9]+) skipped)?$/\1 \2 \4/' <<<"$line")"
		s=${s:-0}
		[ "$f" -gt 0 ] && sed -n '/^failed:$/,/^(/p' "$log" | grep -a '^  ' | sed 's/^/  /'
	fi
	tot_p=$((tot_p + p)) tot_f=$((tot_f + f)) tot_s=$((tot_s + s))
	echo "kernel $name ($what, ${secs}s): $line"
	summary+=("kernel $name ($what, ${secs}s): $line")
}

initramfs=
build_initramfs() {
	[ -n "$initramfs" ] && return 0
	initramfs=$KDIR/initramfs.cpio
	echo "building $initramfs"
	if ! "$ROOT/tests/kernels/initramfs.sh" "$initramfs" >"$KDIR/log/initramfs.log" 2>&1; then
		cat "$KDIR/log/initramfs.log"
		initramfs=
		return 1
	fi
	echo "  ($(($(stat -c %s "$initramfs") / 1048576)) MiB)"
}

# kernel_initrd IMG: the shared initramfs, plus this kernel's brd module
# (fetch.sh) as a second cpio archive, which the kernel unpacks over the
# first: /lib/modules/RELEASE/kernel/drivers/block/brd.ko, uncompressed, and
# a modules.dep naming it. Without the module: the shared initramfs alone
# (kmod.sh then says why it skips).
kernel_initrd() {
	local img=$1 ko rel mod=$1/modroot
	ko=$(ls "$img"/lib/modules/*/kernel/drivers/block/brd.ko* "$img"/usr/lib/modules/*/kernel/drivers/block/brd.ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		echo "$initramfs"
		return
	fi
	rel=${ko#"$img"/}
	rel=${rel#usr/}
	rel=${rel#lib/modules/}
	rel=${rel%%/*}
	rm -rf "$mod"
	mkdir -p "$mod/lib/modules/$rel/kernel/drivers/block"
	if ! case $ko in
		*.xz) xz -dc "$ko" ;;
		*.zst) zstd -dcq "$ko" ;;
		*.gz) gzip -dc "$ko" ;;
		*) cat "$ko" ;;
		esac >"$mod/lib/modules/$rel/kernel/drivers/block/brd.ko"; then
		echo "$initramfs"
		return
	fi
	echo "kernel/drivers/block/brd.ko:" >"$mod/lib/modules/$rel/modules.dep"
	(cd "$mod" && find . -print0 | LC_ALL=C sort -z | cpio --null -o -H newc --quiet) >"$img/modules.cpio"
	cat "$initramfs" "$img/modules.cpio" >"$img/initrd.cpio"
	echo "$img/initrd.cpio"
}

while read -r name dist pkg expect; do
	[ -n "$name" ] || continue
	selected "$name" || continue
	echo "== kernel $name"
	tests=$SUBSET
	[ "$expect" = refuse ] && tests=features
	log=$KDIR/log/$name.tests.log
	rm -f "$log" "$KDIR/log/$name.console.log"
	t0=$(date +%s)
	if [ "$dist" = - ]; then
		# The running kernel: natively (run.sh takes the lock itself).
		# shellcheck disable=SC2086
		"$ROOT/tests/run.sh" $tests >"$log" 2>&1
		result "$name" "$log" $(($(date +%s) - t0)) "host $(uname -r), native"
		continue
	fi
	if [ "$expect" = smoke ]; then
		# arm64 under qemu-system-aarch64: its own script (it takes the lock).
		rm -f "$KDIR/log/$name.console.log"
		BOOT_TIMEOUT=$BOOT_TIMEOUT CONSOLE=$KDIR/log/$name.console.log \
			"$ROOT/tests/kernels/arm64.sh" "$dist" "$pkg" >"$log" 2>&1
		st=$?
		if [ $st -eq 3 ]; then
			echo "kernel $name: skipped: $(tail -1 "$log")"
			summary+=("kernel $name: skipped ($(tail -1 "$log"))")
			tot_s=$((tot_s + 1))
			continue
		fi
		# Its lib.sh summary line as the guests' run.sh prints it.
		line=$(sed -n 's/^integ arm64.sh: \([0-9]* passed, [0-9]* failed\), 0 skipped$/\1/p;
			s/^integ arm64.sh: \([0-9]* passed, [0-9]* failed, [1-9][0-9]* skipped\)$/\1/p' "$log")
		[ -n "$line" ] && echo "$line" >>"$log"
		grep -a '^  FAIL' "$log" | sed 's/^/  /'
		result "$name" "$log" $(($(date +%s) - t0)) \
			"$(sed -n 's/^guest kernel: //p' "$log"), arm64, $expect"
		continue
	fi
	img=$KDIR/img/$name
	if ! deb=$("$ROOT/tests/kernels/fetch.sh" "$dist" "$pkg" "$img" 2>"$KDIR/log/$name.fetch.log"); then
		why=$(tail -1 "$KDIR/log/$name.fetch.log")
		echo "kernel $name: skipped: cannot fetch $pkg from $dist: ${why:-unknown reason}"
		summary+=("kernel $name: skipped ($pkg from $dist: ${why:-unknown reason})")
		tot_s=$((tot_s + 1))
		continue
	fi
	if ! build_initramfs; then
		result "$name" /dev/null 0 "${deb%.deb}: no initramfs"
		continue
	fi
	vmlinuz=$(ls "$img"/boot/vmlinuz-* | head -1)
	initrd=$(kernel_initrd "$img")
	limit=$BOOT_TIMEOUT
	# A guest whose kernel crashed (an oops: 6.12 once died of an int3 in
	# __schedule while perf patched a static key, an emulation race under
	# TCG) or hung prints no summary: it is booted once more, and the first
	# boot's logs are kept as NAME.*.attempt1.log. A run that prints a
	# summary is never retried: a failing test fails.
	for attempt in 1 2; do
		rm -f "$log" "$KDIR/log/$name.console.log"
		# -cpu max: every feature TCG emulates; thread=$TCG_THREAD (above).
		flock -w 3600 /tmp/trigrec-trace.lock \
			timeout -k 10 "$limit" qemu-system-x86_64 -accel "tcg,thread=$TCG_THREAD" -cpu max \
			-smp 2 -m 2048 -nodefaults -display none -no-reboot \
			-kernel "$vmlinuz" -initrd "$initrd" \
			-append "console=ttyS0 panic=-1 trigrec.tests=${tests// /,} trigrec.slow=$SLOW trigrec.watch=$((limit - 40))" \
			-serial "file:$KDIR/log/$name.console.log" -serial "file:$log" </dev/null
		st=$?
		sed -i 's/\r$//' "$log" "$KDIR/log/$name.console.log" 2>/dev/null # the serial line's CRLF
		[ $st -eq 124 ] && echo "  qemu timed out after ${limit}s" >>"$log"
		[ -e "$log" ] || : >"$log"
		grep -aqE '^[0-9]+ passed, [0-9]+ failed' "$log" && break
		[ $attempt -eq 2 ] && break
		why=$(grep -aoE 'Oops: .*|Kernel panic.*' "$KDIR/log/$name.console.log" | head -1)
		[ $st -eq 124 ] && why="timed out after ${limit}s"
		echo "  $name: no summary from the guest (${why:-it stopped}): booting it once more"
		watch_report "$KDIR/log/$name.console.log"
		mv "$log" "$KDIR/log/$name.tests.attempt1.log"
		mv "$KDIR/log/$name.console.log" "$KDIR/log/$name.console.attempt1.log"
	done
	result "$name" "$log" $(($(date +%s) - t0)) "${deb%.deb}, $expect"
done <<<"$MATRIX"

echo
printf '%s\n' "${summary[@]}"
echo "(matrix: $(($(date +%s) - start))s)"
if [ "$tot_s" -gt 0 ]; then
	echo "$tot_p passed, $tot_f failed, $tot_s skipped"
else
	echo "$tot_p passed, $tot_f failed"
fi
[ "$tot_f" -eq 0 ]
