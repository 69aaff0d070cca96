# `tformer info` on an int8 model: each matrix listed as i8 with its bytes, its scales as f32, and
# the totals per dtype.
execute_process(COMMAND ${TFORMER} info ${MODEL} OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0
   OR NOT out MATCHES "encoder.layers.0.ffn.w1.weight +i8 +64x32 +2048\n"
   OR NOT out MATCHES "encoder.layers.0.ffn.w1.weight.scales +f32 +64 +256\n"
   OR NOT out MATCHES "bytes by dtype: f32 [0-9.]+ MB; i8 [0-9.]+ MB;"
   OR NOT out MATCHES "  i8 +[0-9]+ tensors +[0-9]+ bytes")
  message(FATAL_ERROR "info output unexpected (exit ${rc}):\n${out}")
endif()
message(STATUS "${out}")
