/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Bench row 3f: the ring bench/bpf/floor.bpf.c writes and bench/floor.c reads. */
#ifndef FLOOR_H
#define FLOOR_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/* 32768 x 24 bytes = 768 KiB per CPU, near ftrace's 1 MiB in row 3. */
#define FLOOR_RING_RECS 32768

enum { FLOOR_EV_ENTER = 1, FLOOR_EV_EXIT = 2 };

struct floor_rec {
	__u64 delta; /* ns since this CPU's previous record */
	__u32 event;
	__u32 nr;  /* syscall number */
	__s64 val; /* first argument (enter) or return value (exit) */
};

struct floor_ring {
	__u64 head; /* records ever written on this CPU */
	__u64 last; /* time of the previous record */
	struct floor_rec r[FLOOR_RING_RECS];
};

_Static_assert(sizeof(struct floor_rec) == 24, "floor_rec is 24 bytes");

#endif
