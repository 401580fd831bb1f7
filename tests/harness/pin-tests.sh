#!/usr/bin/env bash
# Self-tests of the base pin (scripts/fetch-base.sh), offline: a copy of the
# scripts with a changed config/base.conf and an empty cache must stop with
# a message that names the problem and says how to move the pin.  Prints KTAP.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# A copy of the project's scripts and config, with base.conf edited by sed.
project_with_pin() { # dir sed-expression
	mkdir -p "$1"
	cp -r "$here/scripts" "$here/config" "$1/"
	sed -i "$2" "$1/config/base.conf"
}

n=0
check() { # description output-file expected-regex...
	local what=$1 out=$2 re
	shift 2
	n=$((n + 1))
	for re in "$@"; do
		if ! grep -qE "$re" "$out"; then
			sed 's/^/# /' "$out"
			echo "not ok $n pin: $what # missing: $re"
			return
		fi
	done
	echo "ok $n pin: $what"
}

echo "TAP version 13"
echo "1..2"

# A cached .deb whose content does not match the pinned hash.
p=$work/bad-hash
project_with_pin "$p" 's/^BASE_SHA256=.*/BASE_SHA256=0000000000000000000000000000000000000000000000000000000000000000/'
. "$p/config/base.conf"
mkdir -p "$work/cache1/debs"
echo "not a package" >"$work/cache1/debs/${BASE_PACKAGE}_${BASE_VERSION}_all.deb"
ADDRRES_CACHE=$work/cache1 "$p/scripts/fetch-base.sh" >"$work/out1" 2>&1
echo "exit=$?" >>"$work/out1"
check "a .deb with the wrong sha256 stops, naming both hashes" "$work/out1" \
	"has sha256 [0-9a-f]{64}" "pins 0{64}" "nothing was unpacked" \
	"Versions of $BASE_PACKAGE that apt offers" "config/base.conf" "^exit=1$"

# A version the mirror does not have: apt refuses at once, from its lists.
p=$work/no-version
project_with_pin "$p" 's/^BASE_VERSION=.*/BASE_VERSION=0.0.0-0/'
ADDRRES_CACHE=$work/cache2 "$p/scripts/fetch-base.sh" >"$work/out2" 2>&1
echo "exit=$?" >>"$work/out2"
check "a version apt cannot download stops and lists what apt offers" "$work/out2" \
	"cannot download the pinned base linux-source-6.1=0.0.0-0" \
	"Versions of linux-source-6.1 that apt offers" "To move the pin" "^exit=1$"
