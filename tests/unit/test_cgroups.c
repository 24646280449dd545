// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Unit tests for src/util/cgroups.c: cgroup v2 paths as each runtime makes them. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "check.h"
#include "util/cgroups.h"

#define H64 "4f1c2a8e9b7d6c5e3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f"
#define UID "0d6f3b8a-1c2e-4f5a-9b8c-7d6e5f4a3b2c"
#define UID_ "0d6f3b8a_1c2e_4f5a_9b8c_7d6e5f4a3b2c"

static int is(const char *path, const char *rt, const char *id, const char *pod, const char *qos,
	      const char *label)
{
	struct cg_info c;
	char l[128];
	int ok;

	cg_classify(path, &c);
	cg_label(&c, l, sizeof(l));
	ok = !strcmp(c.runtime, rt) && !strcmp(c.id, id) && !strcmp(c.pod_uid, pod) &&
	     !strcmp(c.qos, qos) && !strcmp(l, label);
	if (!ok)
		fprintf(stderr,
			"    %s: runtime '%s' id '%s' pod '%s' qos '%s' label '%s'; wanted '%s' '%s' "
			"'%s' '%s' '%s'\n",
			path, c.runtime, c.id, c.pod_uid, c.qos, l, rt, id, pod, qos, label);
	return ok;
}

TEST(runtimes)
{
	/* Docker, systemd cgroup driver (the default on systemd hosts) and cgroupfs. */
	CHECK(is("/system.slice/docker-" H64 ".scope", "docker", H64, "", "",
		 "docker:4f1c2a8e9b7d"));
	CHECK(is("/docker/" H64, "docker", H64, "", "", "docker:4f1c2a8e9b7d"));
	/* Podman: root (machine.slice) and rootless (under user@UID.service). */
	CHECK(is("/machine.slice/libpod-" H64 ".scope", "podman", H64, "", "",
		 "podman:4f1c2a8e9b7d"));
	CHECK(is("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" H64 ".scope",
		 "podman", H64, "", "", "podman:4f1c2a8e9b7d"));
	CHECK(is("/machine.slice/libpod-" H64 ".scope/container", "", "", "", "", ""));
	CHECK(is("/machine.slice/libpod-conmon-" H64 ".scope", "podman", H64, "", "",
		 "podman:4f1c2a8e9b7d"));
	/* systemd units and scopes. */
	CHECK(is("/system.slice/nginx.service", "systemd", "nginx.service", "", "",
		 "nginx.service"));
	CHECK(is("/user.slice/user-1000.slice/session-3.scope", "systemd", "session-3.scope", "",
		 "", "session-3.scope"));
	CHECK(is("/", "", "", "", "", ""));
	CHECK(is("/init.scope", "systemd", "init.scope", "", "", "init.scope"));
	CHECK(is("/system.slice", "", "", "", "", ""));
	/* 65 digits: no container id, but still a systemd scope. */
	CHECK(is("/docker-" H64 "0.scope", "systemd", "docker-" H64 "0.scope", "", "",
		 "docker-" H64 "0.scope"));
	CHECK(is("/" H64, "", "", "", "", "")); /* hex alone: nobody's */
	/* Longer than a unit name may be (fuzz_cgroup): not cut into one that is not. */
	CHECK(is("/x" H64 H64 H64 H64 ".scope", "", "", "", "", ""));
	return 0;
}

TEST(kubernetes)
{
	/* kubelet's systemd driver: containerd and CRI-O, each QoS class. */
	CHECK(is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		 ".slice/cri-containerd-" H64 ".scope",
		 "containerd", H64, UID, "burstable", "pod 0d6f3b8a containerd:4f1c2a8e9b7d"));
	CHECK(is("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
		 ".slice/crio-" H64 ".scope",
		 "crio", H64, UID, "besteffort", "pod 0d6f3b8a crio:4f1c2a8e9b7d"));
	CHECK(is("/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" H64 ".scope",
		 "containerd", H64, UID, "guaranteed", "pod 0d6f3b8a containerd:4f1c2a8e9b7d"));
	/* The pod's own slice: a pod, no container. */
	CHECK(is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice",
		 "", "", UID, "burstable", "pod 0d6f3b8a"));
	/* kubelet's cgroupfs driver. */
	CHECK(is("/kubepods/burstable/pod" UID "/" H64, "cri", H64, UID, "burstable",
		 "pod 0d6f3b8a cri:4f1c2a8e9b7d"));
	CHECK(is("/kubepods/pod" UID "/" H64, "cri", H64, UID, "guaranteed",
		 "pod 0d6f3b8a cri:4f1c2a8e9b7d"));
	/* Nested below a parent (kind, a test's own hierarchy). */
	CHECK(is(
		"/trigrec-test/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_
		".slice/cri-containerd-" H64 ".scope",
		"containerd", H64, UID, "besteffort", "pod 0d6f3b8a containerd:4f1c2a8e9b7d"));
	/* A QoS slice whose pod slice is not one (fuzz_cgroup found it): no pod, no QoS. */
	CHECK(is("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_
		 ".s:lice/cri-containerd-" H64 ".scope",
		 "containerd", H64, "", "", "containerd:4f1c2a8e9b7d"));
	/* A UID bad in its 20th character (fuzz_cgroup): no pod, not its first 19 characters. */
	CHECK(is("/kubepods/besteffort/pod0d6f3b8a-1c2e-4f5a-9y8c-7d6e5f4a3b2c/" H64, "", "", "",
		 "", ""));
	/* A bad UID is no pod. */
	CHECK(is("/kubepods.slice/kubepods-podXYZ.slice/cri-containerd-" H64 ".scope", "containerd",
		 H64, "", "", "containerd:4f1c2a8e9b7d"));
	return 0;
}

TEST(proc_file)
{
	char path[64];

	/* cgroup v2 alone, and a hybrid system's v1 lines around the "0::" one. */
	CHECK_EQ(cg_parse_proc("0::/system.slice/nginx.service\n", path, sizeof(path)), 0);
	CHECK_STR(path, "/system.slice/nginx.service");
	CHECK_EQ(cg_parse_proc("12:pids:/user.slice\n1:name=systemd:/x\n0::/init.scope\n", path,
			       sizeof(path)),
		 0);
	CHECK_STR(path, "/init.scope");
	CHECK_EQ(cg_parse_proc("1:name=systemd:/x\n", path, sizeof(path)), -ENOENT);
	CHECK_EQ(cg_parse_proc("", path, sizeof(path)), -ENOENT);
	CHECK_EQ(cg_parse_proc(
			 "0::/a/very/long/path/that/does/not/fit/in/sixty/four/bytes/at/all/no\n",
			 path, sizeof(path)),
		 -ENAMETOOLONG);
	return 0;
}

TEST(own_process)
{
	char path[4096];

	if (access("/proc/self/cgroup", R_OK))
		SKIP("no /proc/self/cgroup");
	if (cg_of_pid(getpid(), path, sizeof(path)))
		SKIP("no cgroup v2 line in /proc/self/cgroup");
	CHECK(path[0] == '/');
	CHECK(strchr(path, '\n') == NULL);
	return 0;
}

RUN_TESTS(T(runtimes), T(kubernetes), T(proc_file), T(own_process))
