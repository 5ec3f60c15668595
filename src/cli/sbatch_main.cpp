#include "cli/sbatch.h"

int main(int argc, char** argv) { return drover::cli::runSbatch(argc, argv); }
