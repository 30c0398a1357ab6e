# The installable package: include/starfact/config.hpp, the install rules, starfactConfig.cmake (+ version
# file and exported targets) and starfact.pc. Included last by the top-level CMakeLists.txt, once the
# feature modules have added their sources and set STARFACT_BUILT_MODULES.
include(CMakePackageConfigHelpers)

# ---- include/starfact/config.hpp: version and built modules ---------------------------------------
# One macro per module file of cmake/features/ (built or not, so that the header lists them all).
file(GLOB starfact_all_modules CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/cmake/features/*.cmake)
set(STARFACT_CONFIG_MODULES "")
foreach(file ${starfact_all_modules})
  get_filename_component(module ${file} NAME_WE)
  string(TOUPPER "STARFACT_HAVE_${module}" macro)
  if(module IN_LIST STARFACT_BUILT_MODULES)
    string(APPEND STARFACT_CONFIG_MODULES "#ifndef ${macro}\n#define ${macro} 1\n#endif\n")
  else()
    string(APPEND STARFACT_CONFIG_MODULES "/* ${macro}: module ${module} not built */\n")
  endif()
endforeach()
if(STARFACT_HAVE_CUDA)
  set(STARFACT_CONFIG_CUDA "#ifndef STARFACT_HAVE_CUDA\n#define STARFACT_HAVE_CUDA 1\n#endif")
else()
  set(STARFACT_CONFIG_CUDA "/* STARFACT_HAVE_CUDA: built without CUDA */")
endif()
if(STARFACT_HAVE_MPI)
  set(STARFACT_CONFIG_MPI "#ifndef STARFACT_HAVE_MPI\n#define STARFACT_HAVE_MPI 1\n#endif")
else()
  set(STARFACT_CONFIG_MPI "/* STARFACT_HAVE_MPI: built without MPI */")
endif()
list(JOIN STARFACT_BUILT_MODULES " " STARFACT_MODULES_STRING)
configure_file(${PROJECT_SOURCE_DIR}/cmake/config.hpp.in ${PROJECT_BINARY_DIR}/include/starfact/config.hpp @ONLY)

# ---- headers, library, CMake package --------------------------------------------------------------
set(STARFACT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/starfact)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/starfact DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
install(FILES ${PROJECT_BINARY_DIR}/include/starfact/config.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/starfact)
install(TARGETS starfact EXPORT starfactTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(EXPORT starfactTargets NAMESPACE starfact:: DESTINATION ${STARFACT_CMAKE_DIR})

# Where the dependencies were found at build time: hints for starfactConfig.cmake, searched after the
# consumer's own PKG_CONFIG_PATH and CMAKE_PREFIX_PATH.
pkg_get_variable(STARFACT_STARPU_PCDIR ${STARFACT_STARPU_PC} pcfiledir)
if(NOT STARFACT_STARPU_PCDIR)
  set(STARFACT_STARPU_PCDIR ${STARPU_PREFIX}/lib/pkgconfig)
endif()
pkg_get_variable(STARFACT_OPENBLAS_PCDIR openblas pcfiledir)
if(STARFACT_HAVE_MPI)
  pkg_get_variable(STARFACT_STARPUMPI_PCDIR ${STARFACT_STARPUMPI_PC} pcfiledir)
endif()
get_filename_component(STARFACT_LAPACKE_LIBDIR ${LAPACKE_LIB} DIRECTORY)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/starfactConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/starfactConfig.cmake INSTALL_DESTINATION ${STARFACT_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same major.minor is compatible.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/starfactConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/starfactConfig.cmake ${PROJECT_BINARY_DIR}/starfactConfigVersion.cmake
        DESTINATION ${STARFACT_CMAKE_DIR})

# ---- starfact.pc ----------------------------------------------------------------------------------
# Relocatable: prefix is found from the .pc file's own folder.
file(RELATIVE_PATH STARFACT_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" STARFACT_PC_PREFIX "${STARFACT_PC_PREFIX}")
# -L<dir> for a library's folder, unless the linker searches it anyway.
function(starfact_pc_libdir out dir)
  if(dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    set(${out} "" PARENT_SCOPE)
  else()
    set(${out} "-L${dir} " PARENT_SCOPE)
  endif()
endfunction()
set(STARFACT_PC_CFLAGS "")
set(STARFACT_PC_LIBS "-pthread")
if(STARFACT_HAVE_CUDA)
  string(APPEND STARFACT_PC_CFLAGS " -DSTARFACT_HAVE_CUDA")
  starfact_pc_libdir(cuda_l ${CUDAToolkit_LIBRARY_DIR})
  string(APPEND STARFACT_PC_LIBS " ${cuda_l}-lcudart -lcublas -lcusolver")
endif()
# OpenBLAS and LAPACKE are private dependencies: Requires.private / Libs.private for a shared library;
# a static libstarfact has no other form, so they are part of every link (Requires / Libs).
starfact_pc_libdir(lapacke_l ${STARFACT_LAPACKE_LIBDIR})
set(private_libs "${lapacke_l}-llapacke")
set(private_requires "openblas")
# With MPI: StarPU-MPI (pkg-config) and the MPI C library (the paths CMake's FindMPI found) are private too.
if(STARFACT_HAVE_MPI)
  list(JOIN MPI_C_LIBRARIES " " mpi_libs)
  string(APPEND private_requires " ${STARFACT_STARPUMPI_PC}")
  string(APPEND private_libs " ${mpi_libs}")
endif()
if(STARFACT_LIBRARY_TYPE STREQUAL "STATIC_LIBRARY")
  set(STARFACT_PC_REQUIRES "${STARFACT_STARPU_PC} ${private_requires}")
  set(STARFACT_PC_LIBS "${private_libs} ${STARFACT_PC_LIBS}")
  set(STARFACT_PC_PRIVATE "")
else()
  set(STARFACT_PC_REQUIRES "${STARFACT_STARPU_PC}")
  set(STARFACT_PC_PRIVATE "Requires.private: ${private_requires}\nLibs.private: ${private_libs}\n")
endif()
set(STARFACT_PC_MODULES "${STARFACT_MODULES_STRING}")
if(NOT STARFACT_PC_MODULES)
  set(STARFACT_PC_MODULES "none")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/starfact.pc.in ${PROJECT_BINARY_DIR}/starfact.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/starfact.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
