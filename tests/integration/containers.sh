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

# A trigger on the cgroup by path (docs/triggers.md, "cgroup paths"): the
# same workload runs in the Docker, Kubernetes and systemd cgroups above;
# `kube` names the pod's subtree (a prefix glob: the container's scope is
# two levels below it) and fires only for the process in it; `late` names a
# cgroup made after the start, which matches only once a reload walks the
# tree again. The trigger's own record is the snapshot's last, as stock perf
# script decodes it.
R=${P#"$CG2"}
LATE=$P/late.slice/docker-$H2.scope
cgscript() {
	cat <<TRIG
record syscalls:sys_enter_getpgid if $(seq_filter)
trigger kube {
    syscalls:sys_enter_getpgid
    where cgroup ~ "$R/kubepods.slice/*"
    max 1
}
trigger late {
    syscalls:sys_enter_getpgid
    where cgroup ~ "*/late.slice/*" && CGROUP !~ "*.service"
    max 1
}
TRIG
}

t_begin "containers: a trigger on a cgroup path fires only in that cgroup, and a reload adds later ones"
D=$TMP/cg
SOCK=$TMP/cg.sock
cgscript >"$TMP/cg.trig"
if tr_start_ready "$TMP/cg.log" run "$TMP/cg.trig" -o "$D" --control "$SOCK" --no-final-snapshot; then
	check_match "start-up: what the glob matched" "$(cat "$TMP/cg.log")" \
		"trigger kube: cgroup ~ \"$R/kubepods.slice/\*\" matches 3 cgroups under $CG2 as of now; cgroups made later match after a reload"
	check_match "start-up: a glob that matches nothing is a warning" "$(cat "$TMP/cg.log")" \
		"$TMP/cg.trig:9:20: trigger late: cgroup ~ \"\*/late.slice/\*\" matches no cgroup under $CG2 now"
	if wait_snaps "$D" kube 1; then
		S=$(snaps "$D" kube)
		last=$(decode "$S" | tail -1)
		check_eq "kube: the trigger's record: pid" "$(cut -f3 <<<"$last")" "$W2"
		check_eq "kube: the trigger's record: comm" "$(cut -f7 <<<"$last")" python3
		check_eq "kube: the trigger's record: getpgid's argument" "$(cut -f6 <<<"$last")" $((BASE + 2))
	else
		t_fail "no snapshot of kube: $(log_tail "$TMP/cg.log")"
	fi
	# A cgroup made now matches the glob of `late`, but was not there at the walk.
	mkdir -p "$LATE"
	work "$LATE" 4
	W4=$WPID
	_nap 1
	check_eq "late: no snapshot before the reload" "$(nsnaps "$D" late)" 0
	cs=$(timeout 10 "$TRIGREC" control "$SOCK" stats 2>&1)
	check_match "late: evaluated, never matched (docker, unit and the new cgroup)" "$cs" \
		"; late evaluated [1-9][0-9]* matched 0 "
	check_match "reload" "$(timeout 30 "$TRIGREC" control "$SOCK" reload)" \
		"^ok reloaded: generation 1, 2 triggers"
	check_match "reload: the new cgroup counted" "$(cat "$TMP/cg.log")" \
		"trigger late: cgroup ~ \"\*/late.slice/\*\" matches 1 cgroup under $CG2 as of now"
	if wait_snaps "$D" late 1; then
		S=$(snaps "$D" late)
		last=$(decode "$S" | tail -1)
		check_eq "late: the trigger's record: pid" "$(cut -f3 <<<"$last")" "$W4"
		check_eq "late: the trigger's record: comm" "$(cut -f7 <<<"$last")" python3
		check_eq "late: the trigger's record: getpgid's argument" "$(cut -f6 <<<"$last")" $((BASE + 4))
	else
		t_fail "no snapshot of late after the reload: $(log_tail "$TMP/cg.log")"
	fi
	check_eq "kube: still one snapshot (max 1 carried over the reload)" "$(nsnaps "$D" kube)" 1
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/cg.log")"
fi
t_end

# A reload keeps a trigger's count when its condition is the same, and
# starts it again when it is not. A cgroup path is part of the condition,
# although the compiled clause holds only the condition's number: `cnt`
# counts 2 of its 3 matches in cgroup ca, is reloaded to cgroup cb, and
# must then need 3 matches there, not 1.
CA=$P/ca.slice/docker-$H1.scope
CB=$P/cb.slice/docker-$H2.scope
calls() { # CGROUP N: N getpgid calls from a process in CGROUP, then exit
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" -c "import os
for _ in range($4):
    try: os.getpgid($3)
    except OSError: pass"' sh "$1" "$PY" $((BASE + 7)) "$2" >/dev/null 2>&1
}
cntscript() {
	cat <<TRIG
record syscalls:sys_enter_getpgid if $(seq_filter)
trigger cnt {
    syscalls:sys_enter_getpgid if cgroup ~ "$R/$1.slice/*" count >= 3
}
TRIG
}

t_begin "containers: a reload that changes a trigger's cgroup path starts its count again"
D=$TMP/cnt
SOCK=$TMP/cnt.sock
mkdir -p "$CA" "$CB"
cntscript ca >"$TMP/cnt.trig"
if tr_start_ready "$TMP/cnt.log" run "$TMP/cnt.trig" -o "$D" --control "$SOCK" --no-final-snapshot; then
	calls "$CA" 2
	_nap 0.5
	cs=$(timeout 10 "$TRIGREC" control "$SOCK" stats 2>&1)
	check_match "2 matches in ca" "$cs" "cnt evaluated [0-9]+ matched 0 "
	cntscript cb >"$TMP/cnt.trig"
	check_match "reload" "$(timeout 30 "$TRIGREC" control "$SOCK" reload)" \
		"^ok reloaded: generation 1, 1 trigger"
	calls "$CB" 2
	_nap 1
	check_eq "cb: no snapshot after 2 matches (the count started again)" "$(nsnaps "$D" cnt)" 0
	calls "$CB" 1
	wait_snaps "$D" cnt 1
	check_eq "cb: a snapshot at the 3rd match" "$(nsnaps "$D" cnt)" 1
	tr_stop INT
	check_eq "exit code" "$TR_RC" 0
else
	t_fail "recorder did not start: $(log_tail "$TMP/cnt.log")"
fi
t_end

t_begin "containers: cgroup path errors name the line, the column and what exists"
printf 'trigger a {\n  syscalls:sys_enter_getpgid\n  where cgroup == "%s/system.slice/web.servce"\n}\n' "$R" >"$TMP/bad.trig"
out=$("$TRIGREC" check "$TMP/bad.trig" 2>&1)
check_eq "check: exit status" "$?" 2
check_match "check: missing path" "$out" \
	"bad.trig:3:19: no cgroup $R/system.slice/web.servce; cgroups here are under $CG2 .*did you mean $R/system.slice/web.service"
printf 'trigger a { syscalls:sys_enter_getpgid where cgroup ~ "*/no-such.slice/*" }\n' >"$TMP/none.trig"
out=$("$TRIGREC" check "$TMP/none.trig" 2>&1)
check_eq "check: a glob that matches nothing: exit status" "$?" 0
check_match "check: ... is a warning" "$out" \
	"none.trig:1:55: warning: cgroup ~ \"\*/no-such.slice/\*\" matches no cgroup under $CG2 now"
out=$("$TRIGREC" check --strict "$TMP/none.trig" 2>&1)
check_eq "check --strict: ... is an error" "$?" 2
check_match "check --strict: ... said so" "$out" "none.trig:1:55: cgroup ~ .* matches no cgroup"
t_end
