// Loaded by ci/install_consumer.sh through Python's ctypes: a view, a DLPack round trip
// and an error caught across the shared object's boundary, all from the installed library.
#include <zerotensor/zerotensor.hpp>

#include <vector>

/// 0 when every check passes, else the number of the first that failed.
extern "C" int zt_pic_consumer_check() {
  std::vector<float> values = {1.0f, 2.0f, 3.0f, 4.0f};
  const zt::AnyTensor view = zt::frombuffer<float>(values);
  const zt::AnyTensor round_trip = zt::from_dlpack(zt::to_dlpack(view));
  if (round_trip.data_ptr() != values.data() || round_trip.numel() != 4) return 1;
  try {
    (void)zt::frombuffer(values, zt::float32, {.count = 5});
    return 2;
  } catch (const zt::ValueError&) {
  }
  return 0;
}
