# ff_nodes_common: what node authors share (ImageView <-> cv::Mat, atomic file writes, whole-file
# reads, the feature-grid size rule). Static and position-independent so plugins can link it.
include_guard(GLOBAL)
add_library(ff_nodes_common STATIC
  ${CMAKE_CURRENT_LIST_DIR}/atomic_write.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bands.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cancellable_call.cpp
  ${CMAKE_CURRENT_LIST_DIR}/grid_size.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image_mat.cpp
  ${CMAKE_CURRENT_LIST_DIR}/label_band.cpp
  ${CMAKE_CURRENT_LIST_DIR}/whole_file.cpp)
target_include_directories(ff_nodes_common PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(ff_nodes_common PUBLIC ff_plugin_sdk opencv_core opencv_imgproc)
set_target_properties(ff_nodes_common PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
