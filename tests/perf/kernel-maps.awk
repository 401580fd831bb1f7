# The kernel maps a perf built from a kcore copy, against the copy's
# segments: gawk -f kernel-maps.awk SEGMENTS PERF_STDERR
# SEGMENTS: one "VADDR MEMSZ" line per PT_LOAD of the copy (readelf -lW);
# PERF_STDERR: perf's output at -vv, where the series' first perf patch
# lists "kernel map START-END pgoff PGOFF DSO" after loading the kcore.
# Prints "MAPS SEGMENTS UNMAPPED EMPTY OVERLAPS DISAGREEING", each map, then
# each problem: a segment whose first or last byte no map holds, an empty
# map, a pair of overlapping maps, and whether the pair disagrees (turns an
# address into different file offsets: START - PGOFF differ), which makes a
# lookup's answer depend on which map it finds.  Needs hex64.awk before it.

function mapped(addr,   i) {
	for (i = 1; i <= n; i++)
		if (start[i] <= addr && addr < end[i])
			return 1
	return 0
}

FNR == NR {
	s = pad($1)
	if (!(s in seen) || seen[s] != $2) {
		seen[s] = $2
		segs++
		seg_start[segs] = s
		seg_last[segs] = add64(s, strtonum($2) - 1)
	}
	next
}

$1 == "kernel" && $2 == "map" && split($3, r, "-") == 2 {
	n++
	start[n] = pad(r[1]); end[n] = pad(r[2]); pgoff[n] = pad($5)
	line[n] = $3 " pgoff " $5
	dso[n] = $6
}

END {
	for (i = 1; i <= segs; i++) {
		if (mapped(seg_start[i]) && mapped(seg_last[i]))
			continue
		unmapped++
		problems = problems sprintf("segment at 0x%s has no map\n", seg_start[i])
	}
	for (i = 1; i <= n; i++) {
		if (start[i] >= end[i]) {
			empty++
			problems = problems sprintf("%s is empty\n", line[i])
			continue
		}
		for (j = i + 1; j <= n; j++) {
			if (!(start[i] < end[j] && start[j] < end[i]))
				continue
			overlaps++
			agree = sub64(start[i], start[j]) == sub64(pgoff[i], pgoff[j])
			if (!agree)
				disagree++
			problems = problems sprintf("%s overlaps %s: %s\n", line[i], line[j],
				agree ? "same offsets" : "different offsets")
		}
	}
	printf "%d %d %d %d %d %d\n", n, segs, unmapped, empty, overlaps, disagree
	for (i = 1; i <= n; i++)
		print "map " line[i] " " dso[i]
	printf "%s", problems
}
