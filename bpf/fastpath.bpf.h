/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 6 of 6: the tp_btf fast paths, which build the
 * records of the most recorded events from the tracepoint's arguments and
 * run their triggers on them in place.
 */
#ifndef TRIGREC_FASTPATH_BPF_H
#define TRIGREC_FASTPATH_BPF_H

/*
 * Fast paths (rings=bpf, recorded tracepoints without a trigger or a
 * --filter). A classic tracepoint program gets the record after the kernel
 * built it, and record() copies it once more; these tp_btf programs build
 * the same record straight from the tracepoint's arguments into the buffer
 * they write. Each lays the record out as the kernel's own struct
 * trace_event_raw_* (CO-RE relocated), so the writer and perf read it as
 * any other; userspace picks one only where the format file names exactly
 * the fields it fills (bpfctl.c, fast_path_for()). tp_btf programs carry no
 * BPF cookie on this libbpf: fp_hook[] names each one's hook. Their return
 * value is ignored: nobody else's event is ever touched.
 */
__u32 fp_hook[TRIGREC_FP_NR] = {}; /* hook index + 1; 0 = not in use */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, TRIGREC_FP_SYSCALLS);
	__type(key, __u32);
	__type(value, struct trigrec_fp_syscall);
} fp_syscalls SEC(".maps");

/*
 * A fast path's record, on the stack: each program has its own, so a
 * program interrupted by another (an interrupt that wakes a task inside a
 * sched_switch, say) never shares a buffer. The records fit: sched_switch's,
 * the largest, is 64 bytes (userspace checks every format against it).
 */
#define FP_MAX TRIGREC_FP_MAX_RECORD
struct fp_rec {
	struct trigrec_rec_hdr h;
	__u8 d[FP_MAX];
};

/* The config of hook h (index + 1), or NULL. */
static __always_inline const struct trigrec_hook_cfg *fp_cfg(__u32 h)
{
	__u32 idx = h - 1;

	return h ? bpf_map_lookup_elem(&hooks, &idx) : NULL;
}

/* What a fast path does with its event (fp_begin()). */
#define FP_REC 1  /* write it into this CPU's active set */
#define FP_TRIG 2 /* run its hook's triggers on it */

/* A fast path's event in the making. */
struct fp_ev {
	const struct trigrec_hook_cfg *hc;
	void *buf;	   /* a trigrec_rec_hdr, then the record (FP_D()) */
	struct scratch *s; /* FP_TRIG: the slot the record is built in */
	__u64 now;	   /* FP_REC: the record's time */
	__u32 cpu;
	__u32 h; /* hook index + 1 */
	int want;
};
#define FP_D(f) ((void *)((__u8 *)(f)->buf + sizeof(struct trigrec_rec_hdr)))
_Static_assert(__builtin_offsetof(struct scratch, d) == sizeof(struct trigrec_rec_hdr) &&
		       __builtin_offsetof(struct fp_rec, d) == sizeof(struct trigrec_rec_hdr),
	       "a fast path's record sits right behind its header in both buffers");

/*
 * Hook h (index + 1) of fast path kind k: is this event recorded here
 * (FP_REC), and do triggers evaluate it (FP_TRIG)? With triggers, the
 * record is built in kind k's scratch slot, which the engine reads in place
 * and rec_emit() writes from; without, on the stack (r). 0: nothing to do.
 */
static __always_inline int fp_begin_peer(struct fp_ev *f, __u32 h, __u32 k, struct fp_rec *r,
					 struct task_struct *peer)
{
	__u32 slot = 2 + k;

	f->want = 0;
	f->s = NULL;
	f->buf = r;
	f->hc = fp_cfg(h);
	if (!f->hc)
		return 0;
	f->h = h;
	f->cpu = bpf_get_smp_processor_id();
	f->now = 0;
	if ((f->hc->flags & TRIGREC_HOOK_BPFREC) &&
	    (rec_wanted(f->cpu) || scope_peer(f->cpu, peer))) {
		f->want = FP_REC;
		/*
		 * Stamped now, as tp_rec stamps at its start, not once the record
		 * is built: an interrupt while it is built (a softirq raised from a
		 * timer inside softirq_entry's program) is a later event.
		 */
		f->now = bpf_ktime_get_ns();
	}
	if (f->hc->ntrig && in_scope()) {
		f->s = bpf_map_lookup_elem(&scratch_map, &slot);
		if (f->s) {
			f->want |= FP_TRIG;
			f->buf = f->s;
		}
	}
	return f->want;
}

/*
 * As fp_begin_peer(), for events about the current task only. A scheduler
 * event names the task it is about (peer): in task mode it is recorded when
 * that task is in scope, whoever runs it (scope_peer()).
 */
static __always_inline int fp_begin(struct fp_ev *f, __u32 h, __u32 k, struct fp_rec *r)
{
	return fp_begin_peer(f, h, k, r, NULL);
}

/*
 * The record is built: write it (stamped f->now), then run the triggers on it,
 * as tp_hook does (a trigger's own record is the last before its cut).
 */
static __always_inline void fp_end(void *ctx, struct fp_ev *f)
{
	struct scratch *s = f->s;
	__u32 sz;

	if (f->want & FP_REC)
		rec_emit(ctx, f->buf, f->hc, f->cpu, f->hc->rec_size, f->now, FP_MAX);
	if (!s)
		return;
	fix_common(s->d, f->hc);
	sz = f->hc->data_size;
	s->size = sz > FP_MAX ? FP_MAX : sz;
	s->now = f->now; /* 0: not recorded, the engine reads the clock if it matches */
	s->hook = f->h - 1;
	s->hook_recorded = !!(f->hc->flags & TRIGREC_HOOK_RECORDED);
	hook_triggers((struct trigrec_hook_cfg *)f->hc, s);
}

/*
 * TASK_COMM_LEN bytes in four 4-byte loads (the verifier allows them inside
 * the array; signal_generate's comm is only 4-byte aligned in the record,
 * and stack stores must be aligned).
 */
static __always_inline void fp_comm(char *dst, const char *src)
{
	for (int i = 0; i < 4; i++)
		((__u32 *)dst)[i] = ((const __u32 *)src)[i];
}

/*
 * sched_switch's prev_state as the kernel computes it
 * (__trace_sched_switch_state, __task_state_index): preemption is
 * TASK_REPORT_MAX; else the highest bit of the reported state, with
 * TASK_IDLE reported as TASK_REPORT_IDLE and RT-lock waits and frozen
 * tasks as uninterruptible.
 */
#define FP_TASK_REPORT 0x7f
#define FP_TASK_REPORT_IDLE 0x80
#define FP_TASK_REPORT_MAX 0x100
#define FP_TASK_IDLE 0x402 /* TASK_UNINTERRUPTIBLE | TASK_NOLOAD */
#define FP_TASK_RTLOCK_WAIT 0x1000
#define FP_TASK_FROZEN 0x8000
static __always_inline long fp_switch_state(int preempt, unsigned int s, struct task_struct *p)
{
	unsigned int st;

	if (preempt)
		return FP_TASK_REPORT_MAX;
	st = (s | (unsigned int)p->exit_state) & FP_TASK_REPORT;
	if ((s & FP_TASK_IDLE) == FP_TASK_IDLE)
		st = FP_TASK_REPORT_IDLE;
	if (s & (FP_TASK_RTLOCK_WAIT | FP_TASK_FROZEN))
		st = 2; /* TASK_UNINTERRUPTIBLE */
	for (int i = 7; i >= 0; i--)
		if (st & (1u << i))
			return 1l << i;
	return 0;
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(fp_sched_switch, bool preempt, struct task_struct *prev, struct task_struct *next,
	     unsigned int prev_state)
{
	struct trace_event_raw_sched_switch *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin_peer(&f, fp_hook[TRIGREC_FP_SCHED_SWITCH], TRIGREC_FP_SCHED_SWITCH, &r, next))
		return 0;
	e = FP_D(&f);
	if (compact && !f.s && f.hc->cr_skip) {
		/* Not written (cr_skip): the writer fills the names in. Triggers read them. */
		__builtin_memset(e->prev_comm, 0, sizeof(e->prev_comm));
		__builtin_memset(e->next_comm, 0, sizeof(e->next_comm));
	} else {
		fp_comm(e->prev_comm, prev->comm);
		fp_comm(e->next_comm, next->comm);
	}
	e->prev_pid = prev->pid;
	e->prev_prio = prev->prio;
	e->prev_state = fp_switch_state(preempt, prev_state, prev);
	e->next_pid = next->pid;
	e->next_prio = next->prio;
	fp_end(ctx, &f);
	return 0;
}

/* sched_wakeup, sched_wakeup_new, sched_waking: one record layout (sched_wakeup_template). */
static __always_inline void fp_wakeup(void *ctx, __u32 k, struct task_struct *p)
{
	struct trace_event_raw_sched_wakeup_template *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin_peer(&f, fp_hook[k], k, &r, p))
		return;
	e = FP_D(&f);
	fp_comm(e->comm, p->comm);
	e->pid = p->pid;
	e->prio = p->prio;
	e->target_cpu = p->thread_info.cpu; /* task_cpu() */
	fp_end(ctx, &f);
}

SEC("?tp_btf/sched_wakeup")
int BPF_PROG(fp_sched_wakeup, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKEUP, p);
	return 0;
}

SEC("?tp_btf/sched_wakeup_new")
int BPF_PROG(fp_sched_wakeup_new, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKEUP_NEW, p);
	return 0;
}

SEC("?tp_btf/sched_waking")
int BPF_PROG(fp_sched_waking, struct task_struct *p)
{
	fp_wakeup(ctx, TRIGREC_FP_SCHED_WAKING, p);
	return 0;
}

/* softirq_entry, softirq_exit, softirq_raise: the vector (struct trace_event_raw_softirq). */
static __always_inline void fp_softirq(void *ctx, __u32 k, unsigned int vec)
{
	struct trace_event_raw_softirq *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[k], k, &r))
		return;
	e = FP_D(&f);
	e->vec = vec;
	fp_end(ctx, &f);
}

SEC("?tp_btf/softirq_entry")
int BPF_PROG(fp_softirq_entry, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_ENTRY, vec);
	return 0;
}

SEC("?tp_btf/softirq_exit")
int BPF_PROG(fp_softirq_exit, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_EXIT, vec);
	return 0;
}

SEC("?tp_btf/softirq_raise")
int BPF_PROG(fp_softirq_raise, unsigned int vec)
{
	fp_softirq(ctx, TRIGREC_FP_SOFTIRQ_RAISE, vec);
	return 0;
}

SEC("?tp_btf/irq_handler_exit")
int BPF_PROG(fp_irq_handler_exit, int irq, struct irqaction *action, int ret)
{
	struct trace_event_raw_irq_handler_exit *e;
	struct fp_rec r;
	struct fp_ev f;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_IRQ_HANDLER_EXIT], TRIGREC_FP_IRQ_HANDLER_EXIT, &r))
		return 0;
	e = FP_D(&f);
	e->irq = irq;
	e->ret = ret;
	fp_end(ctx, &f);
	return 0;
}

/*
 * TP_STORE_SIGINFO: SEND_SIG_NOINFO (0) is a signal from user space
 * (SI_USER), SEND_SIG_PRIV (1) one from the kernel (SI_KERNEL); anything
 * else is a siginfo to read.
 */
static __always_inline void fp_siginfo(struct kernel_siginfo *info, int *err, int *code)
{
	if ((unsigned long)info <= 1) {
		*err = 0;
		*code = info ? 0x80 : 0; /* SI_KERNEL : SI_USER */
	} else {
		/* A probe read: the verifier takes this argument for a scalar (it may be 1). */
		*err = BPF_CORE_READ(info, si_errno);
		*code = BPF_CORE_READ(info, si_code);
	}
}

SEC("?tp_btf/signal_generate")
int BPF_PROG(fp_signal_generate, int sig, struct kernel_siginfo *info, struct task_struct *task,
	     int group, int result)
{
	struct trace_event_raw_signal_generate *e;
	struct fp_rec r;
	struct fp_ev f;
	int err, code;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_SIGNAL_GENERATE], TRIGREC_FP_SIGNAL_GENERATE, &r))
		return 0;
	e = FP_D(&f);
	fp_siginfo(info, &err, &code);
	e->sig = sig;
	e->errno = err;
	e->code = code;
	fp_comm(e->comm, task->comm);
	e->pid = task->pid;
	e->group = group;
	e->result = result;
	fp_end(ctx, &f);
	return 0;
}

SEC("?tp_btf/signal_deliver")
int BPF_PROG(fp_signal_deliver, int sig, struct kernel_siginfo *info, struct k_sigaction *ka)
{
	struct trace_event_raw_signal_deliver *e;
	struct fp_rec r;
	struct fp_ev f;
	int err, code;

	if (!fp_begin(&f, fp_hook[TRIGREC_FP_SIGNAL_DELIVER], TRIGREC_FP_SIGNAL_DELIVER, &r))
		return 0;
	e = FP_D(&f);
	fp_siginfo(info, &err, &code);
	e->sig = sig;
	e->errno = err;
	e->code = code;
	e->sa_handler = (unsigned long)ka->sa.sa_handler;
	e->sa_flags = ka->sa.sa_flags;
	fp_end(ctx, &f);
	return 0;
}

/* A system call's six arguments as syscall_get_arguments() reads them. */
static __always_inline void fp_sys_args(struct pt_regs *r, unsigned long *a)
{
#if defined(__TARGET_ARCH_x86)
	a[0] = r->di;
	a[1] = r->si;
	a[2] = r->dx;
	a[3] = r->r10;
	a[4] = r->r8;
	a[5] = r->r9;
#elif defined(__TARGET_ARCH_arm64)
	a[0] = r->orig_x0;
	for (int i = 1; i < 6; i++)
		a[i] = r->regs[i];
#else
#error "fp_sys_args: no syscall argument registers for this architecture"
#endif
}

/* syscall_get_nr() at sys_exit. */
static __always_inline long fp_sys_nr(struct pt_regs *r)
{
#if defined(__TARGET_ARCH_x86)
	return r->orig_ax;
#else
	return r->syscallno;
#endif
}

/*
 * The per-syscall events skip 32-bit system calls of a 64-bit kernel (x86:
 * trace_get_syscall_nr() is -1 for them); raw_syscalls records them.
 */
static __always_inline int fp_compat(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *t = bpf_get_current_task_btf();

	return t->thread_info.status & 0x0002; /* TS_COMPAT */
#else
	return 0;
#endif
}

/* The syscalls:sys_{enter,exit}_<name> hook for nr (index + 1), 0 if none. */
static __always_inline __u32 fp_sys_hook(long nr, int exit)
{
	struct trigrec_fp_syscall *fs;
	__u32 key = (__u32)nr;

	if (nr < 0 || nr >= TRIGREC_FP_SYSCALLS)
		return 0;
	fs = bpf_map_lookup_elem(&fp_syscalls, &key);
	if (!fs)
		return 0;
	return exit ? fs->exit : fs->enter;
}

/*
 * raw_syscalls and syscalls:* share one program per direction (and one
 * scratch slot: the two are built one after the other).
 */
SEC("?tp_btf/sys_enter")
int BPF_PROG(fp_sys_enter, struct pt_regs *regs, long id)
{
	__u32 raw = fp_hook[TRIGREC_FP_RAW_SYS_ENTER], one = fp_sys_hook(id, 0);
	unsigned long a[6];
	struct fp_rec r;
	struct fp_ev f;

	if (!raw && !one)
		return 0;
	if (fp_begin(&f, raw, TRIGREC_FP_RAW_SYS_ENTER, &r)) {
		struct trace_event_raw_sys_enter *e = FP_D(&f);

		fp_sys_args(regs, a);
		e->id = id;
		for (int i = 0; i < 6; i++)
			e->args[i] = a[i];
		fp_end(ctx, &f);
	}
	if (one && !fp_compat() && fp_begin(&f, one, TRIGREC_FP_RAW_SYS_ENTER, &r)) {
		/* struct syscall_trace_enter: nr, then the call's own arguments. */
		__u32 n = f.hc->data_size > 16 ? ((__u32)f.hc->data_size - 16) >> 3 : 0;
		__u8 *d = FP_D(&f);

		fp_sys_args(regs, a);
		*(__u32 *)&d[8] = (__u32)id;
		*(__u32 *)&d[12] = 0;
		for (int i = 0; i < 6; i++)
			if (i < n)
				*(__u64 *)&d[16 + 8 * i] = a[i];
		fp_end(ctx, &f);
	}
	return 0;
}

SEC("?tp_btf/sys_exit")
int BPF_PROG(fp_sys_exit, struct pt_regs *regs, long ret)
{
	__u32 raw = fp_hook[TRIGREC_FP_RAW_SYS_EXIT], one;
	long nr = fp_sys_nr(regs);
	struct fp_rec r;
	struct fp_ev f;

	one = fp_sys_hook(nr, 1);
	if (!raw && !one)
		return 0;
	if (fp_begin(&f, raw, TRIGREC_FP_RAW_SYS_EXIT, &r)) {
		struct trace_event_raw_sys_exit *e = FP_D(&f);

		e->id = nr;
		e->ret = ret;
		fp_end(ctx, &f);
	}
	if (one && !fp_compat() && fp_begin(&f, one, TRIGREC_FP_RAW_SYS_EXIT, &r)) {
		/* struct syscall_trace_exit: nr, then the return value. */
		__u8 *d = FP_D(&f);

		*(__u32 *)&d[8] = (__u32)nr;
		*(__u32 *)&d[12] = 0;
		*(__s64 *)&d[16] = ret;
		fp_end(ctx, &f);
	}
	return 0;
}

#endif /* TRIGREC_FASTPATH_BPF_H */
