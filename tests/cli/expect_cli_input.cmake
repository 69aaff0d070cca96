# The CLI's input handling and options (issue "first-time user", items 12-14; "robustness" 8):
# streaming in batches gives the same output as one batch, a bad line is skipped (empty output
# line, a message naming it, exit 1 at the end) or stops the run, the limits give clear errors,
# and --help / --version / info -m behave. Variables: TFORMER, MODEL (the marian fixture), WORK.

function(run name input_text expect_rc)
  set(input ${WORK}/cli-input-${name}.txt)
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

file(READ ${CMAKE_CURRENT_LIST_DIR}/../fixtures/marian/input.txt lines)
# Streaming: 7 copies of the input (42 lines) in batches of 5 lines = in one batch of 1000.
string(REPEAT "${lines}" 7 many)
run(batch-1000 "${many}" 0 ${TFORMER} translate -m ${MODEL} --batch-lines 1000)
set(one_batch "${out}")
run(batch-5 "${many}" 0 ${TFORMER} translate -m ${MODEL} --batch-lines 5)
if(NOT out STREQUAL one_batch)
  message(FATAL_ERROR "batches of 5 lines translate differently:\n${out}\n--- one batch ---\n${one_batch}")
endif()

# A bad line in the middle: skipped by default, the others translated as alone.
string(ASCII 255 bad_byte)
run(alone "Die Katze schläft.\n" 0 ${TFORMER} translate -m ${MODEL})
set(katze "${out}")
run(alone-hallo "Hallo\n" 0 ${TFORMER} translate -m ${MODEL})
set(hallo "${out}")
run(skip "Hallo\nWelt ${bad_byte}\nDie Katze schläft.\n" 1 ${TFORMER} translate -m ${MODEL} --batch-lines 2)
expect(skip-stderr "${err}" "error: line 2 is not valid UTF-8: byte 0xFF at offset 5; its output line is left empty")
expect(skip-summary "${err}" "1 of 3 lines could not be translated")
if(NOT out STREQUAL "${hallo}\n${katze}")
  message(FATAL_ERROR "skip: stdout is not line 1, an empty line and line 3 as translated alone:\n${out}")
endif()
# --on-error stop: the lines before it are written, nothing after.
run(stop "Hallo\nWelt ${bad_byte}\nDie Katze schläft.\n" 1 ${TFORMER} translate -m ${MODEL} --on-error stop)
expect(stop-stderr "${err}" "error: line 2 is not valid UTF-8")
if(NOT out STREQUAL hallo)
  message(FATAL_ERROR "stop: stdout is not line 1 alone:\n${out}")
endif()

# Limits: characters per line (a line past it is an error naming it) and tokens per sentence.
run(max-chars "Hallo\nDie Katze schläft.\n" 1 ${TFORMER} translate -m ${MODEL} --max-chars 10)
expect(max-chars "${err}" "line 2 has 18 characters, more than the limit of 10 per input \\(--max-chars\\)")
string(REPEAT "x" 100 long)
run(max-chars-cut "${long}\n" 1 ${TFORMER} translate -m ${MODEL} --max-chars 10)
expect(max-chars-cut "${err}" "line 1 has more than 10 characters")
run(max-sentence-tokens "Ein Mann fährt Fahrrad und zwei Hunde spielen im Schnee\n" 0
    ${TFORMER} translate -m ${MODEL} --max-sentence-tokens 3)
expect(max-sentence-tokens "${out}" "^[^\n]+\n$")
run(max-sentence-tokens-bad "" 2 ${TFORMER} translate -m ${MODEL} --max-sentence-tokens -1)
expect(max-sentence-tokens-bad "${err}" "--max-sentence-tokens must be at least 0, got -1")

# nbest on an empty line: one empty hypothesis, not three identical ones.
run(nbest-empty "\nDie Katze schläft.\n" 0 ${TFORMER} translate -m ${MODEL} --beam 3 --nbest 3)
expect(nbest-empty "${out}" "^0 \\|\\|\\|  \\|\\|\\| 0\n1 \\|\\|\\| [^\n]+\n1 \\|\\|\\| [^\n]+\n1 \\|\\|\\| [^\n]+\n$")

# Option errors say what they got.
run(length-penalty "" 1 ${TFORMER} translate -m ${MODEL} --length-penalty -3)
expect(length-penalty "${err}" "length penalty must be between 0 and 10 \\(got -3\\)")
run(batch-lines "" 2 ${TFORMER} translate -m ${MODEL} --batch-lines 0)
expect(batch-lines "${err}" "--batch-lines must be at least 1, got 0")
run(on-error "" 2 ${TFORMER} translate -m ${MODEL} --on-error maybe)
expect(on-error "${err}" "--on-error must be skip or stop, got 'maybe'")
run(kernels "" 2 ${TFORMER} translate -m ${MODEL} --kernels gpu)
expect(kernels "${err}" "--kernels must be xnnpack or reference, got 'gpu'")
run(backend "" 2 ${TFORMER} translate -m ${MODEL} --backend gpu)
expect(backend "${err}" "--backend must be xnnpack or reference, got 'gpu'")
# --backend is the old name of --kernels: the same kernels, the same output.
run(kernels-reference "Die Katze schläft.\n" 0 ${TFORMER} translate -m ${MODEL} --kernels reference)
set(reference_kernels "${out}")
run(backend-reference "Die Katze schläft.\n" 0 ${TFORMER} translate -m ${MODEL} --backend reference)
if(NOT out STREQUAL reference_kernels)
  message(FATAL_ERROR "--backend reference differs from --kernels reference:\n${out}")
endif()

# Passthrough and the repetition guard are on by default: a phone number and a link come out as
# typed, even from this random-weight model; --no-passthrough hands them to the model. The guard
# stops the fixture's loops; --no-repetition-guard gives its reference output (expected.greedy.txt).
run(passthrough "Ruf 0171 2345678 an oder lies https://example.com.\n" 0 ${TFORMER} translate -m ${MODEL})
expect(passthrough-number "${out}" "0171 2345678")
expect(passthrough-link "${out}" "https://example\\.com")
run(passthrough-on "Ruf 0171 2345678 an oder lies https://example.com.\n" 0 ${TFORMER} translate -m ${MODEL} --no-passthrough --passthrough)
if(NOT out STREQUAL "${out}")
  message(FATAL_ERROR "--passthrough differs from the default")
endif()
run(passthrough-off "Ruf 0171 2345678 an oder lies https://example.com.\n" 0 ${TFORMER} translate -m ${MODEL} --no-passthrough)
if(out MATCHES "https://example\\.com")
  message(FATAL_ERROR "--no-passthrough: the model's own output has the link as typed: ${out}")
endif()
file(READ ${CMAKE_CURRENT_LIST_DIR}/../fixtures/marian/expected.greedy.txt reference)
run(plain "${lines}" 0 ${TFORMER} translate -m ${MODEL} --no-passthrough --no-repetition-guard)
if(NOT out STREQUAL reference)
  message(FATAL_ERROR "--no-passthrough --no-repetition-guard is not the reference's output:\n${out}")
endif()
run(guarded "${lines}" 0 ${TFORMER} translate -m ${MODEL} --no-passthrough --repetition-guard)
set(guarded "${out}")
run(guard-default "${lines}" 0 ${TFORMER} translate -m ${MODEL} --no-passthrough)
if(NOT out STREQUAL guarded OR out STREQUAL reference)
  message(FATAL_ERROR "the repetition guard is not on by default (the fixture's loops are left):\n${out}")
endif()

# --help explains every option with its default; --version; info MODEL and info -m MODEL.
run(help "" 0 ${TFORMER} --help)
foreach(option --beam --nbest --scores --length-penalty --max-length --no-split --threads --kernels --backend
               --batch-tokens --batch-lines --max-chars --max-sentence-tokens --on-error --passthrough
               --no-passthrough --repetition-guard --no-repetition-guard --version)
  expect(help-${option} "${out}" "${option}")
endforeach()
expect(help-defaults "${out}" "default 4096")
expect(help-passthrough-default "${out}" "as typed \\(default on\\)")
run(version "" 0 ${TFORMER} --version)
expect(version "${out}" "^tformer [0-9]+\\.[0-9]+\\.[0-9]+\n$")
run(info-plain "" 0 ${TFORMER} info ${MODEL})
set(info "${out}")
run(info-m "" 0 ${TFORMER} info -m ${MODEL})
if(NOT out STREQUAL info OR NOT out MATCHES "d_model 32")
  message(FATAL_ERROR "info -m MODEL differs from info MODEL:\n${out}")
endif()
message(STATUS "all CLI input checks passed")
