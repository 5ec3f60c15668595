drover_fuzz_target(fuzz_sreport SOURCE fuzz_sreport.cpp LIBS drover_cli_acct)
