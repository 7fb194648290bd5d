# asc: Ascend NPU profile analysis filters.
MAKEFLAGS += --no-builtin-rules
PREFIX	?= /usr/local
BINDIR	?= $(PREFIX)/bin
MANDIR	?= $(PREFIX)/share/man
DATADIR	?= $(PREFIX)/share/asc
CFLAGS	?= -O2 -g
WARN	 = -std=c11 -Wall -Wextra -Wshadow -Wstrict-prototypes \
	   -Wmissing-prototypes -Wformat=2 -Wno-unused-parameter
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Ilib -MMD -MP
LDLIBS	 = -ljq -lcsv -lsqlite3 -lm -pthread

FILTERS	 = asc-ingest asc-steps asc-merge asc-gaps asc-attrib asc-judge asc-report asc-segment asc-ops asc-fia asc-archmd asc-trace asc-html asc-cluster asc-tee
PIPES	 = asc-analyze
BIN	 = $(FILTERS:%=bin/%)
# lib/: what two or more filters share.  lib/ingest/: the readers of the
# profiler's files, used by asc-ingest alone (`make modules` checks this).
LIBOBJ	 = lib/busy.o lib/util.o lib/dec.o lib/rec.o lib/steprec.o lib/rules.o lib/rules_default.o lib/jqprog.o lib/gather.o lib/opkey.o lib/spool.o lib/md.o
INGOBJ	 = lib/ingest/find.o lib/ingest/tables.o lib/ingest/cell.o lib/ingest/ktab.o lib/ingest/rec_out.o lib/ingest/source.o lib/ingest/nest.o lib/ingest/csvline.o lib/ingest/timeline.o lib/ingest/dbread.o lib/ingest/commjson.o
UNITS	 = dec rec csvline trace simd
TESTBIN	 = $(UNITS:%=tests/unit/%_test)
OBJ	 = $(FILTERS:%=filters/%.o) $(LIBOBJ) $(INGOBJ) $(TESTBIN:=.o)

all: $(BIN) $(TESTBIN)

bin/%: filters/%.o lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

bin/asc-ingest: filters/asc-ingest.o lib/ingest/libingest.a lib/libasc.a
	@mkdir -p bin
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The default rules are compiled in: lib/rules.json as a C string.
lib/rules_default.c: lib/rules.json
	{ echo '/* generated from lib/rules.json: do not edit */'; \
	  echo 'const char rules_default_json[] ='; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' lib/rules.json; \
	  echo ';'; } > $@

# jq programs of asc-judge and asc-report are included as C strings.
filters/%.jq.inc: filters/%.jq
	{ echo '/* generated from $<: do not edit */'; \
	  sed 's/\\/\\\\/g; s/"/\\"/g; s/^/"/; s/$$/\\n"/' $<; } > $@

filters/asc-judge.o: filters/asc-judge.jq.inc
filters/asc-report.o: filters/asc-report.jq.inc
filters/asc-html.o: filters/asc-html.jq.inc

lib/libasc.a: $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

lib/ingest/libingest.a: $(INGOBJ)
	rm -f $@
	$(AR) rcs $@ $(INGOBJ)

tests/unit/%_test: tests/unit/%_test.o lib/ingest/libingest.a lib/libasc.a
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

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZDIR)/%_fuzz)

fuzz: all fuzz-build
	tests/fuzz/run $(FUZZ_SECONDS) $(FUZZ_TARGETS)

fuzz-ci: all fuzz-build
	tests/fuzz/run -c 20 $(FUZZ_TARGETS)

# Per module: its lines and the filters that include it; fails when a
# module of lib/ (the shared part) serves one filter only.
modules:
	@tests/modules

lint:
	mandoc -Tlint -Wwarning man/*.1 man/*.7
	for f in tests/run tests/case.sh tests/bench/run tests/modules tests/portable $(PIPES:%=pipelines/%); do bash -n $$f || exit 1; done

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
	rm -rf bin $(OBJ) $(OBJ:.o=.d) $(FUZZDIR) lib/libasc.a lib/ingest/libingest.a lib/rules_default.c filters/*.jq.inc $(TESTBIN)

-include $(OBJ:.o=.d) $(wildcard $(FUZZOBJ:.o=.d))
.PHONY: all deps demo check check-portable asan ubsan-clang bench lint modules install uninstall clean fuzz fuzz-build fuzz-ci
.SECONDARY: $(OBJ) $(FUZZOBJ) filters/asc-judge.jq.inc filters/asc-report.jq.inc filters/asc-html.jq.inc
