# The two commands: `make run` (build, boot, show what the series adds)
# and `make check` (every test, ending in "N passed, N failed, N skipped").
# The rest are the steps they are made of, for the edit loop
# (CONTRIBUTING.md).  All logic lives in scripts/ and harness/.
#
# ARCH=x86_64|arm64 (config/arch/) picks the architecture: `make check`
# without it tests every arch, the other targets build and boot x86_64.
# KERNEL_BASE=7.2|6.1 picks the kernel base (patches/<base>/, lib.sh):
# `make tree` and `make refresh` without it cover both, the targets that
# build or boot a kernel take 6.1.

SHELL := bash
S := scripts
H := harness
BASES := $(or $(KERNEL_BASE),7.2 6.1)
.PHONY: run check deps fetch tree refresh config kernel selftests rootfs \
	host-test vm-test shell demo bench distro-build lint check-series clean help \
	manifest mutant mainline-series

#: this list, made from the "#:" comments above each target
help:
	@awk '/^#: / { text[n++] = substr($$0, 4); next } \
		/^[a-z-]+:/ && n { sub(/:.*/, ""); printf "make %-14s%s\n", $$0, text[0]; \
			for (i = 1; i < n; i++) printf "%19s%s\n", "", text[i] } { n = 0 }' $(firstword $(MAKEFILE_LIST))

# With a terminal, a shell in the guest; without one, the scripted demo.
#: build and boot the patched kernel, show what it adds (a shell on a
#: terminal, else the demo)
run: kernel
	@$(S)/build-tools.sh
	@if [ -t 0 ]; then $(H)/run-vm.sh shell; else $(H)/run-vm.sh script $(H)/guest-demo.sh; fi

#: build everything and run every test, on every arch (ARCH=: that arch);
#: the last line is "N passed, N failed, N skipped"
check:
	@$(S)/check.sh

#: write config/expected/*.txt, the results make check must give, from the
#: last make check (green); read the diff, then commit it
manifest:
	@$(S)/manifest.sh

#: break a feature on purpose (tests/mutants/MUTANT.patch) and run the tests
#: that must catch it: they must go red (MUTANT=list lists them; ARCH=)
mutant:
	@MUTANT='$(MUTANT)' $(S)/mutant.sh

#: install the Debian packages the build and the tests need
deps:
	@$(S)/deps.sh $(ARCH)

#: download and unpack the pinned base (config/base.conf)
fetch: deps
	@$(S)/fetch-base.sh >/dev/null

#: each base + patches/BASE/series as a git repo: build/linux (6.1),
#: build/7.2/linux (FORCE=1 discards the tree's own commits and edits)
tree: deps
	@for base in $(BASES); do KERNEL_BASE=$$base $(S)/make-tree.sh $(if $(FORCE),--force) || exit; done

#: export each base's tree, base..HEAD, back into patches/BASE/
refresh:
	@for base in $(BASES); do KERNEL_BASE=$$base $(S)/refresh.sh || exit; done

#: the mainline series as it would be posted: one format-patch series with
#: a cover letter per "# post:" group of patches/7.2/series, To and Cc
#: from 7.2's get_maintainer.pl, in build/7.2/outgoing/
mainline-series:
	@$(S)/format-mainline.sh

#: configure the test kernel in build/$ARCH/obj without building it
config: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/build-kernel.sh --config

#: configure and build the test kernel in build/$ARCH/obj
kernel: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/build-kernel.sh

#: build and install the kselftests the guest runs
selftests: kernel
	@$(S)/build-selftests.sh

#: the Debian root of an arch that cannot boot the host's
rootfs: deps
	@$(S)/build-rootfs.sh

#: the host suites that need no kernel (SUITES=a,b: those of tests/*/run.sh)
host-test:
	@SUITES='$(SUITES)' $(S)/host-test.sh

#: boot the built kernel: kselftests and guest suites, two guests
#: (T=dir:test,...: only those kselftests; SUITES=a,b: those guest suites;
#: BUSY_GUESTS=N: N guests spinning beside them)
vm-test: selftests
	@T='$(T)' SUITES='$(SUITES)' BUSY_GUESTS='$(BUSY_GUESTS)' $(S)/vm-test.sh

#: boot the built kernel into a shell
shell: kernel
	@$(H)/run-vm.sh shell

#: boot the built kernel into the scripted demo
demo: kernel
	@$(S)/build-tools.sh
	@$(H)/run-vm.sh script $(H)/guest-demo.sh

# On a kernel without the debugging options: KASAN and lockdep would
# measure themselves.  Then PROCMAP_QUERY on ours and on the upstream
# reference, in turns; last, libaddrres against eu-addr2line, on the host.
#: run the benchmarks in the guest and on the host, print their figures
bench: deps
	@$(S)/make-tree.sh --lenient
	@KERNEL_FLAVOR=bench $(S)/build-kernel.sh
	@KERNEL_FLAVOR=bench $(S)/build-tools.sh
	@KERNEL_FLAVOR=bench $(H)/run-vm.sh script bench/guest-bench.sh
	@bench/upstream-bench.sh
	@bench/host-bench.sh
	@bench/elf-bench.sh

#: kallmodsyms on Debian's own 6.1 config of ARCH: build vmlinux with
#: and without it, print the figures (hours)
distro-build: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/distro-build.sh

#: checkpatch --strict on the series, shellcheck on the scripts
lint: deps
	@$(S)/report.sh lint/lint.ktap $(S)/lint.sh

# Not part of `make check`: it builds the kernel once per patch and arch
# (hours the first time).  ARCH= for one arch, LAST=N for the last N patches,
# ONLY=N,M,... for those (1 is the first patch).
#: build every patch on its own, W=1 (slow; ARCH=, LAST=N or ONLY=N,M:
#: those patches, 1 the first)
check-series: deps
	@$(S)/report.sh series-check/results.ktap $(S)/check-series.sh $(if $(LAST),--last $(LAST)) \
		$(if $(ONLY),--only $(ONLY))

# The kernel tree and objects are kept: `make tree FORCE=1` resets the tree.
#: remove test results and guest runs; keep the tree and the kernel objects
clean:
	rm -rf build/results build/harness build/host-test build/lint \
		$(foreach a,$(basename $(notdir $(wildcard config/arch/*.conf))),\
			build/$(a)/vm build/$(a)/vm-suites build/$(a)/vm-bench build/$(a)/vm-upstream build/$(a)/vm-series \
			build/$(a)/vm.ktap build/$(a)/kselftest-series \
			build/$(a)/kselftest build/$(a)/bin) build/upstream-bench build/elf-bench
