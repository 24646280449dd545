/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Containers by name: a cgroup v2 path into what it shows of the runtime
 * that made it (Docker, containerd, CRI-O, Podman, a systemd unit), the
 * container's id and, under kubepods, the pod's UID and QoS class. Only
 * the path is read: nothing asks a runtime.
 */
#ifndef TRIGREC_CGROUPS_H
#define TRIGREC_CGROUPS_H
#include <stddef.h>

struct cg_info {
	char runtime[16]; /* docker, containerd, crio, podman, systemd; "" = none seen */
	char id[256];	  /* the container's id (64 hex digits), or the systemd unit */
	char pod_uid[40]; /* Kubernetes pod UID (dashes, as kubectl prints it); "" = none */
	char qos[12];	  /* guaranteed, burstable, besteffort; "" when no pod */
};

/* Classify path ("/system.slice/docker-<64 hex>.scope"): 1 when it shows anything, else 0. */
int cg_classify(const char *path, struct cg_info *out);

/*
 * A short label for show: "docker:0123456789ab", "pod 1f2e...:containerd:0123456789ab",
 * "nginx.service"; "" when nothing is known.
 */
void cg_label(const struct cg_info *c, char *buf, size_t len);

/* The cgroup v2 path of a process, from /proc/PID/cgroup's "0::" line. 0 or -errno. */
int cg_of_pid(unsigned int pid, char *path, size_t len);
/* That line in text (a /proc/PID/cgroup's contents): 0, -ENOENT, -ENAMETOOLONG. */
int cg_parse_proc(const char *text, char *path, size_t len);

#endif
