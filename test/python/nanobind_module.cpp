// The nanobind test module of test_casters.py.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "zerotensor/nanobind.hpp"
#include "python/caster_functions.hpp"

NB_MODULE(zt_nanobind_test, m) { zt_test::define_caster_functions(m); }
