// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "engine/features.h"
#include "util/log.h"

/* libbpf's probes: 1 = supported, 0 = not, < 0 = could not tell (EPERM...). */
static int from_libbpf(int r)
{
	return r > 0 ? FEATURE_PRESENT : r == 0 ? FEATURE_MISSING : FEATURE_UNKNOWN;
}

/*
 * Does the verifier know helper `id` in tracepoint programs? It names an
 * unknown one in its log; a known one fails on its arguments or loads. Not
 * libbpf_probe_bpf_helper(): the kernel fills its uninitialised log buffer,
 * which valgrind then reports; this one is zeroed first.
 */
static int tp_helper(enum bpf_func_id id)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_JMP | BPF_CALL, .imm = id },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	char log[4096];
	int fd;

	memset(log, 0, sizeof(log));
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, NULL, "GPL", insns,
			   sizeof(insns) / sizeof(insns[0]), &o);
	if (fd >= 0) {
		close(fd);
		return FEATURE_PRESENT;
	}
	if (strstr(log, "invalid func ") || strstr(log, "unknown func "))
		return FEATURE_MISSING;
	return errno == EPERM || !log[0] ? FEATURE_UNKNOWN : FEATURE_PRESENT;
}

static int probe_btf(void)
{
	return access("/sys/kernel/btf/vmlinux", R_OK) ? FEATURE_MISSING : FEATURE_PRESENT;
}

static int probe_ringbuf(void)
{
	return from_libbpf(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL));
}

static int probe_task_btf(void)
{
	return tp_helper(BPF_FUNC_get_current_task_btf);
}

static int probe_task_storage(void)
{
	int r = from_libbpf(libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL));

	return r == FEATURE_PRESENT ? tp_helper(BPF_FUNC_task_storage_get) : r;
}

static int probe_cookie(void)
{
	return tp_helper(BPF_FUNC_get_attach_cookie);
}

static int probe_loop(void)
{
	return tp_helper(BPF_FUNC_loop);
}

/* Releases are mainline's; distributions may backport (the probe decides, not the version). */
static const struct feature features[] = {
	{ "kernel BTF (/sys/kernel/btf/vmlinux, CONFIG_DEBUG_INFO_BTF=y)", "5.4",
	  "CO-RE relocations of the BPF object", probe_btf },
	{ "BPF ring buffer (BPF_MAP_TYPE_RINGBUF)", "5.8", "the side-band messages",
	  probe_ringbuf },
	{ "bpf_get_current_task_btf() in tracepoint programs", "5.11",
	  "latency spans keyed by thread", probe_task_btf },
	{ "task storage (bpf_task_storage_get) in tracepoint programs", "5.12",
	  "latency spans keyed by thread", probe_task_storage },
	{ "BPF cookies on tracepoints (bpf_get_attach_cookie)", "5.15",
	  "one hook program serving every tracepoint", probe_cookie },
	{ "bpf_loop()", "5.17", "string conditions in triggers", probe_loop },
};

const struct feature *features__table(int *n)
{
	*n = sizeof(features) / sizeof(features[0]);
	return features;
}

int features__check(void)
{
	static const char *state[] = { "missing", "yes" };
	char missing[1024] = "";
	size_t len = 0;
	struct utsname u;
	int n, nmissing = 0;
	const struct feature *f = features__table(&n);

	for (int i = 0; i < n; i++) {
		int r = f[i].probe();

		vlog("kernel feature: %s: %s", f[i].name,
		     r == FEATURE_UNKNOWN ? "unknown" : state[r]);
		if (r != FEATURE_MISSING)
			continue;
		len += snprintf(missing + len, len < sizeof(missing) ? sizeof(missing) - len : 0,
				"\n  - %s (Linux %s+; for %s)", f[i].name, f[i].since, f[i].why);
		nmissing++;
		if (len >= sizeof(missing))
			len = sizeof(missing) - 1;
	}
	if (!nmissing)
		return 0;
	if (uname(&u))
		snprintf(u.release, sizeof(u.release), "unknown");
	elog("this kernel (%s) lacks what trigrec needs:%s\n"
	     "  trigrec needs Linux %s or later with BTF; run it on a newer kernel",
	     u.release, missing, f[n - 1].since);
	return -ENOTSUP;
}
