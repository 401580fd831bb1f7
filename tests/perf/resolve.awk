# Checks the kernel samples of `perf script -F ip,sym,symoff,dso` against
# the symbol /proc/kallsyms gives for each sample's address:
#   gawk -f resolve.awk KALLSYMS SCRIPT
# The answer is the text symbol with the greatest address not above the
# sample's (any of the names at that address: aliases), at the offset the
# two addresses differ by.  Prints one line "SAMPLES RIGHT WRONG UNRESOLVED"
# then up to five wrong samples as "ADDR: perf SYM+OFF, kallsyms NAME+OFF".
# Needs hex64.awk before it (gawk -f hex64.awk -f resolve.awk ...).

# The index of the greatest address not above ADDR, 0 if none.
function find(addr,   lo, hi, mid) {
	lo = 1; hi = naddr
	if (naddr == 0 || addr < addrs[1])
		return 0
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (addrs[mid] <= addr)
			lo = mid
		else
			hi = mid - 1
	}
	return lo
}

FNR == NR {
	if ($2 !~ /^[tTwW]$/)
		next
	a = pad($1)
	if (!(a in names)) {
		names[a] = " "
		raw[++nraw] = a
	}
	names[a] = names[a] $3 " "
	next
}

FNR == 1 {
	naddr = asort(raw, addrs)
}

$1 ~ /^ffff/ {
	samples++
	ip = pad($1)
	if ($2 == "[unknown]") {
		unresolved++
		next
	}
	sym = $2
	off = 0
	if (match(sym, /\+0x[0-9a-f]+$/)) {
		off = strtonum(substr(sym, RSTART + 1))
		sym = substr(sym, 1, RSTART - 1)
	}
	i = find(ip)
	if (i && index(names[addrs[i]], " " sym " ") && sub64(ip, addrs[i]) == off) {
		right++
		next
	}
	wrong++
	if (wrong <= 5)
		shown[wrong] = sprintf("%s: perf %s+%#x, kallsyms %s+%#x", ip, sym, off,
			i ? gensub(/^ | $/, "", "g", names[addrs[i]]) : "(none)", i ? sub64(ip, addrs[i]) : 0)
}

END {
	printf "%d %d %d %d\n", samples, right, wrong, unresolved
	for (i = 1; i <= wrong && i <= 5; i++)
		print shown[i]
}
