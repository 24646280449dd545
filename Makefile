# trigrec: eBPF-driven flight recorder.  `make help` lists the targets.
# ARCH: the target (x86_64, aarch64 or its kernel name arm64); another than
# this machine's cross-compiles with Debian's <arch>-linux-gnu-gcc and the
# target's libbpf/libelf/zlib through multiarch, into .output-<arch>/trigrec.
HOST_ARCH := $(shell uname -m)
ARCH      ?= $(HOST_ARCH)
override ARCH := $(patsubst arm64,aarch64,$(patsubst amd64,x86_64,$(ARCH)))
BPF_ARCH  := $(or $(word 2,$(subst :, ,$(filter $(ARCH):%,x86_64:x86 aarch64:arm64))),$(ARCH))
DEB_ARCH  := $(or $(word 2,$(subst :, ,$(filter $(ARCH):%,x86_64:amd64 aarch64:arm64))),$(ARCH))
ifneq ($(ARCH),$(HOST_ARCH))
CROSS     := $(ARCH)-linux-gnu-
OUTPUT    ?= .output-$(ARCH)
BIN       := $(OUTPUT)/trigrec
else ifeq ($(SAN),1)
OUTPUT    ?= .output-san
BIN       := $(OUTPUT)/trigrec
else
OUTPUT    ?= .output
BIN       := trigrec
endif
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        := $(if $(CROSS),$(CROSS)gcc,$(if $(filter default,$(origin CC)),cc,$(CC)))
CLANG     ?= clang
BPFTOOL   ?= $(firstword $(wildcard /usr/sbin/bpftool /usr/bin/bpftool) bpftool)
LLVM_STRIP ?= llvm-strip
VMLINUX   := vmlinux/$(ARCH)/vmlinux.h

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

# Debian packages that provide each build tool; installed on demand.
# systemtap-sdt-dev: <sys/sdt.h> for the USDT probes of tests/helpers/probework.c.
DEPS_PKGS := libbpf-dev bpftool clang llvm libelf-dev zlib1g-dev pkg-config linux-perf \
	     libmicrohttpd-dev libsystemd-dev libzstd-dev systemtap-sdt-dev
ifneq ($(CROSS),)
# The host's tools (clang, bpftool) plus the cross compiler and the target's libraries.
DEPS_PKGS := bpftool clang llvm gcc-$(ARCH)-linux-gnu libc6-dev-$(DEB_ARCH)-cross \
	     libbpf-dev:$(DEB_ARCH) libelf-dev:$(DEB_ARCH) zlib1g-dev:$(DEB_ARCH) \
	     libmicrohttpd-dev:$(DEB_ARCH) libsystemd-dev:$(DEB_ARCH) libzstd-dev:$(DEB_ARCH)
endif
# make test-kernels: qemu (x86_64, and aarch64 for the arm64 smoke run), a static
# busybox and cpio for the initramfs.
KERNELS_PKGS := qemu-system-x86 qemu-system-arm busybox-static cpio python3 xz-utils
# Only the tests read snapshots with these (hotspot's perf.data parser brings
# about 100 Qt/KDE packages; rclone for the shipping recipe in ship.sh; prometheus and
# prometheus-alertmanager route a real alert to POST /snapshot in webhook.sh): `make check`
# installs them, `make` does not.
TEST_DEPS_PKGS := hotspot python3 binutils bzip2 prometheus prometheus-alertmanager rclone \
		  chromium chromium-driver

EXTRA_CFLAGS ?=
CFLAGS    ?= -O2 -g
VERSION   := 0.1.0
CFLAGS    += -DTRIGREC_VERSION=\"$(VERSION)\" -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers -Werror \
	     -std=gnu11 -D_GNU_SOURCE -MMD -MP \
	     -Iinclude -Isrc -I$(OUTPUT) $(EXTRA_CFLAGS)
ifeq ($(SAN),1)
CFLAGS    += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS   += -fsanitize=address,undefined
endif
ifneq ($(CROSS),)
LIBS      = -lbpf -lelf -lz -lmicrohttpd -lsystemd -lzstd -lpthread
else
LIBS      = $(shell pkg-config --libs libbpf 2>/dev/null || echo -lbpf -lz) -lelf \
	    $(shell pkg-config --libs libmicrohttpd libsystemd libzstd 2>/dev/null || echo -lmicrohttpd -lsystemd -lzstd) -lpthread
endif

# BPF side: the system include dirs clang needs for <linux/*.h> (libbpf-bootstrap's trick).
CLANG_BPF_SYS_INCLUDES = $(shell $(CLANG) -v -E - </dev/null 2>&1 \
	| sed -n '/<...> search starts here:/,/End of search list./{ s| \(/.*\)|-idirafter \1|p }')
BPF_CFLAGS = -g -O2 -target bpf -mcpu=v3 -D__TARGET_ARCH_$(BPF_ARCH) -Wall -Werror \
	      -Iinclude -Ivmlinux/$(ARCH) $(CLANG_BPF_SYS_INCLUDES) -MMD -MP

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.bpf.o,$(BPF_SRCS))
SKELS     := $(patsubst bpf/%.bpf.c,$(OUTPUT)/%.skel.h,$(BPF_SRCS))

# src/cli/ is the front end (the binary only); everything else is a library the unit tests link.
CLI_SRCS  := $(wildcard src/cli/*.c)
CLI_OBJS  := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(CLI_SRCS))
LIB_SRCS  := $(filter-out src/cli/%,$(wildcard src/*/*.c))
LIB_OBJS  := $(patsubst src/%.c,$(OUTPUT)/src/%.o,$(LIB_SRCS))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUTPUT)/tests/%,$(UNIT_SRCS))
HELPER_SRCS := $(wildcard tests/helpers/*.c)
HELPER_BINS := $(patsubst tests/helpers/%.c,$(OUTPUT)/tests/%,$(HELPER_SRCS))
BENCH_SRCS := $(wildcard bench/*.c)
BENCH_BINS := $(patsubst bench/%.c,$(OUTPUT)/bench/%,$(BENCH_SRCS))
BENCH_BPF_SRCS := $(wildcard bench/bpf/*.bpf.c)

.DELETE_ON_ERROR:
.SECONDARY: $(BPF_OBJS) $(OUTPUT)/bench/floor.bpf.o
.PHONY: all deps test-deps check check-unit check-integration demo install uninstall vmlinux clean help bench bench-scale \
	fuzz fuzz-build fuzz-deps test-kernels lint lint-deps lint-sh lint-c lint-bpf lint-layers verifier-budget format \
	format-check compile_commands.json man-settings

all: deps $(BIN)

help:
	@echo 'make            build ./trigrec (installs missing build packages with apt)'
	@echo 'make demo       build, capture a demo snapshot, show it with perf script'
	@echo 'make check      build and run every test (root; installs the test-only packages; ends with "N passed, N failed")'
	@echo 'make check SAN=1  the same under ASan/UBSan'
	@echo 'make check T=PATTERN  only the tests whose names contain PATTERN (also check-unit; V=1 shows each command; RINGS=compact, bpf or perf: one recording path)'
	@echo 'make lint       shellcheck, the layers of src/ (tools/layers.sh), clang-tidy (.clang-tidy) and the BPF verifier budget (bpf/verifier-budget.txt)'
	@echo 'make format     clang-format the C the project wrote; make format-check only reports (CI)'
	@echo 'make man-settings  rewrite docs/trigrec.1'"'"'s statement list from the settings table'
	@echo 'make compile_commands.json  the compile database for editors and clang-tidy'
	@echo 'make bench      side-by-side benchmarks against ftrace and perf'
	@echo 'make bench-scale the snapshot write path for 2-256 simulated CPUs x 1-16 MiB (bench/scale.c)'
	@echo 'make fuzz       build the libFuzzer targets and run each for $$(FUZZ_SECONDS) s (default 60)'
	@echo 'make fuzz-build only build them ($(OUTPUT)/fuzz/fuzz_NAME)'
	@echo 'make test-kernels  the test subset on Debian 11/12/13 kernels (and 12 -rt) under qemu'
	@echo 'make ARCH=arm64 cross-compile for arm64 (into .output-aarch64/trigrec)'
	@echo 'make install    install to $$(DESTDIR)$$(PREFIX) (bin, man page, units, completion, /etc/trigrec example)'
	@echo 'make uninstall  remove what make install put there (keeps /etc/trigrec)'
	@echo 'make vmlinux    regenerate $(VMLINUX) from /sys/kernel/btf/vmlinux'
	@echo 'make clean      remove build output'

# Install what is missing, once: a stamp per package set keeps rebuilds quiet.
deps: $(OUTPUT)/.deps-ok
$(OUTPUT)/.deps-ok: Makefile
	$(Q)mkdir -p $(OUTPUT)
	$(Q)./tools/install-deps.sh $(DEPS_PKGS)
	$(Q)touch $@

# Not fatal: without them the tests that need them skip and say why.
test-deps: $(OUTPUT)/.test-deps-ok
$(OUTPUT)/.test-deps-ok:
	$(Q)mkdir -p $(OUTPUT)
	$(Q)if ./tools/install-deps.sh $(TEST_DEPS_PKGS); then touch $@; \
	else echo "note: test packages ($(TEST_DEPS_PKGS)) missing: some tests will skip"; fi

$(BIN): $(CLI_OBJS) $(LIB_OBJS) | $(OUTPUT)/.deps-ok
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) $^ $(LIBS) -o $@

$(OUTPUT)/%.bpf.o: bpf/%.bpf.c $(VMLINUX) | $(OUTPUT)/.deps-ok
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.unstripped.o)
	$(Q)$(LLVM_STRIP) -g $(@:.o=.unstripped.o) -o $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# Userspace objects that include a skeleton must wait for it.
$(LIB_OBJS) $(CLI_OBJS): $(SKELS)

# The target's system call numbers by name, for the syscalls:sys_enter_NAME
# fast path (src/engine/bpfctl.c): from the C library's headers, as strace's.
$(OUTPUT)/syscall_names.h: | $(OUTPUT)/.deps-ok
	$(call msg,GEN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)printf '#include <sys/syscall.h>\n' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) .*/{ "\1", __NR_\1 },/p' | LC_ALL=C sort > $@.tmp
	$(Q)test -s $@.tmp && mv $@.tmp $@
$(OUTPUT)/src/engine/bpfctl.o $(OUTPUT)/src/show/why.o: $(OUTPUT)/syscall_names.h

$(OUTPUT)/src/%.o: src/%.c | $(OUTPUT)/.deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

# test_hist draws log-normal samples (exp, log, cos): libm.
$(OUTPUT)/tests/test_hist: LIBS += -lm
$(OUTPUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(LIBS) -o $@

# Workloads stay plain programs under SAN=1: a sanitizer adds mmaps and
# syscalls of its own to what the tests count in their records.
$(OUTPUT)/tests/%: tests/helpers/%.c | $(OUTPUT)/.deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(filter-out -fsanitize% -fno-sanitize%,$(CFLAGS)) \
		$(filter-out -fsanitize%,$(LDFLAGS)) $< -lpthread -o $@

$(OUTPUT)/bench/%: bench/%.c
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(BENCH_LIBS) -lpthread -o $@
# bench/zsize decompresses perf.data files as perf does.
$(OUTPUT)/bench/zsize: BENCH_LIBS := -lzstd
# bench/floor (row 3f) loads its own small BPF object (bench/bpf/floor.bpf.c).
$(OUTPUT)/bench/floor: BENCH_LIBS := $(LIBS)
$(OUTPUT)/bench/floor: $(OUTPUT)/bench/floor.skel.h
$(OUTPUT)/bench/%.bpf.o: bench/bpf/%.bpf.c $(VMLINUX) | $(OUTPUT)/.deps-ok
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(BPF_CFLAGS) -MF $(@:.o=.d) -MT $@ -c $< -o $(@:.o=.unstripped.o)
	$(Q)$(LLVM_STRIP) -g $(@:.o=.unstripped.o) -o $@
$(OUTPUT)/bench/%.skel.h: $(OUTPUT)/bench/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@
# bench/scale drives the real snapshot writer: it links the library.
$(OUTPUT)/bench/scale: bench/scale.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(LIBS) -o $@

# T=PATTERN (several, space-separated) runs the tests whose names contain one;
# V=1 makes the runner print each command it runs; RINGS=bpf (or perf) runs the
# integration tests on one recording path instead of both.
check: all test-deps $(UNIT_BINS) $(HELPER_BINS)
	$(Q)OUTPUT=$(OUTPUT) TRIGREC=$(abspath $(BIN)) V=$(V) RINGS="$(RINGS)" ./tests/run.sh $(T)

check-unit: all $(UNIT_BINS)
	$(Q)OUTPUT=$(OUTPUT) TRIGREC=$(abspath $(BIN)) V=$(V) ./tests/run.sh --unit $(T)

# The kernel matrix (tests/kernels/run.sh): Debian's kernels booted under qemu TCG.
# The unit tests too: the host pass selects tests by name, and the subset's
# "kmod" also names test_kmods.
test-kernels: all $(UNIT_BINS) $(HELPER_BINS)
	$(Q)./tools/install-deps.sh $(KERNELS_PKGS)
	$(Q)OUTPUT=$(OUTPUT) TRIGREC=$(abspath $(BIN)) ./tests/kernels/run.sh $(KERNELS)

demo: all
	$(Q)./tools/demo.sh

bench: all $(BENCH_BINS) $(HELPER_BINS)
	$(Q)OUTPUT=$(OUTPUT) ./bench/run.sh

# The long scale run (bench/scale.c, row 10 of make bench at full size): up to
# 256 simulated CPUs x 16 MiB, 4 GiB of ring copies and as much in /dev/shm.
# Compact rings (-C) stop at 256 x 4 MiB: their expansion and file are 3x the
# rings each (~9 GiB there), 256 x 16 MiB would not fit a 24 GiB machine.
bench-scale: all $(OUTPUT)/bench/scale
	$(Q)mkdir -p bench/out
	$(Q)$(OUTPUT)/bench/scale -c 2,16,64,256 -m 1,4,16 -r $(or $(RUNS),3) | tee bench/out/scale-perf.md
	$(Q)$(OUTPUT)/bench/scale -s -c 2,16,64,256 -m 1,4,16 -r $(or $(RUNS),3) | tee bench/out/scale-sets.md
	$(Q)$(OUTPUT)/bench/scale -C -c 2,16,64,256 -m 1,4 -r $(or $(RUNS),3) | tee bench/out/scale-compact.md
	$(Q)$(OUTPUT)/bench/scale -C -c 2,16,64 -m 16 -r $(or $(RUNS),3) | tee -a bench/out/scale-compact.md

# ---- lint, format, compile database ----
# Debian's clang-tidy 14 matches the clang that builds the BPF side.
LINT_PKGS := shellcheck clang-tidy clang-format
# Every shell script the project wrote (tests, bench, tools, CI, completion).
SH_SRCS   := .ci/run contrib/trigrec.bash-completion tests/kernels/init \
	     $(wildcard tests/*.sh tests/integration/*.sh tests/kernels/*.sh tests/fuzz/*.sh \
			bench/*.sh tools/*.sh)
TOOL_SRCS := $(wildcard tools/*.c)
FUZZ_SRCS := $(wildcard tests/fuzz/fuzz_*.c)
# The C the project wrote, userspace only (clang-tidy) and with BPF (clang-format);
# vmlinux/ and generated headers (tests/fuzz/kernel_formats.h, from
# gen-kernel-formats.sh) are not ours.
USER_C    := $(LIB_SRCS) $(CLI_SRCS) $(UNIT_SRCS) $(HELPER_SRCS) $(BENCH_SRCS) $(TOOL_SRCS) $(FUZZ_SRCS)
FORMAT_SRCS := $(filter-out tests/fuzz/kernel_formats.h, \
	       $(sort $(USER_C) $(wildcard src/*/*.h include/*.h bpf/*.bpf.c bpf/*.h \
		tests/unit/*.h tests/helpers/*.h tests/fuzz/*.h bench/*.h bench/bpf/*.[ch] tools/*.h)))
TIDY_SRCS := $(USER_C)
CLANG_TIDY   ?= clang-tidy
CLANG_FORMAT ?= clang-format
VERIFIER_STATS := $(OUTPUT)/tools/verifier-stats

lint-deps: $(OUTPUT)/.deps-lint-ok
$(OUTPUT)/.deps-lint-ok: Makefile | $(OUTPUT)/.deps-ok
	$(Q)./tools/install-deps.sh $(LINT_PKGS)
	$(Q)touch $@

lint: lint-sh lint-layers lint-c lint-bpf

lint-sh: lint-deps
	$(call msg,SHCHECK,$(words $(SH_SRCS)) scripts)
	$(Q)shellcheck -x $(SH_SRCS)

# Every #include goes down the folders' order in docs/CONTRIBUTING.md's map, no cycle.
lint-layers:
	$(call msg,LAYERS,src/)
	$(Q)./tools/layers.sh

# clang-tidy with .clang-tidy's checks, two files at a time (tools/clang-tidy.sh).
lint-c: lint-deps compile_commands.json $(SKELS) $(OUTPUT)/bench/floor.skel.h $(OUTPUT)/syscall_names.h
	$(call msg,TIDY,$(words $(TIDY_SRCS)) files)
	$(Q)CLANG_TIDY=$(CLANG_TIDY) ./tools/clang-tidy.sh $(TIDY_SRCS)

lint-bpf: $(VERIFIER_STATS)
	$(call msg,VERIFIER,bpf/verifier-budget.txt)
	$(Q)./tools/verifier-budget.sh $(VERIFIER_STATS) bpf/verifier-budget.txt

# After a change that makes a program legitimately cheaper or dearer to verify.
verifier-budget: $(VERIFIER_STATS)
	$(Q)./tools/verifier-budget.sh $(VERIFIER_STATS) bpf/verifier-budget.txt --update

# The man page's statement lines from the settings table (src/session/settings.c);
# test_settings fails when docs/trigrec.1 was not regenerated.
$(OUTPUT)/tools/man-settings: tools/man-settings.c $(LIB_OBJS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIB_OBJS) $(LIBS) -o $@

man-settings: $(OUTPUT)/tools/man-settings
	$(Q)$< docs/trigrec.1

$(OUTPUT)/tools/%: tools/%.c $(SKELS) | $(OUTPUT)/.deps-ok
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) $< $(LIBS) -o $@

format: lint-deps
	$(call msg,FORMAT,$(words $(FORMAT_SRCS)) files)
	$(Q)$(CLANG_FORMAT) -i $(FORMAT_SRCS)

format-check: lint-deps
	$(call msg,FMTCHECK,$(words $(FORMAT_SRCS)) files)
	$(Q)$(CLANG_FORMAT) --dry-run -Werror $(FORMAT_SRCS) || \
		{ echo "format-check: run make format (the diff is what it would change)"; exit 1; }

# The compile database, written from this Makefile's own flags (no bear): one
# entry per C file the project builds, BPF included.
json_str = "$(subst ",\",$(subst \,\\,$(1)))"
cdb_entry = {"directory": "$(CURDIR)", "file": "$(1)", "output": "$(2)", "command": $(call json_str,$(3))},
define cdb_lines
$(foreach s,$(LIB_SRCS) $(CLI_SRCS),$(call cdb_entry,$(s),$(OUTPUT)/$(s:.c=.o),$(CC) $(CFLAGS) -c $(s) -o $(OUTPUT)/$(s:.c=.o))
)$(foreach s,$(UNIT_SRCS) $(HELPER_SRCS),$(call cdb_entry,$(s),$(OUTPUT)/tests/$(notdir $(s:.c=)),$(CC) $(CFLAGS) -c $(s) -o $(OUTPUT)/tests/$(notdir $(s:.c=.o)))
)$(foreach s,$(BENCH_SRCS) $(TOOL_SRCS),$(call cdb_entry,$(s),$(OUTPUT)/$(s:.c=),$(CC) $(CFLAGS) -c $(s) -o $(OUTPUT)/$(s:.c=.o))
)$(foreach s,$(FUZZ_SRCS),$(call cdb_entry,$(s),$(FUZZ_OUT)/$(notdir $(s:.c=)),$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer -c $(s) -o $(FUZZ_OUT)/$(notdir $(s:.c=.o)))
)$(foreach s,$(BPF_SRCS) $(BENCH_BPF_SRCS),$(call cdb_entry,$(s),$(OUTPUT)/$(notdir $(s:.c=.o)),$(CLANG) $(BPF_CFLAGS) -c $(s) -o $(OUTPUT)/$(notdir $(s:.c=.o)))
)
endef
compile_commands.json: | $(OUTPUT)/.deps-ok
	$(call msg,GEN,$@)
	$(file >$@.tmp,[)
	$(file >>$@.tmp,$(cdb_lines))
	$(Q)sed -i -e '/^$$/d' -e '$$ s/},$$/}/' $@.tmp && echo ']' >>$@.tmp && mv $@.tmp $@

# ---- fuzzing (libFuzzer) ----
# One target per name: tests/fuzz/fuzz_NAME.c defines LLVMFuzzerTestOneInput,
# tests/fuzz/corpus/NAME/ holds its seeds, tests/fuzz/NAME.dict (optional)
# its dictionary. Adding a target is adding its name here.
FUZZ_TARGETS := trigger script perfdata sidecar tpformat usdt usdt_args probe_spec hook_argv metrics_addr buildid names webhook cgroup compact replay control
FUZZ_SECONDS ?= 60
FUZZ_OUT  := $(OUTPUT)/fuzz
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# The library is built again with clang, instrumented for coverage; a target
# links only the objects it uses (an archive).
FUZZ_CFLAGS = -O1 -g $(filter-out -O% -g -fsanitize% -fno-sanitize%,$(CFLAGS)) $(FUZZ_SAN)
FUZZ_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/src/%.o,$(LIB_SRCS))
FUZZ_BINS := $(addprefix $(FUZZ_OUT)/fuzz_,$(FUZZ_TARGETS))
# Per run: at most 4 KB inputs (64 KiB perf.data files), 5 s each
# (pathological input must be quick).
FUZZ_ARGS := -timeout=5 -rss_limit_mb=2048 -print_final_stats=1

fuzz-deps: $(OUTPUT)/.deps-fuzz-ok
$(OUTPUT)/.deps-fuzz-ok: | $(OUTPUT)/.deps-ok
	$(Q)./tools/install-deps.sh libclang-rt-$$($(CLANG) -dumpversion | cut -d. -f1)-dev
	$(Q)touch $@

$(FUZZ_OUT)/src/%.o: src/%.c $(SKELS) | $(OUTPUT)/.deps-fuzz-ok
	$(call msg,CC-FUZZ,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

$(FUZZ_OUT)/src/show/why.o: $(OUTPUT)/syscall_names.h

$(FUZZ_OUT)/libtrigrec.a: $(FUZZ_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(FUZZ_OUT)/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) $(FUZZ_OUT)/libtrigrec.a
	$(call msg,CC-FUZZ,$@)
	$(Q)$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $< $(FUZZ_OUT)/libtrigrec.a $(LIBS) -o $@

fuzz-build: $(FUZZ_BINS)

# New inputs go to $(FUZZ_OUT)/corpus/NAME, never into the checked-in seeds;
# a crash leaves $(FUZZ_OUT)/NAME-crash-* and fails the build.
fuzz: fuzz-build
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_OUT)/corpus/$$t || exit 1; \
		echo "  FUZZ     $$t for $(FUZZ_SECONDS) s"; \
		case $$t in perfdata|compact|replay) ml=65536 ;; *) ml=4096 ;; esac; \
		$(FUZZ_OUT)/fuzz_$$t $(FUZZ_ARGS) -max_len=$$ml -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=$(FUZZ_OUT)/$$t- \
			$$([ -f tests/fuzz/$$t.dict ] && echo -dict=tests/fuzz/$$t.dict) \
			$(FUZZ_OUT)/corpus/$$t tests/fuzz/corpus/$$t 2>$(FUZZ_OUT)/$$t.log; \
		rc=$$?; grep -E '^(stat::|INFO: Loaded|Done|==[0-9]+==|SUMMARY|fuzz_)' $(FUZZ_OUT)/$$t.log; \
		[ $$rc = 0 ] || { echo "fuzz $$t: failed (exit $$rc), see $(FUZZ_OUT)/$$t.log"; exit 1; }; \
	done

# make install [DESTDIR=...] [PREFIX=/usr/local] [SYSCONFDIR=/etc]: the binary,
# the man page, the docs, bash completion, the systemd units (@BINDIR@ and
# @DOCDIR@ filled in) and an example script in SYSCONFDIR/trigrec, which is
# never overwritten (an operator's edits survive an upgrade). The units run
# on_snapshot commands as the system user trigrec: its sysusers.d entry is
# installed, and without DESTDIR the user is created (systemd-sysusers, or
# useradd) unless CREATE_USER=0; packages run systemd-sysusers themselves.
SYSCONFDIR     ?= /etc
CREATE_USER    ?= 1
BINDIR         := $(PREFIX)/bin
MANDIR         := $(PREFIX)/share/man
DOCDIR         := $(PREFIX)/share/doc/trigrec
COMPLETIONSDIR ?= $(PREFIX)/share/bash-completion/completions
# systemd's search path for units under /usr/local is /usr/local/lib/systemd/system.
UNITDIR        ?= $(if $(filter /usr,$(PREFIX)),/lib/systemd/system,$(PREFIX)/lib/systemd/system)
UNITS          := trigrec.service trigrec@.service
# systemd-sysusers reads /usr/lib/sysusers.d and /etc/sysusers.d, not /usr/local.
SYSUSERSDIR    ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/sysusers.d,$(SYSCONFDIR)/sysusers.d)
EXAMPLE        := examples/on-demand.trig
DOCS           := README.md docs/operations.md docs/triggers.md docs/script-language.md \
		  docs/design.md docs/perf-data.md docs/sidecar.md docs/kernels.md

install: $(BIN)
	install -D -m 0755 $(BIN) $(DESTDIR)$(BINDIR)/trigrec
	install -D -m 0644 docs/trigrec.1 $(DESTDIR)$(MANDIR)/man1/trigrec.1
	install -d $(DESTDIR)$(DOCDIR) $(DESTDIR)$(UNITDIR)
	install -m 0644 $(DOCS) $(DESTDIR)$(DOCDIR)/
	install -D -m 0644 contrib/trigrec.bash-completion $(DESTDIR)$(COMPLETIONSDIR)/trigrec
	for u in $(UNITS); do \
		sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g' contrib/$$u \
			>$(DESTDIR)$(UNITDIR)/$$u.tmp && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u.tmp && \
		mv $(DESTDIR)$(UNITDIR)/$$u.tmp $(DESTDIR)$(UNITDIR)/$$u || exit 1; \
	done
	install -D -m 0644 contrib/trigrec.sysusers $(DESTDIR)$(SYSUSERSDIR)/trigrec.conf
	@if [ -z "$(DESTDIR)" ] && [ "$(CREATE_USER)" = 1 ] && ! getent passwd trigrec >/dev/null; then \
		if command -v systemd-sysusers >/dev/null; then \
			echo "systemd-sysusers $(SYSUSERSDIR)/trigrec.conf"; \
			systemd-sysusers $(SYSUSERSDIR)/trigrec.conf; \
		else \
			echo "useradd --system --user-group --no-create-home --home-dir / --shell /usr/sbin/nologin trigrec"; \
			useradd --system --user-group --no-create-home --home-dir / --shell /usr/sbin/nologin trigrec; \
		fi; \
	fi
	install -d -m 0755 $(DESTDIR)$(SYSCONFDIR)/trigrec
	@if [ -e $(DESTDIR)$(SYSCONFDIR)/trigrec/example.trig ]; then \
		echo "  keeping $(DESTDIR)$(SYSCONFDIR)/trigrec/example.trig (exists)"; \
	else \
		echo "install -m 0644 $(EXAMPLE) $(DESTDIR)$(SYSCONFDIR)/trigrec/example.trig"; \
		install -m 0644 $(EXAMPLE) $(DESTDIR)$(SYSCONFDIR)/trigrec/example.trig; \
	fi

# Leaves SYSCONFDIR/trigrec (the operator's scripts) and /var/lib/trigrec (snapshots).
uninstall:
	rm -f $(DESTDIR)$(BINDIR)/trigrec $(DESTDIR)$(MANDIR)/man1/trigrec.1 \
		$(DESTDIR)$(COMPLETIONSDIR)/trigrec $(addprefix $(DESTDIR)$(UNITDIR)/,$(UNITS)) \
		$(DESTDIR)$(SYSUSERSDIR)/trigrec.conf
	rm -rf $(DESTDIR)$(DOCDIR)
	@echo "  kept $(DESTDIR)$(SYSCONFDIR)/trigrec and /var/lib/trigrec (scripts and snapshots), and the user trigrec"

# From the running kernel; for another ARCH, from Debian's bookworm kernel for it.
vmlinux:
	$(Q)mkdir -p vmlinux/$(ARCH)
ifeq ($(CROSS),)
	$(BPFTOOL) btf dump file /sys/kernel/btf/vmlinux format c > $(VMLINUX).tmp
else
	$(Q)KARCH=$(DEB_ARCH) KDIR=$(OUTPUT)/kernels ./tests/kernels/fetch.sh bookworm \
		linux-image-$(DEB_ARCH) $(OUTPUT)/kernels/img
	$(Q)./tools/btf-from-image.py $(OUTPUT)/kernels/img/boot/vmlinuz-* $(OUTPUT)/vmlinux.btf
	$(BPFTOOL) btf dump file $(OUTPUT)/vmlinux.btf format c > $(VMLINUX).tmp
endif
	$(Q)mv $(VMLINUX).tmp $(VMLINUX)

clean:
	$(call msg,CLEAN,)
	$(Q)rm -rf .output .output-san .output-aarch64 trigrec compile_commands.json

-include $(wildcard $(OUTPUT)/*.d $(OUTPUT)/bench/*.d $(OUTPUT)/src/*/*.d $(OUTPUT)/tests/*.d $(OUTPUT)/tools/*.d \
	$(FUZZ_OUT)/src/*/*.d $(FUZZ_OUT)/*.d)
