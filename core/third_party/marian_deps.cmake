# Libraries of the Marian importer (core/src/marian/) for WebAssembly: zlib (with its
# contrib/minizip, for .gz and the zip container of .npz) and yaml-cpp (decoder.yml, vocab.yml,
# special:model.yml); and libzstd's decompressor for the model catalogue (core/src/catalog/:
# Firefox's attachments are zstd).
#
# Natively they come from Debian (zlib1g-dev, libminizip-dev, libyaml-cpp-dev, libzstd-dev). For wasm they are
# built from the same Debian sources, pinned in SHA256SUMS.marian and fetched like the engine's
# own libraries (fetch_sources.sh), once per wasm variant, and cached under TFORMER_DEPS_DIR in a
# folder named by a hash of the pins, this file, the superbuild, the compiler and the flags.
# This lives apart from Dependencies.cmake so that adding these libraries leaves the cache key,
# and so the cached builds, of XNNPACK untouched.
#
# tformer_marian_deps(<variant> FLAGS <c/c++ flags>) defines the INTERFACE target
# tformer_marian_deps_<variant> (include/, include/minizip/, libminizip.a, libz.a, libyaml-cpp.a,
# libzstd.a).
set(_marian_deps_here "${CMAKE_CURRENT_LIST_DIR}")

function(tformer_marian_deps variant)
  cmake_parse_arguments(ARG "" "FLAGS" "" ${ARGN})
  file(READ "${_marian_deps_here}/SHA256SUMS.marian" sums)
  file(READ "${_marian_deps_here}/marian_superbuild/CMakeLists.txt" superbuild)
  file(READ "${CMAKE_CURRENT_FUNCTION_LIST_FILE}" this_file)
  string(SHA256 key "${sums}|${superbuild}|${this_file}|${variant}|${ARG_FLAGS}|${CMAKE_C_COMPILER}|\
${CMAKE_C_COMPILER_VERSION}|${CMAKE_CXX_COMPILER}|${CMAKE_TOOLCHAIN_FILE}")
  string(SUBSTRING "${key}" 0 16 key)
  set(root "${TFORMER_DEPS_DIR}/marian-${variant}-${key}")
  set(prefix "${root}/install")

  if(NOT EXISTS "${root}/complete")
    message(STATUS "tformer: building zlib, minizip, yaml-cpp and zstd for ${variant} (once; cached in ${root})")
    string(TIMESTAMP t0 "%s")
    set(dl "${TFORMER_DEPS_DIR}/downloads")
    execute_process(
      COMMAND bash "${_marian_deps_here}/fetch_sources.sh" "${dl}" "${TFORMER_DEPS_FALLBACK}"
              "${_marian_deps_here}/SHA256SUMS.marian" "zlib=1:1.2.13.dfsg-1" "yaml-cpp=0.7.0+dfsg-8"
              "libzstd=1.5.4+dfsg2-5"
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tformer: could not obtain verified sources of zlib, yaml-cpp and zstd (see messages above)")
    endif()
    file(REMOVE_RECURSE "${root}")
    set(src "${root}/src")
    foreach(pair "zlib_1.2.13.dfsg.orig.tar.bz2=zlib" "yaml-cpp_0.7.0+dfsg.orig.tar.xz=yaml-cpp"
                 "libzstd_1.5.4+dfsg2.orig.tar.xz=zstd")
      string(REPLACE "=" ";" pair "${pair}")
      list(GET pair 0 tarball)
      list(GET pair 1 name)
      file(MAKE_DIRECTORY "${src}/${name}")
      execute_process(COMMAND tar xf "${dl}/${tarball}" -C "${src}/${name}" --strip-components=1
                      RESULT_VARIABLE rc)
      if(NOT rc EQUAL 0)
        message(FATAL_ERROR "tformer: could not extract ${dl}/${tarball}")
      endif()
    endforeach()

    set(cfg_args -S "${_marian_deps_here}/marian_superbuild" -B "${root}/build" -G "${CMAKE_GENERATOR}"
        -DCMAKE_BUILD_TYPE=Release -DSOURCES=${src} -DCMAKE_INSTALL_PREFIX=${prefix}
        "-DCMAKE_C_FLAGS=${ARG_FLAGS}" "-DCMAKE_CXX_FLAGS=${ARG_FLAGS}"
        -DCMAKE_C_COMPILER=${CMAKE_C_COMPILER} -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
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
      message(FATAL_ERROR "tformer: building zlib, minizip, yaml-cpp and zstd for ${variant} failed; "
                          "see ${root}/configure.log and ${root}/build.log")
    endif()
    file(REMOVE_RECURSE "${src}" "${root}/build")  # only the installed libraries are kept
    file(TOUCH "${root}/complete")
    string(TIMESTAMP t1 "%s")
    math(EXPR secs "${t1} - ${t0}")
    message(STATUS "tformer: zlib, minizip, yaml-cpp and zstd for ${variant} built in ${secs} s")
  endif()

  add_library(tformer_marian_deps_${variant} INTERFACE)
  # include/minizip as Debian installs it: code includes <minizip/unzip.h> or, as pkg-config's
  # minizip.pc suggests, <unzip.h>.
  target_include_directories(tformer_marian_deps_${variant} SYSTEM INTERFACE "${prefix}/include"
                             "${prefix}/include/minizip")
  foreach(lib minizip yaml-cpp z zstd)  # minizip needs zlib: it comes after
    target_link_libraries(tformer_marian_deps_${variant} INTERFACE "${prefix}/lib/lib${lib}.a")
  endforeach()
endfunction()
