# Plugin "neural": the engine's nodes (Train, TrainSiren, TrainSplats, Infer, SaveModel, LoadModel, Report).
# ff_neural_support holds everything but the op declarations, so unit tests can link the pieces
# directly; the plugin module adds the ops.
include(${CMAKE_CURRENT_LIST_DIR}/common/common.cmake)
include(${CMAKE_CURRENT_LIST_DIR}/metrics/image_metrics.cmake)
find_package(nlohmann_json 3 REQUIRED)

set(FF_NEURAL_DIR ${CMAKE_CURRENT_LIST_DIR}/neural)
add_library(ff_neural_support STATIC
  ${FF_NEURAL_DIR}/background_writer.cpp
  ${FF_NEURAL_DIR}/base64.cpp
  ${FF_NEURAL_DIR}/block_windows.cpp
  ${FF_NEURAL_DIR}/codec_baselines.cpp
  ${FF_NEURAL_DIR}/compare_table.cpp
  ${FF_NEURAL_DIR}/cpu_budget.cpp
  ${FF_NEURAL_DIR}/device_cache.cpp
  ${FF_NEURAL_DIR}/field_learner.cpp
  ${FF_NEURAL_DIR}/model_alternative.cpp
  ${FF_NEURAL_DIR}/model_input.cpp
  ${FF_NEURAL_DIR}/neural_images.cpp
  ${FF_NEURAL_DIR}/number_text.cpp
  ${FF_NEURAL_DIR}/output_size.cpp
  ${FF_NEURAL_DIR}/png_size.cpp
  ${FF_NEURAL_DIR}/png_thumbnail.cpp
  ${FF_NEURAL_DIR}/report_ab_view.cpp
  ${FF_NEURAL_DIR}/report_crops.cpp
  ${FF_NEURAL_DIR}/report_notes.cpp
  ${FF_NEURAL_DIR}/report_page.cpp
  ${FF_NEURAL_DIR}/report_rate_plot.cpp
  ${FF_NEURAL_DIR}/report_views.cpp
  ${FF_NEURAL_DIR}/snapshot_files.cpp
  ${FF_NEURAL_DIR}/train_params.cpp
  ${FF_NEURAL_DIR}/train_splats.cpp
  ${FF_NEURAL_DIR}/training_checkpoint.cpp
  ${FF_NEURAL_DIR}/training_estimate.cpp
  ${FF_NEURAL_DIR}/training_log.cpp
  ${FF_NEURAL_DIR}/training_op.cpp
  ${FF_NEURAL_DIR}/training_progress_text.cpp
  ${FF_NEURAL_DIR}/training_run.cpp
  ${FF_NEURAL_DIR}/training_schedule.cpp
  ${FF_NEURAL_DIR}/weights_json_format.cpp)
target_include_directories(ff_neural_support PUBLIC ${FF_NEURAL_DIR})
target_link_libraries(ff_neural_support PUBLIC
  ff_engine ff_nodes_common ff_image_metrics ff_plugin_sdk nlohmann_json::nlohmann_json
  opencv_core opencv_imgproc opencv_imgcodecs)
# TrainSplats needs the splat engine (kernels/src/splats/); without it TrainSplats and Infer say
# "splat model not available in this build".
file(GLOB FF_SPLAT_ENGINE_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/kernels/src/splats/*.cpp)
if(FF_SPLAT_ENGINE_SOURCES)
  target_compile_definitions(ff_neural_support PUBLIC FF_HAVE_SPLATS=1)
else()
  target_compile_definitions(ff_neural_support PUBLIC FF_HAVE_SPLATS=0)
endif()
set_target_properties(ff_neural_support PROPERTIES
  POSITION_INDEPENDENT_CODE ON
  CXX_VISIBILITY_PRESET hidden
  VISIBILITY_INLINES_HIDDEN ON)

fieldflow_add_plugin(ff_neural SOURCES
  ${FF_NEURAL_DIR}/plugin.cpp
  ${FF_NEURAL_DIR}/train.cpp
  ${FF_NEURAL_DIR}/infer.cpp
  ${FF_NEURAL_DIR}/save_model.cpp
  ${FF_NEURAL_DIR}/load_model.cpp
  ${FF_NEURAL_DIR}/report.cpp
  ${FF_NEURAL_DIR}/png_size_node.cpp
  ${FF_NEURAL_DIR}/devices_node.cpp
  ${FF_NEURAL_DIR}/compare_report.cpp
  ${FF_NEURAL_DIR}/weights_json.cpp)
target_link_libraries(ff_neural PRIVATE ff_neural_support ff_versions)
