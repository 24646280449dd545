#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The compact rings' hot path as compiled (issue 32, bench row 3: the cost
# per recorded event; docs/benchmarks.md, "Where the compact path's time
# goes"). A helper call costs more than the stores it replaces:
# cr_emit_rec() and cr_emit_fp() copy an encoded record into its ring with
# stores; one bpf_probe_read_kernel() call is left, for the bytes past a
# record's 16 words. What the verifier and the live tests (rings, fastpath,
# cut, reload_stream) think of this code is theirs to say; this file keeps
# the helper call from coming back. Reads the built object only
# (llvm-objdump):
# trigrec-test: no-root
. "$(dirname "$0")/lib.sh"

OBJ=${HOTPATH_OBJ:-$OUTPUT/trigrec.bpf.o}
OBJDUMP=$(command -v llvm-objdump || command -v llvm-objdump-14 || true)

# fn_asm FUNC: FUNC's instructions, up to the next function (not a label).
fn_asm() {
	"$OBJDUMP" -d --no-show-raw-insn "$OBJ" |
		awk -v f="$1" '$0 ~ "^[0-9a-f]+ <" f ">:" { on = 1; next }
			/^[0-9a-f]+ <[^L][^>]*>:/ { on = 0 } on'
}

t_begin "hotpath: the compact writer copies a record without a helper call"
if [ -z "$OBJDUMP" ]; then
	t_skip "no llvm-objdump (apt install llvm) to read $OBJ with"
elif [ ! -f "$OBJ" ]; then
	t_skip "$OBJ is not built: run make first"
else
	for fn in cr_emit_rec cr_emit_fp; do
		asm=$(fn_asm "$fn")
		check_ge "$fn: instructions found in $OBJ" "$(printf '%s\n' "$asm" | grep -c ':')" 100
		# 113: BPF_FUNC_probe_read_kernel.
		check_eq "$fn: bpf_probe_read_kernel() calls (the tail past 16 words only)" \
			"$(printf '%s\n' "$asm" | grep -c 'call 113$')" 1
	done
fi
t_end

# The size-class programs' records (record_words()) go to an encoder of
# their own, cr_emit_wN: cr_body() with the record's size a constant, so the
# tail, the long-record header and the sized header fold away. A class's
# record ends within 16 words: its encoder has no helper call for a tail.
t_begin "hotpath: each size class has its own writer, with no tail to copy"
if [ -z "$OBJDUMP" ]; then
	t_skip "no llvm-objdump (apt install llvm) to read $OBJ with"
elif [ ! -f "$OBJ" ]; then
	t_skip "$OBJ is not built: run make first"
else
	for c in 1 2 3 4 5 6 7 8 0h 1h 2h 3h 4h 5h 6h 7h; do
		asm=$(fn_asm "cr_emit_w$c")
		check_ge "cr_emit_w$c: instructions found in $OBJ" "$(printf '%s\n' "$asm" | grep -c ':')" 100
		check_eq "cr_emit_w$c: bpf_probe_read_kernel() calls" \
			"$(printf '%s\n' "$asm" | grep -c 'call 113$')" 0
	done
fi
t_end
