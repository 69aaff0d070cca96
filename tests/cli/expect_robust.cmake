# Hostile model files and odd input through the CLI (issue "robustness"): each must end within a
# time bound with a clear message on stderr and an exit status from 1 to 127 (not a signal), its
# memory capped (ulimit -v, unless the build is sanitized: ASan reserves terabytes of address space).
# The model files are written at test time by make_bad_models.py from the fixtures.
# Variables: TFORMER, FIXTURES, WORK, PYTHON, MEMORY_LIMIT_KB (0: no cap).
set(dir ${WORK}/robust-models)
execute_process(COMMAND ${PYTHON} ${CMAKE_CURRENT_LIST_DIR}/make_bad_models.py ${FIXTURES} ${dir} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "make_bad_models.py failed (${rc})")
endif()
set(marian ${FIXTURES}/marian/model.tfm)

# run(<name> <stdin text> <expected exit: fail|0|1> <stderr pattern> <command...>); sets out/err.
function(run name input_text expect pattern)
  set(input ${WORK}/robust-${name}.txt)
  file(WRITE ${input} "${input_text}")
  set(command ${ARGN})
  if(MEMORY_LIMIT_KB)
    set(command sh -c "ulimit -v ${MEMORY_LIMIT_KB} && exec \"$0\" \"$@\"" ${ARGN})
  endif()
  string(TIMESTAMP t0 "%s")
  execute_process(COMMAND ${command} INPUT_FILE ${input} OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
                  RESULT_VARIABLE rc TIMEOUT 60)
  string(TIMESTAMP t1 "%s")
  math(EXPR secs "${t1} - ${t0}")
  if(NOT rc MATCHES "^[0-9]+$")
    message(FATAL_ERROR "${name}: did not exit normally within 60 s (${rc}); stderr:\n${stderr}")
  endif()
  if(expect STREQUAL "fail")
    if(rc LESS 1 OR rc GREATER 127)
      message(FATAL_ERROR "${name}: expected an exit status from 1 to 127, got ${rc}; stderr:\n${stderr}")
    endif()
  elseif(NOT rc EQUAL expect)
    message(FATAL_ERROR "${name}: expected exit status ${expect}, got ${rc}; stderr:\n${stderr}\nstdout:\n${stdout}")
  endif()
  if(NOT stderr MATCHES "${pattern}")
    message(FATAL_ERROR "${name}: stderr does not match '${pattern}':\n${stderr}")
  endif()
  if(stderr MATCHES "internal error")
    message(FATAL_ERROR "${name}: an internal error:\n${stderr}")
  endif()
  message(STATUS "${name}: exit ${rc} in ${secs} s: ${stderr}")
  set(out "${stdout}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

# Model files (issue findings 1, 2, 4, 5, 6).
run(max-positions "Hallo\n" fail "'max_positions' = 2 leaves no room for a source token next to BOS and EOS"
    ${TFORMER} translate -m ${dir}/max-positions.tfm)
foreach(place metadata dtype shape)
  foreach(command translate info)
    set(args ${TFORMER} ${command} -m ${dir}/nested-${place}.tfm)
    run(nested-${place}-${command} "Hallo\n" fail "header nests arrays or objects more than 64 levels deep" ${args})
  endforeach()
endforeach()
run(overlap "Hallo\n" fail "tensors shared\\.[0-9]+ .* overlap" ${TFORMER} translate -m ${dir}/overlap.tfm)
run(special-ids "Hallo\n" fail "config 'bos_id' = 299 is not a piece of the source tokenizer, which has 256 pieces"
    ${TFORMER} translate -m ${dir}/special-ids.tfm)
run(directory-translate "Hallo\n" fail "model folder '${FIXTURES}/marian': .*it holds model.tfm: a .tfm model is loaded by its file name"
    ${TFORMER} translate -m ${FIXTURES}/marian)
run(directory-info "" fail "model folder .*it holds model.tfm" ${TFORMER} info ${FIXTURES}/marian)
run(missing "" fail "cannot open model file '/nonexistent/model.tfm': No such file or directory"
    ${TFORMER} info /nonexistent/model.tfm)
