# shellcheck shell=bash
# Each address's frames in one line, for comparing addrres with
# eu-addr2line: "LOC NAME@CALL_LOC ...", LOC the address's FILE:LINE and,
# for each function inlined there, innermost first, its name and the line
# that called it; columns dropped, "??" for no line.  The outermost
# function's name is left out: kallsyms' and the symbol table's names
# (foo.constprop.0) are not DWARF's.  Sourced by tests/addrres/run.sh and
# tests/kernel-lines/guest.sh; gawk only (the arm64 guest has no python).

# From `eu-addr2line -a -f -i`: an address line, then a name and a
# location for each frame.
frames_of_eu_addr2line() {
	gawk 'BEGIN { n = 0 }
		function flush(  out, i) {
			if (!n)
				return
			out = l[0] ~ /^\?\?/ ? "??" : l[0]
			for (i = 0; i + 1 < n; i++)
				out = out " " f[i] "@" l[i + 1]
			print out
			n = 0
		}
		/^0x[0-9a-f]+$/ { flush(); next }
		{
			name = $1
			if ((getline where) <= 0)
				where = "??"
			if (where ~ /:[0-9]+:[0-9]+$/)
				sub(/:[0-9]+$/, "", where)
			f[n] = name
			l[n++] = where
		}
		END { flush() }'
}

# From addrres's text lines (elf, kaddr --lines): "ADDR SYMBOL+0xOFF
# [MODULE]... FILE:LINE (inl inlined at FILE:LINE in outer; ...)".
frames_of_addrres() {
	gawk '{
		out = "??"
		for (i = 2; i <= NF; i++)
			if ($i ~ /^[\/.].*:[0-9]+$/) {
				out = $i
				break
			}
		if (match($0, /\(.* inlined at .*\)$/)) {
			n = split(substr($0, RSTART + 1, RLENGTH - 2), fr, "; ")
			for (k = 1; k <= n; k++) {
				split(fr[k], w, " ")
				out = out " " w[1] "@" w[4]
			}
		}
		print out
	}'
}
