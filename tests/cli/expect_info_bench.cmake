# `tformer info` prints the architecture and tensor table; `tformer bench` prints its figures.
execute_process(COMMAND ${TFORMER} info ${MODEL} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "d_model 32, heads 4, ffn 64, encoder 2 layers, decoder 2 layers, vocab 256"
   OR NOT out MATCHES "encoder.layers.0.self_attn.q.weight +f16 +32x32")
  message(FATAL_ERROR "info output unexpected (exit ${rc}):\n${out}")
endif()
# The config and metadata one field a line (not one line of JSON), values aligned, text as it is.
if(NOT out MATCHES "\nconfig:\n  activation: +relu\n" OR NOT out MATCHES "\n  d_model: +32\n"
   OR NOT out MATCHES "\nmetadata:\n  name: +fixture-marian\n  note: +random weights, for tests only\n"
   OR out MATCHES "[{}]")
  message(FATAL_ERROR "info: config and metadata not one field a line:\n${out}")
endif()
execute_process(COMMAND ${TFORMER} bench -m ${MODEL} -i ${INPUT} --json ${WORK}/bench.json OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "sentences/s" OR NOT out MATCHES "target tokens/s" OR NOT out MATCHES "latency")
  message(FATAL_ERROR "bench output unexpected (exit ${rc}):\n${out}")
endif()
file(READ ${WORK}/bench.json json)
string(JSON tps GET "${json}" tokens_per_s)
if(NOT tps GREATER 0)
  message(FATAL_ERROR "bench.json has no tokens_per_s: ${json}")
endif()
# --profile: the batch's time per phase, in ms and % (the phases and the rest add up to the batch).
execute_process(COMMAND ${TFORMER} bench -m ${MODEL} -i ${INPUT} --beam 2 --profile --json ${WORK}/bench.json
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
foreach(phase "encoder" "decoder self-attention" "decoder cross-attention" "decoder feed-forward" "output projection"
        "softmax/top-k" "beam bookkeeping" "KV-cache reorder" "rest")
  if(NOT rc EQUAL 0 OR NOT out MATCHES "\n  ${phase} +[0-9.]+ ms +[0-9.]+%")
    message(FATAL_ERROR "bench --profile: no line for ${phase} (exit ${rc}):\n${out}")
  endif()
endforeach()
file(READ ${WORK}/bench.json json)
string(JSON ms GET "${json}" profile_ms "output projection")
if(NOT ms GREATER 0)
  message(FATAL_ERROR "bench.json has no profile_ms: ${json}")
endif()
execute_process(COMMAND ${TFORMER} translate -m ${MODEL} --profile INPUT_FILE ${INPUT} OUTPUT_VARIABLE out2
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(NOT rc EQUAL 2 OR NOT err MATCHES "--profile is an option of bench only")
  message(FATAL_ERROR "translate --profile: expected a usage error, got exit ${rc}: ${err}")
endif()
message(STATUS "${out}")
