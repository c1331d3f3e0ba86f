# Runs at install time (install(CODE) in cmake/install.cmake): copies the example graphs to
# <prefix>/share/fieldflow/graphs, with the sample photos they name (Debian's opencv-doc files, in
# the source tree) pointing at the copies installed in <prefix>/share/fieldflow/images, so the
# installed graphs run as they are. The prefix is the one given at install time (cmake --install
# --prefix, or /usr inside the .deb), not the one configured.
#
# In: FF_GRAPHS_DIR, FF_SAMPLE_DATA_DIR, FF_DATADIR (relative to the prefix), FF_STAGING_DIR.
file(GLOB graphs ${FF_GRAPHS_DIR}/*.yaml)
set(images_dir "${CMAKE_INSTALL_PREFIX}/${FF_DATADIR}/images")
file(MAKE_DIRECTORY ${FF_STAGING_DIR})
foreach(graph IN LISTS graphs)
  file(READ ${graph} text)
  string(REPLACE "${FF_SAMPLE_DATA_DIR}/" "${images_dir}/" text "${text}")
  get_filename_component(name ${graph} NAME)
  file(WRITE ${FF_STAGING_DIR}/${name} "${text}")
  file(INSTALL ${FF_STAGING_DIR}/${name} DESTINATION "${CMAKE_INSTALL_PREFIX}/${FF_DATADIR}/graphs")
endforeach()
