# CLD2, the language detector (core/src/detection/), for WebAssembly.
#
# Natively it is Debian's libcld2-dev. For wasm it is built from the same Debian source, pinned in
# SHA256SUMS.cld2 and fetched like the other libraries (fetch_sources.sh), once per wasm variant,
# and cached under TFORMER_DEPS_DIR in a folder named by a hash of the pin, this file, the
# superbuild, the compiler and the flags. Apart from the other dependencies' files, so that their
# cache keys, and so their cached builds, stay as they are.
#
# tformer_cld2_deps(<variant> FLAGS <c++ flags>) defines the INTERFACE target
# tformer_cld2_<variant> (include/cld2/{public,internal}, libcld2.a).
set(_cld2_deps_here "${CMAKE_CURRENT_LIST_DIR}")

function(tformer_cld2_deps variant)
  cmake_parse_arguments(ARG "" "FLAGS" "" ${ARGN})
  file(READ "${_cld2_deps_here}/SHA256SUMS.cld2" sums)
  file(READ "${_cld2_deps_here}/cld2_superbuild/CMakeLists.txt" superbuild)
  file(READ "${CMAKE_CURRENT_FUNCTION_LIST_FILE}" this_file)
  string(SHA256 key "${sums}|${superbuild}|${this_file}|${variant}|${ARG_FLAGS}|${CMAKE_CXX_COMPILER}|\
${CMAKE_CXX_COMPILER_VERSION}|${CMAKE_TOOLCHAIN_FILE}")
  string(SUBSTRING "${key}" 0 16 key)
  set(root "${TFORMER_DEPS_DIR}/cld2-${variant}-${key}")
  set(prefix "${root}/install")

  if(NOT EXISTS "${root}/complete")
    message(STATUS "tformer: building CLD2 for ${variant} (once; cached in ${root})")
    string(TIMESTAMP t0 "%s")
    set(dl "${TFORMER_DEPS_DIR}/downloads")
    execute_process(
      COMMAND bash "${_cld2_deps_here}/fetch_sources.sh" "${dl}" "${TFORMER_DEPS_FALLBACK}"
              "${_cld2_deps_here}/SHA256SUMS.cld2" "cld2=0.0.0-git20150806-9"
      RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tformer: could not obtain the verified source of CLD2 (see messages above)")
    endif()
    file(REMOVE_RECURSE "${root}")
    set(src "${root}/src")
    file(MAKE_DIRECTORY "${src}")
    # Only the library's folders: the tarball also holds 100 MB of other tables and documents.
    execute_process(COMMAND tar xf "${dl}/cld2_0.0.0-git20150806.orig.tar.gz" -C "${src}" --strip-components=1
                            --wildcards "*/internal/*" "*/public/*"
                    RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "tformer: could not extract ${dl}/cld2_0.0.0-git20150806.orig.tar.gz")
    endif()

    set(cfg_args -S "${_cld2_deps_here}/cld2_superbuild" -B "${root}/build" -G "${CMAKE_GENERATOR}"
        -DCMAKE_BUILD_TYPE=Release -DSOURCES=${src} -DCMAKE_INSTALL_PREFIX=${prefix}
        "-DCMAKE_CXX_FLAGS=${ARG_FLAGS}" -DCMAKE_CXX_COMPILER=${CMAKE_CXX_COMPILER})
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
      message(FATAL_ERROR "tformer: building CLD2 for ${variant} failed; see ${root}/configure.log and ${root}/build.log")
    endif()
    file(REMOVE_RECURSE "${src}" "${root}/build")  # only the installed library is kept
    file(TOUCH "${root}/complete")
    string(TIMESTAMP t1 "%s")
    math(EXPR secs "${t1} - ${t0}")
    message(STATUS "tformer: CLD2 for ${variant} built in ${secs} s")
  endif()

  add_library(tformer_cld2_${variant} INTERFACE)
  target_include_directories(tformer_cld2_${variant} SYSTEM INTERFACE "${prefix}/include")
  target_link_libraries(tformer_cld2_${variant} INTERFACE "${prefix}/lib/libcld2.a")
endfunction()
