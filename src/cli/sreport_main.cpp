#include "cli/sreport.h"

int main(int argc, char** argv) { return drover::cli::runSreport(argc, argv); }
