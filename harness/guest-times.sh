#!/usr/bin/env bash
# Where a guest's time went, from the results/times its init wrote (guest
# uptime when each kselftest program, each of its cases and each guest
# suite ended):
#   guest-times.sh VM_DIR [N]
# prints the run's length, its N (default 5) longest programs and suites,
# and its longest kselftest case, on one line.  A figure to read (make
# check prints it per guest), never a verdict: a guest without the file
# prints nothing.
set -euo pipefail
vm=${1:?usage: guest-times.sh VM_DIR [N]}
most=${2:-5}
times=$vm/results/times
[ -s "$times" ] || exit 0
awk -v most="$most" -v name="$(basename "$vm")" '
	BEGIN { n = 0; case_took = -1 }
	{ t = $1 + 0 }
	$2 == "init" { start = prev = prev_case = t; next }
	$2 == "end" { end = t; next }
	# "12.3 case # ok 4 text_poke.ftrace.no_record_is_lost # SKIP ...":
	# since the program'\''s previous case, or its start.
	$2 == "case" {
		what = $0
		sub(/^[^#]*# (not )?ok [0-9]+ /, "", what)
		sub(/ #.*/, "", what)
		if (t - prev_case > case_took) { case_took = t - prev_case; case_name = what }
		prev_case = t
		next
	}
	{
		what = ($2 == "suite") ? ("suite " $3) : $0
		# "12.3 kselftest ok 4 selftests: proc: proc-pid-vm # SKIP": the program.
		if ($2 == "kselftest") {
			sub(/^[^:]*: /, "", what)
			sub(/ #.*/, "", what)
			sub(/: /, ":", what)
		}
		part[n] = what; took[n++] = t - prev; prev = prev_case = t
	}
	END {
		if (!n) exit
		if (!end) end = prev
		for (i = 0; i < n; i++)
			for (j = i + 1; j < n; j++)
				if (took[j] > took[i]) {
					x = took[i]; took[i] = took[j]; took[j] = x
					x = part[i]; part[i] = part[j]; part[j] = x
				}
		line = sprintf("%s: %.0f s from init to its end; longest:", name, end - start)
		for (i = 0; i < n && i < most; i++)
			line = line sprintf("%s %s %.0f s", i ? "," : "", part[i], took[i])
		if (case_took >= 0)
			line = line sprintf("; longest case: %s %.1f s", case_name, case_took)
		print line
	}' "$times"
