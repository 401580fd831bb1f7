# The two commands: `make run` (build, boot, show what the series adds)
# and `make check` (every test, ending in "N passed, N failed, N skipped").
# The rest are the steps they are made of, for the edit loop
# (CONTRIBUTING.md).  All logic lives in scripts/ and harness/.
#
# ARCH=x86_64|arm64 (config/arch/) picks the architecture: `make check`
# without it tests every arch, the other targets build and boot x86_64.

SHELL := bash
S := scripts
H := harness
.PHONY: run check deps fetch tree refresh config kernel selftests rootfs \
	host-test vm-test shell demo bench distro-build lint check-series clean help

help:
	@echo 'make run           build and boot the patched kernel, show what it adds'
	@echo 'make check         build everything and run every test, on every arch'
	@echo '                   (ARCH=x86_64 or ARCH=arm64: that arch only)'
	@echo 'make tree          base + patches/series as a git repo in build/linux'
	@echo '                   (FORCE=1 discards the tree'\''s own commits and edits)'
	@echo 'make refresh       export build/linux base..HEAD back into patches/'
	@echo 'make kernel        configure and build the test kernel in build/$$ARCH/obj'
	@echo 'make selftests     build and install the kselftests the guest runs'
	@echo 'make rootfs        the Debian root of an arch that cannot boot the host'\''s'
	@echo 'make host-test     the host suites that need no kernel (SUITES=a,b: those of'
	@echo '                   tests/*/run.sh)'
	@echo 'make vm-test       boot the built kernel: kselftests and guest suites, two guests'
	@echo '                   (T=dir:test,...: only those kselftests; SUITES=a,b: only'
	@echo '                   those guest suites of tests/*/guest.sh)'
	@echo 'make shell / demo  boot the built kernel into a shell / the demo'
	@echo 'make bench         run the benchmarks in the guest, print their figures'
	@echo 'make distro-build  kallmodsyms on Debian'\''s own 6.1 config of ARCH: build'
	@echo '                   vmlinux with and without it, print the figures (hours)'
	@echo 'make lint          checkpatch --strict on the series, shellcheck on the scripts'
	@echo 'make check-series  build every patch on its own, W=1 (slow; ARCH=, LAST=N or'
	@echo '                   ONLY=N,M: those patches, 1 the first)'

# With a terminal, a shell in the guest; without one, the scripted demo.
run: kernel
	@$(S)/build-tools.sh
	@if [ -t 0 ]; then $(H)/run-vm.sh shell; else $(H)/run-vm.sh script $(H)/guest-demo.sh; fi

check:
	@$(S)/check.sh

deps:
	@$(S)/deps.sh $(ARCH)

fetch: deps
	@$(S)/fetch-base.sh >/dev/null

tree: deps
	@$(S)/make-tree.sh $(if $(FORCE),--force)

refresh:
	@$(S)/refresh.sh

config: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/build-kernel.sh --config

kernel: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/build-kernel.sh

selftests: kernel
	@$(S)/build-selftests.sh

rootfs: deps
	@$(S)/build-rootfs.sh

host-test:
	@SUITES='$(SUITES)' $(S)/host-test.sh

vm-test: selftests
	@T='$(T)' SUITES='$(SUITES)' $(S)/vm-test.sh

shell: kernel
	@$(H)/run-vm.sh shell

demo: kernel
	@$(S)/build-tools.sh
	@$(H)/run-vm.sh script $(H)/guest-demo.sh

# On a kernel without the debugging options: KASAN and lockdep would
# measure themselves.  Then PROCMAP_QUERY on ours and on the upstream
# reference, in turns; last, libaddrres against eu-addr2line, on the host.
bench: deps
	@$(S)/make-tree.sh --lenient
	@KERNEL_FLAVOR=bench $(S)/build-kernel.sh
	@KERNEL_FLAVOR=bench $(S)/build-tools.sh
	@KERNEL_FLAVOR=bench $(H)/run-vm.sh script bench/guest-bench.sh
	@bench/upstream-bench.sh
	@bench/host-bench.sh
	@bench/elf-bench.sh

distro-build: deps
	@$(S)/make-tree.sh --lenient
	@$(S)/distro-build.sh

lint: deps
	@$(S)/report.sh lint/lint.ktap $(S)/lint.sh

# Not part of `make check`: it builds the kernel once per patch and arch
# (hours the first time).  ARCH= for one arch, LAST=N for the last N patches,
# ONLY=N,M,... for those (1 is the first patch).
check-series: deps
	@$(S)/report.sh series-check/results.ktap $(S)/check-series.sh $(if $(LAST),--last $(LAST)) \
		$(if $(ONLY),--only $(ONLY))

# The kernel tree and objects are kept: `make tree FORCE=1` resets the tree.
clean:
	rm -rf build/results build/harness build/host-test build/lint \
		$(foreach a,$(basename $(notdir $(wildcard config/arch/*.conf))),\
			build/$(a)/vm build/$(a)/vm-suites build/$(a)/vm-bench build/$(a)/vm-upstream build/$(a)/vm-series \
			build/$(a)/vm.ktap build/$(a)/kselftest-series \
			build/$(a)/kselftest build/$(a)/bin) build/upstream-bench build/elf-bench
