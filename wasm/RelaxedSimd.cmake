# The relaxed-SIMD variant (TFORMER_WASM_RELAXED_SIMD=ON), in a build folder of its own:
#
#   emcmake cmake -S . -B build-wasm-relaxed -DCMAKE_BUILD_TYPE=Release -DTFORMER_WASM_RELAXED_SIMD=ON
#   cmake --build build-wasm-relaxed -j2     # -> build-wasm-relaxed/wasm/tformer-mtr.{mjs,wasm,worker.js}
#
# What it buys: XNNPACK's int8 products use the relaxed integer dot product (i32x4.relaxed_dot_
# i8x16_i7x16_add_s, one instruction where SIMD128 needs widening multiplies and adds) and its f32
# kernels fused multiply-adds. The JS package loads it where the browser validates relaxed SIMD
# (web/src/environment.js) and falls back to tformer-mt elsewhere, node 20 included.
#
# Why another compiler: Debian 12's Emscripten 3.1.6 drives LLVM 14, whose relaxed-SIMD opcodes
# predate the numbering browsers shipped. Debian 12 also has LLVM 19 (clang-19, lld-19, llvm-19),
# which emits the final encoding; emcc takes it from EM_LLVM_ADD_VERSION / EM_CLANG_ADD_VERSION
# (tools named clang-19, wasm-ld-19, llvm-nm-19 ... in /usr/bin). The system libraries stay those
# Debian built with LLVM 14 (same ABI). Binaryen 108's wasm-opt cannot read the final opcodes
# either, so this variant links at -O1, where emcc does not run it: LLVM's -O3 code, unshrunk.
set(TFORMER_WASM_LLVM_VERSION 19 CACHE STRING "suffix of the LLVM tools (clang-N, wasm-ld-N) for relaxed SIMD")
set(_llvm_env EM_LLVM_ADD_VERSION=${TFORMER_WASM_LLVM_VERSION} EM_CLANG_ADD_VERSION=${TFORMER_WASM_LLVM_VERSION})
foreach(tool clang wasm-ld llvm-nm llvm-ar)
  find_program(_tool_${tool} ${tool}-${TFORMER_WASM_LLVM_VERSION} PATHS /usr/bin NO_CMAKE_FIND_ROOT_PATH)
  if(NOT _tool_${tool})
    message(FATAL_ERROR "relaxed SIMD needs ${tool}-${TFORMER_WASM_LLVM_VERSION} "
                        "(apt-get install clang-19 lld-19 llvm-19; or set TFORMER_WASM_LLVM_VERSION)")
  endif()
endforeach()

# Configure time: the third-party libraries are built by this process's children.
set(ENV{EM_LLVM_ADD_VERSION} ${TFORMER_WASM_LLVM_VERSION})
set(ENV{EM_CLANG_ADD_VERSION} ${TFORMER_WASM_LLVM_VERSION})
# Build time: every compile and link of this folder.
set(CMAKE_C_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env ${_llvm_env})
set(CMAKE_CXX_COMPILER_LAUNCHER ${CMAKE_COMMAND} -E env ${_llvm_env})
list(APPEND CMAKE_CXX_LINKER_LAUNCHER ${_llvm_env})

# The toolchain must accept the final relaxed-SIMD intrinsics; say so now rather than in XNNPACK.
set(_probe "${CMAKE_BINARY_DIR}/relaxed_simd_probe.c")
file(WRITE "${_probe}" "#include <wasm_simd128.h>
v128_t dot(v128_t a, v128_t b, v128_t c) { return wasm_i32x4_relaxed_dot_i8x16_i7x16_add(a, b, c); }\n")
execute_process(COMMAND ${CMAKE_C_COMPILER} -msimd128 -mrelaxed-simd -O2 -c "${_probe}" -o "${_probe}.o"
                RESULT_VARIABLE _rc ERROR_VARIABLE _err OUTPUT_QUIET)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "relaxed SIMD: ${CMAKE_C_COMPILER} with LLVM ${TFORMER_WASM_LLVM_VERSION} cannot compile "
                      "relaxed-SIMD intrinsics:\n${_err}")
endif()
message(STATUS "tformer: relaxed SIMD with LLVM ${TFORMER_WASM_LLVM_VERSION} (tformer-mtr)")
