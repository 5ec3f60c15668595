#include "cli/sbcast.h"

int main(int argc, char** argv) { return drover::cli::runSbcast(argc, argv); }
