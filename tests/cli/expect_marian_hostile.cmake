# Hostile Marian folders through the CLI: each must end within a time bound, its memory capped
# (ulimit -v, unless the build is sanitized), with exit status 0 where the hostile file is one the
# import does not need, else 1 and a message a person can act on; never a terminal escape sequence
# on stderr. The folders are written at test time by tformer_hostile_marian
# (write_hostile_marian.cc) and the crafted .tfm by make_bad_models.py.
# Variables: TFORMER, HELPER, FIXTURES, WORK, PYTHON, MEMORY_LIMIT_KB (0: no cap).
set(dir ${WORK}/hostile-marian)
execute_process(COMMAND ${HELPER} ${FIXTURES} ${dir} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "tformer_hostile_marian failed (${rc})")
endif()
execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_bad_models.py ${FIXTURES} ${WORK}/hostile-models
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_bad_models.py failed (${rc})")
endif()
string(ASCII 27 escape)
string(ASCII 7 bell)

# run(<name> <expected exit: fail|0> <stderr pattern> <command...>)
function(run name expect pattern)
  set(command ${ARGN})
  if(MEMORY_LIMIT_KB)
    set(command sh -c "ulimit -v ${MEMORY_LIMIT_KB} && exec \"$0\" \"$@\"" ${ARGN})
  endif()
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${command} INPUT_FILE /dev/null OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
                  RESULT_VARIABLE rc TIMEOUT 60)
  string(TIMESTAMP t1 "%s")
  math(EXPR secs "${t1} - ${t0}")
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${name}: did not exit normally within 60 s (${rc}); stderr:\n${stderr}")
  endif()
  if(expect STREQUAL "fail")
    if(NOT rc EQUAL 1)
      message(FATAL_ERROR "${name}: expected exit status 1, got ${rc}; stderr:\n${stderr}")
    endif()
  elseif(NOT rc EQUAL expect)
    message(FATAL_ERROR "${name}: expected exit status ${expect}, got ${rc}; stderr:\n${stderr}")
  endif()
  if(NOT stderr MATCHES "${pattern}")
    message(FATAL_ERROR "${name}: stderr does not match '${pattern}':\n${stderr}")
  endif()
  if(stderr MATCHES "internal error|out of memory|18446744073709551615")
    message(FATAL_ERROR "${name}: not a message a person can act on:\n${stderr}")
  endif()
  if(stderr MATCHES "${escape}" OR stderr MATCHES "${bell}")
    message(FATAL_ERROR "${name}: a control character reached stderr raw:\n${stderr}")
  endif()
  message(STATUS "${name}: exit ${rc} in ${secs} s: ${stderr}")
endfunction()

set(out ${WORK}/hostile-marian.tfm)
run(base 0 "" ${TFORMER} convert ${dir}/base -o ${out})
# Files the import does not need are not read, whatever they are.
run(unused-fifo 0 "" ${TFORMER} convert ${dir}/unused-fifo -o ${out})
run(unused-zero 0 "" ${TFORMER} convert ${dir}/unused-zero -o ${out})
# The files it needs must be regular files.
run(fifo-vocab fail "vocab.deen.spm' is a pipe, not a regular file" ${TFORMER} convert ${dir}/fifo-vocab -o ${out})
run(zero-model fail "model.deen.bin' is a device, not a regular file" ${TFORMER} convert ${dir}/zero-model -o ${out})
# YAML: aliases are refused wherever options are read; nesting is named.
run(alias-decoder fail "decoder.yml: line 2: a YAML alias" ${TFORMER} convert ${dir}/alias-decoder -o ${out})
run(alias-model fail "special:model.yml: line [0-9]+: a YAML alias" ${TFORMER} translate -m ${dir}/alias-model)
run(alias-config fail "train.yml: line [0-9]+: a YAML alias"
    ${TFORMER} convert ${dir}/alias-config -o ${out} --config train.yml)
run(deep-yaml fail "decoder.yml: line 1: YAML nested more than 32 levels deep" ${TFORMER} convert ${dir}/deep-yaml -o ${out})
# Decompression: each kind of file within its own limit.
run(yaml-gz fail "decoder.yml.gz: decompresses to more than 256 KiB, the limit for options YAML files"
    ${TFORMER} convert ${dir}/yaml-gz -o ${out})
run(gz-bomb fail "model.deen.bin.gz: decompresses to more than 2 GiB" ${TFORMER} convert ${dir}/gz-bomb -o ${out})
run(npz-shared fail "model.deen.npz: not a readable .npz file \\(entries w0.npy and w1.npy share their data"
    ${TFORMER} convert ${dir}/npz-shared -o ${out})
run(npz-total fail "model.deen.npz: its arrays hold more than 2 GiB in all" ${TFORMER} convert ${dir}/npz-total -o ${out})
run(big-vocab fail "vocab.deen.spm' has 17825792 bytes, more than the 16 MiB a file of its kind may hold"
    ${TFORMER} convert ${dir}/big-vocab -o ${out})
# Messages a person can act on.
run(escape-names fail "several models \\(deen\\\\x1B\\]0;owned\\\\x07\\\\x1B\\[2J.bin, plain.bin\\)"
    ${TFORMER} convert ${dir}/escape-names -o ${out})
run(huge-shape fail "item encoder_huge_W: [0-9]+ data bytes, but a float32 tensor of shape \\[1073741824, 1073741824, 1073741824\\] is larger than any file"
    ${TFORMER} convert ${dir}/huge-shape -o ${out})
# A SentencePiece vocabulary whose normalisation table points outside itself: the folder, and a
# .tfm carrying it, are refused (SentencePiece would read outside the model).
foreach(command translate info)
  run(crafted-spm-${command} fail "vocab.deen.spm: the SentencePiece model's normalisation table \\(precompiled_charsmap\\) is corrupt"
      ${TFORMER} ${command} -m ${dir}/crafted-spm/model.deen.bin)
  run(crafted-tfm-${command} fail "embedded SentencePiece model: the SentencePiece model's normalisation table"
      ${TFORMER} ${command} -m ${WORK}/hostile-models/crafted-charsmap.tfm)
endforeach()
run(crafted-spm-convert fail "precompiled_charsmap" ${TFORMER} convert ${dir}/crafted-spm -o ${out})
