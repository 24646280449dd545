// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf/engine.bpf.h (and the maps and globals of bpf/state.bpf.h) compiled
 * as userspace C, on the helpers and map tables of bpf_host.h. No line of
 * the engine is copied: the BPF headers are included as they are.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "replay/bpf_host.h"
#include "replay/engine_host.h"

/* The engine's global functions, kept out of the library's name space. */
#define cg_in_set eh_cg_in_set
#define load_string eh_load_string
#define str_op eh_str_op
#define eval_filter eh_eval_filter
#define str_hash eh_str_hash
#define build_key eh_build_key
#define learn_one eh_learn_one
#define learn_sample eh_learn_sample
#define run_trigger eh_run_trigger

/*
 * The per-run constants are `const volatile` in BPF (rodata, set before
 * load); here each replay sets them, so they must be writable. Only the
 * two BPF headers see this.
 */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wsign-compare" /* the BPF build has no -Wextra */
#define const
#include "../../bpf/state.bpf.h"
#include "../../bpf/engine.bpf.h"
#undef const
#pragma GCC diagnostic pop

struct host_cur host_cur;
void (*host_submit)(const void *msg, __u32 size, void *arg);
void *host_submit_arg;

/* ---- map tables ---- */

struct host_map {
	struct host_map **slot; /* the map's member that points here */
	struct host_map *next;
	__u32 type, key_size, value_size, max_entries;
	int hash;	    /* hash (open addressing), else array */
	int lru;	    /* evict the least recently used when full */
	__u32 cap, mask, n; /* hash: slots (a power of 2), used */
	size_t slot_size;   /* hash: used flag and stamp, key, value */
	__u8 *mem;	    /* array: max_entries values; hash: cap slots */
};

struct hslot {
	__u64 used; /* 0: free */
	__u64 stamp;
	/* key, then value at key_off */
};

static struct host_map *all_maps;
static __u64 lru_clock;

#define HS_HDR sizeof(struct hslot)

static size_t val_off(const struct host_map *m)
{
	return HS_HDR + ((m->key_size + 7) & ~7u);
}

struct host_map *host_map_new(struct host_map **slot, __u32 type, __u32 key_size, __u32 value_size,
			      __u32 max_entries)
{
	struct host_map *m = calloc(1, sizeof(*m));

	if (!m)
		abort(); /* the engine has no way to say it; a replay that runs out is over */
	m->slot = slot;
	m->type = type;
	m->key_size = key_size;
	m->value_size = value_size;
	m->max_entries = max_entries;
	switch (type) {
	case BPF_MAP_TYPE_ARRAY:
	case BPF_MAP_TYPE_PERCPU_ARRAY:
		m->mem = calloc(max_entries ? max_entries : 1, value_size);
		break;
	default:
		m->hash = 1;
		m->lru = type == BPF_MAP_TYPE_LRU_HASH || type == BPF_MAP_TYPE_LRU_PERCPU_HASH;
		if (!m->max_entries)
			m->max_entries = 1u << 16; /* task storage: threads at once */
		m->cap = 16;
		while (m->cap < 2 * m->max_entries)
			m->cap <<= 1;
		m->mask = m->cap - 1;
		m->slot_size = (val_off(m) + value_size + 7) & ~(size_t)7;
		m->mem = calloc(m->cap, m->slot_size);
	}
	if (!m->mem)
		abort();
	m->next = all_maps;
	all_maps = m;
	*slot = m;
	return m;
}

void host_maps_reset(void)
{
	while (all_maps) {
		struct host_map *m = all_maps;

		all_maps = m->next;
		*m->slot = NULL;
		free(m->mem);
		free(m);
	}
}

static __u64 key_hash(const void *key, __u32 len)
{
	const __u8 *p = key;
	__u64 h = 0x9e3779b97f4a7c15ull ^ len;

	for (; len >= 8; len -= 8, p += 8) {
		__u64 w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 32;
	}
	for (; len; len--, p++)
		h = (h ^ *p) * 0x100000001b3ull;
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

static struct hslot *hs_at(const struct host_map *m, __u32 i)
{
	return (struct hslot *)(m->mem + (size_t)i * m->slot_size);
}

/* The slot of key, or (found 0) the free slot where it would go. */
static __u32 hs_find(const struct host_map *m, const void *key, int *found)
{
	__u32 i = (__u32)key_hash(key, m->key_size) & m->mask;

	for (;; i = (i + 1) & m->mask) {
		struct hslot *s = hs_at(m, i);

		if (!s->used) {
			*found = 0;
			return i;
		}
		if (!memcmp(s + 1, key, m->key_size)) {
			*found = 1;
			return i;
		}
	}
}

/* Remove slot i, shifting back the entries its removal would hide (no tombstones). */
static void hs_remove(struct host_map *m, __u32 i)
{
	__u32 j = i;

	for (;;) {
		struct hslot *s;
		__u32 home;

		j = (j + 1) & m->mask;
		s = hs_at(m, j);
		if (!s->used)
			break;
		home = (__u32)key_hash(s + 1, m->key_size) & m->mask;
		/* Can the entry at j move to i? Only if its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			memcpy(hs_at(m, i), s, m->slot_size);
			i = j;
		}
	}
	memset(hs_at(m, i), 0, m->slot_size);
	m->n--;
}

void *host_map_lookup(struct host_map *m, const void *key)
{
	struct hslot *s;
	int found;
	__u32 i;

	if (!m->hash) {
		__u32 k;

		memcpy(&k, key, sizeof(k));
		return k < m->max_entries ? m->mem + (size_t)k * m->value_size : NULL;
	}
	i = hs_find(m, key, &found);
	if (!found)
		return NULL;
	s = hs_at(m, i);
	if (m->lru)
		s->stamp = ++lru_clock;
	return (__u8 *)s + val_off(m);
}

/* A full LRU map drops its least recently used entry (the kernel's is approximate). */
static void lru_evict(struct host_map *m)
{
	__u32 victim = 0;
	__u64 best = ~0ull;

	for (__u32 i = 0; i < m->cap; i++) {
		struct hslot *s = hs_at(m, i);

		if (s->used && s->stamp < best) {
			best = s->stamp;
			victim = i;
		}
	}
	if (best != ~0ull)
		hs_remove(m, victim);
}

long host_map_update(struct host_map *m, const void *key, const void *value, __u64 flags)
{
	struct hslot *s;
	int found;
	__u32 i;

	if (!m->hash) {
		void *v = host_map_lookup(m, key);

		if (!v)
			return -E2BIG;
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		memcpy(v, value, m->value_size);
		return 0;
	}
	i = hs_find(m, key, &found);
	if (found && flags == BPF_NOEXIST)
		return -EEXIST;
	if (!found && flags == BPF_EXIST)
		return -ENOENT;
	if (!found && m->n >= m->max_entries) {
		if (!m->lru)
			return -E2BIG;
		lru_evict(m);
		i = hs_find(m, key, &found);
	}
	s = hs_at(m, i);
	if (!found) {
		s->used = 1;
		memcpy(s + 1, key, m->key_size);
		m->n++;
	}
	s->stamp = ++lru_clock;
	memcpy((__u8 *)s + val_off(m), value, m->value_size);
	return 0;
}

long host_map_delete(struct host_map *m, const void *key)
{
	int found;
	__u32 i;

	if (!m->hash)
		return -EINVAL;
	i = hs_find(m, key, &found);
	if (!found)
		return -ENOENT;
	hs_remove(m, i);
	return 0;
}

void *host_task_storage(struct host_map *m, __u64 flags)
{
	int key = (int)host_cur.tid;
	void *v = host_map_lookup(m, &key);

	if (v || !(flags & BPF_LOCAL_STORAGE_GET_F_CREATE))
		return v;
	{
		__u8 zero[sizeof(struct task_starts)] = { 0 };

		if (m->value_size > sizeof(zero) || host_map_update(m, &key, zero, BPF_NOEXIST))
			return NULL;
	}
	return host_map_lookup(m, &key);
}

/* ---- helpers ---- */

static struct trigrec_trigger_msg_learn rb_msg;

void *host_ringbuf_reserve(__u64 size)
{
	if (size > sizeof(rb_msg))
		return NULL;
	memset(&rb_msg, 0, sizeof(rb_msg));
	return &rb_msg;
}

void host_ringbuf_submit(void *p)
{
	if (host_submit)
		host_submit(p, sizeof(rb_msg), host_submit_arg);
}

long host_loop(__u32 n, long (*cb)(__u32 i, void *ctx), void *ctx)
{
	__u32 i = 0;

	while (i < n)
		if (cb(i++, ctx))
			break;
	return i;
}

long host_probe_read_str(void *dst, __u32 size, const void *src)
{
	/* A recording holds the pointer, never the text behind it. */
	if (size)
		*(char *)dst = 0;
	return -EFAULT;
}

long host_probe_read(void *dst, __u32 size, const void *src)
{
	memcpy(dst, src, size);
	return 0;
}

/* ---- the replay ---- */

static struct scratch eh_s;
static struct eh_opts eh_o;

static void eh_submit(const void *msg, __u32 size, void *arg)
{
	if (eh_o.on_fire)
		eh_o.on_fire(msg, eh_o.arg);
}

int eh_reset(const struct trigrec_trigger_cfg *cfgs, int n, const struct eh_opts *o)
{
	if (n < 0 || n > TRIGREC_MAX_TRIGGERS)
		return -E2BIG;
	host_maps_reset();
	lru_clock = 0;
	memset(&eh_o, 0, sizeof(eh_o));
	if (o)
		eh_o = *o;
	memset(&host_cur, 0, sizeof(host_cur));
	memset(&eh_s, 0, sizeof(eh_s));
	host_submit = eh_submit;
	host_submit_arg = NULL;
	ring_mode = eh_o.ring_mode;
	need_freeze = eh_o.need_freeze;
	generation = eh_o.generation;
	for (int i = 0; i < 2; i++) {
		budget_n[i] = eh_o.budget_n[i];
		budget_period_ns[i] = eh_o.budget_period_ns[i];
		budget_tat[i] = 0;
	}
	freeze_at = 0;
	armed = 1; /* userspace arms once everything is attached */
	flip_at = 0;
	window_end = 0;
	inflight = 0;
	fire_lock = 0;
	set_before = 0;
	set_after = 1;
	spare_free = 1;
	for (__u32 i = 0; i < (__u32)n; i++)
		if (bpf_map_update_elem(&triggers, &i, &cfgs[i], BPF_ANY))
			return -E2BIG;
	return 0;
}

/* What userspace would have done by `now`, at its earliest: take the snapshot, thaw. */
static void eh_userspace(__u64 now)
{
	if (ring_mode && !need_freeze) {
		if (inflight && now > window_end) {
			inflight = 0;	   /* bpfctl__taken() */
			if (!spare_free) { /* bpfctl__settle() */
				set_before = set_after;
				flip_at = 0;
				set_after = !set_before;
				spare_free = 1;
			}
		}
	} else if (!armed && now > freeze_at) {
		freeze_at = 0; /* bpfctl__thaw() */
		flip_at = 0;
		spare_free = 1;
		armed = 1;
	}
}

int eh_record(const struct trigrec_hook_cfg *hc, uint32_t hook, const struct eh_task *t,
	      const void *raw, uint32_t raw_size)
{
	struct scratch *s = &eh_s;
	__u32 sz = hc->data_size, n;
	int fired = 0;

	eh_userspace(t->time);
	host_cur.now = t->time;
	host_cur.pid = t->pid;
	host_cur.tid = t->tid;
	host_cur.cpu = t->cpu;
	memcpy(host_cur.comm, t->comm, sizeof(host_cur.comm));
	if (sz > SCRATCH_BYTES)
		sz = SCRATCH_BYTES;
	if (sz < 8)
		return 0;
	/* tp_hook: the record (what follows it in the kernel's buffer reads as zeroes), fix_common(). */
	n = raw_size < sz ? raw_size : sz;
	memcpy(s->d, raw, n);
	memset(s->d + n, 0, SCRATCH_BYTES - n);
	memcpy(&s->d[0], &hc->tp_id, 2);
	s->d[2] = 0;
	s->d[3] = 0;
	memcpy(&s->d[4], &t->tid, 4);
	s->now = t->time;
	s->size = sz;
	s->hook = hook;
	s->hook_recorded = !!(hc->flags & TRIGREC_HOOK_RECORDED);
	for (__u32 i = 0; i < hc->ntrig && i < TRIGREC_MAX_HOOK_TRIGGERS; i++)
		if (run_trigger(s, hc->trig[i]))
			fired = 1;
	return fired;
}

int eh_stats(uint32_t id, struct trigrec_stats *out)
{
	struct trigrec_stats *st = stat_slot(id);

	if (!st)
		return -ENOENT;
	*out = *st;
	return 0;
}

int eh_near_miss(uint32_t id, struct trigrec_near_miss *out)
{
	struct trigrec_near_miss *nm = bpf_map_lookup_elem(&near_miss, &id);

	if (!nm)
		return -ENOENT;
	*out = *nm;
	return 0;
}

int eh_key_near_miss(uint32_t id, const uint64_t *key, struct trigrec_key_nm *out)
{
	struct tkey k;
	struct trigrec_key_nm *e;

	memset(&k, 0, sizeof(k));
	k.trig = id;
	k.kind = 6;
	memcpy(k.k, key, sizeof(k.k));
	e = bpf_map_lookup_elem(&key_nm, &k);

	if (!e)
		return -ENOENT;
	*out = *e;
	return 0;
}

void eh_free(void)
{
	host_maps_reset();
}
