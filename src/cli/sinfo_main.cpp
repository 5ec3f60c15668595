#include "cli/sinfo.h"

int main(int argc, char** argv) { return drover::cli::runSinfo(argc, argv); }
