// The one Boost.Test entry point every suite links. Boost.Test is the shared library
// (BOOST_TEST_DYN_LINK), so the program gives main, which names the master suite.
#include <boost/test/unit_test.hpp>

namespace {
bool init_suite() {
  boost::unit_test::framework::master_test_suite().p_name.value = "zerotensor";
  return true;
}
}  // namespace

int main(int argc, char* argv[]) { return boost::unit_test::unit_test_main(&init_suite, argc, argv); }
