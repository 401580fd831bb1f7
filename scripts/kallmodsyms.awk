# The shell tests' one reader of the /proc/kallmodsyms line format (and
# of /proc/kallsyms', which has no size column); docs/kallmodsyms.md
# lists every reader of the format.  Use with gawk -f, beside the
# program (gawk -f scripts/kallmodsyms.awk -e '...').
#
# A line is "ADDRESS SIZE TYPE NAME" then, after a tab, its annotation:
# built-in modules "[mod] [mod2]" and, where the name is ambiguous, the
# object "{dir/file.o}"; a loadable module's symbol has "[module]".
#
# ksym_split(LINE, SIZED, F): split LINE into F["addr"], F["size"] (empty
# unless SIZED, 1 for kallmodsyms), F["type"], F["name"], F["annot"]
# (empty when there is none).  Returns 0 for a line with too few fields.
function ksym_split(line, sized, f,    tab, w, n) {
	delete f
	tab = index(line, "\t")
	f["annot"] = tab ? substr(line, tab + 1) : ""
	n = split(tab ? substr(line, 1, tab - 1) : line, w, " ")
	if (n < 3 + sized)
		return 0
	f["addr"] = w[1]
	f["size"] = sized ? w[2] : ""
	f["type"] = w[2 + sized]
	f["name"] = w[3 + sized]
	return 1
}
