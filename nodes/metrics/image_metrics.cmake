# ff_image_metrics: MSE / PSNR / SSIM and error maps on cv::Mats, used by the Metrics node and the neural
# Report node. Static and position-independent so plugins can link it.
include_guard(GLOBAL)
include(${CMAKE_CURRENT_LIST_DIR}/../common/common.cmake)
add_library(ff_image_metrics STATIC ${CMAKE_CURRENT_LIST_DIR}/image_metrics.cpp
            ${CMAKE_CURRENT_LIST_DIR}/error_map.cpp)
target_include_directories(ff_image_metrics PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(ff_image_metrics PUBLIC ff_nodes_common opencv_core opencv_imgproc)
set_target_properties(ff_image_metrics PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)
