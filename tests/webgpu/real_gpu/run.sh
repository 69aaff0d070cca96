#!/usr/bin/env bash
# On the GPU machine (device tool `run`, carry ["build/real-gpu"], after stage.sh here): does Dawn
# (npm `webgpu`, Vulkan) reach the GPU? If it does, the WebGPU session and package tests, then the
# WebGPU benchmark of the shipped de->en model (f16 and int8 files, beam 1 and 4) beside the same
# machine's wasm and native CLI. Writes to $OUT: machine.txt (what the machine has: GPU, driver,
# Vulkan ICDs and loader), adapter.json, tests.log, bench.tar.xz (each run's JSON and table) and
# run.log (everything). Each part has its own time limit, so one hang cannot eat the others.
set -uo pipefail
: "${OUT:?OUT: the folder whose files come back}"
cd "$(dirname "$0")/../../.."
repo=$(pwd)
staged=$repo/build/real-gpu
exec > >(tee "$OUT/run.log") 2>&1
t0=$(date +%s)
say() { echo "=== $* ($(( $(date +%s) - t0 )) s)"; }
# DEADLINE (seconds, default 240): the whole script's budget; each step gets at most its own limit
# and what is left, so that bench.tar.xz is written before the call's time limit.
deadline=${DEADLINE:-240}
limit() { local left=$(( deadline - ($(date +%s) - t0) - 15 )); [ "$left" -lt "$1" ] && echo $(( left > 1 ? left : 1 )) || echo "$1"; }

say "the machine"
{
  echo "## nvidia-smi"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv 2>&1
  echo "## os"; grep PRETTY_NAME /etc/os-release; uname -r; ldd --version | head -1
  echo "## cpu"; grep -m1 'model name' /proc/cpuinfo; nproc
  echo "## Vulkan ICD manifests"
  ls -l /usr/share/vulkan/icd.d /etc/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d 2>&1
  echo "## NVIDIA Vulkan/GLX libraries"
  find /usr /lib /lib64 /etc -maxdepth 4 \( -name 'libnvidia-*vulkan*' -o -name 'libGLX_nvidia.so*' -o -name 'libnvidia-glcore.so*' \) 2>/dev/null | head -20
  ldconfig -p | grep -i nvidia | head -20
  find /usr/local/nvidia -maxdepth 3 2>/dev/null | head -40
  echo "## Vulkan loader before unpacking"; ldconfig -p | grep -E 'libvulkan|libGLdispatch' || echo "none"
  echo "## node"; command -v node && node --version || echo "none"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

say "unpacking node, npm webgpu, the loaders, the wasm build and the native CLI"
# REAL_GPU_LOCAL_CHECK=1: a dry run of this script on a CPU machine (SwiftShader is let through, and
# nothing is unpacked into / or ../shared).
if [ -z "${REAL_GPU_LOCAL_CHECK:-}" ]; then
  for f in "$staged"/gl/*.deb; do dpkg -x "$f" /; done
  ldconfig
fi
mkdir -p /tmp/node/bin && xz -dc "$staged/node.xz" > /tmp/node/bin/node && chmod +x /tmp/node/bin/node
export PATH=/tmp/node/bin:$PATH
node --version
mkdir -p web/node_modules && tar -C web/node_modules -xJf "$staged/webgpu.tar.xz"
tar -xJf "$staged/wasm.tar.xz"
(cd web && node scripts/build.mjs)
export LD_LIBRARY_PATH=$staged/native${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
[ -n "${REAL_GPU_LOCAL_CHECK:-}" ] || { mkdir -p ../shared && cp -r "$staged/shared/." ../shared/; }

# The NVIDIA ICD: the first manifest that names NVIDIA's library.
icd=$(grep -l -s nvidia /usr/share/vulkan/icd.d/*.json /etc/vulkan/icd.d/*.json /usr/local/nvidia/share/vulkan/icd.d/*.json | head -1)
[ -n "${REAL_GPU_LOCAL_CHECK:-}" ] && icd=/usr/lib/chromium/vk_swiftshader_icd.json
if [ -n "$icd" ]; then
  export VK_ICD_FILENAMES=$icd VK_DRIVER_FILES=$icd
  echo "ICD: $icd"; cat "$icd"
  # glvnd's EGL vendor file, where the driver ships one (the device tool's README)
  egl=/usr/local/nvidia/share/glvnd/egl_vendor.d/10_nvidia.json
  [ -f "$egl" ] && export __EGL_VENDOR_LIBRARY_FILENAMES=$egl
else
  echo "no NVIDIA Vulkan ICD manifest found"
fi

say "adapter"
timeout 60 node tests/webgpu/real_gpu/adapter.mjs > "$OUT/adapter.json" 2> "$OUT/adapter.err"
cat "$OUT/adapter.json" "$OUT/adapter.err"
if ! grep -q '"vendor"' "$OUT/adapter.json" || { [ -z "${REAL_GPU_LOCAL_CHECK:-}" ] && grep -qi swiftshader "$OUT/adapter.json"; }; then
  say "no GPU adapter: machine.txt and adapter.err say what there is"
  exit 0
fi

say "the int8 variant of the shipped de->en model"
"${PYTHON:-python3}" models/tfm quantize "$staged/tiny.deen.tfm" -o /tmp/tiny.deen.int8.tfm

say "benchmarks"
mkdir -p /tmp/bench
node --input-type=module -e "
  import { germanSentences } from './tests/webgpu/models.mjs';
  console.log(germanSentences(32, { from: 100 }).join('\n'));
" > /tmp/bench/batch32.de
for file in "$staged/tiny.deen.tfm" /tmp/tiny.deen.int8.tfm; do
  kind=$(case $file in *int8*) echo int8;; *) echo f16;; esac)
  for beam in 1 4; do
    for weights in auto; do
      timeout "$(limit 45)" node tests/webgpu/bench.mjs --model "$file" --beam $beam --runners translate,webgpu \
        --gpu-weights $weights --variant st --threads 1 --repeat 1 --json /tmp/bench/webgpu-$kind-b$beam-$weights.json \
        > /tmp/bench/webgpu-$kind-b$beam-$weights.txt 2>&1
      echo "webgpu $kind beam $beam gpu weights $weights: exit $?"; tail -n 7 /tmp/bench/webgpu-$kind-b$beam-$weights.txt
    done
    for threads in 1 $(nproc); do
      timeout "$(limit 20)" build/real-gpu/native/tformer bench -m "$file" -i /tmp/bench/batch32.de --beam $beam --threads $threads \
        --json /tmp/bench/native-$kind-b$beam-t$threads.json > /tmp/bench/native-$kind-b$beam-t$threads.txt 2>&1
      echo "native $kind beam $beam threads $threads: exit $?"; tail -n 4 /tmp/bench/native-$kind-b$beam-t$threads.txt
    done
  done
done
tar -C /tmp -cJf "$OUT/bench.tar.xz" bench

say "WebGPU session and package tests (the shipped model as the larger model)"
TFORMER_LARGE_MODEL=$staged/tiny.deen.tfm timeout "$(limit 100)" \
  node --test --test-reporter=spec tests/webgpu/session.test.mjs tests/webgpu/package.test.mjs > "$OUT/tests.log" 2>&1
echo "tests exit $?"; grep -E 'not ok|✖' "$OUT/tests.log" | head -10; tail -n 9 "$OUT/tests.log"

say "done"
