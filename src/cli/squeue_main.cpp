#include "cli/squeue.h"

int main(int argc, char** argv) { return drover::cli::runSqueue(argc, argv); }
