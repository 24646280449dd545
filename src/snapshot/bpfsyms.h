/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef TRIGREC_BPFSYMS_H
#define TRIGREC_BPFSYMS_H

#include <stddef.h>
#include <stdint.h>

/*
 * The JITed functions of every loaded BPF program (trigrec's own, and any
 * other tool's), named as perf record names them
 * (perf_event__synthesize_bpf_events(): "bpf_prog_<tag>_<function>"). A
 * snapshot writes one PERF_RECORD_KSYMBOL per function, so a sample or a
 * call chain inside a BPF program resolves to it and not to [unknown]
 * after the program is gone. Cached by the set of program ids: a snapshot
 * costs one syscall per loaded program while nothing is loaded or unloaded.
 */
struct bpf_ksym {
	uint64_t addr;
	uint32_t len;
	char name[128];
};

struct bpf_syms {
	uint32_t *ids;
	size_t nids;
	struct bpf_ksym *syms;
	size_t nsyms;
};

/* Bring the list up to date with the programs loaded now. 0, or -errno (the old list stays). */
int bpf_syms__refresh(struct bpf_syms *bs);
void bpf_syms__fini(struct bpf_syms *bs);

#endif /* TRIGREC_BPFSYMS_H */
