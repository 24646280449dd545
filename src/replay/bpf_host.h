/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The BPF side's helpers and maps on the host, so that bpf/state.bpf.h and
 * bpf/engine.bpf.h compile as userspace C (src/replay/engine_host.c) and
 * the same source lines decide in both places. Included by engine_host.c
 * only, before the BPF headers.
 *
 * Maps: libbpf's `__uint`/`__type` members carry a map's type, key and
 * value types and max_entries in their own types; here `__uint(type, T)`
 * also adds a pointer to the host table, made at the first use from those
 * sizes (host_map_get()). Arrays are zeroed tables; hashes are open
 * addressing, bounded by max_entries (an LRU one evicts its least recently
 * used entry when full, a plain one refuses with -E2BIG); per-CPU arrays
 * keep one copy (the replay is one thread). Helpers read the record being
 * replayed (struct host_cur): its time, pid, tid, cpu and comm. The text
 * behind a pointer (bpf_probe_read_*_str) is not in a recording: those
 * reads fail, as a bad address does in the kernel.
 */
#ifndef TRIGREC_BPF_HOST_H
#define TRIGREC_BPF_HOST_H
#include <stddef.h>
#include <stdint.h>
#include <linux/bpf.h>
#include <linux/types.h>

struct host_map;

/* What the helpers answer for the record being evaluated. */
struct host_cur {
	__u64 now; /* bpf_ktime_get_ns() */
	__u32 pid, tid, cpu;
	__u64 cgroup;
	char comm[16];
};
extern struct host_cur host_cur;

/* Called for every bpf_ringbuf_submit() of the side-band ring (a firing). */
extern void (*host_submit)(const void *msg, __u32 size, void *arg);
extern void *host_submit_arg;

struct host_map *host_map_new(struct host_map **slot, __u32 type, __u32 key_size, __u32 value_size,
			      __u32 max_entries);
void *host_map_lookup(struct host_map *m, const void *key);
long host_map_update(struct host_map *m, const void *key, const void *value, __u64 flags);
long host_map_delete(struct host_map *m, const void *key);
/* Drop every table (the next use makes it anew, empty). */
void host_maps_reset(void);

void *host_ringbuf_reserve(__u64 size);
void host_ringbuf_submit(void *p);
long host_loop(__u32 n, long (*cb)(__u32 i, void *ctx), void *ctx);
long host_probe_read_str(void *dst, __u32 size, const void *src);
long host_probe_read(void *dst, __u32 size, const void *src);
void *host_task_storage(struct host_map *m, __u64 flags);

#define SEC(name)
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#define __noinline __attribute__((noinline))

/* A map's members, as libbpf declares them, plus the host table. */
#define HOST_MAP_MEMBER_type struct host_map *host
#define HOST_MAP_MEMBER_max_entries int host_pad_max_entries
#define HOST_MAP_MEMBER_map_flags int host_pad_map_flags
#define HOST_MAP_MEMBER_key_size int host_pad_key_size
#define HOST_MAP_MEMBER_value_size int host_pad_value_size
#define __uint(name, val) \
	int(*name)[val];  \
	HOST_MAP_MEMBER_##name
#define __type(name, val) typeof(val) *name

#define HOST_MAP_TYPE(m) ((__u32)(sizeof(*(m)->type) / sizeof(int)))
#define HOST_MAP_MAX(m) ((__u32)(sizeof(*(m)->max_entries) / sizeof(int)))
#define HOST_MAP(m)                                                                \
	((m)->host ? (m)->host :                                                   \
		     host_map_new(&(m)->host, HOST_MAP_TYPE(m), sizeof(*(m)->key), \
				  sizeof(*(m)->value), HOST_MAP_MAX(m)))

#define bpf_map_lookup_elem(m, k) host_map_lookup(HOST_MAP(m), (k))
#define bpf_map_update_elem(m, k, v, f) host_map_update(HOST_MAP(m), (k), (v), (f))
#define bpf_map_delete_elem(m, k) host_map_delete(HOST_MAP(m), (k))

/* Task storage: one value per thread (the replayed record's tid), no bound. */
struct task_struct;
#define bpf_get_current_task_btf() ((struct task_struct *)&host_cur)
#define bpf_task_storage_get(m, task, init, flags)                                              \
	((void)(task), (void)(init),                                                            \
	 host_task_storage((m)->host ? (m)->host :                                              \
				       host_map_new(&(m)->host, BPF_MAP_TYPE_TASK_STORAGE,      \
						    sizeof(*(m)->key), sizeof(*(m)->value), 0), \
			   (flags)))

#define bpf_ringbuf_reserve(m, size, flags) host_ringbuf_reserve(size)
#define bpf_ringbuf_submit(p, flags) host_ringbuf_submit(p)
#define bpf_ringbuf_discard(p, flags) ((void)(p))
#define bpf_loop(n, cb, ctx, flags) host_loop((n), (cb), (ctx))

#define bpf_ktime_get_ns() (host_cur.now)
#define bpf_get_current_pid_tgid() (((__u64)host_cur.pid << 32) | host_cur.tid)
#define bpf_get_smp_processor_id() (host_cur.cpu)
#define bpf_get_current_cgroup_id() (host_cur.cgroup)
#define bpf_get_current_comm(buf, size) host_probe_read((buf), (size), host_cur.comm)
#define bpf_probe_read_user_str(dst, size, src) host_probe_read_str((dst), (size), (src))
#define bpf_probe_read_kernel_str(dst, size, src) host_probe_read_str((dst), (size), (src))
#define bpf_probe_read_kernel(dst, size, src) host_probe_read((dst), (size), (src))

#endif
