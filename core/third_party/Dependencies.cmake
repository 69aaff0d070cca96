# Third-party libraries of the engine.
#
# XNNPACK, pthreadpool, FXdiv and cpuinfo are built from pinned Debian source tarballs (the
# Debian packages of bookworm are too old for the 2024 XNNPACK API), the same sources for native
# and wasm. Each build is cached under TFORMER_DEPS_DIR in a folder named by a hash of the
# tarballs' checksums, the patches, this file, the compiler and the flags, so reconfiguring does
# not rebuild it. Natively SentencePiece and Catch2 come from Debian; for wasm SentencePiece is
# built from its pinned tarball too.

set(TFORMER_DEPS_DIR "${CMAKE_BINARY_DIR}/_deps" CACHE PATH "where third-party builds are cached")
set(TFORMER_DEPS_FALLBACK "${PROJECT_SOURCE_DIR}/../shared/deps" CACHE PATH
    "pinned source tarballs used when the Debian mirror cannot serve them")
set(_deps_here "${CMAKE_CURRENT_LIST_DIR}")

function(_tformer_fetch_sources)
  get_property(done GLOBAL PROPERTY TFORMER_SOURCES_FETCHED)
  if(done)
    return()
  endif()
  execute_process(
    COMMAND bash "${_deps_here}/fetch_sources.sh" "${TFORMER_DEPS_DIR}/downloads" "${TFORMER_DEPS_FALLBACK}"
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tformer: could not obtain verified third-party sources (see messages above)")
  endif()
  set_property(GLOBAL PROPERTY TFORMER_SOURCES_FETCHED TRUE)
endfunction()

function(_tformer_extract tarball into strip)
  file(MAKE_DIRECTORY "${into}")
  set(args)
  if(strip)
    set(args --strip-components=1)
  endif()
  execute_process(COMMAND tar xf "${tarball}" -C "${into}" ${args} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "tformer: could not extract ${tarball}")
  endif()
endfunction()

# tformer_third_party(<variant> FLAGS <c/c++ flags> [THREADS ON|OFF] [SENTENCEPIECE]
#                     [C_COMPILER <cc> CXX_COMPILER <c++>])
# Builds (or reuses) the libraries and defines the INTERFACE target tformer_deps_<variant>.
# C_COMPILER/CXX_COMPILER: compilers for these libraries other than the project's (their C ABI is
# the same); by default the project's.
function(tformer_third_party variant)
  cmake_parse_arguments(ARG "SENTENCEPIECE" "FLAGS;THREADS;C_COMPILER;CXX_COMPILER" "" ${ARGN})
  if(NOT DEFINED ARG_THREADS)
    set(ARG_THREADS ON)
  endif()
  if(NOT ARG_C_COMPILER OR NOT ARG_CXX_COMPILER)
    set(ARG_C_COMPILER "${CMAKE_C_COMPILER}")
    set(ARG_CXX_COMPILER "${CMAKE_CXX_COMPILER}")
    set(c_version "${CMAKE_C_COMPILER_VERSION}")
  else()
    execute_process(COMMAND "${ARG_C_COMPILER}" --version OUTPUT_VARIABLE c_version ERROR_QUIET)
  endif()
  file(READ "${_deps_here}/SHA256SUMS" sums)
  file(READ "${_deps_here}/patch_sources.cmake" patches)
  file(READ "${_deps_here}/superbuild/CMakeLists.txt" superbuild)
  file(READ "${CMAKE_CURRENT_FUNCTION_LIST_FILE}" this_file)
  string(SHA256 key "${sums}|${patches}|${superbuild}|${this_file}|${variant}|${ARG_FLAGS}|${ARG_THREADS}|\
${ARG_SENTENCEPIECE}|${ARG_C_COMPILER}|${c_version}|${ARG_CXX_COMPILER}|${CMAKE_TOOLCHAIN_FILE}")
  string(SUBSTRING "${key}" 0 16 key)
  set(root "${TFORMER_DEPS_DIR}/${variant}-${key}")
  set(prefix "${root}/install")

  if(NOT EXISTS "${root}/complete")
    message(STATUS "tformer: building third-party libraries for ${variant} (once; cached in ${root})")
    string(TIMESTAMP t0 "%s")
    _tformer_fetch_sources()
    file(REMOVE_RECURSE "${root}")
    set(src "${root}/src")
    set(dl "${TFORMER_DEPS_DIR}/downloads")
    _tformer_extract("${dl}/xnnpack_0.0~git20241108.4ea82e5.orig.tar.xz" "${src}/xnnpack" OFF)
    _tformer_extract("${dl}/pthreadpool_0.0~git20240616.560c60d.orig.tar.xz" "${src}/pthreadpool" ON)
    _tformer_extract("${dl}/fxdiv_0.0~git20200417.b408327.orig.tar.xz" "${src}/fxdiv" ON)
    _tformer_extract("${dl}/cpuinfo_0.0~git20250905.877328f.orig.tar.xz" "${src}/cpuinfo" ON)
    if(ARG_SENTENCEPIECE)
      _tformer_extract("${dl}/sentencepiece_0.1.97.orig.tar.gz" "${src}/sentencepiece" ON)
    endif()
    execute_process(COMMAND ${CMAKE_COMMAND} -DSOURCES=${src} -P "${_deps_here}/patch_sources.cmake"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tformer: patching third-party sources failed")
    endif()

    set(cfg_args -S "${_deps_here}/superbuild" -B "${root}/build" -G "${CMAKE_GENERATOR}"
        -DCMAKE_BUILD_TYPE=Release -DSOURCES=${src} -DCMAKE_INSTALL_PREFIX=${prefix}
        "-DCMAKE_C_FLAGS=${ARG_FLAGS}" "-DCMAKE_CXX_FLAGS=${ARG_FLAGS}"
        -DTFORMER_DEPS_THREADS=${ARG_THREADS} -DTFORMER_DEPS_SENTENCEPIECE=${ARG_SENTENCEPIECE}
        -DCMAKE_C_COMPILER=${ARG_C_COMPILER} -DCMAKE_CXX_COMPILER=${ARG_CXX_COMPILER})
    if(CMAKE_TOOLCHAIN_FILE)
      list(APPEND cfg_args "-DCMAKE_TOOLCHAIN_FILE=${CMAKE_TOOLCHAIN_FILE}")
    endif()
    cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
    execute_process(COMMAND ${CMAKE_COMMAND} ${cfg_args} OUTPUT_FILE "${root}/configure.log"
                    ERROR_FILE "${root}/configure.log" RESULT_VARIABLE rc)
    if(rc EQUAL 0)
      execute_process(COMMAND ${CMAKE_COMMAND} --build "${root}/build" -j ${jobs}
                      OUTPUT_FILE "${root}/build.log" ERROR_FILE "${root}/build.log" RESULT_VARIABLE rc)
    endif()
    if(rc EQUAL 0)
      execute_process(COMMAND ${CMAKE_COMMAND} --install "${root}/build" OUTPUT_QUIET RESULT_VARIABLE rc)
    endif()
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tformer: building third-party libraries for ${variant} failed; "
                          "see ${root}/configure.log and ${root}/build.log")
    endif()
    file(REMOVE_RECURSE "${src}" "${root}/build")  # only the installed libraries are kept
    file(TOUCH "${root}/complete")
    string(TIMESTAMP t1 "%s")
    math(EXPR secs "${t1} - ${t0}")
    message(STATUS "tformer: third-party libraries for ${variant} built in ${secs} s")
  endif()

  add_library(tformer_deps_${variant} INTERFACE)
  target_include_directories(tformer_deps_${variant} SYSTEM INTERFACE "${prefix}/include")
  set(libs XNNPACK microkernels-prod pthreadpool)
  if(NOT EMSCRIPTEN)
    list(APPEND libs cpuinfo)
  endif()
  if(ARG_SENTENCEPIECE)
    list(APPEND libs sentencepiece)
  endif()
  foreach(lib IN LISTS libs)
    target_link_libraries(tformer_deps_${variant} INTERFACE "${prefix}/lib/lib${lib}.a")
  endforeach()
endfunction()
