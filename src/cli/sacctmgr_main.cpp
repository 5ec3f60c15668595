#include "cli/sacctmgr.h"

int main(int argc, char** argv) { return drover::cli::runSacctmgr(argc, argv); }
