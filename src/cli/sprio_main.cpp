#include "cli/sprio.h"

int main(int argc, char** argv) { return drover::cli::runSprio(argc, argv); }
