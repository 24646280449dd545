// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/cgroups.h"

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

/* c (n bytes) is PREFIX<64 hex>SUFFIX: the id into out. */
static int hex_id(const char *c, size_t n, const char *prefix, const char *suffix, char *out)
{
	size_t pl = strlen(prefix), sl = strlen(suffix);

	if (n != pl + 64 + sl || strncmp(c, prefix, pl) || strncmp(c + pl + 64, suffix, sl) ||
	    !is_hex(c + pl, 64))
		return 0;
	memcpy(out, c + pl, 64);
	out[64] = 0;
	return 1;
}

/* A pod UID: 36 characters, hex and '-' (or '_' as systemd slices spell it); out only when it is one. */
static int pod_uid(const char *s, size_t n, char *dst)
{
	char out[37];

	if (n != 36)
		return 0;
	for (size_t i = 0; i < n; i++) {
		char ch = s[i];

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (ch != '-' && ch != '_')
				return 0;
			ch = '-';
		} else if (!is_hex(&ch, 1)) {
			return 0;
		}
		out[i] = ch;
	}
	out[n] = 0;
	memcpy(dst, out, sizeof(out));
	return 1;
}

static const char *const qos_names[] = { "burstable", "besteffort" };

/* A component of a kubepods hierarchy: the QoS level or the pod. */
static void kube_part(const char *c, size_t n, int under_kubepods, struct cg_info *o)
{
	char tmp[48];

	for (int q = 0; q < 2; q++) {
		size_t ql = strlen(qos_names[q]);

		/* systemd driver: kubepods-burstable.slice; cgroupfs: burstable */
		snprintf(tmp, sizeof(tmp), "kubepods-%s.slice", qos_names[q]);
		if ((n == strlen(tmp) && !strncmp(c, tmp, n)) ||
		    (under_kubepods && n == ql && !strncmp(c, qos_names[q], n)))
			snprintf(o->qos, sizeof(o->qos), "%s", qos_names[q]);
		/* kubepods-burstable-pod<uid>.slice */
		snprintf(tmp, sizeof(tmp), "kubepods-%s-pod", qos_names[q]);
		if (n == strlen(tmp) + 36 + 6 && !strncmp(c, tmp, strlen(tmp)) &&
		    !strncmp(c + n - 6, ".slice", 6) && pod_uid(c + strlen(tmp), 36, o->pod_uid))
			snprintf(o->qos, sizeof(o->qos), "%s", qos_names[q]);
	}
	/* kubepods-pod<uid>.slice (guaranteed), pod<uid> (cgroupfs) */
	if (n == 12 + 36 + 6 && !strncmp(c, "kubepods-pod", 12) && !strncmp(c + n - 6, ".slice", 6))
		pod_uid(c + 12, 36, o->pod_uid);
	if (under_kubepods && n == 3 + 36 && !strncmp(c, "pod", 3))
		pod_uid(c + 3, 36, o->pod_uid);
}

int cg_classify(const char *path, struct cg_info *o)
{
	const char *c = path, *leaf = NULL, *parent = NULL;
	size_t ln = 0, pn = 0;
	int kube = 0;

	memset(o, 0, sizeof(*o));
	if (!path)
		return 0;
	while (*c) {
		const char *e;
		size_t n;

		while (*c == '/')
			c++;
		if (!*c)
			break;
		e = strchr(c, '/');
		n = e ? (size_t)(e - c) : strlen(c);
		if ((n == 8 && !strncmp(c, "kubepods", 8)) ||
		    (n == 14 && !strncmp(c, "kubepods.slice", 14)))
			kube = 1;
		else if (kube)
			kube_part(c, n, 1, o);
		parent = leaf, pn = ln;
		leaf = c, ln = n;
		c += n;
	}
	if (kube && o->pod_uid[0] && !o->qos[0])
		snprintf(o->qos, sizeof(o->qos), "guaranteed");
	if (!o->pod_uid[0])
		o->qos[0] = 0; /* a QoS level's slice without a pod below it: no pod to class */
	if (!leaf)
		return 0;
	if (hex_id(leaf, ln, "docker-", ".scope", o->id))
		snprintf(o->runtime, sizeof(o->runtime), "docker");
	else if (hex_id(leaf, ln, "cri-containerd-", ".scope", o->id))
		snprintf(o->runtime, sizeof(o->runtime), "containerd");
	else if (hex_id(leaf, ln, "crio-", ".scope", o->id) ||
		 hex_id(leaf, ln, "crio-conmon-", ".scope", o->id))
		snprintf(o->runtime, sizeof(o->runtime), "crio");
	else if (hex_id(leaf, ln, "libpod-", ".scope", o->id) ||
		 hex_id(leaf, ln, "libpod-conmon-", ".scope", o->id) ||
		 hex_id(leaf, ln, "libpod-", "", o->id))
		snprintf(o->runtime, sizeof(o->runtime), "podman");
	else if (hex_id(leaf, ln, "", "", o->id)) {
		/* cgroupfs drivers: /docker/<id>, /kubepods/burstable/pod<uid>/<id> */
		if (parent && pn == 6 && !strncmp(parent, "docker", 6))
			snprintf(o->runtime, sizeof(o->runtime), "docker");
		else if (o->pod_uid[0])
			snprintf(o->runtime, sizeof(o->runtime), "cri");
		else
			o->id[0] = 0;
	} else if (ln < sizeof(o->id) && /* systemd's UNIT_NAME_MAX: 255 and the NUL */
		   ((ln > 8 && !strncmp(leaf + ln - 8, ".service", 8)) ||
		    (ln > 6 && !strncmp(leaf + ln - 6, ".scope", 6)))) {
		snprintf(o->runtime, sizeof(o->runtime), "systemd");
		snprintf(o->id, sizeof(o->id), "%.*s", (int)ln, leaf);
	}
	return o->runtime[0] || o->pod_uid[0];
}

void cg_label(const struct cg_info *c, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = 0;
	if (c->pod_uid[0])
		o = snprintf(buf, len, "pod %.8s%s", c->pod_uid, c->runtime[0] ? " " : "");
	if (o >= len)
		return;
	if (!strcmp(c->runtime, "systemd"))
		snprintf(buf + o, len - o, "%s", c->id);
	else if (c->runtime[0])
		snprintf(buf + o, len - o, "%s:%.12s", c->runtime, c->id);
}

int cg_of_pid(unsigned int pid, char *path, size_t len)
{
	char fn[40], buf[4096 + 8];
	ssize_t n;
	int fd;

	snprintf(fn, sizeof(fn), "/proc/%u/cgroup", pid);
	fd = open(fn, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -EIO;
	buf[n] = 0;
	return cg_parse_proc(buf, path, len);
}

int cg_parse_proc(const char *text, char *path, size_t len)
{
	/* cgroup v2: "0::/PATH"; on a hybrid system it is one line among the v1 ones. */
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, "0::", 3)) {
			size_t k = strcspn(l + 3, "\n");

			if (k >= len)
				return -ENAMETOOLONG;
			memcpy(path, l + 3, k);
			path[k] = 0;
			return 0;
		}
	}
	return -ENOENT;
}
