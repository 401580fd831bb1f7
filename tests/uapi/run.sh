#!/usr/bin/env bash
# Compile-time ABI checks of the patched kernel's UAPI headers: each .c
# here must compile against them for every ABI the compiler can target.
# Prints KTAP.
set -eu
. "$(dirname "$0")/../../scripts/lib.sh"

headers=$OBJ/usr/include
abis=(-m64)
# -m32 needs gcc-multilib; without it the 32-bit layout is not checked.
if echo 'int main(void){return 0;}' | ${CC:-gcc} -m32 -x c -o /dev/null - 2>/dev/null; then
	abis+=(-m32)
fi
checks=("$TOP"/tests/uapi/*.c)
echo "TAP version 13"
echo "1..$(( ${#checks[@]} * ${#abis[@]} ))"
i=0
for src in "${checks[@]}"; do
	for abi in "${abis[@]}"; do
		i=$((i + 1))
		name="uapi: $(basename "$src" .c) $abi"
		if [ ! -f "$headers/linux/fs.h" ]; then
			echo "not ok $i $name # no installed headers in $headers (make selftests)"
		elif out=$(${CC:-gcc} "$abi" -std=c11 -Wall -Wextra -Werror -isystem "$headers" \
			-c -o /dev/null "$src" 2>&1); then
			echo "ok $i $name"
		else
			printf '%s\n' "$out" | grep -m 5 'error' | sed 's/^/# /'
			echo "not ok $i $name"
		fi
	done
done
