# Writes the documentation's C++ blocks as functions of one source file, so that CTest's
# readme_tour compiles each line as written (with -Wall -Wextra -Werror):
#   - every ```cpp block of README.md's "## A short tour" section, and
#   - every ```cpp block of every docs/*.md page.
#   cmake -DREADME=<README.md> -DDOCS_DIR=<docs> -DOUTPUT=<tour.cpp> -DTORCH_OUTPUT=<tour_torch.cpp>
#         -P extract_readme_tour.cmake
# A block fenced as ```cpp is compiled; a block that is not meant to compile (a sketch, an
# excerpt of a design) is fenced as ```c++ or ```text instead, and other languages by their
# names (```sh, ```cmake, ```python).
# A block that uses libtorch (at::) goes to TORCH_OUTPUT, compiled where libtorch is found.
# A block that starts with `extern "C"` is file-scope code and is written as it is. A block
# that includes <zerotensor/cuda.hpp> needs nvcc and is left out; examples/cuda_triad.cu
# makes the same calls in the CUDA build. Include lines are dropped (the preludes,
# readme_tour_prelude.hpp and readme_tour_torch_prelude.hpp, include what the blocks name),
# and each block is preceded by a #line directive, so a diagnostic names the Markdown file
# and line it comes from.
cmake_minimum_required(VERSION 3.22)

set(header "// Generated from README.md and docs/*.md by test/compile/extract_readme_tour.cmake: do not edit.\n#include \"readme_tour_prelude.hpp\"\n")
set(cpu_source "${header}")
set(torch_source "${header}#include \"readme_tour_torch_prelude.hpp\"\n")
set(block_count 0)

# The number of the line at which `offset` (a character index of `text`) lies, from 1.
function(line_at text offset result)
  string(SUBSTRING "${text}" 0 ${offset} before)
  string(REGEX MATCHALL "\n" newlines "${before}")
  list(LENGTH newlines count)
  math(EXPR line "${count} + 1")
  set(${result} ${line} PARENT_SCOPE)
endfunction()

# Appends the ```cpp blocks of the text in the variable `text_variable` to cpu_source and
# torch_source. That text starts on line `first_line` of the file that diagnostics call `name`.
function(extract_blocks text_variable name first_line)
  set(text "${${text_variable}}")
  set(rest "${text}")
  set(consumed 0)
  while(TRUE)
    string(FIND "${rest}" "```cpp\n" open)
    if(open EQUAL -1)
      break()
    endif()
    math(EXPR body_start "${open} + 7")
    math(EXPR body_offset "${consumed} + ${body_start}")
    line_at("${text}" ${body_offset} body_line)
    math(EXPR body_line "${body_line} + ${first_line} - 1")
    string(SUBSTRING "${rest}" ${body_start} -1 rest)
    string(FIND "${rest}" "```" close)
    string(SUBSTRING "${rest}" 0 ${close} block)
    string(SUBSTRING "${rest}" ${close} -1 rest)
    math(EXPR consumed "${body_offset} + ${close}")
    math(EXPR block_count "${block_count} + 1")

    string(FIND "${block}" "#include <zerotensor/cuda.hpp>" needs_cuda)
    if(NOT needs_cuda EQUAL -1)
      continue()
    endif()
    # The preludes have every include the blocks name; the line stays, empty, so that the
    # #line numbering holds.
    string(REGEX REPLACE "#include <[^>\n]*>[^\n]*\n" "\n" block "${block}")
    set(location "#line ${body_line} \"${name}\"\n")
    if(block MATCHES "^\n*extern \"C\"")
      set(code "\n${location}${block}")
    else()
      set(code "\nvoid readme_tour_block_${block_count}() {\n${location}${block}}\n")
    endif()
    string(FIND "${block}" "at::" needs_torch)
    if(needs_torch EQUAL -1)
      string(APPEND cpu_source "${code}")
    else()
      string(APPEND torch_source "${code}")
    endif()
  endwhile()
  set(cpu_source "${cpu_source}" PARENT_SCOPE)
  set(torch_source "${torch_source}" PARENT_SCOPE)
  set(block_count ${block_count} PARENT_SCOPE)
endfunction()

# README.md: the blocks of "## A short tour", up to the next "## " heading.
file(READ "${README}" readme)
string(FIND "${readme}" "\n## A short tour\n" tour_start)
if(tour_start EQUAL -1)
  message(FATAL_ERROR "${README}: no \"## A short tour\" section")
endif()
string(SUBSTRING "${readme}" ${tour_start} -1 tour)
string(SUBSTRING "${tour}" 1 -1 after_heading)
string(FIND "${after_heading}" "\n## " tour_end)
if(NOT tour_end EQUAL -1)
  math(EXPR tour_end "${tour_end} + 1")
endif()
string(SUBSTRING "${tour}" 0 ${tour_end} tour)
line_at("${readme}" ${tour_start} tour_line)
extract_blocks(tour "README.md" ${tour_line})
if(block_count EQUAL 0)
  message(FATAL_ERROR "${README}: no ```cpp blocks in \"A short tour\"")
endif()

# docs/*.md: every block of every page, in the order of their names.
file(GLOB pages "${DOCS_DIR}/*.md")
list(SORT pages)
foreach(page IN LISTS pages)
  file(READ "${page}" text)
  get_filename_component(page_name "${page}" NAME)
  extract_blocks(text "docs/${page_name}" 1)
endforeach()

file(WRITE "${OUTPUT}" "${cpu_source}")
file(WRITE "${TORCH_OUTPUT}" "${torch_source}")
