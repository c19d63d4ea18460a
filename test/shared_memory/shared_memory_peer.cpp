// The second process of test_shared_memory: opens the shared tensor named on the command
// line (float64, shape (3, 4)), checks that it sees the value its parent wrote, writes
// t(i, j) = 100 i + j + 0.5 and exits 0. Any mismatch or error: a message and exit 1.
#include <cstdio>

#include "zerotensor/shared_memory.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s NAME\n", argv[0]);
    return 1;
  }
  try {
    auto t = zt::open_shared_tensor(argv[1]).as<double, 2>();
    if (t.size(0) != 3 || t.size(1) != 4 || t(0, 0) != -1.0) {
      std::fprintf(stderr, "peer: unexpected tensor: shape (%lld, %lld), t(0, 0) = %g\n", (long long)t.size(0),
                   (long long)t.size(1), t(0, 0));
      return 1;
    }
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) t(i, j) = 100.0 * i + j + 0.5;
    return 0;
  } catch (const zt::Error& e) {
    std::fprintf(stderr, "peer: %s\n", e.what());
    return 1;
  }
}
