#include "cli/sdiag.h"

int main(int argc, char** argv) { return drover::cli::runSdiag(argc, argv); }
