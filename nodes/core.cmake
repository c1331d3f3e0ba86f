# The "core" plugin: file I/O, basic image ops and metrics, on OpenCV.
include(${CMAKE_CURRENT_LIST_DIR}/common/common.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/metrics/image_metrics.cmake)

find_package(nlohmann_json 3 REQUIRED)

fieldflow_add_plugin(ff_core SOURCES
  ${CMAKE_CURRENT_LIST_DIR}/core_plugin.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/image_file_checks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/encoded_write.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/image_formats.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/pixel_limit.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/read_image.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/write_image.cpp
  ${CMAKE_CURRENT_LIST_DIR}/io/write_json.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/baseline_resize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/bilateral_filter.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/bilinear_baseline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/blend.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/blur.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/channels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/color_convert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/composite.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/concat.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/crop.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/cv_options.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/denoise.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/orient.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/compare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/downsample.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/draw_text.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/edges.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/equalize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/gpu_image.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/grayscale.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/invert.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/levels.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/median_blur.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/morphology.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/normalize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/pad.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/sample_depth.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/threshold.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/warp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neural/device_cache.cpp
  ${CMAKE_CURRENT_LIST_DIR}/image/resize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metrics.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/metrics_table.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/error_map_node.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/histogram.cpp
  ${CMAKE_CURRENT_LIST_DIR}/metrics/statistics.cpp)
target_include_directories(ff_core PRIVATE ${CMAKE_CURRENT_LIST_DIR})
# opencv_photo: Denoise (non-local means). ff_engine: the GPU paths of Grayscale and Downsample (`device: gpu`).
target_link_libraries(ff_core PRIVATE ff_engine ff_versions ff_nodes_common ff_image_metrics nlohmann_json::nlohmann_json
                      opencv_core opencv_imgproc opencv_imgcodecs opencv_photo)
