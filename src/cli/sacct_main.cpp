#include "cli/sacct.h"

int main(int argc, char** argv) { return drover::cli::runSacct(argc, argv); }
