// What the blocks that use libtorch (at::) need besides readme_tour_prelude.hpp.
#pragma once

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>
