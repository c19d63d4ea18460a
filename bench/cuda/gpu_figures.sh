#!/usr/bin/env bash
# The whole-model figures of docs/performance.md, on the GPU machine, in one run from the project
# root after `bash .gpu/cuda-build.sh` built the CUDA configuration (its build folder: ZT_GPU_BUILD,
# by default /tmp/zt-gpu-build):
#   bash bench/cuda/gpu_figures.sh [zerotensor|peers|all]
# zerotensor: bench_cuda_models (a 2 GiB file and a 16-shard directory, hot and cold; saves).
# peers: bench/cuda/cuda_peers.py on the same shapes, with the dedicated loaders installed from the
# wheels that bench/cuda/fetch_peer_wheels.sh put in .gpu/wheels (carry .gpu to the machine).
# Logs go to $OUT when it is set (else /tmp/zt-gpu-logs).
set -uo pipefail
what=${1:-all}
logs=${OUT:-/tmp/zt-gpu-logs}; mkdir -p "$logs"
build=${ZT_GPU_BUILD:-/tmp/zt-gpu-build}
export LD_LIBRARY_PATH=/opt/zt-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
status=0

if [ "$what" != peers ]; then
  "$build/bench/bench_cuda_models" > "$logs/bench_cuda_models.log" 2>&1 || status=1
  sed -n '/^subject/,$p' "$logs/bench_cuda_models.log"
fi

if [ "$what" != zerotensor ]; then
  # Into a folder on PYTHONPATH: site-packages may not be writable, and the machine has the rest.
  peers=/tmp/zt-peers
  python3 -m pip install -q --no-index --no-deps --no-compile --upgrade --target "$peers" .gpu/wheels/*.whl \
    > "$logs/peers-install.log" 2>&1 || { tail -5 "$logs/peers-install.log"; status=1; }
  export PYTHONPATH=$peers
  # fastsafetensors dlopens "libcudart.so", which PyTorch's wheels ship only as libcudart.so.<major>.
  if ! python3 -c 'import ctypes; ctypes.CDLL("libcudart.so")' 2>/dev/null; then
    mkdir -p /tmp/zt-cudart
    ln -sf "$(python3 -c 'import glob, nvidia; print(glob.glob(nvidia.__path__[0] + "/*/lib/libcudart.so.*")[0])')" \
      /tmp/zt-cudart/libcudart.so
    export LD_LIBRARY_PATH=/tmp/zt-cudart:$LD_LIBRARY_PATH
  fi
  for workload in file directory; do
    PYTHONUNBUFFERED=1 python3 bench/cuda/cuda_peers.py --workload "$workload" 2>&1 | tee "$logs/cuda_peers_$workload.log"
    [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
  done
fi
exit $status
