# fieldflow_add_plugin(<target> [SOURCES] <source>...)
#
# Builds a fieldflow plugin: a MODULE library linking the SDK (fieldflow::plugin_sdk), with every
# symbol hidden except the entry point `fieldflow_plugin`, written to FIELDFLOW_PLUGIN_DIR
# (default <build>/bin/plugins) as <target>.so. Link further libraries with target_link_libraries
# as usual:
#
#   fieldflow_add_plugin(ff_myplugin SOURCES my_node.cpp plugin.cpp)
#   target_link_libraries(ff_myplugin PRIVATE ${OpenCV_LIBS})
#
# The same file serves the built-in plugins (plugin/CMakeLists.txt) and plugins built outside this
# tree against an installed fieldflow (find_package(fieldflow), lib/cmake/fieldflow/), so both are
# built the same way.
function(fieldflow_add_plugin target)
  # Linker version script exporting only the entry point.
  set(exports ${CMAKE_CURRENT_FUNCTION_LIST_DIR}/plugin_exports.map)
  set(sources ${ARGN})
  list(REMOVE_ITEM sources SOURCES)
  if(NOT sources)
    message(FATAL_ERROR "fieldflow_add_plugin(${target}): no sources given")
  endif()
  if(NOT DEFINED FIELDFLOW_PLUGIN_DIR)
    set(FIELDFLOW_PLUGIN_DIR ${CMAKE_BINARY_DIR}/bin/plugins)
  endif()
  add_library(${target} MODULE ${sources})
  target_link_libraries(${target} PRIVATE fieldflow::plugin_sdk)
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LIBRARY_OUTPUT_DIRECTORY ${FIELDFLOW_PLUGIN_DIR}
    LINK_DEPENDS ${exports})
  target_link_options(${target} PRIVATE "LINKER:--version-script=${exports}")
  # Report unresolved symbols at link time rather than when the host loads the plugin (the
  # sanitizer runtimes live in the executable, so the check is off in sanitizer builds).
  if(NOT FIELDFLOW_SANITIZE)
    target_link_options(${target} PRIVATE "LINKER:-z,defs")
  endif()
endfunction()
