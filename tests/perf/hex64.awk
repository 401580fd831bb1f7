# 64-bit addresses for the other awk programs here: awk's numbers are
# doubles, exact only to 2^53, so addresses are kept as 16-digit lowercase
# hex strings, which compare as the numbers do.

# HEX (with or without 0x) as a 16-digit lowercase hex string.
function pad(hex) {
	hex = tolower(hex)
	sub(/^0x/, "", hex)
	while (length(hex) < 16)
		hex = "0" hex
	return hex
}

# a - b for 16-digit hex strings whose difference fits a double exactly.
function sub64(a, b) {
	return (strtonum("0x" substr(a, 1, 8)) - strtonum("0x" substr(b, 1, 8))) * 4294967296 + \
		strtonum("0x" substr(a, 9, 8)) - strtonum("0x" substr(b, 9, 8))
}

# a + len for a 16-digit hex string and a length below 2^32.
function add64(a, len,   lo, hi) {
	lo = strtonum("0x" substr(a, 9, 8)) + len
	hi = strtonum("0x" substr(a, 1, 8)) + int(lo / 4294967296)
	return sprintf("%08x%08x", hi, lo % 4294967296)
}
