# cmake -DFILE=<ELF file> -P python/runpath.cmake: drops the empty entries of the file's RUNPATH, which CMake leaves in
# a build tree's libraries (room for the install RUNPATH) and the dynamic loader reads as the current directory.
# python/setup.py runs it on the copy of libstarfact_c.so that pip installs; the folders it names stay (StarPU's
# lib/ in the cache, OpenBLAS, CUDA, Open MPI).
cmake_minimum_required(VERSION 3.24)
file(READ_ELF "${FILE}" RUNPATH entries)  # a list
string(REPLACE ";" ":" old "${entries}")
list(REMOVE_ITEM entries "")
string(REPLACE ";" ":" new "${entries}")
if(NOT new STREQUAL old)
  file(RPATH_CHANGE FILE "${FILE}" OLD_RPATH "${old}" NEW_RPATH "${new}")
endif()
