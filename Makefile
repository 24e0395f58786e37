# SPDX-License-Identifier: GPL-2.0
#
# volatile-lab: build, boot and test a patched Debian linux-source-6.1 (or
# 6.12, KERNEL=6.12) under QEMU.  `make help` lists the targets.  Every step is idempotent: re-running
# redoes only what changed.

ARCH ?= arm64
DEBUG ?= 0
# Guest size and patience for `make run`.
MEM ?= 1024
CPUS ?= 2
TIMEOUT ?= 600
RUN ?=
EXTRA ?=
LAB_BUILD ?= $(CURDIR)/build
# Android's memory configuration in the guest: MGLRU=1, ZRAM=MiB.
MGLRU ?= 0
ZRAM ?= 0
# make run / make shell: boot this kernel image instead of the lab's build
# (which is then not built), e.g. one of an older series.
KERNEL_IMAGE ?=
# The kernel the series is built on: Debian's linux-source-$(KERNEL) with
# kernel/patches (6.1) or kernel/patches-6.12 (kernel/README.md).
# Only from the command line (or LAB_KERNEL): KERNEL is too common a name
# to take from the environment.
ifneq ($(origin KERNEL),command line)
KERNEL := $(or $(LAB_KERNEL),6.1)
endif
LAB_KERNEL := $(KERNEL)
export LAB_BUILD RUN EXTRA MGLRU ZRAM KERNEL_IMAGE LAB_KERNEL
# What a boot needs: the lab's kernel unless KERNEL_IMAGE names another.
BOOT_KERNEL := $(if $(KERNEL_IMAGE),,kernel)

SUPPORTED_ARCHES := arm64 x86_64
ifeq ($(filter $(ARCH),$(SUPPORTED_ARCHES)),)
$(error unknown ARCH '$(ARCH)' (supported: $(SUPPORTED_ARCHES)))
endif
ifeq ($(filter $(KERNEL),6.1 6.12),)
$(error unknown KERNEL '$(KERNEL)' (supported: 6.1 6.12))
endif
ifeq ($(filter $(DEBUG),0 1),)
$(error DEBUG must be 0 or 1, not '$(DEBUG)')
endif

ifneq ($(filter run,$(MAKECMDGOALS)),)
ifeq ($(strip $(RUN)),)
$(error RUN is empty: give a command line, e.g. make run RUN='uname -r')
endif
endif

S := $(CURDIR)/scripts
DEPS := $(S)/deps.sh
ifeq ($(ARCH),arm64)
GUEST_CC := $(if $(filter aarch64,$(shell uname -m)),gcc,aarch64-linux-gnu-gcc)
GUEST_AR := $(if $(filter aarch64,$(shell uname -m)),ar,aarch64-linux-gnu-ar)
else
GUEST_CC := $(if $(filter x86_64,$(shell uname -m)),gcc,x86_64-linux-gnu-gcc)
GUEST_AR := $(if $(filter x86_64,$(shell uname -m)),ar,x86_64-linux-gnu-ar)
endif

.NOTPARALLEL:
.PHONY: help deps kernel-tree export-patches config kernel headers \
	guest-progs rootfs run shell check modes unit lint bench stress clean \
	distclean fresh-check vm-selftests aosp-ashmem-test lava lava-run lava-kernel

help:
	@echo 'volatile-lab targets (ARCH=arm64|x86_64, default arm64; DEBUG=0|1):'
	@echo '  make check          build both kernel variants, boot them, run every test'
	@echo '  make modes [KERNEL=6.1|6.12] [DEBUG=1]'
	@echo '                      every suite on one kernel, then in each mode (Rust'
	@echo '                      ashmem, MGLRU, zram, both)'
	@echo '  make bench          the ashmem vs MADV_VOLATILE comparison (BENCH_QUICK=1: tiny;'
	@echo '                      BENCH_SWEEP=1: also the regime sweep, about 60 min more)'
	@echo '  make stress         stress + fuzz on the debug kernel (STRESS_SECONDS=1200)'
	@echo '  make fresh-check    the two commands above on a pristine Debian 12 root'
	@echo '  make vm-selftests   the tree'"'"'s mm selftests with and without the series'
	@echo '  make run RUN=CMD [EXTRA=DIR] [MEM=MiB CPUS=N TIMEOUT=s] [MGLRU=1] [ZRAM=MiB]'
	@echo '                      boot the patched kernel, run CMD, exit with its status'
	@echo '                      (KERNEL_IMAGE=FILE: boot that image instead)'
	@echo '  make shell          interactive guest shell (exit or Ctrl-a x quits)'
	@echo '  make aosp-ashmem-test AOSP_SRC=FILE'
	@echo '                      AOSP'"'"'s libcutils ashmem_test.cpp (not in the lab) with'
	@echo '                      both libraries, in the arm64 guest'
	@echo '  make lava [LAVA_URL=URL] [LAVA_BENCH_MODE=quick|full]'
	@echo '                      LAVA jobs (qemu and Khadas VIM3) for every suite and'
	@echo '                      benchmark family in build/lava/jobs (lava/README.md)'
	@echo '  make lava-kernel    the board jobs'"'"' kernel and DTB (Khadas VIM3)'
	@echo '  make lava-run [LAVA_SUITE=volatile_trace_test] [LAVA_FAMILY=share|all|none]'
	@echo '                      run the qemu jobs with the real lava-dispatcher here,'
	@echo '                      import their results into the lab'"'"'s TAP and CSV'
	@echo '  make headers        install the patched uapi headers, print where'
	@echo '  make kernel         build the kernel (DEBUG=1: the debug variant)'
	@echo '  make kernel-tree    extract linux-source-6.1 and apply kernel/patches'
	@echo '  make export-patches write the kernel tree'"'"'s commits to kernel/patches'
	@echo '  make rootfs         build the guest initramfs'
	@echo '  make unit           host-side unit tests only'
	@echo '  make lint           shellcheck the scripts'
	@echo '  make deps           install every Debian package the lab uses'
	@echo '  make clean          remove build outputs (keeps the kernel tree)'
	@echo '  make distclean      remove build/ entirely'

deps:
	$(DEPS) all

kernel-tree:
	$(DEPS) kernel
	$(S)/kernel-tree.sh prepare

export-patches:
	$(S)/kernel-tree.sh export

config: kernel-tree
	$(DEPS) cross-$(ARCH)
	$(S)/kernel-build.sh $(ARCH) $(DEBUG) config

kernel: kernel-tree
	$(DEPS) cross-$(ARCH)
	$(S)/kernel-build.sh $(ARCH) $(DEBUG) image

# The guest programs are built against the 6.1 series' uapi headers for
# both kernels: the 6.12 series keeps every value (make check compares
# them), so one initramfs serves both.
headers:
	LAB_KERNEL=6.1 $(DEPS) kernel cross-$(ARCH)
	LAB_KERNEL=6.1 $(S)/kernel-tree.sh prepare
	@LAB_KERNEL=6.1 $(S)/kernel-build.sh $(ARCH) 0 headers >/dev/null
	@echo "uapi headers for $(ARCH): $(LAB_BUILD)/headers/$(ARCH)/include"
	@echo "build with: -isystem $(LAB_BUILD)/headers/$(ARCH)/include"

guest-progs: headers
	zlib=$$($(S)/guest-zlib.sh $(ARCH)) && \
	$(MAKE) -C guest-rootfs CC=$(GUEST_CC) AR=$(GUEST_AR) \
		O=$(LAB_BUILD)/guest/$(ARCH) \
		HEADERS=$(LAB_BUILD)/headers/$(ARCH)/include ZLIB=$$zlib

rootfs: guest-progs
	$(DEPS) rootfs
	$(S)/mkrootfs.sh $(ARCH)

run: $(BOOT_KERNEL) rootfs
	$(DEPS) qemu-$(ARCH)
	$(S)/run.sh $(ARCH) $(DEBUG) $(MEM) $(CPUS) $(TIMEOUT)

shell: $(BOOT_KERNEL) rootfs
	$(DEPS) qemu-$(ARCH)
	$(S)/boot.sh --arch $(ARCH) --debug $(DEBUG) --mem $(MEM) \
		--cpus $(CPUS) --shell $(if $(EXTRA),--extra $(EXTRA)) \
		$(if $(KERNEL_IMAGE),--kernel $(KERNEL_IMAGE))

unit:
	$(S)/tests/host-tests.sh

# make modes ARCH=... [KERNEL=...] [DEBUG=1]: every suite on that kernel
# in every memory mode (scripts/modes.sh); make check runs a part of it.
modes: kernel rootfs
	$(S)/modes.sh $(ARCH) $(DEBUG)

check:
	$(S)/check.sh $(ARCH)

lint:
	$(DEPS) lint
	shellcheck -x -P $(CURDIR) $(S)/*.sh $(S)/tests/*.sh .ci/run
	shellcheck -s sh guest-rootfs/init guest-rootfs/run-tests \
		guest-rootfs/dynamic/*_test bench/matrix.sh

# make bench ARCH=...: the comparison (scripts/bench.sh); BENCH_QUICK=1
# runs every code path on tiny sizes in a minute or two; BENCH_REUSE_MAIN=1
# takes the main boot's finished matrix from the last run and does the
# rest (the extra boots, graphs, report).
bench: kernel rootfs
	$(DEPS) qemu-$(ARCH) plot
	$(S)/bench.sh $(ARCH) $(if $(filter 1,$(BENCH_QUICK)),quick,full)

# make stress ARCH=...: vstress and vfuzz side by side on the debug kernel
# (scripts/stress.sh); 1200 s and more regenerate results/reliability.md.
STRESS_SECONDS ?= 1200
STRESS_DEBUG ?= 1
stress: rootfs
	$(MAKE) -s kernel DEBUG=$(STRESS_DEBUG)
	$(DEPS) qemu-$(ARCH) plot
	$(S)/stress.sh $(ARCH) $(STRESS_DEBUG) $(STRESS_SECONDS)

# make fresh-check: make check and a quick make bench ARCH=arm64 inside a
# new minbase Debian 12 root (scripts/fresh-check.sh); not part of check.
fresh-check:
	$(S)/fresh-check.sh

# make vm-selftests ARCH=...: tools/testing/selftests/vm on the kernel with
# and without the series, side by side (scripts/vm-selftests.sh).
vm-selftests: kernel rootfs
	$(DEPS) qemu-$(ARCH)
	$(S)/vm-selftests.sh $(ARCH)

# AOSP's own test of libcutils' ashmem API, built from a copy of its source
# that the user supplies, linked with each library and run in the guest.
AOSP_SRC ?=
aosp-ashmem-test: kernel rootfs headers
	@test -n "$(AOSP_SRC)" || { echo 'AOSP_SRC=path/to/ashmem_test.cpp is required' >&2; exit 2; }
	@test "$(ARCH)" = arm64 || { echo 'aosp-ashmem-test: ARCH=arm64 only' >&2; exit 2; }
	$(S)/aosp-ashmem-test.sh $(AOSP_SRC) $(LAB_BUILD)/aosp-ashmem-test/bin
	$(DEPS) qemu-$(ARCH)
	for lib in driver compat; do \
		EXTRA=$(LAB_BUILD)/aosp-ashmem-test/bin \
		RUN="/extra/aosp_ashmem_test_$$lib" \
		$(S)/run.sh $(ARCH) $(DEBUG) $(MEM) $(CPUS) $(TIMEOUT) || exit 1; \
	done

# make lava ARCH=arm64: LAVA job definitions (scripts/lava-jobs.py) for the
# built Image and initramfs, which a lab serves at LAVA_URL (Image,
# initramfs.cpio.gz, and the board kernel of make lava-kernel as
# vim3/Image and vim3/meson-g12b-a311d-khadas-vim3.dtb); file:// URLs of
# the build when LAVA_URL is empty.  Builds nothing.  See lava/README.md.
LAVA_URL ?=
LAVA_BENCH_MODE ?= quick
LAVA_SUITE ?= volatile_trace_test
LAVA_FAMILY ?= share
LAVA_JOBS := $(LAB_BUILD)/lava/jobs
LAVA_BOARD_OUT := $(LAB_BUILD)/kernel/arm64-vim3/arch/arm64/boot
lava:
	@test "$(KERNEL)" = 6.1 || { echo 'lava: the LAVA jobs are 6.1'"'"'s (KERNEL=6.1)' >&2; exit 2; }
	@test "$(ARCH)" = arm64 || { echo 'lava: ARCH=arm64 only' >&2; exit 2; }
	$(DEPS) lava
	rm -rf $(LAVA_JOBS)
	/usr/bin/python3 $(S)/lava-jobs.py --out $(LAVA_JOBS) \
		--bench-mode $(LAVA_BENCH_MODE) \
		--kernel-url $(or $(LAVA_URL),file://$(LAB_BUILD)/kernel/arm64/arch/arm64/boot)/Image \
		--ramdisk-url $(or $(LAVA_URL),file://$(LAB_BUILD)/rootfs/arm64)/initramfs.cpio.gz \
		--board-kernel-url $(or $(LAVA_URL:%=%/vim3),file://$(LAVA_BOARD_OUT))/Image \
		--dtb-url $(or $(LAVA_URL:%=%/vim3),file://$(LAVA_BOARD_OUT)/dts/amlogic)/meson-g12b-a311d-khadas-vim3.dtb

# make lava-kernel ARCH=arm64: the kernel of the board jobs, the series
# with kernel/config/board-vim3.config, and its DTB, in
# build/kernel/arm64-vim3 (arch/arm64/boot/Image and
# arch/arm64/boot/dts/amlogic/meson-g12b-a311d-khadas-vim3.dtb).
lava-kernel:
	@test "$(KERNEL)" = 6.1 || { echo 'lava-kernel: the LAVA jobs are 6.1'"'"'s (KERNEL=6.1)' >&2; exit 2; }
	@test "$(ARCH)" = arm64 || { echo 'lava-kernel: ARCH=arm64 only' >&2; exit 2; }
	$(MAKE) -s kernel-tree
	$(DEPS) cross-arm64
	LAB_KERNEL_BOARD=vim3 $(S)/kernel-build.sh arm64 0 image

# make lava-run ARCH=arm64: the qemu jobs of one suite and one quick
# benchmark family run by the real lava-dispatcher on this machine
# (scripts/lava-run.sh), results imported into build/lava/run/results.
lava-run:
	@test "$(KERNEL)" = 6.1 || { echo 'lava-run: the LAVA jobs are 6.1'"'"'s (KERNEL=6.1)' >&2; exit 2; }
	@test "$(ARCH)" = arm64 || { echo 'lava-run: ARCH=arm64 only' >&2; exit 2; }
	$(DEPS) lava qemu-$(ARCH)
	$(S)/lava-run.sh $(ARCH) $(LAVA_SUITE) $(LAVA_FAMILY)

clean:
	rm -rf $(LAB_BUILD)/kernel $(LAB_BUILD)/guest $(LAB_BUILD)/rootfs \
		$(LAB_BUILD)/headers $(LAB_BUILD)/runs $(LAB_BUILD)/check \
		$(LAB_BUILD)/host $(LAB_BUILD)/vm-selftests

distclean:
	rm -rf $(LAB_BUILD)
