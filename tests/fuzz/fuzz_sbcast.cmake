drover_fuzz_target(fuzz_sbcast SOURCE fuzz_sbcast.cpp LIBS drover_cli)
