# Where an installed fieldflow keeps its files, relative to the install prefix. The plugin folder
# and the host library sit where the program looks for them relative to itself (bin/../lib/...),
# so an install works under any prefix (/usr from the .deb, /opt/x, a home folder).
set(FIELDFLOW_INSTALL_BINDIR bin)
set(FIELDFLOW_INSTALL_LIBDIR lib)
set(FIELDFLOW_INSTALL_PRIVATE_LIBDIR lib/fieldflow)           # libff_host.so
set(FIELDFLOW_INSTALL_PLUGINDIR lib/fieldflow/plugins)        # built-in plugins
set(FIELDFLOW_INSTALL_INCLUDEDIR include)                     # SDK headers
set(FIELDFLOW_INSTALL_CMAKEDIR lib/cmake/fieldflow)           # find_package(fieldflow)
set(FIELDFLOW_INSTALL_PKGCONFIGDIR lib/pkgconfig)             # fieldflow.pc
set(FIELDFLOW_INSTALL_DATADIR share/fieldflow)                # graphs/, images/, docs/
