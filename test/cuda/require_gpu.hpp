// The GPU suites' global fixture: without a usable GPU the program prints why and exits
// 77, which CTest reports as Skipped (SKIP_RETURN_CODE in test/CMakeLists.txt).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>

struct RequireGpu {
  RequireGpu() {
    int count = 0;
    const cudaError_t error = cudaGetDeviceCount(&count);
    if (error == cudaSuccess && count > 0) return;
    std::printf("SKIPPED: these tests need a GPU; cudaGetDeviceCount gave %s (%s) and %d devices\n",
                cudaGetErrorName(error), cudaGetErrorString(error), count);
    std::fflush(stdout);
    std::_Exit(77);
  }
};
