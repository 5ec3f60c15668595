drover_fuzz_target(fuzz_sstat SOURCE fuzz_sstat.cpp LIBS drover_cli_acct)
