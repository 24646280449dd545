// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * trigrec's in-kernel half: the recording programs (rings=bpf), the freeze
 * gates (perf-written events) and the trigger engine.
 *
 * A tracepoint recorded by BPF carries tp_rec (tp_hook with triggers), which
 * writes its record into the active ring set and never returns 0; a trigger
 * flips the set at its cut. A perf-written tracepoint carries tp_gate
 * (tp_hook) and every recorded sampling event pe_gate. Returning 0 from a
 * gate drops the record before it reaches any perf ring, so once a trigger
 * has set freeze_at nothing newer than the cut is written, however late the
 * side-band thread wakes up.
 *
 * Triggers are data, not code: userspace compiles each into a
 * trigrec_trigger_cfg (filters as forward-jumping clause lists, keys,
 * thresholds, policies) and one precompiled program evaluates them all.
 *
 * One object, in six parts included in order, each a job (state, scope,
 * engine, records, gates, fastpath: see each part's head comment). They are
 * headers, not objects linked by bpftool: nearly everything is
 * __always_inline and shares maps and globals, and one translation unit
 * keeps the verified code identical to the single file it was.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include "trigrec_abi.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

#include "state.bpf.h"
#include "scope.bpf.h"
#include "engine.bpf.h"
#include "records.bpf.h"
#include "gates.bpf.h"
#include "fastpath.bpf.h"
