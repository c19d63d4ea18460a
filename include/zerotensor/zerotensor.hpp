// Everything zerotensor offers.
#pragma once

#include "zerotensor/any_tensor.hpp"
#include "zerotensor/buffer.hpp"
#include "zerotensor/convert.hpp"
#include "zerotensor/device.hpp"
#include "zerotensor/dlpack.hpp"
#include "zerotensor/dtype.hpp"
#include "zerotensor/error.hpp"
#include "zerotensor/extents.hpp"
#include "zerotensor/from_dlpack.hpp"
#include "zerotensor/frombuffer.hpp"
#include "zerotensor/shares_memory.hpp"
#include "zerotensor/storage.hpp"
#include "zerotensor/tensor.hpp"
#include "zerotensor/to_dlpack.hpp"
#include "zerotensor/version.hpp"
