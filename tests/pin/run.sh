#!/usr/bin/env bash
# Self-tests of the base pin (scripts/fetch-base.sh), hermetic: each case
# runs a copy of the project's scripts/ and config/ (base.conf edited) with
# an empty cache, all in a temp dir, and with stub apt-get and apt-cache
# (apt-stub.sh) first on PATH.  The stubs answer from a fake mirror in the
# case's directory and log every call; nothing touches the network or the
# system, and nothing needs root.  Prints KTAP; exits 0 (the summary counts
# the failures).
set -euo pipefail
# The pin under test is 6.1's (config/base.conf), whatever base the caller
# names: `make check KERNEL_BASE=7.2` runs this suite too.
export KERNEL_BASE=6.1
here=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../../scripts/ktap.sh disable=SC1091
. "$here/scripts/ktap.sh"
# BASE_PACKAGE, BASE_VERSION, BASE_TARBALL, BASE_TOPDIR of the real pin,
# UPSTREAM_PACKAGE and UPSTREAM_VERSION of the upstream reference's.
# shellcheck source=../../config/base.conf disable=SC1091
. "$here/config/base.conf"
# shellcheck source=../../config/upstream.conf disable=SC1091
. "$here/config/upstream.conf"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
trap 'ktap_diag "pin tests: a command failed at line $LINENO; the tests after it are missing"' ERR

mkdir -p "$work/bin"
cp "$here/tests/pin/apt-stub.sh" "$work/bin/apt-get"
cp "$here/tests/pin/apt-stub.sh" "$work/bin/apt-cache"
chmod +x "$work/bin/apt-get" "$work/bin/apt-cache"

# A case's directory: project/, a copy of the project's scripts and config
# with base.conf edited by the sed expressions; cache/, empty; apt/, the
# stubs' state: an empty log, a mirror (pool/) with nothing in it, and no
# package lists.
new_case() { # dir sed-expression...
	local d=$1 e
	shift
	mkdir -p "$d/project" "$d/cache" "$d/apt/pool"
	: >"$d/apt/log"
	cp -r "$here/scripts" "$here/config" "$d/project/"
	for e in "$@"; do
		sed -i "$e" "$d/project/config/base.conf"
	done
}

# Package lists that offer two versions of the package (dummy .debs).
plausible_mirror() { # dir
	local v
	: >"$1/apt/lists"
	for v in 6.1.192-2 6.1.176-1; do
		echo "stub" >"$1/apt/pool/${BASE_PACKAGE}_${v}_all.deb"
	done
}

# Run the copy's fetch-base.sh (with the arguments after the tag) against
# the stubs; its stdout, stderr and exit status go to stdout$tag,
# stderr$tag and status$tag in the case's directory.
fetch() { # dir [tag [argument...]]
	local d=$1 tag=${2:-} rc=0
	shift $(($# < 2 ? $# : 2))
	PATH=$work/bin:$PATH PIN_APT=$d/apt ADDRRES_CACHE=$d/cache \
		"$d/project/scripts/fetch-base.sh" "$@" \
		>"$d/stdout$tag" 2>"$d/stderr$tag" </dev/null || rc=$?
	echo "$rc" >"$d/status$tag"
}

# Expectations collect their failures in $problems; report turns them into
# one KTAP result.
problems=()
need() { # file regex: some line of the file matches
	grep -qE -- "$2" "$1" || problems+=("no line of ${1#"$work"/} matches: $2")
}
never() { # file regex: no line of the file matches
	! grep -qE -- "$2" "$1" || problems+=("a line of ${1#"$work"/} matches: $2")
}
expect() { # description test-command...
	"${@:2}" || problems+=("$1")
}
report() { # dir name
	local f
	if [ ${#problems[@]} -eq 0 ]; then
		ktap_result ok "pin: $2"
		return
	fi
	for f in "$1"/status* "$1"/stdout* "$1"/stderr* "$1/apt/log"; do
		ktap_diag "${f#"$work"/}:"
		sed 's/^/  /' "$f" | ktap_diag
	done
	printf '%s\n' "${problems[@]}" | ktap_diag
	ktap_result fail "pin: $2" "${problems[0]}"
	problems=()
}

sha256_of() { # file
	local sum
	sum=$(sha256sum <"$1")
	echo "${sum%% *}"
}

# The fake package: $BASE_TARBALL, an xz tarball of $BASE_TOPDIR/Makefile,
# in a .deb built by dpkg-deb.
mkdir -p "$work/src/$BASE_TOPDIR"
printf 'VERSION = 6\n# the fake tree of tests/pin/run.sh\n' >"$work/src/$BASE_TOPDIR/Makefile"
tar -C "$work/src" -cJf "$work/good.tar.xz" "$BASE_TOPDIR"
# The same with its xz stream footer cut off: xz puts out the whole tar
# and then fails, so only the exit status of xz tells it is damaged.
size=$(stat -c %s "$work/good.tar.xz")
head -c "$((size - 12))" "$work/good.tar.xz" >"$work/truncated.tar.xz"

build_deb() { # out.deb tarball
	local root=$work/debroot
	rm -rf "$root"
	mkdir -p "$root/DEBIAN" "$root/$(dirname "$BASE_TARBALL")"
	cp "$2" "$root/$BASE_TARBALL"
	cat >"$root/DEBIAN/control" <<EOF
Package: $BASE_PACKAGE
Version: $BASE_VERSION
Architecture: all
Maintainer: tests/pin/run.sh <nobody@invalid>
Description: fake $BASE_PACKAGE of the pin tests
EOF
	dpkg-deb --root-owner-group --build "$root" "$1" >/dev/null
}
build_deb "$work/good.deb" "$work/good.tar.xz"
build_deb "$work/truncated.deb" "$work/truncated.tar.xz"
deb_name=${BASE_PACKAGE}_${BASE_VERSION}_all.deb
unpacked_name=base/$BASE_PACKAGE-$BASE_VERSION

ktap_plan 7

# A case whose mirror serves DEB, pinned by its sha256, fetched once.
fetch_pinned_deb() { # dir deb
	new_case "$1" "s/^BASE_SHA256=.*/BASE_SHA256=$(sha256_of "$2")/"
	plausible_mirror "$1"
	cp "$2" "$1/apt/pool/$deb_name"
	fetch "$1"
}

# 1. A cached .deb whose content does not match the pinned hash.
d=$work/bad-hash
new_case "$d" 's/^BASE_SHA256=.*/BASE_SHA256=0000000000000000000000000000000000000000000000000000000000000000/'
plausible_mirror "$d"
mkdir -p "$d/cache/debs"
echo "not a package" >"$d/cache/debs/$deb_name"
fetch "$d"
need "$d/status" '^1$'
need "$d/stderr" "has sha256 [0-9a-f]{64}"
need "$d/stderr" "pins 0{64}"
need "$d/stderr" "nothing was unpacked"
need "$d/stderr" "Versions of $BASE_PACKAGE that apt offers"
need "$d/stderr" '^  6\.1\.176-1$'
need "$d/stderr" "config/base.conf"
need "$d/apt/log" '^apt-cache madison '
never "$d/apt/log" '^apt-get '
expect "the .deb with the wrong hash was not removed" [ ! -e "$d/cache/debs/$deb_name" ]
expect "something was unpacked" [ ! -e "$d/cache/$unpacked_name" ]
report "$d" "a .deb with the wrong sha256 stops, naming both hashes"

# 2. A version the mirror does not have: apt refuses at once, from its lists.
d=$work/no-version
new_case "$d" 's/^BASE_VERSION=.*/BASE_VERSION=0.0.0-0/'
plausible_mirror "$d"
fetch "$d"
need "$d/status" '^1$'
need "$d/stderr" "^E: Version '0\.0\.0-0' for '$BASE_PACKAGE' was not found$"
need "$d/stderr" "cannot download the pinned base $BASE_PACKAGE=0\.0\.0-0"
need "$d/stderr" "Versions of $BASE_PACKAGE that apt offers"
need "$d/stderr" '^  6\.1\.192-2$'
need "$d/stderr" '^  6\.1\.176-1$'
need "$d/stderr" "To move the pin"
report "$d" "a version apt cannot download stops and lists what apt offers"

# 3. ... and that is no reason to update apt's lists (network, root).
need "$d/apt/log" "^apt-get download .*$BASE_PACKAGE=0\.0\.0-0\$"
never "$d/apt/log" '^apt-get update'
report "$d" "a version apt cannot download does not run apt-get update"

# 4. The pinned .deb downloads, verifies and unpacks; a second run finds
# the unpacked tree in the cache and asks apt nothing.
d=$work/good
fetch_pinned_deb "$d" "$work/good.deb"
need "$d/status" '^0$'
expect "stdout is not the one line $d/cache/$unpacked_name" \
	[ "$(cat "$d/stdout")" = "$d/cache/$unpacked_name" ]
expect "the unpacked tree has not the package's Makefile" \
	cmp -s "$d/cache/$unpacked_name/Makefile" "$work/src/$BASE_TOPDIR/Makefile"
need "$d/apt/log" "^apt-get download .*$BASE_PACKAGE=$BASE_VERSION\$"
never "$d/apt/log" '^apt-get update'
cp "$d/apt/log" "$d/log.first"
fetch "$d" .again
need "$d/status.again" '^0$'
expect "the second run's stdout differs from the first's" cmp -s "$d/stdout" "$d/stdout.again"
expect "the second run called apt" cmp -s "$d/apt/log" "$d/log.first"
report "$d" "the pinned .deb downloads, verifies and unpacks; the path is printed"

# 5. A .deb with the pinned sha256 whose tarball is damaged.
d=$work/truncated
fetch_pinned_deb "$d" "$work/truncated.deb"
need "$d/status" '^[1-9][0-9]*$'
need "$d/stderr" "cannot unpack $BASE_TARBALL from "
need "$d/stderr" "nothing was unpacked"
need "$d/stderr" "BASE_TARBALL in config/base.conf"
need "$d/stderr" "To move the pin"
expect "stdout is not empty" [ ! -s "$d/stdout" ]
expect "something was left unpacked" [ ! -e "$d/cache/$unpacked_name" ]
expect "the unpack directory was left behind" [ ! -e "$d/cache/$unpacked_name.tmp" ]
report "$d" "a damaged tarball in a .deb with the pinned sha256 stops"

# 6. A fresh machine, where apt has no package lists: update them once.
d=$work/fresh
new_case "$d" "s/^BASE_SHA256=.*/BASE_SHA256=$(sha256_of "$work/good.deb")/"
cp "$work/good.deb" "$d/apt/pool/$deb_name"
fetch "$d"
need "$d/status" '^0$'
need "$d/stderr" "no package lists for $BASE_PACKAGE"
expect "apt-get update did not run exactly once, before the download" \
	[ "$(grep -E '^apt-get (update|download)' "$d/apt/log" | cut -d' ' -f2 | tr '\n' ' ')" = "update download " ]
expect "the unpacked tree has not the package's Makefile" \
	cmp -s "$d/cache/$unpacked_name/Makefile" "$work/src/$BASE_TOPDIR/Makefile"
report "$d" "with no package lists at all, apt-get update runs once"

# 7. The upstream reference's pin is checked the same way, and named.
d=$work/upstream
new_case "$d"
sed -i 's/^UPSTREAM_SHA256=.*/UPSTREAM_SHA256=1111111111111111111111111111111111111111111111111111111111111111/' \
	"$d/project/config/upstream.conf"
: >"$d/apt/lists"
mkdir -p "$d/cache/debs"
echo "not a package" >"$d/cache/debs/${UPSTREAM_PACKAGE}_${UPSTREAM_VERSION}_all.deb"
fetch "$d" "" --upstream
need "$d/status" '^1$'
need "$d/stderr" "pins 1{64}"
need "$d/stderr" "config/upstream.conf"
need "$d/stderr" "Versions of $UPSTREAM_PACKAGE that apt offers"
never "$d/stderr" "config/base.conf"
expect "the base was fetched instead" [ ! -e "$d/cache/$unpacked_name" ]
report "$d" "--upstream checks the upstream reference's pin and names its file"
