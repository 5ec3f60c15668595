#include "cli/scontrol.h"

int main(int argc, char** argv) { return drover::cli::runScontrol(argc, argv); }
