# Patches the extracted XNNPACK and pthreadpool sources so that they build for WebAssembly with
# Debian's Emscripten 3.1.6 (upstream XNNPACK's CMake has no Emscripten support). Harmless for
# native builds. Run as: cmake -DSOURCES=<dir with xnnpack/ and pthreadpool/> -P patch_sources.cmake

function(replace_once file from to)
  file(READ "${file}" text)
  string(FIND "${text}" "${from}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "patch_sources: expected text not found in ${file}:\n${from}")
  endif()
  string(REPLACE "${from}" "${to}" text "${text}")
  file(WRITE "${file}" "${text}")
endfunction()

set(xnn "${SOURCES}/xnnpack/CMakeLists.txt")
# 1. Target processor "wasm" for Emscripten.
replace_once("${xnn}" [[ELSEIF(CMAKE_SYSTEM_PROCESSOR MATCHES "^i[3-7]86$")]]
"ELSEIF(CMAKE_SYSTEM_NAME STREQUAL \"Emscripten\")
  SET(XNNPACK_TARGET_PROCESSOR \"wasm\")
ELSEIF(CMAKE_SYSTEM_PROCESSOR MATCHES \"^i[3-7]86$\")")
# 2. Emscripten is an allowed system name.
replace_once("${xnn}" [[^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT)$]]
                      [[^(Android|Darwin|iOS|Linux|Windows|CYGWIN|MSYS|QURT|Emscripten)$]])
# 3. No cpuinfo on the web (header-only stand-in).
replace_once("${xnn}" "IF(XNNPACK_TARGET_PROCESSOR MATCHES \"Hexagon\")\n  ADD_COMPILE_DEFINITIONS(\"XNN_ENABLE_CPUINFO=0\")"
                      "IF(XNNPACK_TARGET_PROCESSOR MATCHES \"Hexagon|wasm\")\n  ADD_COMPILE_DEFINITIONS(\"XNN_ENABLE_CPUINFO=0\")")
# 4. The wasm and wasm SIMD microkernels join the production set; in a build with relaxed SIMD
#    (-mrelaxed-simd, whose gemm configs call them) the relaxed-SIMD microkernels too.
replace_once("${xnn}" [[SET(ALL_MICROKERNEL_SRCS ${PROD_MICROKERNEL_SRCS} ${NON_PROD_MICROKERNEL_SRCS})]]
[[IF(XNNPACK_TARGET_PROCESSOR STREQUAL "wasm")
  LIST(APPEND PROD_MICROKERNEL_SRCS ${PROD_WASM_MICROKERNEL_SRCS} ${PROD_WASMSIMD_MICROKERNEL_SRCS})
  LIST(APPEND NON_PROD_MICROKERNEL_SRCS ${NON_PROD_WASM_MICROKERNEL_SRCS} ${NON_PROD_WASMSIMD_MICROKERNEL_SRCS})
  IF(CMAKE_C_FLAGS MATCHES "-mrelaxed-simd")
    LIST(APPEND PROD_MICROKERNEL_SRCS ${PROD_WASMRELAXEDSIMD_MICROKERNEL_SRCS})
  ENDIF()
ENDIF()
SET(ALL_MICROKERNEL_SRCS ${PROD_MICROKERNEL_SRCS} ${NON_PROD_MICROKERNEL_SRCS})]])

# 5. Generated wasm SIMD kernels that include <arm_neon.h> by mistake.
file(GLOB_RECURSE wasm_kernels "${SOURCES}/xnnpack/src/*wasm*.c")
set(fixed 0)
foreach(f IN LISTS wasm_kernels)
  file(READ "${f}" text)
  string(FIND "${text}" "#include <arm_neon.h>\n" at)
  if(NOT at EQUAL -1)
    string(REPLACE "#include <arm_neon.h>\n" "#include <wasm_simd128.h>\n" text "${text}")
    file(WRITE "${f}" "${text}")
    math(EXPR fixed "${fixed} + 1")
  endif()
endforeach()
message(STATUS "tformer deps: patched XNNPACK for wasm (${fixed} kernels with a stray arm_neon.h)")

# 6. pthreadpool builds a single-thread shim on Emscripten; keep real pthreads when asked.
replace_once("${SOURCES}/pthreadpool/CMakeLists.txt" "\nIF(EMSCRIPTEN)\n"
                                                    "\nIF(EMSCRIPTEN AND NOT PTHREADPOOL_EMSCRIPTEN_PTHREADS)\n")
