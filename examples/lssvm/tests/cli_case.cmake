# One check of the program on partial or mismatched input (the lssvm.input.* tests of CMakeLists.txt): writes small
# CSV files into WORK, runs starfact_lssvm on them and checks its exit status and its output. ctest's
# PASS_REGULAR_EXPRESSION alone would ignore the exit status, and the files have to exist first.
#   cmake -DLSSVM=<starfact_lssvm> -DWORK=<empty folder of this case> -DCASE=<case> -P cli_case.cmake
cmake_minimum_required(VERSION 3.24)
foreach(var LSSVM WORK CASE)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "cli_case.cmake needs -D${var}=...")
  endif()
endforeach()
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")

# Two separable classes, label first, four features (three in test3.csv: its last column is missing).
set(train "${WORK}/train.csv")
set(test "${WORK}/test.csv")
set(test3 "${WORK}/test3.csv")
file(WRITE "${train}" "0,0.1,0.2,0.1,0.0\n0,0.2,0.1,0.0,0.1\n0,0.0,0.3,0.2,0.2\n0,0.3,0.0,0.1,0.3\n"
                      "1,0.9,0.8,1.0,0.7\n1,0.8,0.9,0.9,1.0\n1,1.0,0.7,0.8,0.9\n1,0.7,1.0,0.7,0.8\n")
file(WRITE "${test}" "0,0.1,0.1,0.1,0.1\n1,0.9,0.9,0.9,0.9\n0,0.2,0.2,0.3,0.1\n")
file(WRITE "${test3}" "0,0.1,0.1,0.1\n1,0.9,0.9,0.9\n0,0.2,0.2,0.3\n")

set(reject "")  # output that must not appear
if(CASE STREQUAL "fewer_columns")
  set(args --train "${train}" --test "${test3}")
  set(want_rc 1)
  set(want "test3\\.csv: 3 features, but the training set [^ ]*train\\.csv has 4")
elseif(CASE STREQUAL "train_only")
  # No accuracy for a test set that does not exist: the test column shows "-".
  set(args --train "${train}" --reference)
  set(want_rc 0)
  string(CONCAT want "no test set \\(--train without --test\\): training only.*"
              "\ncholesky +d +([0-9.]+ +)+- +[0-9.]+ +- .*\nlapacke +d +([0-9.]+ +)+- +[0-9.]+ +- ")
  set(reject "(cholesky|lapacke) +d +([0-9.]+ +)+- +[0-9.]+ +[0-9]")
elseif(CASE STREQUAL "min_accuracy_without_test")
  set(args --train "${train}" --min-accuracy 0.5)
  set(want_rc 1)
  set(want "--min-accuracy needs a test set")
elseif(CASE STREQUAL "train_size_above_file")
  set(args --train "${train}" --test "${test}" --train-size 20)
  set(want_rc 1)
  set(want "--train-size 20 is more than the 8 samples in [^ ]*train\\.csv")
elseif(CASE STREQUAL "test_size_above_file")
  set(args --train "${train}" --test "${test}" --test-size 4)
  set(want_rc 1)
  set(want "--test-size 4 is more than the 3 samples in [^ ]*test\\.csv")
else()
  message(FATAL_ERROR "cli_case.cmake: unknown CASE '${CASE}'")
endif()

execute_process(COMMAND "${LSSVM}" ${args} --cpu-only --no-vendor --quiet
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}${err}")
message("${all}")
if(NOT rc STREQUAL want_rc)
  message(FATAL_ERROR "${CASE}: exit status ${rc}, expected ${want_rc}")
endif()
if(NOT all MATCHES "${want}")
  message(FATAL_ERROR "${CASE}: the output does not match '${want}'")
endif()
if(reject AND all MATCHES "${reject}")
  message(FATAL_ERROR "${CASE}: the output matches '${reject}'")
endif()
