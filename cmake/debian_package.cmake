# `cpack -G DEB` (from the build folder): fieldflow_<version>_<arch>.deb installing under /usr.
# Run-time dependencies come from dpkg-shlibdeps (the Debian packages of every library the
# program and its plugins link: OpenCV, Vulkan loader, yaml-cpp, Boost.Program_options, ...).
# The Vulkan driver is a recommendation: Mesa (lavapipe on the CPU, radv, ...) or a vendor driver
# such as NVIDIA's, which is not a Debian package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fieldflow)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "fieldflow")
set(CPACK_PACKAGE_CONTACT "fieldflow maintainers <fieldflow@example.org>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "learns images as neural fields on the GPU, in a node-based image pipeline")
set(CPACK_PACKAGE_DESCRIPTION
    "fieldflow runs image pipelines described in YAML graph files. Its nodes come from plugins:\n\
read, resize, bilinear baseline, train (a feature grid and a small MLP, a SIREN or Gaussian\n\
splats learned with Vulkan compute kernels), infer, metrics and an HTML report. Includes the\n\
plugin SDK (headers, static library, CMake package and pkg-config file) for plugins built\n\
outside fieldflow.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION graphics)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The build type keeps debug information (RelWithDebInfo); the package does not need it.
set(CPACK_STRIP_FILES ON)
# libff_host.so is the package's own private library (lib/fieldflow), not another package's.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CMAKE_BINARY_DIR}/lib)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "mesa-vulkan-drivers")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "cmake, g++, pkg-config, vulkan-tools")
include(CPack)
