// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Bench row 3f, "the floor": what the kernel's dispatch into a BPF program
 * costs per getpgid, and the least a BPF recorder can add to it, beside
 * ftrace and trigrec in one run. Not trigrec code: bench/floor.c loads
 * one pair of these programs (enter, exit) per variant.
 *
 *   cnop / crec   classic tracepoints syscalls:sys_{enter,exit}_getpgid
 *   bnop / brec   tp_btf/sys_{enter,exit}, the syscall number tested first
 *                 (brec with rec_nr = getppid is the row's "bother")
 *
 * A record is 24 bytes written with plain stores into this CPU's part of
 * an mmapable array map used as a byte ring, as the prototype's v7c
 * (shared/prototypes/bpf-written-rings): time delta, event id, syscall
 * number, the argument or return value. No number, no lock, no length
 * byte: the least a recorder can do and still be read back.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include "floor.h"

char LICENSE[] SEC("license") = "GPL";

/* The syscall the tp_btf variants record (bench/floor.c sets it). */
const volatile long rec_nr = -1;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1); /* the number of possible CPUs, set before load */
	__type(key, __u32);
	__type(value, struct floor_ring);
} ring SEC(".maps");

static __always_inline void put(__u32 event, __u32 nr, __s64 val)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct floor_ring *fr = bpf_map_lookup_elem(&ring, &cpu);
	struct floor_rec *r;
	__u64 now, head;

	if (!fr)
		return;
	now = bpf_ktime_get_ns();
	head = fr->head;
	r = &fr->r[head & (FLOOR_RING_RECS - 1)];
	r->delta = now - fr->last;
	r->event = event;
	r->nr = nr;
	r->val = val;
	fr->last = now;
	fr->head = head + 1;
}

/*
 * A syscall tracepoint's record as a classic program sees it: 8 bytes of
 * common fields (the kernel puts a pt_regs pointer there for BPF), the
 * number, then the first argument (enter) or the return value (exit).
 */
struct sc_rec {
	__u64 common;
	__s32 nr;
	__s32 pad;
	__s64 val;
};

/* A classic tracepoint program that returns 0 drops the event for every perf user. */
SEC("?tracepoint/syscalls/sys_enter_getpgid")
int cnop_enter(void *ctx)
{
	return 1;
}

SEC("?tracepoint/syscalls/sys_exit_getpgid")
int cnop_exit(void *ctx)
{
	return 1;
}

SEC("?tracepoint/syscalls/sys_enter_getpgid")
int crec_enter(struct sc_rec *ctx)
{
	put(FLOOR_EV_ENTER, ctx->nr, ctx->val);
	return 1;
}

SEC("?tracepoint/syscalls/sys_exit_getpgid")
int crec_exit(struct sc_rec *ctx)
{
	put(FLOOR_EV_EXIT, ctx->nr, ctx->val);
	return 1;
}

/* syscall_get_nr() at sys_exit, as bpf/fastpath.bpf.h reads it. */
static __always_inline long sys_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return regs->orig_ax;
#else
	return regs->syscallno;
#endif
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(bnop_enter, struct pt_regs *regs, long id)
{
	/* tp_btf ignores the value: returned only so the test stays in. */
	return id == rec_nr;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(bnop_exit, struct pt_regs *regs, long ret)
{
	return sys_nr(regs) == rec_nr;
}

SEC("?tp_btf/sys_enter")
int BPF_PROG(brec_enter, struct pt_regs *regs, long id)
{
	if (id != rec_nr)
		return 0;
#if defined(__TARGET_ARCH_x86)
	put(FLOOR_EV_ENTER, id, regs->di);
#else
	put(FLOOR_EV_ENTER, id, regs->regs[0]);
#endif
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(brec_exit, struct pt_regs *regs, long ret)
{
	long nr = sys_nr(regs);

	if (nr != rec_nr)
		return 0;
	put(FLOOR_EV_EXIT, nr, ret);
	return 0;
}
