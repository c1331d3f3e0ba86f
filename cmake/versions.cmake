# ff_versions: the generated header fieldflow/versions.hpp (cmake/versions.hpp.in) with the program,
# plugin ABI, model-format, checkpoint-format and engine versions. Header-only: it reads the
# engine's constants from kernels/include without linking the engine.
configure_file(${CMAKE_CURRENT_LIST_DIR}/versions.hpp.in
               ${CMAKE_BINARY_DIR}/generated/include/fieldflow/versions.hpp @ONLY)
add_library(ff_versions INTERFACE)
target_include_directories(ff_versions INTERFACE
  ${CMAKE_BINARY_DIR}/generated/include
  ${CMAKE_SOURCE_DIR}/kernels/include
  ${CMAKE_SOURCE_DIR}/plugin/include)
