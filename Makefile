# cuzk — the two commands a newcomer needs:
#   make run    install what is missing, build, and run the sample job
#   make test   install what is missing, build, and pass every test
# Everything else is CMake (see README.md); this file only wraps it.

BUILD      ?= build
JOBS       ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_ARGS ?=
# Warnings are errors in CI and in `make test`.
WERROR     ?= ON

.PHONY: all build run test test-unit test-asan test-fuzz check-generated check-symbols deps deps-build clean

all: build

deps-build:
	@scripts/install-deps.sh build

deps:
	@scripts/install-deps.sh test

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DCUZK_WERROR=$(WERROR) $(CMAKE_ARGS)

build: $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j$(JOBS)

# The main job as a user meets it: the arithmetic self-test, then the proving
# daemon with the snarkjs sample as key "sample", the sample proved through
# the client and verified, the status page's address and the commands to
# try; it serves until Ctrl-C (scripts/demo.sh).
run: deps-build
	@$(MAKE) --no-print-directory build
	$(BUILD)/cuzk selftest
	scripts/demo.sh $(BUILD)

# Tests run several OpenMP programs at once on few cores: threads that spin at
# barriers would steal the cores the others need (doc/lessons.md).
export OMP_WAIT_POLICY ?= passive

# Everything CI runs (.ci/run calls this).
test: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS) -LE gpu
	cd $(BUILD) && ctest --output-on-failure -L gpu
	@$(MAKE) --no-print-directory test-asan
	@$(MAKE) --no-print-directory test-fuzz
	@$(MAKE) --no-print-directory check-symbols
	@$(MAKE) --no-print-directory check-generated
	@echo "make test: all passed"

# Unit tests again under AddressSanitizer and UndefinedBehaviorSanitizer.
test-asan:
	cmake -S . -B $(BUILD)-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_CUDA=OFF \
	      -DCUZK_WERROR=$(WERROR) -DCUZK_SANITIZE=address,undefined
	cmake --build $(BUILD)-asan -j$(JOBS)
	cd $(BUILD)-asan && ctest --output-on-failure -j$(JOBS) -L unit

# A short libFuzzer run of every fuzz target from its seed corpus (clang).
# The field arithmetic in C, not assembly, so that AddressSanitizer sees
# every read the parsed indices lead to.
FUZZ_SECONDS ?= 30
test-fuzz:
	CC=clang cmake -S . -B $(BUILD)-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_CUDA=OFF \
	      -DCUZK_FUZZ=ON -DCUZK_SANITIZE=address,undefined -DCUZK_ASM=OFF
	cmake --build $(BUILD)-fuzz -j$(JOBS)
	scripts/run-fuzzers.sh $(BUILD)-fuzz $(FUZZ_SECONDS)

# Every exported symbol of the library carries the cuzk_ prefix.
check-symbols: build
	scripts/check-symbols.sh $(BUILD)/libcuzk.a
	@if [ -f $(BUILD)/libcuzk_gpu.a ]; then scripts/check-symbols.sh $(BUILD)/libcuzk_gpu.a; fi

# Generated files are current (regenerate and diff).
check-generated:
	scripts/check-generated.sh

clean:
	rm -rf $(BUILD) $(BUILD)-asan $(BUILD)-fuzz
