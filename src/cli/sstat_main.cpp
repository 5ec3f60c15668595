#include "cli/sstat.h"

int main(int argc, char** argv) { return drover::cli::runSstat(argc, argv); }
