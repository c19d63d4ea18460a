// The 8-bit floats and complex32 against PyTorch 2.15: every code's decoded value, an
// encoding sweep over every rounding boundary, subnormal, overflow and NaN/infinity input
// from float32 and float64, the same through the dtype layer (AnyTensor::to), complex32
// round trips, Eigen, and the refusals. The reference data and the script that wrote it are
// in test/data/float8/ (make_reference.py describes the record layouts).
//
// Where ml_dtypes differs from PyTorch these tests assert PyTorch's values: encoding to
// float8_e4m3fn saturates overflow and +-inf to +-448 (ml_dtypes gives NaN), and
// float8_e8m0fnu ignores the sign and maps +-0 to 0x00 (ml_dtypes gives NaN).
#include <boost/test/unit_test.hpp>

#include <bit>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "support/flush_denormals.hpp"
#include "support/message_check.hpp"
#include "zerotensor/any_tensor.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/empty.hpp"
#include "zerotensor/error.hpp"

namespace {

std::vector<unsigned char> read_data(const std::string& name) {
  std::ifstream file(std::string(ZT_TEST_DATA_DIR) + "/float8/" + name, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(file, "cannot open test/data/float8/" << name);
  return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

template <class T>
T read_at(const std::vector<unsigned char>& bytes, std::size_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

/// PyTorch's values for one code (a record of <type>.decode.bin).
struct Decoded {
  std::uint32_t float32;
  std::uint16_t bfloat16;
  std::uint16_t float16;
  std::int32_t int32;
  bool boolean;
};

std::vector<Decoded> read_decoded(const std::string& type) {
  const std::vector<unsigned char> bytes = read_data(type + ".decode.bin");
  BOOST_REQUIRE_EQUAL(bytes.size(), 256u * 13);
  std::vector<Decoded> records;
  for (std::size_t at = 0; at < bytes.size(); at += 13)
    records.push_back({read_at<std::uint32_t>(bytes, at), read_at<std::uint16_t>(bytes, at + 4),
                       read_at<std::uint16_t>(bytes, at + 6), read_at<std::int32_t>(bytes, at + 8), bytes[at + 12] != 0});
  return records;
}

/// An input (float32 or float64) and PyTorch's byte for it (<type>.encode_f32/f64.bin).
template <class Input>
struct Encoded {
  Input input;
  std::uint8_t code;
};

template <class Input>
std::vector<Encoded<Input>> read_encoded(const std::string& file) {
  using Bits = std::conditional_t<sizeof(Input) == 4, std::uint32_t, std::uint64_t>;
  const std::vector<unsigned char> bytes = read_data(file);
  constexpr std::size_t size = sizeof(Input) + 1;
  BOOST_REQUIRE(!bytes.empty() && bytes.size() % size == 0);
  std::vector<Encoded<Input>> records;
  for (std::size_t at = 0; at < bytes.size(); at += size)
    records.push_back({std::bit_cast<Input>(read_at<Bits>(bytes, at)), bytes[at + sizeof(Input)]});
  return records;
}

/// Equal bits (so the sign of zero counts), or both NaN.
template <class Bits>
bool same_value(Bits expected, Bits got, bool expected_nan, bool got_nan) {
  return expected_nan ? got_nan : expected == got;
}

bool same_float(std::uint32_t expected, float got) {
  return same_value(expected, std::bit_cast<std::uint32_t>(got), std::isnan(std::bit_cast<float>(expected)),
                    std::isnan(got));
}

template <class Half>  // Eigen::half or Eigen::bfloat16
bool same_half(std::uint16_t expected, Half got) {
  const bool expected_nan = std::isnan(float(std::bit_cast<Half>(expected)));
  return same_value(expected, std::bit_cast<std::uint16_t>(got), expected_nan, std::isnan(float(got)));
}

template <class T>
struct Float8Type {
  using type = T;
  std::string name;
  zt::DType dtype;
};

template <class F>
void for_each_float8(F&& f) {
  f(Float8Type<zt::float8_e4m3fn>{"float8_e4m3fn", zt::float8_e4m3fn_});
  f(Float8Type<zt::float8_e5m2>{"float8_e5m2", zt::float8_e5m2_});
  f(Float8Type<zt::float8_e4m3fnuz>{"float8_e4m3fnuz", zt::float8_e4m3fnuz_});
  f(Float8Type<zt::float8_e5m2fnuz>{"float8_e5m2fnuz", zt::float8_e5m2fnuz_});
  f(Float8Type<zt::float8_e8m0fnu>{"float8_e8m0fnu", zt::float8_e8m0fnu_});
}

/// A 1-D tensor holding `values`.
template <class T>
zt::AnyTensor tensor_of(const std::vector<T>& values) {
  const zt::index_t shape[] = {zt::index_t(values.size())};
  zt::Tensor<T> tensor = zt::empty<T>(shape);
  std::memcpy(tensor.data(), values.data(), values.size() * sizeof(T));
  return tensor;
}

template <class T>
std::vector<T> values_of(const zt::AnyTensor& tensor) {
  const zt::Tensor<const T> typed = tensor.as<const T>();
  return std::vector<T>(typed.data(), typed.data() + typed.numel());
}

/// Counts the records that fail `check`, reporting the first few.
struct Mismatches {
  std::string what;
  int count = 0;
  int checked = 0;

  template <class Describe>
  void check(bool ok, Describe describe) {
    ++checked;
    if (ok) return;
    if (++count <= 8) BOOST_ERROR(what << ": " << describe());
  }
  ~Mismatches() {
    BOOST_TEST_MESSAGE(what << ": " << checked << " checked, " << count << " differ from PyTorch");
    BOOST_TEST(count == 0, what << ": " << count << " of " << checked << " differ from PyTorch");
  }
};

std::string hex(std::uint64_t bits) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(bits));
  return text;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(float8)

BOOST_AUTO_TEST_CASE(every_code_decodes_to_pytorchs_float) {
  for_each_float8([](auto type) {
    using T = typename decltype(type)::type;
    const std::vector<Decoded> expected = read_decoded(type.name);
    Mismatches mismatches{type.name + " decode"};
    for (int code = 0; code < 256; ++code) {
      const float got = T::from_bits(std::uint8_t(code));
      mismatches.check(same_float(expected[std::size_t(code)].float32, got), [&] {
        return "code " + hex(code) + " gives float32 " + hex(std::bit_cast<std::uint32_t>(got)) + ", PyTorch " +
               hex(expected[std::size_t(code)].float32);
      });
    }
  });
}

BOOST_AUTO_TEST_CASE(float32_sweep_encodes_to_pytorchs_byte) {
  // Includes e4m3fn's saturation of overflow and +-inf to +-448 and e8m0fnu's 0x00 for
  // +-0 and its ignored sign (PyTorch's rules; ml_dtypes gives NaN for those).
  for_each_float8([](auto type) {
    using T = typename decltype(type)::type;
    Mismatches mismatches{type.name + " encode from float32"};
    for (const auto& [input, code] : read_encoded<float>(type.name + ".encode_f32.bin")) {
      const std::uint8_t got = T(input).bits();
      mismatches.check(got == code, [&, input = input, code = code] {
        return "float32 " + hex(std::bit_cast<std::uint32_t>(input)) + " gives " + hex(got) + ", PyTorch " + hex(code);
      });
    }
  });
}

BOOST_AUTO_TEST_CASE(float64_sweep_encodes_through_float_as_pytorch) {
  // PyTorch converts double -> float -> 8-bit float, so a double just above a midpoint can
  // round to the float midpoint and then to even: zerotensor must do the same, both for the
  // element type and through AnyTensor::to.
  for_each_float8([](auto type) {
    using T = typename decltype(type)::type;
    const std::vector<Encoded<double>> records = read_encoded<double>(type.name + ".encode_f64.bin");
    std::vector<double> inputs;
    for (const auto& record : records) inputs.push_back(record.input);
    const std::vector<T> converted = values_of<T>(tensor_of(inputs).to(type.dtype));
    Mismatches scalar{type.name + " encode from float64 (element type)"};
    Mismatches tensor{type.name + " encode from float64 (AnyTensor::to)"};
    for (std::size_t i = 0; i < records.size(); ++i) {
      const auto describe = [&](std::uint8_t got) {
        return [&, got] { return "float64 " + hex(std::bit_cast<std::uint64_t>(inputs[i])) + " gives " + hex(got) +
                                 ", PyTorch " + hex(records[i].code); };
      };
      const std::uint8_t element = T(static_cast<float>(inputs[i])).bits();
      scalar.check(element == records[i].code, describe(element));
      tensor.check(converted[i].bits() == records[i].code, describe(converted[i].bits()));
    }
  });
}

BOOST_AUTO_TEST_CASE(dtype_layer_converts_as_pytorch) {
  for_each_float8([](auto type) {
    using T = typename decltype(type)::type;
    const std::vector<Decoded> expected = read_decoded(type.name);
    const std::vector<Encoded<float>> records = read_encoded<float>(type.name + ".encode_f32.bin");

    // float32 -> T and back to float32.
    std::vector<float> inputs;
    for (const auto& record : records) inputs.push_back(record.input);
    const zt::AnyTensor encoded = tensor_of(inputs).to(type.dtype);
    BOOST_TEST(encoded.dtype() == type.dtype);
    const std::vector<T> codes = values_of<T>(encoded);
    const std::vector<float> back = values_of<float>(encoded.to(zt::float32));
    Mismatches encode{type.name + " float32 .to()"}, decode{type.name + " .to(float32) of the sweep"};
    for (std::size_t i = 0; i < records.size(); ++i) {
      encode.check(codes[i].bits() == records[i].code, [&] {
        return "float32 " + hex(std::bit_cast<std::uint32_t>(inputs[i])) + " gives " + hex(codes[i].bits()) +
               ", PyTorch " + hex(records[i].code);
      });
      decode.check(same_float(expected[records[i].code].float32, back[i]), [&] { return "code " + hex(records[i].code); });
    }

    // Every code to each other dtype.
    std::vector<T> all;
    for (int code = 0; code < 256; ++code) all.push_back(T::from_bits(std::uint8_t(code)));
    const zt::AnyTensor source = tensor_of(all);
    const std::vector<float> floats = values_of<float>(source.to(zt::float32));
    const auto bfloats = values_of<Eigen::bfloat16>(source.to(zt::bfloat16));
    const auto halves = values_of<Eigen::half>(source.to(zt::float16));
    const auto ints = values_of<std::int32_t>(source.to(zt::int32));
    const auto bools = values_of<bool>(source.to(zt::bool_));
    Mismatches to_float{type.name + " .to(float32)"}, to_bfloat{type.name + " .to(bfloat16)"},
        to_half{type.name + " .to(float16)"}, to_int{type.name + " .to(int32)"}, to_bool{type.name + " .to(bool)"};
    for (std::size_t code = 0; code < 256; ++code) {
      const Decoded& want = expected[code];
      const auto where = [&] { return "code " + hex(code); };
      to_float.check(same_float(want.float32, floats[code]), where);
      to_bfloat.check(same_half(want.bfloat16, bfloats[code]), where);
      to_half.check(same_half(want.float16, halves[code]), where);
      to_bool.check(bools[code] == want.boolean, where);
      // Only values within int32: float -> int32 of NaN, infinity or out-of-range values is
      // undefined in C++, and PyTorch gives what the CPU gives (INT_MIN on x86-64), where
      // zerotensor gives its own documented values (NaN -> 0, saturation).
      const float value = std::bit_cast<float>(want.float32);
      if (std::isfinite(value) && std::abs(value) < 2147483648.0f)
        to_int.check(ints[code] == want.int32, [&] {
          return where() + " gives " + std::to_string(ints[code]) + ", PyTorch " + std::to_string(want.int32);
        });
    }
  });
}

#if defined(__SSE2__)
BOOST_AUTO_TEST_CASE(decoding_ignores_denormals_are_zero_and_flush_to_zero) {
  // A caller's DAZ/FTZ must not change a decoded value: float8_e8m0fnu's 0x00 is 2^-127, a
  // subnormal float, which floating-point arithmetic would read or write as zero there.
  for_each_float8([](auto type) {
    using T = typename decltype(type)::type;
    const std::vector<Decoded> expected = read_decoded(type.name);
    // 259 codes: past a multiple of any vector width, so that the bulk loops' remainder runs.
    std::vector<T> codes;
    for (int i = 0; i < 259; ++i) codes.push_back(T::from_bits(std::uint8_t(i)));
    const zt::AnyTensor source = tensor_of(codes);
    std::vector<std::uint32_t> floats;  // decoded in the default mode
    for (const T code : codes) floats.push_back(std::bit_cast<std::uint32_t>(static_cast<float>(code)));

    const zt_test::FlushDenormals mode;
    volatile float smallest = std::bit_cast<float>(std::uint32_t{0x00400000});
    BOOST_REQUIRE_MESSAGE(smallest * 1.0f == 0.0f, "DAZ/FTZ is not in effect");
    const zt::index_t shape[] = {zt::index_t(codes.size())};
    const zt::AnyTensor float_copy = zt::empty(shape, zt::float32), bfloat_copy = zt::empty(shape, zt::bfloat16);
    zt::copy_into(source, float_copy);
    zt::copy_into(source, bfloat_copy);
    const std::vector<float> to_float = values_of<float>(source.to(zt::float32)),
                             copied_float = values_of<float>(float_copy);
    const auto to_bfloat = values_of<Eigen::bfloat16>(source.to(zt::bfloat16));
    const auto copied_bfloat = values_of<Eigen::bfloat16>(bfloat_copy);
    Mismatches mismatches{type.name + " decoded under DAZ|FTZ"};
    for (std::size_t i = 0; i < codes.size(); ++i) {
      const volatile std::uint8_t bits = codes[i].bits();  // decoded at run time, in this mode
      const float scalar = T::from_bits(bits);
      const std::uint32_t want = floats[i];
      const auto want_bfloat = std::uint16_t(want >> 16);
      const auto bfloat_bits = [](Eigen::bfloat16 value) { return std::bit_cast<std::uint16_t>(value); };
      mismatches.check(same_float(expected[i % 256].float32, std::bit_cast<float>(want)) &&
                           std::bit_cast<std::uint32_t>(scalar) == want &&
                           bfloat_bits(Eigen::bfloat16(scalar)) == want_bfloat &&
                           std::bit_cast<std::uint32_t>(to_float[i]) == want &&
                           std::bit_cast<std::uint32_t>(copied_float[i]) == want &&
                           bfloat_bits(to_bfloat[i]) == want_bfloat && bfloat_bits(copied_bfloat[i]) == want_bfloat,
                       [&] { return "code " + hex(codes[i].bits()); });
    }
  });
}
#endif

BOOST_AUTO_TEST_CASE(complex32_round_trips_as_pytorch) {
  const std::vector<unsigned char> bytes = read_data("complex32.bin");
  BOOST_REQUIRE(!bytes.empty() && bytes.size() % 20 == 0);
  std::vector<std::complex<float>> inputs;
  for (std::size_t at = 0; at < bytes.size(); at += 20)
    inputs.emplace_back(std::bit_cast<float>(read_at<std::uint32_t>(bytes, at)),
                        std::bit_cast<float>(read_at<std::uint32_t>(bytes, at + 4)));
  const zt::AnyTensor halves = tensor_of(inputs).to(zt::complex32_);
  const std::vector<zt::complex32> got = values_of<zt::complex32>(halves);
  const auto back = values_of<std::complex<float>>(halves.to(zt::complex64));
  Mismatches to_half{"complex64 .to(complex32)"}, element{"zt::complex32(std::complex<float>)"},
      to_float{"complex32 .to(complex64)"};
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::size_t at = i * 20;
    const auto where = [&] {
      return "(" + std::to_string(inputs[i].real()) + ", " + std::to_string(inputs[i].imag()) + ")";
    };
    const std::uint16_t real = read_at<std::uint16_t>(bytes, at + 8), imag = read_at<std::uint16_t>(bytes, at + 10);
    to_half.check(same_half(real, got[i].real()) && same_half(imag, got[i].imag()), where);
    const zt::complex32 single(inputs[i]);
    element.check(same_half(real, single.real()) && same_half(imag, single.imag()), where);
    to_float.check(same_float(read_at<std::uint32_t>(bytes, at + 12), back[i].real()) &&
                       same_float(read_at<std::uint32_t>(bytes, at + 16), back[i].imag()),
                   where);
  }
}

BOOST_AUTO_TEST_CASE(eigen_maps_decode_through_the_element_type) {
  const zt::index_t shape[] = {16, 16};
  zt::Tensor<zt::float8_e4m3fn> codes = zt::empty<zt::float8_e4m3fn>(shape);
  for (int code = 0; code < 256; ++code) codes.data()[code] = zt::float8_e4m3fn::from_bits(std::uint8_t(code));
  const zt::Tensor<const zt::float8_e4m3fn, 2> view = zt::AnyTensor(codes).as<const zt::float8_e4m3fn, 2>();
  const std::vector<Decoded> expected = read_decoded("float8_e4m3fn");
  const auto check = [&](const auto& floats, const char* what) {
    Mismatches mismatches{what};
    for (int code = 0; code < 256; ++code)
      mismatches.check(same_float(expected[std::size_t(code)].float32, floats(code / 16, code % 16)),
                       [&] { return "code " + hex(code); });
  };
  std::visit([&](const auto& matrix) { check(Eigen::MatrixXf(matrix.template cast<float>()), "matrix().cast<float>()"); },
             view.matrix());
  const Eigen::ArrayXf flat = view.array().cast<float>();
  check([&](int row, int column) { return flat(row * 16 + column); }, "array().cast<float>()");
}

BOOST_AUTO_TEST_CASE(eigen_num_traits_match_torch_finfo) {
  // torch.finfo(dtype).max, .min and .eps in PyTorch 2.15.
  const auto check = [](auto type, float highest, float lowest, float epsilon) {
    using T = typename decltype(type)::type;
    BOOST_TEST_CONTEXT(type.name) {
      BOOST_TEST(float(Eigen::NumTraits<T>::highest()) == highest);
      BOOST_TEST(float(Eigen::NumTraits<T>::lowest()) == lowest);
      BOOST_TEST(float(Eigen::NumTraits<T>::epsilon()) == epsilon);
      BOOST_TEST(std::isnan(float(Eigen::NumTraits<T>::quiet_NaN())));
    }
  };
  check(Float8Type<zt::float8_e4m3fn>{"float8_e4m3fn", zt::float8_e4m3fn_}, 448.0f, -448.0f, 0.125f);
  check(Float8Type<zt::float8_e5m2>{"float8_e5m2", zt::float8_e5m2_}, 57344.0f, -57344.0f, 0.25f);
  check(Float8Type<zt::float8_e4m3fnuz>{"float8_e4m3fnuz", zt::float8_e4m3fnuz_}, 240.0f, -240.0f, 0.125f);
  check(Float8Type<zt::float8_e5m2fnuz>{"float8_e5m2fnuz", zt::float8_e5m2fnuz_}, 57344.0f, -57344.0f, 0.25f);
  // e8m0fnu has no sign: its lowest value is its smallest, 2^-127 (torch.finfo's min).
  check(Float8Type<zt::float8_e8m0fnu>{"float8_e8m0fnu", zt::float8_e8m0fnu_}, std::ldexp(1.0f, 127),
        std::ldexp(1.0f, -127), 1.0f);
}

BOOST_AUTO_TEST_CASE(float8_types_promote_only_with_themselves) {
  BOOST_CHECK_EXCEPTION((void)zt::promote_types(zt::float8_e4m3fn_, zt::float32), zt::TypeError,
                        with_message<zt::TypeError>("promotion for float8 and sub-byte types is not supported, "
                                                    "attempted to promote float8_e4m3fn and float32"));
  BOOST_TEST(zt::promote_types(zt::float8_e5m2_, zt::float8_e5m2_) == zt::float8_e5m2_);
}

BOOST_AUTO_TEST_CASE(packed_types_copy_bytes_but_convert_to_nothing) {
  const zt::index_t shape[] = {4};
  zt::Tensor<zt::float4_e2m1fn_x2> packed = zt::empty<zt::float4_e2m1fn_x2>(shape);
  for (int i = 0; i < 4; ++i) packed.data()[i].bits = std::uint8_t(0x1F * i + 3);
  const zt::AnyTensor source = packed;
  BOOST_CHECK_EXCEPTION((void)source.to(zt::float32), zt::TypeError,
                        with_message<zt::TypeError>("copy_into: cannot convert float4_e2m1fn_x2 to float32; as in "
                                                    "PyTorch, packed sub-byte types convert to no other dtype"));
  const zt::AnyTensor copy = source.clone();
  BOOST_TEST(copy.data_ptr() != source.data_ptr());
  BOOST_TEST(std::memcmp(copy.data_ptr(), source.data_ptr(), 4) == 0);
}

BOOST_AUTO_TEST_SUITE_END()
