// What README.md's DLPack block needs besides readme_tour_prelude.hpp: libtorch, and a
// producer that hands out a managed tensor.
#pragma once

#include <ATen/ATen.h>
#include <ATen/DLConvertor.h>

zt::dlpack::ManagedTensorVersioned* producer_export();
