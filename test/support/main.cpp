// The one Boost.Test entry point every suite links.
#define BOOST_TEST_MODULE zerotensor
#include <boost/test/unit_test.hpp>
