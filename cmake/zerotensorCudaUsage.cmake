# What code using a CUDA build of zerotensor needs, in one place: CMakeLists.txt applies it
# to the library (PUBLIC), and the Conan package (with_cuda) to its imported target
# (INTERFACE) through a CMakeDeps build module.
function(zt_cuda_usage target scope)
  find_package(CUDAToolkit REQUIRED)
  target_link_libraries(${target} ${scope} CUDA::cudart)
  target_compile_definitions(${target} ${scope} ZT_CUDA=1)
  # C++20 for .cu sources is a flag: CMake 3.25 does not know nvcc 13's CUDA20 dialect.
  # Eigen 3.4's GPU tensor code calls constexpr functions from device code; the
  # diagnostics silenced are Eigen's own (defaulted __host__ __device__ members).
  target_compile_options(${target} ${scope}
    $<$<COMPILE_LANGUAGE:CUDA>:-std=c++20 --expt-relaxed-constexpr --diag-suppress=20012,68>)
endfunction()
