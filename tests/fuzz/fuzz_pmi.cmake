drover_fuzz_target(fuzz_pmi SOURCE fuzz_pmi.cpp LIBS drover_pmi)
