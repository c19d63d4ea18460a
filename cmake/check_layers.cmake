# Checks that no file includes one of a higher layer (cmake -P, run by CTest as `layers`):
# the public headers of include/zerotensor/ (ZT_INCLUDE_DIR) and the library's sources, whose
# folders under src/ (ZT_SOURCE_DIR) are the layers. The layers, lowest first; a file may
# include its own layer and those below. detail/ headers belong to the layer of what they serve.
set(zt_layers
  "vocabulary: export version error device float8 complex32 packed_floats gguf_blocks dtype dtype_sets extents shape scalar path_ref to_options detail/checked_arithmetic detail/element_checks"
  "memory: buffer storage mapped_file device_of staging"
  "views: tensor any_tensor convert shares_memory print detail/device_copy detail/view_layout"
  "constructors: empty frombuffer pin_memory asarray as_tensor eigen_tensor dlpack from_dlpack to_dlpack dlpack_asarray arrow from_arrow to_arrow arrow_asarray"
  "files: slice_options load_options loaded_tensors from_file npy safetensors torch_load checkpoint gguf_value gguf dequantize"
  "shared memory: shared_memory"
  "cuda: cuda"
  "everything: zerotensor"
  "bindings: python nanobind pybind11 detail/python_import detail/python_object")

# The folders of src/ and the layer each is part of (conversion is the views' copy engine;
# interop holds the DLPack and Arrow constructors; cuda implements lower layers' declarations
# for the CUDA build, so it sits on top).
set(zt_source_layers
  "vocabulary=vocabulary" "memory=memory" "views=views" "conversion=views" "constructors=constructors"
  "interop=constructors" "formats=files" "shared_memory=shared memory" "cuda=cuda")

set(rank 0)
foreach(layer IN LISTS zt_layers)
  string(REGEX REPLACE "^[^:]*: " "" headers "${layer}")
  string(REPLACE " " ";" headers "${headers}")
  foreach(header IN LISTS headers)
    set(rank_of_${header} ${rank})
  endforeach()
  string(REGEX REPLACE ":.*" "" name "${layer}")
  set(rank_of_layer_${name} ${rank})
  math(EXPR rank "${rank} + 1")
endforeach()
foreach(pair IN LISTS zt_source_layers)
  string(REPLACE "=" ";" pair "${pair}")
  list(GET pair 0 folder)
  list(GET pair 1 layer)
  set(rank_of_folder_${folder} ${rank_of_layer_${layer}})
endforeach()

function(layer_name rank out)
  list(GET zt_layers ${rank} layer)
  string(REGEX REPLACE ":.*" "" layer "${layer}")
  set(${out} "${layer}" PARENT_SCOPE)
endfunction()

# The layer of what an #include "..." names: a public header (zerotensor/...) or a folder of
# src/; "" when it is in no layer.
function(included_rank included out)
  if(included MATCHES "^zerotensor/(.*)\\.hpp$")
    set(${out} "${rank_of_${CMAKE_MATCH_1}}" PARENT_SCOPE)
  elseif(included MATCHES "^([a-z_]+)/")
    set(${out} "${rank_of_folder_${CMAKE_MATCH_1}}" PARENT_SCOPE)
  else()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()

# Appends to `failures` every include of `path` (named `shown`, of layer `own_rank`) that is
# in no layer or in a higher one.
function(check_includes path shown own_rank)
  file(STRINGS "${path}" lines REGEX "^#include \"")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^#include \"([^\"]*)\".*" "\\1" included "${line}")
    included_rank("${included}" rank)
    if(rank STREQUAL "")
      string(APPEND failures "\n  ${shown} includes ${included}, which is in no layer (spell it from src/ or include/)")
    elseif(rank GREATER own_rank)
      layer_name(${own_rank} own)
      layer_name(${rank} higher)
      string(APPEND failures "\n  ${shown} (${own}) includes ${included} (${higher}), a higher layer")
    endif()
  endforeach()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

set(failures "")
file(GLOB_RECURSE files RELATIVE "${ZT_INCLUDE_DIR}/zerotensor" "${ZT_INCLUDE_DIR}/zerotensor/*.hpp")
foreach(file IN LISTS files)
  string(REGEX REPLACE "\\.hpp$" "" header "${file}")
  if(NOT DEFINED rank_of_${header})
    string(APPEND failures "\n  ${file} is in no layer (add it to cmake/check_layers.cmake)")
  else()
    check_includes("${ZT_INCLUDE_DIR}/zerotensor/${file}" "${file}" ${rank_of_${header}})
  endif()
endforeach()

# Sources: a file in src/<folder>/ may include the public headers and the src/ folders of its
# folder's layer and those below.
file(GLOB_RECURSE sources RELATIVE "${ZT_SOURCE_DIR}" "${ZT_SOURCE_DIR}/*.cpp" "${ZT_SOURCE_DIR}/*.hpp" "${ZT_SOURCE_DIR}/*.cu")
foreach(file IN LISTS sources)
  string(REGEX REPLACE "/.*" "" folder "${file}")
  if(NOT DEFINED rank_of_folder_${folder})
    string(APPEND failures "\n  src/${file} is in no layer's folder (add its folder to cmake/check_layers.cmake)")
  else()
    check_includes("${ZT_SOURCE_DIR}/${file}" "src/${file}" ${rank_of_folder_${folder}})
  endif()
endforeach()

if(failures)
  message(FATAL_ERROR "layering broken:${failures}")
endif()
list(LENGTH files count)
list(LENGTH sources source_count)
message(STATUS "layers: ${count} headers and ${source_count} sources, none includes a higher layer")
