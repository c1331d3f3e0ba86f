# Installing fieldflow (`cmake --install build --prefix P`, or the .deb from `cpack`): the program,
# its host library and built-in plugins (host/ and nodes/ install those), the plugin SDK for
# authors of plugins built elsewhere (plugin/), and here: the example graphs with their sample
# photos, the documentation, the CMake package, the pkg-config file and the Debian package.
include(CMakePackageConfigHelpers)

# The plugin ABI version, read from plugin.h (its one definition) for the package files.
file(STRINGS ${CMAKE_SOURCE_DIR}/plugin/include/fieldflow/plugin.h abi_lines
     REGEX "^#define FF_ABI_(MAJOR|MINOR) [0-9]+u?$")
string(REGEX REPLACE ".*FF_ABI_MAJOR ([0-9]+).*FF_ABI_MINOR ([0-9]+).*" "\\1.\\2"
       FIELDFLOW_ABI_VERSION "${abi_lines}")

# ---- Example graphs and the sample photos they name ----------------------------------------------
# The graphs name photos from Debian's opencv-doc (a build dependency); the install carries copies
# of the ones they use, and the installed graphs point at them (cmake/install_graphs.cmake).
set(FIELDFLOW_SAMPLE_DATA_DIR /usr/share/doc/opencv-doc/examples/data CACHE PATH
    "Folder of the sample photos the example graphs name")
file(GLOB graph_files ${CMAKE_SOURCE_DIR}/graphs/*.yaml)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${graph_files})
set(sample_images "")
foreach(graph IN LISTS graph_files)
  file(STRINGS ${graph} lines REGEX "${FIELDFLOW_SAMPLE_DATA_DIR}/")
  foreach(line IN LISTS lines)
    string(REGEX MATCH "${FIELDFLOW_SAMPLE_DATA_DIR}/[^ \"']+" image "${line}")
    list(APPEND sample_images ${image})
  endforeach()
endforeach()
list(REMOVE_DUPLICATES sample_images)
foreach(image IN LISTS sample_images)
  if(NOT EXISTS ${image})
    message(WARNING "${image}, named by an example graph, is missing (install opencv-doc): "
                    "the installed graph will name a photo that is not installed")
    list(REMOVE_ITEM sample_images ${image})
  endif()
endforeach()
install(FILES ${sample_images} DESTINATION ${FIELDFLOW_INSTALL_DATADIR}/images)
install(CODE "
  set(FF_GRAPHS_DIR \"${CMAKE_SOURCE_DIR}/graphs\")
  set(FF_SAMPLE_DATA_DIR \"${FIELDFLOW_SAMPLE_DATA_DIR}\")
  set(FF_DATADIR \"${FIELDFLOW_INSTALL_DATADIR}\")
  set(FF_STAGING_DIR \"${CMAKE_BINARY_DIR}/install-graphs\")
  include(\"${CMAKE_SOURCE_DIR}/cmake/install_graphs.cmake\")")

# ---- Documentation -----------------------------------------------------------------------------
# README.md beside docs/, so its links work in the installed copy.
install(FILES ${CMAKE_SOURCE_DIR}/README.md DESTINATION ${FIELDFLOW_INSTALL_DATADIR})
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${FIELDFLOW_INSTALL_DATADIR}/docs)

# ---- CMake package and pkg-config file (the plugin SDK) ----------------------------------------
install(EXPORT fieldflowTargets NAMESPACE fieldflow:: DESTINATION ${FIELDFLOW_INSTALL_CMAKEDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/fieldflowConfig.cmake.in
  ${CMAKE_BINARY_DIR}/package/fieldflowConfig.cmake
  INSTALL_DESTINATION ${FIELDFLOW_INSTALL_CMAKEDIR}
  PATH_VARS FIELDFLOW_INSTALL_PLUGINDIR FIELDFLOW_INSTALL_BINDIR)
# Before 1.0 a minor release may change the SDK: only the same major.minor is compatible.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/package/fieldflowConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
configure_file(${CMAKE_CURRENT_LIST_DIR}/fieldflow.pc.in ${CMAKE_BINARY_DIR}/package/fieldflow.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/package/fieldflowConfig.cmake
              ${CMAKE_BINARY_DIR}/package/fieldflowConfigVersion.cmake
        DESTINATION ${FIELDFLOW_INSTALL_CMAKEDIR})
install(FILES ${CMAKE_BINARY_DIR}/package/fieldflow.pc DESTINATION ${FIELDFLOW_INSTALL_PKGCONFIGDIR})

include(${CMAKE_CURRENT_LIST_DIR}/debian_package.cmake)
