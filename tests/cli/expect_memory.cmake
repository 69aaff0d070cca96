# translate --memory: a second run answers every sentence from the memory file in the cache folder
# and writes the same output; other options are not answered from it; a damaged, truncated or
# foreign file, or a cache folder that cannot be made, is a warning and never changes the output;
# memory stats and memory clear. Variables: TFORMER, MODEL (the marian fixture), WORK, PYTHON.

function(run name input_text expect_rc)
  set(input ${WORK}/memory-input-${name}.txt)
  file(WRITE ${input} "${input_text}")
  execute_process(COMMAND ${ARGN} INPUT_FILE ${input} OUTPUT_VARIABLE stdout ERROR_VARIABLE stderr
                  RESULT_VARIABLE rc TIMEOUT 120)
  if(NOT rc STREQUAL expect_rc)
    message(FATAL_ERROR "${name}: expected exit status ${expect_rc}, got ${rc}\nstderr:\n${stderr}\nstdout:\n${stdout}")
  endif()
  set(out "${stdout}" PARENT_SCOPE)
  set(err "${stderr}" PARENT_SCOPE)
endfunction()

function(expect name value pattern)
  if(NOT "${value}" MATCHES "${pattern}")
    message(FATAL_ERROR "${name}: '${value}' does not match '${pattern}'")
  endif()
endfunction()

function(same name value expected)
  if(NOT "${value}" STREQUAL "${expected}")
    message(FATAL_ERROR "${name}: the output differs from the translation without a memory:\n${value}\n--- expected ---\n${expected}")
  endif()
endfunction()

set(cache ${WORK}/memory-cache)
file(REMOVE_RECURSE ${cache})
set(file ${cache}/translation-memory.bin)
# Four lines, five sentences, three of them different.
set(text "Ein Mann fährt Fahrrad. Die Katze schläft.\nZwei Hunde spielen im Schnee.\n\nDie Katze schläft.\n")

run(plain "${text}" 0 ${TFORMER} translate -m ${MODEL})
set(expected "${out}")
run(first "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --cache ${cache})
same(first "${out}" "${expected}")
expect(first-stderr "${err}" "translation memory: 0 of 4 sentences answered from it; 3 entries in .*translation-memory.bin")
run(second "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --cache ${cache})
same(second "${out}" "${expected}")
expect(second-stderr "${err}" "translation memory: 4 of 4 sentences answered from it; 3 entries")
run(stats "" 0 ${TFORMER} memory stats --cache ${cache})
expect(stats "${out}" "translation-memory.bin: 3 entries, [0-9]+ bytes")
# Other options: nothing answered; --no-memory (the default) leaves the file alone.
run(beam "${text}" 0 ${TFORMER} translate -m ${MODEL} --beam 2 --memory --cache ${cache})
expect(beam-stderr "${err}" "0 of 4 sentences answered")
run(no-memory "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --no-memory --cache ${cache})
if(err MATCHES "translation memory")
  message(FATAL_ERROR "--no-memory: ${err}")
endif()

# A truncated file, one with a byte changed, and one that is something else: a warning, the same
# output, and the file rewritten.
foreach(case truncated flipped foreign empty)
  # Made by Python from the good file (CMake strings cannot hold NUL bytes).
  execute_process(COMMAND ${PYTHON} -c "
import sys
path, case = sys.argv[1], sys.argv[2]
data = open(path, 'rb').read()
data = {'truncated': data[:len(data) // 2], 'flipped': data[:20] + bytes([data[20] ^ 0xff]) + data[21:],
        'foreign': b'<html></html>\\n', 'empty': b''}[case]
open(path, 'wb').write(data)" ${file} ${case} RESULT_VARIABLE py_rc)
  if(NOT py_rc EQUAL 0)
    message(FATAL_ERROR "${case}: ${PYTHON} could not write the file")
  endif()
  run(${case} "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --cache ${cache})
  same(${case} "${out}" "${expected}")
  if(case STREQUAL "truncated" OR case STREQUAL "flipped")
    expect(${case}-warning "${err}" "warning: '.*translation-memory.bin': the translation memory is damaged or truncated \\(its checksum does not match\\); it is ignored and will be rewritten")
  else()
    expect(${case}-warning "${err}" "warning: '.*translation-memory.bin': not a translation memory")
  endif()
  expect(${case}-rebuilt "${err}" "0 of 4 sentences answered from it; 3 entries")
  run(${case}-again "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --cache ${cache})
  expect(${case}-again "${err}" "4 of 4 sentences answered")
endforeach()

# A cache folder that cannot be made (under a file): warnings, the same output.
file(WRITE ${WORK}/memory-not-a-folder "x")
run(no-folder "${text}" 0 ${TFORMER} translate -m ${MODEL} --memory --cache ${WORK}/memory-not-a-folder/cache)
same(no-folder "${out}" "${expected}")
expect(no-folder-warning "${err}" "warning: cannot create the cache folder '.*memory-not-a-folder/cache'.*the translation memory is not saved")

# clear, twice; memory with another word; --memory elsewhere.
run(clear "" 0 ${TFORMER} memory clear --cache ${cache})
expect(clear "${out}" "^removed .*translation-memory.bin")
run(clear-again "" 0 ${TFORMER} memory clear --cache ${cache})
expect(clear-again "${out}" "^there is no translation memory at ")
run(stats-none "" 0 ${TFORMER} memory stats --cache ${cache})
expect(stats-none "${out}" ": 0 entries")
run(memory-usage "" 2 ${TFORMER} memory forget --cache ${cache})
expect(memory-usage "${err}" "memory needs one of: clear, stats")
run(memory-option "" 2 ${TFORMER} info -m ${MODEL} --memory)
expect(memory-option "${err}" "--memory is an option of translate only")
