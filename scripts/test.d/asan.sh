#!/usr/bin/env bash
# AddressSanitizer + UndefinedBehaviorSanitizer build of the unit tests (preset `asan`), run clean.
# Only the unit-test programs are built; the long lavapipe runs (training convergence, the neural
# node and end-to-end programs, the bad-input matrix, and the CLI tests that run the shipped
# graphs' neural ops, and the user-files property test, which trains: this stage builds no
# neural plugin) stay in the main stage, which covers them.
# Leaks inside the Vulkan loader, Mesa's lavapipe and the validation layer are theirs, not ours:
# they are suppressed by library (tests/reliability/lsan.supp), and tests that open a device run
# without leak checking (see below); any leak in the other tests still fails.
set -uo pipefail
cd "$(dirname "$0")/../.."

jobs=$(nproc)
targets=(ff_host_tests ff_test_ops ff_bad_abi_major ff_bad_abi_minor ff_bad_no_entry ff_bad_duplicate
         ff_nodes_tests ff_engine_tests ff_neural_model_file_test ff_neural_parts_test
         ff_validation_layer_test)

cmake --preset asan >/dev/null || exit 1
cmake --build --preset asan -j "$jobs" --target "${targets[@]}" || exit 1

# intercept_tls_get_addr=0: GCC 12's LeakSanitizer misreads glibc 2.36's dynamic TLS blocks (it
# logged "DTLS 15 at 0x3158-0x100000425a" for a `fieldflow check` of the test plugin, then its
# tracer crashed: "Tracer caught signal 11", exit 1, whether it happens depending on the heap's
# layout); without the interceptor those blocks are not scanned for pointers, which can only
# report more leaks (memory held only from one), never hide one.
export ASAN_OPTIONS=detect_leaks=1:strict_string_checks=1:detect_stack_use_after_return=1:intercept_tls_get_addr=0
export LSAN_OPTIONS=suppressions=$PWD/tests/reliability/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# Only the programs built above: not gtest's *_NOT_BUILT placeholders, nor add_test entries of
# programs this stage does not build (they run in the main stage); graph checks need every plugin.
skip='NOT_BUILT|graph_check_|docs_graph_examples|reliability_bad_inputs|reliability_interrupt_resume|reliability_interrupt_each_node|Convergence|ff_neural_nodes_test|ff_neural_siren_test|ff_neural_resume_test|ff_models_|ff_e2e|CliForgiving.ExamplesRunByNameFromAnyFolder|CliForgiving.CheckAndDryRunSayWhatTrainingCosts|CliForgiving.CompletionKnowsOpsParamsValuesVarsAndExamples|CliForgiving.CompareModelsTrainsInMinutesOnTheCpuDriver|progress_terminal|reliability_user_files_property|reliability_run_one_set'
rc=0
ctest --preset asan -j "$jobs" --timeout 900 -LE 'engine|device' -E "$skip" || rc=1
# Tests that open a Vulkan device: lavapipe leaves a 128-byte allocation made from code with no
# module behind it (JIT-compiled or unloaded by the Vulkan loader at exit), which no suppression
# can name, so leak checking is off for them; every address and undefined-behaviour check stays.
ASAN_OPTIONS=${ASAN_OPTIONS/detect_leaks=1/detect_leaks=0} \
    ctest --preset asan -j "$jobs" --timeout 900 -L 'engine|device' -E "$skip" || rc=1
exit $rc
