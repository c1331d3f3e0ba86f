// fieldflow: run, check and inspect node graphs. Everything lives in ff_host; see host/src/cli.cpp.
#include <fieldflow/host/cli.hpp>

int main(int argc, char** argv) { return fieldflow::host::run_cli(argc, argv); }
