# The two commands: `make run` (build, boot, show what the series adds)
# and `make check` (every test, ending in "N passed, N failed, N skipped").
# The rest are the steps they are made of, for the edit loop
# (CONTRIBUTING.md).  All logic lives in scripts/ and harness/.

SHELL := bash
S := scripts
H := harness

.PHONY: run check deps fetch tree refresh config kernel selftests \
	harness-test vm-test shell demo bench clean help

help:
	@echo 'make run           build and boot the patched kernel, show what it adds'
	@echo 'make check         build everything and run every test'
	@echo 'make tree          base + patches/series as a git repo in build/linux'
	@echo '                   (FORCE=1 discards the tree'\''s own commits and edits)'
	@echo 'make refresh       export build/linux base..HEAD back into patches/'
	@echo 'make kernel        configure and build the test kernel in build/obj'
	@echo 'make selftests     build and install the kselftests the guest runs'
	@echo 'make harness-test  the self-tests of the harness only'
	@echo 'make vm-test       boot the built kernel and run the kselftests'
	@echo 'make shell / demo  boot the built kernel into a shell / the demo'
	@echo 'make bench         run the benchmarks in the guest, print their figures'

# With a terminal, a shell in the guest; without one, the scripted demo.
run: kernel
	@$(S)/build-tools.sh
	@if [ -t 0 ]; then $(H)/run-vm.sh shell; else $(H)/run-vm.sh script $(H)/guest-demo.sh; fi

check:
	@$(S)/check.sh

deps:
	@$(S)/deps.sh

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

harness-test:
	@. $(S)/lib.sh && build_ktap_summary && \
		$$TOP/tests/harness/run.sh >"$$BUILD_DIR/harness/self-test.ktap"; \
		$$TOP/tests/harness/pin-tests.sh >"$$BUILD_DIR/harness/pin-test.ktap"; \
		$$KTAP_SUMMARY "$$BUILD_DIR/harness/self-test.ktap" "$$BUILD_DIR/harness/pin-test.ktap"

vm-test: selftests
	@. $(S)/lib.sh && build_ktap_summary && rm -rf "$$VM_DIR.ktap" && \
		$(H)/test-vm.sh "$$VM_DIR.ktap" && $$KTAP_SUMMARY "$$VM_DIR.ktap"/*.ktap

shell: kernel
	@$(H)/run-vm.sh shell

demo: kernel
	@$(S)/build-tools.sh
	@$(H)/run-vm.sh script $(H)/guest-demo.sh

# On a kernel without the debugging options: KASAN and lockdep would
# measure themselves.
bench: deps
	@$(S)/make-tree.sh --lenient
	@KERNEL_FLAVOR=bench $(S)/build-kernel.sh
	@KERNEL_FLAVOR=bench $(S)/build-tools.sh
	@KERNEL_FLAVOR=bench $(H)/run-vm.sh script bench/guest-bench.sh

# The kernel tree and objects are kept: `make tree FORCE=1` resets the tree.
clean:
	rm -rf build/vm build/vm.ktap build/results build/harness build/kselftest build/bin
