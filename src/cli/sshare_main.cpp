#include "cli/sshare.h"

int main(int argc, char** argv) { return drover::cli::runSshare(argc, argv); }
