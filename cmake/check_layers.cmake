# Checks that no public header includes one of a higher layer (cmake -P, run by CTest as
# `layers`). The layers, lowest first; a header may include its own layer and those below.
# detail/ headers belong to the layer of what they serve.
set(zt_layers
  "vocabulary: export version error device float8 complex32 packed_floats dtype dtype_sets extents shape scalar path_ref to_options detail/checked_arithmetic"
  "memory: buffer storage mapped_file device_of staging"
  "views: tensor any_tensor convert shares_memory print detail/device_copy detail/view_layout"
  "constructors: empty frombuffer pin_memory asarray as_tensor eigen_tensor dlpack from_dlpack to_dlpack dlpack_asarray arrow from_arrow to_arrow arrow_asarray"
  "files: load_options from_file npy safetensors torch_load checkpoint"
  "shared memory: shared_memory"
  "cuda: cuda"
  "everything: zerotensor")

set(rank 0)
foreach(layer IN LISTS zt_layers)
  string(REGEX REPLACE "^[^:]*: " "" headers "${layer}")
  string(REPLACE " " ";" headers "${headers}")
  foreach(header IN LISTS headers)
    set(rank_of_${header} ${rank})
  endforeach()
  math(EXPR rank "${rank} + 1")
endforeach()

file(GLOB_RECURSE files RELATIVE "${ZT_INCLUDE_DIR}/zerotensor" "${ZT_INCLUDE_DIR}/zerotensor/*.hpp")
set(failures "")
foreach(file IN LISTS files)
  string(REGEX REPLACE "\\.hpp$" "" header "${file}")
  if(NOT DEFINED rank_of_${header})
    string(APPEND failures "\n  ${file} is in no layer (add it to cmake/check_layers.cmake)")
    continue()
  endif()
  file(STRINGS "${ZT_INCLUDE_DIR}/zerotensor/${file}" lines REGEX "^#include \"zerotensor/")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"zerotensor/(.*)\\.hpp\".*" "\\1" included "${line}")
    if(NOT DEFINED rank_of_${included})
      string(APPEND failures "\n  ${file} includes ${included}.hpp, which is in no layer")
    elseif(rank_of_${included} GREATER rank_of_${header})
      list(GET zt_layers ${rank_of_${header}} own)
      list(GET zt_layers ${rank_of_${included}} higher)
      string(REGEX REPLACE ":.*" "" own "${own}")
      string(REGEX REPLACE ":.*" "" higher "${higher}")
      string(APPEND failures "\n  ${file} (${own}) includes ${included}.hpp (${higher}), a higher layer")
    endif()
  endforeach()
endforeach()
if(failures)
  message(FATAL_ERROR "layering broken:${failures}")
endif()
list(LENGTH files count)
message(STATUS "layers: ${count} headers, no header includes a higher layer")
