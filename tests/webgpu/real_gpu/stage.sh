#!/usr/bin/env bash
# Here, before the WebGPU checks on the GPU machine (the device tool's `run`): packs into build/real-gpu/
# what the machine lacks and run.sh needs, and moves out of the tree what must not travel.
#
#   tests/webgpu/real_gpu/stage.sh           then: run with carry ["build/real-gpu"], command
#                                            "tests/webgpu/real_gpu/run.sh", timeout_s 330
#   models/gpu/stash.sh restore              afterwards: puts the moved model back
#
# The machine has CUDA and PyTorch but no node, no npm packages and maybe no Vulkan loader, and it
# receives only the working tree (64 MiB at most). So this carries: node (stripped, xz), npm `webgpu`
# (Dawn, only its linux-x64 binary), the Vulkan/GL loader packages Debian ships (libvulkan1 and the
# glvnd libraries NVIDIA's ICD loads), the wasm build, the native CLI with the shared
# libraries it links, and the benchmark's source sentences (flores-devtest.de; ../shared does not
# travel), and the shipped de->en model (below); its int8 file is made there (models/tfm quantize,
# deterministic).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../../.." && pwd)
cd "$repo"
out=build/real-gpu
limit=$((64 << 20))


for need in build-wasm/wasm/tformer-st.mjs build-wasm/wasm/tformer-mt.mjs build/tformer \
            web/node_modules/webgpu/dist/linux-x64/dawn.node; do
  [ -e "$need" ] || { echo "stage.sh: $need is missing: run .ci/run (or its build steps) first" >&2; exit 2; }
done
rm -rf "$out" && mkdir -p "$out/gl" "$out/native"

# node: the GPU machine has none. Stripped, it packs to about 22 MB.
strip -o "$out/node" "$(readlink -f "$(command -v node)")"
xz -T0 -9 "$out/node"

# npm webgpu without the other platforms' binaries (132 MB -> 5 MB packed).
tar -C web/node_modules -cf - webgpu/package.json webgpu/index.js webgpu/dist/linux-x64/dawn.node \
  | xz -T0 -9 > "$out/webgpu.tar.xz"

# The loaders (the device tool's README names these for Vulkan and EGL on NVIDIA).
(cd "$out/gl" && apt-get download -q libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2 >/dev/null)

# The wasm build (the tests and benchmark load build-wasm/wasm/; run.sh copies it into web/dist).
tar -cf - build-wasm/wasm/tformer-st.* build-wasm/wasm/tformer-mt.* | xz -T0 -9 > "$out/wasm.tar.xz"

# The native CLI and the Debian libraries it links that a non-Debian machine may lack.
cp build/tformer "$out/native/"
ldd build/tformer | awk '/=> \// {print $3}' | grep -E 'sentencepiece|minizip|yaml-cpp' | xargs -I{} cp -L {} "$out/native/"

mkdir -p "$out/shared/data/deen/test"
cp ../shared/data/deen/test/flores-devtest.de "$out/shared/data/deen/test/"

# The benchmarked model, the shipped de->en f16 file, travels in the carried folder, and both shipped
# f16 files leave the tree (models/gpu/stash.sh): so this call and a training call after it
# (models/gpu/stage.sh, carry models/work/gpu) send the same tree and differ only in what they carry.
model=models/tiny.deen/model.tfm
[ -f "$model" ] || model=models/work/stash/tiny.deen/model.tfm
cp "$model" "$out/tiny.deen.tfm"
models/gpu/stash.sh out tiny.deen tiny.ende

tree=$({ git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null || true; } | awk '{s += $1} END {print s + 0}')
carried=$(du -sb "$out" | cut -f1)
echo "staged $out ($carried bytes); with the working tree ($tree bytes) $((tree + carried)) of $limit bytes travel"
if [ $((tree + carried)) -gt "$limit" ]; then
  echo "stage.sh: over the GPU machine's 64 MiB (models/gpu/stash.sh restore puts the model back)" >&2
  exit 3
fi
