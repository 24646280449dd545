#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Frames in kernel modules belong to their module: a snapshot maps every
# loaded module as perf record does (one kernel MMAP per module,
# src/snapshot/kmods.c). The brd RAM disk module is loaded and written to
# while cpu-clock samples with call chains; stock perf script must name
# brd's functions, file them where it files perf record's own, and leave
# no kernel frame unresolved. This VM's kernel has no modules
# (CONFIG_MODULES off), so the case runs in the kernel matrix's Debian
# guests, whose initramfs carries brd.ko (tests/kernels/run.sh).
. "$(dirname "$0")/lib.sh"
need_root

t_begin "kmod: frames in a kernel module resolve to its symbols, in its map"
ko=/lib/modules/$(uname -r)/kernel/drivers/block/brd.ko
if [ ! -e /proc/modules ]; then
	t_skip "kernel $(uname -r) has no loadable modules (CONFIG_MODULES off): nothing to map"
elif ! command -v "$PERF" >/dev/null; then
	t_skip "no perf"
elif ! grep -q '^brd ' /proc/modules && [ ! -e "$ko" ]; then
	t_skip "brd is not loaded and there is no $ko (the kernel matrix puts it in its guests)"
else
	loaded=0
	if ! grep -q '^brd ' /proc/modules; then
		# 1 disk of 64 MiB.
		insmod "$ko" rd_nr=1 rd_size=65536 2>"$TMP/insmod.err" && loaded=1
	fi
	if ! grep -q '^brd ' /proc/modules || [ ! -b /dev/ram0 ]; then
		t_fail "brd did not load: $(log_tail "$TMP/insmod.err")"
	else
		D=$TMP/k
		BASE=$(seq_base)
		# Writes that reach brd in the writer's context (fsync), then (for
		# trigrec) the trigger. perf record of the same is the oracle: how
		# it maps modules, and where perf script then files their frames.
		# shellcheck disable=SC2016 # $1 and $2 are bash -c's arguments
		work='for i in 1 2 3 4 5 6; do
			dd if=/dev/zero of=/dev/ram0 bs=1M count=32 conv=fsync 2>/dev/null
		done
		[ -z "$1" ] || exec "$1" -n 10 -t 5 -b "$2"'
		"$PERF" record -q -a -g -e cpu-clock -F 2000 -o "$TMP/kp.data" -- \
			bash -c "$work" kmod >"$TMP/kp.log" 2>&1
		tr_run "$TMP/k.log" -a -e cpu-clock -F 2000 -g --trigger syscalls:sys_enter_getsid \
			-o "$D" --no-final-snapshot -- bash -c "$work" kmod "$SEQGEN" "$BASE"
		rc=$?
		check_eq "exit code (log: $(log_tail "$TMP/k.log"))" "$rc" 0
		F=$(snaps "$D" sys_enter_getsid | head -1)
		if [ -z "$F" ]; then
			t_fail "no snapshot: $(log_tail "$TMP/k.log")"
		else
			# kallsyms from a copy: with /proc/kallsyms, perf 6.1 reads
			# /proc/kcore, whose maps replace the module maps once a kernel
			# symbol is looked up, so a frame's DSO would depend on which
			# address perf happened to look up first (seen: the same run's
			# perf record file filed brd's frames under [kernel.kallsyms],
			# trigrec's under [brd]). Without kcore both keep the module maps.
			cp /proc/kallsyms "$TMP/kallsyms"
			"$PERF" script --kallsyms "$TMP/kallsyms" --show-mmap-events -i "$F" >"$TMP/k.out" 2>"$TMP/k.err"
			"$PERF" script --kallsyms "$TMP/kallsyms" --show-mmap-events -i "$TMP/kp.data" >"$TMP/kp.out" 2>"$TMP/kp.err"
			# "PERF_RECORD_MMAP -1/0: [0xffffffffc0a0e000(0x5000) @ 0]: x /lib/modules/.../brd.ko"
			mm() { grep -oE 'PERF_RECORD_MMAP -1/0: \[0x[0-9a-f]+\(0x[0-9a-f]+\) @ [0-9a-fx]+\]: x .*brd.*' "$1" | head -1; }
			want=$(mm "$TMP/kp.out")
			check_ne "perf record's map of brd (log: $(log_tail "$TMP/kp.log"))" "$want" ""
			check_eq "brd's map as perf record's" "$(mm "$TMP/k.out")" "$want"
			# Frames at brd's addresses: named, and filed under the DSO perf's
			# own file gives them ([brd]; without the maps, trigrec's were
			# named through kallsyms but filed under [kernel.kallsyms]).
			addr=$(awk '$1 == "brd" { print $6 }' /proc/modules)
			frames() { grep -E "^\s+${addr:2:9}[0-9a-f]+ " "$1" | sed -E 's/^\s+[0-9a-f]+ //; s/\+0x[0-9a-f]+//' | sort | uniq -c | sort -rn; }
			top=$(frames "$TMP/k.out" | head -3 | tr -s ' \t' ' ')
			check_ge "frames in brd, named (the commonest: ${top:-none})" \
				"$(frames "$TMP/k.out" | grep -cE ' brd_[a-z_]+ \(')" 1
			echo "  note brd's frames are filed under: $(frames "$TMP/k.out" | sed -E 's/.*\((.*)\)$/\1/' | sort -u | tr '\n' ' ')(perf record's: $(frames "$TMP/kp.out" | sed -E 's/.*\((.*)\)$/\1/' | sort -u | tr '\n' ' '))"
			check_eq "the DSOs of brd's frames, as in perf record's file" \
				"$(frames "$TMP/k.out" | sed -E 's/.*\((.*)\)$/\1/' | sort -u | tr '\n' ' ')" \
				"$(frames "$TMP/kp.out" | sed -E 's/.*\((.*)\)$/\1/' | sort -u | tr '\n' ' ')"
			unres=$(unknown_kframes "$TMP/k.out" | grep -c .)
			if [ "$unres" != 0 ]; then
				# Which frames, in which samples, and what the address is.
				grep -E -B12 '^\s+ffffffff[0-9a-f]+ \[unknown\]' "$TMP/k.out" | head -40 | sed 's/^/  | /'
				echo "  note perf record's file has $(unknown_kframes "$TMP/kp.out" | grep -c .) unresolved kernel frames"
			fi
			check_eq "unresolved kernel frames" "$unres" 0
		fi
	fi
	[ $loaded = 1 ] && rmmod brd 2>/dev/null
fi
t_end
