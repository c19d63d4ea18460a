// The pybind11 test module of test_casters.py.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "zerotensor/pybind11.hpp"
#include "python/caster_functions.hpp"

PYBIND11_MODULE(zt_pybind11_test, m) { zt_test::define_caster_functions(m); }
