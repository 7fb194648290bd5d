# asc: Ascend NPU profile analysis filters.
MAKEFLAGS += --no-builtin-rules
# The version, here only; `asc-* --version` adds the commit of a checkout.
VERSION	 = 0.3.0
COMMIT	:= $(shell git describe --always --dirty 2>/dev/null)
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DATADIR	?= $(PREFIX)/share/asc
CFLAGS	?= -O2 -g
WARN	 = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Ilib -MMD -MP
LDLIBS	 = -ljq -lcsv -lsqlite3 -lm -pthread

FILTERS	 = asc-ingest asc-steps asc-merge asc-gaps asc-attrib asc-comm asc-judge asc-report asc-segment asc-ops asc-fia asc-archmd asc-trace asc-html asc-cluster asc-tee asc-diff asc-parts
PIPES	 = asc-analyze
BIN	 = $(FILTERS:%=bin/%)
# lib/: what two or more filters share.  lib/ingest/: the readers of the
# profiler's files, used by asc-ingest alone (`make modules` checks this).
LIBOBJ	 = lib/busy.o lib/util.o lib/dec.o lib/rec.o lib/rec_scan.o lib/rec_jq.o lib/rec_field.o lib/rec_write.o lib/steprec.o lib/filter.o lib/rules.o lib/rules_default.o lib/jqprog.o lib/gather.o lib/intern.o lib/opkey.o lib/spool.o lib/strv.o lib/nsms.o
INGOBJ	 = lib/ingest/find.o lib/ingest/tables.o lib/ingest/meta.o lib/ingest/cell.o lib/ingest/ktab.o lib/ingest/rec_out.o lib/ingest/source.o lib/ingest/nest.o lib/ingest/csvline.o lib/ingest/timeline.o lib/ingest/warns.o lib/ingest/dbread.o lib/ingest/dbutil.o lib/ingest/dbscan.o lib/ingest/dbstep.o lib/ingest/dbkern.o lib/ingest/dbhost.o lib/ingest/dbcomm.o lib/ingest/dbctask.o lib/ingest/dbdtask.o lib/ingest/commjson.o lib/ingest/commjson_tok.o lib/ingest/commjson_rec.o
UNITS	 = dec rec csvline trace simd jscan helpers filter pmu
TESTBIN	 = $(UNITS:%=tests/unit/%_test)
# A filter's own modules, linked into it alone: filters/FILTER/*.c.
OPSOBJ	 = filters/asc-ops/pmu.o filters/asc-ops/table.o filters/asc-ops/kernels.o \
	   filters/asc-ops/steps.o filters/asc-ops/rank.o filters/asc-ops/summary.o
ATTRIBOBJ = filters/asc-attrib/names.o filters/asc-attrib/context.o filters/asc-attrib/host.o \
	   filters/asc-attrib/tree.o filters/asc-attrib/sweep.o filters/asc-attrib/causes.o \
	   filters/asc-attrib/out.o filters/asc-attrib/stakes.o \
	   filters/asc-attrib/roots.o
FIAOBJ	 = filters/asc-fia/names.o filters/asc-fia/layers.o filters/asc-fia/passes.o \
	   filters/asc-fia/phases.o filters/asc-fia/checks.o filters/asc-fia/roles.o \
	   filters/asc-fia/classify.o filters/asc-fia/emit.o filters/asc-fia/summary.o \
	   filters/asc-fia/head.o
DIFFOBJ	 = filters/asc-diff/partops.o
PARTSOBJ = filters/asc-parts/assign.o filters/asc-parts/write.o
INGESTOBJ = filters/asc-ingest/read.o filters/asc-ingest/slices.o filters/asc-ingest/profile.o \
	   filters/asc-ingest/records.o filters/asc-ingest/msg.o
COMMOBJ	 = filters/asc-comm/spans.o filters/asc-comm/groups.o filters/asc-comm/ops.o \
	   filters/asc-comm/pipeline.o
ARCHMDOBJ = filters/asc-archmd/access.o filters/asc-archmd/render.o filters/asc-archmd/save.o
SEGOBJ	 = filters/asc-segment/cut.o filters/asc-segment/measure.o filters/asc-segment/emit.o
TRACEOBJ = filters/asc-trace/out.o filters/asc-trace/breakdown.o filters/asc-trace/merge.o
CLUSTEROBJ = filters/asc-cluster/read.o filters/asc-cluster/jobs.o filters/asc-cluster/out.o \
	   filters/asc-cluster/links.o filters/asc-cluster/peers.o filters/asc-cluster/late.o \
	   filters/asc-cluster/pipeline.o filters/asc-cluster/render.o
OBJ	 = $(FILTERS:%=filters/%.o) $(OPSOBJ) $(ATTRIBOBJ) $(FIAOBJ) $(DIFFOBJ) $(PARTSOBJ) $(INGESTOBJ) $(COMMOBJ) $(ARCHMDOBJ) $(CLUSTEROBJ) $(SEGOBJ) $(TRACEOBJ) $(LIBOBJ) $(INGOBJ) $(TESTBIN:=.o)

all: $(BIN) $(TESTBIN)

bin/%: filters/%.o lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-ingest: filters/asc-ingest.o $(INGESTOBJ) lib/ingest/libingest.a lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-ops: filters/asc-ops.o $(OPSOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-attrib: filters/asc-attrib.o $(ATTRIBOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-fia: filters/asc-fia.o $(FIAOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-archmd: filters/asc-archmd.o $(ARCHMDOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-segment: filters/asc-segment.o $(SEGOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-trace: filters/asc-trace.o $(TRACEOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-diff: filters/asc-diff.o $(DIFFOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-parts: filters/asc-parts.o $(PARTSOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-comm: filters/asc-comm.o $(COMMOBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-cluster: filters/asc-cluster.o $(CLUSTEROBJ) lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The default rules are compiled in: lib/rules.json as a C string.
lib/rules_default.c: lib/rules.json
	{ echo '/* generated from lib/rules.json: do not edit */'; \
	  echo 'const char rules_default_json[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' lib/rules.json; \
	  echo ';'; } > $@

# The jq programs of asc-judge, asc-report, asc-html, asc-diff and
# asc-cluster (its report, from filters/asc-cluster/render.c) and
# asc-archmd are included as C strings, each after filters/fmt.jq (the
# formatting helpers they share: one program text, so no jq module path at
# run time).
filters/%.jq.inc: filters/fmt.jq filters/%.jq
	{ echo '/* generated from filters/fmt.jq and filters/$*.jq: do not edit */'; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' filters/fmt.jq filters/$*.jq; } > $@

filters/asc-judge.o: filters/asc-judge.jq.inc
filters/asc-report.o: filters/asc-report.jq.inc
filters/asc-html.o: filters/asc-html.jq.inc
filters/asc-diff.o: filters/asc-diff.jq.inc
filters/asc-cluster/render.o: filters/asc-cluster.jq.inc
filters/asc-archmd/render.o: filters/asc-archmd.jq.inc
# (found by -Ifilters under this name, the one the rule above makes)
filters/asc-cluster/render.o filters/asc-archmd/render.o: CPPFLAGS += -Ifilters

# Rewritten only when the version or the commit changes, so that a build
# in a clean checkout says which commit it is without rebuilding the rest.
lib/version.h: FORCE
	@printf '/* generated by the Makefile: do not edit */\n#define ASC_VERSION "%s"\n#define ASC_COMMIT "%s"\n' \
	    '$(VERSION)' '$(COMMIT)' > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv -f $@.tmp $@; fi

lib/util.o: lib/version.h

lib/libasc.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

lib/ingest/libingest.a: $(INGOBJ)
	rm -f $@
	$(AR) rcs $@ $(INGOBJ)

tests/unit/%_test: tests/unit/%_test.o lib/ingest/libingest.a lib/libasc.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# A filter's module under test is linked in from the filter's directory.
tests/unit/pmu_test: tests/unit/pmu_test.o filters/asc-ops/pmu.o lib/libasc.a
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

%.o: %.c
	$(CC) $(WARN) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

deps:
	@.ci/deps

check: deps
	@$(MAKE) --no-print-directory all
	tests/run

demo: deps
	@$(MAKE) --no-print-directory all
	tests/demo

# ASC_SANITIZED: cases skip peak-RSS bounds (shadow memory is not ours);
# tests/lsan.supp: libjq 1.6's own parser leaks.
asan:
	$(MAKE) clean
	ASC_SANITIZED=1 LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	    UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    $(MAKE) CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined' \
	    LDFLAGS='-fsanitize=address,undefined' check
	$(MAKE) clean

# clang's UBSan sees what gcc's does not (float-to-int casts out of range,
# NULL + 0); every report stops the case that made it.
ubsan-clang:
	$(MAKE) clean
	ASC_SANITIZED=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	    $(MAKE) CC=clang CFLAGS='-O1 -g -fno-omit-frame-pointer -fsanitize=undefined,float-cast-overflow -fno-sanitize-recover=all' \
	    LDFLAGS='-fsanitize=undefined,float-cast-overflow' check
	$(MAKE) clean

# The fallbacks this machine never runs: scalar-only, SSE2-only and
# tiny-CSV-block builds, apart in $TMPDIR, each running the unit tests and
# the readers' cases (tests/portable).
check-portable: deps
	tests/portable

bench: all
	tests/bench/run

# libFuzzer targets (tests/fuzz/*_fuzz.c) for the parsers of untrusted
# input, built apart with clang and ASan + UBSan.  `make fuzz` runs each
# FUZZ_SECONDS on a corpus seeded from the real captures; `make fuzz-ci`
# replays the corpus and tests/fuzz/regress/, then runs each 20 s.
FUZZ_TARGETS = dec csvline rec commjson trace dbread
FUZZ_SECONDS ?= 60
FUZZDIR	 = tests/fuzz/build
FUZZCC	 = clang
FUZZFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	    -fno-sanitize-recover=undefined
FUZZSRC	 = $(LIBOBJ:.o=.c) $(INGOBJ:.o=.c)
FUZZOBJ	 = $(FUZZSRC:%.c=$(FUZZDIR)/%.o)

$(FUZZDIR)/%.o: %.c
	@mkdir -p $(@D)
	$(FUZZCC) $(CPPFLAGS) -Ilib/ingest $(FUZZFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

$(FUZZDIR)/%_fuzz: $(FUZZDIR)/tests/fuzz/%_fuzz.o $(FUZZOBJ)
	$(FUZZCC) $(FUZZFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDLIBS)

$(FUZZDIR)/lib/util.o: lib/version.h

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZDIR)/%_fuzz)

fuzz: all fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-ci: all fuzz-build
	tests/fuzz/run -c 20 $(FUZZ_TARGETS)

# Refactoring changes no output: BASE and the working tree (or NEW) built
# apart, every output on the real captures and generated profiles
# compared byte for byte (tests/differential/same-outputs).
BASE ?= HEAD
same:
	tests/differential/same-outputs $(BASE) $(NEW)

# Per module: its lines and the filters that include it; fails when a
# module of lib/ (the shared part) serves one filter only, or a C file
# over 1000 lines or a function over 150 is not in tests/size-debt.
modules:
	@tests/modules

lint:
	mandoc -Tlint -Wwarning man/*.1 man/*.7
	for f in tests/run tests/case.sh tests/bench/run tests/modules tests/cites tests/portable tests/differential/same-outputs $(PIPES:%=pipelines/%); do bash -n $$f || exit 1; done
	tests/cites

install: all
	mkdir -p $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(DATADIR)/schemas
	install -m 0755 $(BIN) $(DESTDIR)$(BINDIR)
	for p in $(PIPES); do install -m 0755 pipelines/$$p $(DESTDIR)$(BINDIR); done
	install -m 0644 man/*.1 $(DESTDIR)$(MANDIR)/man1
	install -m 0644 man/*.7 $(DESTDIR)$(MANDIR)/man7
	install -m 0644 schemas/*.json $(DESTDIR)$(DATADIR)/schemas
	install -m 0644 lib/rules.json $(DESTDIR)$(DATADIR)/rules.json

uninstall:
	for f in $(FILTERS) $(PIPES); do rm -f $(DESTDIR)$(BINDIR)/$$f $(DESTDIR)$(MANDIR)/man1/$$f.1; done
	rm -f $(DESTDIR)$(MANDIR)/man7/asc.7
	rm -rf $(DESTDIR)$(DATADIR)

clean:
	rm -rf bin $(OBJ) $(OBJ:.o=.d) $(FUZZDIR) lib/libasc.a lib/ingest/libingest.a lib/rules_default.c lib/version.h filters/*.jq.inc $(TESTBIN)

-include $(OBJ:.o=.d) $(wildcard $(FUZZOBJ:.o=.d))
.PHONY: all deps demo check check-portable same asan ubsan-clang bench lint modules install uninstall clean fuzz fuzz-build fuzz-ci FORCE
.SECONDARY: $(OBJ) $(FUZZOBJ) filters/asc-judge.jq.inc filters/asc-report.jq.inc filters/asc-html.jq.inc filters/asc-diff.jq.inc filters/asc-cluster.jq.inc filters/asc-archmd.jq.inc
