/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * trigrec.bpf.c, part 2 of 6: whose events these are. The --cgroup, -p and
 * command scopes and the -C CPU set, as the recording programs, the gates
 * and the triggers ask them, and gate_pass(), the freeze test of perf's
 * rings (one load while nothing is frozen).
 */
#ifndef TRIGREC_SCOPE_BPF_H
#define TRIGREC_SCOPE_BPF_H

static __always_inline int in_task_scope(void);

/* Is the current task in the --cgroup (or a cgroup below it)? */
static __always_inline int in_cgroup(void)
{
	if (!scope_cgroup)
		return 1;
	return bpf_current_task_under_cgroup(&cgroup_scope, 0) == 1;
}

/*
 * 1 = let the record through. Costs one load while recording. While frozen,
 * records our rings would never receive (other CPUs with -C, other tasks with
 * -p or a command, other cgroups with --cgroup) pass: dropping a tracepoint
 * record drops it for every perf user, so the freeze should touch no more
 * than it must.
 */
static __always_inline int gate_pass(void)
{
	__u64 cut = *(volatile __u64 *)&freeze_at;
	struct trigrec_stats *st;

	if (!cut || bpf_ktime_get_ns() <= cut)
		return 1;
	if (cpu_limited) {
		__u32 cpu = bpf_get_smp_processor_id();

		if (cpu >= TRIGREC_MAX_CPUS || !cpu_recorded[cpu])
			return 1;
	}
	if (scope_gates && !in_task_scope())
		return 1;
	if (!in_cgroup())
		return 1;
	st = stat_slot(TRIGREC_MAX_TRIGGERS);
	if (st)
		st->gated++;
	return 0;
}

/* Is task t the scope process or one of its descendants? */
static __always_inline int task_in_scope(struct task_struct *t)
{
	int i;

	/*
	 * BTF pointers, read with plain loads (the verifier makes each a
	 * fault-safe load): every recorded event of a task-scoped recording
	 * asks this, and a bpf_probe_read_kernel() call per field cost more
	 * than the load.
	 */
	for (i = 0; i < TRIGREC_SCOPE_DEPTH && t; i++) {
		__u32 tgid = t->tgid;

		if (tgid == scope_tgid)
			return 1;
		if (tgid <= 1)
			return 0;
		t = t->real_parent;
	}
	return 0;
}

/* Is the current task the scope process or one of its descendants? */
static __always_inline int in_task_scope(void)
{
	if (!scope_tgid)
		return 1;
	return task_in_scope(bpf_get_current_task_btf());
}

/*
 * This CPU's numbering, if this object is the one that records and fires
 * on it, else NULL. One object at a time is: a reload attaches the new
 * object while the old one still records, then userspace moves `live` to
 * it CPU by CPU (bpfctl__go_live()), each with one store made on that CPU,
 * which no event there can straddle.
 */
static __always_inline struct trigrec_rec_cpu *live_cpu(__u32 cpu)
{
	struct trigrec_rec_cpu *rc = bpf_map_lookup_elem(&rec_cpu, &cpu);

	return rc && rc->live == generation ? rc : NULL;
}

/*
 * Is the current task trigrec itself (exclude_self: no --include-self)?
 * Its own threads by tgid; with self_kids (on_snapshot commands run), also
 * its children and their descendants up to SELF_DEPTH generations, except
 * the recorded command's (scope_tgid: trigrec's child too). One compare
 * while no on_snapshot command is configured. See docs/operations.md.
 */
#define SELF_DEPTH 8

static __always_inline int is_self(void)
{
	struct task_struct *t;

	if (!exclude_self)
		return 0;
	if ((bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return 1;
	if (!self_kids)
		return 0;
	t = bpf_get_current_task_btf();
	for (int i = 0; i < SELF_DEPTH && t; i++) {
		__u32 tgid = t->tgid;

		if (tgid == self_tgid)
			return 1;
		if (tgid <= 1 || tgid == scope_tgid)
			return 0;
		t = t->real_parent;
	}
	return 0;
}

/*
 * Task mode (scope_gates): is a scheduler event about task p recorded on
 * this CPU although the current task is out of scope? p is the task switched
 * in (sched_switch's next) or woken (sched_wakeup, sched_waking: issued by
 * the waker, or from another CPU's idle task or an interrupt). Without these
 * a scoped task's time on a CPU would run until it next leaves it and its
 * wake-ups would be missing (issue 33). Not for trigrec's own threads'
 * events unless p is in scope: a wake-up of the command is about the
 * command. The task-scoped recording's CPU set and reloads apply as in
 * rec_wanted().
 */
static __always_inline int scope_peer(__u32 cpu, struct task_struct *p)
{
	if (!scope_gates || !p || cpu >= TRIGREC_MAX_CPUS || (cpu_limited && !cpu_recorded[cpu]) ||
	    !live_cpu(cpu))
		return 0;
	return task_in_scope(p);
}

/* May triggers fire for the current task? */
static __always_inline int in_scope(void)
{
	if (!live_cpu(bpf_get_smp_processor_id()))
		return 0;
	/* Writing a snapshot (openat, write, fsync, rename) must not fire another one. */
	if (self_tgid && (bpf_get_current_pid_tgid() >> 32) == self_tgid)
		return 0;
	return in_cgroup() && in_task_scope();
}

#endif /* TRIGREC_SCOPE_BPF_H */
