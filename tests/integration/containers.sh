#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Containers by name: cgroups made here with the paths Docker (systemd
# driver), containerd under kubelet (a burstable pod) and a systemd service
# give their containers, one workload in each; a snapshot's sidecar maps
# each workload's process to its cgroup, runtime, container id, pod UID and
# QoS class, and `trigrec show` prints the container beside each task (text,
# HTML hover data, Chrome trace process names).
. "$(dirname "$0")/lib.sh"
need_root

CG2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
H1=4f1c2a8e9b7d6c5e3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f
H2=9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f1a2b
UID_=0d6f3b8a_1c2e_4f5a_9b8c_7d6e5f4a3b2c
P=$CG2/trigrec-ctr-$$
DOCKER=$P/system.slice/docker-$H1.scope
KUBE=$P/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod$UID_.slice/cri-containerd-$H2.scope
UNIT=$P/system.slice/web.service

t_begin "containers: set-up"
if [ -z "$CG2" ]; then
	t_skip "cgroup v2 is not mounted"
	t_end
	exit 0
fi
if ! mkdir -p "$DOCKER" "$KUBE" "$UNIT"; then
	t_skip "cannot create cgroups under $P"
	t_end
	exit 0
fi
t_end
# Children first: a cgroup is removed only once empty and without children.
trap '_cleanup; find "$P" -depth -type d -exec rmdir {} + 2>/dev/null; exit $?' EXIT

BASE=$(seq_base)
# work CGROUP K: a process in CGROUP calling getpgid(BASE + K) 100 times a
# second until killed; its pid in WPID. (Not in $(...): the substitution would
# wait for the background process's end.)
work() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -c "import os, time
while True:
    try: os.getpgid($3)
    except OSError: pass
    time.sleep(0.01)"' sh "$1" "$PY" $((BASE + $2)) >/dev/null 2>&1 &
	WPID=$!
	_bg+=("$WPID")
}
work "$DOCKER" 1
W1=$WPID
work "$KUBE" 2
W2=$WPID
work "$UNIT" 3
W3=$WPID
_nap 0.3

D=$TMP/out
if ! tr_start "$TMP/log" -a -o "$D" --no-final-snapshot -e syscalls:sys_enter_getpgid \
	--filter "$(seq_filter)"; then
	t_blocked "containers: recording" "trigrec did not start: $(log_tail "$TMP/log")"
	exit 1
fi
_nap 1
kill -USR2 "$TR_PID"
wait_snaps "$D" manual 1
tr_stop INT
S=$(snaps "$D" manual | head -1)
SJ=${S%.data}.json

# task PID KEY: cgroups[tasks[pid == PID].cgroup][KEY]
task() {
	"$PY" -c 'import json, sys
d = json.load(open(sys.argv[1]))
for t in d["tasks"]:
    if t["pid"] == int(sys.argv[2]):
        print(d["cgroups"][t["cgroup"]][sys.argv[3]])' "$SJ" "$1" "$2" 2>/dev/null
}

t_begin "containers: the sidecar maps each workload to its cgroup and container"
check_eq "exit code" "$TR_RC" 0
check_eq "docker: path" "$(task "$W1" path)" "${DOCKER#"$CG2"}"
check_eq "docker: runtime" "$(task "$W1" runtime)" docker
check_eq "docker: id" "$(task "$W1" id)" "$H1"
check_eq "kube: runtime" "$(task "$W2" runtime)" containerd
check_eq "kube: id" "$(task "$W2" id)" "$H2"
check_eq "kube: pod UID" "$(task "$W2" pod_uid)" "${UID_//_/-}"
check_eq "kube: QoS" "$(task "$W2" qos)" burstable
check_eq "unit: runtime" "$(task "$W3" runtime)" systemd
check_eq "unit: id" "$(task "$W3" id)" web.service
t_end

t_begin "containers: trigrec show names the container beside each task"
"$TRIGREC" show "$S" >"$TMP/show.txt" 2>&1
out=$(cat "$TMP/show.txt")
check_match "docker task" "$out" "$W1/$W1 +python3 +\[docker:${H1:0:12}\]"
check_match "kube task" "$out" "$W2/$W2 +python3 +\[pod 0d6f3b8a containerd:${H2:0:12}\]"
check_match "unit task" "$out" "$W3/$W3 +python3 +\[web\.service\]"
"$TRIGREC" show --chrome-json "$TMP/t.json" "$S" >/dev/null 2>&1
check_match "Chrome trace process name" "$(cat "$TMP/t.json")" "\"process_name\",\"pid\":$W1,[^}]*\"name\":\"python3 \[docker:${H1:0:12}\]\""
"$TRIGREC" show --html "$TMP/t.html" "$S" >/dev/null 2>&1
check_match "HTML hover data" "$(cat "$TMP/t.html")" "\"$W2\":\"pod 0d6f3b8a containerd:${H2:0:12}\""
t_end
