# Count a numbered getpgid stream in one snapshot, decoded by
#   perf script -F pid,event,trace
# Lines look like "  1234 syscalls:sys_enter_getpgid: pid: 0x000f4240".
# getpgid(BASE + i) is stream record i; getsid(BASE + S) marks a trigger
# fired right before record S (tests/helpers/seqgen, bench/trigseq).
#
#   awk -v base=BASE [-v trig=S] [-v prev=P] -f seqcount.awk
# trig: the trigger to measure against; default: the newest mark in the file.
# prev: an earlier trigger; history is then only counted back to it.
# Prints: newest=<mark or -1> marks=<n> pre=<records before trig>
#         contig=<unbroken run of records ending right before trig>
#         post=<records at or after trig> other=<lines that are not the stream>
#         holes=<runs of missing numbers between the oldest record kept
#                before trig (after prev) and trig>
#         missing=<numbers missing in that span>
# Lines from other tools may be turned into this form first (run.sh's
# ftrace column rewrites its trace file's "sys_getpgid(pid: 0x...)").
function hex(s,    n, i) {
	n = 0
	s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++)
		n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return n
}
{
	ev = ""; v = ""
	for (i = 1; i <= NF; i++) {
		if ($i ~ /^syscalls:sys_enter_get(pgid|sid):$/) ev = $i
		else if ($i ~ /^0x[0-9a-fA-F]+$/) v = $i
	}
	if (ev == "" || v == "") { other++; next }
	s = hex(v) - base
	if (s < 0 || s >= 1000000000) { other++; next }
	if (ev ~ /getsid/) {
		marks++
		if (newest == "" || s > newest) newest = s
		next
	}
	seen[s] = 1
}
END {
	if (trig == "") trig = (newest == "" ? -1 : newest)
	if (prev == "") prev = -1
	pre = post = contig = holes = missing = 0
	oldest = -1
	if (trig >= 0) {
		for (s in seen) {
			if (s + 0 >= trig) post++
			else if (s + 0 >= prev) {
				pre++
				if (oldest < 0 || s + 0 < oldest) oldest = s + 0
			}
		}
		for (s = trig - 1; s >= 0 && s >= prev && (s in seen); s--)
			contig++
		# Holes: walk the span from the oldest kept record up to the trigger.
		for (s = oldest; oldest >= 0 && s < trig; s++) {
			if (s in seen) continue
			missing++
			if (s == oldest || (s - 1) in seen) holes++
		}
	}
	printf "newest=%d marks=%d pre=%d contig=%d post=%d other=%d holes=%d missing=%d\n",
	       (newest == "" ? -1 : newest), marks + 0, pre, contig, post, other + 0, holes, missing
}
