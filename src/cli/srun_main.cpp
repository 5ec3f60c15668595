#include "cli/srun.h"

int main(int argc, char** argv) { return drover::cli::runSrun(argc, argv); }
