# Batched LU / inversion for many tiny matrices (n <= 32): kernels, StarPU chunk codelet, tests, bench.
# Included at the end of the top-level CMakeLists (targets starfact, starfact_test_support exist).
target_sources(starfact PRIVATE
  ${PROJECT_SOURCE_DIR}/codelets/batched_lu_chunk.cpp
  ${PROJECT_SOURCE_DIR}/algorithms/batched_lu.cpp)
if(STARFACT_HAVE_CUDA)
  set(_blu ${PROJECT_SOURCE_DIR}/codelets/cuda/batched_lu)
  target_sources(starfact PRIVATE
    ${_blu}/api.cpp
    ${_blu}/getrf_float.cu ${_blu}/getrf_double.cu
    ${_blu}/inverse_float.cu ${_blu}/inverse_double.cu
    ${_blu}/getrs_float.cu ${_blu}/getrs_double.cu)
endif()

set(_blu_env "STARPU_HOME=${PROJECT_BINARY_DIR}/tests/starpu-home-batched_lu" "STARPU_SILENT=1")
if(STARFACT_BUILD_TESTS)
  # CPU workers only (LAPACKE loop through StarPU): runs in CI.
  add_executable(test_batched_lu_cpu ${PROJECT_SOURCE_DIR}/tests/main_cpu.cpp
                                     ${PROJECT_SOURCE_DIR}/tests/test_batched_lu_cpu.cpp)
  target_link_libraries(test_batched_lu_cpu PRIVATE starfact_test_support)
  add_test(NAME batched_lu.cpu COMMAND test_batched_lu_cpu)
  set_tests_properties(batched_lu.cpu PROPERTIES ENVIRONMENT "${_blu_env}" TIMEOUT 600 LABELS cpu)
  if(STARFACT_HAVE_CUDA)
    add_executable(test_batched_lu_gpu ${PROJECT_SOURCE_DIR}/tests/main_gpu.cpp
                                       ${PROJECT_SOURCE_DIR}/tests/test_batched_lu_gpu.cpp)
    target_link_libraries(test_batched_lu_gpu PRIVATE starfact_test_support CUDA::cudart)
    add_test(NAME batched_lu.gpu COMMAND test_batched_lu_gpu)
    set_tests_properties(batched_lu.gpu PROPERTIES ENVIRONMENT "${_blu_env}" SKIP_RETURN_CODE 77 TIMEOUT 900
                                                   LABELS gpu)
  endif()
endif()

if(STARFACT_BUILD_BENCH AND STARFACT_HAVE_CUDA)
  add_executable(bench_batched_lu ${PROJECT_SOURCE_DIR}/bench/bench_batched_lu.cu)
  target_include_directories(bench_batched_lu PRIVATE ${PROJECT_SOURCE_DIR} ${LAPACKE_INCLUDE})
  target_link_libraries(bench_batched_lu PRIVATE starfact CUDA::cudart CUDA::cublas ${LAPACKE_LIB}
                                                 PkgConfig::OPENBLAS Threads::Threads)
  # The nFTB x staging sweep instantiates extra kernels: opt-in (tools/tune_batched_lu.sh turns it on).
  option(STARFACT_BATCHED_LU_SWEEP "bench_batched_lu --sweep: tuning variants (longer build)" OFF)
  if(STARFACT_BATCHED_LU_SWEEP)
    target_compile_definitions(bench_batched_lu PRIVATE STARFACT_BLU_SWEEP)
  endif()
endif()
