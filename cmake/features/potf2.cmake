# Fused potf2: the GPU tile Cholesky kernel (kernels/potf2/), its GPU tests, its benches and its tuning tool
# (tools/tune/potf2/: the sweep over every configuration, with the single-block leaves the library does not
# compile, and their checks).
# CUDA only; without CUDA nothing here is built.
if(STARFACT_HAVE_CUDA)
  # The kernel is part of the library's core (the drivers' starfact_core too): the potrf codelet's CUDA diagonal
  # implementation (--diag fused). Only the replicated-diagonal leaf: the rejected single-block leaves are compiled
  # by the tuning tool below.
  target_sources(starfact_objects PRIVATE ${PROJECT_SOURCE_DIR}/kernels/potf2/potf2.cu)
  set(potf2_tune_dir ${PROJECT_SOURCE_DIR}/tools/tune/potf2)
  if(STARFACT_BUILD_BENCH OR STARFACT_BUILD_TESTS)
    # The single-block leaves inside the library's forms (potf2_tile_variant): tune_potf2 and its checks.
    add_library(potf2_variants STATIC EXCLUDE_FROM_ALL ${potf2_tune_dir}/variants.cu)
    target_include_directories(potf2_variants PUBLIC ${PROJECT_SOURCE_DIR})
    target_link_libraries(potf2_variants PUBLIC starfact CUDA::cudart CUDA::cublas)
  endif()

  if(STARFACT_BUILD_BENCH)
    add_executable(bench_potf2 ${PROJECT_SOURCE_DIR}/bench/bench_potf2.cu)
    target_include_directories(bench_potf2 PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(bench_potf2 PRIVATE starfact CUDA::cudart CUDA::cublas CUDA::cusolver)
    # The batched Cholesky module in this build: also time its kernel as a leaf for tiles <= 128.
    list(FIND STARFACT_FEATURES ${PROJECT_SOURCE_DIR}/cmake/features/batched_chol.cmake have_batched_chol)
    if(have_batched_chol GREATER -1)
      target_compile_definitions(bench_potf2 PRIVATE STARFACT_BENCH_BATCHED_LEAF)
    endif()
    # The tuning sweep: every configuration, the library's and the single-block leaves (tools/sweep_potf2.sh).
    # Built with the benches, so that tools/device.sh prepare carries it.
    add_executable(tune_potf2 ${potf2_tune_dir}/tune_potf2.cu)
    target_link_libraries(tune_potf2 PRIVATE potf2_variants CUDA::cusolver)
    if(have_batched_chol GREATER -1)
      target_compile_definitions(tune_potf2 PRIVATE STARFACT_BENCH_BATCHED_LEAF)
    endif()
    # Large tiles (the two-stream form) against cuSOLVER, and the sweep behind the tuning table's large rows.
    add_executable(bench_potrf_tile ${PROJECT_SOURCE_DIR}/bench/bench_potrf_tile.cu)
    target_include_directories(bench_potrf_tile PRIVATE ${PROJECT_SOURCE_DIR})
    target_link_libraries(bench_potrf_tile PRIVATE starfact_support CUDA::cudart CUDA::cublas
                                                   CUDA::cusolver)
    # Developer build with phase clocks inside the rdiag kernel (not built by default).
    add_executable(bench_potf2_prof EXCLUDE_FROM_ALL ${PROJECT_SOURCE_DIR}/bench/bench_potf2.cu
                                                     ${PROJECT_SOURCE_DIR}/kernels/potf2/potf2.cu)
    target_include_directories(bench_potf2_prof PRIVATE ${PROJECT_SOURCE_DIR})
    target_compile_definitions(bench_potf2_prof PRIVATE STARFACT_POTF2_PROFILE)
    target_link_libraries(bench_potf2_prof PRIVATE starfact CUDA::cudart CUDA::cublas CUDA::cusolver)
  endif()

  if(STARFACT_BUILD_TESTS)
    add_executable(test_potf2_gpu ${PROJECT_SOURCE_DIR}/tests/test_potf2_gpu.cpp ${PROJECT_SOURCE_DIR}/tests/test_rpotrf_gpu.cpp
                                 ${PROJECT_SOURCE_DIR}/tests/gpu_hog.cu)
    target_link_libraries(test_potf2_gpu PRIVATE starfact_test_main_gpu starfact_test_support CUDA::cudart CUDA::cublas)
    add_test(NAME gpu.potf2 COMMAND test_potf2_gpu)
    set_tests_properties(gpu.potf2 PROPERTIES
      ENVIRONMENT "STARPU_HOME=${CMAKE_CURRENT_BINARY_DIR}/tests/starpu-home;STARPU_SILENT=1"
      SKIP_RETURN_CODE 77 TIMEOUT 900 LABELS gpu)
    # The tuning tool's checks: the single-block leaves against LAPACK (the library's GPU test checks, run
    # through potf2_tile_any). A tool, not a ctest: run it on the GPU machine (docs/potf2.md).
    add_executable(tune_potf2_check ${potf2_tune_dir}/check_variants.cpp ${PROJECT_SOURCE_DIR}/tests/gpu_hog.cu)
    target_link_libraries(tune_potf2_check PRIVATE starfact_test_main_gpu potf2_variants starfact_test_support CUDA::cudart
                                                   CUDA::cublas)
  endif()
else()
  set(STARFACT_HAVE_POTF2 OFF)  # nothing built: STARFACT_HAVE_POTF2 stays undefined in config.hpp
endif()
