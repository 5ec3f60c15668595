#include "cli/scancel.h"

int main(int argc, char** argv) { return drover::cli::runScancel(argc, argv); }
