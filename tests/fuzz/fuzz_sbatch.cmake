drover_fuzz_target(fuzz_sbatch SOURCE fuzz_sbatch.cpp LIBS drover_jobspec)
