#include "cli/salloc.h"

int main(int argc, char** argv) { return drover::cli::runSalloc(argc, argv); }
