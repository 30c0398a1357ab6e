# Batched small Cholesky (issue 5): kernels (codelets/cuda/batched_chol/), the StarPU chunk codelet,
# starfact::batched::potrf/posv, tests, bench and the autotuning sweep (tools/tune_batched_chol.sh).
option(STARFACT_BATCHED_CHOL_FAST_MATH "Batched Cholesky kernels with rsqrt-based pivots (not IEEE)" OFF)

target_sources(starfact PRIVATE algorithms/batched_cholesky.cpp codelets/batched_posv_chunk.cpp)

set(batched_chol_dir ${PROJECT_SOURCE_DIR}/codelets/cuda/batched_chol)
if(STARFACT_HAVE_CUDA)
  file(GLOB batched_chol_instances CONFIGURE_DEPENDS ${batched_chol_dir}/instances_*.cu)
  set(batched_chol_sources ${batched_chol_dir}/launch.cpp ${batched_chol_instances})
  target_sources(starfact PRIVATE ${batched_chol_sources})
  if(STARFACT_BATCHED_CHOL_FAST_MATH)
    set_source_files_properties(${batched_chol_instances} PROPERTIES COMPILE_DEFINITIONS STARFACT_BATCHED_FAST_MATH)
  endif()
endif()

if(STARFACT_BUILD_TESTS)
  # CPU-side: the chunk codelet's LAPACKE path and the argument checks (runs in CI).
  add_executable(test_batched_chol_cpu ${PROJECT_SOURCE_DIR}/tests/main_cpu.cpp
                 ${PROJECT_SOURCE_DIR}/tests/test_batched_chol_cpu.cpp)
  target_link_libraries(test_batched_chol_cpu PRIVATE starfact_test_support)
  add_test(NAME batched_chol.cpu COMMAND test_batched_chol_cpu)
  set_tests_properties(batched_chol.cpu PROPERTIES
    ENVIRONMENT "STARPU_HOME=${PROJECT_BINARY_DIR}/tests/starpu-home;STARPU_SILENT=1" TIMEOUT 900 LABELS cpu)
  if(STARFACT_HAVE_CUDA)
    add_executable(test_batched_chol_gpu ${PROJECT_SOURCE_DIR}/tests/main_gpu.cpp
                   ${PROJECT_SOURCE_DIR}/tests/test_batched_chol_gpu.cpp)
    target_link_libraries(test_batched_chol_gpu PRIVATE starfact_test_support CUDA::cudart)
    add_test(NAME batched_chol.gpu COMMAND test_batched_chol_gpu)
    set_tests_properties(batched_chol.gpu PROPERTIES
      ENVIRONMENT "STARPU_HOME=${PROJECT_BINARY_DIR}/tests/starpu-home;STARPU_SILENT=1"
      SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS gpu)
  endif()
endif()

if(STARFACT_HAVE_CUDA AND STARFACT_BUILD_BENCH)
  # Also instantiates the fast-math variant of the bench sizes, to measure it beside the default.
  add_executable(bench_batched_chol ${PROJECT_SOURCE_DIR}/bench/bench_batched_chol.cu)
  target_include_directories(bench_batched_chol PRIVATE ${PROJECT_SOURCE_DIR} ${LAPACKE_INCLUDE})
  target_link_libraries(bench_batched_chol PRIVATE starfact CUDA::cudart CUDA::cusolver PkgConfig::OPENBLAS
                                                   ${LAPACKE_LIB})
endif()

if(STARFACT_HAVE_CUDA)
  # Autotuning sweep (tools/tune_batched_chol.sh build): not part of `all`, it instantiates every
  # candidate configuration.
  file(GLOB batched_chol_tune_sources CONFIGURE_DEPENDS ${batched_chol_dir}/tune/*.cu)
  add_executable(tune_batched_chol EXCLUDE_FROM_ALL ${batched_chol_tune_sources})
  target_include_directories(tune_batched_chol PRIVATE ${PROJECT_SOURCE_DIR} ${PROJECT_SOURCE_DIR}/include)
  target_link_libraries(tune_batched_chol PRIVATE CUDA::cudart)
endif()
